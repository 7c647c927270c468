//! The seed each bot gets in `game_start` for its own random generator: derived from the game's
//! seed and the bot's seat by a keyed hash, so that a bot that reseeds itself from it plays the
//! same whatever game its process played before (`-j1` or `-j2`, resumed or not), while the seed
//! tells it nothing of the deal (SHA-256 cannot be run backwards; the deal's seed is not sent).

use sha2::{Digest, Sha256};

/// The hash's key: bot seeds share nothing with any other seed the referee derives.
const KEY: &[u8] = b"allfives bot seed 1";

/// Bot seeds stay below 2^53, so that every JSON reader (JavaScript's included) keeps them
/// exact.
const LIMIT: u64 = 1 << 53;

/// The bot seed of `seat` in the game dealt from `game_seed`: the first 8 bytes, little-endian,
/// of SHA-256(key, game seed as 8 bytes little-endian, seat as 8 bytes little-endian), modulo
/// 2^53 (protocol.md, `game_start`).
pub fn bot_seed(game_seed: u64, seat: usize) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update(KEY);
    hasher.update(game_seed.to_le_bytes());
    hasher.update((seat as u64).to_le_bytes());
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first) % LIMIT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_and_games_get_seeds_of_their_own() {
        let seeds: std::collections::BTreeSet<u64> = (0..100)
            .flat_map(|game| (0..4).map(move |seat| bot_seed(game, seat)))
            .collect();
        assert_eq!(seeds.len(), 400);
        assert!(seeds.iter().all(|&s| s < LIMIT));
        assert_eq!(bot_seed(7, 1), bot_seed(7, 1));
    }

    /// Pins the derivation that protocol.md documents (bots in other languages compute it).
    #[test]
    fn the_documented_example_holds() {
        assert_eq!(bot_seed(1, 0), 2_882_569_956_744_848);
    }
}
