//! Packed logs (`tournament --pack-logs`): every game's log a zstd frame of its worker's pack,
//! read back by `replay DIR --game ID` and `replay DIR --html OUT` as a file's, verified by
//! `standings --verify`, and repaired by `--resume` after a kill.

use std::fs;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::harness::*;

const GREEDY: &str = "greedy=builtin:greedy";
const RANDOM: &str = "random=builtin:random";

/// `allfives tournament --json --quiet --out OUT ARGS...`, which must succeed.
fn tournament(out: &Path, args: &[&str]) -> Ran {
    let out = out.display().to_string();
    let mut all = vec!["tournament", "--json", "--quiet", "--out", &out];
    all.extend(args);
    let ran = allfives(&all);
    assert_eq!(ran.code, Some(0), "{all:?}: {}", ran.stderr);
    ran
}

/// The lines of `OUT/results.jsonl`.
fn lines(out: &Path) -> Vec<Value> {
    fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// `allfives replay ARGS...` (it must succeed) and its stdout.
fn replay(args: &[&str]) -> String {
    let mut all = vec!["replay"];
    all.extend(args);
    let ran = allfives(&all);
    assert_eq!(ran.code, Some(0), "{all:?}: {}", ran.stderr);
    ran.stdout
}

/// A replay's JSON without the move times, which differ from run to run.
fn timeless(json: &str) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("time_us");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value: Value = serde_json::from_str(json).expect("a replay's JSON");
    strip(&mut value);
    value
}

/// Every pack in `OUT/logs` decoded as one zstd stream (as `zstd -dc` does); their sizes.
fn decoded_packs(out: &Path) -> (String, u64) {
    let mut text = String::new();
    let mut bytes = 0;
    for entry in fs::read_dir(out.join("logs")).expect("logs").flatten() {
        let pack = fs::read(entry.path()).expect("a pack");
        bytes += pack.len() as u64;
        let decoded = zstd::stream::decode_all(pack.as_slice())
            .unwrap_or_else(|e| panic!("{} does not decode: {e}", entry.path().display()));
        text += &String::from_utf8(decoded).expect("UTF-8");
    }
    (text, bytes)
}

fn standings_verify(dirs: &[&Path]) -> Ran {
    let mut all = vec!["standings".to_string(), "--json".into(), "--verify".into()];
    all.extend(dirs.iter().map(|d| d.display().to_string()));
    allfives(&all)
}

