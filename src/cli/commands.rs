//! What each command does: it runs the referee's parts, prints through [`output`], and returns
//! the process's exit code. Exit codes: 0 done (a bot losing by a fault is a result, not an
//! error); 1 the referee itself failed (e.g. a log could not be written); 2 bad arguments or an
//! unreadable input file; 3 a replayed log does not check out; 4 a bot failed `check`;
//! 5 stdout cannot be written (closed, or the disk is full); 6 a replayed log checks out as far
//! as it goes but is cut short; 130 interrupted; 141 stdout's
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
use crate::cli::args::{
    CheckArgs, Cli, Command, CompletionsArgs, KitArgs, ManArgs, MatchArgs, ReplayArgs, hidden_with,
};
use crate::cli::entrants;
use crate::cli::exit::{
    BAD_INPUT, BAD_LOG, CHECK_FAILED, CUT_LOG, FAILED, INTERRUPTED, fail, output_failed, say,
    stopped_or,
};
use crate::cli::kit;
use crate::cli::output;
use crate::cli::pages;
use crate::cli::signals::interrupted;
use crate::cli::tournament;
use crate::gamelog;
use crate::gamelog::describe;
use crate::input;
use crate::referee::matchplay::{Match, MatchConfig, PlannedGame, Played};
use crate::replay::text::{self, TextOptions};
use crate::replay::turn::{self, Answer};
use crate::replay::{html, steps};
use crate::sandbox::{Policy, files};
use crate::tournament::game_logs;
use crate::tournament::report_stream::Report;
use crate::tournament::report_stream::ReportStream;
use crate::tournament::results::{self, Entrant, GameLine, LineContext};
use crate::tournament::standings::Tally;
use crate::tournament::{schedule, seeds};

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
        Command::Kit(args) => kit_command(&args),
        Command::Rules => emitted(emit(kit::RULEBOOK.as_bytes()), 0),
        Command::Compare(args) => crate::cli::compare::compare_command(&args),
    }
}

fn kit_command(args: &KitArgs) -> u8 {
    let written = match kit::write(args.language, &args.dir) {
        Ok(written) => written,
        Err(e @ kit::KitError::Exists(_)) => return fail(BAD_INPUT, e),
        Err(e) => return fail(FAILED, e),
    };
    let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    let mut text = format!(
        "wrote {}\nnext:\n",
        crate::text::terminal(&files.join(", "))
    );
    for step in kit::next_steps(args.language, &args.dir, &kit::python()) {
        text += &format!("  {}\n", crate::text::terminal(&step));
    }
    emitted(emit(text.as_bytes()), 0)
}

fn completions_command(args: &CompletionsArgs) -> u8 {
    let mut command = Cli::command();
    // Made in memory, then written: clap_complete panics when its writer fails.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "allfives", &mut script);
    emitted(emit(&script), 0)
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
    emitted(emit(&out), 0)
}

