#![no_main]
//! cargo fuzz run log_fields: the body is allfives_fuzz_targets::log_fields::run.

libfuzzer_sys::fuzz_target!(|data: &[u8]| allfives_fuzz_targets::log_fields::run(data));
