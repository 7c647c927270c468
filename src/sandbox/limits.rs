//! Resource limits, set in the bot between fork and exec. No core dumps ever (a dump of a bot
//! is no business of the referee's folder); memory and processes when asked.

use super::report::Limits;

/// The limits asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ResourceLimits {
    /// The most data memory (heap and private writable mappings), in bytes.
    pub memory: Option<u64>,
    /// The most processes (and threads) the bot may have at once.
    pub processes: Option<u64>,
}

impl ResourceLimits {
    /// Sets the limits on this process; returns the [`Limits`] mask of those set. Raw calls
    /// only: this runs between fork and exec.
    pub(super) fn apply(&self) -> u32 {
        let mut mask = 0;
        set(libc::RLIMIT_CORE, 0);
        // RLIMIT_DATA, not RLIMIT_AS: a JVM reserves far more address space than it uses.
        if let Some(bytes) = self.memory
            && set(libc::RLIMIT_DATA, bytes)
        {
            mask |= Limits::MEMORY;
        }
        // In the bot's own user namespace this counts the bot's processes only.
        if let Some(n) = self.processes
            && set(libc::RLIMIT_NPROC, n)
        {
            mask |= Limits::PROCESSES;
        }
        mask
    }
}

fn set(resource: libc::__rlimit_resource_t, value: u64) -> bool {
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: setrlimit reads the struct it is given.
    unsafe { libc::setrlimit(resource, &limit) == 0 }
}