fn match_command(args: &MatchArgs) -> u8 {
    let (config, master) = match match_config(args) {
        Ok(made) => made,
        Err(message) => return fail(BAD_INPUT, message),
    };
    // Held until the match ends: every bot starts on the same CPU as the referee.
    let _cpu = args.placement.hold();
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let json = args.json;
    let rules = config.settings.rules;
    let report = |complete: bool, entrants: &[Entrant], tally: &Tally| {
        let mut report = Report::new("match", complete, entrants.to_vec(), tally.standings());
        report.seed = Some(master.seed);
        report.public_seed = master.public;
        report.rules = Some(rules);
        report
    };
    let tally_of = |entrants: &[Entrant], set_size: usize| {
        let names = entrants.iter().map(|e| e.name.clone()).collect();
        Tally::new(names, set_size, None)
    };
    let early = results::entrants_of(&config.bots);
    let mut played = match Match::new(config) {
        Ok(played) => played,
        Err(e) => {
            // --json promises a document whatever the ending: one with no game, incomplete.
            if json && let Err(e) = print_json(&report(false, &early, &tally_of(&early, 1))) {
                return output_failed(&e);
            }
            return fail(FAILED, format!("cannot prepare the match's logs: {e}"));
        }
    };
    // Every bot shakes hands first, so that the banner and the results carry its hello name.
    let Some(not_started) = unless_interrupted(&runtime, played.introduce()) else {
        if json && let Err(e) = print_json(&report(false, &early, &tally_of(&early, 1))) {
            return output_failed(&e);
        }
        return fail(INTERRUPTED, "interrupted: every bot was stopped");
    };
    let entrants = results::entrants_of(&played.config.bots);
    let set_size = match args.no_rotate {
        true => 1,
        false => schedule::arrangements(&args.table(&rules)).len(),
    };
    let mut tally = tally_of(&entrants, set_size);
    // --json streams its report: the opening now, each game as it ends, the standings last.
    let opened = match json {
        true => ReportStream::start(std::io::stdout(), &report(false, &entrants, &tally)).map(Some),
        false => output::print_line(&output::match_banner(&played.config, &master)).map(|()| None),
    };
    let mut stream = match opened {
        Ok(stream) => stream,
        Err(e) => {
            crate::bot::shutdown::kill_all();
            return output_failed(&e);
        }
    };
    let printed = (&mut stream, &entrants[..], &mut tally);
    let outcome = match play_match(&runtime, &mut played, printed, (args, &not_started)) {
        Ok(outcome) => outcome,
        Err(e) => {
            crate::bot::shutdown::kill_all();
            return output_failed(&e);
        }
    };
    if outcome.is_none() {
        crate::bot::shutdown::kill_all();
    }
    // Closed whatever the ending: an interrupted or failed match is a whole, incomplete report.
    match_ended(
        &report(played.complete(), &entrants, &tally),
        stream,
        (outcome, &not_started),
    )
}

/// Plays the match's games, each printed as it ends (with --json as in text) and none kept,
/// until they are all played, one fails, or a signal comes (`None`). Stdout failing ends it.
fn play_match(
    runtime: &tokio::runtime::Runtime,
    played: &mut Match,
    (stream, entrants, tally): (
        &mut Option<ReportStream<std::io::Stdout>>,
        &[Entrant],
        &mut Tally,
    ),
    (args, not_started): (&MatchArgs, &[String]),
) -> std::io::Result<Option<std::io::Result<()>>> {
    let mut broken: Option<std::io::Error> = None;
    let outcome = runtime.block_on(async {
        let games = played.play(|config, planned, game| {
            let line = match_line(config, planned, game, entrants, args);
            tally.add(&line);
            let printed = match stream {
                Some(stream) => stream.game(&line),
                None if args.quiet => Ok(()),
                None => output::print_line(&output::game_line(&line)),
            };
            match printed {
                Err(e) => {
                    broken = Some(e);
                    ControlFlow::Break(())
                }
                // A bot that could not start would forfeit every game the same way: its first
                // game records the fault, and the match stops there.
                Ok(()) if !not_started.is_empty() => ControlFlow::Break(()),
                Ok(()) => ControlFlow::Continue(()),
            }
        });
        tokio::select! {
            // Polled first, so that the signal handlers are in place before any bot starts.
            biased;
            () = interrupted() => None,
            done = games => Some(done),
        }
    });
    match broken {
        Some(e) => Err(e),
        None => Ok(outcome),
    }
}

/// The match's configuration from its arguments, its warnings and notes said (and with
/// `--verbose` its bots' protections).
fn match_config(args: &MatchArgs) -> Result<(MatchConfig, seeds::Master), String> {
    let (mut config, master) = args.config(seeds::fresh)?;
    for warning in args.warnings(config.bots.len()) {
        say(format_args!(
            "allfives: warning: {}",
            crate::text::terminal(&warning)
        ));
    }
    if let Some(note) = master.public_note() {
        say(format_args!("allfives: note: {note}"));
    }
    config.settings.protections =
        crate::referee::matchplay::protections(&config.bots, &config.settings.sandbox);
    for note in config.settings.protections.iter().flat_map(|p| &p.notes) {
        super::exit::note(note);
    }
    if args.verbose
        && let Some(protections) = &config.settings.protections
    {
        // Each line names bots and folders, which a bots file chose.
        for line in protections.summary().lines() {
            say(format_args!("{}", crate::text::terminal(line)));
        }
    }
    Ok((config, master))
}

