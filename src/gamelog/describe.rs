//! A game's events and results in plain words, for people: refusals of a log, and replays.

use allfives_engine::game::{Event, GameEnding, GameResult, HandEnding, HandSummary, Play};
use allfives_engine::tile::Tile;

/// A list of numbers or tiles, as `5, -10, 0`.
pub fn list<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tiles side by side, as `[0|1] [2|5]`, or `none`.
pub fn tiles(tiles: &[Tile]) -> String {
    if tiles.is_empty() {
        return "none".into();
    }
    tiles
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `n thing` or `n things` (worded in [`text`](crate::text), which the sandbox uses too).
pub use crate::text::count;

/// `1st`, `2nd`, `3rd`, `4th`, ... `11th`, `21st`.
pub fn ordinal(n: impl Into<u64>) -> String {
    let n = n.into();
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A play, as `seat 1 plays [3|5] on right: sum 10, 2 points`.
pub fn play(play: &Play) -> String {
    let place = play.end.map_or("leads".to_string(), |e| format!("on {e}"));
    format!(
        "seat {} plays {} {place}: sum {}, {}",
        play.seat,
        play.tile,
        play.sum,
        count(play.points, "point")
    )
}

/// How a hand ended, as `seat 0 went out` or `blocked`.
pub fn hand_ending(ending: HandEnding) -> String {
    match ending {
        HandEnding::WentOut { seat } => format!("seat {seat} went out"),
        HandEnding::Blocked => "blocked".into(),
    }
}

/// A hand's scoring in one line.
pub fn hand_end(summary: &HandSummary) -> String {
    let left: Vec<String> = summary.hands.iter().map(|h| tiles(h)).collect();
    format!(
        "hand {} ends, {}; pips left {}; points {}; scores {}; left in hands: {}",
        summary.hand,
        hand_ending(summary.ending),
        list(&summary.pips),
        list(&summary.points),
        list(&summary.scores),
        left.join(" / ")
    )
}

/// Why a game ended, as `seat 1 reached the target`, or in partnerships `team 0 (seats 0 and
/// 2) reached the target`; `seats` and `sides` count the game's seats and sides (a side is a
/// seat, or a team of the seats it numbers modulo `sides`).
pub fn game_ending(ending: GameEnding, seats: usize, sides: usize) -> String {
    match ending {
        GameEnding::Target { side } if sides < seats => {
            let members: Vec<String> = (side..seats)
                .step_by(sides.max(1))
                .map(|s| s.to_string())
                .collect();
            format!(
                "team {side} (seats {}) reached the target",
                members.join(" and ")
            )
        }
        GameEnding::Target { side } => format!("seat {side} reached the target"),
        GameEnding::MaxHands => "the hand limit was reached".into(),
        GameEnding::Forfeit { seat } => format!("seat {seat} forfeited"),
    }
}

/// A game's result in one line.
pub fn result(result: &GameResult) -> String {
    format!(
        "{} after {}; scores {}; ranks {}",
        // A result has a score a side and a rank a seat.
        game_ending(result.ending, result.ranks.len(), result.scores.len()),
        count(result.hands, "hand"),
        list(&result.scores),
        list(&result.ranks)
    )
}

/// Any event, in one line.
pub fn event(event: &Event) -> String {
    match event {
        Event::HandStart { hand, deal } => {
            let hands: Vec<String> = deal.hands.iter().map(|h| tiles(h)).collect();
            format!(
                "hand {hand} dealt, seat {} leads: {}; boneyard {}",
                deal.leader,
                hands.join(" / "),
                tiles(&deal.boneyard)
            )
        }
        Event::Play(p) => play(p),
        Event::Draw { seat, tile } => format!("seat {seat} draws {tile}"),
        Event::Pass { seat } => format!("seat {seat} passes"),
        Event::HandEnd(summary) => hand_end(summary),
        Event::GameEnd(r) => format!("the game ends: {}", result(r)),
    }
}
