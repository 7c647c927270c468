//! The cheat as a process: it shakes hands like any bot and exits on `bye`. (Building this test
//! also builds the `cheat_seed_search` binary, which the referee's red-team tests in
//! tests/seed_secrecy_tests.rs play: `cargo test` builds a member's binaries only for its
//! integration tests.)

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use allfives_engine::protocol::{FromBot, ToBot};

#[test]
fn answers_hello_then_exits_on_bye() {
    let mut bot = Command::new(env!("CARGO_BIN_EXE_cheat_seed_search"))
        .arg("bot-seed")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the cheat starts");
    let mut input = bot.stdin.take().expect("piped");
    let mut output = BufReader::new(bot.stdout.take().expect("piped"));
    let mut send = |message: &ToBot| {
        let mut line = serde_json::to_string(message).expect("messages serialize");
        line.push('\n');
        input.write_all(line.as_bytes()).expect("the cheat reads");
        input.flush().expect("flush");
    };
    send(&ToBot::Hello {
        id: 1,
        protocol: 1,
        referee: "test".into(),
    });
    let mut answer = String::new();
    output.read_line(&mut answer).expect("the cheat answers");
    let hello: FromBot = serde_json::from_str(&answer).expect("a protocol message");
    assert!(matches!(hello, FromBot::Hello { id: 1, .. }), "{hello:?}");
    send(&ToBot::Bye);
    let status = bot.wait().expect("the cheat exits");
    assert!(status.success(), "{status}");
}
