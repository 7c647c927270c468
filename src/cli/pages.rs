//! `replay --html`: a game's page, also for a log that does not check out (what checked out,
//! and where it stopped), and the pages of a folder of games with their index.

use std::path::{Path, PathBuf};

use allfives_engine::rules::Seat;

use crate::gamelog::{self, LogError, describe};
use crate::replay::html::{self, IndexEntry};
use crate::replay::page_data::{Failure, PageData, page_data};
use crate::replay::steps;

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
pub struct Folder {
    /// How many games' pages were written.
    pub games: usize,
    /// The logs that do not check out (their pages show how far they do), as messages.
    pub bad: Vec<String>,
}

/// Writes a page for every game log (`*.jsonl`) in `dir`, and `index.html`, into `out`, a
/// folder that must not exist yet.
pub fn folder(dir: &Path, out: &Path, seat: Option<Seat>) -> Result<Folder, String> {
    let logs = game_logs(dir)?;
    if logs.is_empty() {
        return Err(format!("{} holds no game log (*.jsonl)", dir.display()));
    }
    std::fs::create_dir(out).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => format!(
            "{} exists already; remove it or name another folder",
            out.display()
        ),
        _ => format!("cannot create {}: {e}", out.display()),
    })?;
    let mut entries = Vec::new();
    let mut bad = Vec::new();
    for log in &logs {
        let name = log
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let shown = log.display();
        let text = std::fs::read(log)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .map_err(|e| format!("cannot read {shown}: {e}"))?;
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
        if let Some(e) = &error {
            bad.push(format!("{shown} does not check out: {e}"));
        }
        if let Some(data) = data.as_mut() {
            data.index = Some("index.html".into());
            std::fs::write(out.join(&page_name), html::page(data))
                .map_err(|e| format!("cannot write {}: {e}", out.join(&page_name).display()))?;
        }
        entries.push(IndexEntry {
            page: page_name,
            name,
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
    })
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
