//! The comparison read from tournament folders: each compared entrant's games from its
//! folder's results (checked against its definition), paired, and both logs of every pair
//! replayed through the rules engine to find where the games part.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use allfives_engine::game::Move;

use crate::compare::pairing::{self, Side};
use crate::compare::parting::{self, Choice, Parting};
use crate::compare::report::{self, Compared, Detail, PartingLine, Report, Version};
use crate::compare::summary::{Sequential, SequentialSpec};
use crate::gamelog::{self, Replay};
use crate::replay::text::{self, Paint};
use crate::replay::turn::{self, Position, Wanted};
use crate::tournament::audit;
use crate::tournament::definition::Definition;
use crate::tournament::game_logs::{LineLog, Place};

/// The partings drawn in full (the view and both games' text) in the report: the costliest.
pub const DRAWN: usize = 50;

/// A tournament folder and the entrant compared in it.
#[derive(Debug, Clone)]
pub struct Entrant {
    /// The folder.
    pub dir: PathBuf,
    /// Its definition.
    pub definition: Definition,
    /// The entrant's name.
    pub name: String,
}

impl Entrant {
    /// The entrant `name` of the folder `dir` (by default its first entrant: a gauntlet's
    /// challenger, as `compare` plays it).
    pub fn open(dir: &Path, name: Option<&str>) -> Result<Entrant, String> {
        let shown = dir.display();
        let definition = Definition::read(dir)?.ok_or_else(|| {
            format!("{shown} holds no tournament.json: name a tournament's folder (allfives tournament --out DIR, or a comparison's old/ and new/)")
        })?;
        let names: Vec<&str> = definition
            .entrants
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        let name = match name {
            None => names
                .first()
                .ok_or(format!("{shown} has no entrant"))?
                .to_string(),
            Some(name) if names.contains(&name) => name.to_string(),
            Some(name) => {
                return Err(format!(
                    "{shown} has no entrant {name:?}; its entrants are {}",
                    names.join(", ")
                ));
            }
        };
        Ok(Entrant {
            dir: dir.to_path_buf(),
            definition,
            name,
        })
    }

    fn version(&self) -> Version {
        Version {
            name: self.name.clone(),
            folder: self.dir.display().to_string(),
        }
    }
}

/// Why two folders cannot be compared, if they cannot: other rules or another master seed
/// (other deals).
pub fn comparable(old: &Entrant, new: &Entrant) -> Result<(), String> {
    let (a, b) = (&old.definition, &new.definition);
    let both = format!("{} and {}", old.dir.display(), new.dir.display());
    if a.seed != b.seed {
        return Err(format!(
            "{both} were dealt from other master seeds ({} and {}): compare folders played with the same --seed and --deal-key (or --public-seed)",
            a.seed, b.seed
        ));
    }
    if a.rules != b.rules || a.table != b.table {
        return Err(format!(
            "{both} were played under other rules or tables: their games cannot be paired"
        ));
    }
    if std::fs::canonicalize(&old.dir).ok() == std::fs::canonicalize(&new.dir).ok()
        && old.name == new.name
    {
        return Err(format!(
            "OLD and NEW are the same entrant {:?}: name two",
            old.name
        ));
    }
    Ok(())
}

/// The games of `entrant` (those without `rival` at the table), with where each log is.
fn games(
    entrant: &Entrant,
    rival: Option<&str>,
) -> Result<(Vec<Side>, HashMap<String, LineLog>), String> {
    let (mut sides, mut logs, mut bad) = (Vec::new(), HashMap::new(), None);
    audit::read_checked(&entrant.dir, &entrant.definition, false, |line| {
        if let Some(side) = pairing::side_of(&line, &entrant.name, rival) {
            match LineLog::of(&line) {
                Ok(log) => {
                    logs.insert(side.id.clone(), log);
                    sides.push(side);
                }
                Err(why) => bad = Some(format!("game {}: {why}", line.id)),
            }
        }
    })?;
    match bad {
        Some(why) => Err(format!("{}: {why}", entrant.dir.display())),
        None => Ok((sides, logs)),
    }
}

/// The sequential test over the games `old` and `new` have played so far, read from their
/// results alone (no log replayed): what `compare --sprt` checks after each round of deals.
pub fn sequential_so_far(
    old: &Entrant,
    new: &Entrant,
    spec: SequentialSpec,
) -> Result<Sequential, String> {
    comparable(old, new)?;
    let (old_sides, _) = games(old, None)?;
    let (new_sides, _) = games(new, None)?;
    // Only the per-deal differences count here: where the games part is not looked for.
    let compared = pairing::pair(old_sides, new_sides)
        .pairs
        .into_iter()
        .map(|(old, new)| Compared {
            old,
            new,
            parting: Parting::Same,
            line: None,
        })
        .collect();
    let report = report::build(old.version(), new.version(), compared, (0, 0), Some(spec));
    Ok(report.sequential.expect("the test was asked for"))
}

