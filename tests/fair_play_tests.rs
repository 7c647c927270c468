//! Fair play: cheating bots try each attack a bot could make on the game, its opponent or the
//! machine, and each attack must fail (`docs/fair-play.md`). A cheater writes `TRIED ...` on
//! stderr for each attempt and `LEAK ...` for one that worked; its stderr file is read after
//! the match. Where an attack can be shown to work without the sandbox, a control run shows it,
//! so that the test could fail.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::harness::*;

const SEED: &str = "11";
const QUICK: Duration = Duration::from_secs(20);

/// What a bot wrote on stderr during a match whose logs are in `logs`.
fn stderr_of(logs: &Path, bot: &str) -> String {
    fs::read_to_string(logs.join(format!("{bot}.stderr"))).unwrap_or_default()
}

/// The cheater tried (its stderr says TRIED) and got nothing (no LEAK).
fn assert_attack_failed(stderr: &str) {
    assert!(
        stderr.contains("TRIED"),
        "the attack was not tried: {stderr}"
    );
    assert!(!stderr.contains("LEAK"), "the attack worked: {stderr}");
}

/// The bot at `index` (in the order given) played the whole match without a fault.
fn assert_unharmed(report: &Value, index: usize) {
    let row = &report["standings"]["entrants"][index];
    assert_eq!(row["faults"], serde_json::json!({}), "{report:#}");
    assert_eq!(forfeits(report, index), 0, "{report:#}");
}

/// Games the bot at `index` lost by a forfeit.
fn forfeits(report: &Value, index: usize) -> usize {
    let games = report["games"].as_array().expect("games");
    games
        .iter()
        .filter(|g| g["ending"]["kind"] == "forfeit")
        .filter(|g| {
            let seat = g["ending"]["seat"].as_u64().expect("a seat") as usize;
            g["seats"][seat]["entrant"] == index
        })
        .count()
}

/// Plays `bots` into a fresh sandbox's logs with `options`; returns the sandbox and report.
fn match_in(sb: &Sandbox, bots: &[String], options: &[&str]) -> Value {
    let mut args = vec!["--seed", SEED];
    args.extend(options);
    let (_, report) = play(sb, bots, &args);
    report
}

/// The log-reading cheater against a bot that writes its hand on stderr; returns the sandbox,
/// the report and what the cheater wrote on stderr.
fn read_the_logs(options: &[&str]) -> (Sandbox, Value, String) {
    let sb = Sandbox::new();
    let bots = [
        sb.fixture("cheat_reads_logs", &[&hex(&sb.logs())]),
        sb.fixture("says_its_hand", &[]),
    ];
    let report = match_in(&sb, &bots, options);
    let stderr = stderr_of(&sb.logs(), "cheat_reads_logs");
    assert!(stderr_of(&sb.logs(), "says_its_hand").contains("HAND"));
    sb.assert_no_bot_left();
    (sb, report, stderr)
}

#[test]
fn a_cheater_reads_neither_the_running_log_nor_its_opponents_stderr() {
    let (_sb, report, stderr) = read_the_logs(&[]);
    assert_attack_failed(&stderr);
    assert!(!stderr.contains("HAND"), "{stderr}");
    assert_unharmed(&report, 1);
}

#[test]
fn without_the_sandbox_the_same_cheater_reads_the_log() {
    let (_sb, _, stderr) = read_the_logs(&["--no-sandbox"]);
    assert!(stderr.contains("LEAK game-1.jsonl"), "{stderr}");
    assert!(stderr.contains("HAND"), "{stderr}");
}

#[test]
fn a_cheater_reads_no_memory_and_traces_nothing() {
    let sb = Sandbox::new();
    let bots = [
        sb.fixture("cheat_reads_memory", &[]),
        "builtin:greedy".to_string(),
    ];
    match_in(&sb, &bots, &[]);
    let stderr = stderr_of(&sb.logs(), "cheat_reads_memory");
    assert_attack_failed(&stderr);
    assert!(stderr.contains("TRIED ptrace 1"), "{stderr}");
    assert!(stderr.contains("TRIED /proc/1/mem"), "{stderr}");
    sb.assert_no_bot_left();
}

