//! The command line that plays a tournament again from its definition: the same entrants in
//! the same order, format, table, deals, seed, rules, clocks, fault policy and test.

use crate::text::shell_word;
use crate::tournament::definition::Definition;
use crate::tournament::results::setting_words;

/// `allfives tournament ...` for `definition` (entrants with a `dir` or `env` need a bots file
/// with the same; the containment options are the machine's, and are not part of it). A
/// ladder's retired entrants are left out; its tables are drawn as games finish, so the command
/// plays the same budget, not always the same tables.
pub fn tournament_command(d: &Definition) -> String {
    let mut words: Vec<String> = vec!["allfives".into(), "tournament".into()];
    words.extend(
        d.entrants
            .iter()
            .filter(|e| !d.retired.contains(&e.name))
            .map(|e| shell_word(&format!("{}={}", e.name, e.command))),
    );
    words.push(format!("--players {}", d.table.players));
    words.push(format!("--format {}", d.format.name()));
    if let Some(ladder) = &d.ladder {
        words.extend(ladder.games.map(|n| format!("--games {n}")));
        words.extend(ladder.games_each.map(|n| format!("--games-each {n}")));
        if ladder.matchmaking {
            words.push("--matchmaking".into());
        }
    }
    if d.table.splits {
        words.push("--splits".into());
    }
    if d.table.all_orders {
        words.push("--all-orders".into());
    }
    // A ladder plays each table on a deal of its own: it takes no --deals.
    if d.ladder.is_none() {
        words.push(format!("--deals {}", d.deals));
    }
    // The master itself, taken as it is: the key that made it is needed no more.
    words.push(format!("--seed {} --public-seed", d.seed));
    words.extend(setting_words(
        &d.rules,
        &d.clock,
        d.clock_kind,
        d.on_fault,
        d.max_line,
    ));
    if let Some(s) = &d.sprt {
        words.push(format!(
            "--sprt elo0={},elo1={},alpha={},beta={}",
            s.elo0, s.elo1, s.alpha, s.beta
        ));
    }
    if let Some((i, n)) = d.shard {
        words.push(format!("--shard {i}/{n}"));
    }
    words.join(" ")
}
