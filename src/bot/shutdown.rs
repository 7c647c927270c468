//! The registry of live bot process groups, so that an interrupted referee can kill them all.
//!
//! Bots run in their own process groups and so do not receive the terminal's Ctrl-C; the
//! referee traps it and kills every group it still owns.

use std::collections::HashSet;
use std::sync::Mutex;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

static GROUPS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// Records a live group.
pub fn register(pgid: Pid) {
    if let Ok(mut groups) = GROUPS.lock() {
        groups
            .get_or_insert_with(HashSet::new)
            .insert(pgid.as_raw());
    }
}

/// Forgets a group that has been reaped.
pub fn unregister(pgid: Pid) {
    if let Ok(mut groups) = GROUPS.lock()
        && let Some(set) = groups.as_mut()
    {
        set.remove(&pgid.as_raw());
    }
}

/// Sends SIGKILL to every live group; returns how many there were.
pub fn kill_all() -> usize {
    let Ok(mut groups) = GROUPS.lock() else {
        return 0;
    };
    let set = groups.take().unwrap_or_default();
    for &pgid in &set {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
    set.len()
}
