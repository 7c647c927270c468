//! `allfives tournament` and `allfives standings`: the dispatcher owns the results folder, the
//! signals, the progress display and the standings; the workers only play
//! ([`crate::tournament::workers`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use crate::bot::lifetime::Processes;
use crate::bot::player::BotSpec;
use crate::cli::args::{
    DEFAULT_TOURNAMENTS as DEFAULT_DIR, KeptSetting, OnFault, RatingArgs, SeedArgs, StandingsArgs,
    TournamentArgs, hidden_with, new_log_dir,
};
use crate::cli::commands::{BAD_INPUT, FAILED, INTERRUPTED, fail, interrupted, output_failed};
use crate::cli::entrants;
use crate::cli::key_file;
use crate::cli::output;
use crate::cli::progress::Progress;
use crate::cli::report_page::{LIVE_PAGE, ReportPage};
use crate::referee::game::FaultPolicy;
use crate::referee::matchplay::GameSettings;
use crate::referee::matchplay::protections;
use crate::report::data::State;
use crate::sandbox::files;
use crate::tournament::audit::{self, RESULTS};
use crate::tournament::definition::{self, Definition, EntrantDef};
use crate::tournament::folder::{self, HeldFolder};
use crate::tournament::game_logs::PackEnds;
use crate::tournament::ladder::LadderSpec;
use crate::tournament::ladder::fits::{FitPoints, Refits};
use crate::tournament::ladder::queue::{Ladder, LadderGames, SharedLadder};
use crate::tournament::ratings::{Anchor, SprtSpec};
use crate::tournament::results::{self, Entrant, GameLine, Report, ResultsWriter};
use crate::tournament::schedule::{Format, GamePlan, Table};
use crate::tournament::seeds::{self, Master, SEED_LIMIT};
use crate::tournament::standings::Tally;
use crate::tournament::workers::{self, Queue, Run};

