//! The hand-written JSON (`allfives_engine::json`) against serde_json: the same bytes for every
//! turn, event, play, deal and hand's end of random games under random rules.

use allfives_engine::deal::below;
use allfives_engine::json::{
    TurnWriter, read_from_bot, write_event_message, write_hand_end, write_hand_event,
    write_hand_start, write_play, write_seen,
};
use allfives_engine::protocol::{FromBot, ToBot};
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
        for event in game.events_since(told) {
            compare_event(event, rules.players);
        }
        told = game.event_count();
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
    let mut fast = Vec::new();
    match *event {
        Event::Play(play) => write_play(&play, &mut fast),
        // The log writes a draw and a pass as the drawing (or passing) seat sees them.
        Event::Draw { seat, .. } | Event::Pass { seat } => {
            write_seen(&Seen::of(event, seat).expect("a hand event"), &mut fast)
        }
        Event::HandStart { .. } | Event::HandEnd(_) => {
            write_hand_event(event, &mut fast).expect("a hand's start or end")
        }
        _ => fast = serde_json::to_vec(event).expect("events serialize"),
    }
    assert_eq!(
        String::from_utf8(fast).expect("UTF-8"),
        serde_json::to_string(event).expect("events serialize")
    );
    if let Event::HandEnd(summary) = event {
        let mut fast = Vec::new();
        write_hand_end(summary, &mut fast);
        let expected = serde_line(&ToBot::HandEnd {
            summary: (**summary).clone(),
        });
        assert_eq!(String::from_utf8(fast).expect("UTF-8"), expected);
    }
    for seat in 0..players {
        if let Event::HandStart { hand, deal } = event {
            let mut fast = Vec::new();
            write_hand_start(*hand, deal, seat, &mut fast);
            let expected = serde_line(&ToBot::HandStart {
                hand: *hand,
                leader: deal.leader,
                tiles: deal.hands[seat].clone(),
                hand_sizes: deal.hands.iter().map(Vec::len).collect(),
                boneyard: deal.boneyard.len(),
            });
            assert_eq!(String::from_utf8(fast).expect("UTF-8"), expected);
        }
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

/// A move line as most bots write it: compact, or `spaced` as Python's `json.dumps` writes it
/// (the info's own `:` and `,` too).
fn move_line(id: u64, a: u8, b: u8, end: Option<&str>, info: Option<&str>, spaced: bool) -> String {
    let end = match end {
        Some(name) => format!(r#","end":"{name}""#),
        None => String::new(),
    };
    let info = match info {
        Some(value) => format!(r#","info":{value}"#),
        None => String::new(),
    };
    let line = format!(r#"{{"type":"move","id":{id},"tile":[{a},{b}]{end}{info}}}"#);
    match spaced {
        true => line.replace(':', ": ").replace(',', ", "),
        false => line,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn a_bot_line_reads_as_serde_reads_it(
        id in prop_oneof![any::<u64>(), 0u64..1000],
        a in 0u8..10,
        b in 0u8..10,
        end in prop::option::of(prop::sample::select(vec![
            "left", "right", "up", "down", "up2", "down7", "up8", "Left", "", "null",
        ])),
        info in prop::option::of(prop::sample::select(vec![
            r#"{"points":5,"choices":3}"#, r#""a text""#, r#"{}"#, r#"{"a":[1,{"b":null}],"c":-2.5e3}"#,
            r#""""#, r#""é\u00e9""#, "null", "7", "[1]", r#"{"a":1}}"#,
        ])),
        spaced in any::<bool>(),
        edit in prop::option::of((any::<prop::sample::Index>(), any::<char>(), any::<bool>())),
    ) {
        let mut line = move_line(id, a, b, end, info, spaced);
        if let Some((at, c, insert)) = edit {
            let chars: Vec<char> = line.chars().collect();
            let i = at.index(chars.len());
            let mut edited: Vec<char> = chars.clone();
            if insert { edited.insert(i, c) } else { edited.remove(i); }
            line = edited.into_iter().collect();
        }
        let fast = read_from_bot(&line).map_err(|e| e.to_string());
        let serde = serde_json::from_str::<FromBot>(&line).map_err(|e| e.to_string());
        prop_assert_eq!(fast, serde, "{}", line);
    }
}

#[test]
fn other_forms_of_a_move_read_the_same() {
    for line in [
        r#"{"type":"move","id":3,"tile":[6,4],"end":null}"#,
        r#"{"type":"move","id":3,"tile":[6,4]}"#,
        r#"{"type":"move","id":03,"tile":[6,4]}"#,
        r#"{"type":"move","id":18446744073709551616,"tile":[6,4]}"#,
        r#"{"type":"move","id":3,"tile":[6,4],"end":"left","x":1}"#,
        r#"{"type":"move","id":3,"tile":[6,4],"end":"le\u0066t"}"#,
        r#"{ "type": "move", "id": 3, "tile": [6, 4], "end": "left" }"#,
        r#"{"id":3,"type":"move","tile":[6,4],"end":"left"}"#,
        r#"{"type":"hello","id":1,"name":"x"}"#,
        r#"{"type":"move","id":3,"tile":[6,4],"end":"left","info":{"a":1},"x":2}"#,
        r#"{"type":"move","id":3,"tile":[6,4],"end":"left","info":{"a":1} }"#,
        r#"{"type":"move","id":3,"tile":[6,4],"end":"left","info":  "two spaces"}"#,
        r#"{"type":"move","id":3,"tile":[6,4],"end":null,"info":"x"}"#,
        r#"{"type":"move","id":3,"tile":[6,4],"info":{"a":1,"a":2}}"#,
        r#"{"type":"move","id":3,"tile":[6,4],"end":"left""info":"x"}"#,
    ] {
        let fast = read_from_bot(line).map_err(|e| e.to_string());
        let serde = serde_json::from_str::<FromBot>(line).map_err(|e| e.to_string());
        assert_eq!(fast, serde, "{line}");
    }
}
