//! Results read back from a tournament folder, never trusted: every line is checked against the
//! definition (its digest, its id, group, deal, seeds, seats, entrant indices and names), a game
//! is counted once, and with `verify` each line is checked against its log, replayed through the
//! rules engine. What can be repaired (a torn last line, a line repeated word for word) is, with
//! a note; anything else is refused, naming the line.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gamelog::replay::replay;
use crate::text;
use crate::tournament::definition::Definition;
use crate::tournament::game_logs::LineLog;
use crate::tournament::results::{GameLine, RESULTS, read_results};
use crate::tournament::schedule::{Format, Schedule};
use crate::tournament::seeds;

/// What reading a folder's results found besides the lines counted.
#[derive(Debug, Default)]
pub struct Audited {
    /// Lines counted.
    pub counted: u64,
    /// A word for each thing repaired in reading.
    pub notes: Vec<String>,
    /// Line numbers to drop when the file is written again (repeats, a torn tail).
    pub dropped: Vec<usize>,
    /// With `verify`: what the logs showed.
    pub verified: Verified,
}

/// What checking results lines against their logs (`standings --verify`) found: every game
/// counted had its log, with the SHA-256 its line gives, replayed through the rules engine to
/// the line's result.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Verified {
    /// Games checked against their logs: every game counted.
    pub games: u64,
    /// Of them, the games whose every deal was checked against the seed (the others' hands, some
    /// or all, came from a deal file, or their log, of format 1, does not say: checked against
    /// the rules only).
    pub deals_from_seed: u64,
}

impl Verified {
    /// Adds `other`'s games (another folder's).
    pub fn add(&mut self, other: Verified) {
        self.games += other.games;
        self.deals_from_seed += other.deals_from_seed;
    }

    /// What was checked, in one sentence.
    pub fn sentence(&self) -> String {
        let deals = match self.games - self.deals_from_seed {
            0 => "every deal the one its seed gives".to_string(),
            other => format!(
                "the deals of {} the ones their seeds give; those of {other} came from a deal file \
                 (or a format 1 log, which does not say), checked against the rules only",
                text::count(self.deals_from_seed, "game")
            ),
        };
        format!(
            "verified {}: every log present with the SHA-256 its results line gives, replayed \
             through the rules engine (every move legal, {deals}), and every result, seat and \
             fault as replayed",
            text::count(self.games, "game")
        )
    }
}

/// Reads `DIR/results.jsonl` (absent: no games) checked against `definition`, passing each game
/// once to `each`; with `verify`, each against its log too.
pub fn read_checked(
    dir: &Path,
    definition: &Definition,
    verify: bool,
    mut each: impl FnMut(GameLine),
) -> Result<Audited, String> {
    let path = dir.join(RESULTS);
    let mut audited = Audited::default();
    if !path.exists() {
        return Ok(audited);
    }
    let shown = path.display().to_string();
    let schedule = definition.schedule();
    // Each id's first line and the hash of its bytes: a repeat is told from a rival.
    let mut seen: HashMap<String, (usize, u64)> = HashMap::new();
    let torn = read_results(&path, |number, line, bytes| {
        let at = |why: String| format!("{shown}, line {number}: {why}");
        check_line(definition, &schedule, &line).map_err(at)?;
        let mut hasher = DefaultHasher::new();
        bytes.hash(&mut hasher);
        match seen.entry(line.id.clone()) {
            Entry::Occupied(first) if first.get().1 == hasher.finish() => {
                audited.notes.push(format!(
                    "{shown}, line {number}, repeats line {} (game {}): counted once",
                    first.get().0,
                    line.id
                ));
                audited.dropped.push(number);
                return Ok(());
            }
            Entry::Occupied(first) => {
                return Err(at(format!(
                    "game {} is on line {} already, with another result: keep the line whose log (logs/) matches, delete the other",
                    line.id,
                    first.get().0
                )));
            }
            Entry::Vacant(slot) => {
                slot.insert((number, hasher.finish()));
            }
        }
        if verify {
            let from_seed = verify_log(dir, &line).map_err(at)?;
            audited.verified.add(Verified {
                games: 1,
                deals_from_seed: u64::from(from_seed),
            });
        }
        audited.counted += 1;
        each(line);
        Ok(())
    })?;
    if let Some(number) = torn {
        audited.notes.push(format!(
            "{shown}, line {number}, was cut short (a run stopped while writing it): not counted, and removed by --resume, which plays its game again"
        ));
        audited.dropped.push(number);
    }
    Ok(audited)
}

/// Writes `DIR/results.jsonl` again without the lines numbered in `dropped` (through a
/// temporary file, so it is whole or unchanged).
pub fn rewrite_without(dir: &Path, dropped: &[usize]) -> std::io::Result<()> {
    use std::io::{BufRead, Write};
    let path = dir.join(RESULTS);
    let temporary = dir.join(format!("{RESULTS}.new"));
    let reader = std::io::BufReader::new(std::fs::File::open(&path)?);
    crate::sandbox::files::replace(&path, &temporary, |file| {
        let mut out = std::io::BufWriter::new(file);
        for (i, line) in reader.split(b'\n').enumerate() {
            if !dropped.contains(&(i + 1)) {
                out.write_all(&line?)?;
                out.write_all(b"\n")?;
            }
        }
        out.flush()
    })
}

