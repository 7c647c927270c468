//! A ladder's games as the workers take them: the sets a stopped run left unfinished first, then
//! a table drawn at a time ([`super::draw`]) until the budget is spent. Each table plays a deal of
//! its own (its index is the set's number; a shard `I/N` numbers its sets `I-1`, `I-1+N`, ...) in
//! every seat arrangement that matters.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use allfives_engine::deal::below;

use super::LadderSpec;
use super::draw::{Mode, Pool, Rated};
use crate::tournament::definition::Definition;
use crate::tournament::ratings::batch::BatchFit;
use crate::tournament::results::GameLine;
use crate::tournament::schedule::{GamePlan, Schedule};
use crate::tournament::seeds;

/// A ladder being played: the pool drawn from and the games handed out.
#[derive(Debug)]
pub struct Ladder {
    pool: Pool,
    mode: Mode,
    spec: LadderSpec,
    schedule: Schedule,
    shard: (u64, u64),
    /// The next set's number within the shard.
    next_set: u64,
    /// Games played or handed out, in this folder.
    handed: u64,
    pending: VecDeque<GamePlan>,
    /// Sets found unfinished while reading the results: their group and arrangements played.
    unfinished: HashMap<u64, (Vec<usize>, u32)>,
    spent: bool,
}

impl Ladder {
    /// The ladder of `definition` (which must be one), before any result is read.
    pub fn new(definition: &Definition) -> Ladder {
        let spec = definition
            .ladder
            .expect("a ladder's definition has its budget (Definition::check, ladder_spec)");
        let schedule = definition.schedule();
        let mut pool = Pool::new(definition.entrants.len()).for_tables_of(schedule.set_size());
        for (e, entrant) in definition.entrants.iter().enumerate() {
            if definition.retired.contains(&entrant.name) {
                pool.retire(e);
            }
        }
        Ladder {
            pool,
            mode: match spec.matchmaking {
                true => Mode::Matchmaking,
                false => Mode::Balanced,
            },
            spec,
            schedule,
            shard: definition.shard.unwrap_or((1, 1)),
            next_set: 0,
            handed: 0,
            pending: VecDeque::new(),
            unfinished: HashMap::new(),
            spent: false,
        }
    }

    /// Counts a game found in the results (each once, checked): its table is seated when its
    /// set is first seen, and sets left unfinished are completed before any new table.
    pub fn found(&mut self, line: &GameLine) {
        self.handed += 1;
        let (i, n) = self.shard;
        self.next_set = self.next_set.max(line.deal / n + 1);
        debug_assert_eq!(line.deal % n, i - 1);
        let full = (1u32 << self.schedule.set_size()) - 1;
        let (_, played) = self.unfinished.entry(line.deal).or_insert_with(|| {
            self.pool.seat(&line.group);
            (line.group.clone(), 0)
        });
        *played |= 1 << line.arrangement;
        if *played == full {
            self.unfinished.remove(&line.deal);
        }
    }

    /// Queues the games missing from the sets found unfinished; returns how many.
    pub fn finish_found(&mut self) -> u64 {
        let mut sets: Vec<(u64, (Vec<usize>, u32))> = self.unfinished.drain().collect();
        sets.sort_unstable_by_key(|(deal, _)| *deal);
        let before = self.pending.len();
        for (deal, (group, played)) in sets {
            for a in 0..self.schedule.set_size() {
                if played & (1 << a) == 0 {
                    self.pending.push_back(self.schedule.plan(&group, deal, a));
                    self.handed += 1;
                }
            }
        }
        (self.pending.len() - before) as u64
    }

    /// Takes a new fit of the ratings (matchmaking reads it).
    pub fn rate(&mut self, fit: &BatchFit) {
        let mut ratings = vec![None; self.pool.len()];
        for r in &fit.entrants {
            if let (Some(slot), Some(half_width)) = (ratings.get_mut(r.entrant), r.half_width()) {
                *slot = Some(Rated {
                    elo: r.elo,
                    half_width,
                });
            }
        }
        self.pool.rate(&ratings);
    }

    /// Whether matchmaking draws the tables (and so wants fresh ratings).
    pub fn matchmaking(&self) -> bool {
        self.mode == Mode::Matchmaking
    }

    /// Whether the budget was spent (or too few entrants are left): no table will be drawn.
    pub fn spent(&self) -> bool {
        self.spent
    }

    /// About how many games are still to be handed out (the unfinished sets' included).
    pub fn remaining(&self) -> u64 {
        let set = self.schedule.set_size() as u64;
        let queued = self.pending.len() as u64;
        match (self.spec.games, self.spec.games_each) {
            (Some(games), _) => games.saturating_sub(self.handed).div_ceil(set) * set + queued,
            (None, Some(each)) => {
                let tables_each = each.div_ceil(set);
                let seats: u64 = (0..self.pool.len())
                    .filter(|&e| self.pool.is_active(e))
                    .map(|e| tables_each.saturating_sub(self.pool.tables(e)))
                    .sum();
                seats.div_ceil(self.schedule.groups.picked() as u64) * set + queued
            }
            (None, None) => queued,
        }
    }

    /// Whether the budget is spent: no new table.
    pub fn budget_spent(&self) -> bool {
        let set = self.schedule.set_size() as u64;
        match (self.spec.games, self.spec.games_each) {
            (Some(games), _) => self.handed >= games,
            (None, Some(each)) => self
                .pool
                .fewest_tables()
                .is_none_or(|fewest| fewest * set >= each),
            (None, None) => true,
        }
    }

    /// The next game: an unfinished set's, the current table's, or a new table's first.
    fn next_game(&mut self) -> Option<GamePlan> {
        if let Some(plan) = self.pending.pop_front() {
            return Some(plan);
        }
        if self.spent || self.budget_spent() {
            self.spent = true;
            return None;
        }
        let (i, n) = self.shard;
        let deal = self.next_set * n + (i - 1);
        // The draw's generator: from the deal's seed, apart from the deal's own.
        let mut rng =
            ChaCha8Rng::seed_from_u64(seeds::derive(seeds::derive(self.schedule.master, deal), 1));
        let groups = &self.schedule.groups;
        let Some(pick) = self.pool.draw(groups.picked(), self.mode, &mut rng) else {
            self.spent = true;
            return None;
        };
        let group = groups.of_pick(&pick, below(&mut rng, 3) as usize);
        self.pool.seat(&pick);
        self.next_set += 1;
        let set = self.schedule.set_size();
        self.pending
            .extend((0..set).map(|a| self.schedule.plan(&group, deal, a)));
        self.handed += set as u64;
        self.pending.pop_front()
    }
}

/// The games of a shared ladder, as an iterator the workers' queue takes.
pub struct LadderGames(pub Arc<Mutex<Ladder>>);

impl Iterator for LadderGames {
    type Item = GamePlan;

    fn next(&mut self) -> Option<GamePlan> {
        self.0.lock().ok()?.next_game()
    }
}
