//! Which ratings the games pin down, however many of them there are.
//!
//! A rating is a difference: an entrant's Elo less the anchor's (the mean of the rated entrants,
//! or one entrant). The games fix exactly the combinations of ratings that lie in the span of
//! their comparisons, each pair of sides compared being the direction `+1/|a|` on side a's
//! entrants, `-1/|b|` on side b's (the fit's own difference vectors). Outside that span the
//! likelihood is flat: the fit's ridge picks a value and its covariance an interval of millions
//! of Elo, neither of which means anything. Two things leave a rating outside it:
//! - groups that never met: the entrants fall into comparable sets (the connected parts of the
//!   graph "compared in some game"), and nothing compares one set with another. Only one set is
//!   rated: the anchor entrant's, else the largest (ties: the one holding the lowest index);
//! - teams: partners always on the same side are only ever seen as their sum, and teams varied
//!   too little leave other sums unknown. Every side of one entrant makes the span full within
//!   a connected set (a spanning tree of comparisons fixes every difference), so only a set with
//!   teams is examined: its comparisons are reduced exactly, modulo the prime `2^61 - 1` (their
//!   entries are small integers: rank over the rationals and over that field differ only if the
//!   prime divides every largest minor), to the vectors orthogonal to them all. An entrant's
//!   rating is fixed if and only if its direction (itself less the anchor's weights) is
//!   orthogonal to each of those.
//!
//! Pure; read from the sets' totals, so the same whatever order the games came in.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::sets::Sets;

/// Why an entrant that played a complete set has no rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unfixed {
    /// It never met the rated entrants, directly or through others: its set is apart.
    NeverMet,
    /// It always sat on the same side as the same partners: only their team's rating is fixed.
    PartnersTogether,
    /// Its teams varied too little to tell it from its partners.
    TeamsConfounded,
    /// Its comparable set has more entrants than one fit rates ([`FIT_ENTRANTS`]): a dense fit of
    /// that many (a matrix of their number squared, factored) is not made.
    TooMany,
}

/// The most entrants one batch fit rates: a fit holds a few dense matrices of their number
/// squared (2,000 entrants: 32 MB each) and factors them, in time their number cubed.
pub const FIT_ENTRANTS: usize = 2000;

/// Which entrants the games rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Identified {
    /// The rated set's entrants, sorted: the fit's columns.
    pub main: Vec<usize>,
    /// Entrants whose rating is not fixed: why, their partners always with them (for
    /// [`Unfixed::PartnersTogether`]) and their comparable set (0 the rated one).
    pub unfixed: BTreeMap<usize, (Unfixed, Vec<usize>, usize)>,
    /// Comparable sets: the rated one and the sets apart.
    pub comparable_sets: usize,
}

/// Which entrants of `sets` are rated, placed by the mean of the rated set, or by entrant
/// `anchor` if given.
pub fn identify(sets: &Sets, anchor: Option<usize>) -> Identified {
    let parts = comparable_sets(sets);
    let chosen = anchor.and_then(|e| parts.iter().position(|p| p.binary_search(&e).is_ok()));
    // Largest first, ties by their lowest entrant (each part is sorted); the chosen first.
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&p| {
        (
            Some(p) != chosen,
            std::cmp::Reverse(parts[p].len()),
            parts[p][0],
        )
    });
    let mut unfixed = BTreeMap::new();
    for (label, &p) in order.iter().enumerate().skip(1) {
        for &e in &parts[p] {
            unfixed.insert(e, (Unfixed::NeverMet, Vec::new(), label));
        }
    }
    let main = order.first().map_or_else(Vec::new, |&p| parts[p].clone());
    if main.len() > FIT_ENTRANTS {
        // Not fitted: none of the set is rated (nor searched for partners confounded, an
        // elimination as dense as the fit).
        for &e in &main {
            unfixed.insert(e, (Unfixed::TooMany, Vec::new(), 0));
        }
    } else {
        for (e, why) in confounded(sets, &main, anchor) {
            unfixed.insert(e, why);
        }
    }
    Identified {
        main,
        unfixed,
        comparable_sets: parts.len(),
    }
}

