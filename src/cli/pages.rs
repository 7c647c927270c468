//! `replay --html`: a game's page, also for a log that does not check out (what checked out,
//! and where it stopped), and the pages of a folder of games with their index.

use std::path::{Path, PathBuf};

use allfives_engine::rules::Seat;

use crate::cli::exit::{BAD_LOG, CUT_LOG, say};
use crate::gamelog::{self, LogError, describe};
use crate::input;
use crate::replay::html::{self, IndexEntry};
use crate::replay::page_data::{Failure, PageData, page_data};
use crate::replay::steps;
use crate::text::shell_word;
use crate::tournament::game_logs::{self, LineLog, Place};
use crate::tournament::results::RESULTS;

/// A log's page data, and why it does not check out, if it does not.
pub fn game_page(text: &str, seat: Option<Seat>) -> Result<(PageData, Option<LogError>), LogError> {
    match gamelog::replay(text) {
        Ok(replay) => Ok((page_data(&steps::document(&replay, seat)), None)),
        Err(error) => {
            // The lines before the one refused check out: as a log cut there, they replay.
            let before: String = text
                .split_inclusive('\n')
                .take(error.line.saturating_sub(1))
                .collect();
            let replay = gamelog::replay(&before).map_err(|_| error.clone())?;
            let mut data = page_data(&steps::document(&replay, seat));
            data.failed = Some(Failure {
                line: error.line,
                why: error.why.clone(),
            });
            Ok((data, Some(error)))
        }
    }
}

/// What became of a folder's pages.
#[derive(Debug, Default)]
pub struct Folder {
    /// How many games' pages were written.
    pub games: usize,
    /// The logs that do not check out (their pages show how far they do), as messages.
    pub bad: Vec<String>,
    /// The logs cut short before their game's end (their pages show what they hold), as
    /// messages.
    pub cut: Vec<String>,
}

impl Folder {
    /// Adds what became of another folder's pages.
    pub fn add(&mut self, other: Folder) {
        self.games += other.games;
        self.bad.extend(other.bad);
        self.cut.extend(other.cut);
    }
}

/// A game to show: its page's name, its name in messages, its id in a tournament, and where
/// its log is.
struct Game {
    name: String,
    shown: String,
    id: Option<String>,
    log: Log,
}

/// Where a game's log is.
enum Log {
    /// A log file of a folder of logs.
    File(PathBuf),
    /// A game of a tournament's folder, as its results line places it.
    Logged(LineLog),
}

/// Writes a page for every game in `dir`, and `index.html`, into `out`, a folder that must not
/// exist yet. `dir` is a tournament's folder (its games by its results.jsonl, packed logs or
/// files) or a folder of game logs (`*.jsonl`).
pub fn folder(dir: &Path, out: &Path, seat: Option<Seat>) -> Result<Folder, String> {
    let games = games_in(dir)?;
    if std::fs::symlink_metadata(out).is_ok() {
        return Err(format!(
            "{} exists already; remove it or name another folder",
            out.display()
        ));
    }
    // Written beside it, then renamed: a run stopped half-way (SIGTERM, a full disk) leaves no
    // half folder at OUT that a rerun would refuse; the next run clears what it left.
    let partial = partial_of(out);
    match std::fs::remove_dir_all(&partial) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot remove {}: {e}", partial.display()));
        }
        _ => {}
    }
    std::fs::create_dir(&partial)
        .map_err(|e| format!("cannot create {}: {e}", partial.display()))?;
    // From here a signal is looked at between pages, so that the partial folder goes with it.
    crate::cli::signals::mark_stopping();
    let written = write_pages(dir, &partial, games, seat).and_then(|folder| {
        std::fs::rename(&partial, out)
            .map(|()| folder)
            .map_err(|e| {
                format!(
                    "cannot rename {} to {}: {e}",
                    partial.display(),
                    out.display()
                )
            })
    });
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    match written {
        Err(_) if input::stopping() => Err(format!(
            "interrupted: {} was not made, and no page was left behind",
            out.display()
        )),
        written => written,
    }
}

/// Says on stderr which of a folder's games do not check out or are cut short, and returns the
/// code `replay` gives such a game: [`BAD_LOG`] if one does not check out, else [`CUT_LOG`] if
/// one is cut short, else 0.
pub fn folder_code(folder: &Folder) -> u8 {
    for message in folder.bad.iter().chain(&folder.cut) {
        say(format_args!("allfives: {}", crate::text::terminal(message)));
    }
    match (folder.bad.is_empty(), folder.cut.is_empty()) {
        (false, _) => BAD_LOG,
        (true, false) => CUT_LOG,
        (true, true) => 0,
    }
}

/// Where the pages of `out` are written before they are whole: `.NAME.partial` beside it.
fn partial_of(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "pages".into(), |n| n.to_string_lossy().into_owned());
    out.with_file_name(format!(".{name}.partial"))
}