/// Runs `allfives tournament`.
pub fn tournament_command(args: &TournamentArgs) -> u8 {
    // The collector's runtime (each worker runs on a thread and runtime of its own), and the
    // signal handlers in place before anything else: a signal during a long start is kept, and
    // obeyed as soon as the games start.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return fail(FAILED, format!("cannot start the async runtime: {e}")),
    };
    let signals = runtime.block_on(async {
        let signals = interrupted_twice();
        // The watch starts (and puts its handlers in place) at its first poll.
        tokio::task::yield_now().await;
        signals
    });
    let (definition, held, notes) = match prepare(args) {
        Ok(prepared) => prepared,
        Err(message) if crate::input::stopping() => return fail(INTERRUPTED, message),
        Err(message) => return fail(BAD_INPUT, message),
    };
    for note in notes {
        eprintln!("allfives: note: {note}");
    }
    let dir = held.dir.clone();
    let bots = match definition.bots() {
        Ok(bots) => bots,
        Err(message) => return fail(BAD_INPUT, message),
    };
    let mut entrants = results::entrants_of(&bots);
    for entrant in &mut entrants {
        entrant.retired = definition.retired.contains(&entrant.name);
    }
    let schedule = definition.schedule();
    let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
    let anchor = match anchor(&args.rating, &names) {
        Ok(anchor) => anchor,
        Err(message) => return fail(BAD_INPUT, message),
    };
    let mut tally = Tally::new(names, schedule.set_size(), definition.sprt).anchored(anchor);
    let mut done = HashSet::new();
    let mut pack_ends = PackEnds::default();
    let mut ladder = (definition.format == Format::Ladder)
        .then(|| Ladder::new(&definition).with_fits(FitPoints::of(&definition)));
    let mut refits = ladder
        .as_ref()
        .filter(|ladder| ladder.matchmaking())
        .map(|_| Refits::new(&definition));
    let results_path = dir.join(RESULTS);
    let mut live = ReportPage::new(
        &dir.join(LIVE_PAGE),
        std::slice::from_ref(&dir),
        &definition,
        0,
    );
    let audited = audit::read_checked(&dir, &definition, false, |line| {
        tally.add(&line);
        live.add(0, &line, &tally);
        pack_ends.add(&line);
        // A ladder's tables are drawn afresh: it needs what was played, not which ids.
        if let Some(refits) = refits.as_mut() {
            refits.add(&line);
        }
        match ladder.as_mut() {
            Some(ladder) => ladder.found(&line),
            None => {
                done.insert(line.id);
            }
        }
    });
    let audited = match audited {
        Ok(audited) => audited,
        Err(message) => return fail(BAD_INPUT, message),
    };
    for note in &audited.notes {
        eprintln!("allfives: note: {note}");
    }
    if !audited.dropped.is_empty()
        && let Err(e) = audit::rewrite_without(&dir, &audited.dropped)
    {
        return fail(
            FAILED,
            format!("cannot repair {}: {e}", results_path.display()),
        );
    }
    match pack_ends.repair(&dir, definition.pack_logs) {
        Ok(notes) => notes
            .iter()
            .for_each(|n| eprintln!("allfives: note: {}", crate::text::terminal(n))),
        // A pack missing, or shorter than its lines say: the folder's input does not check out.
        Err(message) => return fail(BAD_INPUT, message),
    }
    let mut writer = match ResultsWriter::open(&results_path) {
        Ok(writer) => writer,
        Err(e) => {
            return fail(
                FAILED,
                format!("cannot open {}: {e}", results_path.display()),
            );
        }
    };
    let shard = definition.shard;
    // Every line read is a distinct game of this shard (checked), so the rest is a difference.
    // A test that decided before a stop stays decided: --resume plays nothing more.
    let decided = tally.sprt_decision();
    let scheduled = match ladder.as_mut() {
        Some(ladder) => {
            ladder.finish_found();
            if let Some(refits) = refits.as_mut() {
                refits.resumed(ladder.next_set());
                for fit in refits.fits() {
                    ladder.fitted(&fit);
                }
            }
            tally.games() + ladder.remaining()
        }
        None => schedule.count(shard),
    };
    live.scheduled(scheduled);
    let missing = match decided {
        Some(_) => 0,
        None => scheduled.saturating_sub(tally.games()),
    };
    // The page is there before the banner: whoever reads the banner finds it.
    if let Err(e) = live.refresh(|| tournament_report(&definition, entrants.clone(), false, &tally))
    {
        eprintln!("allfives: note: cannot write {LIVE_PAGE} ({e}); the run goes on without it");
    }
    if !args.json {
        let mut banner = match &ladder {
            Some(_) => format!(
                "allfives ladder: {} entrants ({} retired), about {} games to play, {} played, {}, results in {}",
                bots.len(),
                definition.retired.len(),
                missing,
                tally.games(),
                definition.master().describe(),
                dir.display()
            ),
            None => format!(
                "allfives tournament: {} entrants, {} games to play of {} scheduled, {}, results in {}",
                bots.len(),
                missing,
                scheduled,
                definition.master().describe(),
                dir.display()
            ),
        };
        if let Some(d) = decided {
            banner.push_str(&format!(
                "\nthe sequential test stored there accepted {} at pair {}: nothing more to play",
                d.accepted.name(),
                d.pair
            ));
        }
        if let Err(e) = output::print_line(&banner) {
            return output_failed(&e);
        }
    }
    if let Some(note) = definition.master().public_note() {
        eprintln!("allfives: note: {note}");
    }
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    // The policy hides the tournament's folder (logs, results, stderr) from every bot, other
    // tournaments' folders beside it, and each bot's folder from the others.
    crate::sandbox::outputs::register(&dir);
    let mut policy = match args.game_options.sandbox.policy(hidden_with(dir.clone())) {
        Ok(policy) => policy,
        Err(message) => return fail(BAD_INPUT, message),
    };
    policy.homes = bots.iter().flat_map(BotSpec::homes).collect();
    policy.hidden.extend(args.seeds.key_file());
    let mut settings = definition.settings(policy);
    settings.protections = protections(&bots, &settings.sandbox);
    settings.processes = Processes::from_flags(args.fresh, args.reuse_processes);
    let reused = !args.fresh && bots.iter().any(|b| b.is_process());
    let run = Arc::new(Run {
        bots,
        entrants: entrants.clone(),
        settings,
        dir: dir.clone(),
        definition: definition.clone(),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let mut progress = Progress::new(missing, args.quiet);
    let ladder = ladder.map(SharedLadder::new);
    let mut collected = runtime.block_on(async {
        let games: Box<dyn Iterator<Item = GamePlan> + Send> = match &ladder {
            Some(ladder) => Box::new(
                LadderGames {
                    shared: ladder.clone(),
                    stop: stop.clone(),
                }
                .take_while(move |_| decided.is_none()),
            ),
            None => Box::new(
                Arc::new(schedule)
                    .into_games(shard)
                    .filter(move |g| decided.is_none() && !done.contains(&g.id)),
            ),
        };
        let queue: Queue = Arc::new(Mutex::new(games));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut collector = Collector {
            played: 0,
            interrupts: 0,
            error: None,
            sprt_decided: decided.is_some(),
            live: Some(live),
            definition: definition.clone(),
            entrants: entrants.clone(),
            refits: ladder.clone().zip(refits),
        };
        let workers = workers::start(run, queue, concurrency, args.placement, stop.clone(), tx);
        let workers = match workers {
            Ok(workers) => workers,
            Err(e) => {
                collector.error = Some(format!("cannot start the workers: {e}"));
                return collector;
            }
        };
        let mut signals = signals;
        loop {
            tokio::select! {
                // Signals first: a stream of finished games never holds them up.
                biased;
                count = signals.recv() => {
                    collector.interrupts = count.unwrap_or(2);
                    stop.store(true, Ordering::SeqCst);
                    if collector.interrupts == 1 {
                        progress.note("allfives: stopping: the running games finish, no new game starts (Ctrl-C again to stop at once)");
                    } else {
                        crate::bot::shutdown::kill_all();
                        workers.abort_all();
                        break;
                    }
                }
                line = rx.recv() => match line {
                    Some(first) => {
                        // Every game finished meanwhile goes into one write and one sync.
                        let mut batch = vec![first];
                        while let Ok(more) = rx.try_recv() {
                            batch.push(more);
                        }
                        collector.take(batch, &mut writer, &mut tally, &stop, &mut progress, args);
                    }
                    None => break,
                },
            }
        }
        workers.join().await;
        collector
    });
    progress.finish();
    if reused {
        let kept = match args.reuse_processes {
            true => "deals seen before included (--reuse-processes)",
            false => "each restarted before a deal came back to it",
        };
        eprintln!(
            "allfives: note: each worker kept its bots' processes from game to game, {kept}: a bot that keeps state across games (not reseeding from game_start's bot_seed) may play otherwise with another -j (--fresh starts a process per game)"
        );
    }
    let complete = collected.interrupts == 0
        && collected.error.is_none()
        && !collected.sprt_decided
        && match &ladder {
            // A ladder's budget in games each is only estimated ahead.
            Some(ladder) => ladder.lock().spent(),
            None => collected.played == missing,
        };
    let report = tournament_report(&definition, entrants, complete, &tally);
    collected.finish_page(&report);
    if let Err(e) = print_report(&report, args.json, args.rating.pairs) {
        return output_failed(&e);
    }
    match (&collected.error, collected.interrupts) {
        (Some(e), _) => fail(FAILED, format!("the tournament stopped: {e}")),
        (None, 0) => 0,
        (None, _) => fail(
            INTERRUPTED,
            format!(
                "interrupted: every finished game is in {}; --resume plays the rest",
                dir.display()
            ),
        ),
    }
}

/// What the dispatcher has seen.
struct Collector {
    played: u64,
    interrupts: usize,
    error: Option<String>,
    sprt_decided: bool,
    /// The folder's report page; `None` once it could not be written (said once).
    live: Option<ReportPage>,
    definition: Definition,
    entrants: Vec<Entrant>,
    /// A matchmaking ladder, and the fits its draw reads.
    refits: Option<(Arc<SharedLadder>, Refits)>,
}

/// The report `tournament` prints and its page shows.
fn tournament_report(
    definition: &Definition,
    entrants: Vec<Entrant>,
    complete: bool,
    tally: &Tally,
) -> Report {
    let mut report = Report::new("tournament", complete, entrants, tally.standings());
    report.seed = Some(definition.seed);
    report.public_seed = definition.public_seed;
    report.rules = Some(definition.rules);
    report.tournament_format = Some(definition.format);
    report
}

impl Collector {
    /// Records finished games (or a worker's error): results lines first (synced), then
    /// standings and progress.
    fn take(
        &mut self,
        batch: Vec<Result<GameLine, String>>,
        writer: &mut ResultsWriter,
        tally: &mut Tally,
        stop: &AtomicBool,
        progress: &mut Progress,
        args: &TournamentArgs,
    ) {
        let mut lines = Vec::with_capacity(batch.len());
        for item in batch {
            match item {
                Ok(line) => lines.push(line),
                Err(e) => {
                    self.error.get_or_insert(e);
                    stop.store(true, Ordering::SeqCst);
                }
            }
        }
        if let Err(e) = writer.append(&lines) {
            self.error
                .get_or_insert(format!("cannot write {RESULTS}: {e}"));
            stop.store(true, Ordering::SeqCst);
            return;
        }
        for line in &lines {
            self.count(line, tally, stop, progress, args);
        }
        if let Some((ladder, refits)) = self.refits.as_mut() {
            lines.iter().for_each(|line| refits.add(line));
            for fit in refits.fits() {
                ladder.fitted(&fit);
            }
        }
    }

    /// Counts one recorded game in the standings and the progress.
    fn count(
        &mut self,
        line: &GameLine,
        tally: &mut Tally,
        stop: &AtomicBool,
        progress: &mut Progress,
        args: &TournamentArgs,
    ) {
        self.played += 1;
        tally.add(line);
        if let Some(live) = &mut self.live {
            live.add(0, line, tally);
            let written = live.refresh(|| {
                tournament_report(&self.definition, self.entrants.clone(), false, tally)
            });
            if let Err(e) = written {
                progress.note(&format!(
                    "allfives: note: cannot write {LIVE_PAGE} ({e}); the run goes on without it"
                ));
                self.live = None;
            }
        }
        if let Some(k) = args.standings_every
            && self.played.is_multiple_of(k.max(1))
        {
            let report = Report::new("tournament", false, Vec::new(), tally.standings());
            progress.note(&format!(
                "standings after {} games:\n{}",
                self.played,
                output::standings_text(&report, args.rating.pairs)
            ));
        }
        // Games already running when the test decides are still recorded; the decision stands.
        if !self.sprt_decided && tally.sprt_decision().is_some() {
            self.sprt_decided = true;
            stop.store(true, Ordering::SeqCst);
        }
        let leader = tally.leader().map_or(String::new(), |(name, pct)| {
            format!("leader {name} {}%", crate::text::fixed(pct, 1))
        });
        progress.update(self.played, &leader);
    }
}

impl Collector {
    /// Writes the report page a last time, saying how the run ended.
    fn finish_page(&mut self, report: &Report) {
        let (state, note) = match (&self.error, self.interrupts, self.sprt_decided) {
            (Some(e), _, _) => (State::Stopped, Some(format!("The run failed: {e}."))),
            (None, 1.., _) => (
                State::Stopped,
                Some("Interrupted: --resume plays the rest.".to_string()),
            ),
            (None, 0, true) => (
                State::Finished,
                Some("The sequential test decided.".to_string()),
            ),
            (None, 0, false) => (State::Finished, None),
        };
        if let Some(live) = &mut self.live
            && let Err(e) = live.write(state, note, report)
        {
            eprintln!("allfives: note: cannot write {LIVE_PAGE}: {e}");
        }
    }
}

fn print_report(report: &Report, json: bool, pairs: bool) -> std::io::Result<()> {
    let text = match json {
        true => crate::text::json(
            &serde_json::to_string_pretty(report).expect("a report always serializes"),
        ),
        false => output::standings_text(report, pairs),
    };
    output::print_line(&text)
}

/// The anchor asked for, the named entrant found among `names`.
fn anchor(args: &RatingArgs, names: &[String]) -> Result<Anchor, String> {
    if !args.anchor_elo.is_finite() {
        return Err("--anchor-elo must be a finite number".into());
    }
    match &args.anchor {
        None => Ok(Anchor::Mean(args.anchor_elo)),
        Some(name) => names
            .iter()
            .position(|n| n == name)
            .map(|e| Anchor::Entrant(e, args.anchor_elo))
            .ok_or_else(|| {
                format!(
                    "--anchor {name}: no entrant has that name (the entrants: {})",
                    names.join(", ")
                )
            }),
    }
}

/// A stream of interrupts: 1 at the first Ctrl-C (or SIGTERM), 2 at the second.
fn interrupted_twice() -> mpsc::UnboundedReceiver<usize> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        for count in 1..=2 {
            interrupted().await;
            if tx.send(count).is_err() {
                return;
            }
        }
    });
    rx
}

