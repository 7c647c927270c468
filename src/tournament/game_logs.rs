//! Where a tournament game's log is kept, as its results line says: a file of its own
//! (`logs/ID.jsonl`, the default), or a frame of its worker's pack (`logs/pack-wN.zst` with
//! `log_offset` and `log_bytes`, with `--pack-logs`). Read back alike whichever it is; packs
//! torn by a kill are cut back to the last game that results name before a run appends again.

use std::collections::HashMap;
use std::path::Path;

use crate::gamelog::pack::{self, Cut, Frame};
use crate::input;
use crate::text;
use crate::tournament::digest;
use crate::tournament::results::{GameLine, RESULTS, read_results};

/// The pack that worker `worker` appends to, relative to the tournament's folder.
pub fn pack_name(worker: usize) -> String {
    format!("logs/pack-w{worker}.zst")
}

/// Whether `relative` is a pack's name as [`pack_name`] writes it.
fn is_pack_name(relative: &str) -> bool {
    relative
        .strip_prefix("logs/pack-w")
        .and_then(|n| n.strip_suffix(".zst"))
        .is_some_and(|n| n.parse::<usize>().is_ok())
}

/// A line's log: where it is, checked to be a place the referee writes that game's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A file of its own, relative to the folder.
    File(String),
    /// A frame of a pack (relative to the folder).
    Packed(String, Frame),
}

impl Place {
    /// The place `line` names, or why it is no place of its game's log.
    pub fn of(line: &GameLine) -> Result<Place, String> {
        let relative = line.log.as_deref().unwrap_or_default();
        match (line.log_offset, line.log_bytes) {
            (Some(offset), Some(bytes)) if is_pack_name(relative) => {
                let frame = Frame { offset, bytes };
                match frame.end() {
                    Some(_) => Ok(Place::Packed(relative.into(), frame)),
                    None => Err(format!(
                        "its log_offset {offset} and log_bytes {bytes} end past any file's end (forged or damaged)"
                    )),
                }
            }
            (None, None) if is_log_file_of(relative, &line.id) => Ok(Place::File(relative.into())),
            _ => Err(format!(
                "its log {relative:?} is not a log of game {} (a file logs/ID.jsonl, or a pack logs/pack-wN.zst with log_offset and log_bytes)",
                line.id
            )),
        }
    }

    /// The file it is in, relative to the folder.
    pub fn file(&self) -> &str {
        match self {
            Place::File(file) | Place::Packed(file, _) => file,
        }
    }

    /// Its log's bytes (a packed log's uncompressed), read from the folder `dir`.
    pub fn read(&self, dir: &Path) -> Result<Vec<u8>, String> {
        match self {
            Place::File(file) => input::read(&dir.join(file), input::MAX_LOG_BYTES)
                .map_err(|e| format!("{self} cannot be read: {e}")),
            Place::Packed(file, frame) => {
                pack::read_frame(&dir.join(file), *frame).map_err(|e| format!("{self}: {e}"))
            }
        }
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::File(file) => write!(f, "its log {file}"),
            Place::Packed(file, frame) => write!(
                f,
                "its log in {file} (bytes {} to {})",
                frame.offset,
                frame.offset.saturating_add(frame.bytes)
            ),
        }
    }
}

/// A game's log as its results line names it: where it is, its SHA-256 when the line gives
/// one, and the game it must be the log of.
#[derive(Debug, Clone)]
pub struct LineLog {
    /// Where it is.
    pub place: Place,
    sha256: Option<String>,
    game: Logged,
}

/// What a log's header says of its game, and a results line of the game it logs: its number
/// in its set, its seed (so its deals) and its seats' names (so its arrangement). The fields
/// the header has besides are not read here.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
struct Logged {
    game: u64,
    seed: u64,
    seats: Vec<Seated>,
}

/// A seat's bot, by the name a header gives it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
struct Seated {
    bot: String,
}

