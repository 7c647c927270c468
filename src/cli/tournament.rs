//! `allfives tournament` and `allfives standings`: the dispatcher owns the results folder, the
//! signals, the progress display and the standings; the workers only play
//! ([`crate::tournament::workers`]).

use std::path::Path;
use std::sync::Arc;

use allfives_engine::rules::Rules;

use crate::bot::lifetime::Processes;
use crate::bot::player::BotSpec;
use crate::cli::args::{
    DEFAULT_TOURNAMENTS as DEFAULT_DIR, KeptSetting, OnFault, RatingArgs, StandingsArgs,
    TournamentArgs, hidden_with, new_log_dir,
};
use crate::cli::entrants;
use crate::cli::exit::{BAD_INPUT, FAILED, INTERRUPTED, fail, note, output_failed, stopped_or};
use crate::cli::output;
use crate::cli::pages::Folder;
use crate::cli::progress::Progress;
use crate::cli::report_page::{LIVE_PAGE, ReportPage};
use crate::cli::run_view::{Shown, announce, interrupted_in, kept_processes_note};
use crate::cli::signals::interrupted_twice;
use crate::referee::matchplay::GameSettings;
use crate::report::data::State;
use crate::tournament::definition::Definition;
use crate::tournament::folder::{self, HeldFolder};
use crate::tournament::merge::Shards;
use crate::tournament::report_stream::Report;
use crate::tournament::run::{self, AnchorAsk, Event, OpenError, Opened, PlayOptions};
use crate::tournament::schedule::{Format, Table};
use crate::tournament::seeds::{self, Master, SEED_LIMIT};
use crate::tournament::start::{self, Asked, Caller, Kept, challenger_first};

/// Runs `allfives tournament`.
pub fn tournament_command(args: &TournamentArgs) -> u8 {
    let (played, dir) = match play_tournament(args) {
        Ok(done) => done,
        Err(code) => return code,
    };
    if let Err(e) = output::print_report(&played.report, args.json, args.rating.pairs) {
        return output_failed(&e);
    }
    match (&played.error, played.interrupts) {
        (Some(e), _) => fail(FAILED, format!("the tournament stopped: {e}")),
        (None, 0) => 0,
        (None, _) => fail(INTERRUPTED, interrupted_in(&dir)),
    }
}

/// Plays the tournament `args` ask for, its standings not printed (`tournament` and `compare`
/// share it); an error is an exit code, its sentence printed.
pub fn play_tournament(args: &TournamentArgs) -> Result<(run::Played, std::path::PathBuf), u8> {
    // The collector's runtime (each worker runs on a thread and runtime of its own), and the
    // signal handlers in place before anything else: a signal during a long start is kept, and
    // obeyed as soon as the games start.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(FAILED, format!("cannot start the async runtime: {e}")))?;
    let signals = runtime.block_on(async {
        let signals = interrupted_twice();
        // The watch starts (and puts its handlers in place) at its first poll.
        tokio::task::yield_now().await;
        signals
    });
    let (definition, held, notes) = match prepare(args) {
        Ok(prepared) => prepared,
        Err(message) => return Err(fail(stopped_or(BAD_INPUT), message)),
    };
    // A folder that cannot be written (a full disk) is the referee's failure, as a log is.
    start::lay_out(&definition, &held.dir).map_err(|message| fail(FAILED, message))?;
    notes.iter().for_each(|said| note(said));
    let dir = held.dir.clone();
    let mut shown = Shown::new(args, &definition, &dir);
    let opened = match Opened::open(
        definition,
        dir.clone(),
        &anchor_asked(&args.rating),
        &mut shown,
    ) {
        Ok(opened) => opened,
        Err(OpenError::Refused(message)) => return Err(fail(BAD_INPUT, message)),
        Err(OpenError::Failed(message)) => return Err(fail(FAILED, message)),
    };
    // The page is there before the banner: whoever reads the banner finds it.
    shown.opened(&opened);
    let concurrency = announce(args, &opened).map_err(|e| output_failed(&e))?;
    // The policy hides the tournament's folder (logs, results, stderr) from every bot, other
    // tournaments' folders beside it, and each bot's folder from the others.
    crate::sandbox::outputs::register(&dir);
    let policy = args.game_options.sandbox.policy(hidden_with(dir.clone()));
    let mut policy = policy.map_err(|m| fail(BAD_INPUT, m))?;
    policy.hidden.extend(args.seeds.key_file());
    let options = PlayOptions {
        concurrency,
        placement: args.placement,
        policy,
        processes: Processes::from_flags(args.fresh, args.reuse_processes),
    };
    let reused = !args.fresh && !args.later_round && opened.bots.iter().any(|b| b.is_process());
    shown.progress = Some(Progress::new(opened.missing, args.quiet));
    let played = run::play(opened, &runtime, options, signals, &mut shown);
    shown.finish(&played);
    if reused {
        kept_processes_note(args.reuse_processes);
    }
    Ok((played, dir))
}

