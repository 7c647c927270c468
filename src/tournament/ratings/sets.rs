//! The complete duplicate sets the batch fit reads, kept in memory flat in their number.
//!
//! The likelihood, its gradient and its information need only each pair of sides' games and
//! points: exact integer totals, as many as pairs of sides that met. The sandwich's `J` needs each
//! cluster's own comparisons. A cluster is every set dealt the same deal: a round-robin deals
//! deal `d` to every group from the same seed, so the sets of one deal are not independent of
//! each other (a deal that suits one entrant suits it in every group it sits in). The clusters
//! are kept exactly while they hold at most [`SET_CAP`] comparisons (pairs of sides in a
//! cluster) and are at most [`DEAL_CAP`], past that a uniform sample of the clusters, the bottom-k
//! sample by a hash of each cluster's key (E. Cohen and H. Kaplan, "Summarizing data using
//! bottom-k sketches", PODC 2007): the clusters whose hashes are smallest, as many as keep within
//! both caps. What
//! is kept depends on which sets arrived, never on their order.
//!
//! A small cluster's comparisons are stored once however many clusters have them (a match of
//! two entrants has a handful of distinct deal outcomes): a cluster kept costs its hash, its sets
//! and the number of its comparisons' slot (16 bytes in the map), and `J` reads each distinct
//! cluster once with its count. A large cluster (a round-robin dealt one deal to every group)
//! keeps its comparisons in a map of its own, which a set of it adds to in place: folding in a set
//! costs its own comparisons, never the cluster's.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::tournament::seeds;

/// Entrants of one side (sorted, distinct: a team of copies is one entrant).
pub type Side = Vec<usize>;

/// Comparisons (pairs of sides within a cluster) kept exactly, and sampled past that.
pub const SET_CAP: usize = 100_000;

/// Clusters kept exactly, and sampled past that: the sandwich's `J` from 50,000 clusters has a
/// relative sampling error of about the square root of 2/50,000 (0.6%; a half-width's, half
/// that), while
/// each one more kept costs memory (a two-entrant deal is a cluster of one comparison, so
/// [`SET_CAP`] alone would keep twice as many).
pub const DEAL_CAP: usize = 50_000;

/// Comparisons past which a cluster's are its own, added to in place, rather than shared.
const SHARED_MAX: usize = 16;

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
    /// The clusters kept, by the hash of their key (a bijection: one cluster a hash).
    clusters: BTreeMap<u64, Kept>,
    /// The comparisons of the clusters kept.
    slots: Slots,
    /// The smallest hash of a cluster dropped: no cluster hashed at or above it is kept.
    ceiling: Option<u64>,
    /// Comparisons in the clusters kept.
    kept: usize,
    /// Sets folded in.
    count: u64,
    /// Sets in the clusters kept.
    sampled: u64,
    cap: usize,
    deal_cap: usize,
}

/// A cluster kept: its sets, and the slot of its comparisons.
#[derive(Debug, Clone, Copy)]
struct Kept {
    sets: u32,
    slot: u32,
}

impl Default for Sets {
    fn default() -> Sets {
        Sets::with_cap(SET_CAP)
    }
}

impl Sets {
    /// No sets yet; clusters kept exactly up to `cap` comparisons (and [`DEAL_CAP`] clusters),
    /// a sample of them past that.
    pub fn with_cap(cap: usize) -> Sets {
        Sets::with_caps(cap, DEAL_CAP)
    }

    /// No sets yet; clusters kept exactly up to `cap` comparisons and `deal_cap` clusters, a
    /// sample of them past that.
    fn with_caps(cap: usize, deal_cap: usize) -> Sets {
        Sets {
            pairs: Tally::new(),
            clusters: BTreeMap::new(),
            slots: Slots::default(),
            ceiling: None,
            kept: 0,
            count: 0,
            sampled: 0,
            cap: cap.max(1),
            deal_cap: deal_cap.max(1),
        }
    }

    /// Folds in one complete set: each game as its sides and their ranks (1 best). `key` names
    /// the set's cluster, the sets whose games are not independent of each other: [`deal_key`]
    /// of its deal (sets of one key are one cluster of the sandwich). The sample keeps the
    /// clusters whose keys hash lowest.
    pub fn add(&mut self, key: u64, games: &[Vec<(Side, u32)>]) {
        let compared = compare(games);
        if compared.is_empty() {
            return;
        }
        for (pair, &(games, doubled)) in &compared {
            add_to(&mut self.pairs, pair, games, doubled);
        }
        self.keep(key, compared);
    }