/// The connected parts of the graph "compared in some game", each sorted, in order of their
/// lowest entrant.
fn comparable_sets(sets: &Sets) -> Vec<Vec<usize>> {
    let mut parent: BTreeMap<usize, usize> = BTreeMap::new();
    fn root(parent: &mut BTreeMap<usize, usize>, e: usize) -> usize {
        let mut r = *parent.entry(e).or_insert(e);
        while parent[&r] != r {
            r = parent[&r];
        }
        // Every entrant on the way now points at the root: later finds take one step.
        let mut x = e;
        while parent[&x] != r {
            let next = parent[&x];
            parent.insert(x, r);
            x = next;
        }
        r
    }
    for (a, b, _, _) in sets.pairs() {
        let mut entrants = a.iter().chain(b).map(|&e| e as usize);
        let first = entrants.next().expect("a side has an entrant");
        let mut r = root(&mut parent, first);
        for e in entrants {
            let s = root(&mut parent, e);
            // The lower root wins: the labels do not depend on the order of the pairs.
            let (low, high) = (r.min(s), r.max(s));
            parent.insert(high, low);
            r = low;
        }
    }
    let entrants: Vec<usize> = parent.keys().copied().collect();
    let mut parts: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for e in entrants {
        let r = root(&mut parent, e);
        parts.entry(r).or_default().push(e);
    }
    parts.into_values().collect()
}

/// The prime the comparisons are reduced modulo.
const PRIME: u64 = (1 << 61) - 1;

fn mul(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(PRIME)) as u64
}

fn sub(a: u64, b: u64) -> u64 {
    if a >= b { a - b } else { a + PRIME - b }
}

/// `a` to the power `PRIME - 2`: its inverse (Fermat).
fn inverse(a: u64) -> u64 {
    let (mut base, mut exp, mut out) = (a, PRIME - 2, 1);
    while exp > 0 {
        if exp & 1 == 1 {
            out = mul(out, base);
        }
        base = mul(base, base);
        exp >>= 1;
    }
    out
}

/// `x` as an element of the field.
fn field(x: i64) -> u64 {
    if x >= 0 {
        x as u64 % PRIME
    } else {
        PRIME - ((-x) as u64 % PRIME)
    }
}

/// The entrants of `main` whose rating the games do not fix, with why (empty without teams).
fn confounded(
    sets: &Sets,
    main: &[usize],
    anchor: Option<usize>,
) -> BTreeMap<usize, (Unfixed, Vec<usize>, usize)> {
    let column: BTreeMap<usize, usize> = main.iter().enumerate().map(|(i, &e)| (e, i)).collect();
    let within = |side: &[u32]| column.contains_key(&(side[0] as usize));
    let pairs: Vec<(&[u32], &[u32])> = sets
        .pairs()
        .filter(|(a, _, _, _)| within(a))
        .map(|(a, b, _, _)| (a, b))
        .collect();
    if pairs.iter().all(|(a, b)| a.len() == 1 && b.len() == 1) {
        return BTreeMap::new();
    }
    let n = main.len();
    let Some(null) = null_space(&pairs, &column, n) else {
        return BTreeMap::new();
    };
    // Fixed if orthogonal to every null vector v: v_i equals v's weighted mean by the anchor.
    let fixed = |i: usize| match anchor.and_then(|a| column.get(&a)) {
        Some(&a) => null.iter().all(|v| v[i] == v[a]),
        None => null.iter().all(|v| {
            let total = v.iter().fold(0, |s, &x| (s + x) % PRIME);
            mul(v[i], field(n as i64)) == total
        }),
    };
    // Each entrant's sides: entrants with the same ones were always partners.
    let mut sides: BTreeMap<usize, BTreeSet<&[u32]>> = BTreeMap::new();
    for (a, b) in &pairs {
        for side in [a, b] {
            for &e in side.iter() {
                sides.entry(e as usize).or_default().insert(side);
            }
        }
    }
    let mut out = BTreeMap::new();
    for (i, &e) in main.iter().enumerate() {
        if fixed(i) {
            continue;
        }
        let partners: Vec<usize> = main
            .iter()
            .copied()
            .filter(|&o| o != e && sides.get(&o) == sides.get(&e))
            .collect();
        let why = match partners.is_empty() {
            true => Unfixed::TeamsConfounded,
            false => Unfixed::PartnersTogether,
        };
        out.insert(e, (why, partners, 0));
    }
    out
}

