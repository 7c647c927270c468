//! What the match command prints: a match's result as text or JSON (replays print through
//! [`crate::replay`]).

use std::fmt::Write;
use std::io::{self, Write as _};

use std::collections::BTreeMap;

use crate::bot::fault::{FaultKind, wrote};
use crate::bot::lifetime::Processes;
use crate::bot::player::BotSpec;
use crate::cli::exit::say;
use crate::gamelog::describe::count;
use crate::referee::matchplay::MatchConfig;
use crate::text::fixed;
use crate::tournament::ratings::Sprt;
use crate::tournament::ratings::batch::{FEW_GAMES, PROVISIONAL_RATIO, Reason, WIDEST_RATED};
use crate::tournament::ratings::identified::{FIT_ENTRANTS, Unfixed};
use crate::tournament::ratings::sprt::Hypothesis;
use crate::tournament::report_stream::{self, Report};
use crate::tournament::results::GameLine;
use crate::tournament::schedule::Format;
use crate::tournament::seeds::Master;
use crate::tournament::standings::{Criterion, NoWinner, Row, Standings};
use allfives_engine::game::GameEnding;

/// Writes `text` and a newline to stdout, flushed: a closed or full stdout is an error for the
/// caller to report, never a panic. Each line is made safe for a terminal on the way out (names
/// and faults' details come from bots and from files a user may have edited).
pub fn print_line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    for line in text.split('\n') {
        writeln!(out, "{}", crate::text::terminal(line))?;
    }
    out.flush()
}

/// The opening line of a match.
pub fn match_banner(config: &MatchConfig, master: &Master) -> String {
    let names: Vec<&str> = config.bots.iter().map(|b| b.name.as_str()).collect();
    let mut banner = format!(
        "allfives match: {} ({} game{}), {}\nrules: {}",
        names.join(" vs "),
        config.plan.len(),
        if config.plan.len() == 1 { "" } else { "s" },
        master.describe(),
        config.settings.rules
    );
    if config.plan.len() > 1 && config.bots.iter().any(BotSpec::is_process) {
        banner.push_str("\nprocesses: ");
        banner.push_str(match config.settings.processes {
            Processes::UnseenDeals => {
                "a bot's process never plays a deal twice: each seat arrangement has a process of \
                 its own (up to 4 a bot), kept from game to game"
            }
            Processes::Fresh => "a new one for every game (--fresh)",
            Processes::Reused => {
                "kept from game to game, deals seen before included (--reuse-processes: a bot \
                 that remembers a deal knows its opponent's hand when the seats turn)"
            }
        });
    }
    banner
}

/// One line for a finished game.
pub fn game_line(line: &GameLine) -> String {
    let sides: Vec<String> = line
        .sides()
        .iter()
        .enumerate()
        .map(|(side, seats)| {
            let members: Vec<&str> = seats.iter().map(|&s| line.seats[s].name.as_str()).collect();
            format!("{} {}", members.join("+"), line.scores[side])
        })
        .collect();
    let winners: Vec<&str> = line
        .seats
        .iter()
        .filter(|s| s.rank == 1)
        .map(|s| s.name.as_str())
        .collect();
    let ending = match line.ending {
        GameEnding::Target { .. } => "target reached".to_string(),
        GameEnding::MaxHands => "hand limit".to_string(),
        GameEnding::Forfeit { seat } => {
            let why = line
                .faults
                .iter()
                .find(|f| f.forfeit)
                .map(|f| {
                    let detail = crate::text::terminal(&f.detail);
                    let at = f.turn.map_or(String::new(), |t| {
                        format!(" at --turn {t} (seat {})", f.seat)
                    });
                    (
                        at,
                        format!("{}: {detail}{}", f.kind, wrote(f.input.as_deref())),
                    )
                })
                .unwrap_or_default();
            format!("{} forfeits{}: {}", line.seats[seat].name, why.0, why.1)
        }
    };
    let mut text = format!(
        "game {}: {} after {} hand{} ({}); first: {}",
        line.id,
        sides.join(", "),
        line.hands,
        if line.hands == 1 { "" } else { "s" },
        ending,
        winners.join(", ")
    );
    for seat in line.seats.iter().filter(|s| !s.probed.is_empty()) {
        let probed = crate::sandbox::probes::describe(&seat.probed);
        let _ = write!(text, "\n  {} probed: {probed}", seat.name);
    }
    if let Some(log) = &line.log {
        let _ = write!(text, "\n  log: {log}");
    }
    text
}