#[test]
fn a_packed_tournament_replays_every_game_as_its_unpacked_twin() {
    let sb = Sandbox::new();
    let (packed, files) = (sb.path("packed"), sb.path("files"));
    // One worker: a bot's request ids run on from game to game, so its games must come in the
    // same order in both runs.
    let args = [
        GREEDY,
        RANDOM,
        "--deals",
        "3",
        "--seed",
        "11",
        "--public-seed",
        "-j",
        "1",
    ];
    tournament(&packed, &[&args[..], &["--pack-logs"]].concat());
    tournament(&files, &args);
    let names: Vec<String> = fs::read_dir(packed.join("logs"))
        .expect("logs")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.is_empty()
            && names
                .iter()
                .all(|n| n.starts_with("pack-w") && n.ends_with(".zst")),
        "{names:?}"
    );
    let (p, dir) = (packed.display().to_string(), files.display().to_string());
    let results = lines(&packed);
    assert_eq!(results.len(), 6);
    for line in &results {
        let id = line["id"].as_str().expect("an id");
        assert!(
            line["log_offset"].is_u64() && line["log_bytes"].is_u64(),
            "{line}"
        );
        let file = files.join(format!("logs/{}.jsonl", id.replace('/', "_")));
        let file = file.display().to_string();
        let from_pack = replay(&[&p, "--game", id, "--json"]);
        // The same game from its file, named by path and by id.
        assert_eq!(timeless(&from_pack), timeless(&replay(&[&file, "--json"])));
        assert_eq!(
            replay(&[&dir, "--game", id, "--json"]),
            replay(&[&file, "--json"])
        );
        for options in [
            &["--turn", "3", "--json"][..],
            &["--html", "-"],
            &["--quiet"],
        ] {
            let packed_out = replay(&[&[&p, "--game", id][..], options].concat());
            assert!(!packed_out.is_empty(), "{id} {options:?}");
        }
        let text = replay(&[&p, "--game", id]);
        assert!(
            text.contains(&format!("game {id} of {p} (logs/pack-w")) && text.contains("checks out"),
            "{text}"
        );
    }
    // Every game's page and their index, under the names a file's page gets.
    let pages = |from: &str, out: &Path| {
        replay(&[from, "--html", &out.display().to_string()]);
        let mut names: Vec<String> = fs::read_dir(out)
            .expect("pages")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let packed_pages = pages(&p, &sb.path("packed-pages"));
    let file_pages = pages(&dir, &sb.path("file-pages"));
    assert_eq!(file_pages.len(), 7, "{file_pages:?}");
    // Packed, each game's log is copied beside its page for its "raw log" link (a page cannot
    // reach into a pack): the game the pack holds.
    let (logs, packed_pages): (Vec<String>, Vec<String>) = packed_pages
        .into_iter()
        .partition(|n| n.ends_with(".jsonl"));
    assert_eq!(packed_pages, file_pages);
    assert_eq!(logs.len(), 6, "{logs:?}");
    for line in &results {
        let id = line["id"].as_str().expect("an id");
        let copy = sb
            .path("packed-pages")
            .join(format!("{}.jsonl", id.replace('/', "_")));
        assert!(
            replay(&[&copy.display().to_string(), "--json"])
                == replay(&[&p, "--game", id, "--json"]),
            "{id}'s copy is not its game"
        );
    }
    // The packs are one zstd stream each: every game's log, whole.
    let (text, _) = decoded_packs(&packed);
    assert_eq!(text.matches(r#""type":"header""#).count(), 6);
    let verified = standings_verify(&[&packed]);
    assert_eq!(verified.code, Some(0), "{}", verified.stderr);
    assert_eq!(verified.json()["complete"], true);
    // It says what it checked: on stderr in one line, and in the JSON.
    assert_eq!(
        verified.json()["verified"],
        serde_json::json!({"games": 6, "deals_from_seed": 6})
    );
    assert_eq!(
        verified.stderr.trim(),
        "allfives: verified 6 games: every log present with the SHA-256 its results line gives, \
         replayed through the rules engine (every move legal, every deal the one its seed gives), \
         and every result, seat and fault as replayed"
    );
    // As text, for logs in files: the report on stdout, the line on stderr.
    let text = allfives(&["standings", "--verify", &dir]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(
        text.stderr.starts_with("allfives: verified 6 games: "),
        "{}",
        text.stderr
    );
    assert!(!text.stdout.contains("verified"), "{}", text.stdout);
    // Without --verify, nothing is said of logs.
    let unverified = allfives(&["standings", "--json", &p]);
    assert_eq!(unverified.code, Some(0), "{}", unverified.stderr);
    assert!(unverified.json().get("verified").is_none());
    assert!(unverified.stderr.is_empty(), "{}", unverified.stderr);
}

#[test]
fn a_tampered_pack_fails_verify_and_replay_naming_the_game() {
    let sb = Sandbox::new();
    let played = sb.path("played");
    tournament(
        &played,
        &[
            GREEDY,
            RANDOM,
            "--deals",
            "2",
            "--seed",
            "5",
            "-j",
            "1",
            "--pack-logs",
        ],
    );
    let results = lines(&played);
    let second = &results[1];
    let (offset, bytes) = (uint(&second["log_offset"]), uint(&second["log_bytes"]));
    let pack = played.join(second["log"].as_str().expect("a pack"));
    let original = fs::read(&pack).expect("the pack");
    let id = second["id"].as_str().expect("an id");
    // A byte changed inside the frame, the frame cut short, a frame swapped for another.
    let changed = {
        let mut b = original.clone();
        b[offset + bytes / 2] ^= 0x20;
        b
    };
    let swapped = {
        let mut dir_results = fs::read_to_string(played.join("results.jsonl")).expect("results");
        let first = &results[0];
        dir_results = dir_results.replacen(
            &format!(r#""log_offset":{offset},"log_bytes":{bytes}"#),
            &format!(
                r#""log_offset":{},"log_bytes":{}"#,
                first["log_offset"], first["log_bytes"]
            ),
            1,
        );
        dir_results
    };
    // Each case: its folder, the file written over, what it holds, what --verify says.
    let cases = [
        (
            "changed",
            "logs/pack-w0.zst",
            changed,
            "does not decompress",
        ),
        (
            "cut",
            "logs/pack-w0.zst",
            original[..offset + bytes - 1].to_vec(),
            "cannot read bytes",
        ),
        (
            "swapped",
            "results.jsonl",
            swapped.into_bytes(),
            "its SHA-256 differs",
        ),
    ];
    for (name, file, tampered, words) in cases {
        let dir = sb.path(name);
        copy_folder(&played, &dir);
        fs::write(dir.join(file), tampered).expect("tampered");
        let ran = standings_verify(&[&dir]);
        assert_eq!(ran.code, Some(2), "{name}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("results.jsonl, line 2") && ran.stderr.contains(words),
            "{name}: {}",
            ran.stderr
        );
        // Without --verify the results still count (the log is not read).
        let counted = allfives(&["standings", "--json", &dir.display().to_string()]);
        assert_eq!(counted.code, Some(0), "{name}: {}", counted.stderr);
    }
    // A pack cut short is never appended to: the games it lost would be named twice.
    let cut = sb.path("cut").display().to_string();
    let resumed = allfives(&["tournament", "--quiet", "--out", &cut, "--resume"]);
    assert_eq!(resumed.code, Some(2), "{}", resumed.stderr);
    assert!(
        resumed
            .stderr
            .contains("is shorter than results.jsonl says"),
        "{}",
        resumed.stderr
    );
    // Replaying the changed game says which game and where its frame is.
    let ran = allfives(&[
        "replay",
        &sb.path("changed").display().to_string(),
        "--game",
        id,
    ]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!("game {id} of"))
            && ran
                .stderr
                .contains(&format!("bytes {offset} to {}", offset + bytes)),
        "{}",
        ran.stderr
    );
}

#[test]
fn an_unknown_game_or_a_folder_without_results_is_answered_in_one_sentence() {
    let sb = Sandbox::new();
    let played = sb.path("played");
    tournament(
        &played,
        &[GREEDY, RANDOM, "--deals", "1", "--seed", "5", "--pack-logs"],
    );
    let p = played.display().to_string();
    let refused = |args: &[&str], words: &[&str]| {
        let mut all = vec!["replay"];
        all.extend(args);
        let ran = allfives(&all);
        assert_eq!(ran.code, Some(2), "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
        for w in words {
            assert!(ran.stderr.contains(w), "{args:?}: {}", ran.stderr);
        }
    };
    refused(
        &[&p, "--game", "0-1/9/0"],
        &["holds no game 0-1/9/0", "its 2 games have ids like 0-1/0/"],
    );
    let logs = played.join("logs").display().to_string();
    refused(&[&logs, "--game", "0-1/0/0"], &["holds no results.jsonl"]);
    let results = played.join("results.jsonl").display().to_string();
    refused(&[&results, "--game", "0-1/0/0"], &["is not a folder"]);
    let out = sb.path("pages").display().to_string();
    refused(
        &[&logs, "--html", &out],
        &["packed logs are shown from its folder"],
    );
}

#[test]
fn packed_and_unpacked_shards_merge_and_verify() {
    let sb = Sandbox::new();
    let (one, two) = (sb.path("s1"), sb.path("s2"));
    let key = sb.path("deal-key").display().to_string();
    let args = [
        GREEDY,
        RANDOM,
        "--deals",
        "3",
        "--seed",
        "4",
        "--deal-key",
        &key,
        "-j",
        "1",
    ];
    tournament(
        &one,
        &[&args[..], &["--shard", "1/2", "--pack-logs"]].concat(),
    );
    tournament(&two, &[&args[..], &["--shard", "2/2"]].concat());
    let merged = standings_verify(&[&one, &two]);
    assert_eq!(merged.code, Some(0), "{}", merged.stderr);
    assert_eq!(merged.json()["complete"], true);
    assert_eq!(merged.json()["standings"]["games"], 6);
}

#[test]
fn a_run_killed_mid_way_resumes_with_its_packs_cut_back_and_no_game_lost() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let args: Vec<String> = [
        "tournament",
        "--json",
        "--quiet",
        "--pack-logs",
        GREEDY,
        RANDOM,
        "--deals",
        "400",
        "--seed",
        "9",
        "-j",
        "2",
        "--out",
    ]
    .iter()
    .map(|a| a.to_string())
    .chain([out.display().to_string()])
    .collect();
    let child = spawn(&args);
    let results = out.join("results.jsonl");
    let deadline = std::time::Instant::now() + HUNG;
    while fs::read_to_string(&results).map_or(0, |t| t.lines().count()) < 10 {
        assert!(std::time::Instant::now() < deadline, "no game was recorded");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).expect("SIGKILL");
    let ended = child.wait_with_output().expect("it ends");
    assert_eq!(ended.status.code(), None, "killed by a signal");
    let before = lines(&out);
    assert!(before.len() < 800, "the run ended before the kill");
    // A kill while a frame was being written: a torn frame past the last game named, in a
    // pack that results name and in one that they do not.
    let torn = zstd::bulk::compress(&[b'x'; 5000], 1).expect("a frame");
    for pack in ["pack-w0.zst", "pack-w5.zst"] {
        let mut file = fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(out.join("logs").join(pack))
            .expect("a pack");
        file.write_all(&torn[..torn.len() / 2])
            .expect("a torn frame");
    }
    // Resumed without --pack-logs: the folder keeps packing.
    let resumed = tournament(&out, &["--resume", "-j", "2"]);
    assert!(
        resumed.stderr.contains("pack-w0.zst: cut its last")
            && resumed.stderr.contains("removed")
            && resumed.stderr.contains("pack-w5.zst"),
        "{}",
        resumed.stderr
    );
    let after = lines(&out);
    let mut ids: Vec<&str> = after
        .iter()
        .map(|l| l["id"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 800, "every game once");
    assert_eq!(
        after[..before.len()],
        before[..],
        "no line named before is touched"
    );
    assert!(
        after.iter().all(|l| l["log_offset"].is_u64()),
        "every log packed"
    );
    assert!(
        !out.join("logs/pack-w5.zst").exists(),
        "a pack no game is in is gone"
    );
    // Nothing in the packs but the games named: each decodes whole, frame after frame.
    let (text, bytes) = decoded_packs(&out);
    assert_eq!(text.matches(r#""type":"header""#).count(), 800);
    let named: u64 = after
        .iter()
        .map(|l| l["log_bytes"].as_u64().expect("bytes"))
        .sum();
    assert_eq!(bytes, named);
    let verified = standings_verify(&[&out]);
    assert_eq!(verified.code, Some(0), "{}", verified.stderr);
    assert_eq!(verified.json()["complete"], true);
}

#[test]
fn a_packed_ladder_verifies_and_replays_each_game() {
    let sb = Sandbox::new();
    let out = sb.path("ladder");
    let args = [GREEDY, RANDOM, "other=builtin:random", "--format", "ladder"];
    tournament(
        &out,
        &[&args[..], &["--games", "12", "--seed", "3", "--pack-logs"]].concat(),
    );
    let results = lines(&out);
    assert_eq!(results.len(), 12);
    let p = out.display().to_string();
    for line in &results {
        assert!(line["log_offset"].is_u64(), "{line}");
        replay(&[&p, "--game", line["id"].as_str().expect("an id"), "--quiet"]);
    }
    let verified = standings_verify(&[&out]);
    assert_eq!(verified.code, Some(0), "{}", verified.stderr);
}

/// Rewrites `OUT/results.jsonl` with `edit` applied to its lines.
fn edit_lines(out: &Path, edit: impl FnOnce(&mut [Value])) {
    let mut all = lines(out);
    edit(&mut all);
    let text: String = all.iter().map(|l| format!("{l}\n")).collect();
    fs::write(out.join("results.jsonl"), text).expect("results rewritten");
}

#[test]
fn forged_frame_places_are_refused_in_a_sentence_and_never_cut_a_pack() {
    let sb = Sandbox::new();
    let played = sb.path("played");
    tournament(
        &played,
        &[
            GREEDY,
            RANDOM,
            "--deals",
            "2",
            "--seed",
            "3",
            "-j",
            "1",
            "--pack-logs",
        ],
    );
    let pack = fs::read(played.join("logs/pack-w0.zst")).expect("the pack");
    let forgeries: [(&str, u64); 3] = [
        ("log_bytes", 1_000_000_000_000_000),
        ("log_bytes", 1 << 40),
        ("log_offset", u64::MAX),
    ];
    for (field, value) in forgeries {
        let dir = sb.path(&format!("{field}-{value}"));
        copy_folder(&played, &dir);
        edit_lines(&dir, |lines| {
            let last = lines.len() - 1;
            lines[last][field] = value.into();
        });
        let id = lines(&dir).last().expect("a line")["id"]
            .as_str()
            .expect("an id")
            .to_string();
        let d = dir.display().to_string();
        let html = sb
            .path(&format!("{field}-{value}.pages"))
            .display()
            .to_string();
        let commands: [Vec<&str>; 4] = [
            vec!["standings", "--verify", &d],
            vec!["replay", &d, "--game", &id],
            vec!["replay", &d, "--html", &html],
            vec!["tournament", "--resume", "--quiet", "--out", &d],
        ];
        for command in commands {
            let ran = allfives(&command);
            assert_eq!(ran.code, Some(2), "{command:?}: {}", ran.stderr);
            assert_eq!(ran.stderr.lines().count(), 1, "{command:?}: {}", ran.stderr);
            assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
        }
        assert_eq!(
            fs::read(dir.join("logs/pack-w0.zst")).expect("the pack"),
            pack
        );
    }
}

/// Two games (one deal, both arrangements) packed in one pack, in the folder `name`.
fn packed_pair(sb: &Sandbox, name: &str) -> std::path::PathBuf {
    let dir = sb.path(name);
    tournament(
        &dir,
        &[
            GREEDY,
            RANDOM,
            "--deals",
            "1",
            "--seed",
            "5",
            "-j",
            "1",
            "--pack-logs",
        ],
    );
    dir
}

#[test]
fn a_game_whose_log_was_swapped_for_another_is_refused_by_replay() {
    let sb = Sandbox::new();
    let dir = packed_pair(&sb, "swapped");
    edit_lines(&dir, |lines| {
        let (first, second) = (lines[0].clone(), lines[1].clone());
        for field in ["log_offset", "log_bytes"] {
            lines[0][field] = second[field].clone();
            lines[1][field] = first[field].clone();
        }
    });
    let id = lines(&dir)[0]["id"].as_str().expect("an id").to_string();
    let ran = allfives(&["replay", &dir.display().to_string(), "--game", &id]);
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(ran.stderr.contains("SHA-256 differs"), "{}", ran.stderr);
}

#[test]
fn a_bot_that_exits_at_once_is_told_by_its_exit_in_every_game() {
    let sb = Sandbox::new();
    let dir = sb.path("exits");
    let bot = format!("exits={}", sb.fixture("exits_at_once", &[]));
    tournament(
        &dir,
        &[
            &bot,
            GREEDY,
            "--deals",
            "8",
            "--seed",
            "2",
            "-j",
            "2",
            "--pack-logs",
        ],
    );
    let details: Vec<String> = lines(&dir)
        .iter()
        .flat_map(|l| l["faults"].as_array().cloned().unwrap_or_default())
        .map(|f| f["detail"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(details.len(), 16, "{details:?}");
    assert!(
        details.iter().all(|d| d.starts_with("exited with code 3")),
        "{details:#?}"
    );
}

/// Issue 30: lines deleted from results.jsonl left their games' frames in the pack, and the
/// resume cut them with a note of "a game being written" whatever it cut: it counts them now.
#[test]
fn a_cut_pack_says_how_many_games_it_cut() {
    let sb = Sandbox::new();
    let out = sb.path("t");
    let args = [GREEDY, RANDOM, "--deals", "10", "--seed", "2", "-j", "1"];
    tournament(&out, &[&args[..], &["--pack-logs"]].concat());
    let results = fs::read_to_string(out.join("results.jsonl")).expect("results");
    let kept: Vec<&str> = results.lines().take(15).collect();
    fs::write(out.join("results.jsonl"), kept.join("\n") + "\n").expect("cut");
    let resumed = tournament(&out, &["--resume", "-j", "1"]);
    assert!(
        resumed
            .stderr
            .contains("the logs of 5 games that no line of results.jsonl names (played again)"),
        "{}",
        resumed.stderr
    );
    assert_eq!(lines(&out).len(), 20);
}

/// A results line pointed at another game's frame, its digest with it, is refused by every
/// reader, naming the game the log is of: `replay --game` showed that game under the line's id.
#[test]
fn a_line_pointed_at_another_game_s_frame_and_digest_is_refused() {
    let sb = Sandbox::new();
    let dir = packed_pair(&sb, "pointed");
    edit_lines(&dir, |lines| {
        let second = lines[1].clone();
        for field in ["log_offset", "log_bytes", "log_sha256"] {
            lines[0][field] = second[field].clone();
        }
    });
    let id = lines(&dir)[0]["id"].as_str().expect("an id").to_string();
    let d = dir.display().to_string();
    let pages = sb.path("pages").display().to_string();
    let report = sb.path("report.html").display().to_string();
    let commands: [Vec<&str>; 4] = [
        vec!["replay", &d, "--game", &id],
        vec!["replay", &d, "--html", &pages],
        vec!["standings", &d, "--html", &report, "--replays"],
        vec!["standings", &d, "--verify"],
    ];
    for command in commands {
        let ran = allfives(&command);
        assert_eq!(ran.code, Some(2), "{command:?}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{command:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("is the log of another game"),
            "{command:?}: {}",
            ran.stderr
        );
    }
    let left = sb.left_but("pointed");
    assert!(left.is_empty(), "{left:?}");
}

/// A pack that is a symbolic link is refused alike by `--verify`, `replay --game` and
/// `--resume` (which would cut and append through it, outside the folder): `--verify` passed
/// it while `--resume` refused it as "Too many levels of symbolic links".
#[test]
fn a_pack_that_is_a_link_is_refused_alike_by_every_reader_and_resume() {
    let sb = Sandbox::new();
    let dir = packed_pair(&sb, "linked");
    let pack = dir.join("logs/pack-w0.zst");
    let elsewhere = sb.path("elsewhere.zst");
    fs::rename(&pack, &elsewhere).expect("moved");
    std::os::unix::fs::symlink(&elsewhere, &pack).expect("a link");
    let before = fs::read(&elsewhere).expect("the pack");
    let id = lines(&dir)[0]["id"].as_str().expect("an id").to_string();
    let d = dir.display().to_string();
    let commands: [Vec<&str>; 3] = [
        vec!["standings", &d, "--verify"],
        vec!["replay", &d, "--game", &id],
        vec!["tournament", "--resume", "--quiet", "--out", &d],
    ];
    for command in commands {
        let ran = allfives(&command);
        assert_eq!(ran.code, Some(2), "{command:?}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{command:?}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("is a symbolic link"),
            "{command:?}: {}",
            ran.stderr
        );
    }
    assert_eq!(fs::read(&elsewhere).expect("the pack"), before);
}
