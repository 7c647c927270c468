#![no_main]
//! cargo fuzz run definition_file: the body is allfives_fuzz_targets::definition_file::run.

libfuzzer_sys::fuzz_target!(|data: &[u8]| allfives_fuzz_targets::definition_file::run(data));
