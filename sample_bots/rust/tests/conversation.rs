//! The bot as a process: it shakes hands, answers a turn with one of the legal moves offered,
//! echoing the turn's id, and exits on `bye`. (Building this test also builds the `strong_bot`
//! binary, which the referee's own tests play against.)

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use allfives_engine::protocol::{FromBot, ToBot};
use allfives_engine::{Game, Move, Rules, Status};
use rand::SeedableRng;

#[test]
fn answers_hello_and_a_turn_then_exits_on_bye() {
    let mut bot = Command::new(env!("CARGO_BIN_EXE_strong_bot"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the bot starts");
    let mut input = bot.stdin.take().expect("piped");
    let mut output = BufReader::new(bot.stdout.take().expect("piped"));
    let mut exchange = |message: &ToBot| -> Option<FromBot> {
        let mut line = serde_json::to_string(message).expect("messages serialize");
        line.push('\n');
        input.write_all(line.as_bytes()).expect("the bot reads");
        input.flush().expect("flush");
        let wants_answer = matches!(message, ToBot::Hello { .. } | ToBot::Turn { .. });
        wants_answer.then(|| {
            let mut answer = String::new();
            output.read_line(&mut answer).expect("the bot answers");
            serde_json::from_str(&answer).expect("the answer is a protocol message")
        })
    };

    let hello = exchange(&ToBot::Hello {
        id: 1,
        protocol: 1,
        referee: "test".into(),
    });
    assert!(
        matches!(hello, Some(FromBot::Hello { id: 1, .. })),
        "{hello:?}"
    );

    let mut game = Game::new(Rules::new(2)).expect("default rules");
    game.deal(&mut rand::rngs::ChaCha8Rng::seed_from_u64(3))
        .expect("a deal");
    let Status::ToPlay { seat } = game.status() else {
        panic!("a dealt game waits for a move");
    };
    let view = game.view(seat);
    let legal: Vec<Move> = view.legal.iter().map(|c| c.to_move()).collect();
    let answer = exchange(&ToBot::Turn {
        id: 7,
        time_left_ms: 1000,
        view: Box::new(view),
    });
    match answer {
        Some(FromBot::Move {
            id: 7,
            tile,
            end,
            info,
        }) => {
            assert!(
                legal.contains(&Move { tile, end }),
                "{tile} on {end:?} is not legal"
            );
            // What it thought goes with the move, for the log: each move's estimate.
            let info = serde_json::to_value(info.expect("an info")).expect("plain data");
            assert!(info["estimate"].is_number(), "{info}");
        }
        other => panic!("expected a move for turn 7, got {other:?}"),
    }

    exchange(&ToBot::Bye);
    drop(input);
    let status = bot.wait().expect("the bot exits");
    assert!(status.success(), "{status}");
}
