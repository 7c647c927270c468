//! Every fuzz target, run on stable over its committed corpus and over seeded mutations of it,
//! so that `cargo test` (and CI) exercises the targets without a fuzzer.

use std::path::{Path, PathBuf};

use allfives_fuzz_targets::TARGETS;
use rand::rngs::ChaCha8Rng;
use rand::{Rng, RngExt, SeedableRng};

/// Mutated inputs a target gets on top of its corpus.
const MUTATIONS: usize = 2000;

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus {} cannot be read: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read(f).expect("a corpus file"))
        .collect()
}

/// A corpus entry changed a few times: bytes flipped, set, inserted, removed, copied from
/// another entry, or the input cut short.
fn mutate(rng: &mut ChaCha8Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut input = corpus[rng.random_range(0..corpus.len())].clone();
    for _ in 0..rng.random_range(1..=8) {
        let at = rng.random_range(0..=input.len());
        match rng.random_range(0..6) {
            0 if at < input.len() => input[at] ^= 1 << rng.random_range(0..8),
            1 if at < input.len() => {
                input[at] = *b"\n\r\"{}[],:0123456789 \xff"
                    .get(rng.random_range(0..22))
                    .unwrap_or(&0)
            }
            2 => input.insert(at, rng.random()),
            3 if at < input.len() => drop(input.remove(at)),
            4 => {
                let other = &corpus[rng.random_range(0..corpus.len())];
                let from = rng.random_range(0..=other.len());
                let len = rng.random_range(0..=(other.len() - from).min(64));
                input.splice(at..at, other[from..from + len].iter().copied());
            }
            _ => input.truncate(at),
        }
    }
    input
}

#[test]
fn every_target_survives_its_corpus_and_mutations() {
    for (name, target) in TARGETS {
        let corpus = corpus(name);
        assert!(!corpus.is_empty(), "{name} has no corpus");
        for input in &corpus {
            target(input);
        }
        let rng = &mut ChaCha8Rng::seed_from_u64(13);
        for _ in 0..MUTATIONS {
            target(&mutate(rng, &corpus));
        }
        // Random bytes too: the structure-aware targets read them as choices.
        for _ in 0..MUTATIONS / 3 {
            let mut bytes = vec![0u8; rng.random_range(0..512)];
            rng.fill_bytes(&mut bytes);
            target(&bytes);
        }
    }
}
