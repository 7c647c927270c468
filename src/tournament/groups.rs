//! A tournament's groups, never held as a list: group `r` is made from its rank `r` when
//! played, and a group read back from results is ranked (or refused) without making the others.
//! A round-robin of 1,000 entrants has half a million pairs; of 100,000, five billion.
//!
//! A group is a pick of entrants in lexicographic order (every `k`-subset for a round-robin,
//! entrant 0 and every `k - 1`-subset of the others for a gauntlet), then shaped for the table:
//! with partnerships of copies, `[a, b]` seats as `[a, b, a, b]`; with `splits`, each pick of
//! four gives its three splits into two teams.

use serde::{Deserialize, Serialize};

/// Who meets whom.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every group of entrants of the game's size meets equally often.
    RoundRobin,
    /// The first entrant against every group of the others.
    Gauntlet,
    /// Tables drawn one at a time for a budget of games, each on a deal of its own; entrants
    /// may join and retire.
    Ladder,
}

impl Format {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
            Format::Ladder => "ladder",
        }
    }
}

/// How the seats of a game are filled from a group's members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// Players at the table: 2, 3 or 4.
    pub players: usize,
    /// With 4 players: partnerships.
    pub teams: bool,
    /// With 4 in partnerships: every split of 4 entrants into teams (otherwise a team is two
    /// copies of one entrant).
    pub splits: bool,
    /// With 4 cut-throat: all 24 orders instead of the balanced 8.
    pub all_orders: bool,
}

/// The groups of a format and table among `entrants` entrants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Groups {
    format: Format,
    shape: Shape,
    /// Entrants picked from: all, or all but entrant 0 in a gauntlet.
    pool: u64,
    /// Entrants per pick, entrant 0 of a gauntlet excluded.
    picked: u64,
    count: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Plain,
    Copies,
    Splits,
}

impl Groups {
    /// The groups of `format` at `table` among `entrants` entrants.
    pub fn new(table: &Table, format: Format, entrants: usize) -> Groups {
        let shape = match (table.players, table.teams, table.splits) {
            (4, true, false) => Shape::Copies,
            (4, true, true) => Shape::Splits,
            _ => Shape::Plain,
        };
        let size = match shape {
            Shape::Copies => 2,
            _ => table.players as u64,
        };
        let (pool, picked) = match format {
            // A ladder's table is any group of a round-robin.
            Format::RoundRobin | Format::Ladder => (entrants as u64, size),
            Format::Gauntlet => ((entrants as u64).saturating_sub(1), size - 1),
        };
        let enough = entrants as u64 >= size;
        let picks = if enough { binomial(pool, picked) } else { 0 };
        let count = match shape {
            Shape::Splits => picks.saturating_mul(3),
            _ => picks,
        };
        Groups {
            format,
            shape,
            pool,
            picked,
            count,
        }
    }

    /// Their format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The group of the distinct entrants `pick` (increasing), shaped for the table; `split`
    /// (0 to 2) chooses the teams of a pick of four when every split is played.
    pub fn of_pick(&self, pick: &[usize], split: usize) -> Vec<usize> {
        self.shaped(pick, split % 3)
    }

    /// Distinct entrants per group (a team of two copies counts one).
    pub fn picked(&self) -> usize {
        self.picked as usize + self.offset()
    }

    /// How many groups there are (saturating at `u64::MAX`).
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The first entrant of the pool (1 in a gauntlet, whose entrant 0 is in every group).
    fn offset(&self) -> usize {
        usize::from(self.format == Format::Gauntlet)
    }

    /// Group `rank` (below [`len`](Groups::len)), entrant indices per member.
    pub fn get(&self, rank: u64) -> Vec<usize> {
        let (pick_rank, split) = match self.shape {
            Shape::Splits => (rank / 3, (rank % 3) as usize),
            _ => (rank, 0),
        };
        let mut pick: Vec<usize> = unrank(self.pool, self.picked, pick_rank)
            .into_iter()
            .map(|e| e as usize + self.offset())
            .collect();
        if self.format == Format::Gauntlet {
            pick.insert(0, 0);
        }
        self.shaped(&pick, split)
    }

    fn shaped(&self, p: &[usize], split: usize) -> Vec<usize> {
        match self.shape {
            Shape::Plain => p.to_vec(),
            Shape::Copies => vec![p[0], p[1], p[0], p[1]],
            // The first entrant with the second, the third, then the fourth.
            Shape::Splits => match split {
                0 => vec![p[0], p[2], p[1], p[3]],
                1 => vec![p[0], p[1], p[2], p[3]],
                _ => vec![p[0], p[1], p[3], p[2]],
            },
        }
    }

    /// The rank of `group`, if it is one of these groups.
    pub fn rank(&self, group: &[usize]) -> Option<u64> {
        let (pick, split) = self.unshaped(group)?;
        let pool: Vec<u64> = match self.format {
            Format::RoundRobin | Format::Ladder => pick.iter().map(|&e| e as u64).collect(),
            Format::Gauntlet => match pick.split_first() {
                Some((0, rest)) => rest.iter().map(|&e| e as u64 - 1).collect(),
                _ => return None,
            },
        };
        let increasing = pool.windows(2).all(|w| w[0] < w[1]);
        let inside = pool.iter().all(|&e| e < self.pool);
        if !increasing || !inside || pool.len() as u64 != self.picked {
            return None;
        }
        let pick_rank = rank(self.pool, &pool);
        Some(match self.shape {
            Shape::Splits => pick_rank * 3 + split as u64,
            _ => pick_rank,
        })
    }

