//! The engine's integration tests, linked as one binary.

mod support;

mod engine_hands;
mod engine_json;
mod engine_props;
mod engine_scoring;
mod guess;
