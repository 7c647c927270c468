#![no_main]
//! cargo fuzz run deals: the body is allfives_fuzz_targets::deals::run.

libfuzzer_sys::fuzz_target!(|data: &[u8]| allfives_fuzz_targets::deals::run(data));