    /// Counts a set's comparisons in its cluster, if that cluster's hash is low enough; drops
    /// the clusters hashed highest while those kept hold more than the cap, or are more than
    /// the clusters' cap (never the last).
    fn keep(&mut self, key: u64, compared: Tally) {
        self.count += 1;
        let hash = seeds::mix(key);
        if self.ceiling.is_some_and(|c| hash >= c) {
            return;
        }
        match self.clusters.entry(hash) {
            Entry::Occupied(mut cluster) => {
                let Kept { sets, slot } = *cluster.get();
                let before = self.slots.len(slot);
                let slot = self.slots.merge(slot, compared);
                self.kept = self.kept - before + self.slots.len(slot);
                let sets = sets
                    .checked_add(1)
                    .expect("fewer than 4 billion sets a deal");
                cluster.insert(Kept { sets, slot });
            }
            Entry::Vacant(cluster) => {
                self.kept += compared.len();
                let slot = self.slots.place(compared);
                cluster.insert(Kept { sets: 1, slot });
            }
        }
        self.sampled += 1;
        while (self.kept > self.cap || self.clusters.len() > self.deal_cap)
            && self.clusters.len() > 1
        {
            let Some((hash, dropped)) = self.clusters.pop_last() else {
                break;
            };
            self.kept -= self.slots.len(dropped.slot);
            self.sampled -= u64::from(dropped.sets);
            self.slots.release(dropped.slot);
            self.ceiling = Some(hash);
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

    /// The distinct clusters for the sandwich, in the order of their comparisons (whatever the
    /// order the sets came in), each with the number of clusters kept that have its
    /// comparisons, and the weight of each cluster (the sets folded in per set kept): every
    /// cluster, or past the cap the sample.
    pub(super) fn clusters(&self) -> (Vec<(Cluster, u64)>, f64) {
        let clusters = self
            .slots
            .distinct()
            .into_iter()
            .map(|(content, count)| (unpack(content), count))
            .collect();
        (clusters, self.count as f64 / self.sampled.max(1) as f64)
    }

    /// Whether the sandwich reads a sample of the clusters rather than all of them.
    pub fn sampled(&self) -> bool {
        self.ceiling.is_some()
    }
}

/// A set's comparisons: per pair of sides in one of its games, games and the first's points
/// doubled.
fn compare(games: &[Vec<(Side, u32)>]) -> Tally {
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
    compared
}

/// Adds a pair's games and doubled points to a tally.
fn add_to(tally: &mut Tally, pair: &PairKey, games: u64, doubled: u64) {
    let cell = match tally.get_mut(pair) {
        Some(cell) => cell,
        None => tally.entry(pair.clone()).or_default(),
    };
    cell.0 += games;
    cell.1 += doubled;
}

/// A cluster's comparisons, read in place: each pair, its games and the first's points doubled.
type Borrowed<'a> = Vec<(&'a [u32], u64, u64)>;

/// The comparisons of the clusters kept, each in a numbered slot: a small cluster's shared with
/// every cluster of the same comparisons and counted, a large one's its own.
#[derive(Debug, Clone, Default)]
struct Slots {
    slots: Vec<Slot>,
    /// Slots emptied, to be filled again.
    free: Vec<u32>,
    /// The slot of each distinct small cluster's comparisons.
    shared: HashMap<Arc<Content>, u32>,
}

/// One slot: its comparisons and how many clusters kept have them (0: a free slot).
#[derive(Debug, Clone, Default)]
struct Slot {
    comparisons: Comparisons,
    clusters: u64,
}

/// A slot's comparisons.
#[derive(Debug, Clone)]
enum Comparisons {
    /// A small cluster's, stored once for every cluster that has them.
    Shared(Arc<Content>),
    /// A large cluster's, added to in place.
    Own(Tally),
}

impl Default for Comparisons {
    fn default() -> Comparisons {
        Comparisons::Own(Tally::new())
    }
}

impl Slots {
    /// Comparisons in slot `slot`.
    fn len(&self, slot: u32) -> usize {
        match &self.slots[slot as usize].comparisons {
            Comparisons::Shared(content) => content.len(),
            Comparisons::Own(tally) => tally.len(),
        }
    }

