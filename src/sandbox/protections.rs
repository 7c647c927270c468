//! The protections in force, in words: printed with `-v` and recorded in each log's header.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Policy;
use super::grants::Grants;
use super::identity::Identity;
use super::report::{Limits, Mounts, Namespaces, Report};

/// What protects the game from its bots, and what could not be had here (and why).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protections {
    /// Whether bots were contained at all (false with `--no-sandbox`).
    pub sandbox: bool,
    /// The protections in force, one phrase each.
    pub in_force: Vec<String>,
    /// What could not be had, and why, one sentence each.
    pub missing: Vec<String>,
    /// What each bot is kept from (shown with `-v`; not in the logs, whose bytes must not
    /// depend on where they are written).
    #[serde(skip)]
    pub hidden: Vec<String>,
    /// What makes a bot's starts slow that its organiser can change, one sentence each (said
    /// with or without `-v`; not in the logs either).
    #[serde(skip)]
    pub notes: Vec<String>,
}

/// From this many earlier runs hidden one by one in what a bot sees, its starts cost a few
/// milliseconds more (about 5 us each, docs/fair-play.md): said in a note.
const EARLIER_NOTE: usize = 1000;

impl Protections {
    /// Reads a contained process's report (see [`super::probe`]); `bots` are the bots' names and
    /// grants, for what each may touch beyond the default and what it runs as.
    pub fn from_report(policy: &Policy, report: &Report, bots: &[(String, Grants)]) -> Protections {
        if !policy.enabled {
            return Protections {
                sandbox: false,
                in_force: vec!["none: --no-sandbox".into()],
                missing: Vec::new(),
                hidden: Vec::new(),
                notes: Vec::new(),
            };
        }
        let mut p = Protections {
            sandbox: true,
            in_force: Vec::new(),
            missing: Vec::new(),
            hidden: Vec::new(),
            notes: Vec::new(),
        };
        let ns = report.namespaces.unwrap_or(0);
        let mounts = report.mounts.unwrap_or(0);
        p.either(
            ns & Namespaces::PID != 0,
            "PID namespace: a bot sees only its own processes, and they all end with it",
            "no PID namespace (the kernel refused it, and a user namespace to make it without \
             root): a bot's setsid or double-forked children can outlive it, and it can see \
             other processes",
        );
        p.either(
            mounts & Mounts::HIDDEN != 0 && ns & Namespaces::MOUNT != 0,
            "its own root (pivot_root): only the system's folders, its own and what it is \
             granted exist for it (the logs and other bots' folders inside them hidden); nothing \
             writable but the bot's own /tmp",
            "no root of its own (the kernel refused a mount namespace or pivot_root): Landlock \
             alone keeps a bot to what it may see, and bots have no /tmp",
        );
        if ns & Namespaces::MOUNT != 0 && mounts & Mounts::BINDS == 0 {
            p.missing.push(
                "a folder a bot needs could not be bound into its view (see -v for the bot; \
                 --no-sandbox if it cannot start)"
                    .into(),
            );
        }
        p.either(
            mounts & Mounts::READ_ONLY != 0,
            "the files read-only",
            "the files could not be made read-only: a bot writes what Landlock lets it",
        );
        p.either(
            mounts & Mounts::TMP != 0 && mounts & Mounts::SHM != 0,
            &format!(
                "private /tmp and /dev/shm ({} MiB each, saved next to the bot's stderr file)",
                policy.tmp_bytes >> 20
            ),
            "no private /tmp or /dev/shm: bots are not granted them",
        );
        p.either(
            mounts & Mounts::PROC != 0,
            "private /proc",
            "no private /proc (no mount namespace, or the kernel refused to mount one): bots \
             are not granted /proc",
        );
        p.either(
            ns & Namespaces::IPC != 0,
            "own IPC namespace (no shared System V memory, semaphores or queues)",
            "no IPC namespace: bots can share System V memory and queues",
        );
        if !policy.network {
            p.either(
                ns & Namespaces::NET != 0,
                "no network (own network namespace; the host's Unix sockets covered)",
                "no network namespace: only TCP is closed (by Landlock, if available)",
            );
        }
        p.landlock(report.landlock.unwrap_or(0));
        if policy.real_locks {
            p.missing.push(
                "file locks and watches (inotify) take effect (--bot-locks): partners can signal \
                 through locks on a file both read, or watch each other open it"
                    .into(),
            );
        }
        let seccomp = match policy.real_locks {
            true => "seccomp: the page cache's probes and the key calls refused and counted",
            false => {
                "seccomp: file locks take no effect and file watches are refused (no signalling \
                 through a file both partners read); the page cache's probes and the key calls \
                 refused and counted"
            }
        };
        p.either(
            report.seccomp == Some(true),
            seccomp,
            "no seccomp filter (the kernel refused it): partners can signal through locks on a \
             file both read, and a bot can probe the page cache and use keyrings",
        );
        p.either(
            report.keyring == Some(true),
            "a fresh, empty session keyring for each bot",
            "no session keyring of its own (the kernel refused it): a bot can reach the \
             referee's (it cannot use it while the seccomp filter is in force)",
        );
        p.in_force
            .push("no core dumps; no descriptor of the referee's inherited".into());
        p.limits(policy, report.limits.unwrap_or(0), bots);
        for (name, grants) in bots {
            p.bot(name, grants);
        }
        p.slow_starts(bots);
        p
    }

