//! Writing a tournament's report page ([`crate::report`]): `standings --html FILE`, and
//! `report.html` in a tournament's folder, rewritten as the games finish (at most every few
//! seconds) and a last time at the end, saying how the run ended. A page is written whole to a
//! temporary file and renamed over the old one, so a browser never reads half a page.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::gamelog::format::Header;
use crate::report::command::tournament_command;
use crate::report::data::{About, Gathered, Replays, State, shown_definition};
use crate::report::html;
use crate::sandbox::files;
use crate::text::shell_word;
use crate::tournament::definition::Definition;
use crate::tournament::game_logs::LineLog;
use crate::tournament::report_stream::Report;
use crate::tournament::results::GameLine;
use crate::tournament::standings::Tally;

/// The live page's name in a tournament's folder.
pub const LIVE_PAGE: &str = "report.html";

/// The least time between two writes of a running tournament's page: a 100,000-game page
/// takes a good part of a second to write.
const EVERY: Duration = Duration::from_secs(5);

/// The most of the dispatcher's time the live page takes: a page whose standings take long
/// (a fit of 1,000 entrants, a few tenths of a second) is written less often than every [`EVERY`].
const SHARE: u32 = 10;

/// A report page being gathered and written.
#[derive(Debug)]
pub struct ReportPage {
    path: PathBuf,
    dirs: Vec<PathBuf>,
    about: About,
    gathered: Gathered,
    written: Option<Instant>,
    /// Whether a game's log was looked at for the referee and containment.
    looked: bool,
    /// How long the last live write took, standings included.
    cost: Duration,
}

impl ReportPage {
    /// The page at `path` of the tournament `definition` (played in `dirs`, its slices, with
    /// `scheduled` games in all).
    pub fn new(path: &Path, dirs: &[PathBuf], definition: &Definition, scheduled: u64) -> Self {
        let place = path.parent().unwrap_or(Path::new(""));
        let replays = dirs
            .iter()
            .enumerate()
            .map(|(i, dir)| {
                let prefix = match dirs.len() {
                    1 => "replay/".to_string(),
                    _ => format!("replay-{}/", i + 1),
                };
                Replays {
                    command: format!(
                        "allfives replay {} --html {}",
                        shell_word(&dir.display().to_string()),
                        shell_word(&place.join(&prefix).display().to_string())
                    ),
                    prefix,
                    written: false,
                }
            })
            .collect();
        let title = dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        ReportPage {
            path: path.to_path_buf(),
            dirs: dirs.to_vec(),
            about: About {
                title,
                state: State::Running,
                note: None,
                updated_ms: 0,
                reload_s: EVERY.as_secs() as u32,
                scheduled,
                definition: shown_definition(definition),
                command: tournament_command(definition),
                referee: None,
                containment: None,
                replays,
            },
            gathered: Gathered::new(definition.entrants.len(), dirs.len()),
            written: None,
            looked: false,
            cost: Duration::ZERO,
        }
    }

    /// Adds a game of folder `folder`, just folded into `tally`; the first game's log (in a
    /// file or a pack) tells the referee's version and the containment in force.
    pub fn add(&mut self, folder: usize, line: &GameLine, tally: &Tally) {
        self.gathered.add(line, folder, tally);
        if !self.looked
            && line.log.is_some()
            && let Some(dir) = self.dirs.get(folder)
        {
            self.looked = true;
            if let Some(header) = header_of(line, dir) {
                self.about.referee = Some(header.referee);
                self.about.containment = header.sandbox;
            }
        }
    }

    /// Sets the games scheduled (a ladder's are known once its results were read).
    pub fn scheduled(&mut self, games: u64) {
        self.about.scheduled = games;
    }

    /// Marks folder `folder`'s replay pages as written with the page.
    pub fn replays_written(&mut self, folder: usize) {
        if let Some(r) = self.about.replays.get_mut(folder) {
            r.written = true;
        }
    }

    /// Tournament folder `folder`, and where its games' replay pages go (beside the page).
    pub fn replay_folder(&self, folder: usize) -> Option<(PathBuf, PathBuf)> {
        let place = self.path.parent().unwrap_or(Path::new(""));
        let r = self.about.replays.get(folder)?;
        Some((
            self.dirs[folder].clone(),
            place.join(r.prefix.trim_end_matches('/')),
        ))
    }

    /// Writes the page of a running tournament if the last was written long enough ago;
    /// `report` gives the standings so far (only called when the page is written).
    pub fn refresh(&mut self, report: impl FnOnce() -> Report) -> std::io::Result<()> {
        let wait = EVERY.max(self.cost * SHARE);
        // Once a stop is asked, the final write follows: nothing holds it up.
        if self.written.is_some_and(|at| at.elapsed() < wait) || crate::input::stopping() {
            return Ok(());
        }
        let started = Instant::now();
        let written = self.written_as(State::Running, None, &report(), Until::Stopped);
        self.cost = started.elapsed();
        match written {
            // Given up for a stop: the temporary file is gone, the last page stands.
            Err(_) if crate::input::stopping() => Ok(()),
            written => written,
        }
    }

    /// Writes the page now, saying `state` (and `note`).
    pub fn write(
        &mut self,
        state: State,
        note: Option<String>,
        report: &Report,
    ) -> std::io::Result<()> {
        self.written_as(state, note, report, Until::Written)
    }

    fn written_as(
        &mut self,
        state: State,
        note: Option<String>,
        report: &Report,
        until: Until,
    ) -> std::io::Result<()> {
        self.about.state = state;
        self.about.note = note;
        self.about.updated_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let data = self.gathered.data(&self.about, report);
        let written = replace(&self.path, until, |out| html::write(out, &data));
        self.written = Some(Instant::now());
        written
    }
}

/// How long a page's write goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Until {
    /// To its end.
    Written,
    /// To its end, or until a stop is asked (Ctrl-C, SIGTERM): a live page of 100,000 rows
    /// takes a good part of a second, and a stop is answered within one.
    Stopped,
}

/// A page's file, written until its [`Until`] says.
struct PageFile<'a> {
    file: &'a mut File,
    until: Until,
}

impl Write for PageFile<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.until == Until::Stopped && crate::input::stopping() {
            return Err(std::io::Error::other("a stop was asked"));
        }
        self.file.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The header of `line`'s log in the folder `dir`, if it has one.
fn header_of(line: &GameLine, dir: &Path) -> Option<Header> {
    let log = LineLog::of(line).ok()?.read(dir).ok()?;
    let first = log.split(|&b| b == b'\n').next()?;
    serde_json::from_slice(first).ok()
}

/// Writes `path` through a new temporary file beside it (`.NAME.new`), buffered, by `write`,
/// until `until` says.
fn replace(
    path: &Path,
    until: Until,
    write: impl FnOnce(&mut BufWriter<PageFile<'_>>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // `--html ..` names no file: the rename then fails, and says so.
    let name = path
        .file_name()
        .unwrap_or(LIVE_PAGE.as_ref())
        .to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.new"));
    // A missing folder is made, as `--out`'s is: else its error names the temporary file.
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot make its folder {}: {e}", parent.display()),
            )
        })?;
    }
    files::replace(path, &temporary, |file| {
        let mut out = BufWriter::new(PageFile { file, until });
        write(&mut out)?;
        out.flush()
    })
}
