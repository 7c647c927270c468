//! A ladder's games as the workers take them: the sets a stopped run left unfinished first, then
//! a table drawn at a time ([`super::draw`]) until the budget is spent. Each table plays a deal of
//! its own (its index is the set's number; a shard `I/N` numbers its sets `I-1`, `I-1+N`, ...) in
//! every seat arrangement that matters. A matchmaking ladder's draw reads the fits of
//! [`super::fits`], each when its set's number calls for it, so that it is the same whatever
//! order the games finished in.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use allfives_engine::deal::below;

use super::LadderSpec;
use super::draw::{Mode, Pool, Rated};
use super::fits::{CutFit, FitPoints};
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
    /// Where the fits are cut, when the draw waits for each in turn (matchmaking in a run).
    points: Option<FitPoints>,
    /// The cutoff of the fit the pool holds.
    applied: u64,
    /// Fits made but not read yet, by cutoff: the ratings, and each entrant's tables then.
    fits: BTreeMap<u64, (Vec<Option<Rated>>, Vec<u64>)>,
}

/// What the ladder has for a worker asking for a game.
#[derive(Debug)]
pub enum Next {
    /// This game.
    Game(GamePlan),
    /// Nothing now: the next table's draw waits for a fit.
    Wait,
    /// Nothing more: the budget is spent.
    Done,
}