    /// A note for the bots whose starts work around many earlier runs, one for each such set
    /// of runs (bots of one folder share theirs).
    fn slow_starts(&mut self, bots: &[(String, Grants)]) {
        let mut by_runs: Vec<(&BTreeSet<PathBuf>, Vec<&str>)> = Vec::new();
        for (name, grants) in bots.iter().filter(|(_, g)| g.earlier.len() >= EARLIER_NOTE) {
            match by_runs
                .iter_mut()
                .find(|(runs, _)| **runs == grants.earlier)
            {
                Some((_, names)) => names.push(name),
                None => by_runs.push((&grants.earlier, vec![name])),
            }
        }
        for (runs, names) in by_runs {
            let first = runs
                .first()
                .map_or(String::new(), |f| f.display().to_string());
            self.notes.push(format!(
                "what {} {} holds the output of {} earlier runs, each hidden on its own \
                 ({first}, ...): each start works around every one (about 5 us each); keep \
                 logs outside the bots' folders, or all in one folder of their own, which is \
                 hidden whole",
                names.join(" and "),
                if names.len() == 1 { "sees" } else { "see" },
                runs.len()
            ));
        }
    }

    fn limits(&mut self, policy: &Policy, limits: u32, bots: &[(String, Grants)]) {
        if let Some(bytes) = policy.limits.memory {
            self.either(
                limits & Limits::MEMORY != 0,
                &format!("memory limit {} MiB per bot process", bytes >> 20),
                "the memory limit could not be set",
            );
        }
        if let Some(n) = policy.limits.processes {
            self.either(
                limits & Limits::PROCESSES != 0,
                &format!("process limit {n} per bot"),
                "the process limit could not be set",
            );
            for (name, grants) in bots {
                if super::identity_of(grants).0 == Identity::RootWithoutCapabilities {
                    self.missing.push(format!(
                        "{name}: the process limit does not bind a bot run as root"
                    ));
                }
            }
        }
    }

