//! The ladder's draw: who sits at the next table. Pure: the pool's state and a generator in, a
//! table out.
//!
//! - **Balanced** (the default): the entrant that has sat at the fewest tables, then, seat by
//!   seat, the entrant with the fewest tables among those it and the others already seated have
//!   met least; every tie broken uniformly at random. Every entrant plays about as often (never
//!   more than one table apart while all are active) and meets varied opponents; a new entrant
//!   plays every table it can until it has caught up, and the rest of its tables are filled
//!   with the entrants it has met least (the entrants it joined, not only the other newcomers).
//! - **Matchmaking**: the entrant whose rating is least certain first (an unrated one before any
//!   rated one), then opponents drawn with weight the TrueSkill match quality (Herbrich, Minka
//!   and Graepel, "TrueSkill: A Bayesian skill rating system", NIPS 2006): the chance that the
//!   two are level, `exp(-d^2 / 2s^2)` for a rating difference `d` and `s^2 = 2 beta^2` plus
//!   their variances, `beta` being a table's spread of performance, so that entrants whose order
//!   is still in doubt meet. An uncertainty fitted `t` tables ago shrinks as `1/sqrt(tables)`
//!   until the next fit.

use std::collections::HashMap;

use allfives_engine::deal::below;
use rand::Rng;

/// How tables are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Fewest tables first, varied opponents.
    Balanced,
    /// Least certain first, opponents of close rating.
    Matchmaking,
}

/// An entrant's rating as the draw reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rated {
    /// Its Elo.
    pub elo: f64,
    /// Half the width of its 95% interval, in Elo.
    pub half_width: f64,
}

/// One side's spread of performance in one game under the Elo model, in Elo: the logistic
/// difference's standard deviation (`pi / sqrt(3)` times `400 / ln 10`) over `sqrt(2)`.
pub const GAME_BETA: f64 = 222.9;

/// The entrants a ladder draws from, and what it has drawn.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    active: Vec<bool>,
    tables: Vec<u64>,
    met: HashMap<(u32, u32), u32>,
    ratings: Vec<Option<Rated>>,
    tables_at_fit: Vec<u64>,
    beta: f64,
}

impl Pool {
    /// A pool of `entrants` active entrants that have sat at no table.
    pub fn new(entrants: usize) -> Pool {
        let mut pool = Pool {
            beta: GAME_BETA,
            ..Pool::default()
        };
        pool.grow(entrants);
        pool
    }

    /// The pool for tables of `games` games each (a duplicate set): a table's spread of
    /// performance is a game's over `sqrt(games)`.
    pub fn for_tables_of(mut self, games: usize) -> Pool {
        self.beta = GAME_BETA / (games.max(1) as f64).sqrt();
        self
    }

    /// Adds entrants (active, unrated) up to `entrants` in all.
    pub fn grow(&mut self, entrants: usize) {
        let n = entrants.max(self.active.len());
        self.active.resize(n, true);
        self.tables.resize(n, 0);
        self.ratings.resize(n, None);
        self.tables_at_fit.resize(n, 0);
    }

    /// Entrants in the pool, retired ones included.
    pub fn len(&self) -> usize {
        self.active.len()
    }

    /// Whether the pool has no entrant at all.
    pub fn is_empty(&self) -> bool {
        self.active.is_empty()
    }

    /// Draws entrant `e` no more (it stays in the results and the standings).
    pub fn retire(&mut self, e: usize) {
        if let Some(active) = self.active.get_mut(e) {
            *active = false;
        }
    }

    /// Whether entrant `e` is still drawn.
    pub fn is_active(&self, e: usize) -> bool {
        self.active.get(e).copied().unwrap_or(false)
    }

    /// Entrants still drawn.
    pub fn active_count(&self) -> usize {
        self.active.iter().filter(|&&a| a).count()
    }

    /// Tables entrant `e` has sat at (played or handed out).
    pub fn tables(&self, e: usize) -> u64 {
        self.tables.get(e).copied().unwrap_or(0)
    }