impl Ladder {
    /// The ladder of `definition` (which must be one), before any result is read.
    pub fn new(definition: &Definition) -> Ladder {
        let spec = definition
            .ladder
            .expect("a ladder's definition has its budget (Definition::check, ladder_spec)");
        let schedule = definition.schedule();
        let mut pool = Pool::new(definition.entrants.len());
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
            points: None,
            applied: 0,
            fits: BTreeMap::new(),
        }
    }

    /// The same, its matchmaking reading the fits cut at `points`, each handed over with
    /// [`Ladder::fitted`] (a balanced draw reads none).
    pub fn with_fits(mut self, points: FitPoints) -> Ladder {
        if self.mode == Mode::Matchmaking {
            self.points = Some(points);
        }
        self
    }

    /// The next set's number within the shard (the sets below it were drawn or found).
    pub fn next_set(&self) -> u64 {
        self.next_set
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

    /// Takes a new fit of the ratings, read at once (matchmaking without fit points).
    pub fn rate(&mut self, fit: &BatchFit) {
        self.pool.rate(&self.ratings(fit));
    }

    /// Takes the fit of the sets below `cutoff` (where each entrant had sat at `tables`),
    /// read when the draw reaches its turn.
    pub fn fitted(&mut self, (cutoff, fit, tables): &CutFit) {
        if *cutoff > self.applied {
            let ratings = self.ratings(fit);
            self.fits.insert(*cutoff, (ratings, tables.clone()));
        }
    }

    /// Each entrant's rating in `fit`, for the pool.
    fn ratings(&self, fit: &BatchFit) -> Vec<Option<Rated>> {
        let mut ratings = vec![None; self.pool.len()];
        for r in &fit.entrants {
            if let (Some(slot), Some(half_width)) = (ratings.get_mut(r.entrant), r.half_width()) {
                *slot = Some(Rated {
                    elo: r.elo,
                    half_width,
                });
            }
        }
        ratings
    }

    /// Whether the pool holds the fit the next table's draw reads (taking it if it came).
    fn fit_in_hand(&mut self) -> bool {
        let Some(points) = self.points else {
            return true;
        };
        let needed = points.needed(self.next_set);
        if needed <= self.applied {
            return true;
        }
        let Some((ratings, tables)) = self.fits.remove(&needed) else {
            return false;
        };
        self.pool.rate_as_of(&ratings, &tables);
        self.applied = needed;
        self.fits = self.fits.split_off(&needed);
        true
    }

    /// Whether matchmaking draws the tables (and so wants fresh ratings).
    pub fn matchmaking(&self) -> bool {
        self.mode == Mode::Matchmaking
    }

    /// Whether the budget was spent (or too few entrants are left): no table will be drawn.
    pub fn spent(&self) -> bool {
        self.spent
    }

    /// Whether every game was handed out: no table is left to draw, none of its games waits.
    pub fn all_handed_out(&self) -> bool {
        self.pending.is_empty() && (self.spent || self.budget_spent())
    }

    /// The games played or handed out in this folder.
    pub fn handed(&self) -> u64 {
        self.handed
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
    pub fn next_game(&mut self) -> Next {
        if let Some(plan) = self.pending.pop_front() {
            return Next::Game(plan);
        }
        if self.spent || self.budget_spent() {
            self.spent = true;
            return Next::Done;
        }
        if !self.fit_in_hand() {
            return Next::Wait;
        }
        match self.draw() {
            Some(plan) => Next::Game(plan),
            None => {
                self.spent = true;
                Next::Done
            }
        }
    }

    /// Draws the next table, queues its games and hands out the first; `None` when too few
    /// entrants are left.
    fn draw(&mut self) -> Option<GamePlan> {
        let (i, n) = self.shard;
        let deal = self.next_set * n + (i - 1);
        // The draw's generator: from the deal's seed, apart from the deal's own.
        let mut rng =
            ChaCha8Rng::seed_from_u64(seeds::derive(seeds::derive(self.schedule.master, deal), 1));
        let groups = &self.schedule.groups;
        let pick = self.pool.draw(groups.picked(), self.mode, &mut rng)?;
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

/// A ladder shared by the workers that take its games and the dispatcher that fits it.
#[derive(Debug)]
pub struct SharedLadder {
    ladder: Mutex<Ladder>,
    /// Signalled when a fit is handed over.
    fitted: Condvar,
}

impl SharedLadder {
    /// `ladder`, to share.
    pub fn new(ladder: Ladder) -> Arc<SharedLadder> {
        Arc::new(SharedLadder {
            ladder: Mutex::new(ladder),
            fitted: Condvar::new(),
        })
    }

    /// The ladder, to read or change.
    pub fn lock(&self) -> MutexGuard<'_, Ladder> {
        // A panic elsewhere while holding it leaves plain data: still usable.
        self.ladder.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands over a fit of the sets below a cutoff, waking a draw that waits for it.
    pub fn fitted(&self, fit: &CutFit) {
        self.lock().fitted(fit);
        self.fitted.notify_all();
    }
}

/// The games of a shared ladder, as an iterator the workers' queue takes; a draw that waits for
/// its fit ends when `stop` is set.
pub struct LadderGames {
    /// The ladder.
    pub shared: Arc<SharedLadder>,
    /// Set when the run stops: no game is waited for then.
    pub stop: Arc<AtomicBool>,
}

/// How often a waiting draw looks at the stop flag (a fit handed over wakes it at once).
const STOP_POLL: Duration = Duration::from_millis(100);

impl Iterator for LadderGames {
    type Item = GamePlan;

    fn next(&mut self) -> Option<GamePlan> {
        let mut ladder = self.shared.lock();
        loop {
            match ladder.next_game() {
                Next::Game(plan) => return Some(plan),
                Next::Done => return None,
                Next::Wait if self.stop.load(Ordering::SeqCst) => return None,
                Next::Wait => {
                    ladder = match self.shared.fitted.wait_timeout(ladder, STOP_POLL) {
                        Ok((ladder, _)) => ladder,
                        Err(poisoned) => poisoned.into_inner().0,
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A balanced ladder of three entrants and a budget of `games` games.
    fn ladder(games: u64) -> Ladder {
        let entrant = |i: usize| format!(r#"{{"name": "e{i}", "command": "builtin:greedy"}}"#);
        let text = format!(
            r#"{{"kind": "allfives-tournament", "version": 1,
            "entrants": [{}, {}, {}], "format": "ladder",
            "table": {{"players": 2, "teams": false, "splits": false, "all_orders": false}},
            "deals": 1, "seed": 5,
            "rules": {{"players": 2, "teams": false, "hand_size": 9, "spinner": "first",
                "hand_end": "penalty", "target": 250, "finish": "immediate", "max_hands": 200}},
            "clock": {{"startup_ms": 10000, "move_ms": 1000, "bank_ms": 0}},
            "on_fault": {{"policy": "forfeit"}}, "max_line": 65536, "shard": null,
            "ladder": {{"games": {games}, "matchmaking": false}}}}"#,
            entrant(0),
            entrant(1),
            entrant(2)
        );
        Ladder::new(&Definition::parse(&text).expect("a ladder's definition"))
    }

    /// The dispatcher skips the live page's refresh at the last game: it must know the game is
    /// the last before asking for another.
    #[test]
    fn every_game_is_known_handed_out_with_the_last() {
        let mut ladder = ladder(6);
        let mut handed = 0;
        while !ladder.all_handed_out() {
            assert!(matches!(ladder.next_game(), Next::Game(_)), "at {handed}");
            handed += 1;
        }
        assert_eq!((handed, ladder.handed()), (6, 6));
        assert!(matches!(ladder.next_game(), Next::Done));
        assert!(ladder.all_handed_out());
    }
}
