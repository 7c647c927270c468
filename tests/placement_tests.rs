//! Where a match's processes run: with `--placement same-core` (the default) the referee holds
//! one CPU and both bots run on it; with `--placement free` they may run anywhere the referee
//! may. In a tournament each worker holds a CPU of its own. Each bot writes the CPUs it may use
//! to its stderr file at the handshake.

use std::fs;

use crate::harness::{Sandbox, allfives_with};

/// The CPUs this test process may run on, as `/proc/self/status` lists them.
fn cpus_allowed() -> String {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("a Cpus_allowed_list line")
        .trim()
        .to_string()
}

/// Plays one short game between two `reports_cpus` bots with `placement`; returns what each
/// bot reported. The referee's temporary directory (where it locks CPUs) is the sandbox, so
/// no other allfives holds a CPU there.
fn bots_cpus(placement: &str) -> [String; 2] {
    let sb = Sandbox::new();
    let bot = sb.fixture("reports_cpus", &[]);
    let logs = sb.logs().display().to_string();
    let args = [
        "match",
        &bot,
        &bot,
        "--seed",
        "5",
        "--public-seed",
        "--target",
        "20",
        "--log-dir",
        &logs,
        "--placement",
        placement,
    ];
    let ran = allfives_with(&args, |command| {
        command.env("TMPDIR", sb.path(""));
    });
    assert_eq!(ran.code, Some(0), "the match failed: {}", ran.stderr);
    let read = |name: &str| {
        let text = fs::read_to_string(sb.logs().join(format!("{name}.stderr")));
        text.expect("the bot's stderr file").trim().to_string()
    };
    let cpus = [read("reports_cpus"), read("reports_cpus#2")];
    sb.assert_no_bot_left();
    cpus
}

#[test]
fn by_default_both_bots_run_on_the_one_cpu_the_referee_holds() {
    let [first, second] = bots_cpus("same-core");
    assert_eq!(first, second, "both bots share the referee's CPU");
    assert!(
        first.parse::<usize>().is_ok(),
        "one CPU, not {first} (this test may run on {})",
        cpus_allowed()
    );
}

#[test]
fn placed_freely_the_bots_may_run_wherever_the_referee_may() {
    let allowed = cpus_allowed();
    assert_eq!(bots_cpus("free"), [allowed.clone(), allowed]);
}

/// The CPUs each worker's bots reported in a tournament of two `reports_cpus` entrants with
/// `-j workers`: one line per bot start, gathered per stderr file (`NAME.wWORKER.stderr`).
fn tournament_cpus(workers: &str, placement: &str) -> Vec<Vec<String>> {
    let sb = Sandbox::new();
    let bot = sb.fixture("reports_cpus", &[]);
    let (first, second) = (format!("a={bot}"), format!("b={bot}"));
    let out = sb.path("t").display().to_string();
    let args = [
        "tournament",
        &first,
        &second,
        "--deals",
        "4",
        "--target",
        "20",
        "--seed",
        "5",
        "--public-seed",
        "--fresh",
        "-j",
        workers,
        "--placement",
        placement,
        "--quiet",
        "--out",
        &out,
    ];
    let ran = allfives_with(&args, |command| {
        command.env("TMPDIR", sb.path(""));
    });
    assert_eq!(ran.code, Some(0), "the tournament failed: {}", ran.stderr);
    let mut files: Vec<_> = fs::read_dir(sb.path("t/stderr"))
        .expect("the stderr folder")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    sb.assert_no_bot_left();
    files
        .iter()
        .map(|f| {
            let text = fs::read_to_string(f).expect("a stderr file");
            text.lines().map(str::to_string).collect()
        })
        .collect()
}

#[test]
fn each_tournament_worker_holds_a_cpu_of_its_own() {
    let allowed = cpus_allowed();
    let cpus = tournament_cpus("2", "same-core");
    let mut by_worker = std::collections::BTreeSet::new();
    for reported in &cpus {
        assert!(!reported.is_empty(), "every bot started: {cpus:?}");
        assert!(
            reported
                .iter()
                .all(|c| c == &reported[0] && c.parse::<usize>().is_ok()),
            "one CPU per worker, not {reported:?} (this test may run on {allowed})"
        );
        by_worker.insert(reported[0].clone());
    }
    // Two workers on a machine with two CPUs or more: each has its own.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores >= 2 && allowed.contains(['-', ',']) {
        assert_eq!(by_worker.len(), 2, "{cpus:?}");
    }
}

#[test]
fn a_tournament_placed_freely_leaves_its_bots_wherever_the_referee_may_run() {
    let allowed = cpus_allowed();
    for reported in tournament_cpus("2", "free") {
        assert!(reported.iter().all(|c| c == &allowed), "{reported:?}");
    }
}
