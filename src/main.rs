//! The `allfives` command: parse the arguments, set up tracing, run the command. What each
//! command does, and the exit codes, are in [`allfives::cli::commands`].

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A contained bot's init, exec'd afresh so that the bot sees none of the referee's
    // command line (docs/fair-play.md).
    if allfives::sandbox::is_init() {
        allfives::sandbox::init_main();
    }
    let cli = match allfives::cli::args::parse() {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        // Colour codes only where a terminal shows them, never in a file or a pipe.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    ExitCode::from(allfives::cli::commands::run(cli))
}
