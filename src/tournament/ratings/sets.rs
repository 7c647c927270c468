//! The complete duplicate sets the batch fit reads, kept in memory flat in their number.
//!
//! The likelihood, its gradient and its information need only each pair of sides' games and
//! points: exact integer totals, as many as pairs of sides that met. The sandwich's `J` needs each
//! set's own comparisons (a set is a cluster): kept exactly while there are at most
//! [`SET_CAP`] distinct sets, past that a uniform sample of `SET_CAP` sets, the bottom-k sample by
//! a hash of each set's key (E. Cohen and H. Kaplan, "Summarizing data using bottom-k sketches",
//! PODC 2007): the sets whose hashes are smallest. What is kept depends on which sets arrived,
//! never on their order.

use std::collections::BTreeMap;

use crate::tournament::seeds;

/// Entrants of one side (sorted, distinct: a team of copies is one entrant).
pub type Side = Vec<usize>;

/// Distinct sets kept exactly, and sets sampled past that.
pub const SET_CAP: usize = 100_000;

/// One set, packed: its entrants' count, its entrants (sorted), then per pair of its sides that
/// met a word of the first side's entrants (a bit mask over the set's entrants), the second's,
/// their games and the first's points doubled, a byte each.
type Packed = Box<[u32]>;

/// Every complete set folded in.
#[derive(Debug, Clone)]
pub struct Sets {
    /// Per pair of sides (packed as the first's length, its entrants, the second's entrants;
    /// first < second): games and the first's points doubled.
    pairs: BTreeMap<Box<[u32]>, (u64, u64)>,
    /// Each distinct set and how often it occurred, until there are more than `cap`.
    exact: Option<BTreeMap<Packed, u64>>,
    /// The `cap` sets (by hash of their key, then content) whose hashes are smallest.
    sample: BTreeMap<(u64, Packed), u64>,
    /// Sets folded in.
    count: u64,
    /// Sets in the sample.
    sampled: u64,
    cap: usize,
}

impl Default for Sets {
    fn default() -> Sets {
        Sets::with_cap(SET_CAP)
    }
}

/// A set's comparisons: per pair of its sides (as entrant bit masks), games and doubled points.
type Compared = BTreeMap<(u8, u8), (u32, u32)>;

impl Sets {
    /// No sets yet; sets kept exactly up to `cap` distinct ones, a sample of `cap` past that.
    pub fn with_cap(cap: usize) -> Sets {
        Sets {
            pairs: BTreeMap::new(),
            exact: Some(BTreeMap::new()),
            sample: BTreeMap::new(),
            count: 0,
            sampled: 0,
            cap: cap.max(1),
        }
    }

    /// Folds in one complete set: each game as its sides and their ranks (1 best). `key` names
    /// the set (one number per set, e.g. [`key_of`] its deal and group): the sample keeps the
    /// sets whose keys hash lowest.
    pub fn add(&mut self, key: u64, games: &[Vec<(Side, u32)>]) {
        let mut entrants: Vec<usize> = games
            .iter()
            .flatten()
            .flat_map(|(s, _)| s.iter().copied())
            .collect();
        entrants.sort_unstable();
        entrants.dedup();
        let mask = |side: &Side| -> u8 {
            side.iter()
                .map(|e| 1u8 << entrants.binary_search(e).expect("the set's own entrant"))
                .sum()
        };
        let mut compared = Compared::new();
        for game in games {
            for (i, (a, rank_a)) in game.iter().enumerate() {
                for (b, rank_b) in &game[i + 1..] {
                    let doubled = match rank_a.cmp(rank_b) {
                        std::cmp::Ordering::Less => 2,
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Greater => 0,
                    };
                    let (first, second, points) = match a.cmp(b) {
                        std::cmp::Ordering::Less => (a, b, doubled),
                        std::cmp::Ordering::Greater => (b, a, 2 - doubled),
                        // The same entrants on both sides tell nothing of their strength.
                        std::cmp::Ordering::Equal => continue,
                    };
                    let pair = self.pairs.entry(pair_key(first, second)).or_default();
                    pair.0 += 1;
                    pair.1 += u64::from(points);
                    let cell = compared.entry((mask(first), mask(second))).or_default();
                    cell.0 += 1;
                    cell.1 += points;
                }
            }
        }
        if compared.is_empty() {
            return;
        }
        self.keep(key, pack(&entrants, &compared));
    }

    /// Counts `set` among the clusters: exactly, and in the sample if its hash is low enough.
    fn keep(&mut self, key: u64, set: Packed) {
        self.count += 1;
        if let Some(exact) = &mut self.exact {
            *exact.entry(set.clone()).or_default() += 1;
            if exact.len() > self.cap {
                self.exact = None;
            }
        }
        *self.sample.entry((seeds::mix(key), set)).or_default() += 1;
        self.sampled += 1;
        if self.sample.len() > self.cap
            && let Some((_, n)) = self.sample.pop_last()
        {
            self.sampled -= n;
        }
    }

    /// Every pair of sides that met: the first's entrants, the second's, their games and the
    /// first's points doubled.
    pub(super) fn pairs(&self) -> impl Iterator<Item = (&[u32], &[u32], u64, u64)> {
        self.pairs.iter().map(|(key, &(games, doubled))| {
            let split = key[0] as usize + 1;
            (&key[1..split], &key[split..], games, doubled)
        })
    }

