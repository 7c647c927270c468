//! A tournament's run, as a library: a folder's tournament opened ([`Opened::open`]: its
//! results read back and checked against the definition, what a kill left repaired, the games
//! still to play counted), then played ([`play`]) by the workers while the results lines are
//! written, synced and folded into the standings. Whoever runs it (the command line, a test, a
//! Rust program) hears of it through a [`Sink`] of [`Event`]s, and stops it through a stream of
//! stop requests; nothing here prints.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use crate::bot::lifetime::Processes;
use crate::bot::player::BotSpec;
use crate::placement::Placement;
use crate::referee::matchplay::protections;
use crate::sandbox::Policy;
use crate::tournament::affinity::Sharing;
use crate::tournament::audit;
use crate::tournament::decision;
use crate::tournament::definition::Definition;
use crate::tournament::game_logs::PackEnds;
use crate::tournament::ladder::fits::{FitPoints, Refits};
use crate::tournament::ladder::queue::{Ladder, LadderGames, SharedLadder};
use crate::tournament::ratings::Anchor;
use crate::tournament::ratings::sprt::Decision;
use crate::tournament::report_stream::Report;
use crate::tournament::results::{self, Entrant, Finished, GameLine, RESULTS, ResultsWriter};
use crate::tournament::schedule::{Format, Schedule};
use crate::tournament::standings::Tally;
use crate::tournament::workers::{self, Queue, Run};

/// What a run tells whoever runs it, as it happens.
#[derive(Debug)]
pub enum Event<'a> {
    /// A game already in a folder's results, read back and counted (a resume, or standings).
    Found {
        /// The folder's index among those read (0 for a run's own).
        folder: usize,
        /// Its results line.
        line: &'a GameLine,
        /// The standings with it counted.
        tally: &'a Tally,
    },
    /// A game played, its results line written and synced and counted: this run's `played`-th.
    Recorded {
        /// How many games this run has recorded, this one included.
        played: u64,
        /// Its results line.
        line: &'a GameLine,
        /// The standings with it counted.
        tally: &'a Tally,
        /// Whether it is the run's last game (every game it hands out recorded): the final
        /// report follows at once, so a page refreshed now would be rewritten right away.
        last: bool,
    },
    /// Something honoured or repaired, in one sentence.
    Note(&'a str),
    /// The first stop request was heard: the running games finish, no new game starts.
    Stopping,
}

/// Where a run's events go (the command line's progress and report page; a test's list).
pub trait Sink {
    /// Takes one event.
    fn event(&mut self, event: Event<'_>);
}

impl<F: FnMut(Event<'_>)> Sink for F {
    fn event(&mut self, event: Event<'_>) {
        self(event)
    }
}

/// Why a tournament's folder could not be opened for play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// What the folder holds, or what was asked, does not check out: the sentence says what.
    Refused(String),
    /// The folder could not be repaired or written.
    Failed(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Refused(sentence) | OpenError::Failed(sentence) => f.write_str(sentence),
        }
    }
}

/// A tournament's folder opened for play: what it holds read back and counted.
#[derive(Debug)]
pub struct Opened {
    /// The tournament.
    pub definition: Definition,
    /// Its folder.
    pub dir: PathBuf,
    /// The entrants as bots, by index.
    pub bots: Vec<BotSpec>,
    /// The entrants as results name them (retired ones marked).
    pub entrants: Vec<Entrant>,
    /// The standings of the games already played.
    pub tally: Tally,
    /// The games scheduled (a ladder's: those played and those its budget is thought to leave).
    pub scheduled: u64,
    /// The games left to play.
    pub missing: u64,
    /// The sequential test's decision, when the games stored already made it.
    pub decided: Option<Decision>,
    /// The ids of the games already played (a schedule's; a ladder draws its tables afresh).
    done: HashSet<String>,
    ladder: Option<Ladder>,
    refits: Option<Refits>,
    writer: ResultsWriter,
}

