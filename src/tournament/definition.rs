//! A tournament's definition, kept as `tournament.json` in its folder: what was asked for, so
//! that `--resume` plays the same schedule with the same seeds, a folder holding another
//! tournament is refused, and `standings` knows the entrants and the size of a duplicate set.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bot::clock::{ClockKind, Clocks};
use crate::bot::lifetime::Processes;
use crate::bot::player::BotSpec;
use crate::input::{self, InputError};
use crate::referee::game::FaultPolicy;
use crate::referee::matchplay::GameSettings;
use crate::sandbox::{Policy, files};
use crate::tournament::digest;
use crate::tournament::ladder::LadderSpec;
use crate::tournament::ratings::SprtSpec;
use crate::tournament::schedule::{Format, Schedule, Table};
use crate::tournament::seeds::Master;
use allfives_engine::protocol::ClockInfo;
use allfives_engine::rules::Rules;

/// The definition's file name in a tournament folder.
pub const FILE: &str = "tournament.json";

/// The most a definition may hold: its entrants come from a bots file of at most
/// [`input::MAX_LIST_BYTES`], written out with their settings.
const MAX_BYTES: u64 = 2 * input::MAX_LIST_BYTES;

/// An entrant as defined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntrantDef {
    /// Its name.
    pub name: String,
    /// Its command.
    pub command: String,
    /// Its working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Variables added to its environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

impl EntrantDef {
    /// Whether `other` is the same entrant: the same name, command and environment, and the
    /// same working directory however its path is spelled (`bots`, `../x/bots`, absolute, a
    /// link). Definitions written before the folder was stored resolved hold it as given,
    /// which is resolved here from the current folder, as their runs did.
    pub fn same_as(&self, other: &EntrantDef) -> bool {
        self.name == other.name
            && self.command == other.command
            && self.env == other.env
            && self.dir.as_deref().map(resolved) == other.dir.as_deref().map(resolved)
    }

    /// What differs between `self` (asked for now) and `stored`, the same entrant's name, in
    /// words; empty when they are [`same_as`](EntrantDef::same_as) each other.
    pub fn differences(&self, stored: &EntrantDef) -> Vec<String> {
        let dir = |d: &Option<PathBuf>| {
            d.as_deref()
                .map_or("none (where the referee starts)".to_string(), |d| {
                    format!("'{}'", d.display())
                })
        };
        let env = |e: &BTreeMap<String, String>| match e.is_empty() {
            true => "none".to_string(),
            false => e
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let mut what = Vec::new();
        if self.command != stored.command {
            what.push(format!(
                "its command ('{}' here, '{}' stored)",
                self.command, stored.command
            ));
        }
        if self.dir.as_deref().map(resolved) != stored.dir.as_deref().map(resolved) {
            what.push(format!(
                "its dir ({} here, {} stored)",
                dir(&self.dir),
                dir(&stored.dir)
            ));
        }
        if self.env != stored.env {
            what.push(format!(
                "its env ({} here, {} stored)",
                env(&self.env),
                env(&stored.env)
            ));
        }
        what
    }
}

/// A working directory as one spelling: the real path of the folder (links and `..` resolved)
/// if it exists, else the path made absolute from the current folder.
pub fn resolved(dir: &Path) -> PathBuf {
    dir.canonicalize()
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf())
}

/// Whether two lists of entrants are the same entrants, in order ([`EntrantDef::same_as`]).
fn same_entrants(a: &[EntrantDef], b: &[EntrantDef]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.same_as(b))
}

/// What differs between two lists of entrants (`here`, asked for now, and `stored`), in words:
/// the count, or the first entrant that differs, by name.
fn entrants_differ(here: &[EntrantDef], stored: &[EntrantDef]) -> Option<String> {
    if let Some((k, (new, old))) = here
        .iter()
        .zip(stored)
        .enumerate()
        .find(|(_, (new, old))| !new.same_as(old))
    {
        return Some(match new.name == old.name {
            true => format!(
                "entrant {}, {}: {}",
                k + 1,
                old.name,
                new.differences(old).join(", ")
            ),
            false => format!("entrant {} ({} here, {} stored)", k + 1, new.name, old.name),
        });
    }
    (here.len() != stored.len())
        .then(|| format!("entrants ({} here, {} stored)", here.len(), stored.len()))
}

