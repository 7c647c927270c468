//! What each command does: it runs the referee's parts, prints through [`output`], and returns
//! the process's exit code. Exit codes: 0 done (a bot losing by a fault is a result, not an
//! error); 1 the referee itself failed (e.g. a log could not be written); 2 bad arguments or an
//! unreadable input file; 3 a replayed log does not check out; 4 a bot failed `check`;
//! 130 interrupted.

use std::io::Write;
use std::sync::Arc;

use allfives_engine::protocol::MAX_BOT_LINE;
use clap::CommandFactory;

use crate::bot::clock::{ClockKind, Clocks};
use crate::bot::player::{BotSpec, Player};
use crate::bot::process::StderrSink;
use crate::check;
use crate::cli::args::{CheckArgs, Cli, Command, CompletionsArgs, ManArgs, MatchArgs, ReplayArgs};
use crate::cli::output;
use crate::gamelog;
use crate::placement::{Placement, hold_core};
use crate::referee::matchplay::run_match;
use crate::sandbox::files;

const FAILED: u8 = 1;
/// The exit code of bad arguments or an unreadable input file.
pub const BAD_INPUT: u8 = 2;
const BAD_LOG: u8 = 3;
const CHECK_FAILED: u8 = 4;
const INTERRUPTED: u8 = 130;

/// Runs the parsed command line and returns the process's exit code.
pub fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Match(args) => match_command(&args),
        Command::Replay(args) => replay_command(&args),
        Command::Check(args) => check_command(&args),
        Command::Schema => schema_command(),
        Command::Completions(args) => completions_command(&args),
        Command::Man(args) => man_command(&args),
    }
}

fn completions_command(args: &CompletionsArgs) -> u8 {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "allfives", &mut std::io::stdout());
    0
}

fn man_command(args: &ManArgs) -> u8 {
    let mut command = Cli::command();
    command.build();
    let page = match &args.command {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            // Built, a subcommand is displayed as allfives-match: the page's name, as git's.
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
                let names = names.join(", ");
                return fail(
                    BAD_INPUT,
                    format!("no command '{name}': the commands are {names}"),
                );
            }
        },
    };
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
        return fail(FAILED, format!("cannot render the manual page: {e}"));
    }
    match std::io::stdout().write_all(&out) {
        Ok(()) => 0,
        Err(e) => fail(FAILED, format!("cannot write the manual page: {e}")),
    }
}

fn fail(code: u8, message: impl std::fmt::Display) -> u8 {
    eprintln!("allfives: {message}");
    code
}