impl std::fmt::Display for Logged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seats: Vec<&str> = self.seats.iter().map(|s| s.bot.as_str()).collect();
        write!(
            f,
            "game {} of its set, seed {}, seats {}",
            self.game,
            self.seed,
            text::terminal(&seats.join(", "))
        )
    }
}

impl LineLog {
    /// The log that `line` names, or why it names no place of its game's log.
    pub fn of(line: &GameLine) -> Result<LineLog, String> {
        Ok(LineLog {
            place: Place::of(line)?,
            sha256: line.log_sha256.clone(),
            game: Logged {
                game: line.game,
                seed: line.seed,
                seats: line
                    .seats
                    .iter()
                    .map(|s| Seated {
                        bot: s.name.clone(),
                    })
                    .collect(),
            },
        })
    }

    /// Its bytes, read from the folder `dir`: refused when they are not the ones the line's
    /// digest names (a log swapped for another game's, changed or emptied), or when its header
    /// is another game's (a line pointed at another game's log, its digest with it).
    pub fn read(&self, dir: &Path) -> Result<Vec<u8>, String> {
        let bytes = self.place.read(dir)?;
        match &self.sha256 {
            Some(sha) if *sha != digest::sha256_hex(&bytes) => Err(format!(
                "{} is not the one it was written with (its SHA-256 differs): the log was changed, replaced or emptied",
                self.place
            )),
            _ => self.belongs(&bytes).map(|()| bytes),
        }
    }

    /// Whether the log `bytes` is the line's game's, by its header. A header that does not
    /// read is let through: the log's replay refuses it, naming its line.
    fn belongs(&self, bytes: &[u8]) -> Result<(), String> {
        let header = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
        match serde_json::from_slice::<Logged>(header) {
            Ok(logged) if logged != self.game => Err(format!(
                "{} is the log of another game ({logged}), where the results line's game is {}: the line was changed; restore it from a copy, or delete it (--resume plays its game again)",
                self.place, self.game
            )),
            _ => Ok(()),
        }
    }
}

/// Whether `relative` is a file the referee writes game `id`'s log to: `logs/ID.jsonl` (its
/// slashes as underscores), or `logs/ID.retry-N.jsonl` after a run cut short.
fn is_log_file_of(relative: &str, id: &str) -> bool {
    let stem = id.replace('/', "_");
    relative == format!("logs/{stem}.jsonl")
        || relative
            .strip_prefix(&format!("logs/{stem}.retry-"))
            .and_then(|n| n.strip_suffix(".jsonl"))
            .is_some_and(|n| n.parse::<u32>().is_ok())
}

/// What a pack's cut removed, in words: whole games no results line names (their lines were
/// deleted), and part of one being written when a run stopped.
fn cut_note(cut: Cut) -> String {
    let mut parts = Vec::new();
    if cut.frames > 0 {
        parts.push(format!(
            "the logs of {} that no line of results.jsonl names",
            text::count(cut.frames, "game")
        ));
    }
    if cut.partial > 0 {
        parts.push(format!(
            "{} of a game being written when a run stopped",
            text::count(cut.partial, "byte")
        ));
    }
    format!(
        "cut its last {} past the last game results.jsonl names in it: {} (played again)",
        text::count(cut.bytes, "byte"),
        parts.join(", and ")
    )
}

/// The end of the last frame that results name in each pack: all that a pack must keep.
#[derive(Debug, Default)]
pub struct PackEnds(HashMap<String, u64>);

impl PackEnds {
    /// Takes in one results line.
    pub fn add(&mut self, line: &GameLine) {
        if let Ok(Place::Packed(file, frame)) = Place::of(line) {
            let end = self.0.entry(file).or_default();
            *end = (*end).max(frame.end().expect("Place::of refuses frames past u64"));
        }
    }