impl Opened {
    /// Opens `definition`'s folder `dir` (already holding the definition): every stored line is
    /// checked and counted (an [`Event::Found`] each), a torn results file and torn log packs
    /// are cut back (an [`Event::Note`] each), and the results file is opened for appending.
    pub fn open(
        definition: Definition,
        dir: PathBuf,
        anchor: &AnchorAsk,
        sink: &mut impl Sink,
    ) -> Result<Opened, OpenError> {
        let bots = definition.bots().map_err(OpenError::Refused)?;
        let mut entrants = results::entrants_of(&bots);
        for entrant in &mut entrants {
            entrant.retired = definition.retired.contains(&entrant.name);
        }
        let schedule = definition.schedule();
        let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
        let anchor = anchor.of(&names).map_err(OpenError::Refused)?;
        let stored = match &definition.sprt {
            Some(sprt) => decision::read(&dir, sprt).map_err(OpenError::Refused)?,
            None => None,
        };
        let mut tally = Tally::new(names, schedule.set_size(), definition.sprt)
            .anchored(anchor)
            .history_off_thread()
            .sprt_decided(stored);
        let mut done = HashSet::new();
        let mut pack_ends = PackEnds::default();
        let mut ladder = (definition.format == Format::Ladder)
            .then(|| Ladder::new(&definition).with_fits(FitPoints::of(&definition)));
        let mut refits = ladder
            .as_ref()
            .filter(|ladder| ladder.matchmaking())
            .map(|_| Refits::new(&definition));
        let audited = audit::read_checked(&dir, &definition, false, |line| {
            tally.add(&line);
            sink.event(Event::Found {
                folder: 0,
                line: &line,
                tally: &tally,
            });
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
        })
        .map_err(OpenError::Refused)?;
        for note in &audited.notes {
            sink.event(Event::Note(note));
        }
        let results_path = dir.join(RESULTS);
        if !audited.dropped.is_empty()
            && let Err(e) = audit::rewrite_without(&dir, &audited.dropped)
        {
            return Err(OpenError::Failed(format!(
                "cannot repair {}: {e}",
                results_path.display()
            )));
        }
        // A pack missing, or shorter than its lines say: the folder's input does not check out.
        let notes = pack_ends
            .repair(&dir, definition.pack_logs)
            .map_err(OpenError::Refused)?;
        notes.iter().for_each(|n| sink.event(Event::Note(n)));
        let writer = ResultsWriter::open(&results_path).map_err(|e| {
            OpenError::Failed(format!("cannot open {}: {e}", results_path.display()))
        })?;
        // Every line read is a distinct game of this shard (checked), so the rest is a
        // difference. A test that decided before a stop stays decided: nothing more is played.
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
            None => schedule.count(definition.shard),
        };
        let missing = match decided {
            Some(_) => 0,
            None => scheduled.saturating_sub(tally.games()),
        };
        Ok(Opened {
            definition,
            dir,
            bots,
            entrants,
            tally,
            scheduled,
            missing,
            decided,
            done,
            ladder,
            refits,
            writer,
        })
    }

    /// True for a ladder (its tables drawn for a budget).
    pub fn is_ladder(&self) -> bool {
        self.ladder.is_some()
    }

    /// How many of the `asked` workers (at least 1) have games to play, and how its games are
    /// shared out among them, its bots `contained` or not.
    pub fn workers(&self, asked: usize, contained: bool) -> (usize, Sharing) {
        let processes = self.bots.iter().any(BotSpec::is_process);
        let sharing = Sharing::of(self.is_ladder(), processes, contained);
        let deals = self.definition.schedule().deals;
        (sharing.workers(asked, deals), sharing)
    }

    /// The report of the standings so far.
    pub fn report(&self, complete: bool) -> Report {
        report(
            &self.definition,
            self.entrants.clone(),
            complete,
            &self.tally,
        )
    }
}

/// The rating anchor asked for: the mean rating, or a named entrant's, set to `elo`.
#[derive(Debug, Clone, PartialEq)]
pub struct AnchorAsk {
    /// The entrant whose rating is fixed (`None`: the mean).
    pub name: Option<String>,
    /// The rating it is fixed at.
    pub elo: f64,
}

impl AnchorAsk {
    /// The anchor asked for, the named entrant found among `names`.
    pub fn of(&self, names: &[String]) -> Result<Anchor, String> {
        if !self.elo.is_finite() {
            return Err("--anchor-elo must be a finite number".into());
        }
        match &self.name {
            None => Ok(Anchor::Mean(self.elo)),
            Some(name) => names
                .iter()
                .position(|n| n == name)
                .map(|e| Anchor::Entrant(e, self.elo))
                .ok_or_else(|| {
                    format!(
                        "--anchor {name}: no entrant has that name (the entrants: {})",
                        names.join(", ")
                    )
                }),
        }
    }
}