fn match_command(args: &MatchArgs) -> u8 {
    let mut config = match args.config(fresh_seed()) {
        Ok(config) => config,
        Err(message) => return fail(BAD_INPUT, message),
    };
    for warning in args.warnings() {
        eprintln!("allfives: warning: {warning}");
    }
    config.protections = crate::referee::matchplay::protections(&config);
    if args.verbose
        && let Some(protections) = &config.protections
    {
        eprintln!("{}", protections.summary());
    }
    // Held until the match ends: every bot starts on the same CPU as the referee.
    let _cpu = match args.placement {
        Placement::SameCore => hold_core().unwrap_or_else(|e| {
            tracing::debug!(%e, "could not hold a CPU: running unpinned");
            None
        }),
        Placement::Free => None,
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let json = args.json;
    let started = |config: &_| {
        if !json {
            println!("{}", output::match_banner(config));
        }
    };
    let played = run_match(&config, started, |config, record| {
        if !json {
            println!("{}", output::game_line(config, record));
        }
    });
    match unless_interrupted(&runtime, played) {
        None => fail(
            INTERRUPTED,
            "interrupted: every bot was stopped; the logs written so far are kept",
        ),
        Some(Err(e)) => fail(FAILED, format!("the match stopped: {e}")),
        Some(Ok(report)) => {
            if json {
                match serde_json::to_string_pretty(&report) {
                    Ok(text) => println!("{text}"),
                    Err(e) => return fail(FAILED, e),
                }
            } else {
                println!("{}", output::match_table(&report));
            }
            0
        }
    }
}

fn replay_command(args: &ReplayArgs) -> u8 {
    let text = match std::fs::read_to_string(&args.log) {
        Ok(text) => text,
        Err(e) => {
            return fail(
                BAD_INPUT,
                format!("cannot read {}: {e}", args.log.display()),
            );
        }
    };
    match gamelog::replay(&text) {
        Ok(replay) => {
            if !args.quiet {
                print!("{}", output::replay_text(&replay));
            }
            let complete = match replay.end {
                Some(_) => "",
                None => " as far as it goes (it stops before the game's end)",
            };
            println!(
                "{}: every event checks out against the rules engine{complete}",
                args.log.display()
            );
            0
        }
        Err(e) => fail(
            BAD_LOG,
            format!("{} does not check out: {e}", args.log.display()),
        ),
    }
}

fn check_command(args: &CheckArgs) -> u8 {
    let spec = match BotSpec::parse(&args.bot) {
        Ok(spec) => spec,
        Err(message) => return fail(BAD_INPUT, message),
    };
    let clocks = match Clocks::from_ms(args.startup_ms, args.move_ms, args.bank_ms, ClockKind::Wall)
    {
        Ok(clocks) => clocks,
        Err(message) => return fail(BAD_INPUT, message),
    };
    // Private to this user, removed when dropped (a PASS), kept and named otherwise.
    let dir = match tempfile::Builder::new().prefix("allfives-check-").tempdir() {
        Ok(dir) => dir,
        Err(e) => return fail(FAILED, format!("cannot create a temporary folder: {e}")),
    };
    let stderr = dir.path().join("bot.stderr");
    if let Err(e) = files::create_new(&stderr) {
        return fail(FAILED, format!("cannot create {}: {e}", stderr.display()));
    }
    let sink = StderrSink {
        file: Some(stderr.clone()),
        cap: 1024 * 1024,
        echo_prefix: args.verbose.then(|| format!("[{}] ", spec.name)),
    };
    let policy = match args.sandbox.policy(vec![dir.path().to_path_buf()]) {
        Ok(policy) => Arc::new(policy),
        Err(message) => return fail(BAD_INPUT, message),
    };
    let bot = Player::new(spec, 1, sink, MAX_BOT_LINE, policy);
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let steps = match unless_interrupted(&runtime, check::check(bot, clocks, dir.path())) {
        None => {
            let kept = dir.keep();
            return fail(
                INTERRUPTED,
                format!(
                    "interrupted: the bot was stopped; logs in {}",
                    kept.display()
                ),
            );
        }
        Some(Err(e)) => return fail(FAILED, format!("the check stopped: {e}")),
        Some(Ok(steps)) => steps,
    };
    for step in &steps {
        println!("{step}");
    }
    let failed = steps.iter().filter(|s| !s.passed).count();
    if failed == 0 {
        println!("all {} steps passed", steps.len());
        return 0;
    }
    let text = std::fs::read_to_string(&stderr).unwrap_or_default();
    let kept = dir.keep();
    println!(
        "{failed} of {} steps failed; logs in {}",
        steps.len(),
        kept.display()
    );
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    // With -v the bot's stderr was already shown as it came.
    if !tail.is_empty() && !args.verbose {
        println!("--- the bot's stderr (last {} lines) ---", tail.len());
        tail.iter().rev().for_each(|line| println!("{line}"));
    }
    CHECK_FAILED
}

fn runtime() -> Result<tokio::runtime::Runtime, u8> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(FAILED, format!("cannot start the async runtime: {e}")))
}

fn schema_command() -> u8 {
    match serde_json::to_string_pretty(&allfives_engine::protocol::schema()) {
        Ok(text) => {
            println!("{text}");
            0
        }
        Err(e) => fail(FAILED, e),
    }
}

/// Runs `work` to its end, or until Ctrl-C, SIGTERM or SIGHUP: then every bot is killed and the answer
/// is `None`.
fn unless_interrupted<T>(
    runtime: &tokio::runtime::Runtime,
    work: impl std::future::Future<Output = T>,
) -> Option<T> {
    let outcome = runtime.block_on(async {
        tokio::select! {
            // Polled first, so that the signal handlers are in place before any bot starts.
            biased;
            () = interrupted() => None,
            done = work => Some(done),
        }
    });
    if outcome.is_none() {
        crate::bot::shutdown::kill_all();
    }
    outcome
}

/// Resolves on Ctrl-C, SIGTERM or SIGHUP (a closed terminal).
async fn interrupted() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
        _ = hup.recv() => {}
    }
}

/// A seed for when none is given: the clock's nanoseconds mixed with the process id.
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mixed = (nanos ^ u64::from(std::process::id())).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    // Small enough to type back in.
    mixed % 1_000_000_000
}