    /// The slot of a new cluster's comparisons.
    fn place(&mut self, tally: Tally) -> u32 {
        if tally.len() > SHARED_MAX {
            return self.fill(Comparisons::Own(tally));
        }
        let content: Content = tally.into_iter().map(|(p, (g, d))| (p, g, d)).collect();
        if let Some(&slot) = self.shared.get(&content) {
            self.slots[slot as usize].clusters += 1;
            return slot;
        }
        let content = Arc::new(content);
        let slot = self.fill(Comparisons::Shared(Arc::clone(&content)));
        self.shared.insert(content, slot);
        slot
    }

    /// The slot of a cluster's comparisons, once `tally` is added to those in `slot`: the same
    /// slot, added to in place, when it is the cluster's own.
    fn merge(&mut self, slot: u32, tally: Tally) -> u32 {
        if let Comparisons::Own(own) = &mut self.slots[slot as usize].comparisons {
            for (pair, (games, doubled)) in &tally {
                add_to(own, pair, *games, *doubled);
            }
            return slot;
        }
        let mut merged = tally;
        if let Comparisons::Shared(content) = &self.slots[slot as usize].comparisons {
            for (pair, games, doubled) in content.iter() {
                add_to(&mut merged, pair, *games, *doubled);
            }
        }
        self.release(slot);
        self.place(merged)
    }

    /// Puts comparisons in a free slot, for one cluster.
    fn fill(&mut self, comparisons: Comparisons) -> u32 {
        let slot = Slot {
            comparisons,
            clusters: 1,
        };
        match self.free.pop() {
            Some(free) => {
                self.slots[free as usize] = slot;
                free
            }
            None => {
                self.slots.push(slot);
                u32::try_from(self.slots.len() - 1).expect("fewer than 4 billion clusters kept")
            }
        }
    }

    /// Counts a slot's comparisons once less, emptied when no cluster kept has them.
    fn release(&mut self, slot: u32) {
        let entry = &mut self.slots[slot as usize];
        entry.clusters -= 1;
        if entry.clusters > 0 {
            return;
        }
        if let Comparisons::Shared(content) = std::mem::take(&mut entry.comparisons) {
            self.shared.remove(&content);
        }
        self.free.push(slot);
    }

    /// Each distinct comparisons once, sorted, with the number of clusters kept that have them.
    fn distinct(&self) -> Vec<(Borrowed<'_>, u64)> {
        let mut distinct: Vec<_> = self
            .slots
            .iter()
            .filter(|slot| slot.clusters > 0)
            .map(|slot| {
                let content: Vec<_> = match &slot.comparisons {
                    Comparisons::Shared(content) => content
                        .iter()
                        .map(|(pair, games, doubled)| (&pair[..], *games, *doubled))
                        .collect(),
                    Comparisons::Own(tally) => tally
                        .iter()
                        .map(|(pair, &(games, doubled))| (&pair[..], games, doubled))
                        .collect(),
                };
                (content, slot.clusters)
            })
            .collect();
        distinct.sort_unstable();
        // Large clusters of the same comparisons, each in its own slot, are counted as one.
        distinct.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 += later.1;
            }
            same
        });
        distinct
    }
}

/// A cluster unpacked for the sandwich: per pair of sides, the first's entrants, the second's,
/// games and the first's points doubled.
pub(super) type Cluster = Vec<(Vec<u32>, Vec<u32>, u64, u64)>;