    /// The pick a group was shaped from, and its split.
    fn unshaped(&self, g: &[usize]) -> Option<(Vec<usize>, usize)> {
        match (self.shape, g) {
            (Shape::Plain, _) => Some((g.to_vec(), 0)),
            (Shape::Copies, [a, b, c, d]) if a == c && b == d => Some((vec![*a, *b], 0)),
            (Shape::Splits, &[a, b, c, d]) => {
                let (pick, split) = match (b, c, d) {
                    (b, c, d) if c < b && b < d => (vec![a, c, b, d], 0),
                    (b, c, d) if b < c && c < d => (vec![a, b, c, d], 1),
                    (b, c, d) if b < d && d < c => (vec![a, b, d, c], 2),
                    _ => return None,
                };
                Some((pick, split))
            }
            _ => None,
        }
    }

    /// Every group in rank order, each made when reached.
    pub fn iter(&self) -> impl Iterator<Item = Vec<usize>> + Send + use<> {
        let groups = *self;
        let mut pick: Option<Vec<u64>> = (groups.count > 0).then(|| (0..groups.picked).collect());
        let splits = if groups.shape == Shape::Splits { 3 } else { 1 };
        std::iter::from_fn(move || {
            let current = pick.clone()?;
            pick = next_combination(current.clone(), groups.pool);
            let mut p: Vec<usize> = current
                .iter()
                .map(|&e| e as usize + groups.offset())
                .collect();
            if groups.format == Format::Gauntlet {
                p.insert(0, 0);
            }
            Some((0..splits).map(move |s| groups.shaped(&p, s)))
        })
        .flatten()
    }
}

/// `n` choose `k`, saturating at `u64::MAX`.
pub fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        c = c * u128::from(n - i) / u128::from(i + 1);
        if c > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    c as u64
}

/// The lexicographic rank of the increasing combination `c` of `0..n`.
fn rank(n: u64, c: &[u64]) -> u64 {
    let k = c.len() as u64;
    let after: u64 = c
        .iter()
        .enumerate()
        .map(|(i, &e)| binomial(n - 1 - e, k - i as u64))
        .sum();
    binomial(n, k) - 1 - after
}

/// The increasing combination of `k` of `0..n` whose lexicographic rank is `r`.
fn unrank(n: u64, k: u64, mut r: u64) -> Vec<u64> {
    let mut c = Vec::with_capacity(k as usize);
    let mut next = 0;
    for i in 0..k {
        // Skip whole blocks of combinations starting with a smaller element.
        loop {
            let block = binomial(n - 1 - next, k - 1 - i);
            if r < block {
                break;
            }
            r -= block;
            next += 1;
        }
        c.push(next);
        next += 1;
    }
    c
}

/// The combination after `c` in lexicographic order, among those of `0..n`.
fn next_combination(mut c: Vec<u64>, n: u64) -> Option<Vec<u64>> {
    let k = c.len();
    let i = (0..k).rev().find(|&i| c[i] < n - (k - i) as u64)?;
    c[i] += 1;
    for j in i + 1..k {
        c[j] = c[j - 1] + 1;
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(players: usize, teams: bool, splits: bool) -> Table {
        Table {
            players,
            teams,
            splits,
            all_orders: false,
        }
    }

    #[test]
    fn every_group_is_made_from_its_rank_and_ranked_back() {
        let tables = [
            table(2, false, false),
            table(3, false, false),
            table(4, false, false),
            table(4, true, false),
            table(4, true, true),
        ];
        for t in tables {
            for format in [Format::RoundRobin, Format::Gauntlet] {
                for n in 0..9 {
                    let groups = Groups::new(&t, format, n);
                    let all: Vec<Vec<usize>> = groups.iter().collect();
                    assert_eq!(all.len() as u64, groups.len(), "{t:?} {format:?} {n}");
                    for (r, g) in all.iter().enumerate() {
                        assert_eq!(&groups.get(r as u64), g);
                        assert_eq!(groups.rank(g), Some(r as u64), "{g:?}");
                    }
                    let mut sorted = all.clone();
                    sorted.sort();
                    sorted.dedup();
                    assert_eq!(sorted.len(), all.len());
                }
            }
        }
    }

    #[test]
    fn what_is_not_a_group_has_no_rank() {
        let pairs = Groups::new(&table(2, false, false), Format::RoundRobin, 5);
        for g in [vec![1, 0], vec![0, 5], vec![2, 2], vec![0], vec![0, 1, 2]] {
            assert_eq!(pairs.rank(&g), None, "{g:?}");
        }
        let gauntlet = Groups::new(&table(2, false, false), Format::Gauntlet, 5);
        assert_eq!(gauntlet.rank(&[1, 2]), None);
        let copies = Groups::new(&table(4, true, false), Format::RoundRobin, 5);
        assert_eq!(copies.rank(&[0, 1, 1, 0]), None);
    }

    #[test]
    fn a_hundred_thousand_entrants_have_their_pairs_counted_not_listed() {
        let groups = Groups::new(&table(2, false, false), Format::RoundRobin, 100_000);
        assert_eq!(groups.len(), 4_999_950_000);
        let last = groups.get(groups.len() - 1);
        assert_eq!(last, vec![99_998, 99_999]);
        assert_eq!(groups.rank(&last), Some(groups.len() - 1));
        assert_eq!(groups.iter().nth(1), Some(vec![0, 2]));
    }
}
