//! Results: one line per finished game (`results.jsonl`, and the `games` of a match's JSON),
//! appended only after the game's log is complete, flushed and synced to disk; read back with a
//! torn last line (a referee killed mid-write) ignored. The format is docs/results.md.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::bot::clock::ClockKind;
use crate::bot::fault::FaultKind;
use crate::bot::player::BotSpec;
use crate::bot::timing::MoveTimes;
use crate::referee::game::FaultPolicy;
use crate::referee::game::GameRecord;
use crate::referee::matchplay::GameSettings;
use crate::sandbox::Probed;
use crate::sandbox::files;
use crate::tournament::ratings::sets::Side;
use allfives_engine::game::GameEnding;
use allfives_engine::protocol::ClockInfo;
use allfives_engine::rules::Rules;

/// The results file's name in a tournament folder.
pub const RESULTS: &str = "results.jsonl";

/// The version of the results format (docs/results.md): raised when a field changes meaning or
/// goes away; new fields may appear within a version.
pub const RESULTS_VERSION: u32 = 2;

/// An entrant, as results name it: by index (in the order given) and by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Entrant {
    /// Its index among the entrants, from 0.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// The command that runs it (`builtin:NAME` for builtins).
    pub command: String,
    /// A ladder's entrant no longer drawn (`--retire`); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retired: bool,
}

/// One finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GameLine {
    /// Its id: `N` in a match; `E-E-.../DEAL/ARRANGEMENT` in a tournament (entrant indices of
    /// its group), unique within a tournament and stable when entrants are added.
    pub id: String,
    /// Its number in the match that plays it again (`K` of `--game K` in `rerun`).
    pub game: u64,
    /// The entrant index of each member of its group (a team of copies lists an entrant twice).
    pub group: Vec<usize>,
    /// The deal's index: in a tournament, every group plays deal `d` from the same seed.
    pub deal: u64,
    /// The seed of `allfives match --seed` that deals it (a match's own seed, in a match).
    pub deal_seed: u64,
    /// The index of the seat arrangement.
    pub arrangement: usize,
    /// The seed the game's hands were dealt from (in its log's header).
    pub seed: u64,
    /// With partnerships (seats 0 and 2 against 1 and 3).
    pub teams: bool,
    /// Each seat.
    pub seats: Vec<SeatLine>,
    /// Each side's final score (a side is a team with partnerships, else a seat).
    pub scores: Vec<i32>,
    /// Hands started.
    pub hands: u32,
    /// Why it ended.
    pub ending: GameEnding,
    /// Every fault, in order; the one with `forfeit` cost the game.
    pub faults: Vec<FaultLine>,
    /// The log, relative to the results' folder (a tournament) or as written (a match): a
    /// file of its own, or, with `--pack-logs`, the pack holding it (`logs/pack-wN.zst`).
    pub log: Option<String>,
    /// A packed log only: where its zstd frame starts in the pack, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_offset: Option<u64>,
    /// A packed log only: its zstd frame's length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_bytes: Option<u64>,
    /// The command line that plays this game again, alone, exactly as dealt.
    pub rerun: String,
    /// In a tournament: the SHA-256 of its definition as it concerns this game
    /// ([`Definition::digest_for`](crate::tournament::definition::Definition::digest_for)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    /// In a tournament: the SHA-256 of its log, as written (a packed log's uncompressed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_sha256: Option<String>,
    /// True when played with `--reuse-processes`: a bot's process may have played this deal
    /// before, in another seat, and so may have known a hand it should not (absent otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reused_processes: bool,
}

/// A seat of a finished game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeatLine {
    /// The entrant's index.
    pub entrant: usize,
    /// The entrant's name.
    pub name: String,
    /// Its side (its team with partnerships, else its seat).
    pub side: usize,
    /// Its rank, 1 for the best; equal scores share a rank; a forfeit ranks below all others.
    pub rank: u32,
    /// Moves it chose (forced single moves excluded).
    pub moves: u64,
    /// Their total time in microseconds.
    pub time_us: u64,
    /// Their times as a histogram: `[bucket, count]` pairs, bucket `b` holding times from
    /// 2^(b/4) to 2^((b+1)/4) microseconds.
    pub time_buckets: Vec<(u8, u64)>,
    /// What its bot tried and was refused since its previous game ended (during this game, or
    /// before it: at its start, between games), by system call (`keyctl`, `fadvise_dontneed`,
    /// ...): calls honest bots never make. Absent when nothing was.
    #[serde(default, skip_serializing_if = "Probed::is_empty")]
    pub probed: Probed,
}