    /// The fewest tables of any active entrant (`None` with none active).
    pub fn fewest_tables(&self) -> Option<u64> {
        self.active_entrants().map(|e| self.tables[e]).min()
    }

    /// Times `a` and `b` have sat at one table.
    pub fn met(&self, a: usize, b: usize) -> u32 {
        self.met.get(&pair(a, b)).copied().unwrap_or(0)
    }

    /// Records a table drawn (or found in the results): its distinct entrants.
    pub fn seat(&mut self, table: &[usize]) {
        let mut distinct = table.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        self.grow(distinct.last().map_or(0, |&e| e + 1));
        for (i, &a) in distinct.iter().enumerate() {
            self.tables[a] += 1;
            for &b in &distinct[i + 1..] {
                *self.met.entry(pair(a, b)).or_default() += 1;
            }
        }
    }

    /// Takes a new fit: each entrant's rating (`None`: not rated yet), as of now.
    pub fn rate(&mut self, ratings: &[Option<Rated>]) {
        let now = self.tables.clone();
        self.rate_as_of(ratings, &now);
    }

    /// Takes a fit made when each entrant had sat at `tables` tables: its uncertainty shrinks
    /// with the tables since.
    pub fn rate_as_of(&mut self, ratings: &[Option<Rated>], tables: &[u64]) {
        for (e, rated) in ratings.iter().enumerate().take(self.ratings.len()) {
            self.ratings[e] = *rated;
            self.tables_at_fit[e] = tables.get(e).copied().unwrap_or(0);
        }
    }

    /// Entrant `e`'s rating, if it has one.
    pub fn rating(&self, e: usize) -> Option<Rated> {
        self.ratings.get(e).copied().flatten()
    }

    /// Entrant `e`'s uncertainty now: its fitted half-width, shrunk as `1/sqrt(tables)` by the
    /// tables it sat at since the fit (`None` if unrated).
    pub fn uncertainty(&self, e: usize) -> Option<f64> {
        let rated = self.rating(e)?;
        let then = self.tables_at_fit[e].max(1) as f64;
        let now = self.tables[e].max(1) as f64;
        Some(rated.half_width * (then / now).sqrt().min(1.0))
    }

    /// The next table of `size` distinct entrants, sorted by index; `None` when fewer than
    /// `size` are active.
    pub fn draw<R: Rng + ?Sized>(
        &self,
        size: usize,
        mode: Mode,
        rng: &mut R,
    ) -> Option<Vec<usize>> {
        if size == 0 || self.active_count() < size {
            return None;
        }
        let mut table = vec![self.first(mode, rng)];
        let catching_up = self.catching_up(table[0]);
        while table.len() < size {
            let next = match mode {
                Mode::Balanced => self.least_met(&table, catching_up, rng),
                Mode::Matchmaking => self.closest(&table, rng),
            };
            table.push(next);
        }
        table.sort_unstable();
        Some(table)
    }

