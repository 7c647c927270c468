//! The complete duplicate sets the batch fit reads, kept in memory flat in their number.
//!
//! The likelihood, its gradient and its information need only each pair of sides' games and
//! points: exact integer totals, as many as pairs of sides that met. The sandwich's `J` needs each
//! cluster's own comparisons. A cluster is every set dealt the same deal: a round-robin deals
//! deal `d` to every group from the same seed, so the sets of one deal are not independent of
//! each other (a deal that suits one entrant suits it in every group it sits in). The clusters
//! are kept exactly while they hold at most [`SET_CAP`] comparisons (pairs of sides in a
//! cluster), past that a uniform sample of the clusters, the bottom-k sample by a hash of each
//! cluster's key (E. Cohen and H. Kaplan, "Summarizing data using bottom-k sketches", PODC 2007):
//! the clusters whose hashes are smallest, as many as hold at most [`SET_CAP`] comparisons. What
//! is kept depends on which sets arrived, never on their order.
//!
//! A cluster's comparisons are stored once however many clusters have them (a match of two
//! entrants has a handful of distinct deal outcomes): a cluster kept costs its hash, its sets and
//! a shared pointer, and `J` reads each distinct cluster once with its count.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::tournament::seeds;

/// Entrants of one side (sorted, distinct: a team of copies is one entrant).
pub type Side = Vec<usize>;

/// Comparisons (pairs of sides within a cluster) kept exactly, and sampled past that.
pub const SET_CAP: usize = 100_000;

/// A pair of sides, packed: the first's length, its entrants, then the second's entrants.
type PairKey = Box<[u32]>;

/// Per pair of sides (first < second): games and the first's points doubled.
type Tally = BTreeMap<PairKey, (u64, u64)>;

/// A cluster's comparisons, sorted by pair of sides: each pair, its games and the first's points
/// doubled.
type Content = Box<[(PairKey, u64, u64)]>;

/// Every complete set folded in.
#[derive(Debug, Clone)]
pub struct Sets {
    /// Per pair of sides over all sets.
    pairs: Tally,
    /// The clusters kept, by the hash of their key (a bijection: one cluster a hash): each one's
    /// sets and comparisons, shared with every other cluster of the same comparisons.
    clusters: BTreeMap<u64, (u64, Arc<Content>)>,
    /// Each distinct cluster's comparisons once, and how many clusters kept have them.
    contents: BTreeMap<Arc<Content>, u64>,
    /// The smallest hash of a cluster dropped: no cluster hashed at or above it is kept.
    ceiling: Option<u64>,
    /// Comparisons in the clusters kept.
    kept: usize,
    /// Sets folded in.
    count: u64,
    /// Sets in the clusters kept.
    sampled: u64,
    cap: usize,
}

impl Default for Sets {
    fn default() -> Sets {
        Sets::with_cap(SET_CAP)
    }
}

impl Sets {
    /// No sets yet; clusters kept exactly up to `cap` comparisons, a sample of them past that.
    pub fn with_cap(cap: usize) -> Sets {
        Sets {
            pairs: Tally::new(),
            clusters: BTreeMap::new(),
            contents: BTreeMap::new(),
            ceiling: None,
            kept: 0,
            count: 0,
            sampled: 0,
            cap: cap.max(1),
        }
    }

