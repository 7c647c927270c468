//! The ladder's draw: who sits at the next table. Pure: the pool's state and a generator in, a
//! table out.
//!
//! - **Balanced** (the default): the entrant that has sat at the fewest tables, then, seat by
//!   seat, the entrant with the fewest tables among those it and the others already seated have
//!   met least; every tie broken uniformly at random. Every entrant plays about as often (never
//!   more than one table apart while all are active) and meets varied opponents; a new entrant
//!   plays every table it can until it has caught up, and the rest of its tables are filled
//!   with the entrants it has met least (the entrants it joined, not only the other newcomers).
//! - **Matchmaking**: tables where the ranking is least settled. An unrated entrant first, then
//!   one with under a quarter of the active entrants' mean tables (every entrant keeps
//!   playing), then the entrant whose next table is worth most to the ranking: its doubt about
//!   its place at the last fit ([`rank_doubt`]: the rank neighbours whose order with it is
//!   uncertain), its variance's shrinking with the tables it sat at since, over its tables
//!   plus one (one table's share of what it knows). Then each seat drawn with weight the
//!   product, over the entrants seated, of the pair's doubt ([`pair_doubt`], `exp(-z^2 / 2)`,
//!   `z` their Elo difference over its standard error): the neighbours whose order with the
//!   table is most uncertain. An uncertainty fitted `t` tables ago shrinks as
//!   `1/sqrt(tables)` until the next fit.

use std::collections::HashMap;

use allfives_engine::deal::below;
use rand::Rng;

/// How tables are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Fewest tables first, varied opponents.
    Balanced,
    /// Where the ranking is least settled first, with its most uncertain neighbours.
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

/// An entrant with fewer tables than this share of the active entrants' mean is seated first
/// by matchmaking: the doubt about a place draws tables to it, and this keeps every other
/// entrant playing too.
const KEEP_PLAYING: f64 = 0.25;

/// The entrants a ladder draws from, and what it has drawn.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    active: Vec<bool>,
    tables: Vec<u64>,
    met: HashMap<(u32, u32), u32>,
    ratings: Vec<Option<Rated>>,
    tables_at_fit: Vec<u64>,
    /// Each entrant's doubt about its place at the last fit ([`rank_doubt`]).
    doubt: Vec<f64>,
}

impl Pool {
    /// A pool of `entrants` active entrants that have sat at no table.
    pub fn new(entrants: usize) -> Pool {
        let mut pool = Pool::default();
        pool.grow(entrants);
        pool
    }