/// The cheater against the Python greedy bot: it writes into the victim's pipes and stops it.
fn hit_the_greedy_bot(options: &[&str]) -> (Sandbox, Value) {
    let sb = Sandbox::new();
    let bots = [
        sb.fixture("cheat_hits_opponent", &[&hex(&sb.logs()), "greedy_bot.py"]),
        sb.sample("greedy_bot", &[]),
    ];
    let mut options = options.to_vec();
    options.extend(["--move-ms", "1000"]);
    let report = match_in(&sb, &bots, &options);
    (sb, report)
}

#[test]
fn a_cheater_can_neither_write_to_its_opponent_nor_stop_it() {
    let (sb, report) = hit_the_greedy_bot(&[]);
    assert_attack_failed(&stderr_of(&sb.logs(), "cheat_hits_opponent"));
    assert_unharmed(&report, 1);
    sb.assert_no_bot_left();
}

#[test]
fn without_the_sandbox_the_same_cheater_makes_its_opponent_forfeit() {
    let (sb, report) = hit_the_greedy_bot(&["--no-sandbox"]);
    assert!(stderr_of(&sb.logs(), "cheat_hits_opponent").contains("LEAK"));
    assert_eq!(forfeits(&report, 1), 1, "{report:#}");
    sb.assert_no_bot_left();
}

/// A file a planted link would point to; [`assert_untouched`] checks it after the match.
fn precious(sb: &Sandbox) -> PathBuf {
    let target = sb.path("precious.txt");
    fs::write(&target, "precious").expect("a target file");
    target
}

fn assert_untouched(target: &Path) {
    assert_eq!(fs::read_to_string(target).expect("the target"), "precious");
}

#[test]
fn links_a_cheater_plants_are_never_written_through() {
    let sb = Sandbox::new();
    let target = precious(&sb);
    let bots = [
        sb.fixture("cheat_plants_links", &[&hex(&sb.logs()), &hex(&target)]),
        "builtin:greedy".to_string(),
    ];
    let report = match_in(&sb, &bots, &["--games", "3", "--target", "60"]);
    assert_eq!(report["games"].as_array().map(Vec::len), Some(3));
    assert_attack_failed(&stderr_of(&sb.logs(), "cheat_plants_links"));
    assert_untouched(&target);
    for game in 2..=3 {
        let meta = fs::symlink_metadata(sb.log(game)).expect("the log");
        assert!(meta.file_type().is_file(), "game {game}'s log is a file");
    }
    sb.assert_no_bot_left();
}

#[test]
fn a_link_planted_before_the_match_stops_it_and_the_target_is_untouched() {
    let sb = Sandbox::new();
    let target = precious(&sb);
    fs::create_dir(sb.logs()).expect("the log folder");
    std::os::unix::fs::symlink(&target, sb.log(1)).expect("a link");
    let logs = sb.logs().display().to_string();
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--log-dir",
        &logs,
    ]);
    // Found before any game, as any log in the way.
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(ran.stderr.contains("exists already"), "{}", ran.stderr);
    assert_untouched(&target);
}

#[test]
fn processes_a_bot_leaves_behind_end_with_it() {
    let sb = Sandbox::new();
    let bots = [
        sb.fixture("leaves_processes", &[]),
        "builtin:greedy".to_string(),
    ];
    let report = match_in(&sb, &bots, &["--target", "60"]);
    assert_unharmed(&report, 0);
    sb.assert_no_bot_left();
}

#[test]
fn check_fails_a_bot_that_leaves_processes_behind() {
    let sb = Sandbox::new();
    let ran = allfives(&["check", &sb.fixture("leaves_processes", &[])]);
    assert_eq!(ran.code, Some(4), "{}", ran.stdout);
    let exit = ran
        .stdout
        .lines()
        .find(|l| l.contains("exit:"))
        .unwrap_or("");
    assert!(exit.starts_with("FAIL"), "{}", ran.stdout);
    assert!(exit.contains("left processes running"), "{exit}");
    sb.assert_no_bot_left();
    // A failed check keeps its logs for the bot's author: this test removes them.
    let kept = ran.stdout.lines().find_map(|l| l.split_once("; logs in "));
    if let Some((_, dir)) = kept {
        fs::remove_dir_all(dir.trim()).expect("the check's logs");
    }
}

