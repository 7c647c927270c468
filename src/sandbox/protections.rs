//! The protections in force, in words: printed with `-v` and recorded in each log's header.

use serde::{Deserialize, Serialize};

use super::Policy;
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
}

impl Protections {
    /// Reads a contained process's report (see [`super::probe`]); `notes` are the grants held
    /// back from particular bots.
    pub fn from_report(policy: &Policy, report: &Report, notes: Vec<String>) -> Protections {
        if !policy.enabled {
            return Protections {
                sandbox: false,
                in_force: vec!["none: --no-sandbox".into()],
                missing: Vec::new(),
            };
        }
        let mut p = Protections {
            sandbox: true,
            in_force: Vec::new(),
            missing: notes,
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
            mounts & Mounts::PROC != 0,
            "private /proc",
            "no private /proc (no mount namespace, or the kernel refused to mount one): bots \
             are not granted /proc",
        );
        p.either(
            mounts & Mounts::TMP != 0,
            "private /tmp",
            "no private /tmp (no mount namespace, or a bot's files live under /tmp): bots are \
             not granted /tmp",
        );
        if !policy.network {
            p.either(
                ns & Namespaces::NET != 0,
                "no network (own network namespace)",
                "no network namespace: only TCP is closed (by Landlock, if available)",
            );
        }
        p.landlock(report.landlock.unwrap_or(0));
        p.in_force.push("no core dumps".into());
        let limits = report.limits.unwrap_or(0);
        if let Some(bytes) = policy.limits.memory {
            p.either(
                limits & Limits::MEMORY != 0,
                &format!("memory limit {} MiB per bot process", bytes >> 20),
                "the memory limit could not be set",
            );
        }
        if let Some(n) = policy.limits.processes {
            p.either(
                limits & Limits::PROCESSES != 0,
                &format!("process limit {n} per bot"),
                "the process limit could not be set",
            );
            // SAFETY: geteuid cannot fail.
            if unsafe { libc::geteuid() } == 0 {
                p.missing
                    .push("the process limit does not bind bots run by root".into());
            }
        }
        p
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
                "no Landlock (not in this kernel, or not enabled): a bot can read and write \
                 whatever the user can, the logs included"
                    .into(),
            ),
            _ => {
                self.in_force.push(format!(
                    "Landlock ABI {abi}: files (the system, the bot's program and files only), \
                     ptrace and /proc/PID of others"
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
        text
    }
}
