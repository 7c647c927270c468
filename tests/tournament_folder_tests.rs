//! Tournament folders that one run holds at a time, that a start cut short does not break, and
//! whose stored settings `--resume` honours with a note or refuses.

use std::fs;
use std::io::Write;
use std::path::Path;

use nix::fcntl::{Flock, FlockArg};
use serde_json::Value;

use crate::harness::*;

const GREEDY: &str = "greedy=builtin:greedy";
const RANDOM: &str = "random=builtin:random";

/// `allfives tournament --json --quiet --out OUT ARGS...`.
fn tournament(out: &Path, args: &[&str]) -> Ran {
    let out = out.display().to_string();
    let mut all = vec!["tournament", "--json", "--quiet", "--out", &out];
    all.extend(args);
    allfives(&all)
}

/// The ids of the games in `OUT/results.jsonl`, in the order written.
fn ids(out: &Path) -> Vec<String> {
    fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| {
            let line: Value = serde_json::from_str(l).expect("a JSON line");
            line["id"].as_str().expect("an id").to_string()
        })
        .collect()
}

#[test]
fn a_second_run_on_a_held_folder_is_refused_naming_the_holder() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let ran = tournament(&out, &[GREEDY, RANDOM, "--deals", "2", "--seed", "3"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let before = fs::read(out.join("results.jsonl")).expect("results");
    // Another run holds the folder: its lock, its pid in the lock file.
    let mut file = fs::OpenOptions::new()
        .write(true)
        .open(out.join(".lock"))
        .expect("the lock file a run leaves");
    file.set_len(0).expect("truncate");
    writeln!(file, "424242").expect("a pid");
    let held = Flock::lock(file, FlockArg::LockExclusiveNonblock).expect("the lock is free");
    for args in [&["--resume", "--deals", "4"][..], &["--resume"][..]] {
        let refused = tournament(&out, args);
        assert_eq!(refused.code, Some(2), "{}", refused.stderr);
        assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
        assert!(
            refused
                .stderr
                .contains("in use by another allfives run (pid 424242)"),
            "{}",
            refused.stderr
        );
    }
    assert_eq!(
        fs::read(out.join("results.jsonl")).expect("results"),
        before
    );
    drop(held);
    let ran = tournament(&out, &["--resume", "--deals", "4"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let all = ids(&out);
    let unique: std::collections::BTreeSet<&String> = all.iter().collect();
    assert_eq!((all.len(), unique.len()), (8, 8));
}

#[test]
fn a_start_cut_short_is_resumed_or_cleaned() {
    let sb = Sandbox::new();
    let whole = sb.path("whole");
    let args = [GREEDY, RANDOM, "--deals", "2", "--seed", "5"];
    assert_eq!(tournament(&whole, &args).code, Some(0));
    let definition = fs::read(whole.join("tournament.json")).expect("the definition");
    // Killed between writing the definition and renaming it: --resume takes it up.
    let cut = sb.path("cut");
    fs::create_dir(&cut).expect("a folder");
    fs::write(cut.join("tournament.json.new"), &definition).expect("a leftover");
    let resumed = tournament(&cut, &["--resume"]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert!(resumed.stderr.contains("recovered"), "{}", resumed.stderr);
    assert_eq!(ids(&cut).len(), 4);
    // Killed mid-write (or a full disk): the half definition is cleaned by a new run.
    let torn = sb.path("torn");
    fs::create_dir_all(torn.join("logs")).expect("a folder");
    fs::write(torn.join("tournament.json.new"), &definition[..40]).expect("a leftover");
    let again = tournament(&torn, &args);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(again.stderr.contains("removed"), "{}", again.stderr);
    assert!(!torn.join("tournament.json.new").exists());
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(sorted(ids(&torn)), sorted(ids(&whole)));
}

#[test]
fn an_out_that_cannot_be_a_folder_is_named_in_words() {
    let sb = Sandbox::new();
    let link = sb.path("link");
    std::os::unix::fs::symlink(sb.path("nowhere"), &link).expect("a dangling link");
    let ran = tournament(&link, &[GREEDY, RANDOM, "--deals", "1"]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is a symbolic link to") && ran.stderr.contains("does not exist"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("os error"), "{}", ran.stderr);
    let file = sb.path("file");
    fs::write(&file, "x").expect("a file");
    let ran = tournament(&file, &[GREEDY, RANDOM, "--deals", "1"]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("is a file, not a folder"),
        "{}",
        ran.stderr
    );
}

#[test]
fn resume_honours_or_refuses_every_stored_setting_alike() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let ran = tournament(&out, &[GREEDY, RANDOM, "--deals", "3", "--seed", "9"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let stored = fs::read(out.join("tournament.json")).expect("the definition");
    let refusals: [(&[&str], &str); 7] = [
        (&["--deals", "1"], "--deals"),
        (&["--players", "3"], "--players"),
        (&["--seed", "10"], "--seed"),
        (&["--format", "gauntlet"], "--format"),
        (&["--shard", "1/2"], "--shard"),
        (&["--move-ms", "7"], "--move-ms"),
        (&["--target", "100"], "other rules"),
    ];
    for (args, named) in refusals {
        let mut all = vec!["--resume"];
        all.extend(args);
        let refused = tournament(&out, &all);
        assert_eq!(refused.code, Some(2), "{args:?}: {}", refused.stderr);
        assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
        assert!(
            refused.stderr.contains(named),
            "{args:?}: {}",
            refused.stderr
        );
        assert_eq!(
            fs::read(out.join("tournament.json")).expect("the definition"),
            stored,
            "{args:?} rewrote the definition"
        );
    }
    // A stored entrant with another command: both commands named.
    let other = tournament(&out, &["--resume", "greedy=builtin:random", RANDOM]);
    assert_eq!(other.code, Some(2), "{}", other.stderr);
    assert!(
        other.stderr.contains("greedy")
            && other.stderr.contains("'builtin:greedy'")
            && other.stderr.contains("'builtin:random'"),
        "{}",
        other.stderr
    );
    // The stored values typed again change nothing; more deals are added, with a note.
    let same = tournament(
        &out,
        &["--resume", "--seed", "9", "--players", "2", "--deals", "4"],
    );
    assert_eq!(same.code, Some(0), "{}", same.stderr);
    assert!(same.stderr.contains("adds deals 3 to 3"), "{}", same.stderr);
    assert_eq!(ids(&out).len(), 8);
}