/// The rating anchor the options ask for.
fn anchor_asked(args: &RatingArgs) -> AnchorAsk {
    AnchorAsk {
        name: args.anchor.clone(),
        elo: args.anchor_elo,
    }
}

/// Checks the arguments against the folder: a new tournament, or the one stored there resumed.
/// The folder comes back held (no other run may use it until the returned lock is dropped),
/// with a note for each thing honoured or repaired; it is laid out next.
fn prepare(args: &TournamentArgs) -> Result<(Definition, HeldFolder, Vec<String>), String> {
    let (settings, table) = checked_options(args)?;
    let mut given = entrants::entrants(args.bots_file.as_deref(), &args.bots)?;
    if let Some(name) = &args.challenger
        && !args.resume
    {
        challenger_first(&mut given, name, args.format)?;
    }
    let asked = asked(args, given, settings, table)?;
    let held = match &args.out {
        Some(dir) => Some(folder::hold(dir)?),
        None => None,
    };
    let mut notes = Vec::new();
    let definition = match start::define(&asked, held.as_ref(), &mut notes) {
        Ok(definition) => definition,
        Err(refusal) => {
            // A refused run leaves no folder behind that it made.
            if let Some(held) = held {
                held.abandon();
            }
            return Err(refusal.to_string());
        }
    };
    let held = match held {
        Some(held) => held,
        None => {
            let dir = new_log_dir(Path::new(DEFAULT_DIR), "tournament")
                .map_err(|e| format!("cannot create a folder in {DEFAULT_DIR}: {e}"))?;
            folder::hold(&dir)?
        }
    };
    notes.retain(|_| !args.later_round);
    Ok((definition, held, notes))
}

/// The run the arguments ask for, in the library's terms.
fn asked(
    args: &TournamentArgs,
    given: Vec<BotSpec>,
    settings: GameSettings,
    table: Table,
) -> Result<Asked<'_>, String> {
    let (shard, shard_from) = match args.shard {
        Some(ask) => {
            let (shard, from) = ask.resolve(|name| std::env::var(name).ok())?;
            (Some(shard), from)
        }
        None => (None, None),
    };
    Ok(Asked {
        out: args.out.clone(),
        resume: args.resume,
        given,
        settings,
        table,
        format: args.format,
        deals: args.deals,
        shard,
        shard_from,
        sprt: args.sprt,
        pack_logs: args.pack_logs,
        games: args.games,
        games_each: args.games_each,
        matchmaking: args.matchmaking,
        retire: args.retire.clone(),
        retired: entrants::retired_in(args.bots_file.as_deref())?,
        ladder_flag: ladder_flag(args),
        challenger: args.challenger.clone(),
        typed: args
            .typed
            .iter()
            .map(|&k| (k.flag(), kept(args, k)))
            .collect(),
        caller: args,
    })
}

/// A setting typed, with its value.
fn kept(args: &TournamentArgs, setting: KeptSetting) -> Kept {
    let options = &args.game_options;
    match setting {
        KeptSetting::StartupMs => Kept::StartupMs(options.startup_ms),
        KeptSetting::MoveMs => Kept::MoveMs(options.move_ms),
        KeptSetting::BankMs => Kept::BankMs(options.bank_ms),
        KeptSetting::Clock => Kept::Clock(options.clock),
        KeptSetting::OnFault => Kept::OnFault(options.on_fault == OnFault::Fallback),
        KeptSetting::MaxFaults => Kept::MaxFaults(options.max_faults),
        KeptSetting::MaxLine => Kept::MaxLine(options.max_line),
        KeptSetting::Players => Kept::Players(args.players),
        KeptSetting::Format => Kept::Format(args.format),
        KeptSetting::Splits => Kept::Splits(args.splits),
        KeptSetting::AllOrders => Kept::AllOrders(args.all_orders),
    }
}

impl Caller for TournamentArgs {
    fn rules_over(&self, rules: Rules) -> Result<Rules, String> {
        self.game_options.rules(rules.players, Some(rules))
    }

    fn master(&self) -> Result<Master, String> {
        self.seeds.master(seeds::fresh)
    }

    fn reproducible(&self) -> bool {
        self.seeds.reproducible()
    }

    fn seed_changed(&self, stored: &Definition) -> Option<&'static str> {
        self.seeds.names_another_master(stored)
    }
}