/// A match's end: its report printed (the --json document closed), then how it ended said
/// (`None`: interrupted; `not_started`: the bots that could not start, which stop a match after
/// its first game).
fn match_ended(
    report: &Report,
    stream: Option<ReportStream<std::io::Stdout>>,
    (outcome, not_started): (Option<std::io::Result<()>>, &[String]),
) -> u8 {
    let ending = match outcome {
        None => Some((
            INTERRUPTED,
            "interrupted: every bot was stopped; the logs written so far are kept".to_string(),
        )),
        Some(Err(e)) => Some((FAILED, format!("the match stopped: {e}"))),
        // A match of one game too: README's exit code 4 says a bot could not start.
        Some(Ok(())) if !not_started.is_empty() => Some((
            CHECK_FAILED,
            format!(
                "{}; {} (`allfives check COMMAND` shows each step)",
                not_started.join("; "),
                match report.complete {
                    true => "the game's log records the fault",
                    false => "the match stopped after its first game, whose log records the fault",
                }
            ),
        )),
        Some(Ok(())) => None,
    };
    let printed = match stream {
        Some(stream) => stream.finish(report),
        None => output::print_line(&output::standings_text(report, true)),
    };
    if let Err(e) = printed {
        return output_failed(&e);
    }
    match ending {
        Some((code, message)) => fail(code, message),
        None => 0,
    }
}

/// Writes `report` whole as the --json document.
fn print_json(report: &Report) -> std::io::Result<()> {
    ReportStream::start(std::io::stdout(), report)?.finish(report)
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
            probed: &game.probed,
            log: game.record.log.clone(),
            rerun: results::rerun(
                &bots,
                config.seed,
                number,
                &config.settings,
                args.deal.as_deref(),
            ),
            reused_processes: config.settings.processes.is_reused(),
        },
    )
}

fn replay_command(args: &ReplayArgs) -> u8 {
    // The bot options (--bot-read PATH, ...) are checked first, whether or not --ask uses them.
    if let Err(message) = args.sandbox.policy(Vec::new()) {
        return fail(BAD_INPUT, message);
    }
    if args.log.is_dir() && args.game.is_none() {
        return folder_pages(args);
    }
    let (text, shown) = match replay_source(args) {
        Ok(source) => source,
        Err(message) => return fail(BAD_INPUT, message),
    };
    if let Some(path) = &args.html {
        return game_page(args, &text, &shown, path);
    }
    let replay = match gamelog::replay(&text) {
        Ok(replay) => replay,
        Err(_) if cut_in_header(&text) => return fail(CUT_LOG, cut_in_header_said(&shown)),
        Err(e) => return fail(BAD_LOG, format!("{shown} does not check out: {e}")),
    };
    let players = replay.header.rules.players;
    if let Some(seat) = args.seat.filter(|&s| s >= players) {
        return fail(
            BAD_INPUT,
            format!("--seat {seat}: the game has seats 0 to {}", players - 1),
        );
    }
    // A log cut short checks out only as far as it goes: a code of its own tells scripts.
    let done = match replay.end {
        Some(_) => 0,
        None => CUT_LOG,
    };
    if let Some(turn) = args.turn {
        return match turn_command(args, &replay, turn) {
            0 if done == CUT_LOG => {
                say(format_args!(
                    "allfives: note: {} is cut short before the game's end: the turn checks out, the rest of the game is not in the log",
                    crate::text::terminal(&shown)
                ));
                done
            }
            code => code,
        };
    }
    let doc = steps::document(&replay, args.seat);
    if let Err(message) = check_start(&doc, args.hand, args.from_move) {
        return fail(BAD_INPUT, message);
    }
    if args.json {
        let json = serde_json::to_string(&doc).expect("a document of plain data always serializes");
        return emitted(emit(crate::text::json(&(json + "\n")).as_bytes()), done);
    }
    if !args.quiet {
        let options = TextOptions {
            hand: args.hand,
            from_move: args.from_move,
            colour: colour(),
        };
        if let Err(e) = emit(text::render(&doc, options).as_bytes()) {
            return output_failed(&e);
        }
    }
    let complete = match (&replay.end, replay.torn) {
        (Some(_), _) => String::new(),
        (None, Some(line)) => {
            format!(" as far as it goes (line {line} is cut off mid-way: the referee was stopped)")
        }
        (None, None) => " as far as it goes (it stops before the game's end)".into(),
    };
    let said = format!(
        "{shown}: every line checks out against the rules engine{complete}; {}",
        replay.deals_said()
    );
    emitted(output::print_line(&said), done)
}