/// Whether `line` is a game of `definition` as scheduled: every field that the definition
/// decides agrees with it.
pub fn check_line(
    definition: &Definition,
    schedule: &Schedule,
    line: &GameLine,
) -> Result<(), String> {
    let entrants = definition.entrants.len();
    let out_of_range = line
        .group
        .iter()
        .chain(line.seats.iter().map(|s| &s.entrant))
        .chain(line.faults.iter().map(|f| &f.entrant))
        .find(|&&e| e >= entrants);
    if let Some(e) = out_of_range {
        return Err(format!(
            "entrant index {e} is out of range (the tournament has {entrants} entrants)"
        ));
    }
    if line.definition != definition.digest_for(&line.group) {
        return Err(
            "its definition digest is not that of this folder's tournament.json (another tournament's result, or an edited definition): the definition must be as the games were played"
                .into(),
        );
    }
    let group = schedule
        .groups
        .rank(&line.group)
        .ok_or_else(|| format!("group {:?} is not in the schedule", line.group))?;
    let members: Vec<String> = line.group.iter().map(|m| m.to_string()).collect();
    let id = format!("{}/{}/{}", members.join("-"), line.deal, line.arrangement);
    if line.id != id {
        return Err(format!(
            "its id {} does not match its group, deal and arrangement ({id})",
            line.id
        ));
    }
    // A ladder's tables each have a deal of their own, any number.
    if definition.format != Format::Ladder && line.deal >= definition.deals {
        return Err(format!(
            "deal {} is not in the schedule (deals 0 to {})",
            line.deal,
            definition.deals - 1
        ));
    }
    if !schedule.in_shard(definition.shard, group, line.deal) {
        return Err(format!("game {} is not in this folder's shard", line.id));
    }
    let seating = schedule
        .seating(line.arrangement)
        .ok_or_else(|| format!("arrangement {} is not in the schedule", line.arrangement))?;
    let deal_seed = seeds::derive(definition.seed, line.deal);
    if line.deal_seed != deal_seed || line.seed != seeds::derive(deal_seed, 0) {
        return Err(format!(
            "its seeds ({}, {}) are not those of deal {} of seed {}",
            line.deal_seed, line.seed, line.deal, definition.seed
        ));
    }
    check_seats(definition, line, seating)?;
    // A frame that names a place past any file (forged) is refused before a pack is cut to it;
    // a line with no log at all (results written by hand, for standings) is counted.
    match (line.log_offset, line.log_bytes) {
        (Some(_), Some(_)) => LineLog::of(line).map(|_| ()),
        _ => Ok(()),
    }
}

/// The seats, sides, scores, ranks and faults agree with the seating and the rules.
fn check_seats(definition: &Definition, line: &GameLine, seating: &[usize]) -> Result<(), String> {
    let rules = &definition.rules;
    if line.teams != rules.teams || line.seats.len() != rules.players {
        return Err(format!(
            "its table ({} seats, teams {}) is not the tournament's",
            line.seats.len(),
            line.teams
        ));
    }
    for (s, seat) in line.seats.iter().enumerate() {
        let entrant = line.group[seating[s]];
        let name = &definition.entrants[entrant].name;
        if seat.entrant != entrant || seat.name != *name || seat.side != rules.side_of(s) {
            return Err(format!(
                "seat {s} holds entrant {} ({}), where the schedule seats entrant {entrant} ({name}) on side {}",
                seat.entrant,
                seat.name,
                rules.side_of(s)
            ));
        }
    }
    let sides = line.sides().len();
    let ranks_fit = line
        .seats
        .iter()
        .all(|s| (1..=sides as u32).contains(&s.rank));
    if line.scores.len() != sides || !ranks_fit {
        return Err(format!("its scores or ranks do not fit {sides} sides"));
    }
    for f in &line.faults {
        if line
            .seats
            .get(f.seat)
            .is_none_or(|s| s.entrant != f.entrant)
        {
            return Err(format!(
                "a fault names seat {} and entrant {}, who do not sit together",
                f.seat, f.entrant
            ));
        }
    }
    Ok(())
}

/// The line's log is the one it names (its digest), and replayed through the rules engine it
/// gives the line's result, seats and seed; a packed log as well as a file. Whether its every
/// deal was checked against the seed (none came from a deal file).
fn verify_log(dir: &Path, line: &GameLine) -> Result<bool, String> {
    let logged = LineLog::of(line)?;
    let place = &logged.place;
    if line.log_sha256.is_none() {
        return Err(format!("it gives no log_sha256 for {place}"));
    }
    let bytes = logged.read(dir)?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{place} is not UTF-8"))?;
    let replayed = replay(&text).map_err(|e| format!("{place} does not replay: {e}"))?;
    let end = replayed
        .end
        .as_ref()
        .ok_or_else(|| format!("{place} stops before the game's end"))?;
    let seats: Vec<&str> = replayed
        .header
        .seats
        .iter()
        .map(|s| s.bot.as_str())
        .collect();
    let named: Vec<&str> = line.seats.iter().map(|s| s.name.as_str()).collect();
    let ranks: Vec<u32> = line.seats.iter().map(|s| s.rank).collect();
    let agrees = replayed.header.seed == line.seed
        && seats == named
        && end.result.scores == line.scores
        && end.result.ranks == ranks
        && end.result.hands == line.hands
        && end.result.ending == line.ending
        && replayed
            .faults
            .iter()
            .map(|f| f.fault.fault.kind)
            .eq(line.faults.iter().map(|f| f.kind));
    match agrees {
        true => Ok(replayed.deals_checked()),
        false => Err(format!(
            "its result differs from {place} replayed (seed, seats, scores, ranks, hands, ending or faults)"
        )),
    }
}