    /// Adds entrants (active, unrated) up to `entrants` in all.
    pub fn grow(&mut self, entrants: usize) {
        let n = entrants.max(self.active.len());
        self.active.resize(n, true);
        self.tables.resize(n, 0);
        self.ratings.resize(n, None);
        self.tables_at_fit.resize(n, 0);
        self.doubt.resize(n, 0.0);
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
        self.doubt = rank_doubt(&self.ratings);
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

    /// The table's first entrant: the least played, or the one whose place is most in doubt.
    fn first<R: Rng + ?Sized>(&self, mode: Mode, rng: &mut R) -> usize {
        let mean = match mode {
            Mode::Balanced => 0.0,
            Mode::Matchmaking => {
                let tables: u64 = self.active_entrants().map(|e| self.tables[e]).sum();
                tables as f64 / self.active_count().max(1) as f64
            }
        };
        let keyed = self.active_entrants().map(|e| {
            let key = match (mode, self.uncertainty(e)) {
                (Mode::Balanced, _) => (self.tables[e], 0.0),
                // Unrated first, then any far behind (fewest tables first), then by worth.
                (Mode::Matchmaking, None) => (0, self.tables[e] as f64),
                (Mode::Matchmaking, Some(_)) if (self.tables[e] as f64) < KEEP_PLAYING * mean => {
                    (1, self.tables[e] as f64)
                }
                (Mode::Matchmaking, Some(_)) => (2, -self.gain(e)),
            };
            (e, key)
        });
        lowest(keyed, rng).expect("the pool has enough active entrants")
    }

    /// What one more table of entrant `e` is worth to the ranking: its doubt at the fit, its
    /// variance's shrinking since (the tables it sat at), and one table's share of its tables.
    fn gain(&self, e: usize) -> f64 {
        let then = self.tables_at_fit[e].max(1) as f64;
        let now = self.tables[e].max(1) as f64;
        self.doubt[e] * (then / now).min(1.0) / (now + 1.0)
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

    /// The log of the pair's doubt ([`pair_doubt`]) of `a` and `b` now: 0 (any match is as
    /// good) when either is unrated.
    fn log_quality(&self, a: usize, b: usize) -> f64 {
        let (Some(ra), Some(rb)) = (self.rating(a), self.rating(b)) else {
            return 0.0;
        };
        let (ua, ub) = (
            self.uncertainty(a).unwrap_or(ra.half_width),
            self.uncertainty(b).unwrap_or(rb.half_width),
        );
        // Half-widths of 95% intervals as standard errors.
        let spread = (ua / 1.96).powi(2) + (ub / 1.96).powi(2);
        -(ra.elo - rb.elo).powi(2) / (2.0 * spread.max(f64::MIN_POSITIVE))
    }
}

/// The doubt that two ratings are in the wrong order, as a weight: `exp(-z^2 / 2)`, `z` their
/// Elo difference over its standard error (`var_a`, `var_b`: their variances, in Elo squared).
pub fn pair_doubt(elo_a: f64, var_a: f64, elo_b: f64, var_b: f64) -> f64 {
    (-(elo_a - elo_b).powi(2) / (2.0 * (var_a + var_b))).exp()
}

/// Each entrant's doubt about its place in the ranking: over every other rated entrant, the
/// pair's [`pair_doubt`] times the entrant's share of the pair's variance (an entrant whose
/// rating is settled gains little by playing the pairs its neighbour's doubt makes uncertain);
/// 0 when unrated. Only neighbours within six standard errors count (the rest add under 1e-8
/// each): O(n log n) plus the pairs that count.
pub fn rank_doubt(ratings: &[Option<Rated>]) -> Vec<f64> {
    let mut rated: Vec<(usize, f64, f64)> = ratings
        .iter()
        .enumerate()
        .filter_map(|(e, r)| r.map(|r| (e, r.elo, (r.half_width / 1.96).powi(2))))
        .collect();
    rated.sort_by(|a, b| a.1.total_cmp(&b.1));
    let widest = rated.iter().map(|r| r.2).fold(0.0, f64::max);
    let mut doubt = vec![0.0; ratings.len()];
    for (i, &(a, elo_a, var_a)) in rated.iter().enumerate() {
        for &(b, elo_b, var_b) in &rated[i + 1..] {
            if (elo_b - elo_a).powi(2) > 36.0 * (var_a + widest) {
                break;
            }
            let pair = pair_doubt(elo_a, var_a, elo_b, var_b);
            let total = (var_a + var_b).max(f64::MIN_POSITIVE);
            doubt[a] += pair * var_a / total;
            doubt[b] += pair * var_b / total;
        }
    }
    doubt
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
    fn matchmaking_seats_the_least_certain_with_its_uncertain_neighbours() {
        // Entrants 20 Elo apart, 25 the least certain (a 95% half-width of 100 Elo, 51 Elo of
        // standard error; the others 10).
        let mut pool = Pool::new(50);
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
        // Drawn uniformly, an opponent would be 12.5 entrants away on average; with weight the
        // pair's doubt, the difference's standard error is sqrt(51^2 + 10^2) = 52 Elo, 2.6
        // entrants: about 2.3 away.
        let mean = distance as f64 / 400.0;
        assert!((1.5..3.5).contains(&mean), "mean distance {mean}");
        // An unrated entrant goes first.
        pool.grow(51);
        let table = pool.draw(4, Mode::Matchmaking, &mut rng).unwrap();
        assert!(table.contains(&50));
    }

    #[test]
    fn the_doubt_of_a_place_counts_its_uncertain_neighbours() {
        let rated = |elo: f64, half_width: f64| Some(Rated { elo, half_width });
        // 0 and 1 close and uncertain, 2 far from both, 3 unrated.
        let doubt = rank_doubt(&[
            rated(0.0, 100.0),
            rated(10.0, 100.0),
            rated(1000.0, 100.0),
            None,
        ]);
        assert!(doubt[0] > 0.45 && doubt[1] > 0.45, "{doubt:?}");
        assert!(doubt[2] < 1e-6 && doubt[3] == 0.0, "{doubt:?}");
        // Of a pair in doubt, the less certain rating holds most of it.
        let doubt = rank_doubt(&[rated(0.0, 19.6), rated(10.0, 58.8)]);
        let pair = pair_doubt(0.0, 100.0, 10.0, 900.0);
        assert!((doubt[0] + doubt[1] - pair).abs() < 1e-9, "{doubt:?}");
        assert!((doubt[1] - 9.0 * doubt[0]).abs() < 1e-9, "{doubt:?}");
        assert_eq!(pair_doubt(5.0, 1.0, 5.0, 1.0), 1.0);
        assert!(pair_doubt(0.0, 50.0, 20.0, 50.0) < pair_doubt(0.0, 50.0, 10.0, 50.0));
    }

    #[test]
    fn matchmaking_seeds_a_table_where_the_ranking_is_least_settled() {
        // Equally certain ratings: 0 to 4 bunched 5 Elo apart, 5 to 9 spread 200 apart. Every
        // table is seeded in the bunch until its entrants have played far more than the rest.
        let mut pool = Pool::new(10);
        let ratings: Vec<Option<Rated>> = (0..10)
            .map(|e| {
                let elo = if e < 5 {
                    e as f64 * 5.0
                } else {
                    e as f64 * 200.0
                };
                Some(Rated {
                    elo,
                    half_width: 40.0,
                })
            })
            .collect();
        play(&mut pool, 2, Mode::Balanced, 10, 1);
        pool.rate(&ratings);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..10 {
            let table = pool.draw(2, Mode::Matchmaking, &mut rng).unwrap();
            assert!(table.iter().all(|&e| e < 5), "{table:?}");
            pool.seat(&table);
        }
        // Yet no entrant is left behind: one under a quarter of the mean goes first.
        play(&mut pool, 2, Mode::Matchmaking, 200, 4);
        let fewest = (0..10).map(|e| pool.tables(e)).min().unwrap();
        let mean = (0..10).map(|e| pool.tables(e)).sum::<u64>() as f64 / 10.0;
        assert!(
            fewest as f64 >= KEEP_PLAYING * mean - 1.0,
            "{fewest} against a mean of {mean}"
        );
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