/// A cluster's comparisons unpacked for the sandwich.
fn unpack(content: Borrowed<'_>) -> Cluster {
    content
        .into_iter()
        .map(|(key, games, doubled)| {
            let (first, second) = split(key);
            (first.to_vec(), second.to_vec(), games, doubled)
        })
        .collect()
}

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

    /// Comparisons stored: slots in use.
    fn stored(sets: &Sets) -> usize {
        sets.slots.slots.iter().filter(|s| s.clusters > 0).count()
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
        assert_eq!((stored(&sets), weight), (clusters.len(), 1.0));
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
        assert_eq!(stored(&capped), 3);
    }

    #[test]
    fn past_the_clusters_cap_a_sample_of_them_however_few_their_comparisons() {
        // 60,000 two-entrant deals, one comparison each: fewer than SET_CAP comparisons, more
        // than DEAL_CAP clusters.
        let mut sets = Sets::default();
        for deal in 0..60_000u64 {
            sets.add(deal_key(deal, 9), &pair(0, 1, 1 + (deal % 2) as u32, 1));
        }
        assert!(sets.sampled());
        assert_eq!(sets.clusters.len(), DEAL_CAP);
        let (clusters, weight) = sets.clusters();
        assert_eq!(
            clusters.iter().map(|(_, n)| n).sum::<u64>(),
            DEAL_CAP as u64
        );
        assert!((weight - 60_000.0 / DEAL_CAP as f64).abs() < 1e-12);
    }

    /// Sets as their keys and games.
    type Drawn = [(u64, Vec<Vec<(Side, u32)>>)];

    /// A set of one game among distinct entrants drawn from `picks`, ranked by `ranks`.
    fn game(picks: &[usize], ranks: &[u32]) -> Vec<Vec<(Side, u32)>> {
        let mut seen = std::collections::BTreeSet::new();
        let sides = picks
            .iter()
            .zip(ranks)
            .filter(|(e, _)| seen.insert(**e))
            .map(|(e, r)| (vec![*e], *r))
            .collect();
        vec![sides]
    }

    /// The clusters without a cap, as the sandwich reads them, computed the plain way: each
    /// key's sets summed, then the distinct sums counted.
    fn plain(sets: &Drawn) -> Vec<(Cluster, u64)> {
        let mut by_key: BTreeMap<u64, Tally> = BTreeMap::new();
        for (key, games) in sets {
            let compared = compare(games);
            if compared.is_empty() {
                continue;
            }
            let tally = by_key.entry(*key).or_default();
            for (pair, (games, doubled)) in &compared {
                add_to(tally, pair, *games, *doubled);
            }
        }
        let mut counted: BTreeMap<Vec<(PairKey, u64, u64)>, u64> = BTreeMap::new();
        for tally in by_key.into_values() {
            let content = tally.into_iter().map(|(p, (g, d))| (p, g, d)).collect();
            *counted.entry(content).or_default() += 1;
        }
        counted
            .into_iter()
            .map(|(content, count)| {
                let borrowed = content.iter().map(|(p, g, d)| (&p[..], *g, *d)).collect();
                (unpack(borrowed), count)
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Large clusters (past the shared ones' size) and small ones, in any order: the
        /// clusters are those of the plain sums without a cap, and the same sample with one.
        #[test]
        fn clusters_are_the_plain_sums_in_any_order(
            drawn in proptest::collection::vec(
                (0u64..6, proptest::collection::vec((0usize..24, 1u32..4), 2..5)),
                1..120,
            ),
            cap in 1usize..80,
            deal_cap in 1usize..8,
            rotate in 0usize..120,
        ) {
            let sets: Vec<_> = drawn
                .iter()
                .map(|(key, sides)| {
                    let (picks, ranks): (Vec<usize>, Vec<u32>) = sides.iter().copied().unzip();
                    (*key, game(&picks, &ranks))
                })
                .collect();
            let fold = |order: &Drawn, cap: usize, deal_cap: usize| {
                let mut folded = Sets::with_caps(cap, deal_cap);
                order.iter().for_each(|(key, games)| folded.add(*key, games));
                folded
            };
            let mut turned = sets.clone();
            turned.rotate_left(rotate % sets.len());
            turned.reverse();
            let all = (plain(&sets), 1.0);
            proptest::prop_assert_eq!(fold(&sets, usize::MAX, usize::MAX).clusters(), all.clone());
            proptest::prop_assert_eq!(fold(&turned, usize::MAX, usize::MAX).clusters(), all);
            for (cap, deal_cap) in [(cap, usize::MAX), (usize::MAX, deal_cap), (cap, deal_cap)] {
                let (one, other) = (fold(&sets, cap, deal_cap), fold(&turned, cap, deal_cap));
                proptest::prop_assert_eq!(one.clusters(), other.clusters());
                proptest::prop_assert!(one.clusters.len() <= deal_cap);
            }
        }
    }
}
