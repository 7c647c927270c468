//! Results safe to script: stdout that closes or fills, `--json` streamed game by game (a whole
//! document when interrupted or stopped), log folders that are never shared, seeds, seat orders,
//! and one game of a match played again alone.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use allfives::tournament::report_stream::Report;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::harness::*;

const BIN: &str = env!("CARGO_BIN_EXE_allfives");

/// Runs the referee in `dir` (for its default log folder) to its end.
fn allfives_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("allfives runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The two ways a match prints: text, and the streamed JSON report.
const OUTPUTS: [(&[&str], &str); 2] = [(&[], "allfives match"), (&["--json"], "{")];

#[test]
fn a_reader_that_goes_away_ends_the_match_quietly() {
    for (options, opening) in OUTPUTS {
        let sb = Sandbox::new();
        let mut child = Command::new(BIN)
            .args([
                "match",
                "builtin:greedy",
                "builtin:random",
                "--games",
                "100000",
            ])
            .args(["--seed", "3", "--log-dir", &sb.logs().display().to_string()])
            .args(options)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("allfives starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut first)
            .expect("a first line");
        // The reader is dropped here, as `| head -1` does.
        assert!(first.starts_with(opening), "{options:?}: {first}");
        let deadline = Instant::now() + HUNG;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "{options:?}: the referee did not notice"
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut stderr)
            .expect("stderr");
        assert_eq!(status.code(), Some(141), "{options:?}: {stderr}");
        assert_eq!(stderr, "", "{options:?}");
    }
}

#[test]
fn a_full_stdout_is_one_error_line() {
    for (options, _) in OUTPUTS {
        let sb = Sandbox::new();
        let full = std::fs::File::create("/dev/full").expect("/dev/full exists");
        let out = Command::new(BIN)
            .args(["match", "builtin:greedy", "builtin:random", "--games", "4"])
            .args(["--log-dir", &sb.logs().display().to_string()])
            .args(options)
            .stdout(full)
            .output()
            .expect("allfives runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{options:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{options:?}: {stderr}");
        assert!(stderr.contains("cannot write to stdout"), "{stderr}");
    }
}

/// Checks a match's `--json` document: it reads as the referee's own report type, with
/// `games` games each once (in the order played: all of `1..=games` when complete), `complete`
/// as said, and `complete` printed after the games.
fn assert_match_report(stdout: &str, games: u64, complete: bool) -> Report {
    let report: Report = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("not a results report ({e}):\n{stdout}"));
    let mut numbers: Vec<u64> = report.games.iter().flatten().map(|g| g.game).collect();
    numbers.sort();
    numbers.dedup();
    assert_eq!(numbers.len() as u64, games);
    if complete {
        assert_eq!(numbers, (1..=games).collect::<Vec<_>>());
    }
    assert_eq!(report.complete, complete);
    assert_eq!(report.standings.games, games);
    let last_game = stdout.rfind("\"rerun\"").expect("a game");
    let complete_at = stdout.find("\n  \"complete\"").expect("complete");
    assert!(
        last_game < complete_at,
        "complete is printed before the games"
    );
    report
}

#[test]
fn a_json_match_lists_every_game_in_one_document() {
    let sb = Sandbox::new();
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--games",
        "40",
        "--seed",
        "12",
        "--public-seed",
        "--json",
        "--log-dir",
        &sb.logs().display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = assert_match_report(&ran.stdout, 40, true);
    assert_eq!(report.kind, "match");
    assert_eq!(report.seed, Some(12));
    for game in report.games.iter().flatten() {
        let log = game.log.as_deref().expect("a log");
        assert!(std::path::Path::new(log).exists(), "{log}");
    }
}

/// A `--json` match of 500 games between two Python sample bots, logged into `sb`.
fn sample_json_match(sb: &Sandbox, seed: &str) -> Vec<String> {
    let mut args = vec!["match".to_string(), sb.sample("greedy_bot", &[])];
    args.push(sb.sample("random_bot", &["4"]));
    let logs = sb.logs().display().to_string();
    args.extend(
        [
            "--games",
            "500",
            "--json",
            "--seed",
            seed,
            "--public-seed",
            "--log-dir",
            &logs,
        ]
        .map(String::from),
    );
    args
}