/// What the starred time columns are: histogram buckets keep percentiles of any number of moves
/// in a fixed space, at the cost of exactness.
pub const TIMES_NOTE: &str = "* upper bounds: the top of the time's histogram bucket, up to 19% \
     above it; each game's log has every move's exact time (time_us)";

/// The standings of a report: the table per entrant, teams, crosstable, ratings, the winner;
/// the Elo line of every pair of entrants with `pairs` (always with two entrants).
pub fn standings_text(report: &Report, pairs: bool) -> String {
    let s = &report.standings;
    let mut text = table_text(s);
    text.push_str(&run_notes(report));
    text.push_str(&teams_text(s));
    if s.entrants.len() > 2 && !s.crosstable.is_empty() {
        text.push_str(&crosstable(s));
    }
    text.push_str(&pairs_text(s, pairs));
    text.push_str(&ratings_text(s));
    if let Some(t) = &s.sprt {
        text.push_str(&sprt_text(t));
    }
    if s.unfinished_sets > 0 {
        let _ = writeln!(
            text,
            "unfinished sets: {} ({}), counted in the table but not rated",
            s.unfinished_sets,
            count(s.unfinished_games, "game")
        );
    }
    text.push_str(&ending_text(report));
    text
}

/// The table of entrants, best first by the winner's criterion.
fn table_text(s: &Standings) -> String {
    let mut text = String::new();
    let width = name_width(s, 4);
    let _ = writeln!(
        text,
        "{:<width$}  games  wins  draws  losses  score %  mean rank  pts for  pts against  mean ms  median ms*  p99 ms*  slowest ms*  faults",
        "name"
    );
    let rows: Vec<&Row> = match s.order.len() == s.entrants.len() {
        true => s.order.iter().map(|&e| &s.entrants[e]).collect(),
        // Standings read from an older report, without an order.
        false => s.entrants.iter().collect(),
    };
    for r in rows {
        let _ = writeln!(
            text,
            "{:<width$}  {:>5}  {:>4}  {:>5}  {:>6}  {:>7}  {:>9}  {:>7}  {:>11}  {:>7}  {:>10}  {:>7}  {:>11}  {}",
            r.name,
            r.games,
            r.wins,
            r.draws,
            r.losses,
            fixed(r.score_pct, 1),
            fixed(r.mean_rank, 2),
            fixed(r.points_for, 1),
            fixed(r.points_against, 1),
            fixed(r.mean_ms, 2),
            fixed(r.median_ms, 2),
            fixed(r.p99_ms, 2),
            fixed(r.slowest_ms, 2),
            faults(&r.faults)
        );
    }
    let _ = writeln!(text, "{TIMES_NOTE}");
    text
}

/// What the standings must say about how the games were played: a public seed, retired
/// entrants, reused processes, each entrant's last fault.
fn run_notes(report: &Report) -> String {
    let s = &report.standings;
    let mut text = String::new();
    let retired: Vec<&str> = report
        .entrants
        .iter()
        .filter(|e| e.retired)
        .map(|e| e.name.as_str())
        .collect();
    if report.public_seed {
        let _ = writeln!(
            text,
            "public seed {}: these games were dealt by public formulas (--public-seed), so the bots could have computed every deal",
            report
                .seed
                .map_or("(several)".to_string(), |s| s.to_string())
        );
    }
    if !retired.is_empty() {
        let _ = writeln!(
            text,
            "retired (no longer drawn, their games kept): {}",
            retired.join(", ")
        );
    }
    if s.reused_processes > 0 {
        let _ = writeln!(
            text,
            "{} played with --reuse-processes: a bot's process may have played a deal before, \
             in another seat, and known its opponent's hand (trusted bots only)",
            count(s.reused_processes, "game")
        );
    }
    for r in s.entrants.iter() {
        if let Some(fault) = &r.last_fault {
            let _ = writeln!(
                text,
                "{}'s last fault: {}",
                r.name,
                crate::text::terminal(fault)
            );
        }
        if !r.probed.is_empty() {
            let _ = writeln!(
                text,
                "{} probed: {} (calls honest bots never make, refused; docs/fair-play.md)",
                r.name,
                crate::sandbox::probes::describe(&r.probed)
            );
        }
    }
    text
}