/// Writes every game's page and the index into the folder `out`.
fn write_pages(
    dir: &Path,
    out: &Path,
    games: Vec<Game>,
    seat: Option<Seat>,
) -> Result<Folder, String> {
    let mut entries = Vec::new();
    let (mut bad, mut cut) = (Vec::new(), Vec::new());
    for Game {
        name,
        shown,
        id,
        log,
    } in games
    {
        if input::stopping() {
            return Err("interrupted".into());
        }
        let bytes = match &log {
            Log::File(path) => input::read(path, input::MAX_LOG_BYTES)
                .map_err(|e| format!("cannot read {shown}: {e}")),
            Log::Logged(place) => place
                .read(dir)
                .map_err(|e| format!("cannot read game {shown}: {e}")),
        }?;
        let text = String::from_utf8_lossy(&bytes);
        let page_name = format!("{name}.html");
        let (mut data, error, players) = match game_page(&text, seat) {
            Ok((data, error)) => {
                let players = data.about.names();
                (Some(data), error, players)
            }
            Err(error) => (None, Some(error), Vec::new()),
        };
        let result = match (&error, &data) {
            (Some(e), _) => format!("does not check out: {e}"),
            (None, Some(d)) => result_of(d),
            (None, None) => String::new(),
        };
        match (&error, &data) {
            (Some(e), _) => bad.push(format!("{shown} does not check out: {e}")),
            (None, Some(d)) if !d.about.complete => {
                cut.push(format!("{shown} is cut short before the game's end"));
            }
            _ => {}
        }
        if let Some(data) = data.as_mut() {
            data.index = Some("index.html".into());
            data.replay = Some(replay_command(dir, id.as_deref(), &log, seat));
            if seat.is_none() {
                data.log = Some(raw_log(dir, out, &name, &log, &bytes)?);
            }
            data.name = id.clone();
            std::fs::write(out.join(&page_name), html::page(data))
                .map_err(|e| format!("cannot write {}: {e}", out.join(&page_name).display()))?;
        }
        entries.push(IndexEntry {
            page: page_name,
            // A tournament's game by its id, as its report and the command line name it.
            name: id.unwrap_or(name),
            players,
            result,
            good: error.is_none(),
        });
    }
    let title = format!("games of {}", dir.display());
    std::fs::write(out.join("index.html"), html::index(&title, &entries))
        .map_err(|e| format!("cannot write {}: {e}", out.join("index.html").display()))?;
    Ok(Folder {
        games: entries.len(),
        bad,
        cut,
    })
}

/// The command that replays a game of the folder `dir`: its log file, or its id in the
/// tournament's folder; as `seat` saw it.
fn replay_command(dir: &Path, id: Option<&str>, log: &Log, seat: Option<Seat>) -> String {
    let mut command = match (log, id) {
        (Log::File(path), _) => format!("allfives replay {}", path_word(path)),
        (Log::Logged(_), id) => format!(
            "allfives replay {} --game {}",
            path_word(dir),
            shell_word(id.unwrap_or_default())
        ),
    };
    if let Some(seat) = seat {
        command.push_str(&format!(" --seat {seat}"));
    }
    command
}

/// A path as one shell word.
pub fn path_word(path: &Path) -> String {
    shell_word(&path.display().to_string())
}

/// Where a game's page links to its raw log: a log file where it is (relative to the pages), a
/// game of a tournament's packs copied beside its page (`NAME.jsonl`, the bytes read for it:
/// a page cannot reach into a pack).
fn raw_log(dir: &Path, out: &Path, name: &str, log: &Log, bytes: &[u8]) -> Result<String, String> {
    let file = match log {
        Log::File(path) => Some(path.clone()),
        Log::Logged(LineLog {
            place: Place::File(file),
            ..
        }) => Some(dir.join(file)),
        Log::Logged(_) => None,
    };
    if let Some(link) = file.and_then(|path| relative(out, &path)) {
        return Ok(link);
    }
    let file = format!("{name}.jsonl");
    std::fs::write(out.join(&file), bytes)
        .map_err(|e| format!("cannot write {}: {e}", out.join(&file).display()))?;
    Ok(file)
}

/// The path of the file `to` from the folder `from`, `/` between its parts, if both exist.
pub fn relative(from: &Path, to: &Path) -> Option<String> {
    let (from, to) = (from.canonicalize().ok()?, to.canonicalize().ok()?);
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts = vec!["..".to_string(); from.len() - shared];
    parts.extend(
        to[shared..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(parts.join("/"))
}

/// The games of `dir`: a tournament's by its results, else its log files.
fn games_in(dir: &Path) -> Result<Vec<Game>, String> {
    // Any file there makes it a tournament's: one that is not plain (a FIFO) is refused as such.
    if std::fs::symlink_metadata(dir.join(RESULTS)).is_ok() {
        let games = game_logs::games(dir)?;
        if games.is_empty() {
            return Err(format!("{} holds no finished game yet", dir.display()));
        }
        return Ok(games
            .into_iter()
            .map(|(id, place)| Game {
                // The page a file's log would get: its file's name.
                name: id.replace('/', "_"),
                shown: format!("{id} of {}", dir.display()),
                id: Some(id),
                log: Log::Logged(place),
            })
            .collect());
    }
    let logs = game_logs(dir)?;
    if logs.is_empty() {
        return Err(format!(
            "{} holds no game log (*.jsonl); a tournament's packed logs are shown from its folder (the one holding {RESULTS})",
            dir.display()
        ));
    }
    Ok(logs
        .into_iter()
        .map(|log| Game {
            name: log
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
            shown: log.display().to_string(),
            id: None,
            log: Log::File(log),
        })
        .collect())
}

/// The game logs in a folder, in game order (`game-2` before `game-10`).
fn game_logs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let read = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut logs: Vec<PathBuf> = read
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && p.is_file())
        .collect();
    let number = |p: &PathBuf| -> (u64, String) {
        let stem = p
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let digits: String = stem.chars().filter(char::is_ascii_digit).collect();
        (digits.parse().unwrap_or(u64::MAX), stem)
    };
    logs.sort_by_key(number);
    Ok(logs)
}

/// A game's result in words: the scores and how it ended, or where its log stops.
fn result_of(data: &PageData) -> String {
    match &data.about.end {
        Some(end) => describe::result(&end.result),
        None => "the log stops before the game's end".into(),
    }
}
