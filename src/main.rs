//! The `allfives` command: parse the arguments, set up tracing, run the command. What each
//! command does, and the exit codes, are in [`allfives::cli::commands`].

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = allfives::cli::args::Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    ExitCode::from(allfives::cli::commands::run(cli))
}
