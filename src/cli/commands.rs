//! What each command does: it runs the referee's parts, prints through [`output`], and returns
//! the process's exit code. Exit codes: 0 done (a bot losing by a fault is a result, not an
//! error); 1 the referee itself failed (e.g. a log could not be written); 2 bad arguments or an
//! unreadable input file; 3 a replayed log does not check out; 4 a bot failed `check`;
//! 5 stdout cannot be written (closed, or the disk is full); 130 interrupted; 141 stdout's
//! reader went away (`| head -1`), a quiet exit as the shell reports for other tools.

use std::io::Write;
use std::ops::ControlFlow;
use std::sync::Arc;

use allfives_engine::protocol::MAX_BOT_LINE;
use clap::CommandFactory;

use crate::bot::clock::{ClockKind, Clocks};
use crate::bot::player::{BotSpec, Player};
use crate::bot::process::StderrSink;
use crate::check;
use crate::cli::args::{CheckArgs, Cli, Command, CompletionsArgs, ManArgs, MatchArgs, ReplayArgs};
use crate::cli::output;
use crate::cli::tournament;
use crate::gamelog;
use crate::placement::{Placement, hold_core};
use crate::referee::matchplay::{Match, MatchConfig, PlannedGame, Played};
use crate::sandbox::files;
use crate::tournament::results::{self, Entrant, GameLine, LineContext, Report};
use crate::tournament::standings::Tally;
use crate::tournament::{schedule, seeds};

/// The referee itself failed (e.g. a log could not be written).
pub const FAILED: u8 = 1;
/// Bad arguments or an unreadable input file.
pub const BAD_INPUT: u8 = 2;
/// A replayed log does not check out.
pub const BAD_LOG: u8 = 3;
/// A bot failed `check`.
pub const CHECK_FAILED: u8 = 4;
/// Stdout cannot be written (closed, or the disk is full).
pub const OUTPUT_FAILED: u8 = 5;
/// Interrupted (Ctrl-C or SIGTERM).
pub const INTERRUPTED: u8 = 130;
/// Stdout's reader went away.
pub const BROKEN_PIPE: u8 = 141;

/// Runs the parsed command line and returns the process's exit code.
pub fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Match(args) => match_command(&args),
        Command::Replay(args) => replay_command(&args),
        Command::Check(args) => check_command(&args),
        Command::Tournament(args) => tournament::tournament_command(&args),
        Command::Standings(args) => tournament::standings_command(&args),
        Command::Schema(args) => schema_command(&args.what),
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

/// Writes one line on stderr and returns `code`.
pub fn fail(code: u8, message: impl std::fmt::Display) -> u8 {
    eprintln!("allfives: {message}");
    code
}

fn match_command(args: &MatchArgs) -> u8 {
    let mut config = match args.config(seeds::fresh) {
        Ok(config) => config,
        Err(message) => return fail(BAD_INPUT, message),
    };
    for warning in args.warnings(config.bots.len()) {
        eprintln!("allfives: warning: {warning}");
    }
    config.settings.protections =
        crate::referee::matchplay::protections(&config.bots, &config.settings.sandbox);
    if args.verbose
        && let Some(protections) = &config.settings.protections
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
    let mut played = match Match::new(config) {
        Ok(played) => played,
        Err(e) => return fail(FAILED, format!("cannot prepare the match's logs: {e}")),
    };
    // Every bot shakes hands first, so that the banner and the results carry its hello name.
    if unless_interrupted(&runtime, played.introduce()).is_none() {
        return fail(INTERRUPTED, "interrupted: every bot was stopped");
    }
    if !json && let Err(e) = output::print_line(&output::match_banner(&played.config)) {
        return output_failed(&e);
    }
    let entrants = results::entrants_of(&played.config.bots);
    let rules = played.config.settings.rules;
    let set_size = match args.no_rotate {
        true => 1,
        false => schedule::arrangements(&args.table(&rules)).len(),
    };
    let names = entrants.iter().map(|e| e.name.clone()).collect();
    let mut tally = Tally::new(names, set_size, rules.players, None);
    let mut lines: Vec<GameLine> = Vec::new();
    let mut broken: Option<std::io::Error> = None;
    let outcome = runtime.block_on(async {
        let games = played.play(|config, planned, game| {
            let line = match_line(config, planned, game, &entrants, args);
            tally.add(&line);
            // Only --json lists every game; text prints each as it ends and keeps none.
            let printed = match json {
                true => {
                    lines.push(line);
                    Ok(())
                }
                false => output::print_line(&output::game_line(&line)),
            };
            printed.map_or_else(
                |e| {
                    broken = Some(e);
                    ControlFlow::Break(())
                },
                ControlFlow::Continue,
            )
        });
        tokio::select! {
            // Polled first, so that the signal handlers are in place before any bot starts.
            biased;
            () = interrupted() => None,
            done = games => Some(done),
        }
    });
    if let Some(e) = broken {
        crate::bot::shutdown::kill_all();
        return output_failed(&e);
    }
    let ending = match outcome {
        None => {
            crate::bot::shutdown::kill_all();
            Some((
                INTERRUPTED,
                "interrupted: every bot was stopped; the logs written so far are kept".to_string(),
            ))
        }
        Some(Err(e)) => Some((FAILED, format!("the match stopped: {e}"))),
        Some(Ok(())) => None,
    };
    let mut report = Report::new("match", played.complete(), entrants, tally.standings());
    report.seed = Some(played.config.seed);
    report.rules = Some(rules);
    let text = match json {
        true => {
            report.games = Some(lines);
            serde_json::to_string_pretty(&report).expect("a report always serializes")
        }
        false => output::standings_text(&report),
    };
    if let Err(e) = output::print_line(&text) {
        return output_failed(&e);
    }
    match ending {
        Some((code, message)) => fail(code, message),
        None => 0,
    }
}

/// The results line of a match's game.
fn match_line(
    config: &MatchConfig,
    planned: &PlannedGame,
    game: &Played,
    entrants: &[Entrant],
    args: &MatchArgs,
) -> GameLine {
    let bots: Vec<&BotSpec> = config.bots.iter().collect();
    let group: Vec<usize> = (0..bots.len()).collect();
    let number = u64::from(planned.number);
    GameLine::new(
        &game.record,
        LineContext {
            id: &number.to_string(),
            game: number,
            group: &group,
            entrants,
            deal: (planned.deal, config.seed, planned.arrangement),
            rules: &config.settings.rules,
            times: &game.times,
            log: game.record.log.clone(),
            rerun: results::rerun(
                &bots,
                config.seed,
                number,
                &config.settings,
                args.deal.as_deref(),
            ),
        },
    )
}

/// Stdout failed: its reader went away (quiet, as other tools), or it cannot be written.
pub fn output_failed(e: &std::io::Error) -> u8 {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => BROKEN_PIPE,
        _ => fail(OUTPUT_FAILED, format!("cannot write to stdout: {e}")),
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

fn schema_command(what: &str) -> u8 {
    let schema = match what {
        "results" => serde_json::to_value(schemars::schema_for!(Report)),
        "results-line" => serde_json::to_value(schemars::schema_for!(GameLine)),
        _ => serde_json::to_value(allfives_engine::protocol::schema()),
    };
    match schema.and_then(|s| serde_json::to_string_pretty(&s)) {
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
pub async fn interrupted() {
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