/// The options' own checks, whatever the folder holds: the games' settings and the table.
fn checked_options(args: &TournamentArgs) -> Result<(GameSettings, Table), String> {
    if !(2..=4).contains(&args.players) {
        return Err(format!("--players must be 2, 3 or 4, not {}", args.players));
    }
    if args.deals == Some(0) {
        return Err("--deals must be at least 1".into());
    }
    let rules = args.game_options.rules(args.players, None)?;
    let settings = args
        .game_options
        .settings(rules, Arc::from([]), Vec::new())?;
    let table = Table {
        players: args.players,
        teams: settings.rules.teams,
        splits: args.splits,
        all_orders: args.all_orders,
    };
    if args.splits && !(table.players == 4 && table.teams) {
        return Err("--splits needs 4 players in partnerships".into());
    }
    if args.all_orders && (table.players != 4 || table.teams) {
        return Err("--all-orders needs 4 players cut-throat (--no-teams)".into());
    }
    ladder_options(args)?;
    if let Some(seed) = args.seeds.seed
        && seed >= SEED_LIMIT
    {
        return Err(format!("--seed must be below 2^53 ({SEED_LIMIT})"));
    }
    Ok((settings, table))
}

/// The ladder options' own checks: only with a ladder, which needs a budget (its first run).
fn ladder_options(args: &TournamentArgs) -> Result<(), String> {
    let ladder = args.format == Format::Ladder;
    if let Some(flag) = ladder_flag(args)
        && !ladder
        && !args.resume
    {
        return Err(format!("{flag} needs --format ladder"));
    }
    if ladder && args.deals.is_some() {
        return Err(
            "a ladder plays each table on a deal of its own: drop --deals, and give its budget with --games or --games-each"
                .into(),
        );
    }
    if !args.resume && !args.retire.is_empty() {
        return Err("--retire needs --resume: it retires an entrant of a running ladder".into());
    }
    if ladder && !args.resume && args.games.is_none() && args.games_each.is_none() {
        return Err(
            "a ladder needs a budget: --games N (in all) or --games-each N (for every entrant)"
                .into(),
        );
    }
    if args.games == Some(0) || args.games_each == Some(0) {
        return Err("a ladder's budget must be at least 1 game".into());
    }
    Ok(())
}

/// The first ladder option given, if any.
fn ladder_flag(args: &TournamentArgs) -> Option<&'static str> {
    [
        (args.games.is_some(), "--games"),
        (args.games_each.is_some(), "--games-each"),
        (args.matchmaking, "--matchmaking"),
        (!args.retire.is_empty(), "--retire"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// Runs `allfives standings`.
pub fn standings_command(args: &StandingsArgs) -> u8 {
    if args.html.as_deref() == Some(Path::new("-")) {
        return fail(
            BAD_INPUT,
            "--html -: the report page is written to a file (its replay pages are linked beside it), not to stdout; name a file such as report.html",
        );
    }
    let shards = match Shards::read(&args.dirs) {
        Ok(shards) => shards,
        Err(message) => return fail(BAD_INPUT, message),
    };
    let mut page = args
        .html
        .as_deref()
        .map(|path| ReportPage::new(path, &args.dirs, shards.first(), shards.scheduled()));
    let mut sink = |event: Event<'_>| match event {
        Event::Found {
            folder,
            line,
            tally,
        } => {
            if let Some(page) = &mut page {
                page.add(folder, line, tally);
            }
        }
        Event::Note(said) => note(said),
        Event::Recorded { .. } | Event::Stopping => {}
    };
    let anchor = anchor_asked(&args.rating);
    let report = match shards.standings(args.verify, args.sprt, &anchor, &mut sink) {
        Ok(report) => report,
        Err(message) => return fail(BAD_INPUT, message),
    };
    // A replay page's game cut short or not checking out: `replay`'s code for it.
    let code = match page.map(|mut page| write_report(args, &mut page, &report)) {
        Some(Err(message)) => return fail(stopped_or(BAD_INPUT), message),
        Some(Ok(folder)) => crate::cli::pages::folder_code(&folder),
        None => 0,
    };
    match output::print_report(&report, args.json, args.rating.pairs) {
        Ok(()) => code,
        Err(e) => output_failed(&e),
    }
}

/// `standings --html FILE`: the page, and with `--replays` every game's replay page beside it.
fn write_report(
    args: &StandingsArgs,
    page: &mut ReportPage,
    report: &Report,
) -> Result<Folder, String> {
    let path = args.html.as_deref().unwrap_or(Path::new(LIVE_PAGE));
    let mut all = Folder::default();
    for folder in (0..args.dirs.len()).filter(|_| args.replays) {
        let (dir, out) = page
            .replay_folder(folder)
            .expect("a page has each folder's");
        all.add(crate::cli::pages::folder(&dir, &out, None)?);
        page.replays_written(folder);
    }
    page.write(State::Read, None, report)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
        .map(|()| all)
}
