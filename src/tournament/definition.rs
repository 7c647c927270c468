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
use crate::bot::player::BotSpec;
use crate::referee::game::FaultPolicy;
use crate::referee::matchplay::GameSettings;
use crate::sandbox::{Policy, files};
use crate::tournament::ratings::SprtSpec;
use crate::tournament::schedule::{Format, Schedule, Table};
use allfives_engine::protocol::ClockInfo;
use allfives_engine::rules::Rules;

/// The definition's file name in a tournament folder.
pub const FILE: &str = "tournament.json";

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
}

impl Definition {
    /// The definition of `entrants` playing with `settings`.
    pub fn new(
        entrants: &[BotSpec],
        settings: &GameSettings,
        (format, table, deals): (Format, Table, u64),
        seed: u64,
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
                    dir: b.dir.clone(),
                    env: b.env.clone(),
                })
                .collect(),
            format,
            table,
            deals,
            seed,
            rules: settings.rules,
            clock: settings.clocks.info(),
            clock_kind: settings.clocks.kind,
            on_fault: settings.on_fault,
            max_line: settings.max_line,
            shard,
            sprt: None,
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
        }
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
        let n = stored.entrants.len();
        if self.entrants.len() < n || self.entrants[..n] != stored.entrants[..] {
            let names: Vec<&str> = stored.entrants.iter().map(|e| e.name.as_str()).collect();
            return Err(format!(
                "its entrants are {} (give them first, in that order, or none)",
                names.join(", ")
            ));
        }
        let mut same = self.clone();
        same.entrants = stored.entrants.clone();
        same.deals = stored.deals;
        match same == *stored {
            true => Ok(()),
            false => Err("its seed, schedule, rules or clocks differ".to_string()),
        }
    }

    /// Reads `DIR/tournament.json`; `None` if there is none.
    pub fn read(dir: &Path) -> Result<Option<Definition>, String> {
        let path = dir.join(FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| format!("{} is not a tournament definition: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes `DIR/tournament.json` (through a temporary file, so it is whole or absent).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        let temporary = dir.join(format!("{FILE}.new"));
        // A leftover of a run killed here (or a planted link: removing it follows nothing).
        let _ = std::fs::remove_file(&temporary);
        let mut file = files::create_new(&temporary)?;
        file.write_all((text + "\n").as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, dir.join(FILE))
    }
}
