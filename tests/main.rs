//! The integration tests, linked as one binary.

mod harness;
mod support;

mod check_tests;
mod engine_hands;
mod engine_props;
mod engine_scoring;
mod referee_tests;
mod sample_bot_tests;
mod schema_tests;
