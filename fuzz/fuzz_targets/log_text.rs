#![no_main]
//! cargo fuzz run log_text: the body is allfives_fuzz_targets::log_text::run.

libfuzzer_sys::fuzz_target!(|data: &[u8]| allfives_fuzz_targets::log_text::run(data));
