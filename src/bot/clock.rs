//! Time controls: the start-up allowance, the per-move limit and the optional bank.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use allfives_engine::protocol::ClockInfo;

/// The default allowance to start and answer the handshake, in milliseconds (`match` and
/// `check` alike, so that passing `check` says something about a match's timing).
pub const DEFAULT_STARTUP_MS: u64 = 10_000;
/// The default limit for each move, in milliseconds.
pub const DEFAULT_MOVE_MS: u64 = 1_000;

/// The time controls of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Clocks {
    /// Allowance for a bot to start and answer the handshake.
    pub startup: Duration,
    /// Limit for each move.
    pub per_move: Duration,
    /// Extra time per game that moves may draw on past the limit.
    pub bank: Duration,
    /// What is measured: elapsed time, or the CPU time of the bot's processes.
    pub kind: ClockKind,
}

/// What a move's time is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// Elapsed (wall-clock) time, from the request written to the answer read.
    #[default]
    Wall,
    /// The CPU time the bot's processes used meanwhile: a busy neighbour cannot make a bot
    /// lose on time. A bot that waits without computing is stopped by a wall-time backstop.
    Cpu,
}

impl ClockKind {
    /// How long to wait, in wall time, for a move allowed `allowance` of this clock's time.
    pub fn wall_limit(self, allowance: Duration) -> Duration {
        match self {
            ClockKind::Wall => allowance,
            ClockKind::Cpu => allowance * 3 + Duration::from_secs(1),
        }
    }
}

impl Clocks {
    /// Time controls from milliseconds, as the command line gives them; the error is a sentence
    /// for the user.
    pub fn from_ms(
        startup: u64,
        per_move: u64,
        bank: u64,
        kind: ClockKind,
    ) -> Result<Clocks, String> {
        if startup == 0 || per_move == 0 {
            return Err("--move-ms and --startup-ms must be above 0".to_string());
        }
        Ok(Clocks {
            startup: Duration::from_millis(startup),
            per_move: Duration::from_millis(per_move),
            bank: Duration::from_millis(bank),
            kind,
        })
    }

    /// The controls as bots are told them.
    pub fn info(&self) -> ClockInfo {
        ClockInfo {
            startup_ms: self.startup.as_millis() as u64,
            move_ms: self.per_move.as_millis() as u64,
            bank_ms: self.bank.as_millis() as u64,
        }
    }

    /// The controls a bot was told, measuring `kind` (as a log records them).
    pub fn from_info(info: ClockInfo, kind: ClockKind) -> Clocks {
        Clocks {
            startup: Duration::from_millis(info.startup_ms),
            per_move: Duration::from_millis(info.move_ms),
            bank: Duration::from_millis(info.bank_ms),
            kind,
        }
    }

    /// A fresh clock for one seat in one game.
    pub fn start_game(&self) -> Clock {
        Clock {
            per_move: self.per_move,
            bank_left: self.bank,
            kind: self.kind,
        }
    }
}

/// One seat's clock in one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    per_move: Duration,
    bank_left: Duration,
    kind: ClockKind,
}

impl Clock {
    /// What it measures.
    pub fn kind(&self) -> ClockKind {
        self.kind
    }

    /// The most time the next move may take: the limit plus what is left of the bank.
    pub fn allowance(&self) -> Duration {
        self.per_move + self.bank_left
    }

    /// Charges a move that took `used`; returns false if it overran the allowance.
    pub fn charge(&mut self, used: Duration) -> bool {
        let over = used.saturating_sub(self.per_move);
        let within = over <= self.bank_left;
        self.bank_left = self.bank_left.saturating_sub(over);
        within
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bank_pays_for_overruns() {
        let clocks = Clocks {
            startup: Duration::from_secs(1),
            per_move: Duration::from_millis(100),
            bank: Duration::from_millis(50),
            kind: ClockKind::Wall,
        };
        let mut clock = clocks.start_game();
        assert_eq!(clock.allowance(), Duration::from_millis(150));
        assert!(clock.charge(Duration::from_millis(90)));
        assert!(clock.charge(Duration::from_millis(130)));
        assert_eq!(clock.allowance(), Duration::from_millis(120));
        assert!(!clock.charge(Duration::from_millis(130)));
        assert_eq!(clock.allowance(), Duration::from_millis(100));
    }
}