/// Each team's results, if the games were played in partnerships.
fn teams_text(s: &Standings) -> String {
    let mut text = String::new();
    if !s.teams.is_empty() {
        text.push_str("teams:\n");
        for t in &s.teams {
            let _ = writeln!(
                text,
                "  {}: {}, {} won, {} level, {} lost, score {}%, {} points",
                t.names.join("+"),
                count(t.games, "game"),
                t.wins,
                t.draws,
                t.losses,
                fixed(t.score_pct, 1),
                t.points
            );
        }
    }
    text
}

/// The Elo of each pair: of two entrants always, of more only with `pairs`.
fn pairs_text(s: &Standings, pairs: bool) -> String {
    let mut text = String::new();
    // Every pair of 30 entrants would be 435 lines: only two entrants' or on request.
    let pair_lines = if s.entrants.len() <= 2 || pairs {
        &s.elo[..]
    } else {
        &[]
    };
    for e in pair_lines {
        let elo = match (e.elo, e.interval) {
            (Some(x), Some((lo, hi))) => {
                format!("{} [{}, {}] (95%)", signed(x), signed(lo), signed(hi))
            }
            (Some(x), None) => signed(x),
            (None, _) => "unbounded (one side won every pair)".to_string(),
        };
        let los = e
            .los
            .map_or(String::new(), |l| format!(", LOS {}%", fixed(l * 100.0, 1)));
        let _ = writeln!(
            text,
            "elo {} vs {}: {elo}{los}; pairs scoring 0, 0.5, 1, 1.5, 2: {:?}",
            e.first, e.second, e.pentanomial
        );
    }
    text
}

/// The winner (or a gauntlet's summary), and why the standings are not final, if they are not.
fn ending_text(report: &Report) -> String {
    let s = &report.standings;
    let mut text = String::new();
    let gauntlet = report.tournament_format == Some(Format::Gauntlet);
    match gauntlet {
        true => text.push_str(&challenger_text(s)),
        false => text.push_str(&winner_text(s)),
    }
    let decided = s.sprt.as_ref().is_some_and(|t| t.decided.is_some());
    match (report.complete, decided) {
        (true, _) => {}
        (false, true) => text.push_str(
            "\nstopped by the sequential test: the games left were not played (those running when it decided are counted above)",
        ),
        (false, false) => text.push_str(
            "\nincomplete: not every scheduled game is played; these are the standings so far",
        ),
    }
    text
}

/// The winner by its criterion, or why there is none.
fn winner_text(s: &Standings) -> String {
    let w = &s.winner;
    let rated = &s.ratings.entrants;
    let reason = match w.none {
        None => None,
        Some(NoWinner::NoGames) => return "winner: none (no games)".to_string(),
        Some(NoWinner::Level) => Some(format!("level at {}%", fixed(w.score_pct, 1))),
        Some(NoWinner::NotRated) => Some("no rating yet: no complete set".to_string()),
        Some(NoWinner::NotComparable) if rated.is_empty() => Some(format!(
            "no entrant rated: the {} fix no rating (below)",
            count(s.complete_sets, "complete set")
        )),
        Some(NoWinner::NotComparable) => Some(format!(
            "{} not rated against the rest: the games do not compare everyone",
            count(
                s.entrants.iter().filter(|r| r.games > 0).count() as u64 - rated.len() as u64,
                "entrant"
            )
        )),
        Some(NoWinner::NotSeparated) => Some(format!(
            "{} {} and {} {} are not separated at 95%",
            rated[0].name,
            signed(rated[0].elo),
            rated[1].name,
            signed(rated[1].elo)
        )),
    };
    let by = match w.by {
        Criterion::Score => "by score",
        Criterion::Rating => "by rating",
    };
    if let Some(reason) = reason {
        return format!("winner: none {by} ({reason})");
    }
    let names = w.names.join("+");
    let score = fixed(w.score_pct, 1);
    match (w.by, w.elo) {
        (Criterion::Rating, Some(elo)) => {
            let ahead = rated
                .get(1)
                .map_or(String::new(), |r| format!(", ahead of {} at 95%", r.name));
            format!(
                "winner by rating: {names} ({} Elo{ahead}; {score}% score)",
                signed(elo)
            )
        }
        _ => format!("winner by score: {names} ({score}%; everyone met everyone equally)"),
    }
}