    /// Folds in one complete set: each game as its sides and their ranks (1 best). `key` names
    /// the set's cluster, the sets whose games are not independent of each other: [`deal_key`]
    /// of its deal (sets of one key are one cluster of the sandwich). The sample keeps the
    /// clusters whose keys hash lowest.
    pub fn add(&mut self, key: u64, games: &[Vec<(Side, u32)>]) {
        let mut compared = Tally::new();
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
                    let cell = compared.entry(pair_key(first, second)).or_default();
                    cell.0 += 1;
                    cell.1 += points;
                }
            }
        }
        if compared.is_empty() {
            return;
        }
        for (pair, &(games, doubled)) in &compared {
            let total = self.pairs.entry(pair.clone()).or_default();
            total.0 += games;
            total.1 += doubled;
        }
        self.keep(key, compared);
    }

    /// Counts a set's comparisons in its cluster, if that cluster's hash is low enough; drops
    /// the clusters hashed highest while those kept hold more than the cap (never the last).
    fn keep(&mut self, key: u64, compared: Tally) {
        self.count += 1;
        let hash = seeds::mix(key);
        if self.ceiling.is_some_and(|c| hash >= c) {
            return;
        }
        let (sets, content) = match self.clusters.remove(&hash) {
            Some((sets, before)) => {
                let mut merged = compared;
                for (pair, games, doubled) in before.iter() {
                    let cell = merged.entry(pair.clone()).or_default();
                    cell.0 += games;
                    cell.1 += doubled;
                }
                self.kept -= before.len();
                self.release(before);
                (sets, merged)
            }
            None => (0, compared),
        };
        let content = self.intern(content);
        self.kept += content.len();
        self.clusters.insert(hash, (sets + 1, content));
        self.sampled += 1;
        while self.kept > self.cap && self.clusters.len() > 1 {
            let Some((hash, (sets, dropped))) = self.clusters.pop_last() else {
                break;
            };
            self.kept -= dropped.len();
            self.sampled -= sets;
            self.release(dropped);
            self.ceiling = Some(hash);
        }
    }

    /// The shared copy of a cluster's comparisons, counted once more.
    fn intern(&mut self, tally: Tally) -> Arc<Content> {
        let content: Content = tally.into_iter().map(|(p, (g, d))| (p, g, d)).collect();
        if let Some((shared, _)) = self.contents.get_key_value(&content) {
            let shared = Arc::clone(shared);
            *self.contents.get_mut(&content).expect("just found") += 1;
            return shared;
        }
        let shared = Arc::new(content);
        self.contents.insert(Arc::clone(&shared), 1);
        shared
    }

    /// Counts a cluster's comparisons once less, forgotten when no cluster kept has them.
    fn release(&mut self, content: Arc<Content>) {
        let clusters = self
            .contents
            .get_mut(&content)
            .expect("a cluster's comparisons are interned");
        *clusters -= 1;
        if *clusters == 0 {
            self.contents.remove(&content);
        }
    }

    /// Every pair of sides that met: the first's entrants, the second's, their games and the
    /// first's points doubled.
    pub(super) fn pairs(&self) -> impl Iterator<Item = (&[u32], &[u32], u64, u64)> {
        self.pairs.iter().map(|(key, &(games, doubled))| {
            let (first, second) = split(key);
            (first, second, games, doubled)
        })
    }

    /// The distinct clusters for the sandwich, each with the number of clusters kept that have
    /// its comparisons, and the weight of each cluster (the sets folded in per set kept): every
    /// cluster, or past the cap the sample.
    pub(super) fn clusters(&self) -> (Vec<(Cluster, u64)>, f64) {
        let clusters = self
            .contents
            .iter()
            .map(|(content, &count)| {
                let cluster = content
                    .iter()
                    .map(|(key, games, doubled)| {
                        let (first, second) = split(key);
                        (first.to_vec(), second.to_vec(), *games, *doubled)
                    })
                    .collect();
                (cluster, count)
            })
            .collect();
        (clusters, self.count as f64 / self.sampled.max(1) as f64)
    }

    /// Whether the sandwich reads a sample of the clusters rather than all of them.
    pub fn sampled(&self) -> bool {
        self.ceiling.is_some()
    }
}

/// A cluster unpacked for the sandwich: per pair of sides, the first's entrants, the second's,
/// games and the first's points doubled.
pub(super) type Cluster = Vec<(Vec<u32>, Vec<u32>, u64, u64)>;

/// The key of a pair of sides in a [`Tally`].
fn pair_key(first: &Side, second: &Side) -> PairKey {
    let index = |e: &usize| u32::try_from(*e).expect("fewer than 4 billion entrants");
    std::iter::once(first.len() as u32)
        .chain(first.iter().map(index))
        .chain(second.iter().map(index))
        .collect()
}

/// A pair of sides' two sides.
fn split(key: &[u32]) -> (&[u32], &[u32]) {
    let split = key[0] as usize + 1;
    (&key[1..split], &key[split..])
}

