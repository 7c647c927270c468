//! Tournament folders that one run holds at a time, that a start cut short does not break, and
//! whose stored settings `--resume` honours with a note or refuses.

use std::fs;
use std::io::Write;
use std::path::Path;

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
    // A run names itself in the lock file: its pid and its host (the folder may be on a
    // filesystem that other nodes share).
    let named = fs::read_to_string(out.join(".lock")).expect("the lock file");
    let host = nix::unistd::gethostname().expect("a host name");
    match named.split_whitespace().collect::<Vec<_>>()[..] {
        [pid, name] => {
            assert!(pid.parse::<u32>().is_ok(), "{named}");
            assert_eq!(name, host.to_string_lossy(), "{named}");
        }
        _ => panic!("the lock file names no pid and host: {named:?}"),
    }
    // Another run holds the folder: its lock, its pid and host in the lock file.
    let mut file = fs::OpenOptions::new()
        .write(true)
        .open(out.join(".lock"))
        .expect("the lock file a run leaves");
    file.set_len(0).expect("truncate");
    writeln!(file, "424242 node7").expect("a pid and a host");
    // A run's lock: a POSIX record lock on the whole file.
    // SAFETY: a plain struct of integers.
    let mut whole: libc::flock = unsafe { std::mem::zeroed() };
    whole.l_type = libc::F_WRLCK as libc::c_short;
    whole.l_whence = libc::SEEK_SET as libc::c_short;
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on the descriptor opened above.
    let locked = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &whole) };
    assert_eq!(locked, 0, "the lock is free");
    let held = file;
    for args in [&["--resume", "--deals", "4"][..], &["--resume"][..]] {
        let refused = tournament(&out, args);
        assert_eq!(refused.code, Some(2), "{}", refused.stderr);
        assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
        assert!(
            refused
                .stderr
                .contains("in use by another allfives run (pid 424242 on host node7)"),
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

/// `allfives standings ARGS...`.
fn standings(args: &[&str]) -> Ran {
    let mut all = vec!["standings", "--json"];
    all.extend(args);
    allfives(&all)
}

/// Rewrites line `n` (from 1) of `DIR/results.jsonl` with `edit`.
fn edit_line(dir: &Path, n: usize, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("results.jsonl");
    let text = fs::read_to_string(&path).expect("results");
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut line: Value = serde_json::from_str(&lines[n - 1]).expect("a line");
    edit(&mut line);
    lines[n - 1] = line.to_string();
    fs::write(&path, lines.join("\n") + "\n").expect("write");
}

/// Rewrites `DIR/tournament.json` with `edit`.
fn edit_definition(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("tournament.json");
    let mut definition: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("definition")).expect("JSON");
    edit(&mut definition);
    fs::write(&path, definition.to_string()).expect("write");
}

type Edit = fn(&Path);

#[test]
fn results_that_do_not_check_out_are_refused_naming_the_line() {
    let sb = Sandbox::new();
    let played = sb.path("played");
    let args = [
        GREEDY,
        RANDOM,
        "--deals",
        "2",
        "--seed",
        "3",
        "--public-seed",
        "-j",
        "1",
    ];
    assert_eq!(tournament(&played, &args).code, Some(0));
    let other = sb.path("other");
    let other_args = [
        GREEDY,
        RANDOM,
        "--deals",
        "2",
        "--seed",
        "4",
        "--public-seed",
        "-j",
        "1",
    ];
    assert_eq!(tournament(&other, &other_args).code, Some(0));
    let other_line = fs::read_to_string(other.join("results.jsonl"))
        .expect("results")
        .lines()
        .next()
        .expect("a line")
        .to_string();
    // (what is done, what plain standings say, what --verify says): None is accepted.
    let cases: Vec<(&str, Edit, Option<&str>, Option<&str>)> = vec![
        (
            "an entrant index out of range",
            |d| edit_line(d, 2, |l| l["seats"][0]["entrant"] = 7.into()),
            Some("line 2: entrant index 7 is out of range"),
            Some("line 2"),
        ),
        (
            "an unknown deal",
            |d| {
                edit_line(d, 1, |l| {
                    l["deal"] = 99.into();
                    l["id"] = "0-1/99/0".into();
                })
            },
            Some("line 1: deal 99 is not in the schedule"),
            Some("line 1"),
        ),
        (
            "an edited seed",
            |d| edit_definition(d, |t| t["seed"] = 30.into()),
            Some("line 1: its definition digest"),
            Some("line 1"),
        ),
        (
            "an edited target",
            |d| edit_definition(d, |t| t["rules"]["target"] = 150.into()),
            Some("line 1: its definition digest"),
            Some("line 1"),
        ),
        (
            "swapped entrants",
            |d| {
                edit_definition(d, |t| {
                    let a = t["entrants"][0].clone();
                    t["entrants"][0] = t["entrants"][1].clone();
                    t["entrants"][1] = a;
                })
            },
            Some("line 1: its definition digest"),
            Some("line 1"),
        ),
        (
            "a forged result",
            |d| {
                edit_line(d, 3, |l| {
                    let ranks = (l["seats"][0]["rank"].clone(), l["seats"][1]["rank"].clone());
                    l["seats"][0]["rank"] = ranks.1;
                    l["seats"][1]["rank"] = ranks.0;
                })
            },
            None,
            Some("line 3: its result differs from its log"),
        ),
        (
            "an emptied log",
            |d| fs::write(d.join("logs/0-1_0_1.jsonl"), "").expect("write"),
            None,
            Some("not the one it was written with"),
        ),
        (
            "a deleted log",
            |d| fs::remove_file(d.join("logs/0-1_0_1.jsonl")).expect("remove"),
            None,
            Some("cannot be read"),
        ),
        (
            "swapped logs",
            |d| {
                let (a, b) = (d.join("logs/0-1_0_0.jsonl"), d.join("logs/0-1_1_0.jsonl"));
                let text = fs::read(&a).expect("a log");
                fs::copy(&b, &a).expect("copy");
                fs::write(&b, text).expect("write");
            },
            None,
            Some("not the one it was written with"),
        ),
        (
            "a repeated line with another result",
            |d| {
                let path = d.join("results.jsonl");
                let mut text = fs::read_to_string(&path).expect("results");
                let first: Value =
                    serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
                let mut rival = first.clone();
                rival["hands"] = 99.into();
                text.push_str(&format!("{rival}\n"));
                fs::write(&path, text).expect("write");
            },
            Some("line 5: game 0-1/0/0 is on line 1 already, with another result"),
            Some("line 5"),
        ),
    ];
    for (i, (what, edit, plain, verified)) in cases.into_iter().enumerate() {
        let dir = sb.path(&format!("case{i}"));
        copy_folder(&played, &dir);
        edit(&dir);
        let shown = dir.display().to_string();
        for (ran, expected) in [
            (standings(&[&shown]), plain),
            (standings(&["--verify", &shown]), verified),
        ] {
            match expected {
                None => assert_eq!(ran.code, Some(0), "{what}: {}", ran.stderr),
                Some(words) => {
                    assert_eq!(ran.code, Some(2), "{what}: {}", ran.stderr);
                    assert_eq!(ran.stderr.lines().count(), 1, "{what}: {}", ran.stderr);
                    assert!(ran.stderr.contains(words), "{what}: {}", ran.stderr);
                }
            }
        }
        if plain.is_some() {
            let resumed = tournament(&dir, &["--resume"]);
            assert_eq!(resumed.code, Some(2), "{what}: {}", resumed.stderr);
        }
    }
    // Another tournament's line.
    let dir = sb.path("mixed");
    copy_folder(&played, &dir);
    let path = dir.join("results.jsonl");
    let text = fs::read_to_string(&path).expect("results") + &other_line + "\n";
    fs::write(&path, text).expect("write");
    let ran = standings(&[&dir.display().to_string()]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("line 5"), "{}", ran.stderr);
}

#[test]
fn a_repeated_line_and_a_torn_tail_are_repaired_with_a_word() {
    let sb = Sandbox::new();
    let played = sb.path("played");
    let args = [
        GREEDY,
        RANDOM,
        "--deals",
        "2",
        "--seed",
        "3",
        "--public-seed",
        "-j",
        "1",
    ];
    assert_eq!(tournament(&played, &args).code, Some(0));
    let dir = sb.path("repeated");
    copy_folder(&played, &dir);
    let path = dir.join("results.jsonl");
    let text = fs::read_to_string(&path).expect("results");
    let first = text.lines().next().expect("a line").to_string();
    fs::write(&path, format!("{text}{first}\n{{\"id\":\"0-1/1")).expect("write");
    let ran = standings(&["--verify", &dir.display().to_string()]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = ran.json();
    assert_eq!(report["standings"]["games"], 4);
    assert_eq!(report["complete"], true);
    assert!(
        ran.stderr.contains("line 5, repeats line 1"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("line 6, was cut short"),
        "{}",
        ran.stderr
    );
    let resumed = tournament(&dir, &["--resume"]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert_eq!(ids(&dir).len(), 4);
    assert_eq!(
        fs::read_to_string(&path).expect("results"),
        text,
        "the repeat and the torn tail are gone"
    );
}

#[test]
fn standings_merges_only_the_shards_of_one_tournament_each_once() {
    let sb = Sandbox::new();
    // Deals 3 and seed 4 unless told, the deals made with one key file.
    let key = sb.path("deal-key").display().to_string();
    let run = |name: &str, extra: &[&str]| -> String {
        let dir = sb.path(name);
        let mut args = vec![GREEDY, RANDOM, "-j", "1", "--deal-key", &key];
        args.extend(extra);
        for (flag, value) in [("--deals", "3"), ("--seed", "4")] {
            if !extra.contains(&flag) {
                args.extend([flag, value]);
            }
        }
        let ran = tournament(&dir, &args);
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        dir.display().to_string()
    };
    let (s1, s2, s3) = (
        run("s1", &["--shard", "1/3"]),
        run("s2", &["--shard", "2/3"]),
        run("s3", &["--shard", "3/3"]),
    );
    let whole = run("whole", &[]);
    let seeded = run("seeded", &["--shard", "3/3", "--seed", "5"]);
    let dealt = run("dealt", &["--shard", "3/3", "--deals", "4"]);
    let all = standings(&[&s1, &s2, &s3]);
    assert_eq!(all.code, Some(0), "{}", all.stderr);
    assert_eq!(all.json()["complete"], true);
    let two = standings(&[&s1, &s2]);
    assert_eq!(two.code, Some(0), "{}", two.stderr);
    assert_eq!(two.json()["complete"], false);
    assert!(
        two.stderr
            .contains("shard 3/3 of this tournament is missing"),
        "{}",
        two.stderr
    );
    let refused: [(&[&str], &str); 5] = [
        (&[&s1, &s2, &s1], "given twice"),
        (&[&s1, &whole], "holds the whole tournament"),
        (&[&s1, &s2, &seeded], "hold different tournaments"),
        (&[&s1, &s2, &dealt], "hold different tournaments"),
        (&[&whole, &whole], "given twice"),
    ];
    for (dirs, words) in refused {
        let ran = standings(dirs);
        assert_eq!(ran.code, Some(2), "{dirs:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(words), "{dirs:?}: {}", ran.stderr);
    }
}

#[test]
fn a_bot_reseeded_from_bot_seed_plays_the_same_with_any_number_of_workers() {
    let sb = Sandbox::new();
    // The seed argument first: the sandbox's token follows it.
    let random_py = format!("py={}", sb.sample("random_bot", &["7"]));
    let args = [
        random_py.as_str(),
        GREEDY,
        RANDOM,
        "--deals",
        "5",
        "--seed",
        "12",
        "--public-seed",
    ];
    // Each game's outcome by id: the seats' ranks and the scores.
    let outcomes = |out: &Path| -> std::collections::BTreeMap<String, Value> {
        fs::read_to_string(out.join("results.jsonl"))
            .expect("results")
            .lines()
            .map(|l| {
                let line: Value = serde_json::from_str(l).expect("a line");
                let id = line["id"].as_str().expect("an id").to_string();
                (id, serde_json::json!([line["scores"], line["hands"]]))
            })
            .collect()
    };
    let one = sb.path("j1");
    let mut with = args.to_vec();
    with.extend(["-j", "1"]);
    let ran = tournament(&one, &with);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("bot_seed"),
        "the note on process reuse: {}",
        ran.stderr
    );
    let report = ran.json();
    assert_eq!(
        report["standings"]["entrants"][0]["faults"],
        serde_json::json!({})
    );
    let two = sb.path("j2");
    let mut with = args.to_vec();
    with.extend(["-j", "2"]);
    assert_eq!(tournament(&two, &with).code, Some(0));
    let (a, b) = (outcomes(&one), outcomes(&two));
    assert_eq!(a.len(), 30);
    assert_eq!(a, b);
    sb.assert_no_bot_left();
}

/// The arguments of a one-deal round-robin of `n` `builtin:random` entrants from a bots file,
/// `jobs` at once, reporting JSON quietly; and its folder.
fn random_entrants(sb: &Sandbox, n: usize, jobs: usize) -> (Vec<String>, std::path::PathBuf) {
    let bots: Vec<Value> = (0..n)
        .map(|i| serde_json::json!({"name": format!("b{i}"), "command": "builtin:random"}))
        .collect();
    let file = sb.path("bots.json");
    fs::write(&file, serde_json::json!({ "bots": bots }).to_string()).expect("a bots file");
    let out = sb.path("t");
    let args = [
        "tournament",
        "--json",
        "--quiet",
        "--deals",
        "1",
        "--seed",
        "1",
        "--public-seed",
        "-j",
        &jobs.to_string(),
        "--bots",
        &file.display().to_string(),
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    (args, out)
}

#[test]
fn a_hundred_thousand_entrants_start_and_a_sigterm_at_start_is_obeyed() {
    let sb = Sandbox::new();
    let (args, out) = random_entrants(&sb, 100_000, 1);
    let child = spawn(&args);
    // The lock names the run once it holds the folder, its handlers already in place: the
    // signal comes while it starts (or plays its first games).
    let deadline = std::time::Instant::now() + HUNG;
    while fs::read_to_string(out.join(".lock")).map_or(true, |t| t.trim().is_empty()) {
        assert!(
            std::time::Instant::now() < deadline,
            "the run never held its folder"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    let ended = child.wait_with_output().expect("it ends");
    assert_eq!(ended.status.code(), Some(130));
    let report: Value = serde_json::from_slice(&ended.stdout).expect("the report");
    assert_eq!(report["complete"], false);
    assert_eq!(
        report["standings"]["entrants"].as_array().map(Vec::len),
        Some(100_000)
    );
    assert_eq!(report["standings"]["crosstable"], serde_json::json!([]));
}

#[test]
fn more_entrants_met_than_one_fit_rates_stop_at_once_and_are_not_rated() {
    // 2,100 entrants: the round-robin plays entrant 0 against each of the others first, so past
    // 4,100 games one comparable set holds more than the 2,000 one fit rates. Its dense fit
    // took minutes (and the stop waited for it); now no fit is made, and the report says why.
    let sb = Sandbox::new();
    let (args, out) = random_entrants(&sb, 2100, 2);
    let start = std::time::Instant::now();
    let child = spawn(&args);
    let results = out.join("results.jsonl");
    let deadline = start + 10 * HUNG;
    while fs::read(&results).map_or(0, |r| r.iter().filter(|&&b| b == b'\n').count()) < 4100 {
        assert!(
            std::time::Instant::now() < deadline,
            "4,100 games never came"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
    // Within a minute (it took minutes before), at the first signal.
    let ended = finish(child, &args, start);
    assert_eq!(ended.code, Some(130), "{}", ended.stderr);
    let report = ended.json();
    let ratings = &report["standings"]["ratings"];
    assert_eq!(ratings["entrants"], serde_json::json!([]));
    let not_rated = ratings["not_rated"].as_array().expect("not rated");
    assert!(not_rated.len() > 2000, "{}", not_rated.len());
    assert!(not_rated.iter().all(|n| n["reason"] == "too_many"));
    let text = allfives(&["standings", &out.display().to_string()]);
    assert!(
        text.stdout.contains("not rated: one comparable set of"),
        "{}",
        text.stdout
    );
}

/// A finished one-deal tournament of greedy and random in the sandbox's folder `name`.
fn one_deal_played(sb: &Sandbox, name: &str) -> std::path::PathBuf {
    let dir = sb.path(name);
    let ran = tournament(&dir, &[GREEDY, RANDOM, "--deals", "1", "--seed", "3"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    dir
}

/// A tournament's files put there by someone else, each refused in a sentence at once: a
/// `tournament.json` or a `--deal-key` linked to /dev/zero (read without end before), and a
/// `results.jsonl` that is a FIFO never written (waited on for ever, SIGTERM unheard).
#[test]
fn endless_files_of_a_tournament_are_refused_at_once() {
    let sb = Sandbox::new();
    let played = one_deal_played(&sb, "played");
    let zero = sb.path("zero");
    copy_folder(&played, &zero);
    fs::remove_file(zero.join("tournament.json")).expect("removed");
    std::os::unix::fs::symlink("/dev/zero", zero.join("tournament.json")).expect("a link");
    let fifo = sb.path("fifo");
    copy_folder(&played, &fifo);
    let _writer = silent_fifo(&fifo.join("results.jsonl"));
    let (z, f) = (zero.display().to_string(), fifo.display().to_string());
    let new = sb.path("new").display().to_string();
    let pages = sb.path("pages").display().to_string();
    let refusals: [(Vec<&str>, &str); 8] = [
        (
            vec!["tournament", "--resume", "--out", &z],
            "more than 32 MiB",
        ),
        (vec!["standings", &z], "more than 32 MiB"),
        (
            vec!["tournament", "--resume", "--out", &f],
            "not a plain file",
        ),
        (vec!["standings", &f], "not a plain file"),
        (vec!["replay", &f, "--game", "0-1/1/0"], "not a plain file"),
        (vec!["replay", &f, "--html", &pages], "not a plain file"),
        (
            vec![
                "tournament",
                GREEDY,
                RANDOM,
                "--seed",
                "1",
                "--deal-key",
                "/dev/zero",
                "--out",
                &new,
            ],
            "more than 1 KiB",
        ),
        (
            vec![
                "match",
                GREEDY,
                RANDOM,
                "--seed",
                "1",
                "--deal-key",
                "/dev/zero",
            ],
            "more than 1 KiB",
        ),
    ];
    for (args, says) in refusals {
        let ran = allfives(&args);
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
}

/// `--resume` reading a `tournament.json` that is a FIFO whose writer never writes stops on
/// SIGTERM, exit 130 (it waited for ever, SIGTERM unheard).
#[test]
fn a_resume_reading_a_silent_definition_stops_on_sigterm() {
    use nix::sys::signal::{Signal, kill};
    let sb = Sandbox::new();
    let dir = one_deal_played(&sb, "t");
    let definition = dir.join("tournament.json");
    let _writer = silent_fifo(&definition);
    let d = dir.display().to_string();
    let start = std::time::Instant::now();
    let child = spawn(&["tournament", "--resume", "--out", &d].map(String::from));
    // Opened once the run holds its folder, its handlers in place.
    wait_until_open(child.id(), &definition);
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    kill(pid, Signal::SIGTERM).expect("signalled");
    let ran = finish(child, &[d], start);
    assert_eq!(ran.code, Some(130), "{}", ran.stderr);
    assert!(ran.stderr.contains("interrupted"), "{}", ran.stderr);
}
