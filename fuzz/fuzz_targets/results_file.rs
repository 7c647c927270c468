#![no_main]
//! cargo fuzz run results_file: the body is allfives_fuzz_targets::results_file::run.

libfuzzer_sys::fuzz_target!(|data: &[u8]| allfives_fuzz_targets::results_file::run(data));
