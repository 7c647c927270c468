//! A matchmaking ladder's fits, made so that its draw is the same with any number of workers.
//!
//! The table of set `s` reads the ratings fitted to exactly the sets numbered below a cutoff,
//! the last one at least [`FitPoints::lag`] sets before `s`. Which games finished first then
//! changes nothing: a fit waits for every set below its cutoff, and a draw for its fit (rarely:
//! by the time the draw needs it, the sets below its cutoff were handed out `lag` sets ago).

use std::collections::{BTreeMap, BTreeSet};

use crate::tournament::definition::Definition;
use crate::tournament::ratings::Anchor;
use crate::tournament::ratings::batch::{self, BatchFit};
use crate::tournament::ratings::sets::{self, Sets, Side};
use crate::tournament::results::GameLine;

/// The fewest sets between a fit's cutoff and the first table drawn with it.
const MIN_LAG: u64 = 32;

/// Where a ladder's fits are cut: after half a round of tables, then every 10% more sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitPoints {
    half_round: u64,
    lag: u64,
}

impl FitPoints {
    /// The fit points of a ladder of `active` entrants drawn `picked` to a table.
    pub fn new(active: usize, picked: usize) -> FitPoints {
        let half_round = (active / picked.max(1) / 2).max(1) as u64;
        FitPoints {
            half_round,
            lag: half_round.max(MIN_LAG),
        }
    }

    /// The points of `definition`'s ladder (its entrants still in).
    pub fn of(definition: &Definition) -> FitPoints {
        let active = definition.entrants.len() - definition.retired.len();
        FitPoints::new(active, definition.schedule().groups.picked())
    }

    /// The cutoff after `cutoff` (0 is the start: no fit).
    pub fn after(&self, cutoff: u64) -> u64 {
        cutoff + self.half_round.max(cutoff / 10)
    }

    /// The cutoff of the fit that draws set `set`: the last at least [`FitPoints::lag`] sets
    /// before it (0: none yet, every entrant unrated).
    pub fn needed(&self, set: u64) -> u64 {
        let mut cutoff = 0;
        loop {
            let next = self.after(cutoff);
            if next + self.lag > set {
                return cutoff;
            }
            cutoff = next;
        }
    }

    /// The fewest sets between a cutoff and the first table its fit draws.
    pub fn lag(&self) -> u64 {
        self.lag
    }
}

/// A fit of the sets below a cutoff: the cutoff, the fit, and the tables each entrant sat at
/// in those sets.
pub type CutFit = (u64, BatchFit, Vec<u64>);

/// A set's games as the ratings read them, while its set waits for its cutoff: its key, its
/// entrants, and each game's sides and ranks.
#[derive(Debug, Default)]
struct Waiting {
    key: u64,
    group: Vec<usize>,
    games: Vec<Vec<(Side, u32)>>,
}

/// The fits a matchmaking ladder's draw reads, made from its results as they come, in any
/// order: each from the sets below its cutoff alone, once all of them are complete. A fit
/// depends only on those sets (the sets' totals are exact, and each fit starts cold).
#[derive(Debug)]
pub struct Refits {
    points: FitPoints,
    names: Vec<String>,
    /// Every set below `fitted`, folded in.
    sets: Sets,
    /// Tables each entrant sat at below `fitted`.
    tables: Vec<u64>,
    set_size: usize,
    shards: u64,
    /// The cutoff of the last fit made (or skipped).
    fitted: u64,
    /// The sets at or past `fitted` with a game played.
    waiting: BTreeMap<u64, Waiting>,
    /// Sets at or past `fitted` a stop left without a game: a resume never plays them.
    void: BTreeSet<u64>,
    /// Complete (or void) sets from `fitted` up to the next cutoff.
    ready: u64,
    /// No fit below this cutoff is made: a resumed draw needs none.
    skip_below: u64,
}

