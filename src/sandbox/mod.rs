//! Fair play: a bot touches the game only through its own stdin and stdout.
//!
//! Each bot starts inside its own user, PID, mount and network namespaces, under a Landlock
//! ruleset, with resource limits. Nothing here needs root, and whatever the kernel refuses is
//! done without and said so ([`Protections`]). `docs/fair-play.md` explains the choices.
//!
//! The referee's child is a small *keeper* process that dies with the referee; it forks the
//! namespace's *init*, which forks the bot ([`reaper`]); the bot restricts itself and execs.

pub mod files;
pub mod grants;
mod landlock;
pub mod limits;
mod namespaces;
pub mod protections;
mod reaper;
pub mod report;

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

pub use grants::{Grants, grants};
pub use limits::ResourceLimits;
pub use protections::Protections;
pub use report::Report;

use report::{LANDLOCK, LIMITS, MOUNTS, Mounts, NAMESPACES, Namespaces};

/// How bots are contained.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Contain them at all (`--no-sandbox` turns it off).
    pub enabled: bool,
    /// Let them use the network.
    pub network: bool,
    /// Memory and process limits.
    pub limits: ResourceLimits,
    /// Folders no bot may read or write (the logs).
    pub hidden: Vec<PathBuf>,
}

impl Policy {
    /// The default: contained, no network, no limits but core dumps; `hidden` kept out of reach.
    pub fn contained(hidden: Vec<PathBuf>) -> Policy {
        Policy {
            enabled: true,
            network: false,
            limits: ResourceLimits::default(),
            hidden,
        }
    }
}

/// A bot's containment, from before its spawn until its end: reads the report pipe.
pub struct Containment {
    reader: report::Reader,
    /// The write end, held until the spawn is done.
    writer: Option<OwnedFd>,
    report: Report,
}

/// Prepares `command` (the bot's `argv`) to start contained by `policy`; `None` when the policy
/// is off. After the spawn, call [`Containment::spawned`].
pub fn contain(
    command: &mut std::process::Command,
    argv: &[String],
    policy: &Policy,
) -> io::Result<Option<Containment>> {
    if !policy.enabled {
        return Ok(None);
    }
    let grants = grants(argv, &policy.hidden);
    let mut ruleset = landlock::prepare(&grants, policy.network)?;
    let (reader, writer) = report::pipe()?;
    let w = writer.as_raw_fd();
    let maps = namespaces::IdMaps::current();
    let referee = std::process::id() as libc::pid_t;
    let network = policy.network;
    let limits = policy.limits;
    let private_tmp = !grants.lives_in_tmp;
    let bot_setup = move || -> io::Result<()> {
        // Everything below runs between fork and exec: raw calls on data prepared above.
        if !reaper::die_with_parent(referee) {
            // SAFETY: ends this just-forked child at once.
            unsafe { libc::_exit(1) };
        }
        let ns = namespaces::enter(network, &maps);
        report::put(w, NAMESPACES, ns);
        let mut mounts = 0;
        if ns & Namespaces::PID != 0 {
            // SAFETY: fork in a single-threaded child; each side only makes raw calls.
            match unsafe { libc::fork() } {
                -1 => return Err(io::Error::last_os_error()),
                0 => {}
                init => reaper::keep(init),
            }
            reaper::die_with_parent(0);
            if ns & Namespaces::MOUNT != 0 {
                mounts = namespaces::mount_private(private_tmp);
            }
            report::put(w, MOUNTS, mounts);
            // SAFETY: as above; this process is PID 1 of the new namespace.
            match unsafe { libc::fork() } {
                -1 => return Err(io::Error::last_os_error()),
                0 => {}
                bot => reaper::init(bot, w),
            }
        }
        report::put(w, LIMITS, limits.apply());
        let landlock = ruleset.restrict(mounts & Mounts::TMP != 0, mounts & Mounts::PROC != 0);
        report::put(w, LANDLOCK, landlock);
        Ok(())
    };
    // SAFETY: the closure makes only async-signal-safe calls (see above) and never returns in
    // the keeper or the init, which end with _exit.
    unsafe { command.pre_exec(bot_setup) };
    Ok(Some(Containment {
        reader,
        writer: Some(writer),
        report: Report::default(),
    }))
}

impl Containment {
    /// After the spawn: closes the referee's copy of the write end and reads what the bot's
    /// start reported (it is all there: the spawn returns once the bot has exec'd).
    pub fn spawned(&mut self) -> Report {
        self.writer = None;
        self.reader.drain(&mut self.report);
        self.report
    }

    /// Everything reported so far (after the keeper has exited, that includes the bot's end).
    pub fn report(&mut self) -> Report {
        self.reader.drain(&mut self.report);
        self.report
    }
}

/// What a contained process gets on this machine: starts a throwaway contained process (the
/// referee itself, printing its version) and reads its report.
pub fn probe(policy: &Policy) -> io::Result<Report> {
    let exe = std::env::current_exe()?;
    let argv = vec![exe.display().to_string(), "--version".to_string()];
    let mut command = std::process::Command::new(&exe);
    command
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let Some(mut containment) = contain(&mut command, &argv, policy)? else {
        return Ok(Report::default());
    };
    let mut child = command.spawn()?;
    containment.spawned();
    child.wait()?;
    Ok(containment.report())
}
