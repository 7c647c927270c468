//! What the commands print: a match's result as text or JSON, and a replayed game as text.

use std::fmt::Write;

use crate::gamelog::Replay;
use crate::referee::game::GameRecord;
use crate::referee::matchplay::{MatchConfig, MatchReport, fault_summary};
use allfives_engine::game::{Event, GameEnding, HandEnding, Play};

/// The opening line of a match.
pub fn match_banner(config: &MatchConfig) -> String {
    let names: Vec<&str> = config.bots.iter().map(|b| b.name.as_str()).collect();
    format!(
        "allfives match: {} ({} game{}), seed {}\nrules: {}",
        names.join(" vs "),
        config.games,
        if config.games == 1 { "" } else { "s" },
        config.seed,
        config.rules
    )
}

/// One line for a finished game.
pub fn game_line(config: &MatchConfig, record: &GameRecord) -> String {
    let rules = &config.rules;
    let mut sides: Vec<String> = Vec::new();
    for side in 0..rules.sides() {
        let members: Vec<&str> = (0..rules.players)
            .filter(|&seat| rules.side_of(seat) == side)
            .map(|seat| config.bots[record.seating[seat]].name.as_str())
            .collect();
        sides.push(format!(
            "{} {}",
            members.join("+"),
            record.result.scores[side]
        ));
    }
    let winners: Vec<&str> = (0..rules.players)
        .filter(|&seat| record.result.ranks[seat] == 1)
        .map(|seat| config.bots[record.seating[seat]].name.as_str())
        .collect();
    let ending = match record.result.ending {
        GameEnding::Target { .. } => "target reached".to_string(),
        GameEnding::MaxHands => "hand limit".to_string(),
        GameEnding::Forfeit { seat } => {
            let why = record
                .forfeit
                .as_ref()
                .map(|f| f.fault.to_string())
                .unwrap_or_default();
            format!("{} forfeits: {why}", config.bots[record.seating[seat]].name)
        }
    };
    let mut line = format!(
        "game {}: {} after {} hand{} ({}); first: {}",
        record.game,
        sides.join(", "),
        record.result.hands,
        if record.result.hands == 1 { "" } else { "s" },
        ending,
        winners.join(", ")
    );
    if let Some(log) = &record.log {
        let _ = write!(line, "\n  log: {log}");
    }
    line
}

/// The closing table of a match.
pub fn match_table(report: &MatchReport) -> String {
    let mut text = String::new();
    let width = report
        .totals
        .iter()
        .map(|t| t.bot.len())
        .max()
        .unwrap_or(3)
        .max(3);
    let _ = writeln!(
        text,
        "{:<width$}  games  wins  draws  losses  points  mean rank  mean ms  median ms  p99 ms  slowest ms  faults",
        "bot"
    );
    for t in &report.totals {
        let time = t.stats.timing.summary();
        let _ = writeln!(
            text,
            "{:<width$}  {:>5}  {:>4}  {:>5}  {:>6}  {:>6}  {:>9.2}  {:>7.2}  {:>9.2}  {:>6.2}  {:>10.2}  {}",
            t.bot,
            t.games,
            t.wins,
            t.draws,
            t.losses,
            t.points,
            t.mean_rank,
            time.mean_ms,
            time.median_ms,
            time.p99_ms,
            time.slowest_ms,
            fault_summary(&t.stats)
        );
    }
    let best = report.totals.iter().max_by_key(|t| (t.wins, t.points));
    let tied = best.is_some_and(|b| {
        report
            .totals
            .iter()
            .filter(|t| (t.wins, t.points) == (b.wins, b.points))
            .count()
            > 1
    });
    match best {
        Some(b) if !tied => {
            let _ = write!(
                text,
                "winner: {} ({} of {} games won)",
                b.bot, b.wins, b.games
            );
        }
        _ => text.push_str("winner: none (level)"),
    }
    text
}

/// A replayed game, hand by hand.
pub fn replay_text(replay: &Replay) -> String {
    let names: Vec<&str> = replay.header.seats.iter().map(|s| s.bot.as_str()).collect();
    let who = |seat: usize| format!("seat {seat} ({})", names.get(seat).unwrap_or(&"?"));
    let mut text = format!(
        "game {} seed {}: {}\nrules: {}\n",
        replay.header.game,
        replay.header.seed,
        names.join(" vs "),
        replay.header.rules
    );
    let mut decisions = replay.decisions.iter();
    for event in replay.game.events() {
        let _ = match event {
            Event::HandStart { hand, deal } => {
                let _ = writeln!(text, "hand {hand}: {} leads", who(deal.leader));
                for (seat, tiles) in deal.hands.iter().enumerate() {
                    let _ = writeln!(text, "  {} holds {tiles:?}", who(seat));
                }
                writeln!(text, "  boneyard {:?}", deal.boneyard)
            }
            Event::Play(Play {
                seat,
                tile,
                end,
                sum,
                points,
            }) => {
                let how = match decisions.next() {
                    Some((_, _, d)) if d.forced => " (no choice)".to_string(),
                    Some((_, _, d)) if d.fallback => " (fallback after a fault)".to_string(),
                    Some((_, _, d)) => d
                        .time_us
                        .map(|t| format!(" ({:.3} ms)", t as f64 / 1000.0))
                        .unwrap_or_default(),
                    None => String::new(),
                };
                let place = end.map_or("leads".to_string(), |e| format!("on {e}"));
                let scored = if *points > 0 {
                    format!(", scores {points}")
                } else {
                    String::new()
                };
                writeln!(
                    text,
                    "  {} plays {tile} {place}: sum {sum}{scored}{how}",
                    who(*seat)
                )
            }
            Event::Draw { seat, tile } => writeln!(text, "  {} draws {tile}", who(*seat)),
            Event::Pass { seat } => writeln!(text, "  {} passes", who(*seat)),
            Event::HandEnd(summary) => {
                let how = match summary.ending {
                    HandEnding::WentOut { seat } => format!("{} went out", who(seat)),
                    HandEnding::Blocked => "blocked".to_string(),
                };
                writeln!(
                    text,
                    "  hand over, {how}; left {:?}; points {:?}; scores {:?}",
                    summary.pips, summary.points, summary.scores
                )
            }
            Event::GameEnd(result) => writeln!(
                text,
                "game over ({:?}): scores {:?}, ranks {:?}",
                result.ending, result.scores, result.ranks
            ),
        };
    }
    for fault in &replay.faults {
        let _ = writeln!(text, "fault: {} {}", who(fault.seat), fault.fault);
    }
    if replay.end.is_none() {
        text.push_str("the log stops before the game's end (the referee was stopped)\n");
    }
    text
}