impl Refits {
    /// No set yet, for `definition`'s ladder.
    pub fn new(definition: &Definition) -> Refits {
        Refits {
            points: FitPoints::of(definition),
            names: definition.entrants.iter().map(|e| e.name.clone()).collect(),
            sets: Sets::default(),
            tables: vec![0; definition.entrants.len()],
            set_size: definition.schedule().set_size(),
            shards: definition.shard.map_or(1, |(_, n)| n),
            fitted: 0,
            waiting: BTreeMap::new(),
            void: BTreeSet::new(),
            ready: 0,
            skip_below: 0,
        }
    }

    /// Takes a game's line (each game once).
    pub fn add(&mut self, line: &GameLine) {
        let set = line.deal / self.shards;
        debug_assert!(set >= self.fitted, "a set below a fit's cutoff is complete");
        let waiting = self.waiting.entry(set).or_insert_with(|| Waiting {
            key: sets::deal_key(line.deal, line.deal_seed),
            group: line.group.clone(),
            games: Vec::new(),
        });
        waiting.games.push(line.rated());
        if waiting.games.len() == self.set_size && set < self.points.after(self.fitted) {
            self.ready += 1;
        }
    }

    /// After the lines a resume read: the sets below `next_set` it found no game of are void,
    /// and only the fits a draw from `next_set` on may read are made.
    pub fn resumed(&mut self, next_set: u64) {
        let missing: Vec<u64> = (self.fitted..next_set)
            .filter(|s| !self.waiting.contains_key(s))
            .collect();
        let next = self.points.after(self.fitted);
        self.ready += missing.iter().filter(|&&s| s < next).count() as u64;
        self.void.extend(missing);
        self.skip_below = self.points.needed(next_set);
    }

    /// The fits whose sets are now all complete, each with its cutoff, in order.
    pub fn fits(&mut self) -> Vec<CutFit> {
        let mut fits = Vec::new();
        loop {
            let next = self.points.after(self.fitted);
            if self.ready < next - self.fitted {
                return fits;
            }
            let later = self.waiting.split_off(&next);
            for set in std::mem::replace(&mut self.waiting, later).values() {
                self.sets.add(set.key, &set.games);
                self.seat(&set.group);
            }
            self.void = self.void.split_off(&next);
            self.fitted = next;
            self.ready = self.count_ready();
            if next >= self.skip_below {
                let fit = batch::fit_every_entrant(&self.names, &self.sets, Anchor::Mean(0.0));
                fits.push((next, fit, self.tables.clone()));
            }
        }
    }

    /// Counts a set's table for each of its entrants (`group`, sorted).
    fn seat(&mut self, group: &[usize]) {
        let mut entrants = group.to_vec();
        entrants.dedup();
        for e in entrants {
            if e >= self.tables.len() {
                self.tables.resize(e + 1, 0);
            }
            self.tables[e] += 1;
        }
    }

    /// Complete or void sets from `fitted` up to the next cutoff.
    fn count_ready(&self) -> u64 {
        let range = self.fitted..self.points.after(self.fitted);
        let complete = self
            .waiting
            .range(range.clone())
            .filter(|(_, set)| set.games.len() == self.set_size)
            .count();
        (complete + self.void.range(range).count()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoffs_come_every_half_round_then_every_tenth_and_a_lag_before_their_draw() {
        let points = FitPoints::new(100, 2);
        assert_eq!(points.lag(), 32);
        assert_eq!(points.after(0), 25);
        assert_eq!(points.after(250), 275);
        assert_eq!(points.after(1000), 1100);
        assert_eq!(points.needed(56), 0);
        assert_eq!(points.needed(57), 25);
        assert_eq!(points.needed(81), 25);
        assert_eq!(points.needed(82), 50);
        let mut last = 0;
        for set in 0..100_000 {
            let needed = points.needed(set);
            assert!(needed + points.lag() <= set || needed == 0);
            assert!(
                needed == last || needed == points.after(last),
                "no cutoff is skipped"
            );
            last = needed;
        }
    }
}