/// Everything that decides a tournament's games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    /// Always `allfives-tournament`.
    pub kind: String,
    /// The definition format's version.
    pub version: u32,
    /// The entrants, by index (a ladder appends).
    pub entrants: Vec<EntrantDef>,
    /// round-robin or gauntlet.
    pub format: Format,
    /// The table.
    pub table: Table,
    /// Deals per group.
    pub deals: u64,
    /// The master seed.
    pub seed: u64,
    /// The seed typed with `--seed` that made the master, if one was (older definitions lack
    /// it). Decides no game: the master does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typed_seed: Option<u64>,
    /// The master is the typed seed itself (`--public-seed`): bots could compute the deals.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub public_seed: bool,
    /// The rules.
    pub rules: Rules,
    /// The clocks.
    pub clock: ClockInfo,
    /// What a move's time is (wall or CPU).
    #[serde(default)]
    pub clock_kind: ClockKind,
    /// What a fault costs.
    pub on_fault: FaultPolicy,
    /// The longest line a bot may write.
    pub max_line: usize,
    /// The slice of the schedule played here, if any.
    pub shard: Option<(u64, u64)>,
    /// The sequential test that stops the tournament once it decides, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSpec>,
    /// A ladder's budget and draw (the ladder format only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder: Option<LadderSpec>,
    /// The entrants a ladder no longer draws, by name: kept in the results and standings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<String>,
    /// Logs kept in packs (`--pack-logs`), not a file per game. How logs are stored decides
    /// no game: it is left out of [`digest_for`](Definition::digest_for) and of
    /// [`same_games`](Definition::same_games).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pack_logs: bool,
}

