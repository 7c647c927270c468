#![no_main]
//! cargo fuzz run engine_api: the body is allfives_fuzz_targets::engine_api::run.

libfuzzer_sys::fuzz_target!(|data: &[u8]| allfives_fuzz_targets::engine_api::run(data));
