//! The standings of several folders that hold slices of one tournament (its shards, each
//! once, or the whole run alone): [`Shards::read`] checks that they are, [`Shards::standings`]
//! reads every line, checked against its folder's definition (and its log, if asked), into one
//! report. Nothing here prints: lines and notes go to a [`Sink`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::text;
use crate::tournament::audit::{self, Verified};
use crate::tournament::decision;
use crate::tournament::definition::{self, Definition};
use crate::tournament::ladder::queue::Ladder;
use crate::tournament::ratings::SprtSpec;
use crate::tournament::ratings::sprt::Decision;
use crate::tournament::report_stream::Report;
use crate::tournament::results::Entrant;
use crate::tournament::run::{AnchorAsk, Event, Sink};
use crate::tournament::schedule::Format;
use crate::tournament::standings::Tally;

/// Folders that hold slices of one tournament, with their definitions.
#[derive(Debug)]
pub struct Shards {
    /// The folders, as given.
    pub dirs: Vec<PathBuf>,
    /// Each folder's definition.
    pub definitions: Vec<Definition>,
    /// The shards of the tournament that no folder holds (`I/N`).
    pub missing: Vec<String>,
}

impl Shards {
    /// Reads each folder's definition and checks that they are slices of one tournament: the
    /// same definition but for the shard, no folder twice, no shard twice, the whole run only
    /// alone.
    pub fn read(dirs: &[PathBuf]) -> Result<Shards, String> {
        let definitions: Vec<Definition> = dirs
            .iter()
            .map(|dir| {
                Definition::read(dir)?.ok_or_else(|| {
                    format!(
                        "{} holds no tournament ({} is missing)",
                        dir.display(),
                        definition::FILE
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        let missing = slices_of_one(dirs, &definitions)?;
        Ok(Shards {
            dirs: dirs.to_vec(),
            definitions,
            missing,
        })
    }

    /// The definition that names every entrant: a ladder's shards may have taken newcomers
    /// apart, and the longest list of entrants names all.
    pub fn first(&self) -> &Definition {
        self.definitions
            .iter()
            .rev()
            .max_by_key(|d| d.entrants.len())
            .expect("standings reads one folder at least")
    }

    /// The decision of test `sprt` stored in the one folder given; several folders are refused:
    /// a test decides in the order one run recorded its pairs, and shards have no such order.
    fn stored_decision(&self, sprt: &SprtSpec) -> Result<Option<Decision>, String> {
        match &self.dirs[..] {
            [dir] => decision::read(dir, sprt),
            _ => Err(format!(
                "--sprt reads one tournament folder, not {}: a sequential test decides in the order one run recorded its pairs, and shards have no such order",
                self.dirs.len()
            )),
        }
    }

    /// The games scheduled in all (a ladder's: its budget in games, when it has one).
    pub fn scheduled(&self) -> u64 {
        self.definitions
            .iter()
            .map(|d| match &d.ladder {
                Some(ladder) => ladder.games.unwrap_or(0),
                None => d.schedule().count(d.shard),
            })
            .sum()
    }

    /// The standings of every folder's lines, each checked against its definition (and its log,
    /// with `verify`) and told to `sink` as [`Event::Found`]; `sprt` is the test asked for here,
    /// else the one the tournament ran. Missing shards are a note, and the report is then
    /// incomplete.
    pub fn standings(
        &self,
        verify: bool,
        sprt: Option<SprtSpec>,
        anchor: &AnchorAsk,
        sink: &mut impl Sink,
    ) -> Result<Report, String> {
        let first = self.first();
        let names: Vec<String> = first.entrants.iter().map(|e| e.name.clone()).collect();
        let sprt = sprt.or(first.sprt);
        if sprt.is_some() {
            SprtSpec::applies_to(names.len(), first.table.players)?;
        }
        let anchor = anchor.of(&names)?;
        let stored = match &sprt {
            Some(asked) => self.stored_decision(asked)?,
            None => None,
        };
        // Read, not played: the history's fits may take the second core.
        let mut tally = Tally::new(names, first.schedule().set_size(), sprt)
            .anchored(anchor)
            .sprt_decided(stored)
            .history_apart();
        let mut complete = self.missing.is_empty();
        let mut unfinished = Vec::new();
        let mut ids = HashSet::new();
        let mut verified = Verified::default();
        for (folder, (dir, d)) in self.dirs.iter().zip(&self.definitions).enumerate() {
            let mut twice = None;
            let mut ladder = (d.format == Format::Ladder).then(|| Ladder::new(d));
            let audited = audit::read_checked(dir, d, verify, |line| {
                if let Some(ladder) = ladder.as_mut() {
                    ladder.found(&line);
                }
                if ids.insert(line.id.clone()) {
                    tally.add(&line);
                    sink.event(Event::Found {
                        folder,
                        line: &line,
                        tally: &tally,
                    });
                } else {
                    twice.get_or_insert(line.id);
                }
            })?;
            verified.add(audited.verified);
            if let Some(id) = twice {
                return Err(format!(
                    "game {id} of {} is in another folder too: give each shard once",
                    dir.display()
                ));
            }
            audited
                .notes
                .iter()
                .for_each(|n| sink.event(Event::Note(n)));
            let finished = match ladder.as_mut() {
                Some(ladder) => ladder.finish_found() == 0 && ladder.budget_spent(),
                None => audited.counted == d.schedule().count(d.shard),
            };
            if !finished {
                unfinished.push(unfinished_one(dir, d, audited.counted));
            }
        }
        complete &= unfinished.is_empty();
        let sharded = self.definitions[0].shard.is_some();
        if let Some(note) = incomplete_note(&unfinished, &self.missing, sharded) {
            sink.event(Event::Note(&note));
        }
        let entrants = first
            .entrants
            .iter()
            .enumerate()
            .map(|(index, e)| Entrant {
                index,
                name: e.name.clone(),
                command: e.command.clone(),
                retired: self.definitions.iter().any(|d| d.retired.contains(&e.name)),
            })
            .collect();
        let mut report = Report::new("standings", complete, entrants, tally.standings());
        report.seed = Some(first.seed);
        report.public_seed = first.public_seed;
        report.rules = Some(first.rules);
        report.verified = verify.then_some(verified);
        Ok(report)
    }
}

/// A folder whose games are not all played, in words: its shard, the folder and its count.
fn unfinished_one(dir: &Path, definition: &Definition, counted: u64) -> String {
    let played = match &definition.ladder {
        Some(_) => format!("{}, its budget not spent", text::count(counted, "game")),
        None => format!(
            "{} of {} games",
            counted,
            definition.schedule().count(definition.shard)
        ),
    };
    match definition.shard {
        Some((i, n)) => format!("{i}/{n} ({}: {played})", dir.display()),
        None => format!("{} ({played})", dir.display()),
    }
}

/// What makes the standings incomplete, named: the unfinished folders (shards, or the whole
/// run) and the missing shards.
fn incomplete_note(unfinished: &[String], missing: &[String], sharded: bool) -> Option<String> {
    let mut parts = Vec::new();
    let one = |n: usize, what: &str| match (n, sharded) {
        (_, false) => format!("{what} is"),
        (1, true) => format!("shard {what} is"),
        (_, true) => format!("shards {what} are"),
    };
    if !unfinished.is_empty() {
        parts.push(format!(
            "{} unfinished",
            one(unfinished.len(), &text::listed(unfinished))
        ));
    }
    if !missing.is_empty() {
        parts.push(format!(
            "{} missing",
            one(
                missing.len(),
                &format!("{} of this tournament", text::listed(missing))
            )
        ));
    }
    let rerun = match sharded {
        true => "run a shard's command again to finish or start it",
        false => "run it again with --resume to finish it",
    };
    (!parts.is_empty()).then(|| {
        format!(
            "the standings are incomplete: {}; {rerun}",
            parts.join(", and ")
        )
    })
}

/// Checks that the folders hold slices of one tournament. Returns the missing shards (`I/N`).
fn slices_of_one(dirs: &[PathBuf], definitions: &[Definition]) -> Result<Vec<String>, String> {
    let mut real = HashSet::new();
    for dir in dirs {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if !real.insert(canonical) {
            return Err(format!("{} is given twice", dir.display()));
        }
    }
    // A ladder's shards share all but their budgets, retirements and newcomers.
    let shortest = definitions.iter().map(|d| d.entrants.len()).min();
    let unsharded = |d: &Definition| {
        let mut same = Definition {
            shard: None,
            ..d.clone()
        };
        if d.format == Format::Ladder {
            same.entrants.truncate(shortest.unwrap_or(0));
            same.ladder = None;
            same.retired.clear();
        }
        same
    };
    let first = unsharded(&definitions[0]);
    for (dir, d) in dirs.iter().zip(definitions).skip(1) {
        let unsharded = unsharded(d);
        if !unsharded.same_games(&first) {
            // Said as "here" (this folder) and "stored" (the first folder's).
            let what = unsharded.mismatches(&first);
            return Err(format!(
                "{} and {} hold different tournaments (what differs, the second 'here' and the first 'stored': {}): standings merges the shards of one tournament",
                dirs[0].display(),
                dir.display(),
                what.join("; ")
            ));
        }
    }
    let shards: Vec<Option<(u64, u64)>> = definitions.iter().map(|d| d.shard).collect();
    if let Some(whole) = shards.iter().position(Option::is_none)
        && shards.len() > 1
    {
        return Err(format!(
            "{} holds the whole tournament: merged with another folder, its games would count twice",
            dirs[whole].display()
        ));
    }
    let Some(Some((_, n))) = shards.first().copied() else {
        return Ok(Vec::new());
    };
    let mut present = HashSet::new();
    for (dir, shard) in dirs.iter().zip(&shards) {
        let (i, m) = shard.expect("every folder is a shard");
        if m != n {
            return Err(format!(
                "{} is shard {i}/{m}, where the others are shards of {n}",
                dir.display()
            ));
        }
        if !present.insert(i) {
            return Err(format!("shard {i}/{n} is given twice ({})", dir.display()));
        }
    }
    Ok((1..=n)
        .filter(|i| !present.contains(i))
        .map(|i| format!("{i}/{n}"))
        .collect())
}
