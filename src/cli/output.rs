//! What the match command prints: a match's result as text or JSON (replays print through
//! [`crate::replay`]).

use std::fmt::Write;

use crate::referee::game::GameRecord;
use crate::referee::matchplay::{MatchConfig, MatchReport, fault_summary};
use allfives_engine::game::GameEnding;

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
        "{:<width$}  games  wins  draws  losses  points  mean rank  mean ms  slowest ms  faults",
        "bot"
    );
    for t in &report.totals {
        let _ = writeln!(
            text,
            "{:<width$}  {:>5}  {:>4}  {:>5}  {:>6}  {:>6}  {:>9.2}  {:>7.2}  {:>10.2}  {}",
            t.bot,
            t.games,
            t.wins,
            t.draws,
            t.losses,
            t.points,
            t.mean_rank,
            t.stats.mean_ms,
            t.stats.slowest_ms,
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