/// Compares `old` and `new`: every pair of their games, where it parts, the summary; the
/// costliest [`DRAWN`] partings drawn.
pub fn compare(
    old: &Entrant,
    new: &Entrant,
    sequential: Option<SequentialSpec>,
) -> Result<Report, String> {
    comparable(old, new)?;
    let one_folder = std::fs::canonicalize(&old.dir).ok() == std::fs::canonicalize(&new.dir).ok();
    let rival = |e: &Entrant| one_folder.then(|| e.name.clone());
    let (old_sides, old_logs) = games(old, rival(new).as_deref())?;
    let (new_sides, new_logs) = games(new, rival(old).as_deref())?;
    let paired = pairing::pair(old_sides, new_sides);
    let mut compared = Vec::with_capacity(paired.pairs.len());
    for (a, b) in paired.pairs {
        let old_game = replayed(old, &old_logs[&a.id], &a.id)?;
        let new_game = replayed(new, &new_logs[&b.id], &b.id)?;
        let found = parting::first(
            &parting::asked_of(&old_game),
            &parting::asked_of(&new_game),
            &a.seats,
        );
        let line = match found {
            Parting::Same => None,
            Parting::Differ { turn, .. } | Parting::Split { turn, .. } => {
                let sides = [
                    (old, &old_logs[&a.id], &a, &old_game),
                    (new, &new_logs[&b.id], &b, &new_game),
                ];
                Some(line_of(sides, turn, found)?)
            }
        };
        compared.push(Compared {
            old: a,
            new: b,
            parting: found,
            line,
        });
    }
    let mut report = report::build(
        old.version(),
        new.version(),
        compared,
        (paired.old_alone, paired.new_alone),
        sequential,
    );
    let pairs: Vec<(String, String)> = report
        .partings
        .iter()
        .take(DRAWN)
        .map(|p| (p.old_game.clone(), p.new_game.clone()))
        .collect();
    for (i, (a, b)) in pairs.into_iter().enumerate() {
        let turn = report.partings[i].turn;
        let old_game = replayed(old, &old_logs[&a], &a)?;
        let new_game = replayed(new, &new_logs[&b], &b)?;
        report.partings[i].detail = Some(detail(&old_game, &new_game, turn)?);
    }
    Ok(report)
}

/// The log of game `id` of `entrant`'s folder, replayed.
fn replayed(entrant: &Entrant, log: &LineLog, id: &str) -> Result<Replay, String> {
    let bytes = log.read(&entrant.dir)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: game {id}'s log is not UTF-8", entrant.dir.display()))?;
    gamelog::replay(&text).map_err(|e| {
        format!(
            "{}: game {id}'s log does not check out: {e}",
            entrant.dir.display()
        )
    })
}

/// A side of a parting: its folder, log, game and replay.
type Seen<'a> = (&'a Entrant, &'a LineLog, &'a Side, &'a Replay);

/// The parting line of decision `turn` of both games (its points filled by the report).
fn line_of(sides: [Seen<'_>; 2], turn: u32, found: Parting) -> Result<PartingLine, String> {
    let [old, new] = sides.map(|(entrant, log, side, game)| {
        let position = turn::position(game, Wanted::Turn(turn), None)
            .ok()
            .map(|(p, _)| p);
        let choice = position.as_ref().and_then(|p| choice_of(p, p.played));
        let said = match (&position, position.as_ref().and_then(|p| p.played)) {
            (Some(p), Some(mv)) => p.describe(mv),
            _ => "no move (the game ended or was forfeited here)".to_string(),
        };
        let info = position.as_ref().and_then(|p| p.decision.info.clone());
        (choice, said, info, replay_command(entrant, log, side, turn))
    });
    let signature = match found {
        Parting::Differ { .. } => parting::signature(old.0, new.0),
        _ => String::new(),
    };
    let seat = match found {
        Parting::Differ { seat, .. } | Parting::Split { seat, .. } => seat,
        Parting::Same => 0,
    };
    Ok(PartingLine {
        deal: sides[0].2.deal,
        old_game: sides[0].2.id.clone(),
        new_game: sides[1].2.id.clone(),
        turn,
        seat,
        points: 0.0,
        deal_points: 0.0,
        signature,
        old_move: old.1,
        new_move: new.1,
        old_info: old.2,
        new_info: new.2,
        old_replay: old.3,
        new_replay: new.3,
        detail: None,
    })
}

/// What `played` was, at `position`: its tile and points.
fn choice_of(position: &Position, played: Option<Move>) -> Option<Choice> {
    let mv = played?;
    let view = position.game.view(position.seat);
    let points = view
        .legal
        .iter()
        .find(|c| c.to_move() == mv)
        .map_or(0, |c| c.points);
    Some(Choice {
        tile: mv.tile,
        points,
    })
}

/// The command that shows a game at decision `turn`: its log file, or its folder and id.
fn replay_command(entrant: &Entrant, log: &LineLog, side: &Side, turn: u32) -> String {
    match &log.place {
        Place::File(file) => format!(
            "allfives replay {} --turn {turn}",
            quoted(&entrant.dir.join(file))
        ),
        Place::Packed(..) => format!(
            "allfives replay {} --game {} --turn {turn}",
            quoted(&entrant.dir),
            side.id
        ),
    }
}

/// A path as a shell word.
fn quoted(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c));
    match plain {
        true => text,
        false => format!("'{}'", text.replace('\'', r"'\''")),
    }
}

/// Both games drawn at decision `turn`.
fn detail(old: &Replay, new: &Replay, turn: u32) -> Result<Detail, String> {
    let drawn = |game: &Replay| -> Result<(String, String), String> {
        let (position, _) = turn::position(game, Wanted::Turn(turn), None)?;
        let names: Vec<String> = game.header.seats.iter().map(|s| s.bot.clone()).collect();
        let view = String::from_utf8_lossy(&position.message())
            .trim_end()
            .to_string();
        Ok((view, text::decision(&position, turn, &names, &Paint(false))))
    };
    let (view, old_text) = drawn(old)?;
    let (_, new_text) = drawn(new)?;
    Ok(Detail {
        view,
        old_text,
        new_text,
    })
}