impl Definition {
    /// The definition of `entrants` playing with `settings`.
    pub fn new(
        entrants: &[BotSpec],
        settings: &GameSettings,
        (format, table, deals): (Format, Table, u64),
        master: Master,
        shard: Option<(u64, u64)>,
    ) -> Definition {
        Definition {
            kind: "allfives-tournament".to_string(),
            version: 1,
            entrants: entrants
                .iter()
                .map(|b| EntrantDef {
                    name: b.name.clone(),
                    command: b.command.clone(),
                    // Stored as one spelling: a bots file named from another folder, or as
                    // `./../bots.toml`, defines the same tournament.
                    dir: b.dir.as_deref().map(resolved),
                    env: b.env.clone(),
                })
                .collect(),
            format,
            table,
            deals,
            seed: master.seed,
            typed_seed: master.typed,
            public_seed: master.public,
            rules: settings.rules,
            clock: settings.clocks.info(),
            clock_kind: settings.clocks.kind,
            on_fault: settings.on_fault,
            max_line: settings.max_line,
            shard,
            sprt: None,
            ladder: None,
            retired: Vec::new(),
            pack_logs: false,
        }
    }

    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        Schedule::new(
            self.table,
            self.format,
            self.entrants.len(),
            self.deals,
            self.seed,
        )
    }

    /// The games' settings, bot processes contained by `sandbox` (not part of the definition:
    /// it may differ from machine to machine).
    pub fn settings(&self, sandbox: Policy) -> GameSettings {
        GameSettings {
            rules: self.rules,
            clocks: Clocks {
                startup: Duration::from_millis(self.clock.startup_ms),
                per_move: Duration::from_millis(self.clock.move_ms),
                bank: Duration::from_millis(self.clock.bank_ms),
                kind: self.clock_kind,
            },
            on_fault: self.on_fault,
            deals: Arc::from([]),
            max_line: self.max_line,
            stderr_cap: 1024 * 1024,
            sandbox,
            protections: None,
            processes: Processes::default(),
            public_seed: self.public_seed,
        }
    }

    /// The master seed and how it was made.
    pub fn master(&self) -> Master {
        Master {
            seed: self.seed,
            typed: self.typed_seed,
            public: self.public_seed,
        }
    }

    /// The digest a results line of `group` (entrant indices) carries: of everything in the
    /// definition that decides that game (the format, table, seed, rules, clocks, fault policy,
    /// line cap and the group's entrants), leaving out what a resume or a shard may change (the
    /// other entrants, the number of deals, the shard). `None` if an index is out of range.
    pub fn digest_for(&self, group: &[usize]) -> Option<String> {
        /// The fields digested, in this order (docs/results.md).
        #[derive(Serialize)]
        struct Decisive<'a> {
            kind: &'a str,
            version: u32,
            format: Format,
            table: Table,
            seed: u64,
            rules: &'a Rules,
            clock: &'a ClockInfo,
            clock_kind: ClockKind,
            on_fault: FaultPolicy,
            max_line: usize,
            group: Vec<&'a EntrantDef>,
        }
        let group = group
            .iter()
            .map(|&e| self.entrants.get(e))
            .collect::<Option<Vec<_>>>()?;
        let decisive = Decisive {
            kind: &self.kind,
            version: self.version,
            format: self.format,
            table: self.table,
            seed: self.seed,
            rules: &self.rules,
            clock: &self.clock,
            clock_kind: self.clock_kind,
            on_fault: self.on_fault,
            max_line: self.max_line,
            group,
        };
        let text = serde_json::to_vec(&decisive).expect("a definition always serializes");
        Some(digest::sha256_hex(&text))
    }

    /// The entrants as bots.
    pub fn bots(&self) -> Result<Vec<BotSpec>, String> {
        self.entrants
            .iter()
            .map(|e| {
                BotSpec::with_setup(&e.command, e.dir.clone(), e.env.clone())
                    .map(|b| b.renamed(e.name.clone()))
            })
            .collect()
    }

    /// Whether `self` (asked for now) may continue `stored`: the same in all but entrants, of
    /// which the stored ones come first, and deals (ids stay stable when either grows).
    /// Otherwise, what differs.
    pub fn continues(&self, stored: &Definition) -> Result<(), String> {
        for (i, old) in stored.entrants.iter().enumerate() {
            let Some(new) = self.entrants.get(i) else {
                return Err(format!(
                    "entrant {} ({}) is missing: give the stored entrants first, in their order, or none",
                    i + 1,
                    old.name
                ));
            };
            if new.name != old.name {
                return Err(format!(
                    "entrant {} is {} there, not {}: give the stored entrants first, in their order, or none",
                    i + 1,
                    old.name,
                    new.name
                ));
            }
            if !new.same_as(old) {
                return Err(format!(
                    "entrant {} differs from the one stored: {}; give it as stored, or start a new tournament",
                    old.name,
                    new.differences(old).join(", ")
                ));
            }
        }
        if self.deals < stored.deals {
            return Err(format!(
                "it has {} deals; --deals may add deals, never remove them",
                stored.deals
            ));
        }
        let mut same = self.clone();
        same.entrants = stored.entrants.clone();
        same.deals = stored.deals;
        // A ladder's budget, draw and retirements change nothing of a game played.
        same.ladder = stored.ladder;
        same.retired = stored.retired.clone();
        let what = same.mismatches(stored);
        match what.is_empty() {
            true => Ok(()),
            false => Err(format!("what differs: {}", what.join("; "))),
        }
    }

    /// What differs between `self` (here) and `other` (stored), each in words; empty when
    /// they define the same games (how logs are stored aside).
    pub fn mismatches(&self, other: &Definition) -> Vec<String> {
        let mut what: Vec<String> = entrants_differ(&self.entrants, &other.entrants)
            .into_iter()
            .collect();
        let shown =
            |d: Option<(u64, u64)>| d.map_or("none".to_string(), |(i, n)| format!("{i}/{n}"));
        let seed = (self.seed, self.public_seed, self.typed_seed)
            == (other.seed, other.public_seed, other.typed_seed);
        let clocks = (self.clock, self.clock_kind) == (other.clock, other.clock_kind);
        let fields = [
            (
                self.kind == other.kind && self.version == other.version,
                "kind or version".to_string(),
            ),
            (
                self.format == other.format,
                format!(
                    "format ({} here, {} stored)",
                    self.format.name(),
                    other.format.name()
                ),
            ),
            (self.table == other.table, "table".to_string()),
            (
                self.deals == other.deals,
                format!("deals ({} here, {} stored)", self.deals, other.deals),
            ),
            (seed, "seed".to_string()),
            (
                self.rules == other.rules,
                format!("rules ({} here, {} stored)", self.rules, other.rules),
            ),
            (clocks, "clocks".to_string()),
            (self.on_fault == other.on_fault, "fault policy".to_string()),
            (self.max_line == other.max_line, "line cap".to_string()),
            (
                self.shard == other.shard,
                format!(
                    "shard ({} here, {} stored)",
                    shown(self.shard),
                    shown(other.shard)
                ),
            ),
            (self.sprt == other.sprt, "sequential test".to_string()),
            (self.ladder == other.ladder, "ladder's budget".to_string()),
            (
                self.retired == other.retired,
                "retired entrants".to_string(),
            ),
        ];
        what.extend(
            fields
                .into_iter()
                .filter_map(|(same, words)| (!same).then_some(words)),
        );
        what
    }

    /// What of `self` (a first run's definition, asked for now) would make other games than
    /// `stored`, in words; empty when `self` may continue it. More deals continue it, and so do
    /// a ladder's newcomers, budget and retirements; the shard and how logs are stored are for
    /// the caller to compare.
    pub fn differences(&self, stored: &Definition) -> Vec<String> {
        let kept = stored.entrants.len();
        let entrants = match self.format {
            Format::Ladder => self.entrants.get(..kept).unwrap_or(&self.entrants),
            _ => &self.entrants[..],
        };
        let seed = (self.seed, self.public_seed) == (stored.seed, stored.public_seed);
        let clocks = (self.clock, self.clock_kind) == (stored.clock, stored.clock_kind);
        let mut what: Vec<String> = entrants_differ(entrants, &stored.entrants)
            .into_iter()
            .collect();
        let fields = [
            (self.format == stored.format, "format"),
            (self.table == stored.table, "table"),
            (self.deals >= stored.deals, "deals (fewer)"),
            (seed, "seed"),
            (self.rules == stored.rules, "rules"),
            (clocks, "clocks"),
            (self.on_fault == stored.on_fault, "fault policy"),
            (self.max_line == stored.max_line, "line cap"),
            (self.sprt == stored.sprt, "sequential test"),
        ];
        what.extend(
            fields
                .into_iter()
                .filter(|(same, _)| !same)
                .map(|(_, words)| words.to_string()),
        );
        what
    }

    /// Whether `self` and `other` define the same games: equal but for how logs are stored,
    /// and for how the entrants' folders are spelled.
    pub fn same_games(&self, other: &Definition) -> bool {
        let stored_alike = Definition {
            pack_logs: other.pack_logs,
            entrants: match same_entrants(&self.entrants, &other.entrants) {
                true => other.entrants.clone(),
                false => self.entrants.clone(),
            },
            ..self.clone()
        };
        stored_alike == *other
    }

    /// Reads `DIR/tournament.json`; `None` if there is none. Bounded as every file a user
    /// names: `/dev/zero` or an endless FIFO in its place is refused, a FIFO stopped by a signal.
    pub fn read(dir: &Path) -> Result<Option<Definition>, String> {
        let path = dir.join(FILE);
        match input::read_text(&path, MAX_BYTES) {
            Ok(text) => Definition::parse(&text)
                .map(Some)
                .map_err(|e| format!("{} is not a tournament definition: {e}", path.display())),
            Err(InputError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// A definition from its text, refused unless the referee could have written it.
    pub fn parse(text: &str) -> Result<Definition, String> {
        let definition: Definition = serde_json::from_str(text).map_err(|e| e.to_string())?;
        definition.check()?;
        Ok(definition)
    }

    /// What the referee never writes: another kind or version, a table that does not fit the
    /// rules, no deals, a shard outside its count, a seed past 2^53.
    fn check(&self) -> Result<(), String> {
        let (t, r) = (&self.table, &self.rules);
        let table_fits = (2..=4).contains(&t.players)
            && r.players == t.players
            && r.teams == t.teams
            && (!t.teams || t.players == 4)
            && (!t.splits || t.teams)
            && (!t.all_orders || (t.players == 4 && !t.teams));
        let why = if self.kind != "allfives-tournament" || self.version != 1 {
            "its kind or version is not allfives-tournament 1"
        } else if !table_fits {
            "its table does not fit its rules"
        } else if r.validate().is_err() {
            "its rules are not valid"
        } else if self.deals == 0 {
            "it has no deals"
        } else if self.shard.is_some_and(|(i, n)| i == 0 || i > n) {
            "its shard is not I/N with 1 <= I <= N"
        } else if self.seed >= crate::tournament::seeds::SEED_LIMIT {
            "its seed is not below 2^53"
        } else if (self.format == Format::Ladder) != self.ladder.is_some() {
            "a ladder needs its budget (and only a ladder has one)"
        } else if self
            .ladder
            .is_some_and(|l| l.games.is_none() && l.games_each.is_none())
        {
            "its ladder has no budget of games"
        } else if let Some(name) = self
            .retired
            .iter()
            .find(|r| !self.entrants.iter().any(|e| e.name == **r))
        {
            return Err(format!("it retires {name}, who is not an entrant"));
        } else {
            return Ok(());
        };
        Err(why.to_string())
    }

    /// The whole `DIR/tournament.json.new` of a run stopped between writing and renaming it,
    /// renamed into place; `None` if there is none or it was cut short.
    pub fn recover(dir: &Path) -> Option<Definition> {
        let temporary = dir.join(format!("{FILE}.new"));
        let text = input::read_text(&temporary, MAX_BYTES).ok()?;
        let definition = Definition::parse(&text).ok()?;
        std::fs::rename(&temporary, dir.join(FILE)).ok()?;
        Some(definition)
    }

    /// Writes `DIR/tournament.json` (through a temporary file, so it is whole or absent).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let temporary = dir.join(format!("{FILE}.new"));
        files::replace(&dir.join(FILE), &temporary, |file| {
            file.write_all((text + "\n").as_bytes())
        })
    }
}