    /// The clusters for the sandwich and the weight of each (the sets folded in per set kept):
    /// every distinct set with its count, or past the cap the sample.
    pub(super) fn clusters(&self) -> (Vec<(Cluster, u64)>, f64) {
        match &self.exact {
            Some(exact) => (exact.iter().map(|(s, &n)| (unpack(s), n)).collect(), 1.0),
            None => (
                self.sample
                    .iter()
                    .map(|((_, s), &n)| (unpack(s), n))
                    .collect(),
                self.count as f64 / self.sampled as f64,
            ),
        }
    }

    /// Whether the sandwich reads a sample of the sets rather than all of them.
    pub fn sampled(&self) -> bool {
        self.exact.is_none()
    }
}

/// A set unpacked for the sandwich: per pair of sides, the first's entrants, the second's,
/// games and the first's points doubled.
pub(super) type Cluster = Vec<(Vec<u32>, Vec<u32>, u32, u32)>;

/// The key of a pair of sides in [`Sets::pairs`].
fn pair_key(first: &Side, second: &Side) -> Box<[u32]> {
    let index = |e: &usize| u32::try_from(*e).expect("fewer than 4 billion entrants");
    std::iter::once(first.len() as u32)
        .chain(first.iter().map(index))
        .chain(second.iter().map(index))
        .collect()
}

fn pack(entrants: &[usize], compared: &Compared) -> Packed {
    let index = |e: &usize| u32::try_from(*e).expect("fewer than 4 billion entrants");
    let byte = |x: u32| x.min(255);
    std::iter::once(entrants.len() as u32)
        .chain(entrants.iter().map(index))
        .chain(compared.iter().map(|(&(a, b), &(games, doubled))| {
            u32::from(a) | u32::from(b) << 8 | byte(games) << 16 | byte(doubled) << 24
        }))
        .collect()
}

fn unpack(set: &[u32]) -> Cluster {
    let count = set[0] as usize;
    let entrants = &set[1..=count];
    let members = |mask: u32| -> Vec<u32> {
        (0..count)
            .filter(|k| mask & (1 << k) != 0)
            .map(|k| entrants[k])
            .collect()
    };
    set[count + 1..]
        .iter()
        .map(|&w| {
            (
                members(w & 0xff),
                members(w >> 8 & 0xff),
                w >> 16 & 0xff,
                w >> 24,
            )
        })
        .collect()
}

/// The key of the duplicate set of `group` on the deal `deal` (seeded `deal_seed`).
pub fn set_key(group: &[usize], deal: u64, deal_seed: u64) -> u64 {
    key_of(group.iter().map(|&e| e as u64).chain([deal, deal_seed]))
}

/// A set's key as one number, for [`Sets::add`]: its parts mixed by SplitMix64's finalizer,
/// every bit of which depends on every bit of its input, so that the smallest hashes are a
/// uniform sample of the keys.
pub fn key_of(parts: impl IntoIterator<Item = u64>) -> u64 {
    parts
        .into_iter()
        .fold(0x9e37_79b9_7f4a_7c15, |h, x| seeds::mix(h ^ x))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-game set of `a` against `b`, `a` ranked `first` then `second`.
    fn pair(a: usize, b: usize, first: u32, second: u32) -> Vec<Vec<(Side, u32)>> {
        vec![
            vec![(vec![a], first), (vec![b], 3 - first)],
            vec![(vec![b], 3 - second), (vec![a], second)],
        ]
    }

    #[test]
    fn pairs_total_every_game_and_a_set_packs_and_unpacks() {
        let mut sets = Sets::default();
        sets.add(1, &pair(3, 1, 1, 1));
        sets.add(2, &pair(1, 3, 1, 2));
        let pairs: Vec<_> = sets
            .pairs()
            .map(|(a, b, g, p)| (a.to_vec(), b.to_vec(), g, p))
            .collect();
        // e1 against e3: 4 games, e1 lost both of the first set and split the second: 1 of 4.
        assert_eq!(pairs, vec![(vec![1], vec![3], 4, 2)]);
        let (clusters, weight) = sets.clusters();
        assert_eq!(weight, 1.0);
        let mut expected = vec![
            (vec![(vec![1], vec![3], 2, 0)], 1),
            (vec![(vec![1], vec![3], 2, 2)], 1),
        ];
        expected.sort();
        let mut clusters = clusters;
        clusters.sort();
        assert_eq!(clusters, expected);
        // Teams of two against each other in one game.
        let mut teams = Sets::default();
        teams.add(3, &[vec![(vec![2, 7], 2), (vec![0, 5], 1)]]);
        let (clusters, _) = teams.clusters();
        assert_eq!(clusters, vec![(vec![(vec![0, 5], vec![2, 7], 1, 2)], 1)]);
    }

    #[test]
    fn past_the_cap_a_sample_of_the_lowest_hashes_weighted_up() {
        let mut sets = Sets::with_cap(3);
        for k in 0..10 {
            sets.add(k, &pair(0, 1 + k as usize, 1, 2));
        }
        assert!(sets.sampled());
        let (clusters, weight) = sets.clusters();
        assert_eq!(clusters.len(), 3);
        assert!((weight - 10.0 / 3.0).abs() < 1e-12);
        let mut lowest: Vec<u64> = (0..10).map(seeds::mix).collect();
        lowest.sort_unstable();
        let kept: Vec<u64> = sets.sample.keys().map(|(h, _)| *h).collect();
        assert_eq!(kept, lowest[..3]);
        // Below the cap, the exact sets.
        let mut few = Sets::with_cap(10);
        (0..10).for_each(|k| few.add(k, &pair(0, 1 + k as usize, 1, 2)));
        assert!(!few.sampled());
        assert_eq!(few.clusters().0.len(), 10);
    }
}