/// The log to replay, and its name in messages: the file LOG, or with `--game ID` that game of
/// the tournament folder LOG (its own file or its frame of a pack).
fn replay_source(args: &ReplayArgs) -> Result<(String, String), String> {
    let bytes = match &args.game {
        None => input::read(&args.log, input::MAX_LOG_BYTES)
            .map_err(|e| format!("cannot read {}: {e}", args.log.display()))?,
        Some(_) if !args.log.is_dir() => {
            return Err(format!(
                "--game names a game of a tournament's folder, and {} is not a folder",
                args.log.display()
            ));
        }
        Some(id) => {
            let failed = |e| format!("game {id} of {}: {e}", args.log.display());
            let place = game_logs::find(&args.log, id)?;
            let bytes = place.read(&args.log).map_err(failed)?;
            let shown = format!(
                "game {id} of {} ({})",
                args.log.display(),
                place.place.file()
            );
            return Ok((String::from_utf8_lossy(&bytes).into_owned(), shown));
        }
    };
    let shown = args.log.display().to_string();
    Ok((String::from_utf8_lossy(&bytes).into_owned(), shown))
}

/// Whether a log that does not replay holds not one whole line: empty (what a full disk
/// leaves) or cut inside its header. It is cut short, not wrong.
fn cut_in_header(text: &str) -> bool {
    !text.contains('\n') && (text.is_empty() || text.starts_with('{'))
}

/// What is said of a log [`cut_in_header`].
fn cut_in_header_said(shown: &str) -> String {
    format!(
        "{shown} is cut short before its first whole line (a full disk, or the referee stopped as the game began): it holds no move to replay"
    )
}

/// `replay LOG --html FILE`: the game's page (to stdout with `-`); a log that does not check
/// out gets a page of what does, marked where it stops, and exit code 3.
fn game_page(args: &ReplayArgs, text: &str, shown: &str, path: &std::path::Path) -> u8 {
    let (mut data, error) = match pages::game_page(text, args.seat) {
        Ok(page) => page,
        Err(_) if cut_in_header(text) => return fail(CUT_LOG, cut_in_header_said(shown)),
        Err(e) => return fail(BAD_LOG, format!("{shown} does not check out: {e}")),
    };
    let players = data.about.header["rules"]["players"].as_u64().unwrap_or(0) as usize;
    if let Some(seat) = args.seat.filter(|&s| s >= players) {
        return fail(
            BAD_INPUT,
            format!(
                "--seat {seat}: the game has seats 0 to {}",
                players.saturating_sub(1)
            ),
        );
    }
    (data.replay, data.log) = (Some(replay_of(args)), raw_log_of(args, path));
    let page = html::page(&data);
    let written = match path.as_os_str() == "-" {
        true => emit(page.as_bytes()).map_err(|e| output_failed(&e)),
        false => write_new(path, page.as_bytes()).map_err(|m| fail(BAD_INPUT, m)),
    };
    if let Err(code) = written {
        return code;
    }
    // A log cut short checks out only as far as it goes: a code of its own tells scripts.
    let done = match data.about.complete {
        true => 0,
        false => CUT_LOG,
    };
    match error {
        Some(e) => fail(
            BAD_LOG,
            format!("{shown} does not check out: {e}; the page shows the game up to there"),
        ),
        None if path.as_os_str() == "-" => done,
        None => {
            let said = format!("{shown}: the game's page is in {}", path.display());
            emitted(output::print_line(&said), done)
        }
    }
}

/// The command that replays the game of a page (`--turn K` is added by the page).
fn replay_of(args: &ReplayArgs) -> String {
    let mut command = format!("allfives replay {}", pages::path_word(&args.log));
    if let Some(id) = &args.game {
        command.push_str(&format!(" --game {}", crate::text::shell_word(id)));
    }
    if let Some(seat) = args.seat {
        command.push_str(&format!(" --seat {seat}"));
    }
    command
}

