//! The integration tests, linked as one binary.

mod harness;

mod architecture_tests;
mod browser_tests;
mod check_tests;
mod cli_tests;
mod compat_tests;
mod covert_channel_tests;
mod deal_memory_tests;
mod debugger_tests;
mod earlier_runs_tests;
mod fair_play_tests;
mod golden_tests;
mod graded_tests;
mod ladder_tests;
mod output_error_tests;
mod pack_tests;
mod pip_tests;
mod placement_tests;
mod ratings_tests;
mod referee_tests;
mod replay_tests;
mod replay_trust_tests;
mod report_tests;
mod results_tests;
mod sample_bot_tests;
mod saved_tmp_tests;
mod schema_tests;
mod seed_secrecy_tests;
mod shard_tests;
mod slurm_tests;
mod start_tests;
mod starter_kit_tests;
mod text_safety_tests;
mod tournament_folder_tests;
mod tournament_tests;
