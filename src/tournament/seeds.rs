//! Seeds: a master seed from the operating system's generator, or made from a typed seed and a
//! secret deal key, and every deal's seed derived from the master and the deal's index, so that
//! any one game can be dealt again alone.
//!
//! A typed seed is guessable (a bot that tries seeds 0 to 1,000,000 with its own copy of the
//! referee finds `--seed 4242` in seconds), so by default it only names the run together with a
//! key no bot reads: the master is a keyed hash of both. `--public-seed` takes the typed seed as
//! the master itself, for seeds nobody can guess (the referee's own) or runs that need no secret.

use rand::TryRng;
use rand::rngs::SysRng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

/// The bytes of a deal key.
pub const KEY_BYTES: usize = 32;

/// A secret mixed into a typed seed to make the master seed.
#[derive(Clone, PartialEq, Eq)]
pub struct DealKey(pub [u8; KEY_BYTES]);

impl DealKey {
    /// A fresh key from the operating system's random generator.
    pub fn fresh() -> Result<DealKey, String> {
        let mut key = [0u8; KEY_BYTES];
        SysRng.try_fill_bytes(&mut key).map_err(|e| {
            format!("the operating system gave no random deal key ({e}); pass --deal-key FILE")
        })?;
        Ok(DealKey(key))
    }

    /// The key as 64 lowercase hex digits (a key file's text).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The key written as 64 hex digits (surrounding white space ignored).
    pub fn from_hex(text: &str) -> Option<DealKey> {
        let text = text.trim();
        if text.len() != 2 * KEY_BYTES || !text.is_ascii() {
            return None;
        }
        let mut key = [0u8; KEY_BYTES];
        for (byte, pair) in key.iter_mut().zip(text.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).ok()?;
            *byte = u8::from_str_radix(pair, 16).ok()?;
        }
        Some(DealKey(key))
    }
}

/// The master seed of the typed seed `typed` under `key`: the first 8 bytes, little-endian, of
/// SHA-256("allfives master 1", key, typed as 8 bytes little-endian), modulo 2^53. Without the
/// key, the master is one of 2^53 values however small the typed seed.
pub fn keyed(key: &DealKey, typed: u64) -> u64 {
    let mut hasher = Sha256::new();
    hasher.update(b"allfives master 1");
    hasher.update(key.0);
    hasher.update(typed.to_le_bytes());
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first) % SEED_LIMIT
}

/// A run's master seed and how it was made (recorded in the log header, tournament.json and the
/// results, so that a public one is never taken for a secret one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Master {
    /// The master seed every deal derives from.
    pub seed: u64,
    /// The seed typed with `--seed`, if one was.
    pub typed: Option<u64>,
    /// True when the master is the typed seed itself (`--public-seed`): a bot that guesses it
    /// can compute every deal.
    pub public: bool,
}

impl Master {
    /// A master that no typed seed made: drawn from the operating system, or read from a log.
    pub fn untyped(seed: u64, public: bool) -> Master {
        Master {
            seed,
            typed: None,
            public,
        }
    }

    /// How the master came about, for a run's first line: `seed M`, then what made it.
    pub fn describe(&self) -> String {
        match (self.typed, self.public) {
            (Some(_), true) => format!("seed {} (public: --public-seed)", self.seed),
            (Some(typed), false) => format!(
                "seed {} (--seed {typed} mixed with a secret deal key; --seed {} --public-seed plays the same deals)",
                self.seed, self.seed
            ),
            (None, _) => format!("seed {}", self.seed),
        }
    }

    /// What to tell the user of a public master (none for a secret one): that bots could
    /// compute the deals.
    pub fn public_note(&self) -> Option<String> {
        self.public.then(|| {
            format!(
                "--public-seed: the deals follow from seed {} by public formulas, so a bot that guesses it can compute every hand (safe only for a seed nobody can guess, such as one the referee printed)",
                self.seed
            )
        })
    }
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

    #[test]
    fn a_typed_seed_makes_a_master_of_its_key() {
        let (a, b) = (DealKey([1; KEY_BYTES]), DealKey([2; KEY_BYTES]));
        assert_eq!(keyed(&a, 7), keyed(&a, 7));
        assert_ne!(keyed(&a, 7), keyed(&b, 7));
        assert_ne!(keyed(&a, 7), keyed(&a, 8));
        assert!(keyed(&a, 7) < SEED_LIMIT);
    }

    #[test]
    fn keys_read_back_as_written() {
        let key = DealKey::fresh().expect("a key");
        assert!(DealKey::from_hex(&format!("{}\n", key.to_hex())) == Some(key));
        assert!(DealKey::from_hex("00").is_none());
        assert!(DealKey::from_hex(&"g".repeat(64)).is_none());
    }
}