/// Where the page at `path` links to its raw log: the log file, relative to the page (its
/// whole path for a page on stdout); none for a game of a tournament's packs, or in one seat's
/// view (the log shows every hand).
fn raw_log_of(args: &ReplayArgs, path: &std::path::Path) -> Option<String> {
    if args.seat.is_some() || args.game.is_some() {
        return None;
    }
    match path.as_os_str() == "-" {
        true => Some(args.log.canonicalize().ok()?.display().to_string()),
        false => {
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
            pages::relative(folder.unwrap_or(std::path::Path::new(".")), &args.log)
        }
    }
}

/// `replay DIR --html OUT`: every game's page and an index, in a new folder.
fn folder_pages(args: &ReplayArgs) -> u8 {
    let shown = args.log.display();
    let Some(out) = args.html.as_deref().filter(|p| p.as_os_str() != "-") else {
        return fail(
            BAD_INPUT,
            format!(
                "{shown} is a folder: its games are shown as pages, with --html FOLDER (a new folder), or one game of a tournament's folder with --game ID"
            ),
        );
    };
    if args.quiet || args.json || args.ask.is_some() {
        return fail(
            BAD_INPUT,
            "a folder of logs is shown only as pages (--html)",
        );
    }
    match pages::folder(&args.log, out, args.seat) {
        Err(message) => fail(stopped_or(BAD_INPUT), message),
        Ok(folder) => {
            let said = format!(
                "{shown}: the pages of {} and their index are in {}",
                describe::count(folder.games as u64, "game"),
                out.join("index.html").display()
            );
            if let Err(e) = output::print_line(&said) {
                return output_failed(&e);
            }
            pages::folder_code(&folder)
        }
    }
}

/// Checks that `--hand H` and `--move M` name a hand and a move of the game.
fn check_start(
    doc: &steps::Document,
    hand: Option<u32>,
    from_move: Option<u32>,
) -> Result<(), String> {
    let hands = doc.steps.iter().map(|s| s.hand).max().unwrap_or(0);
    let h = hand.unwrap_or(1);
    if hand.is_some() && !(1..=hands).contains(&h) {
        return Err(match hands {
            0 => format!("--hand {h}: the log holds no hand"),
            1 => format!("--hand {h}: the game has one hand, hand 1"),
            n => format!("--hand {h}: the game has hands 1 to {n}"),
        });
    }
    let Some(m) = from_move else { return Ok(()) };
    let moves = doc
        .steps
        .iter()
        .filter(|s| s.hand == h)
        .filter_map(|s| s.move_number)
        .max()
        .unwrap_or(0);
    match (1..=moves).contains(&m) {
        true => Ok(()),
        false => Err(format!("--move {m}: hand {h} has moves 1 to {moves}")),
    }
}

/// Writes `bytes` to stdout as they are, flushed.
fn emit(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush())
}

/// `code` once stdout took what was written; else the output error's code (and its line).
fn emitted(written: std::io::Result<()>, code: u8) -> u8 {
    match written {
        Ok(()) => code,
        Err(e) => output_failed(&e),
    }
}

