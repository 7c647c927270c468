//! A tournament run shown on the command line: the banner before its games, its events (a
//! [`Sink`]) as the progress line, the folder's report page kept fresh, the standings every
//! `--standings-every` games and notes on stderr, and the page's last word on how it ended.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::cli::args::TournamentArgs;
use crate::cli::exit::{note, say};
use crate::cli::output;
use crate::cli::progress::Progress;
use crate::cli::report_page::{LIVE_PAGE, ReportPage};
use crate::placement::usable_cpus;
use crate::report::data::State;
use crate::tournament::definition::Definition;
use crate::tournament::report_stream::Report;
use crate::tournament::results::{Entrant, GameLine};
use crate::tournament::run::{self, Event, Opened, Played, Sink};
use crate::tournament::shard;
use crate::tournament::standings::Tally;

/// The banner (unless `--json`), then the notes a run gives before its games: that it has
/// nothing to play, that its seed is public, that it plays fewer games at once than asked.
/// Returns the games to play at once.
pub fn announce(args: &TournamentArgs, opened: &Opened) -> std::io::Result<usize> {
    let asked = args.concurrency.unwrap_or_else(usable_cpus);
    let (concurrency, _) = opened.workers(asked, !args.game_options.sandbox.no_sandbox);
    if !args.json {
        output::print_line(&banner(opened, concurrency))?;
    }
    fewer_workers(asked, concurrency);
    if opened.missing == 0 && opened.decided.is_none() {
        let dir = opened.dir.display().to_string();
        note(&shard::nothing_to_play(
            &opened.definition,
            opened.scheduled,
            &dir,
        ));
    }
    if let Some(said) = opened.definition.master().public_note() {
        note(&said);
    }
    Ok(concurrency)
}

/// The line printed before the games start (with how many games go at once).
fn banner(opened: &Opened, concurrency: usize) -> String {
    let definition = &opened.definition;
    let mut banner = match opened.is_ladder() {
        true => format!(
            "allfives ladder: {} entrants ({} retired), about {} games to play, {} played, {concurrency} at once, {}, results in {}",
            opened.bots.len(),
            definition.retired.len(),
            opened.missing,
            opened.tally.games(),
            definition.master().describe(),
            opened.dir.display()
        ),
        false => format!(
            "allfives tournament: {} entrants, {} games to play of {} scheduled, {concurrency} at once, {}, results in {}",
            opened.bots.len(),
            opened.missing,
            opened.scheduled,
            definition.master().describe(),
            opened.dir.display()
        ),
    };
    if let Some(d) = &opened.decided {
        banner.push_str(&format!(
            "\nthe sequential test stored there accepted {} at pair {}: nothing more to play",
            d.accepted.name(),
            d.pair
        ));
    }
    banner
}

/// The note before a run that starts fewer workers than the `asked` games at once: contained,
/// each deal is played by one worker ([`Sharing`](crate::tournament::affinity::Sharing)).
fn fewer_workers(asked: usize, workers: usize) {
    if workers < asked {
        say(format_args!(
            "allfives: note: {workers} games at once, not {asked}: this tournament has {workers} deals, and each deal is played by one worker, so that no two processes of a bot that play at once were dealt the same deal; more --deals use more cores"
        ));
    }
}

/// The note after a run whose workers kept their bots' processes from game to game.
pub fn kept_processes_note(reuse_processes: bool) {
    let kept = match reuse_processes {
        true => "deals seen before included (--reuse-processes)",
        false => "a process for each seat arrangement (up to 4 a bot), none dealt a deal twice",
    };
    say(format_args!(
        "allfives: note: each worker kept its bots' processes from game to game, {kept}: a bot that keeps state across games (not reseeding from game_start's bot_seed) may play otherwise with another -j (--fresh starts a process per game)"
    ));
}

/// What an interrupted run says: where its games are.
pub fn interrupted_in(dir: &Path) -> String {
    format!(
        "interrupted: every finished game is in {}; --resume plays the rest",
        dir.display()
    )
}

/// A run's events shown: the progress line, the folder's report page kept fresh, the standings
/// every `--standings-every` games, notes on stderr.
pub struct Shown<'a> {
    args: &'a TournamentArgs,
    /// The folder's report page; `None` once it could not be written (said once).
    live: Option<ReportPage>,
    /// The progress line, once the games to play are counted.
    pub progress: Option<Progress>,
    definition: Definition,
    /// The entrants as the report names them, once the folder is open.
    entrants: Vec<Entrant>,
    /// Who led when last looked for, and when.
    leader: Option<(Instant, String)>,
}