/// A fault of a finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FaultLine {
    /// The seat.
    pub seat: usize,
    /// The entrant's index.
    pub entrant: usize,
    /// Its kind.
    pub kind: FaultKind,
    /// What happened.
    pub detail: String,
    /// The offending input, cut short; absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// Whether it cost the game.
    pub forfeit: bool,
    /// The game's decision it faulted at: `replay LOG --turn TURN` shows it (absent for a
    /// fault while starting, and in lines written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
}

/// What a game line is built from besides the referee's record.
#[derive(Debug, Clone)]
pub struct LineContext<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its number in the match that plays it again.
    pub game: u64,
    /// The entrant index of each member.
    pub group: &'a [usize],
    /// The entrants.
    pub entrants: &'a [Entrant],
    /// The deal's index and seed, the arrangement.
    pub deal: (u64, u64, usize),
    /// The rules.
    pub rules: &'a Rules,
    /// Each seat's move times in this game.
    pub times: &'a [MoveTimes],
    /// What each seat's bot tried and was refused in this game.
    pub probed: &'a [Probed],
    /// The log's path as results show it.
    pub log: Option<String>,
    /// The rerun command.
    pub rerun: String,
    /// Whether it was played with `--reuse-processes`.
    pub reused_processes: bool,
}

impl GameLine {
    /// The line of a finished game.
    pub fn new(record: &GameRecord, cx: LineContext) -> GameLine {
        let result = &record.result;
        let seats = record
            .seating
            .iter()
            .enumerate()
            .map(|(seat, &member)| {
                let entrant = cx.group[member];
                SeatLine {
                    entrant,
                    name: cx.entrants[entrant].name.clone(),
                    side: cx.rules.side_of(seat),
                    rank: result.ranks[seat],
                    moves: cx.times[seat].moves(),
                    time_us: cx.times[seat].total_us(),
                    time_buckets: cx.times[seat].buckets(),
                    probed: cx.probed.get(seat).cloned().unwrap_or_default(),
                }
            })
            .collect::<Vec<_>>();
        let faults = record
            .faults
            .iter()
            .map(|f| FaultLine {
                seat: f.seat,
                entrant: seats[f.seat].entrant,
                kind: f.fault.kind,
                detail: f.fault.detail.clone(),
                input: f.fault.input.clone(),
                forfeit: f.forfeit,
                turn: f.turn,
            })
            .collect();
        GameLine {
            id: cx.id.to_string(),
            game: cx.game,
            group: cx.group.to_vec(),
            deal: cx.deal.0,
            deal_seed: cx.deal.1,
            arrangement: cx.deal.2,
            seed: record.seed,
            teams: cx.rules.teams,
            seats,
            scores: result.scores.clone(),
            hands: result.hands,
            ending: result.ending,
            faults,
            log: cx.log,
            log_offset: None,
            log_bytes: None,
            rerun: cx.rerun,
            definition: None,
            log_sha256: None,
            reused_processes: cx.reused_processes,
        }
    }

    /// The key of its duplicate set: the same group on the same deal (index and seed, so that
    /// runs with different seeds never mix their sets).
    pub fn set_key(&self) -> (Vec<usize>, u64, u64) {
        (self.group.clone(), self.deal, self.deal_seed)
    }

    /// Each side as the ratings read it: its entrants (sorted, distinct) and its rank.
    pub fn rated(&self) -> Vec<(Side, u32)> {
        self.sides()
            .iter()
            .map(|seats| {
                let mut entrants: Side = seats.iter().map(|&s| self.seats[s].entrant).collect();
                entrants.sort_unstable();
                entrants.dedup();
                (entrants, self.seats[seats[0]].rank)
            })
            .collect()
    }

    /// Each side's seats.
    pub fn sides(&self) -> Vec<Vec<usize>> {
        let count = self.seats.iter().map(|s| s.side + 1).max().unwrap_or(0);
        (0..count)
            .map(|side| {
                (0..self.seats.len())
                    .filter(|&s| self.seats[s].side == side)
                    .collect()
            })
            .collect()
    }
}

/// A finished game's results line with its text, written by the worker that played it: the
/// run's one writer only copies the bytes, so that recording a game costs it little however
/// many workers feed it.
#[derive(Debug)]
pub struct Finished {
    /// The line.
    pub line: GameLine,
    /// Its JSON, with its newline.
    json: Vec<u8>,
}

