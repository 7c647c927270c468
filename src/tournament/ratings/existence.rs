//! Whether the plain batch fit has a finite maximum, known before searching for it when every
//! side is one entrant.
//!
//! L. R. Ford, "Solution of a ranking problem from binary comparisons", American Mathematical
//! Monthly 64 (1957): the Bradley-Terry likelihood has a finite maximum if and only if, however
//! the entrants are split in two, some entrant of each part scored against some entrant of the
//! other (among entrants connected by games: groups that never met only float apart). A draw
//! scores both ways. That is: every pair that met lies in one strongly connected component of
//! the graph "a scored against b". Without it Newton's method runs off towards infinity, a step
//! at a time, before the fit falls back on the prior; a ladder of 1,000 entrants with a few games
//! each is nearly always in that case, and each wasted step costs a factorization.

use std::collections::BTreeMap;

use super::sets::Sets;

/// `Some(false)` if the plain fit of the pairs `within` has no finite maximum, `Some(true)` if
/// it has one, `None` when a side has several entrants (the condition is then on their
/// combinations).
pub fn finite_maximum(sets: &Sets, within: &dyn Fn(&[u32]) -> bool) -> Option<bool> {
    let mut index: BTreeMap<u32, usize> = BTreeMap::new();
    let mut edges: Vec<(usize, usize, bool, bool)> = Vec::new();
    for (a, b, games, doubled) in sets.pairs().filter(|(a, _, _, _)| within(a)) {
        let ([a], [b]) = (a, b) else {
            return None;
        };
        let next = index.len();
        let a = *index.entry(*a).or_insert(next);
        let next = index.len();
        let b = *index.entry(*b).or_insert(next);
        edges.push((a, b, doubled > 0, doubled < 2 * games));
    }
    let n = index.len();
    let (mut forward, mut backward) = (vec![Vec::new(); n], vec![Vec::new(); n]);
    for &(a, b, a_scored, b_scored) in &edges {
        for (from, to, scored) in [(a, b, a_scored), (b, a, b_scored)] {
            if scored {
                forward[from].push(to);
                backward[to].push(from);
            }
        }
    }
    let component = components(&forward, &backward);
    Some(
        edges
            .iter()
            .all(|&(a, b, _, _)| component[a] == component[b]),
    )
}

/// Each node's strongly connected component (Kosaraju: nodes in order of finishing a depth-first
/// search, then searched backwards in reverse of that order), without recursion.
fn components(forward: &[Vec<usize>], backward: &[Vec<usize>]) -> Vec<usize> {
    let n = forward.len();
    let mut finished = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0)];
        while let Some((node, edge)) = stack.pop() {
            match forward[node].get(edge) {
                Some(&next) => {
                    stack.push((node, edge + 1));
                    if !seen[next] {
                        seen[next] = true;
                        stack.push((next, 0));
                    }
                }
                None => finished.push(node),
            }
        }
    }
    let mut component = vec![usize::MAX; n];
    for (label, &root) in finished.iter().rev().enumerate() {
        if component[root] != usize::MAX {
            continue;
        }
        component[root] = label;
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            for &next in &backward[node] {
                if component[next] == usize::MAX {
                    component[next] = label;
                    stack.push(next);
                }
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One game of `a` against `b`, ranked `rank_a` and `rank_b`.
    fn game(sets: &mut Sets, key: u64, (a, rank_a): (usize, u32), (b, rank_b): (usize, u32)) {
        sets.add(key, &[vec![(vec![a], rank_a), (vec![b], rank_b)]]);
    }

    #[test]
    fn a_cycle_of_wins_has_a_maximum_a_clean_sweep_none() {
        let mut cycle = Sets::default();
        game(&mut cycle, 0, (0, 1), (1, 2));
        game(&mut cycle, 1, (1, 1), (2, 2));
        game(&mut cycle, 2, (2, 1), (0, 2));
        assert_eq!(finite_maximum(&cycle, &|_| true), Some(true));
        let mut sweep = Sets::default();
        game(&mut sweep, 0, (0, 1), (1, 2));
        game(&mut sweep, 1, (1, 1), (2, 2));
        game(&mut sweep, 2, (0, 1), (2, 2));
        game(&mut sweep, 3, (1, 2), (2, 1));
        assert_eq!(finite_maximum(&sweep, &|_| true), Some(false));
        // A draw scores both ways; two groups that never met are each fine.
        let mut apart = Sets::default();
        game(&mut apart, 0, (0, 1), (1, 2));
        game(&mut apart, 1, (0, 2), (1, 1));
        game(&mut apart, 2, (5, 1), (6, 1));
        assert_eq!(finite_maximum(&apart, &|_| true), Some(true));
        let mut teams = Sets::default();
        teams.add(0, &[vec![(vec![0, 1], 1), (vec![2, 3], 2)]]);
        assert_eq!(finite_maximum(&teams, &|_| true), None);
    }
}