/// How often the progress line looks again for who leads.
const LEADER_EVERY: Duration = Duration::from_millis(200);

impl<'a> Shown<'a> {
    /// Shows a run of `definition` in `dir`, asked for by `args`.
    pub fn new(args: &'a TournamentArgs, definition: &Definition, dir: &Path) -> Shown<'a> {
        Shown {
            args,
            live: Some(ReportPage::new(
                &dir.join(LIVE_PAGE),
                std::slice::from_ref(&dir.to_path_buf()),
                definition,
                0,
            )),
            progress: None,
            definition: definition.clone(),
            entrants: Vec::new(),
            leader: None,
        }
    }

    fn note(&self, text: &str) {
        match &self.progress {
            Some(progress) => progress.note(text),
            None => say(format_args!("{text}")),
        }
    }

    /// The folder opened: its entrants known, its page told the games scheduled and written.
    pub fn opened(&mut self, opened: &Opened) {
        self.entrants = opened.entrants.clone();
        if let Some(live) = self.live.as_mut() {
            live.scheduled(opened.scheduled);
            if let Err(e) = live.refresh(|| opened.report(false)) {
                say(format_args!(
                    "allfives: note: cannot write {LIVE_PAGE} ({e}); the run goes on without it"
                ));
            }
        }
    }

    /// A game recorded: the page refreshed (unless it is the `last`: the final write follows),
    /// the standings every so often, the progress.
    fn recorded(&mut self, played: u64, line: &GameLine, tally: &Tally, last: bool) {
        if let Some(live) = &mut self.live {
            live.add(0, line, tally);
            // The final write follows the last game at once: the standings' fit, the costly
            // part, is made once.
            let written = match last {
                true => Ok(()),
                false => live
                    .refresh(|| run::report(&self.definition, self.entrants.clone(), false, tally)),
            };
            if let Err(e) = written {
                self.note(&format!(
                    "allfives: note: cannot write {LIVE_PAGE} ({e}); the run goes on without it"
                ));
                self.live = None;
            }
        }
        if let Some(k) = self.args.standings_every
            && played.is_multiple_of(k.max(1))
        {
            let report = Report::new("tournament", false, Vec::new(), tally.standings());
            self.note(&format!(
                "standings after {played} games:\n{}",
                output::standings_text(&report, self.args.rating.pairs)
            ));
        }
        // Who leads is looked for among every entrant: not for every game of thousands of
        // entrants, only when shown, and at most every LEADER_EVERY.
        if let Some(progress) = &mut self.progress {
            if self
                .leader
                .as_ref()
                .is_none_or(|(at, _)| at.elapsed() >= LEADER_EVERY)
            {
                let leader = tally.leader().map_or(String::new(), |(name, pct)| {
                    format!("leader {name} {}%", crate::text::fixed(pct, 1))
                });
                self.leader = Some((Instant::now(), leader));
            }
            let leader = self.leader.as_ref().map_or("", |(_, l)| l.as_str());
            progress.update(played, leader);
        }
    }

    /// The progress line ended, and the report page written a last time, saying how the run
    /// ended.
    pub fn finish(&mut self, played: &Played) {
        if let Some(progress) = &self.progress {
            progress.finish();
        }
        let (state, note) = match (&played.error, played.interrupts, played.sprt_decided) {
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
            && let Err(e) = live.write(state, note, &played.report)
        {
            say(format_args!(
                "allfives: note: cannot write {LIVE_PAGE}: {e}"
            ));
        }
    }
}

impl Sink for Shown<'_> {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Found {
                folder,
                line,
                tally,
            } => {
                if let Some(live) = &mut self.live {
                    live.add(folder, line, tally);
                }
            }
            Event::Recorded {
                played,
                line,
                tally,
                last,
            } => self.recorded(played, line, tally, last),
            Event::Note(note) => {
                self.note(&format!("allfives: note: {}", crate::text::terminal(note)))
            }
            Event::Stopping => self.note(
                "allfives: stopping: the running games finish, no new game starts (Ctrl-C again to stop at once)",
            ),
        }
    }
}