impl Finished {
    /// `line` and its text.
    pub fn new(line: GameLine) -> io::Result<Finished> {
        let mut json = Vec::with_capacity(1024);
        serde_json::to_writer(&mut json, &line).map_err(io::Error::other)?;
        json.push(b'\n');
        Ok(Finished { line, json })
    }
}

/// Appends game lines to `results.jsonl`, each written whole and synced before it counts, after
/// the packs holding their logs.
#[derive(Debug)]
pub struct ResultsWriter {
    file: File,
    /// The results' folder, where lines' packs are.
    dir: PathBuf,
    /// The packs synced so far, each kept open for its next sync.
    packs: HashMap<String, File>,
}

impl ResultsWriter {
    /// Opens (or creates) the file for appending; a torn last line is cut off first, so the next
    /// line starts on a line of its own.
    pub fn open(path: &Path) -> io::Result<ResultsWriter> {
        // Never through a link (docs/fair-play.md): opened only if a plain file, else created.
        let file = files::append_or_create(path)?;
        let len = file.metadata()?.len();
        let reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)?;
        let whole = end_of_last_line(&reader, len)?;
        if whole < len {
            file.set_len(whole)?;
        }
        let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        Ok(ResultsWriter {
            file,
            dir,
            packs: HashMap::new(),
        })
    }

    /// Appends games' lines in one write, then syncs them to disk (one sync for many games). The
    /// packs that hold their logs are synced first, each once: no line names a frame that a
    /// crash could lose.
    pub fn append(&mut self, games: &[Finished]) -> io::Result<()> {
        if games.is_empty() {
            return Ok(());
        }
        let mut packs: Vec<&str> = games
            .iter()
            .filter(|g| g.line.log_offset.is_some())
            .filter_map(|g| g.line.log.as_deref())
            .collect();
        packs.sort_unstable();
        packs.dedup();
        for pack in packs {
            let file = match self.packs.get(pack) {
                Some(file) => file,
                None => self
                    .packs
                    .entry(pack.to_string())
                    .or_insert(crate::gamelog::pack::sync_handle(&self.dir.join(pack))?),
            };
            file.sync_data()?;
        }
        let mut bytes = Vec::with_capacity(games.iter().map(|g| g.json.len()).sum());
        games.iter().for_each(|g| bytes.extend_from_slice(&g.json));
        // All of them or none: a write or sync that fails (a full disk) is undone, so that the
        // file holds exactly the lines counted, never a torn line or lines left uncounted.
        let before = self.file.metadata()?.len();
        let written = self
            .file
            .write_all(&bytes)
            .and_then(|()| self.file.sync_data());
        if written.is_err() {
            let _ = self.file.set_len(before);
        }
        written
    }
}

/// Where the last whole line of a file of `len` bytes ends, read backwards from its end.
fn end_of_last_line(file: &File, len: u64) -> io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let mut chunk = vec![0u8; 64 * 1024];
    let mut end = len;
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        file.read_exact_at(part, start)?;
        if let Some(i) = part.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// The longest a results line may be: a game's result with every fault's words is a few KiB.
const MAX_RESULTS_LINE: u64 = 1 << 20;

/// Reads a results file line by line, calling `each` with every whole line's number (from 1),
/// the line and its bytes; a torn last line (no newline: the referee was killed while writing
/// it) is not passed on, and its number is returned. A line that is not a game result
/// elsewhere is refused, with what to do.
pub fn read_results(
    path: &Path,
    mut each: impl FnMut(usize, GameLine, &[u8]) -> Result<(), String>,
) -> Result<Option<usize>, String> {
    let shown = path.display();
    // Only a plain file: a FIFO put in its place would never end the read, nor a signal stop it.
    let file = crate::input::open_file(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        buf.clear();
        // A line is read only so far: a file of one endless line is refused, not held whole.
        let n = (&mut reader)
            .take(MAX_RESULTS_LINE + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("cannot read {shown}: {e}"))?;
        if n == 0 {
            return Ok(None);
        }
        number += 1;
        if n as u64 > MAX_RESULTS_LINE {
            return Err(format!(
                "{shown}, line {number}, is longer than {} KiB, longer than any game result: delete that line (--resume plays its game again), then run again",
                MAX_RESULTS_LINE >> 10
            ));
        }
        if buf.last() != Some(&b'\n') {
            return Ok(Some(number));
        }
        match serde_json::from_slice::<GameLine>(&buf) {
            Ok(line) => each(number, line, &buf)?,
            Err(e) => {
                return Err(format!(
                    "{shown}, line {number}, is not a game result ({}): delete that line (--resume plays its game again), then run again",
                    crate::input::json_error(&e)
                ));
            }
        }
    }
}

