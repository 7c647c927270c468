//! Holding one CPU: pin the calling thread to a CPU that no other allfives process holds, so
//! that every process it starts afterwards runs there too.
//!
//! Holding is an advisory lock on a file per CPU in the temporary directory
//! (`allfives-cpu-N.lock`): the operating system releases it when the process ends, however it
//! ends. The file is never written.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use nix::sched::{CpuSet, sched_getaffinity, sched_getcpu, sched_setaffinity};
use nix::unistd::Pid;

/// A CPU held by this process: the calling thread runs only there until this is dropped, which
/// gives the CPU back and restores the thread's earlier CPUs.
#[derive(Debug)]
pub struct HeldCore {
    cpu: usize,
    before: CpuSet,
    _lock: File,
}

impl HeldCore {
    /// The CPU's number.
    pub fn cpu(&self) -> usize {
        self.cpu
    }
}

impl Drop for HeldCore {
    fn drop(&mut self) {
        let _ = sched_setaffinity(Pid::from_raw(0), &self.before);
    }
}

/// Pins the calling thread to one of its allowed CPUs that no other allfives process holds,
/// trying the one it runs on first. `None` when it may run on one CPU only anyway, or when
/// every allowed CPU is held (then the scheduler places things as it likes).
pub fn hold_core() -> io::Result<Option<HeldCore>> {
    let me = Pid::from_raw(0);
    let before = sched_getaffinity(me)?;
    let allowed: Vec<usize> = (0..CpuSet::count())
        .filter(|&cpu| before.is_set(cpu).unwrap_or(false))
        .collect();
    if allowed.len() < 2 {
        return Ok(None);
    }
    let here = sched_getcpu().ok();
    let mut order: Vec<usize> = here.filter(|c| allowed.contains(c)).into_iter().collect();
    order.extend(allowed.iter().copied().filter(|&c| Some(c) != here));
    for cpu in order {
        let Some(lock) = lock(cpu) else { continue };
        let mut only = CpuSet::new();
        only.set(cpu)?;
        sched_setaffinity(me, &only)?;
        tracing::debug!(cpu, "holding a CPU for the match");
        return Ok(Some(HeldCore {
            cpu,
            before,
            _lock: lock,
        }));
    }
    tracing::debug!("every allowed CPU is held by another allfives: running unpinned");
    Ok(None)
}

/// The lock on `cpu`'s file, if no other process holds it.
fn lock(cpu: usize) -> Option<File> {
    let path = lock_path(cpu);
    // Append never truncates; no symlink is followed. Another user's file opens read-only,
    // which is enough to lock it.
    let file = OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(&path)
        .or_else(|_| {
            OpenOptions::new()
                .read(true)
                .custom_flags(nix::libc::O_NOFOLLOW)
                .open(&path)
        })
        .ok()?;
    file.try_lock().ok()?;
    Some(file)
}

fn lock_path(cpu: usize) -> PathBuf {
    std::env::temp_dir().join(format!("allfives-cpu-{cpu}.lock"))
}