/// The seed option that names a master other than the stored one, if any: another typed seed,
/// `--public-seed` for a master a key made, or a deal key that does not make the stored master
/// (a public master resumed without `--public-seed` is the stored one: the folder decides).
fn seed_changed(given: &SeedArgs, stored: &Definition) -> Option<&'static str> {
    let typed = given.seed?;
    // Older definitions kept no typed seed: their master was the typed seed itself.
    if typed != stored.typed_seed.unwrap_or(stored.seed) {
        return Some("--seed");
    }
    if given.public_seed && !stored.public_seed {
        return Some("--public-seed");
    }
    let other_key = given.deal_key.as_ref().is_some_and(|file| {
        key_file::load_or_make(file).map_or(true, |key| seeds::keyed(&key, typed) != stored.seed)
    });
    other_key.then_some("--deal-key")
}

/// The options typed with `--resume` whose values differ from the stored tournament's.
fn changed_settings(args: &TournamentArgs, stored: &Definition) -> Vec<String> {
    let options = &args.game_options;
    let (stored_policy, stored_max_faults) = match stored.on_fault {
        FaultPolicy::Forfeit => (OnFault::Forfeit, None),
        FaultPolicy::Fallback { max_faults } => (OnFault::Fallback, Some(max_faults)),
    };
    let mut changed: Vec<String> = args
        .typed
        .iter()
        .filter(|kept| match kept {
            KeptSetting::StartupMs => options.startup_ms != stored.clock.startup_ms,
            KeptSetting::MoveMs => options.move_ms != stored.clock.move_ms,
            KeptSetting::BankMs => options.bank_ms != stored.clock.bank_ms,
            KeptSetting::Clock => options.clock != stored.clock_kind,
            KeptSetting::OnFault => options.on_fault != stored_policy,
            KeptSetting::MaxFaults => Some(options.max_faults) != stored_max_faults,
            KeptSetting::MaxLine => options.max_line != stored.max_line,
            KeptSetting::Players => args.players != stored.table.players,
            KeptSetting::Format => args.format != stored.format,
            KeptSetting::Splits => args.splits != stored.table.splits,
            KeptSetting::AllOrders => args.all_orders != stored.table.all_orders,
        })
        .map(|kept| kept.flag())
        .collect();
    if let Some(flag) = seed_changed(&args.seeds, stored) {
        changed.push(flag.into());
    }
    if args.shard.is_some() && args.shard != stored.shard {
        changed.push("--shard".into());
    }
    if args.deals.is_some_and(|deals| deals < stored.deals) {
        changed.push(format!("--deals (fewer than the stored {})", stored.deals));
    }
    changed
}