    fn active_entrants(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.active.len()).filter(|&e| self.active[e])
    }

    /// The table's first entrant: the least played, or the least certain.
    fn first<R: Rng + ?Sized>(&self, mode: Mode, rng: &mut R) -> usize {
        let keyed = self.active_entrants().map(|e| {
            let key = match (mode, self.uncertainty(e)) {
                (Mode::Balanced, _) => (self.tables[e], 0.0),
                // Unrated first (fewest tables among them), then the widest uncertainty.
                (Mode::Matchmaking, None) => (0, self.tables[e] as f64),
                (Mode::Matchmaking, Some(u)) => (1, -u),
            };
            (e, key)
        });
        lowest(keyed, rng).expect("the pool has enough active entrants")
    }

    /// Whether entrant `e` is more than a table behind the most played active entrant: one
    /// that joined late (`--resume` with newcomers), catching up.
    fn catching_up(&self, e: usize) -> bool {
        let most = self.active_entrants().map(|a| self.tables[a]).max();
        most.is_some_and(|most| self.tables[e] + 1 < most)
    }

    /// The least played entrant not seated yet, among those the table has met least; for a
    /// table `catching_up`, the entrant the table has met least, among those least played: a
    /// newcomer's tables would otherwise be filled with the other newcomers (all behind), and
    /// it would never meet the entrants it joined.
    fn least_met<R: Rng + ?Sized>(&self, table: &[usize], catching_up: bool, rng: &mut R) -> usize {
        let keyed = self
            .active_entrants()
            .filter(|e| !table.contains(e))
            .map(|e| {
                let met: u32 = table.iter().map(|&m| self.met(e, m)).sum();
                let key = match catching_up {
                    true => (u64::from(met), self.tables[e] as f64),
                    false => (self.tables[e], f64::from(met)),
                };
                (e, key)
            });
        lowest(keyed, rng).expect("the pool has enough active entrants")
    }

    /// An entrant not seated yet, drawn with weight its match quality with the table (the
    /// Gumbel-max trick: the largest log-weight plus Gumbel noise is a draw with those weights).
    fn closest<R: Rng + ?Sized>(&self, table: &[usize], rng: &mut R) -> usize {
        let keyed: Vec<(usize, (u64, f64))> = self
            .active_entrants()
            .filter(|e| !table.contains(e))
            .map(|e| {
                let quality: f64 = table.iter().map(|&m| self.log_quality(e, m)).sum();
                (e, (0, -(quality + gumbel(rng))))
            })
            .collect();
        lowest(keyed.into_iter(), rng).expect("the pool has enough active entrants")
    }

    /// The log of the match quality of `a` and `b`: 0 (any match is as good) when either is
    /// unrated.
    fn log_quality(&self, a: usize, b: usize) -> f64 {
        let (Some(ra), Some(rb)) = (self.rating(a), self.rating(b)) else {
            return 0.0;
        };
        let (ua, ub) = (
            self.uncertainty(a).unwrap_or(ra.half_width),
            self.uncertainty(b).unwrap_or(rb.half_width),
        );
        // Half-widths of 95% intervals as standard errors.
        let spread = 2.0 * self.beta.powi(2) + (ua / 1.96).powi(2) + (ub / 1.96).powi(2);
        -(ra.elo - rb.elo).powi(2) / (2.0 * spread)
    }
}

/// A pair's key, smaller index first.
fn pair(a: usize, b: usize) -> (u32, u32) {
    (a.min(b) as u32, a.max(b) as u32)
}

/// A standard Gumbel variate.
fn gumbel<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    // A uniform in (0, 1), never 0 or 1.
    let u = ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    -(-u.ln()).ln()
}