/// A basis of the vectors orthogonal to every comparison of `pairs` (over `n` columns), by
/// exact elimination; `None` when the comparisons fix every difference (the only such vector
/// is the level, all ones).
fn null_space(
    pairs: &[(&[u32], &[u32])],
    column: &BTreeMap<usize, usize>,
    n: usize,
) -> Option<Vec<Vec<u64>>> {
    // Row-echelon rows by pivot column, each scaled to a leading 1.
    let mut pivots: Vec<Option<Vec<u64>>> = vec![None; n];
    let mut rank = 0;
    for (a, b) in pairs {
        if rank + 1 >= n {
            return None;
        }
        // |b| on a's entrants, -|a| on b's: the comparison's direction times |a| |b|.
        let mut row = vec![0u64; n];
        for (side, weight) in [(a, b.len() as i64), (b, -(a.len() as i64))] {
            for &e in side.iter() {
                let c = column[&(e as usize)];
                row[c] = (row[c] + field(weight)) % PRIME;
            }
        }
        for c in 0..n {
            if row[c] == 0 {
                continue;
            }
            match &pivots[c] {
                Some(p) => {
                    let f = row[c];
                    for k in c..n {
                        row[k] = sub(row[k], mul(f, p[k]));
                    }
                }
                None => {
                    let scale = inverse(row[c]);
                    row.iter_mut().for_each(|x| *x = mul(*x, scale));
                    pivots[c] = Some(row);
                    rank += 1;
                    break;
                }
            }
        }
    }
    if rank + 1 >= n {
        return None;
    }
    // Reduced: each pivot column cleared from the rows above it.
    for c in (0..n).rev() {
        let Some(p) = pivots[c].clone() else {
            continue;
        };
        for above in pivots[..c].iter_mut().flatten() {
            let f = above[c];
            if f != 0 {
                for k in c..n {
                    above[k] = sub(above[k], mul(f, p[k]));
                }
            }
        }
    }
    // One vector per free column: 1 there, minus each pivot row's entry at its pivot.
    let free = (0..n).filter(|&c| pivots[c].is_none());
    Some(
        free.map(|f| {
            let mut v = vec![0u64; n];
            v[f] = 1;
            for (c, p) in pivots.iter().enumerate() {
                if let Some(p) = p {
                    v[c] = sub(0, p[f]);
                }
            }
            v
        })
        .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One game of side `a` against side `b`, `a` winning.
    fn game(sets: &mut Sets, key: u64, a: &[usize], b: &[usize]) {
        sets.add(key, &[vec![(a.to_vec(), 1), (b.to_vec(), 2)]]);
    }

    #[test]
    fn groups_that_never_met_leave_one_rated_set() {
        let mut sets = Sets::default();
        game(&mut sets, 0, &[0], &[1]);
        game(&mut sets, 1, &[1], &[2]);
        game(&mut sets, 2, &[3], &[4]);
        let found = identify(&sets, None);
        assert_eq!(found.main, vec![0, 1, 2]);
        assert_eq!(found.comparable_sets, 2);
        assert_eq!(found.unfixed[&3], (Unfixed::NeverMet, Vec::new(), 1));
        assert!(!found.unfixed.contains_key(&0));
        // Anchored on an entrant: its set is the rated one.
        let anchored = identify(&sets, Some(4));
        assert_eq!(anchored.main, vec![3, 4]);
        assert_eq!(anchored.unfixed[&0].0, Unfixed::NeverMet);
    }

    #[test]
    fn partners_always_together_are_not_fixed_varied_teams_are() {
        let mut sets = Sets::default();
        game(&mut sets, 0, &[0, 1], &[2, 3]);
        game(&mut sets, 1, &[2, 3], &[0, 1]);
        let found = identify(&sets, None);
        assert_eq!(found.unfixed[&0], (Unfixed::PartnersTogether, vec![1], 0));
        assert_eq!(found.unfixed.len(), 4);
        // Two of the three splits: no pair always together, yet no one told apart.
        game(&mut sets, 2, &[0, 2], &[1, 3]);
        let found = identify(&sets, None);
        assert_eq!(found.unfixed[&0].0, Unfixed::TeamsConfounded);
        assert_eq!(found.unfixed.len(), 4);
        // All three: everyone fixed.
        game(&mut sets, 3, &[0, 3], &[1, 2]);
        assert!(identify(&sets, None).unfixed.is_empty());
        // Partners together among varied others: the others are fixed against the mean.
        let mut mixed = Sets::default();
        game(&mut mixed, 0, &[0, 1], &[2, 3]);
        game(&mut mixed, 1, &[0, 1], &[4, 5]);
        game(&mut mixed, 2, &[2, 4], &[3, 5]);
        game(&mut mixed, 3, &[2, 5], &[3, 4]);
        game(&mut mixed, 4, &[2, 3], &[4, 5]);
        let found = identify(&mixed, None);
        let unfixed: Vec<usize> = found.unfixed.keys().copied().collect();
        assert_eq!(unfixed, vec![0, 1], "{found:?}");
    }
}
