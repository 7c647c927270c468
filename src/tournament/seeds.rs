//! Seeds: a master seed from the operating system's generator, and every deal's seed derived
//! from the master and the deal's index, so that any one game can be dealt again alone.

use rand::TryRng;
use rand::rngs::SysRng;

/// Seeds stay below 2^53, so that every JSON reader (JavaScript's included) keeps them exact.
pub const SEED_LIMIT: u64 = 1 << 53;

/// A fresh master seed from the operating system's random generator (never the clock: a seed
/// made from the time and the process id can be guessed by a bot).
pub fn fresh() -> Result<u64, String> {
    SysRng
        .try_next_u64()
        .map(|n| n % SEED_LIMIT)
        .map_err(|e| format!("the operating system gave no random seed ({e}); pass --seed"))
}

/// The seed of item `index` under `master`: well mixed, so neighbouring indices share nothing.
pub fn derive(master: u64, index: u64) -> u64 {
    mix(master ^ mix(index.wrapping_add(0x6A09_E667_F3BC_C909))) % SEED_LIMIT
}

/// SplitMix64's finalizer (S. Vigna): a bijection on u64 that spreads every input bit.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_seeds_differ_and_stay_in_range() {
        let seeds: std::collections::BTreeSet<u64> = (0..1000).map(|i| derive(7, i)).collect();
        assert_eq!(seeds.len(), 1000);
        assert!(seeds.iter().all(|&s| s < SEED_LIMIT));
        assert_ne!(derive(7, 0), derive(8, 0));
    }

    #[test]
    fn fresh_seeds_differ() {
        assert_ne!(fresh(), fresh());
    }
}