/// The cluster key of the sets dealt deal `deal` (seeded `deal_seed`), whatever their group.
pub fn deal_key(deal: u64, deal_seed: u64) -> u64 {
    key_of([deal, deal_seed])
}

/// A key as one number, for [`Sets::add`]: its parts mixed by SplitMix64's finalizer, every
/// bit of which depends on every bit of its input, so that the smallest hashes are a uniform
/// sample of the keys.
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
    fn pairs_total_every_game_and_a_cluster_sums_its_sets() {
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
        // Two groups dealt one deal are one cluster, its pairs summed.
        let mut dealt = Sets::default();
        dealt.add(deal_key(4, 9), &pair(0, 1, 1, 2));
        dealt.add(deal_key(4, 9), &pair(0, 2, 1, 1));
        dealt.add(deal_key(4, 9), &pair(0, 1, 1, 1));
        dealt.add(deal_key(5, 9), &pair(0, 1, 1, 1));
        let (mut clusters, _) = dealt.clusters();
        clusters.sort();
        assert_eq!(
            clusters,
            vec![
                (vec![(vec![0], vec![1], 2, 4)], 1),
                (vec![(vec![0], vec![1], 4, 6), (vec![0], vec![2], 2, 4)], 1),
            ]
        );
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
        let kept: Vec<u64> = sets.clusters.keys().copied().collect();
        assert_eq!(kept, lowest[..3]);
        // Below the cap, every cluster.
        let mut few = Sets::with_cap(10);
        (0..10).for_each(|k| few.add(k, &pair(0, 1 + k as usize, 1, 2)));
        assert!(!few.sampled());
        assert_eq!(few.clusters().0.len(), 10);
        // The cap counts comparisons: a cluster of 3 pairs, then 10 clusters of one, any order.
        let big = |sets: &mut Sets| {
            for b in 1..4 {
                sets.add(100, &pair(0, 10 + b, 1, 2));
            }
        };
        let (mut one, mut other) = (Sets::with_cap(5), Sets::with_cap(5));
        big(&mut one);
        (0..10).for_each(|k| one.add(k, &pair(0, 1 + k as usize, 1, 2)));
        (0..10).for_each(|k| other.add(k, &pair(0, 1 + k as usize, 1, 2)));
        big(&mut other);
        assert_eq!(one.clusters(), other.clusters());
        assert!(one.kept <= 5 && one.sampled());
    }

    #[test]
    fn clusters_of_the_same_comparisons_are_stored_once_with_their_count() {
        // 10,000 deals of two entrants: a deal's set ends one of five ways (0 to 4 half points),
        // so five distinct clusters are stored, however many deals.
        let mut sets = Sets::default();
        for deal in 0..10_000u64 {
            let (first, second) = ((deal % 3) as u32 + 1, (deal / 3 % 3) as u32 + 1);
            sets.add(deal_key(deal, 9), &pair(0, 1, first.min(2), second.min(2)));
        }
        let (clusters, weight) = sets.clusters();
        assert!(clusters.len() <= 5, "{} distinct clusters", clusters.len());
        assert_eq!(clusters.iter().map(|(_, n)| n).sum::<u64>(), 10_000);
        assert_eq!((sets.contents.len(), weight), (clusters.len(), 1.0));
        // A deal played again by the group moves to the cluster of its summed comparisons, and
        // a cluster no deal has any more is forgotten.
        let mut again = Sets::default();
        again.add(deal_key(1, 9), &pair(0, 1, 1, 1));
        again.add(deal_key(2, 9), &pair(0, 1, 1, 1));
        again.add(deal_key(1, 9), &pair(0, 1, 2, 2));
        let (mut clusters, _) = again.clusters();
        clusters.sort();
        assert_eq!(
            clusters,
            vec![
                (vec![(vec![0], vec![1], 2, 4)], 1),
                (vec![(vec![0], vec![1], 4, 4)], 1),
            ]
        );
        // Past the cap, a dropped cluster's comparisons are forgotten with it.
        let mut capped = Sets::with_cap(3);
        (0..10).for_each(|k| capped.add(k, &pair(0, 1 + k as usize, 1, 2)));
        assert_eq!(capped.contents.len(), 3);
    }
}