    /// What one bot may touch beyond the default, and who it runs as.
    fn bot(&mut self, name: &str, grants: &Grants) {
        let list = |paths: &BTreeSet<PathBuf>| {
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !grants.write.is_empty() {
            self.in_force
                .push(format!("{name} may write {}", list(&grants.write)));
        }
        if !grants.granted.is_empty() {
            self.in_force
                .push(format!("{name} may read {}", list(&grants.granted)));
        }
        let own: std::collections::BTreeSet<std::path::PathBuf> = grants
            .roots()
            .into_iter()
            .filter(|p| !super::view::system_folders().any(|s| p.starts_with(s)))
            .collect();
        self.hidden.push(format!(
            "{name} sees only the system's folders and {} (nothing else of the host exists for \
             it)",
            list(&own)
        ));
        let (earlier, now): (BTreeSet<PathBuf>, BTreeSet<PathBuf>) = grants
            .hidden
            .iter()
            .cloned()
            .partition(|h| grants.earlier.contains(h));
        if !now.is_empty() {
            self.hidden
                .push(format!("hidden from {name}: {}", list(&now)));
        }
        if let Some(first) = earlier.first() {
            // Named by the first alone: a bot's folder may hold thousands.
            let how = match super::landlock::keeps_out(grants, first) {
                true => "kept out by Landlock",
                false => "each covered by an empty folder",
            };
            self.hidden.push(format!(
                "hidden from {name}: the output of {} in what it sees ({}{}), {how}",
                crate::text::count(earlier.len() as u64, "earlier run"),
                first.display(),
                if earlier.len() > 1 { ", ..." } else { "" }
            ));
        }
        if !grants.carved.is_empty() {
            self.hidden.push(format!(
                "{name} sees in {} only the entries that were there before the run, not the \
                 allfives files",
                list(&grants.carved)
            ));
        }
        match super::identity_of(grants) {
            (Identity::Unprivileged(_), _) => self.in_force.push(format!(
                "{name} runs as an unprivileged user of its own (the referee runs as root)"
            )),
            (_, Some(note)) => self.missing.push(format!("{name} {note}")),
            _ => {}
        }
    }

    fn either(&mut self, had: bool, in_force: &str, missing: &str) {
        match had {
            true => self.in_force.push(in_force.to_string()),
            false => self.missing.push(missing.to_string()),
        }
    }

    fn landlock(&mut self, outcome: u32) {
        let (level, abi) = (outcome % 16, outcome / 16);
        match level {
            0 => self.missing.push(
                "no Landlock (not in this kernel, or not enabled): the mounts alone keep the \
                 logs from the bots"
                    .into(),
            ),
            _ => {
                self.in_force.push(format!(
                    "Landlock ABI {abi}: the same allow-list, writing, ptrace and /proc/PID of \
                     others"
                ));
                if abi >= 6 {
                    self.in_force
                        .push("Landlock scopes: no signals, no abstract sockets outside".into());
                } else {
                    self.missing.push(format!(
                        "Landlock ABI {abi} does not scope signals and abstract sockets (ABI 6 \
                         does); the PID namespace still hides other processes"
                    ));
                }
            }
        }
    }

    /// One line for the terminal.
    pub fn summary(&self) -> String {
        let mut text = format!("protections: {}", self.in_force.join("; "));
        if !self.missing.is_empty() {
            text.push_str(&format!("\nnot in force: {}", self.missing.join("; ")));
        }
        for line in &self.hidden {
            text.push_str(&format!("\n{line}"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_earlier(runs: usize) -> Grants {
        Grants {
            earlier: (0..runs)
                .map(|n| PathBuf::from(format!("/b/results/{n}/logs")))
                .collect(),
            ..Grants::default()
        }
    }

    #[test]
    fn many_earlier_runs_in_a_bots_folder_are_one_note_for_the_bots_that_share_them() {
        let policy = Policy::contained(Vec::new());
        let bots = [
            ("a".to_string(), with_earlier(EARLIER_NOTE)),
            ("b".to_string(), with_earlier(EARLIER_NOTE)),
            ("c".to_string(), with_earlier(EARLIER_NOTE - 1)),
        ];
        let p = Protections::from_report(&policy, &Report::default(), &bots);
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(
            p.notes[0].starts_with("what a and b see holds the output of 1000 earlier runs"),
            "{}",
            p.notes[0]
        );
    }
}
