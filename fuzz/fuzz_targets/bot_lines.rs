#![no_main]
//! cargo fuzz run bot_lines: the body is allfives_fuzz_targets::bot_lines::run.

libfuzzer_sys::fuzz_target!(|data: &[u8]| allfives_fuzz_targets::bot_lines::run(data));