/// Checks the arguments against the folder: a new tournament, or the one stored there resumed.
/// The folder comes back held (no other run may use it until the returned lock is dropped),
/// with a note for each thing honoured or repaired.
fn prepare(args: &TournamentArgs) -> Result<(Definition, HeldFolder, Vec<String>), String> {
    let (settings, table) = checked_options(args)?;
    let mut given = entrants::entrants(args.bots_file.as_deref(), &args.bots)?;
    if let Some(name) = &args.challenger
        && !args.resume
    {
        challenger_first(&mut given, name, args.format)?;
    }
    let held = match &args.out {
        Some(dir) => Some(folder::hold(dir)?),
        None => None,
    };
    let mut notes = Vec::new();
    let definition = match define(args, held.as_ref(), (&given, &settings, table), &mut notes) {
        Ok(definition) => definition,
        Err(message) => {
            // A refused run leaves no folder behind that it made.
            if let Some(held) = held {
                held.abandon();
            }
            return Err(message);
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
    // The definition first: a folder without one holds nothing but leftovers of a start.
    definition
        .write(&held.dir)
        .map_err(|e| format!("cannot write the definition in {}: {e}", held.dir.display()))?;
    for sub in folder::SUBFOLDERS {
        let path = held.dir.join(sub);
        files::create_private_dir(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    }
    Ok((definition, held, notes))
}

/// The definition asked for: a new tournament's, or the stored one continued, checked against
/// what the folder holds.
fn define(
    args: &TournamentArgs,
    held: Option<&HeldFolder>,
    (given, settings, table): (&[BotSpec], &GameSettings, Table),
    notes: &mut Vec<String>,
) -> Result<Definition, String> {
    let stored = match held {
        Some(held) => stored_definition(held, args.resume, notes)?,
        None => None,
    };
    // A ladder's tables each have a deal of their own: its definition keeps 1.
    let deals = match args.format {
        Format::Ladder => 1,
        _ => args.deals.unwrap_or(10),
    };
    let definition = match (stored, args.resume) {
        (Some(_), false) => {
            return Err(format!(
                "{} holds a tournament already: add --resume to continue it, or choose another --out",
                shown(args.out.as_deref())
            ));
        }
        (None, true) => {
            return Err(format!(
                "{} holds no tournament to resume",
                shown(args.out.as_deref())
            ));
        }
        (Some(stored), true) => {
            let asked = Definition::new(
                given,
                settings,
                (args.format, table, deals),
                Master::untyped(0, false),
                None,
            );
            match stored.format {
                Format::Ladder => ladder_resumed(args, &stored, asked.entrants, notes)?,
                other => {
                    if let Some(flag) = ladder_flag(args) {
                        return Err(format!(
                            "{} holds a {}: {flag} is for a ladder",
                            shown(args.out.as_deref()),
                            other.name()
                        ));
                    }
                    resumed(args, &stored, asked.entrants, notes)?
                }
            }
        }
        (None, false) => {
            if args.shard.is_some() && !args.seeds.reproducible() {
                return Err(
                    "--shard needs the deals every shard shares: --seed N with --deal-key FILE (one key file for all shards), or --seed N --public-seed".into(),
                );
            }
            let master = args.seeds.master(seeds::fresh)?;
            let mut definition = Definition::new(
                given,
                settings,
                (args.format, table, deals),
                master,
                args.shard,
            );
            definition.sprt = args.sprt;
            definition.pack_logs = args.pack_logs;
            definition.ladder = ladder_spec(args);
            definition.retired = entrants::retired_in(args.bots_file.as_deref())?;
            if let Some(name) = definition.retired.first()
                && args.format != Format::Ladder
            {
                return Err(format!(
                    "the bots file marks {name} retired: only a ladder (--format ladder) retires entrants"
                ));
            }
            definition
        }
    };
    if definition.sprt.is_some() {
        SprtSpec::applies_to(definition.entrants.len(), definition.table.players)?;
    }
    let bots = definition.bots()?;
    entrants::distinct_names(&bots)?;
    if definition.schedule().groups.is_empty() {
        return Err(format!(
            "{} entrants cannot fill a {} with {} players",
            bots.len(),
            definition.format.name(),
            definition.table.players
        ));
    }
    Ok(definition)
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

/// The ladder asked for by a first run.
fn ladder_spec(args: &TournamentArgs) -> Option<LadderSpec> {
    (args.format == Format::Ladder).then_some(LadderSpec {
        games: args.games,
        games_each: args.games_each,
        matchmaking: args.matchmaking,
    })
}

/// A stored ladder continued: the stored settings as for a tournament; entrants given that are
/// stored must be as stored, the others join; `--retire` names leave the draw; a budget or
/// `--matchmaking` given replaces the stored one.
fn ladder_resumed(
    args: &TournamentArgs,
    stored: &Definition,
    given: Vec<EntrantDef>,
    notes: &mut Vec<String>,
) -> Result<Definition, String> {
    let dir = shown(args.out.as_deref());
    if args.deals.is_some() {
        return Err(format!(
            "{dir} holds a ladder, whose tables each have a deal of their own: drop --deals (--games or --games-each raise its budget)"
        ));
    }
    let mut definition = resumed(args, stored, Vec::new(), notes)?;
    let mut added = Vec::new();
    for entrant in given {
        match stored.entrants.iter().find(|e| e.name == entrant.name) {
            Some(old) if *old != entrant => {
                return Err(format!(
                    "{dir} holds a ladder whose entrant {} has the command '{}': a new version needs a new name (and --retire {} to replace it)",
                    old.name, old.command, old.name
                ));
            }
            Some(_) => {}
            None => {
                added.push(entrant.name.clone());
                definition.entrants.push(entrant);
            }
        }
    }
    if !added.is_empty() {
        notes.push(format!("entrants added: {}", added.join(", ")));
    }
    let from_file = entrants::retired_in(args.bots_file.as_deref())?;
    for name in args.retire.iter().chain(&from_file) {
        if !definition.entrants.iter().any(|e| e.name == *name) {
            let names: Vec<&str> = definition
                .entrants
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            return Err(format!(
                "--retire {name}: no entrant of {dir} has that name (the entrants: {})",
                names.join(", ")
            ));
        }
        if !definition.retired.contains(name) {
            definition.retired.push(name.clone());
            notes.push(format!(
                "{name} retired: no longer drawn, kept in the standings"
            ));
        }
    }
    let mut spec = definition.ladder.expect("a stored ladder has its budget");
    if args.games.is_some() || args.games_each.is_some() {
        spec.games = args.games;
        spec.games_each = args.games_each;
    }
    spec.matchmaking |= args.matchmaking;
    definition.ladder = Some(spec);
    Ok(definition)
}

/// The definition stored in a held folder, if any. A start cut short (a kill or a full disk
/// before `tournament.json` was in place) is resumed from its whole `tournament.json.new`, or
/// cleaned for a new run; anything else in a folder without a definition is refused.
fn stored_definition(
    held: &HeldFolder,
    resume: bool,
    notes: &mut Vec<String>,
) -> Result<Option<Definition>, String> {
    if let Some(stored) = Definition::read(&held.dir)? {
        return Ok(Some(stored));
    }
    if resume && let Some(recovered) = Definition::recover(&held.dir) {
        notes.push(format!(
            "recovered {} from the tournament.json.new of a run stopped as it started",
            held.dir.join(definition::FILE).display()
        ));
        return Ok(Some(recovered));
    }
    notes.extend(held.clean_cut_start());
    if !held.is_empty() {
        return Err(format!(
            "{} is not empty and holds no tournament (no {}): choose another --out",
            held.dir.display(),
            definition::FILE
        ));
    }
    Ok(None)
}

/// The stored tournament continued: every stored setting typed again must say what is stored;
/// more deals and more entrants are honoured with a note.
fn resumed(
    args: &TournamentArgs,
    stored: &Definition,
    given: Vec<EntrantDef>,
    notes: &mut Vec<String>,
) -> Result<Definition, String> {
    let dir = shown(args.out.as_deref());
    // A rule option given anew must say what is stored: the games already played were played
    // under the stored rules, and a change would mix two tournaments.
    let asked = args
        .game_options
        .rules(stored.rules.players, Some(stored.rules))?;
    if asked != stored.rules {
        return Err(format!(
            "{dir} holds a tournament played under other rules ({}); --resume keeps them: drop the rule options, or start a new tournament with another --out",
            stored.rules
        ));
    }
    let changed = changed_settings(args, stored);
    if !changed.is_empty() {
        let (verb, it) = match changed.len() {
            1 => ("differs", "it"),
            _ => ("differ", "them"),
        };
        return Err(format!(
            "{dir} holds a tournament played with other settings: {} {verb} from its tournament.json; --resume keeps those: drop {it}, or start a new tournament with another --out",
            changed.join(", ")
        ));
    }
    if args.sprt.is_some() && args.sprt != stored.sprt {
        return Err(format!(
            "{dir} holds a tournament with {}; --resume keeps its test: drop --sprt, or start a new tournament with another --out",
            stored
                .sprt
                .map_or("no sequential test".to_string(), |s| format!(
                    "the sequential test elo0={},elo1={},alpha={},beta={}",
                    s.elo0, s.elo1, s.alpha, s.beta
                ))
        ));
    }
    if let Some(name) = &args.challenger
        && (stored.format != Format::Gauntlet || stored.entrants[0].name != *name)
    {
        return Err(format!(
            "{dir} holds a {} whose challenger is {}; --resume keeps it: drop --challenger",
            stored.format.name(),
            match stored.format {
                Format::Gauntlet => stored.entrants[0].name.clone(),
                _ => "none".to_string(),
            }
        ));
    }
    let mut definition = stored.clone();
    if !given.is_empty() {
        definition.entrants = given;
    }
    definition.deals = args.deals.unwrap_or(stored.deals);
    if args.pack_logs && !stored.pack_logs {
        definition.pack_logs = true;
        notes.push(
            "--pack-logs: the games played from now on have their logs packed; those already played keep theirs"
                .into(),
        );
    }
    definition
        .continues(stored)
        .map_err(|why| format!("{dir} holds another tournament: {why}"))?;
    if definition.deals > stored.deals {
        notes.push(format!(
            "--deals {} adds deals {} to {} to the stored {}",
            definition.deals,
            stored.deals,
            definition.deals - 1,
            stored.deals
        ));
    }
    if definition.entrants.len() > stored.entrants.len() && stored.shard.is_some() {
        // A shard is a slice of the sets of the groups stored: new groups would reslice them.
        return Err(format!(
            "{dir} holds a shard of a tournament: entrants can be added to a whole tournament only"
        ));
    }
    if definition.entrants.len() > stored.entrants.len() {
        let added: Vec<&str> = definition.entrants[stored.entrants.len()..]
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        notes.push(format!("entrants added: {}", added.join(", ")));
    }
    Ok(definition)
}

/// Moves the entrant called `name` first: a gauntlet's challenger is its first entrant.
fn challenger_first(given: &mut Vec<BotSpec>, name: &str, format: Format) -> Result<(), String> {
    if format != Format::Gauntlet {
        return Err("--challenger needs --format gauntlet".into());
    }
    let at = given.iter().position(|b| b.name == name).ok_or_else(|| {
        let names: Vec<&str> = given.iter().map(|b| b.name.as_str()).collect();
        format!(
            "--challenger {name}: no entrant has that name (the entrants: {})",
            names.join(", ")
        )
    })?;
    let challenger = given.remove(at);
    given.insert(0, challenger);
    Ok(())
}

fn shown(dir: Option<&Path>) -> String {
    dir.map_or(String::new(), |d| d.display().to_string())
}

/// Runs `allfives standings`.
pub fn standings_command(args: &StandingsArgs) -> u8 {
    if args.html.as_deref() == Some(Path::new("-")) {
        return fail(
            BAD_INPUT,
            "--html -: the report page is written to a file (its replay pages are linked beside it), not to stdout; name a file such as report.html",
        );
    }
    let (report, page) = match merge(args) {
        Ok(merged) => merged,
        Err(message) => return fail(BAD_INPUT, message),
    };
    if let Some(mut page) = page
        && let Err(message) = write_report(args, &mut page, &report)
    {
        return fail(BAD_INPUT, message);
    }
    match print_report(&report, args.json, args.rating.pairs) {
        Ok(()) => 0,
        Err(e) => output_failed(&e),
    }
}

/// `standings --html FILE`: the page, and with `--replays` every game's replay page beside it.
fn write_report(
    args: &StandingsArgs,
    page: &mut ReportPage,
    report: &Report,
) -> Result<(), String> {
    let path = args.html.as_deref().unwrap_or(Path::new(LIVE_PAGE));
    if args.replays {
        for folder in 0..args.dirs.len() {
            let (dir, out) = page
                .replay_folder(folder)
                .expect("a page has each folder's");
            crate::cli::pages::folder(&dir, &out, None)?;
            page.replays_written(folder);
        }
    }
    page.write(State::Read, None, report)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The standings of the folders, which must hold slices of one tournament (its shards, each
/// once, or the whole run alone), every line checked against the definition (and its log, with
/// `--verify`). Missing shards are named on stderr, and the report is then incomplete.
fn merge(args: &StandingsArgs) -> Result<(Report, Option<ReportPage>), String> {
    let definitions: Vec<Definition> = args
        .dirs
        .iter()
        .map(|dir| {
            Definition::read(dir)?.ok_or_else(|| {
                format!(
                    "{} holds no tournament ({} is missing)",
                    dir.display(),
                    definition::FILE
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let missing = slices_of_one(&args.dirs, &definitions)?;
    // A ladder's shards may have taken newcomers apart: the longest list of entrants names all.
    let first = definitions
        .iter()
        .rev()
        .max_by_key(|d| d.entrants.len())
        .expect("standings reads one folder at least");
    let names: Vec<String> = first.entrants.iter().map(|e| e.name.clone()).collect();
    // The test asked for here, else the one the tournament ran.
    let sprt = args.sprt.or(first.sprt);
    if sprt.is_some() {
        SprtSpec::applies_to(names.len(), first.table.players)?;
    }
    let anchor = anchor(&args.rating, &names)?;
    let mut tally = Tally::new(names, first.schedule().set_size(), sprt).anchored(anchor);
    let mut complete = missing.is_empty();
    let mut ids = HashSet::new();
    // A ladder's games are drawn for a budget: its games in all when it has one.
    let scheduled = definitions
        .iter()
        .map(|d| match &d.ladder {
            Some(ladder) => ladder.games.unwrap_or(0),
            None => d.schedule().count(d.shard),
        })
        .sum();
    let mut page = args
        .html
        .as_deref()
        .map(|path| ReportPage::new(path, &args.dirs, first, scheduled));
    for (folder, (dir, d)) in args.dirs.iter().zip(&definitions).enumerate() {
        let mut twice = None;
        let mut ladder = (d.format == Format::Ladder).then(|| Ladder::new(d));
        let audited = audit::read_checked(dir, d, args.verify, |line| {
            if let Some(ladder) = ladder.as_mut() {
                ladder.found(&line);
            }
            if ids.insert(line.id.clone()) {
                tally.add(&line);
                if let Some(page) = &mut page {
                    page.add(folder, &line, &tally);
                }
            } else {
                twice.get_or_insert(line.id);
            }
        })?;
        if let Some(id) = twice {
            return Err(format!(
                "game {id} of {} is in another folder too: give each shard once",
                dir.display()
            ));
        }
        audited
            .notes
            .iter()
            .for_each(|n| eprintln!("allfives: note: {n}"));
        complete &= match ladder.as_mut() {
            Some(ladder) => ladder.finish_found() == 0 && ladder.budget_spent(),
            None => audited.counted == d.schedule().count(d.shard),
        };
    }
    if !missing.is_empty() {
        eprintln!(
            "allfives: note: shards {} of this tournament are missing: the standings are incomplete",
            missing.join(", ")
        );
    }
    let entrants = first
        .entrants
        .iter()
        .enumerate()
        .map(|(index, e)| Entrant {
            index,
            name: e.name.clone(),
            command: e.command.clone(),
            retired: definitions.iter().any(|d| d.retired.contains(&e.name)),
        })
        .collect();
    let mut report = Report::new("standings", complete, entrants, tally.standings());
    report.seed = Some(first.seed);
    report.public_seed = first.public_seed;
    report.rules = Some(first.rules);
    Ok((report, page))
}

/// Checks that the folders hold slices of one tournament: the same definition but for the
/// shard, no folder twice, no shard twice, the whole run only alone. Returns the missing shards
/// (`I/N`).
fn slices_of_one(dirs: &[PathBuf], definitions: &[Definition]) -> Result<Vec<String>, String> {
    let mut real = HashSet::new();
    for dir in dirs {
        let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if !real.insert(canonical) {
            return Err(format!("{} is given twice", dir.display()));
        }
    }
    // A ladder's shards share all but their budgets, retirements and newcomers.
    let shortest = definitions.iter().map(|d| d.entrants.len()).min();
    let unsharded = |d: &Definition| {
        let mut same = Definition {
            shard: None,
            ..d.clone()
        };
        if d.format == Format::Ladder {
            same.entrants.truncate(shortest.unwrap_or(0));
            same.ladder = None;
            same.retired.clear();
        }
        same
    };
    let first = unsharded(&definitions[0]);
    for (dir, d) in dirs.iter().zip(definitions).skip(1) {
        if !unsharded(d).same_games(&first) {
            return Err(format!(
                "{} and {} hold different tournaments (their seed, entrants, deals, rules or clocks differ): standings merges the shards of one tournament",
                dirs[0].display(),
                dir.display()
            ));
        }
    }
    let shards: Vec<Option<(u64, u64)>> = definitions.iter().map(|d| d.shard).collect();
    if let Some(whole) = shards.iter().position(Option::is_none)
        && shards.len() > 1
    {
        return Err(format!(
            "{} holds the whole tournament: merged with another folder, its games would count twice",
            dirs[whole].display()
        ));
    }
    let Some(Some((_, n))) = shards.first().copied() else {
        return Ok(Vec::new());
    };
    let mut present = HashSet::new();
    for (dir, shard) in dirs.iter().zip(&shards) {
        let (i, m) = shard.expect("every folder is a shard");
        if m != n {
            return Err(format!(
                "{} is shard {i}/{m}, where the others are shards of {n}",
                dir.display()
            ));
        }
        if !present.insert(i) {
            return Err(format!("shard {i}/{n} is given twice ({})", dir.display()));
        }
    }
    Ok((1..=n)
        .filter(|i| !present.contains(i))
        .map(|i| format!("{i}/{n}"))
        .collect())
}
