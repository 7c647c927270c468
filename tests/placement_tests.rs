//! Where a match's processes run: with `--placement same-core` (the default) the referee holds
//! one CPU and both bots run on it; with `--placement free` they may run anywhere the referee
//! may. Each bot writes the CPUs it may use to its stderr file at the handshake.

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
