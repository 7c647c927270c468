//! Which game of OLD meets which game of NEW: the same deal (the game's seed), the same
//! opponents in the same seats, the compared entrant in the same seats. Pure.

use std::collections::HashMap;

use crate::tournament::results::GameLine;

/// A game of one compared entrant, as its results line gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// The game's id in its folder.
    pub id: String,
    /// The deal's index.
    pub deal: u64,
    /// The deal's seed: every game of one deal shares it.
    pub deal_seed: u64,
    /// The seed the game's hands were dealt from.
    pub seed: u64,
    /// Each seat's entrant name, `None` at the compared entrant's seats.
    pub others: Vec<Option<String>>,
    /// The compared entrant's seats.
    pub seats: Vec<usize>,
    /// Its points margin, in units of 1/`scale` points: its side's score minus the mean of the
    /// other sides' scores, times `scale` (the other sides' count), so that sums stay exact.
    pub margin: i64,
    /// The other sides' count (1 with 2 players or partnerships).
    pub scale: i64,
    /// Its result in half points: 2 a win, 1 a shared first place, 0 a loss.
    pub result: u8,
    /// Where its log is, as the results line names it (relative to the folder).
    pub log: Option<String>,
}

/// The game of `line` as `name` played it, or `None` when `name` is not at its table or
/// `rival` (the other compared entrant, in a folder holding both) is at it too.
pub fn side_of(line: &GameLine, name: &str, rival: Option<&str>) -> Option<Side> {
    let seats: Vec<usize> = (0..line.seats.len())
        .filter(|&s| line.seats[s].name == name)
        .collect();
    let first = *seats.first()?;
    if rival.is_some_and(|r| line.seats.iter().any(|s| s.name == r)) {
        return None;
    }
    let own = line.seats[first].side;
    let sides = line.scores.len() as i64;
    let others: i64 = (0..line.scores.len())
        .filter(|&s| s != own)
        .map(|s| i64::from(line.scores[s]))
        .sum();
    let scale = (sides - 1).max(1);
    let margin = scale * i64::from(*line.scores.get(own)?) - others;
    let first_elsewhere = line.seats.iter().any(|s| s.side != own && s.rank == 1);
    let result = match (line.seats[first].rank, first_elsewhere) {
        (1, false) => 2,
        (1, true) => 1,
        _ => 0,
    };
    Some(Side {
        id: line.id.clone(),
        deal: line.deal,
        deal_seed: line.deal_seed,
        seed: line.seed,
        others: line
            .seats
            .iter()
            .map(|s| (s.name != name).then(|| s.name.clone()))
            .collect(),
        seats,
        margin,
        scale,
        result,
        log: line.log.clone(),
    })
}

/// OLD's and NEW's games paired, and the games of each left without a partner.
#[derive(Debug, Default)]
pub struct Paired {
    /// (OLD's game, NEW's game), in OLD's order.
    pub pairs: Vec<(Side, Side)>,
    /// OLD's games that NEW did not play.
    pub old_alone: u64,
    /// NEW's games that OLD did not play.
    pub new_alone: u64,
}

/// Pairs each game of OLD with NEW's game of the same seed, opponents and seats.
pub fn pair(old: Vec<Side>, new: Vec<Side>) -> Paired {
    let key = |s: &Side| (s.seed, s.others.clone());
    let mut waiting: HashMap<_, Side> = new.into_iter().map(|s| (key(&s), s)).collect();
    let mut paired = Paired::default();
    for side in old {
        match waiting.remove(&key(&side)) {
            Some(partner) => paired.pairs.push((side, partner)),
            None => paired.old_alone += 1,
        }
    }
    paired.new_alone = waiting.len() as u64;
    paired
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(seed: u64, opponent: &str, margin: i64) -> Side {
        Side {
            id: format!("g{seed}"),
            deal: seed,
            deal_seed: seed,
            seed,
            others: vec![None, Some(opponent.into())],
            seats: vec![0],
            margin,
            scale: 1,
            result: 2,
            log: None,
        }
    }

    #[test]
    fn games_pair_by_seed_and_opponents_only() {
        let old = vec![side(1, "a", 5), side(2, "a", 0), side(3, "b", 1)];
        let new = vec![side(2, "a", 1), side(1, "a", -5), side(3, "c", 0)];
        let paired = pair(old, new);
        assert_eq!(paired.pairs.len(), 2);
        assert_eq!(paired.pairs[0].1.margin, -5);
        assert_eq!((paired.old_alone, paired.new_alone), (1, 1));
    }
}