/// Starts a match where a bot that leaves processes behind plays one that never answers, and
/// returns once the referee waits on a move.
fn a_match_waiting_on_a_move(sb: &Sandbox) -> Child {
    let args: Vec<String> = vec![
        "match".into(),
        sb.fixture("never_answers", &[]),
        sb.fixture("leaves_processes", &[]),
        "--move-ms".into(),
        "60000".into(),
        "--seed".into(),
        SEED.into(),
        "--log-dir".into(),
        sb.logs().display().to_string(),
    ];
    let mut child = spawn(&args);
    // The header and the first events are written before the referee waits on a bot.
    let deadline = Instant::now() + QUICK;
    while fs::read_to_string(sb.log(1)).map_or(0, |t| t.lines().count()) < 2 {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the match ended before the signal: {status}");
        }
        assert!(Instant::now() < deadline, "no game started");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn wait_bounded(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + QUICK;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the referee did not end");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_referee_killed_mid_move_leaves_no_process() {
    let sb = Sandbox::new();
    let mut child = a_match_waiting_on_a_move(&sb);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL).expect("SIGKILL");
    wait_bounded(&mut child);
    sb.assert_no_bot_left();
}

#[test]
fn a_referee_hung_up_on_mid_move_leaves_no_process() {
    let sb = Sandbox::new();
    let mut child = a_match_waiting_on_a_move(&sb);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGHUP).expect("SIGHUP");
    let status = wait_bounded(&mut child);
    assert_eq!(status.code(), Some(130), "{status}");
    sb.assert_no_bot_left();
}

/// Runs the referee, and so its bots, on the first CPU only: the hog then surely crowds its
/// neighbour, and the rest of the machine (other tests) keeps its other CPUs.
fn on_one_cpu(command: &mut Command) {
    let one_cpu = || {
        // SAFETY: a zeroed cpu_set_t is an empty set; sched_setaffinity reads the set given.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(0, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
        Ok(())
    };
    // SAFETY: the closure only makes one system call.
    unsafe { command.pre_exec(one_cpu) };
}

#[test]
fn a_cpu_hog_next_door_costs_no_time_on_the_cpu_clock() {
    let sb = Sandbox::new();
    // 10 ms of CPU a move within 50 ms: next to two busy processes on the same CPU, well over
    // 50 ms of wall time.
    let mut args = vec![
        "match".to_string(),
        sb.fixture("needs_cpu", &["10"]),
        sb.fixture("hogs_cpu", &[]),
    ];
    let options = [
        "--clock",
        "cpu",
        "--move-ms",
        "50",
        "--target",
        "30",
        "--seed",
        SEED,
        // The same deals every run: a game long enough to count its moves.
        "--public-seed",
    ];
    args.extend(options.map(String::from));
    args.extend([
        "--json".into(),
        "--log-dir".into(),
        sb.logs().display().to_string(),
    ]);
    let ran = allfives_with(&args, on_one_cpu);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = ran.json();
    assert_unharmed(&report, 0);
    assert!(
        uint(&report["standings"]["entrants"][0]["moves"]) > 10,
        "{report:#}"
    );
    let header = &log_lines(&sb.log(1))[0];
    assert_eq!(header["clock_kind"], "cpu", "{header}");
    sb.assert_no_bot_left();
}

#[test]
fn bots_of_every_kind_play_contained() {
    let sb = Sandbox::new();
    let java = root().join("tests/fixtures/bots/FirstLegal.java");
    let node = root().join("sample_bots/js/greedy_bot.js");
    let bots = [
        sb.sample("greedy_bot", &[]),
        format!("node {} {}", quote(&node.display().to_string()), sb.token()),
        format!("java {} {}", quote(&java.display().to_string()), sb.token()),
        format!("{} --name {}", strong_bot().display(), sb.token()),
    ];
    let report = match_in(&sb, &bots, &["--no-teams", "--target", "60"]);
    for bot in 0..4 {
        assert_unharmed(&report, bot);
    }
    let header = &log_lines(&sb.log(1))[0];
    assert_eq!(header["sandbox"]["sandbox"], true, "{header}");
    let in_force = header["sandbox"]["in_force"].to_string();
    assert!(in_force.contains("PID namespace"), "{header}");
    sb.assert_no_bot_left();
}