/// A gauntlet's summary: its challenger (the first entrant) against each opponent.
fn challenger_text(s: &Standings) -> String {
    let Some(challenger) = s.entrants.first() else {
        return "challenger: none".to_string();
    };
    let mut text = format!("challenger {} against each opponent:", challenger.name);
    for (other, cell) in s.crosstable[0].iter().enumerate() {
        let Some(cell) = cell else {
            continue;
        };
        let name = &s.entrants[other].name;
        let elo = s
            .elo
            .iter()
            .find(|e| (e.first == challenger.name) && e.second == *name)
            .and_then(|e| e.elo)
            .or_else(|| {
                s.elo
                    .iter()
                    .find(|e| e.first == *name && e.second == challenger.name)
                    .and_then(|e| e.elo.map(|x| -x))
            })
            .map_or(String::new(), |x| format!(", elo {}", signed(x)));
        let _ = write!(
            text,
            "\n  vs {name}: {}% over {} games{elo}",
            fixed(100.0 * cell.score / cell.games as f64, 1),
            cell.games
        );
    }
    text
}

/// The batch ratings as a table, best first, with which neighbours are separated at 95%; then
/// the entrants the games do not rate, with why.
fn ratings_text(s: &Standings) -> String {
    if s.ratings.entrants.is_empty() && s.ratings.not_rated.is_empty() {
        return String::new();
    }
    let width = name_width(s, 4);
    let mut text = format!(
        "ratings (Elo fitted to all complete sets; 95% interval; '>' = stronger than the next at 95%, '~' = not separated):\n{:>4}  {:<width$}  {:>8}  {:>20}  {:>8}\n",
        "rank", "name", "elo", "95% interval", "los next"
    );
    for (place, r) in s.ratings.entrants.iter().enumerate() {
        let interval = r.interval.map_or("-".to_string(), |(lo, hi)| {
            format!("[{}, {}]", signed(lo), signed(hi))
        });
        let next = match (r.los_next, r.separated_from_next) {
            (Some(los), Some(true)) => format!("{:>7}% >", fixed(los * 100.0, 1)),
            (Some(los), _) => format!("{:>7}% ~", fixed(los * 100.0, 1)),
            (None, _) => String::new(),
        };
        let (mark, why) = match r.reason {
            Some(Reason::FewGames) => ("?", "  provisional: few games"),
            Some(Reason::WideInterval) => ("?", "  provisional: wide interval"),
            Some(Reason::FewDeals) => ("?", "  provisional: few deals"),
            None => (" ", ""),
        };
        let _ = writeln!(
            text,
            "{:>4}  {:<width$}  {:>8}{mark} {interval:>20}  {next}{why}",
            place + 1,
            r.name,
            signed(r.elo)
        );
    }
    text.push_str(&not_rated_text(s));
    if s.ratings
        .entrants
        .iter()
        .any(|r| r.reason == Some(Reason::FewDeals))
    {
        text.push_str("  ? few deals: too few deals (or, in a ladder, tables) to estimate how a deal's games vary together, so no sound interval; the intervals shown are the model's, as if every game were independent\n");
    }
    if s.ratings.entrants.iter().any(|r| r.provisional) {
        let _ = writeln!(
            text,
            "  ? provisional: fewer than {FEW_GAMES} games, too few deals, or no interval yet, or one more than {} times as wide as the median or wider than +-{WIDEST_RATED} Elo",
            PROVISIONAL_RATIO
        );
    }
    if s.ratings.prior {
        text.push_str("  (some entrant won or lost every game against the rest: one virtual draw between every two sides that met keeps the ratings finite)\n");
    }
    text
}