    /// Cuts every pack in `DIR/logs` back to the end of the last game that results name (a
    /// pack no line names is removed): what a run killed while writing a game left past it
    /// goes, and that game is played again. A word for each pack cut; an error when a pack is
    /// shorter than its games (cut or replaced since). `packing`: whether this run packs.
    pub fn repair(&self, dir: &Path, packing: bool) -> Result<Vec<String>, String> {
        let mut notes = Vec::new();
        // A folder of a million log files is listed only when packs may be in it.
        let packs = match packing || !self.0.is_empty() {
            true => self.packs_in(dir)?,
            false => Vec::new(),
        };
        for file in packs {
            let shown = dir.join(&file);
            let shown = shown.display();
            let Some(&end) = self.0.get(&file) else {
                // No game is in it: all it holds is part of one being written (an empty file
                // would not even be a zstd stream).
                std::fs::remove_file(dir.join(&file))
                    .map_err(|e| format!("cannot remove {shown}: {e}"))?;
                notes.push(format!(
                    "removed {shown}, which held no game that results.jsonl names (only part of one being written when a run stopped: it is played again)"
                ));
                continue;
            };
            match pack::cut_to(&dir.join(&file), end) {
                Ok(cut) if cut.bytes == 0 => {}
                Ok(cut) => notes.push(format!("{shown}: {}", cut_note(cut))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(format!(
                        "results.jsonl names games in {shown}, which is missing: put it back, or delete the lines of results.jsonl that name it (--resume plays their games again)"
                    ));
                }
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return Err(format!(
                        "{shown} is shorter than results.jsonl says ({e}): it was cut or replaced; put it back, or delete the lines of results.jsonl that name it past its end (--resume plays their games again)"
                    ));
                }
                Err(e) => return Err(format!("cannot repair {shown}: {e}")),
            }
        }
        Ok(notes)
    }

    /// The packs in `DIR/logs` and those that results name, relative to `dir`.
    fn packs_in(&self, dir: &Path) -> Result<Vec<String>, String> {
        let mut packs: Vec<String> = self.0.keys().cloned().collect();
        let logs = dir.join("logs");
        let listed =
            std::fs::read_dir(&logs).map_err(|e| format!("cannot read {}: {e}", logs.display()))?;
        for entry in listed {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", logs.display()))?;
            let name = format!("logs/{}", entry.file_name().to_string_lossy());
            if is_pack_name(&name) && !packs.contains(&name) {
                packs.push(name);
            }
        }
        packs.sort();
        Ok(packs)
    }
}

/// Every game of the tournament folder `dir` by its results (a repeated line once), in the
/// order written: its id and where its log is. An empty list when there is no results file.
pub fn games(dir: &Path) -> Result<Vec<(String, LineLog)>, String> {
    let path = dir.join(RESULTS);
    let mut games = Vec::new();
    let mut seen = std::collections::HashSet::new();
    read_results(&path, |number, line, _| {
        let place = LineLog::of(&line)
            .map_err(|why| format!("{}, line {number}: {why}", path.display()))?;
        if seen.insert(line.id.clone()) {
            games.push((line.id, place));
        }
        Ok(())
    })?;
    Ok(games)
}

/// Where game `id` of the tournament folder `dir` has its log, by its results line; an unknown
/// id is answered with how many games there are and how their ids look.
pub fn find(dir: &Path, id: &str) -> Result<LineLog, String> {
    let path = dir.join(RESULTS);
    // Any file there is read, so that one that is not plain (a FIFO) is refused as such.
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(format!(
            "{} holds no {RESULTS}: --game names a game of a tournament's folder (allfives tournament --out)",
            dir.display()
        ));
    }
    let (mut found, mut count, mut first) = (None, 0u64, None);
    read_results(&path, |number, line, _| {
        count += 1;
        first.get_or_insert_with(|| line.id.clone());
        if line.id == id && found.is_none() {
            let place = LineLog::of(&line)
                .map_err(|why| format!("{}, line {number}: {why}", path.display()))?;
            found = Some(place);
        }
        Ok(())
    })?;
    found.ok_or_else(|| match first {
        None => format!("{} holds no game yet", path.display()),
        Some(first) => format!(
            "{} holds no game {id}: its {count} games have ids like {first} (the entrants' indices, the deal, the arrangement), each line's \"id\"",
            path.display()
        ),
    })
}
