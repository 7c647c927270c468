//! The hand-written JSON (`allfives_engine::json`) against serde_json: the same bytes for every
//! turn, event and play of random games under random rules.

use allfives_engine::deal::below;
use allfives_engine::json::{TurnWriter, write_event_message, write_play};
use allfives_engine::protocol::ToBot;
use allfives_engine::{Event, Game, Rules, Seen, Status};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::engine_props::any_rules;

/// serde_json's line for a message.
fn serde_line(msg: &ToBot) -> String {
    let mut line = serde_json::to_string(msg).expect("messages serialize");
    line.push('\n');
    line
}

/// Plays a random game, and after every step compares every seat's turn line (one writer for
/// the whole game, as the referee keeps it) and each new event's lines with serde_json's.
fn compare_game(rules: Rules, number: u32, seed: u64) {
    let mut game = Game::new(rules).expect("valid rules").numbered(number);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut writer = TurnWriter::new();
    let mut moves = Vec::new();
    let mut told = 0;
    loop {
        for seat in 0..rules.players {
            let id = rng.next_u64() >> below(&mut rng, 64);
            let time_left_ms = u64::from(below(&mut rng, 100_000));
            let mut fast = Vec::new();
            writer.write_turn(&game, seat, id, time_left_ms, &mut fast);
            let expected = serde_line(&ToBot::Turn {
                id,
                time_left_ms,
                view: Box::new(game.view(seat)),
            });
            assert_eq!(String::from_utf8(fast).expect("UTF-8"), expected);
        }
        for event in &game.events()[told..] {
            compare_event(event, rules.players);
        }
        told = game.events().len();
        match game.status() {
            Status::Over(_) => return,
            Status::Dealing { .. } => game.deal(&mut rng).expect("a deal"),
            Status::ToPlay { seat } => {
                game.legal_moves(&mut moves);
                let pick = moves[below(&mut rng, moves.len() as u32) as usize];
                game.play(seat, pick).expect("a legal move");
            }
        }
    }
}

fn compare_event(event: &Event, players: usize) {
    if let Event::Play(play) = event {
        let mut fast = Vec::new();
        write_play(play, &mut fast);
        assert_eq!(
            String::from_utf8(fast).expect("UTF-8"),
            serde_json::to_string(event).expect("events serialize")
        );
    }
    for seat in 0..players {
        if let Some(seen) = Seen::of(event, seat) {
            let mut fast = Vec::new();
            write_event_message(&seen, &mut fast);
            let expected = serde_line(&ToBot::Event { event: seen });
            assert_eq!(String::from_utf8(fast).expect("UTF-8"), expected);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn turns_and_events_are_serde_json_byte_for_byte(
        rules in any_rules(),
        number in any::<u32>(),
        seed in any::<u64>(),
    ) {
        compare_game(rules, number, seed);
    }
}

#[test]
fn a_writer_kept_across_hands_and_games_starts_each_hand_afresh() {
    // Default rules play many hands; the same writer then serves a second game.
    let mut writer = TurnWriter::new();
    for seed in [1, 2] {
        let mut game = Game::new(Rules::new(2)).expect("valid rules");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut moves = Vec::new();
        while game.result().is_none() {
            match game.status() {
                Status::Dealing { .. } => game.deal(&mut rng).expect("a deal"),
                Status::ToPlay { seat } => {
                    let mut fast = Vec::new();
                    writer.write_turn(&game, seat, 1, 1, &mut fast);
                    let view = game.view(seat);
                    let expected = serde_line(&ToBot::Turn {
                        id: 1,
                        time_left_ms: 1,
                        view: Box::new(view),
                    });
                    assert_eq!(String::from_utf8(fast).expect("UTF-8"), expected);
                    game.legal_moves(&mut moves);
                    game.play(seat, moves[0]).expect("a legal move");
                }
                Status::Over(_) => {}
            }
        }
    }
}