/// The report a tournament prints and its page shows.
pub fn report(
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

/// How the games are played: by how many workers, on which CPUs, contained how, with processes
/// kept how long.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// Games at once (at least 1); contained, no more than the deals ([`Opened::workers`]).
    pub concurrency: usize,
    /// Which CPUs a worker holds.
    pub placement: Placement,
    /// The bots' containment; each bot's own folder is added to it.
    pub policy: Policy,
    /// When a bot's process is replaced.
    pub processes: Processes,
}

/// How a run ended.
#[derive(Debug)]
pub struct Played {
    /// Games recorded by this run.
    pub played: u64,
    /// Stop requests heard (0: none; 2 or more: stopped at once).
    pub interrupts: usize,
    /// What stopped the run, if something failed.
    pub error: Option<String>,
    /// True when the sequential test decided (before or during this run).
    pub sprt_decided: bool,
    /// The standings at the end; `complete` when every scheduled game is in.
    pub report: Report,
}

/// Plays the games `opened` has left, on `runtime`, until they are all played, the sequential
/// test decides, a game fails, or a stop request comes on `stops` (1: let the running games
/// finish; 2: stop at once, their bots killed). Every finished game's line is written and synced
/// before it is counted and told to `sink`.
pub fn play(
    opened: Opened,
    runtime: &tokio::runtime::Runtime,
    options: PlayOptions,
    mut stops: mpsc::UnboundedReceiver<usize>,
    sink: &mut impl Sink,
) -> Played {
    let workers = opened.workers(options.concurrency, options.policy.enabled);
    let Opened {
        definition,
        dir,
        bots,
        entrants,
        mut tally,
        missing,
        decided,
        done,
        ladder,
        refits,
        mut writer,
        ..
    } = opened;
    let mut policy = options.policy;
    policy.homes = bots.iter().flat_map(BotSpec::homes).collect();
    let mut settings = definition.settings(policy);
    settings.protections = protections(&bots, &settings.sandbox);
    for note in settings.protections.iter().flat_map(|p| &p.notes) {
        sink.event(Event::Note(note));
    }
    settings.processes = options.processes;
    let schedule = definition.schedule();
    let run = Arc::new(Run {
        bots,
        entrants: entrants.clone(),
        settings,
        dir,
        definition: definition.clone(),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let ladder = ladder.map(SharedLadder::new);
    let collector = runtime.block_on(async {
        let queues = match &ladder {
            Some(ladder) => {
                let games = LadderGames {
                    shared: ladder.clone(),
                    stop: stop.clone(),
                }
                .take_while(move |_| decided.is_none());
                let queue: Queue = Arc::new(Mutex::new(Box::new(games)));
                vec![queue; workers.0]
            }
            None => queues(schedule, &definition, done, decided.is_none(), workers),
        };
        // Bounded: when recording a game costs more than playing one (many entrants), the
        // games waiting are held in the workers, not gathered without end, and a stop request
        // is heard after at most this many games.
        let (tx, mut rx) = mpsc::channel(WAITING_GAMES * workers.0);
        let mut collector = Collector {
            dir: run.dir.clone(),
            played: 0,
            interrupts: 0,
            error: None,
            sprt_decided: decided.is_some(),
            missing,
            ladder: ladder.clone(),
            refits: ladder.clone().zip(refits),
        };
        let workers = workers::start(run, queues, options.placement, stop.clone(), tx);
        let workers = match workers {
            Ok(workers) => workers,
            Err(e) => {
                collector.error = Some(format!("cannot start the workers: {e}"));
                return collector;
            }
        };
        loop {
            tokio::select! {
                // Stop requests first: a stream of finished games never holds them up.
                biased;
                count = stops.recv() => {
                    collector.interrupts = count.unwrap_or(2);
                    stop.store(true, Ordering::SeqCst);
                    if collector.interrupts == 1 {
                        sink.event(Event::Stopping);
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
                        collector.take(batch, &mut writer, &mut tally, &stop, sink);
                    }
                    None => break,
                },
            }
        }
        workers.join().await;
        collector
    });
    let complete = collector.interrupts == 0
        && collector.error.is_none()
        && !collector.sprt_decided
        && match &ladder {
            // A ladder's budget in games each is only estimated ahead.
            Some(ladder) => ladder.lock().spent(),
            None => collector.played == missing,
        };
    Played {
        played: collector.played,
        interrupts: collector.interrupts,
        error: collector.error,
        sprt_decided: collector.sprt_decided,
        report: report(&definition, entrants, complete, &tally),
    }
}

/// The queues of a schedule's games left to play, one for each of `workers` workers: one
/// shared, or each worker's own deals ([`Sharing`]).
fn queues(
    schedule: Schedule,
    definition: &Definition,
    done: HashSet<String>,
    undecided: bool,
    (workers, sharing): (usize, Sharing),
) -> Vec<Queue> {
    let (schedule, done) = (Arc::new(schedule), Arc::new(done));
    let queue = |share| -> Queue {
        let done = done.clone();
        let games = schedule
            .clone()
            .into_games(definition.shard, share)
            .filter(move |g| undecided && !done.contains(&g.id));
        Arc::new(Mutex::new(Box::new(games)))
    };
    match sharing {
        Sharing::Queue => vec![queue((0, 1)); workers],
        Sharing::ByDeal => (0..workers)
            .map(|w| queue(sharing.share(w, workers)))
            .collect(),
    }
}

/// Games finished and not yet recorded, per worker, before the workers wait.
const WAITING_GAMES: usize = 16;

/// What the dispatcher has seen.
struct Collector {
    /// The tournament folder, where a decision of the test is stored.
    dir: PathBuf,
    played: u64,
    interrupts: usize,
    error: Option<String>,
    sprt_decided: bool,
    /// The games a schedule's run has to play (a ladder's count is only estimated).
    missing: u64,
    /// The ladder whose tables are played, if it is one.
    ladder: Option<Arc<SharedLadder>>,
    /// A matchmaking ladder, and the fits its draw reads.
    refits: Option<(Arc<SharedLadder>, Refits)>,
}

impl Collector {
    /// Whether every game the run hands out is recorded, `tally` counting them all.
    fn all_recorded(&self, tally: &Tally) -> bool {
        match &self.ladder {
            Some(ladder) => {
                let ladder = ladder.lock();
                ladder.all_handed_out() && ladder.handed() == tally.games()
            }
            None => self.played == self.missing,
        }
    }

    /// Records finished games (or a worker's error): results lines first (synced), then the
    /// standings, each told to `sink`.
    fn take(
        &mut self,
        batch: Vec<Result<Finished, String>>,
        writer: &mut ResultsWriter,
        tally: &mut Tally,
        stop: &AtomicBool,
        sink: &mut impl Sink,
    ) {
        let mut games = Vec::with_capacity(batch.len());
        for item in batch {
            match item {
                Ok(game) => games.push(game),
                Err(e) => {
                    self.error.get_or_insert(e);
                    stop.store(true, Ordering::SeqCst);
                }
            }
        }
        if let Err(e) = writer.append(&games) {
            self.error
                .get_or_insert(format!("cannot write {RESULTS}: {e}"));
            stop.store(true, Ordering::SeqCst);
            return;
        }
        let lines: Vec<GameLine> = games.into_iter().map(|g| g.line).collect();
        for line in &lines {
            self.played += 1;
            tally.add(line);
            sink.event(Event::Recorded {
                played: self.played,
                line,
                tally,
                last: self.all_recorded(tally),
            });
            // Games already running when the test decides are still recorded; the decision
            // stands.
            if !self.sprt_decided
                && let Some((sprt, decided)) = tally.sprt_spec().zip(tally.sprt_decision())
            {
                self.sprt_decided = true;
                stop.store(true, Ordering::SeqCst);
                if let Err(e) = decision::store(&self.dir, sprt, decided) {
                    let file = decision::FILE;
                    self.error
                        .get_or_insert(format!("cannot write {file}: {e}"));
                }
            }
        }
        // A ladder whose last table is drawn reads no fit any more.
        if let Some((ladder, refits)) = self.refits.as_mut()
            && !ladder.lock().all_handed_out()
        {
            lines.iter().for_each(|line| refits.add(line));
            for fit in refits.fits() {
                ladder.fitted(&fit);
            }
        }
    }
}