/// The candidate with the lowest key (its class, then its number), ties broken uniformly at
/// random (reservoir sampling over the tied).
fn lowest<R: Rng + ?Sized>(
    keyed: impl Iterator<Item = (usize, (u64, f64))>,
    rng: &mut R,
) -> Option<usize> {
    let mut best: Option<(usize, (u64, f64))> = None;
    let mut ties = 0u32;
    for (e, key) in keyed {
        let order = best.map(|(_, b)| key.0.cmp(&b.0).then(key.1.total_cmp(&b.1)));
        match order {
            None | Some(std::cmp::Ordering::Less) => {
                best = Some((e, key));
                ties = 1;
            }
            Some(std::cmp::Ordering::Equal) => {
                ties += 1;
                if below(rng, ties) == 0 {
                    best = Some((e, key));
                }
            }
            Some(std::cmp::Ordering::Greater) => {}
        }
    }
    best.map(|(e, _)| e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    fn play(pool: &mut Pool, size: usize, mode: Mode, tables: usize, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..tables {
            let table = pool.draw(size, mode, &mut rng).expect("enough entrants");
            pool.seat(&table);
        }
    }

    #[test]
    fn balanced_tables_keep_everyone_within_one_table() {
        for size in 2..=4 {
            let mut pool = Pool::new(30);
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            for _ in 0..500 {
                let table = pool.draw(size, Mode::Balanced, &mut rng).unwrap();
                let mut distinct = table.clone();
                distinct.dedup();
                assert_eq!(distinct.len(), size);
                pool.seat(&table);
                let counts: Vec<u64> = (0..30).map(|e| pool.tables(e)).collect();
                let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
                assert!(max - min <= 1, "{counts:?}");
            }
        }
    }

    #[test]
    fn balanced_opponents_vary() {
        let mut pool = Pool::new(10);
        // 9 pairs for each entrant: 45 tables of 2 meet every pair once.
        play(&mut pool, 2, Mode::Balanced, 45, 3);
        let pairs_met = (0..10)
            .flat_map(|a| (a + 1..10).map(move |b| (a, b)))
            .filter(|&(a, b)| pool.met(a, b) > 0)
            .count();
        assert!(pairs_met >= 40, "only {pairs_met} of 45 pairs met");
    }

    #[test]
    fn a_newcomer_catches_up_and_retired_entrants_are_not_drawn() {
        let mut pool = Pool::new(8);
        play(&mut pool, 2, Mode::Balanced, 40, 5);
        pool.grow(9);
        pool.retire(0);
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for _ in 0..8 {
            let table = pool.draw(2, Mode::Balanced, &mut rng).unwrap();
            assert!(
                table.contains(&8),
                "the newcomer sits at every table: {table:?}"
            );
            assert!(!table.contains(&0));
            pool.seat(&table);
        }
    }

    /// Issue 30: newcomers added by `--resume` played only each other while they caught up.
    #[test]
    fn newcomers_meet_the_entrants_they_joined() {
        for size in 2..=4 {
            let mut pool = Pool::new(8);
            play(&mut pool, size, Mode::Balanced, 100, 5);
            pool.grow(8 + size);
            let newcomers: Vec<usize> = (8..8 + size).collect();
            let mut rng = ChaCha8Rng::seed_from_u64(6);
            while newcomers.iter().any(|&n| pool.catching_up(n)) {
                let table = pool.draw(size, Mode::Balanced, &mut rng).unwrap();
                pool.seat(&table);
            }
            for &n in &newcomers {
                let stored_met = (0..8).filter(|&e| pool.met(n, e) > 0).count();
                assert!(
                    stored_met >= 4,
                    "newcomer {n} met {stored_met} of 8 (size {size})"
                );
            }
        }
    }

    #[test]
    fn matchmaking_seats_the_least_certain_with_close_ratings() {
        // Tables of 8 games: beta is 79 Elo. Entrants 20 Elo apart, 25 the least certain.
        let mut pool = Pool::new(50).for_tables_of(8);
        let ratings: Vec<Option<Rated>> = (0..50)
            .map(|e| {
                Some(Rated {
                    elo: e as f64 * 20.0,
                    half_width: if e == 25 { 100.0 } else { 20.0 },
                })
            })
            .collect();
        pool.rate(&ratings);
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut distance = 0;
        for _ in 0..400 {
            let table = pool.draw(2, Mode::Matchmaking, &mut rng).unwrap();
            assert!(table.contains(&25), "{table:?}");
            let other = table.iter().find(|&&e| e != 25).unwrap();
            distance += other.abs_diff(25);
        }
        // Drawn uniformly, an opponent would be 12.5 entrants away on average; here s is
        // sqrt(2 * 79^2 + 51^2 + 10^2) = 124 Elo, about 6 entrants.
        let mean = distance as f64 / 400.0;
        assert!((3.0..8.0).contains(&mean), "mean distance {mean}");
        // An unrated entrant goes first.
        pool.grow(51);
        let table = pool.draw(4, Mode::Matchmaking, &mut rng).unwrap();
        assert!(table.contains(&50));
    }

    #[test]
    fn the_same_state_and_seed_draw_the_same_tables() {
        let (mut a, mut b) = (Pool::new(20), Pool::new(20));
        play(&mut a, 3, Mode::Balanced, 50, 11);
        play(&mut b, 3, Mode::Balanced, 50, 11);
        let mut ra = ChaCha8Rng::seed_from_u64(1);
        let mut rb = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(
            a.draw(3, Mode::Balanced, &mut ra),
            b.draw(3, Mode::Balanced, &mut rb)
        );
        assert_eq!(Pool::new(3).draw(4, Mode::Balanced, &mut ra), None);
    }
}
