//! The bodies of allfives' fuzz targets, one module each. Each takes any bytes and must never
//! panic (nor hang, nor grow without bound); each also checks what the input lets it check.
//!
//! `fuzz/` (cargo-fuzz, nightly) runs them under libFuzzer; `tests/` runs them on stable over
//! their committed corpus (`fuzz/corpus/<target>/`) and over seeded mutations of it, so that
//! `cargo test` exercises every target. `docs/fuzzing.md` says how, and what fuzzing found.

pub mod bot_lines;
pub mod deals;
pub mod definition_file;
pub mod engine_api;
pub mod log_fields;
pub mod log_text;
pub mod results_file;

/// A target's body: takes any bytes, panics only on a bug.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/fuzz_targets/` and the corpus folders name them.
pub const TARGETS: [(&str, Target); 7] = [
    ("bot_lines", bot_lines::run),
    ("deals", deals::run),
    ("definition_file", definition_file::run),
    ("engine_api", engine_api::run),
    ("log_fields", log_fields::run),
    ("log_text", log_text::run),
    ("results_file", results_file::run),
];
