//! `allfives check` against the sample bots (which must pass every step) and against
//! misbehaving bots (which must fail, for the right reason).

use crate::harness::{Ran, Sandbox, allfives, root};

/// Runs `allfives check` on a bot with a short move clock.
fn check(bot: &str) -> Ran {
    allfives(&["check", bot, "--move-ms", "1000"])
}

fn assert_passes(sb: &Sandbox, bot: &str) {
    let ran = check(bot);
    assert_eq!(
        ran.code,
        Some(0),
        "check {bot} failed:\n{}\n{}",
        ran.stdout,
        ran.stderr
    );
    assert_eq!(ran.stdout.matches("PASS  ").count(), 7, "{}", ran.stdout);
    assert!(!ran.stdout.contains("FAIL"), "{}", ran.stdout);
    sb.assert_no_bot_left();
}

#[test]
fn the_python_sample_bots_pass() {
    for (name, args) in [("greedy_bot", &[][..]), ("random_bot", &["1"][..])] {
        let sb = Sandbox::new();
        assert_passes(&sb, &sb.sample(name, args));
    }
}

#[test]
fn the_javascript_sample_bot_passes() {
    let sb = Sandbox::new();
    let script = root().join("sample_bots/js/greedy_bot.js");
    assert_passes(&sb, &format!("node {} {}", script.display(), sb.token()));
}

#[test]
fn the_strong_rust_bot_passes() {
    let sb = Sandbox::new();
    let bot = crate::harness::strong_bot();
    assert_passes(&sb, &format!("{} --name {}", bot.display(), sb.token()));
}

#[test]
fn the_builtins_pass() {
    for name in ["builtin:random", "builtin:greedy"] {
        let ran = check(name);
        assert_eq!(ran.code, Some(0), "{}", ran.stdout);
    }
}

/// Each misbehaving bot fails the first position it is asked to choose in, with its fault.
#[test]
fn misbehaving_bots_fail_for_the_right_reason() {
    let cases = [
        ("slow", "timeout: did not answer within 1000 ms"),
        ("illegal", "illegal: "),
        ("wrong_id", "wrong_id: answered id"),
        ("garbage", "malformed: not a valid message"),
    ];
    for (fixture, reason) in cases {
        let sb = Sandbox::new();
        let ran = check(&sb.fixture(fixture, &[]));
        assert_eq!(
            ran.code,
            Some(4),
            "check {fixture}:\n{}\n{}",
            ran.stdout,
            ran.stderr
        );
        let failures: Vec<&str> = ran
            .stdout
            .lines()
            .filter(|l| l.starts_with("FAIL"))
            .collect();
        assert!(
            failures.iter().any(|l| l.contains(reason)),
            "{fixture}: no FAIL line says '{reason}':\n{}",
            ran.stdout
        );
        assert!(ran.stdout.contains("PASS  handshake"), "{}", ran.stdout);
        sb.assert_no_bot_left();
    }
}

#[test]
fn a_bot_that_ignores_bye_fails_the_exit_step() {
    let sb = Sandbox::new();
    let ran = check(&sb.fixture("ignores_sigterm", &[]));
    assert_eq!(ran.code, Some(4), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("FAIL  exit: still running"),
        "{}",
        ran.stdout
    );
    sb.assert_no_bot_left();
}

#[test]
fn a_bot_that_exits_at_once_fails_the_handshake_only() {
    let sb = Sandbox::new();
    let ran = check(&sb.fixture("exits_at_once", &[]));
    assert_eq!(ran.code, Some(4), "{}", ran.stdout);
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        lines[0].starts_with("FAIL  handshake: crash"),
        "{}",
        ran.stdout
    );
    assert_eq!(ran.stdout.matches("PASS").count(), 0, "{}", ran.stdout);
}