/// Sends SIGINT to the referee once its first game is over (game 2's log exists).
fn interrupt_after_game_one(child: &mut std::process::Child, sb: &Sandbox) {
    let deadline = Instant::now() + HUNG;
    while !sb.log(2).exists() {
        assert!(child.try_wait().expect("wait").is_none(), "the match ended");
        assert!(Instant::now() < deadline, "no game finished");
        std::thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("SIGINT");
}

#[test]
fn a_json_match_prints_each_game_as_it_ends() {
    let sb = Sandbox::new();
    let mut child = spawn(&sample_json_match(&sb, "8"));
    let mut stdout = child.stdout.take().expect("stdout");
    // Read up to the end of the first game: an element of `games` closes at 4 spaces (its line
    // ends with the `,` or `]` that follows it).
    let first_game = |text: &str| {
        let games = text.find("\n  \"games\": [")?;
        text[games..]
            .find("\n    }")
            .map(|end| games + end + "\n    }".len())
    };
    let mut bytes = Vec::new();
    while first_game(&String::from_utf8_lossy(&bytes)).is_none() {
        let mut chunk = [0u8; 4096];
        let read = stdout.read(&mut chunk).expect("stdout");
        assert!(
            read > 0,
            "stdout ended early:\n{}",
            String::from_utf8_lossy(&bytes)
        );
        bytes.extend_from_slice(&chunk[..read]);
    }
    assert!(child.try_wait().expect("wait").is_none(), "the match ended");
    let mut so_far = String::from_utf8(bytes).expect("UTF-8");
    let first = &so_far[..first_game(&so_far).expect("a game")];
    let first: Value = serde_json::from_str(&format!("{first}]}}")).expect("a first game");
    assert_eq!(first["games"][0]["game"], 1);
    assert_eq!(first["seed"], 8);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("SIGINT");
    stdout.read_to_string(&mut so_far).expect("stdout");
    let out = child.wait_with_output().expect("the referee ends");
    assert_eq!(out.status.code(), Some(130));
    let report: Value = serde_json::from_str(&so_far).expect("valid JSON");
    let games = report["games"].as_array().expect("games").len() as u64;
    assert!((1..500).contains(&games), "{games} games");
    assert_match_report(&so_far, games, false);
    sb.assert_no_bot_left();
}

#[test]
fn a_json_match_that_stops_midway_closes_its_document() {
    let sb = Sandbox::new();
    // Logs are never overwritten, and a log in the way is refused before the first game; an
    // uncontained bot that plants links named like games 2 and 3's logs during game 1 makes
    // game 2 impossible to start.
    let target = sb.path("target");
    let planter = sb.fixture("cheat_plants_links", &[&hex(&sb.logs()), &hex(&target)]);
    let ran = allfives(&[
        "match",
        &planter,
        "builtin:random",
        "--no-sandbox",
        "--games",
        "6",
        "--json",
        "--log-dir",
        &sb.logs().display().to_string(),
    ]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(ran.stderr.contains("the match stopped"), "{}", ran.stderr);
    assert_match_report(&ran.stdout, 1, false);
    sb.assert_no_bot_left();
}

#[test]
fn an_interrupted_json_match_prints_what_it_played() {
    let sb = Sandbox::new();
    let mut child = spawn(&sample_json_match(&sb, "5"));
    interrupt_after_game_one(&mut child, &sb);
    let out = child.wait_with_output().expect("the referee ends");
    assert_eq!(out.status.code(), Some(130));
    let report: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(report["complete"], false);
    let games = report["games"].as_array().expect("games").len();
    assert!((1..500).contains(&games), "{games} games");
    sb.assert_no_bot_left();
}

#[test]
fn a_match_between_builtins_stops_on_ctrl_c() {
    // Builtins never wait on a process: the referee must still notice the signal.
    let sb = Sandbox::new();
    let logs = sb.logs().display().to_string();
    let args = [
        "match",
        "builtin:greedy",
        "builtin:random",
        "--games",
        "10000000",
        "--seed",
        "5",
        "--public-seed",
        "--log-dir",
        &logs,
    ];
    // Into a file: a pipe nobody reads would fill and stop the referee by itself.
    let printed = sb.path("stdout.txt");
    let file = std::fs::File::create(&printed).expect("a file for stdout");
    let mut child = spawn_with(&args.map(String::from), |c| {
        c.stdout(file).stderr(Stdio::null());
    });
    interrupt_after_game_one(&mut child, &sb);
    // Ten million games would take hours: a referee deaf to the signal fails here, not later.
    let stopped = Instant::now() + HUNG;
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > stopped {
            let _ = child.kill();
            panic!("the referee went on after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = child.wait().expect("the referee ends");
    assert_eq!(status.code(), Some(130));
    let stdout = std::fs::read_to_string(&printed).expect("stdout was written");
    assert!(stdout.contains("incomplete"), "{stdout}");
}

#[test]
fn every_match_gets_a_log_folder_of_its_own() {
    let sb = Sandbox::new();
    let dir = sb.path("");
    let args = [
        "match",
        "builtin:greedy",
        "builtin:random",
        "--seed",
        "9",
        "--public-seed",
        "--json",
    ];
    let logs: Vec<String> = (0..2)
        .map(|_| {
            let (code, stdout, stderr) = allfives_in(&dir, &args);
            assert_eq!(code, Some(0), "{stderr}");
            let report: Value = serde_json::from_str(&stdout).expect("JSON");
            report["games"][0]["log"]
                .as_str()
                .expect("a log")
                .to_string()
        })
        .collect();
    assert_ne!(logs[0], logs[1]);
    for log in &logs {
        // The folder's name carries no seed: a bot that lists it learns nothing.
        assert!(log.starts_with("allfives-logs/match-"), "{log}");
        assert!(!log.contains("match-9"), "{log}");
        assert_replays(&dir.join(log));
    }
}

#[test]
fn a_fresh_seed_is_printed_and_differs_from_run_to_run() {
    let sb = Sandbox::new();
    let dir = sb.path("");
    let seeds: Vec<u64> = (0..2)
        .map(|_| {
            let (code, stdout, _) =
                allfives_in(&dir, &["match", "builtin:greedy", "builtin:random"]);
            assert_eq!(code, Some(0));
            let first = stdout.lines().next().expect("a banner");
            let seed = first.rsplit("seed ").next().expect("a seed");
            seed.trim().parse().expect("a number")
        })
        .collect();
    assert_ne!(seeds[0], seeds[1]);
}

fn match_json(sb: &Sandbox, bots: &[&str], options: &[&str]) -> Value {
    let bots: Vec<String> = bots.iter().map(|b| b.to_string()).collect();
    play(sb, &bots, options).1
}

#[test]
fn three_players_sit_in_all_six_orders() {
    let sb = Sandbox::new();
    let bots = ["builtin:greedy", "builtin:random", "greedy2=builtin:greedy"];
    let report = match_json(&sb, &bots, &["--games", "6", "--seed", "4"]);
    let mut orders: Vec<String> = report["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| seating(g).to_string())
        .collect();
    orders.sort();
    orders.dedup();
    assert_eq!(orders.len(), 6);
}

#[test]
fn game_k_alone_plays_as_in_the_whole_match() {
    let sb = Sandbox::new();
    let bots = ["builtin:greedy", "builtin:random", "builtin:random"];
    let whole = match_json(&sb, &bots, &["--games", "8", "--seed", "11"]);
    // The typed seed was mixed with a fresh key: the master printed plays the game again.
    let master = whole["seed"].to_string();
    let alone_sb = Sandbox::new();
    let options = ["--game", "8", "--seed", &master, "--public-seed"];
    let alone = match_json(&alone_sb, &bots, &options);
    let games = whole["games"].as_array().expect("games");
    let a = games.iter().find(|g| g["game"] == 8).expect("game 8");
    let b = &alone["games"][0];
    for key in ["game", "seed", "scores", "hands"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!((seating(a), ranks(a)), (seating(b), ranks(b)));
}

#[test]
fn bots_are_named_on_the_command_line_and_in_bots_files() {
    let sb = Sandbox::new();
    let folder = sb.path("v1");
    std::fs::create_dir(&folder).expect("a folder");
    // A bot that tells where it runs and what its environment holds, then plays.
    let bot = format!(
        "import os, sys\nsys.path.insert(0, {:?})\nopen('seen.txt', 'w').write(os.environ.get('ALLFIVES_TEST', ''))\nimport botlib\nbotlib.run()\n",
        root().join("tests/fixtures/bots").display().to_string()
    );
    std::fs::write(folder.join("bot.py"), bot).expect("write");
    let toml = format!(
        "[[bots]]\nname = \"old\"\ncommand = \"python3 bot.py {}\"\ndir = \"v1\"\nenv = {{ ALLFIVES_TEST = \"yes\" }}\n",
        sb.token()
    );
    std::fs::write(sb.path("bots.toml"), toml).expect("write");
    let bots = vec![
        "--bots".to_string(),
        sb.path("bots.toml").display().to_string(),
        "new=builtin:greedy".to_string(),
    ];
    // Uncontained: the bot writes what it saw into its folder.
    let (_, report) = play(
        &sb,
        &bots,
        &[
            "--games",
            "2",
            "--seed",
            "1",
            "--public-seed",
            "--no-sandbox",
        ],
    );
    let names: Vec<&str> = report["entrants"]
        .as_array()
        .expect("bots")
        .iter()
        .map(|b| b["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["old", "new"]);
    let seen = std::fs::read_to_string(folder.join("seen.txt")).expect("it ran in its folder");
    assert_eq!(seen, "yes");
    let json = sb.path("bots.json");
    std::fs::write(
        &json,
        r#"{"bots": [{"name": "x", "command": "builtin:random", "colour": 1}]}"#,
    )
    .expect("write");
    let ran = allfives(&[
        "match",
        "--bots",
        &json.display().to_string(),
        "builtin:greedy",
    ]);
    assert_eq!(ran.code, Some(2));
    assert!(ran.stderr.contains("colour"), "{}", ran.stderr);
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
}

#[test]
fn a_full_disk_leaves_results_that_match_the_counts_and_no_half_file() {
    let sb = crate::harness::Sandbox::new();
    let mount = sb.path("small");
    std::fs::create_dir(&mount).expect("a mount point");
    let out = mount.join("t");
    // A private mount namespace with a 300 KiB tmpfs: the disk fills mid-run (needs root, as CI).
    let script = format!(
        "mount -t tmpfs -o size=300k tmpfs {m} && {bin} tournament --json --quiet --out {o} \
         builtin:greedy builtin:random --deals 200 -j 2 --seed 1; code=$?; \
         cp -r {o} {copy}; exit $code",
        m = mount.display(),
        bin = env!("CARGO_BIN_EXE_allfives"),
        o = out.display(),
        copy = sb.path("copy").display(),
    );
    let ran = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .output()
        .expect("unshare runs");
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    let report: Value = serde_json::from_slice(&ran.stdout).expect("the report");
    let entrants = report["standings"]["entrants"]
        .as_array()
        .expect("entrants");
    let games: u64 = entrants
        .iter()
        .map(|e| e["games"].as_u64().expect("games"))
        .sum();
    let copy = sb.path("copy");
    let results = std::fs::read_to_string(copy.join("results.jsonl")).expect("results");
    assert!(
        results.is_empty() || results.ends_with('\n'),
        "a torn line is left"
    );
    assert_eq!(
        results.lines().count() as u64,
        games / 2,
        "the counts and the lines differ"
    );
    let left: Vec<String> = std::fs::read_dir(&copy)
        .expect("the folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".new"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `--resume` on a full disk is the referee's failure, exit 1 as every other write that fails:
/// it was exit 2, the code of bad arguments.
#[test]
fn a_resume_on_a_full_disk_exits_1() {
    let sb = crate::harness::Sandbox::new();
    let mount = sb.path("small");
    std::fs::create_dir(&mount).expect("a mount point");
    let out = mount.join("t");
    // A private mount namespace with a 300 KiB tmpfs, filled by a first run (needs root, as CI).
    let script = format!(
        "mount -t tmpfs -o size=300k tmpfs {m} && {bin} tournament --quiet --out {o} \
         builtin:greedy builtin:random --deals 200 -j 2 --seed 1 >/dev/null 2>&1; \
         {bin} tournament --resume --quiet --out {o} >/dev/null",
        m = mount.display(),
        bin = env!("CARGO_BIN_EXE_allfives"),
        o = out.display(),
    );
    let ran = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .output()
        .expect("unshare runs");
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