/// The whole lines (games) of a results file, counted without reading them (0 without a file):
/// what a refusal says a folder holds before the lines are read and checked.
pub fn whole_lines(path: &Path) -> io::Result<u64> {
    use crate::input::InputError;
    let mut file = match crate::input::open_file(path) {
        Ok(file) => file,
        Err(InputError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(InputError::Io(e)) => return Err(e),
        Err(e) => return Err(io::Error::other(e.to_string())),
    };
    let mut buf = vec![0; 1 << 16];
    let mut lines = 0;
    loop {
        match file.read(&mut buf)? {
            0 => return Ok(lines),
            n => lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64,
        }
    }
}

/// The entrants of `bots`, by index.
pub fn entrants_of(bots: &[BotSpec]) -> Vec<Entrant> {
    bots.iter()
        .enumerate()
        .map(|(index, b)| Entrant {
            index,
            name: b.name.clone(),
            command: b.command.clone(),
            retired: false,
        })
        .collect()
}

/// The command line that plays game `game` of a match of `bots` (in that order) with seed
/// `seed` alone, exactly as dealt: every rule and clock option is written out. Bots from a
/// bots file with a `dir` or `env` need the same folder and variables.
pub fn rerun(
    bots: &[&BotSpec],
    seed: u64,
    game: u64,
    settings: &GameSettings,
    deal_file: Option<&Path>,
) -> String {
    let quote = crate::text::shell_word;
    let r = &settings.rules;
    let mut words: Vec<String> = vec!["allfives".into(), "match".into()];
    words.extend(
        bots.iter()
            .map(|b| quote(&format!("{}={}", b.name, b.command))),
    );
    // The seed is a master already (a match's, or a tournament's deal seed): taken as it is.
    words.push(format!("--seed {seed} --public-seed --game {game}"));
    words.extend(setting_words(
        r,
        &settings.clocks.info(),
        settings.clocks.kind,
        settings.on_fault,
        settings.max_line,
    ));
    let policy = &settings.sandbox;
    if !policy.enabled {
        words.push("--no-sandbox".into());
    }
    if policy.network {
        words.push("--bot-network".into());
    }
    if let Some(bytes) = policy.limits.memory {
        words.push(format!("--bot-memory {}", bytes >> 20));
    }
    if let Some(n) = policy.limits.processes {
        words.push(format!("--bot-processes {n}"));
    }
    if let Some(path) = deal_file {
        words.push(format!("--deal {}", quote(&path.display().to_string())));
    }
    words.join(" ")
}

/// The options that set the rules, the clocks, the fault policy and the line cap, as `match`
/// and `tournament` take them, written out in full.
pub fn setting_words(
    r: &Rules,
    c: &ClockInfo,
    kind: ClockKind,
    on_fault: FaultPolicy,
    max_line: usize,
) -> Vec<String> {
    let mut words = Vec::new();
    if r.players == 4 {
        words.push(if r.teams { "--teams" } else { "--no-teams" }.into());
    }
    words.push(format!(
        "--hand-size {} --spinner {} --hand-end {} --target {} --finish {} --max-hands {}",
        r.hand_size,
        option_name(&r.spinner),
        option_name(&r.hand_end),
        r.target,
        option_name(&r.finish),
        r.max_hands
    ));
    words.push(format!(
        "--startup-ms {} --move-ms {} --bank-ms {}",
        c.startup_ms, c.move_ms, c.bank_ms
    ));
    words.push(match on_fault {
        FaultPolicy::Forfeit => "--on-fault forfeit".to_string(),
        FaultPolicy::Fallback { max_faults } => {
            format!("--on-fault fallback --max-faults {max_faults}")
        }
    });
    words.push(format!("--max-line {}", max_line));
    if kind == ClockKind::Cpu {
        words.push("--clock cpu".into());
    }
    words
}

/// A rule option by its JSON name, as the command line takes it (`end-of-hand`).
fn option_name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s.replace('_', "-"),
        _ => String::new(),
    }
}
