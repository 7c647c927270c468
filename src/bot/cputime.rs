//! The CPU time a bot's processes have used: the clock of `--clock cpu`. It sums, over the
//! bot's process and all its descendants, each one's CPU clock (all its threads, to the
//! nanosecond) and the time of the children it has already reaped.

use std::collections::BTreeSet;
use std::fs;
use std::time::Duration;

/// The CPU time used so far by process `pid` and every process below it; `None` if `pid` is
/// gone.
pub fn tree_cpu(pid: u32) -> Option<Duration> {
    let mut total = process_cpu(pid)?;
    let mut seen = BTreeSet::from([pid]);
    let mut todo = children(pid);
    while let Some(p) = todo.pop() {
        if seen.insert(p) {
            total += process_cpu(p).unwrap_or_default();
            todo.extend(children(p));
        }
    }
    Some(total)
}

/// One process's CPU time: its own (every thread) and that of its reaped children.
fn process_cpu(pid: u32) -> Option<Duration> {
    let mut clock: libc::clockid_t = 0;
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: both calls write only the values they are given.
    let own = unsafe {
        libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) == 0
            && libc::clock_gettime(clock, &mut now) == 0
    };
    if !own {
        return None;
    }
    let own = Duration::new(now.tv_sec as u64, now.tv_nsec as u32);
    Some(own + reaped_children(pid))
}

/// The CPU time of the children `pid` has waited for (`cutime` and `cstime` in
/// `/proc/PID/stat`, in clock ticks).
fn reaped_children(pid: u32) -> Duration {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return Duration::ZERO;
    };
    // The fields after the command name (which may hold spaces) start with the state (3rd).
    let Some(after) = stat.rfind(')') else {
        return Duration::ZERO;
    };
    let fields: Vec<&str> = stat[after + 1..].split_whitespace().collect();
    let ticks: u64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf has no side effects.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(ticks * 1_000_000_000 / per_second)
}

/// The children of every thread of `pid`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_descendant_is_counted() {
        // The loop runs in a subshell: a grandchild of this test, then a reaped child.
        let mut child = std::process::Command::new("sh")
            .args([
                "-c",
                "(i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done); sleep 30",
            ])
            .spawn()
            .expect("sh starts");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut used = Duration::ZERO;
        while used < Duration::from_millis(20) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
            used = tree_cpu(child.id()).expect("the child exists");
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(used >= Duration::from_millis(20), "{used:?}");
    }
}
