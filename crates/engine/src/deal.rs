//! Deals: the hands, the boneyard's order and the leader, random from a seed or given.
//!
//! The random deal is part of the contract (a seed must give the same deal on every machine), so
//! the algorithm is fixed here and documented in `docs/rules.md`:
//! 1. The generator is ChaCha8 (`rand::rngs::ChaCha8Rng`), seeded with `seed_from_u64(seed)`.
//! 2. The 28 tiles start in canonical order (`[0|0], [0|1], .. [6|6]`) and are shuffled by
//!    Fisher-Yates from the top: for `i` from 27 down to 1, swap tile `i` with tile `below(i + 1)`.
//! 3. Seat 0 takes the first `hand_size` tiles, seat 1 the next, and so on; the rest is the
//!    boneyard, drawn from its front.
//! 4. The leader is `below(players)`, drawn after the shuffle. It is drawn even when the last
//!    hand fixes the leader (and then ignored), so that the n-th deal of a seed is the same
//!    whatever happened in the hands before it: duplicate games see the same tiles.
//!
//! `below(n)` takes `x = next_u32()` and returns `x % n`, drawing again while `x` falls in the
//! incomplete last block (`x >= 2^32 - 2^32 % n`) so that every result is equally likely.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::error::DealError;
use crate::rules::{Rules, RulesError, Seat};
use crate::tile::{ALL_TILES, SET_SIZE, Tile, TileSet};

/// One hand's deal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    /// Each seat's tiles, seat 0 first.
    pub hands: Vec<Vec<Tile>>,
    /// The boneyard, in the order it is drawn.
    pub boneyard: Vec<Tile>,
    /// The seat that leads.
    pub leader: Seat,
}

impl Deal {
    /// A shuffled deal. `leader` fixes the leader; `None` draws one at random. Rules that
    /// cannot be played (see [`Rules::validate`]) have no deal.
    pub fn random<R: Rng + ?Sized>(
        rules: &Rules,
        leader: Option<Seat>,
        rng: &mut R,
    ) -> Result<Deal, RulesError> {
        rules.validate()?;
        let mut tiles = ALL_TILES;
        for i in (1..SET_SIZE).rev() {
            let j = below(rng, i as u32 + 1) as usize;
            tiles.swap(i, j);
        }
        let size = rules.hand_size;
        let hands = (0..rules.players)
            .map(|seat| tiles[seat * size..(seat + 1) * size].to_vec())
            .collect();
        let boneyard = tiles[rules.players * size..].to_vec();
        let drawn = below(rng, rules.players as u32) as Seat;
        let leader = leader.unwrap_or(drawn);
        Ok(Deal {
            hands,
            boneyard,
            leader,
        })
    }

    /// Checks the deal against the rules (which must be valid): a hand a player of the right size, all 28 tiles once
    /// each, and a leader at the table.
    pub fn validate(&self, rules: &Rules) -> Result<(), DealError> {
        rules.validate()?;
        if self.hands.len() != rules.players {
            return Err(DealError::Hands {
                got: self.hands.len(),
                players: rules.players,
            });
        }
        for (seat, hand) in self.hands.iter().enumerate() {
            if hand.len() != rules.hand_size {
                return Err(DealError::HandSize {
                    seat,
                    got: hand.len(),
                    expected: rules.hand_size,
                });
            }
        }
        let mut seen = TileSet::EMPTY;
        for &tile in self.hands.iter().flatten().chain(&self.boneyard) {
            if !seen.insert(tile) {
                return Err(DealError::Duplicate(tile));
            }
        }
        if let Some(missing) = ALL_TILES.iter().find(|t| !seen.contains(**t)) {
            return Err(DealError::Missing(*missing));
        }
        if self.leader >= rules.players {
            return Err(DealError::Leader {
                leader: self.leader,
                players: rules.players,
            });
        }
        Ok(())
    }
}

/// A uniform number in `0..n` (n > 0), by rejection so that no result is favoured.
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    let n = n.max(1);
    let limit = u32::MAX - u32::MAX % n;
    loop {
        let x = rng.next_u32();
        if x < limit {
            return x % n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    #[test]
    fn a_seed_gives_one_deal() {
        let rules = Rules::new(2);
        let a = Deal::random(&rules, None, &mut ChaCha8Rng::seed_from_u64(7)).expect("valid rules");
        let b = Deal::random(&rules, None, &mut ChaCha8Rng::seed_from_u64(7)).expect("valid rules");
        let c = Deal::random(&rules, None, &mut ChaCha8Rng::seed_from_u64(8)).expect("valid rules");
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.validate(&rules), Ok(()));
        assert_eq!(a.boneyard.len(), 10);
    }

    /// Pins the algorithm: if this changes, every seed in every log deals differently.
    #[test]
    fn the_algorithm_is_pinned() {
        let deal = Deal::random(&Rules::new(4), None, &mut ChaCha8Rng::seed_from_u64(1))
            .expect("valid rules");
        let text = format!("{:?} {}", deal.hands[0], deal.leader);
        assert_eq!(text, PINNED_SEED_1);
    }

    const PINNED_SEED_1: &str = "[[1|2], [4|5], [1|4], [5|6], [2|5]] 3";

    #[test]
    fn validation_names_the_fault() {
        let rules = Rules::new(2);
        let mut deal =
            Deal::random(&rules, Some(0), &mut ChaCha8Rng::seed_from_u64(1)).expect("valid rules");
        let first = deal.hands[0][0];
        deal.boneyard[0] = first;
        assert_eq!(deal.validate(&rules), Err(DealError::Duplicate(first)));
        let mut short =
            Deal::random(&rules, Some(0), &mut ChaCha8Rng::seed_from_u64(1)).expect("valid rules");
        short.hands[1].pop();
        assert!(matches!(
            short.validate(&rules),
            Err(DealError::HandSize {
                seat: 1,
                got: 8,
                ..
            })
        ));
        let mut lost =
            Deal::random(&rules, Some(0), &mut ChaCha8Rng::seed_from_u64(1)).expect("valid rules");
        let gone = lost.boneyard.pop().expect("10 in the boneyard");
        assert_eq!(lost.validate(&rules), Err(DealError::Missing(gone)));
        let mut far =
            Deal::random(&rules, Some(0), &mut ChaCha8Rng::seed_from_u64(1)).expect("valid rules");
        far.leader = 2;
        assert!(matches!(
            far.validate(&rules),
            Err(DealError::Leader { leader: 2, .. })
        ));
    }
}