/// `--turn K`: the position, its turn message (`--json`), or a bot's answer to it (`--ask`).
fn turn_command(args: &ReplayArgs, replay: &gamelog::Replay, wanted: turn::Wanted) -> u8 {
    let (position, all) = match turn::position(replay, wanted, args.seat) {
        Ok(found) => found,
        Err(message) => return fail(BAD_INPUT, format!("--turn: {message}")),
    };
    // Shown as asked: a fault's decision by the number that `--turn` alone finds it at.
    let turn = match wanted {
        turn::Wanted::Turn(k) => k,
        turn::Wanted::Fault(_) => all,
    };
    if args.json {
        let message = crate::text::json(&String::from_utf8_lossy(&position.message()));
        return emitted(emit(message.as_bytes()), 0);
    }
    let asked = match args.ask.as_deref().map(BotSpec::parse).transpose() {
        Ok(spec) => spec,
        Err(message) => return fail(BAD_INPUT, message),
    };
    let names: Vec<String> = replay.header.seats.iter().map(|s| s.bot.clone()).collect();
    let shown = text::decision(&position, turn, &names, &text::Paint(colour()));
    if let Err(e) = emit(shown.as_bytes()) {
        return output_failed(&e);
    }
    let Some(spec) = asked else { return 0 };
    let policy = match args.sandbox.policy(hidden_from_asked(args)) {
        Ok(policy) => Arc::new(policy),
        Err(message) => return fail(BAD_INPUT, message),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let answer = runtime.block_on(async {
        tokio::select! {
            biased;
            () = interrupted() => None,
            answer = turn::ask(replay, &position, spec, policy) => Some(answer),
        }
    });
    let said = match answer {
        None => {
            crate::bot::shutdown::kill_all();
            return fail(INTERRUPTED, "interrupted: the bot was stopped");
        }
        Some((name, Answer::Move(mv, took))) => format!(
            "  {} answers {} ({:.1} ms)",
            crate::text::terminal(&name),
            position.describe(mv),
            took.as_secs_f64() * 1000.0
        ),
        Some((name, Answer::Fault(fault))) => {
            format!("  {} gives no move: {fault}", crate::text::terminal(&name))
        }
    };
    emitted(output::print_line(&said), 0)
}

/// The folder a bot posed a logged position may not read: the log's, or the tournament's of
/// `--game` (hidden even inside the bot's working directory).
fn hidden_from_asked(args: &ReplayArgs) -> Vec<std::path::PathBuf> {
    let log = args.log.canonicalize().ok();
    let folder = match args.game {
        Some(_) => log,
        None => log.and_then(|l| l.parent().map(std::path::Path::to_path_buf)),
    };
    folder.map(hidden_with).unwrap_or_default()
}

/// Whether to colour text: only on a terminal, and never with NO_COLOR set.
fn colour() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Writes a file that must not exist yet (results are never silently overwritten).
fn write_new(path: &std::path::Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let shown = path.display();
    let mut file = files::create_new(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            format!("{shown} exists already; remove it or name another file")
        }
        _ => e.to_string(),
    })?;
    file.write_all(bytes)
        .map_err(|e| format!("cannot write {shown}: {e}"))
}

fn check_command(args: &CheckArgs) -> u8 {
    let entrant = match &args.bots_file {
        Some(file) => entrants::entrant_of(file, &args.bot),
        None => BotSpec::parse(&args.bot).map(|spec| (spec, Vec::new())),
    };
    let (spec, homes) = match entrant {
        Ok(entrant) => entrant,
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
    // The bot's stderr lines, echoed (-v) or shown after a failure, each carry its name.
    let prefix = format!("[{}] ", spec.name);
    let sink = StderrSink {
        file: Some(stderr.clone()),
        cap: 1024 * 1024,
        echo_prefix: args.verbose.then(|| prefix.clone()),
        lines: None,
    };
    // Contained exactly as in a match from here: a PASS means the match will play.
    let policy = match args.sandbox.policy(hidden_with(dir.path().to_path_buf())) {
        Ok(policy) => Arc::new(Policy { homes, ..policy }),
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
    let mut said: Vec<String> = steps.iter().map(ToString::to_string).collect();
    let failed = steps.iter().filter(|s| !s.passed).count();
    if failed == 0 {
        said.push(format!("all {} steps passed", steps.len()));
        return emitted(output::print_line(&said.join("\n")), 0);
    }
    let text = std::fs::read(&stderr).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let kept = dir.keep();
    said.push(format!(
        "{failed} of {} steps failed; logs in {}",
        steps.len(),
        kept.display()
    ));
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    // With -v the bot's stderr was already shown as it came.
    if !tail.is_empty() && !args.verbose {
        said.push(format!(
            "--- the bot's stderr (last {}) ---",
            gamelog::describe::count(tail.len() as u64, "line")
        ));
        said.extend(tail.iter().rev().map(|line| format!("{prefix}{line}")));
    }
    emitted(output::print_line(&said.join("\n")), CHECK_FAILED)
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
        "compare" => serde_json::to_value(schemars::schema_for!(crate::compare::report::Report)),
        _ => serde_json::to_value(allfives_engine::protocol::schema()),
    };
    match schema.and_then(|s| serde_json::to_string_pretty(&s)) {
        Ok(text) => emitted(emit((text + "\n").as_bytes()), 0),
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
