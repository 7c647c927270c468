//! Where a match runs on the machine's CPUs.
//!
//! A move is a round trip between the referee and a bot over a pipe. When the two sit on
//! different CPUs, every message wakes an idle CPU (tens of microseconds on a virtual machine);
//! on one CPU it costs a few. So by default a match holds one CPU for itself (the referee and,
//! since they inherit it, every bot it starts), one that no other allfives process holds: with
//! as many CPUs as matches running at once, each match keeps a CPU of its own. A tournament
//! places each of its workers the same way, and runs as many as the CPUs it may use.

mod allowance;
mod cpu;

pub use allowance::usable_cpus;
pub use cpu::{HeldCore, hold_core};

/// How a match is placed on the CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Placement {
    /// The referee and its bots share one CPU that no other allfives process holds; unpinned
    /// if every allowed CPU is held. A bot that thinks on its opponent's time (or uses several
    /// threads) then takes that time from its opponent: use `free` for such bots.
    SameCore,
    /// Wherever the operating system's scheduler puts each process.
    Free,
}

impl Placement {
    /// Places the calling thread (and every process it starts afterwards) as `self` says: with
    /// `same-core`, a CPU held until the answer is dropped; `None` when running unpinned (also
    /// when no CPU could be held, which is no error: the scheduler then places things).
    pub fn hold(self) -> Option<HeldCore> {
        match self {
            Placement::SameCore => hold_core().unwrap_or_else(|e| {
                tracing::debug!(%e, "could not hold a CPU: running unpinned");
                None
            }),
            Placement::Free => None,
        }
    }
}