/// The entrants that played a complete set whose rating the games do not fix, with why: those
/// of a comparable set apart on one line.
fn not_rated_text(s: &Standings) -> String {
    let width = name_width(s, 4);
    let mut apart: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    let mut text = String::new();
    let count = s
        .ratings
        .not_rated
        .iter()
        .filter(|n| n.reason == Unfixed::TooMany)
        .count();
    if count > 0 {
        let _ = writeln!(
            text,
            "{:>4}  {count} entrants not rated: one comparable set of {count}, more than the {FIT_ENTRANTS} one fit rates (docs/results.md)",
            "-"
        );
    }
    for n in &s.ratings.not_rated {
        let why = match n.reason {
            Unfixed::NeverMet => {
                apart.entry(n.comparable_set).or_default().push(&n.name);
                continue;
            }
            Unfixed::TooMany => continue,
            Unfixed::PartnersTogether => format!(
                "always partnered with {}: only their team's rating is fixed",
                n.partners.join(", ")
            ),
            Unfixed::TeamsConfounded => {
                "its teams varied too little to tell it from its partners".to_string()
            }
        };
        let _ = writeln!(text, "{:>4}  {:<width$}  not rated: {why}", "-", n.name);
    }
    for (set, names) in apart {
        let _ = writeln!(
            text,
            "{:>4}  {}  not rated: never met the rated entrants, even through others (comparable set {} of {})",
            "-",
            names.join(", "),
            set + 1,
            s.ratings.comparable_sets
        );
    }
    text
}

/// The sequential test's lines: its decision (final once taken) and the LLR over every pair.
fn sprt_text(t: &Sprt) -> String {
    let test = format!(
        "sprt elo0={} elo1={} alpha={} beta={}",
        t.elo0, t.elo1, t.alpha, t.beta
    );
    match t.decided {
        Some(d) => {
            let (side, bound) = match d.accepted {
                Hypothesis::H0 => ("<=", t.lower),
                Hypothesis::H1 => (">=", t.upper),
            };
            format!(
                "{test}: {} accepted at pair {} (llr {:.3} {side} {:.3}); over all {} pairs llr {:.3}\n",
                d.accepted.name(),
                d.pair,
                d.llr,
                bound,
                t.pairs,
                t.llr
            )
        }
        None => format!(
            "{test}: undecided after {} pairs, llr {:.3} between {:.3} and {:.3}\n",
            t.pairs, t.llr, t.lower, t.upper
        ),
    }
}

/// An Elo figure with its sign and one decimal, rounded as the report page rounds it; never
/// "-0.0".
fn signed(elo: f64) -> String {
    let shown = fixed(elo, 1);
    match shown.strip_prefix('-') {
        Some(zero) if zero.bytes().all(|b| b == b'0' || b == b'.') => format!("+{zero}"),
        Some(_) => shown,
        None => format!("+{shown}"),
    }
}

/// Each entrant's score against each other, in percent.
fn crosstable(s: &Standings) -> String {
    let width = name_width(s, 6);
    let mut text = format!("{:<width$}", "vs");
    for r in &s.entrants {
        let _ = write!(text, "  {:>width$}", r.name);
    }
    text.push('\n');
    for (i, row) in s.crosstable.iter().enumerate() {
        let _ = write!(text, "{:<width$}", s.entrants[i].name);
        for cell in row {
            let shown = cell.map_or("-".to_string(), |c| {
                format!("{}%", fixed(100.0 * c.score / c.games as f64, 1))
            });
            let _ = write!(text, "  {shown:>width$}");
        }
        text.push('\n');
    }
    text
}

/// The width of the names' column: the longest name, at least `least`.
fn name_width(s: &Standings, least: usize) -> usize {
    s.entrants
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(0)
        .max(least)
}

/// Faults by kind, as "timeout 2, illegal 1".
fn faults(faults: &BTreeMap<FaultKind, u64>) -> String {
    if faults.is_empty() {
        return "none".to_string();
    }
    faults
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Prints a report: as pretty JSON with `json`, else as the standings' text; then, on stderr,
/// what a verified report stands on.
pub fn print_report(report: &Report, json: bool, pairs: bool) -> std::io::Result<()> {
    match json {
        // Pretty JSON has no character that `print_line` would escape: it is written as it is.
        true => report_stream::write_report(io::stdout().lock(), report)?,
        false => print_line(&standings_text(report, pairs))?,
    }
    // Said once the report is out (`standings --verify`): what its figures stand on.
    if let Some(verified) = &report.verified {
        say(format_args!("allfives: {}", verified.sentence()));
    }
    Ok(())
}
