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
mod hold;
mod identity;
mod landlock;
pub mod limits;
mod mounts;
mod namespaces;
pub mod outputs;
pub mod probes;
pub mod protections;
mod reaper;
pub mod report;
pub mod scratch;
mod seccomp;
mod view;

use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use grants::{Grants, Wants, grants, homes};
pub use identity::Identity;
pub use limits::ResourceLimits;
pub use probes::{Probed, Tally};
pub use protections::Protections;
pub use reaper::{init_early, init_main, is_init};
pub use report::Report;

use report::{
    IDENTITY, INIT, KEYRING, LANDLOCK, LIMITS, MOUNTS, Mounts, NAMESPACES, Namespaces, SECCOMP,
};

/// The default size of a bot's private `/tmp` (and of its `/dev/shm`), in MiB.
pub const DEFAULT_TMP_MIB: u64 = 64;

/// How bots are contained.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Policy {
    /// Contain them at all (`--no-sandbox` turns it off).
    pub enabled: bool,
    /// Let them use the network.
    pub network: bool,
    /// Let their file locks and watches take effect (`--bot-locks`): partners can then signal
    /// through locks on a file both read, or watch each other open it (inotify); for trusted
    /// bots that lock files across processes of their own (SQLite written by several
    /// processes). The rest of the seccomp filter stays.
    pub real_locks: bool,
    /// Memory and process limits.
    pub limits: ResourceLimits,
    /// Folders no bot may read or write (the logs and results).
    pub hidden: Vec<PathBuf>,
    /// The folders of every bot's own files ([`homes`]): each is hidden from the other bots.
    pub homes: Vec<PathBuf>,
    /// Folders every bot may also read (`--bot-read`).
    pub read: Vec<PathBuf>,
    /// Folders every bot may also write (`--bot-write`).
    pub write: Vec<PathBuf>,
    /// The size of each bot's private `/tmp` and `/dev/shm`, in bytes.
    pub tmp_bytes: u64,
    /// `Some`: bots get only these variables of the referee's environment (`--bot-env clean`),
    /// contained or not; `None`: all of it.
    pub clean_env: Option<Vec<String>>,
    /// The `allfives` program, which a bot's init execs afresh as `allfives-init` (no argument,
    /// no environment: a bot reading `/proc/1/cmdline` learns nothing). `None` (a program that
    /// only embeds this library) leaves the init a fork of that program.
    pub init_program: Option<PathBuf>,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            enabled: false,
            network: false,
            real_locks: false,
            limits: ResourceLimits::default(),
            hidden: Vec::new(),
            homes: Vec::new(),
            read: Vec::new(),
            write: Vec::new(),
            tmp_bytes: DEFAULT_TMP_MIB << 20,
            clean_env: None,
            init_program: None,
        }
    }
}

impl Policy {
    /// The default: contained, no network, no limits but core dumps; `hidden` kept out of reach.
    pub fn contained(hidden: Vec<PathBuf>) -> Policy {
        Policy {
            enabled: true,
            hidden,
            ..Policy::default()
        }
    }

    /// What a bot with `argv`, started in `dir`, granted `read` and `write` besides the
    /// policy's, may touch. Worked out at its first start, and kept for the others: its
    /// folders, and the registry of earlier runs, are looked at once per bot and run.
    pub fn grants(
        &self,
        argv: &[String],
        dir: &Path,
        read: &[PathBuf],
        write: &[PathBuf],
    ) -> Grants {
        type Key = (Vec<String>, PathBuf, Vec<PathBuf>, Vec<PathBuf>, Policy);
        static KNOWN: Mutex<Option<HashMap<Key, Grants>>> = Mutex::new(None);
        let key: Key = (
            argv.to_vec(),
            dir.to_path_buf(),
            read.to_vec(),
            write.to_vec(),
            self.clone(),
        );
        let known = |k: &Key| {
            let table = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
            table.as_ref().and_then(|t| t.get(k).cloned())
        };
        if let Some(grants) = known(&key) {
            return grants;
        }
        let read: Vec<PathBuf> = self.read.iter().chain(read).cloned().collect();
        let write: Vec<PathBuf> = self.write.iter().chain(write).cloned().collect();
        let wants = Wants {
            argv,
            dir,
            read: &read,
            write: &write,
        };
        let earlier = outputs::earlier();
        let made = grants::remembering(|| grants(&wants, &self.hidden, &earlier, &self.homes));
        let mut table = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
        table
            .get_or_insert_with(HashMap::new)
            .insert(key, made.clone());
        made
    }
}

/// Who a bot with `grants` runs as, and why, when it keeps root's user.
pub fn identity_of(grants: &Grants) -> (Identity, Option<String>) {
    identity::choose(grants)
}

/// A bot's containment, from before its spawn until its end: reads the report pipe.
pub struct Containment {
    reader: report::Reader,
    /// The write end, held until the spawn is done.
    writer: Option<OwnedFd>,
    report: Report,
    /// The bot's private /tmp, reached through its init while it lives, kept open to save what
    /// the bot wrote there once it has ended.
    tmp: Option<OwnedFd>,
    /// The control pipe to the init: the referee's end (where the init listens) and the
    /// init's end (closed here once the spawn is done).
    control: Option<OwnedFd>,
    control_init: Option<OwnedFd>,
}

/// What the init is asked: to stop every process of the bot, or to continue them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// Stop every process of the bot, and say once all are stopped.
    Hold,
    /// Continue them.
    Go,
}

/// What every start of one bot shares, worked out at its first start: who it runs as, its
/// root, its Landlock rules.
struct Shared {
    identity: Identity,
    plan: mounts::Plan,
    rules: landlock::Rules,
    /// Whether some of what is hidden is kept out by Landlock alone ([`landlock::keeps_out`]):
    /// then a start whose Landlock does not take hold must not run.
    landlock_alone: bool,
}

impl Shared {
    /// The shared part for `grants` under `policy`, made once.
    fn of(grants: &Grants, policy: &Policy) -> Arc<Shared> {
        type Key = (Grants, bool, u64);
        static KNOWN: Mutex<Option<HashMap<Key, Arc<Shared>>>> = Mutex::new(None);
        let key: Key = (grants.clone(), policy.network, policy.tmp_bytes);
        let known = KNOWN
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .and_then(|t| t.get(&key).cloned());
        if let Some(shared) = known {
            return shared;
        }
        let (identity, _) = identity::choose(grants);
        let shared = Arc::new(Shared {
            identity,
            plan: mount_plan(grants, policy, identity),
            rules: landlock::Rules::new(grants, policy.network),
            landlock_alone: grants
                .earlier
                .iter()
                .any(|e| landlock::keeps_out(grants, e)),
        });
        let mut table = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
        table
            .get_or_insert_with(HashMap::new)
            .insert(key, Arc::clone(&shared));
        shared
    }
}

/// Prepares `command` to start contained by `policy` with `grants` (see [`Policy::grants`]);
/// `None` when the policy is off. What the bot tries and is refused is counted in `tally`
/// (see [`probes`]). After the spawn, call [`Containment::spawned`].
pub fn contain(
    command: &mut std::process::Command,
    grants: &Grants,
    policy: &Policy,
    tally: Option<&Tally>,
) -> io::Result<Option<Containment>> {
    if !policy.enabled {
        return Ok(None);
    }
    let shared = Shared::of(grants, policy);
    let landlock_alone = shared.landlock_alone;
    // Each start a user of its own (root's bots): its process limit counts its processes only.
    let identity = match shared.identity {
        Identity::Unprivileged(_) => Identity::Unprivileged(identity::fresh_id()),
        other => other,
    };
    let mut ruleset = shared.rules.ruleset()?;
    let mut fds = vec![-1; shared.plan.binds()];
    let filter = seccomp::prepare(!policy.real_locks)?;
    let tally = tally.map_or(-1, Tally::fd);
    let (reader, writer) = report::pipe()?;
    let w = writer.as_raw_fd();
    let (control_init, control) = control_pipe()?;
    let c = control_init.as_raw_fd();
    let maps = identity::IdMaps::current();
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    let cwd = std::ffi::CString::new(grants.cwd.as_os_str().as_encoded_bytes()).unwrap_or_default();
    let referee = std::process::id() as libc::pid_t;
    let network = policy.network;
    let limits = policy.limits;
    let init_exec = policy
        .init_program
        .as_deref()
        .and_then(reaper::InitExec::open);
    let (exec, exe_fd) = match init_exec {
        Some((exec, fd)) => (Some(exec), Some(fd)),
        None => (None, None),
    };
    let bot_setup = move || -> io::Result<()> {
        // Everything below runs between fork and exec: raw calls on data prepared above.
        let _keep_open = &exe_fd;
        if !reaper::die_with_parent(referee) {
            // SAFETY: ends this just-forked child at once.
            unsafe { libc::_exit(1) };
        }
        identity::before_namespaces(identity);
        let ns = namespaces::enter(network, root, &maps);
        report::put_all(w, &[(NAMESPACES, ns), (KEYRING, fresh_session_keyring())]);
        let mut mounts = 0;
        let mut filtered = false;
        if ns & Namespaces::PID != 0 {
            let lifeline = reaper::Lifeline::new()?;
            // SAFETY: fork in a single-threaded child; each side only makes raw calls.
            match unsafe { libc::fork() } {
                -1 => return Err(io::Error::last_os_error()),
                0 => {}
                init => {
                    report::put(w, INIT, init as u32);
                    reaper::keep(init, lifeline)
                }
            }
            reaper::die_with_keeper(lifeline);
            if ns & Namespaces::MOUNT != 0 {
                mounts = shared.plan.apply(&mut fds);
            }
            // The init installs the filter, listening for the counted calls; the bot
            // inherits it.
            let listener = filter.install_listening();
            filtered = listener.is_some();
            report::put_all(w, &[(MOUNTS, mounts), (SECCOMP, u32::from(filtered))]);
            let watch = listener.map(|listener| reaper::Watch { listener, tally });
            // SAFETY: as above; this process is PID 1 of the new namespace.
            match unsafe { libc::fork() } {
                -1 => return Err(io::Error::last_os_error()),
                0 => {}
                bot => reaper::init(bot, w, exec.as_ref(), watch, c),
            }
        }
        if mounts != 0 {
            // The working directory as the new root shows it (the one inherited is the host's).
            // SAFETY: chdir with a NUL-terminated path prepared before the fork.
            unsafe { libc::chdir(cwd.as_ptr()) };
        }
        let became = identity::become_bot(identity::reachable(identity, mounts));
        if !became {
            report::put(w, IDENTITY, 0);
            // SAFETY: a bot that could not shed root's powers must not run.
            unsafe { libc::_exit(126) };
        }
        let limited = limits.apply();
        let landlock = ruleset.restrict(
            mounts & Mounts::TMP != 0,
            mounts & Mounts::SHM != 0,
            mounts & Mounts::PROC != 0,
            mounts & Mounts::READ_ONLY != 0,
        );
        if landlock == 0 && landlock_alone {
            report::put(w, LANDLOCK, 0);
            // SAFETY: earlier runs' output in what the bot sees is kept out by Landlock
            // alone: without it the bot must not run.
            unsafe { libc::_exit(126) };
        }
        // One write for the bot's part of the report (the filter's, where its init has none).
        let seccomp = match filtered {
            true => None,
            false => Some(filter.install()),
        };
        let done = [(IDENTITY, 1), (LIMITS, limited), (LANDLOCK, landlock)];
        match seccomp {
            Some(s) => report::put_all(w, &[done[0], done[1], done[2], (SECCOMP, s)]),
            None => report::put_all(w, &done),
        }
        // Descriptors the referee inherited (a shell's `3<secret`) must not reach the bot.
        // SAFETY: marks this process's own descriptors above stderr close-on-exec.
        unsafe {
            libc::close_range(
                3,
                libc::c_uint::MAX,
                libc::CLOSE_RANGE_CLOEXEC as libc::c_int,
            )
        };
        Ok(())
    };
    // SAFETY: the closure makes only async-signal-safe calls (see above) and never returns in
    // the keeper or the init, which end with _exit or exec.
    unsafe { command.pre_exec(bot_setup) };
    Ok(Some(Containment {
        reader,
        writer: Some(writer),
        report: Report::default(),
        tmp: None,
        control: Some(control),
        control_init: Some(control_init),
    }))
}

/// The control pipe ([`hold`]): the init's reading end, and the referee's writing end, which
/// never blocks. Both close-on-exec.
fn control_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two-element array it is given; both descriptors are new and
    // owned by nothing else; fcntl on one of them.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        libc::fcntl(fds[1], libc::F_SETFL, libc::O_NONBLOCK);
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// Leaves the session keyring this process inherited (a login session's, shared by every
/// process in it and outliving each) for a fresh, empty one of its own, which its init and bot
/// inherit: 1 if it did. Raw call only.
fn fresh_session_keyring() -> u32 {
    const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
    // SAFETY: keyctl with a null name (an anonymous keyring) changes only this process.
    let joined = unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_JOIN_SESSION_KEYRING,
            std::ptr::null::<libc::c_char>(),
        )
    };
    u32::from(joined >= 0)
}

/// What the init mounts for a bot with `grants` run as `identity`.
fn mount_plan(grants: &Grants, policy: &Policy, identity: Identity) -> mounts::Plan {
    // A carved folder is masked, its shown entries bound back into it.
    let read: Vec<PathBuf> = grants
        .read
        .iter()
        .chain(&grants.installs)
        .chain(&grants.shown)
        .cloned()
        .collect();
    let masks: Vec<PathBuf> = grants.carved.iter().cloned().collect();
    let write: Vec<PathBuf> = grants.write.iter().cloned().collect();
    let (hidden, files): (Vec<PathBuf>, Vec<PathBuf>) = grants
        .hidden
        .iter()
        .filter(|h| !landlock::keeps_out(grants, h))
        .cloned()
        .partition(|h| h.is_dir());
    let mut covered = match identity {
        Identity::RootWithoutCapabilities => secrets_of_root(),
        _ => Vec::new(),
    };
    // A hidden file (an earlier run's log beside a bot) is covered, not replaced by a folder.
    covered.extend(files);
    if !policy.network {
        // The host's sockets in what the bot sees (/run is not there), covered one by one.
        covered.extend(host_sockets(&grants.roots(), &hidden));
    }
    mounts::Plan::new(&mounts::Wanted {
        tmp_bytes: policy.tmp_bytes,
        read: &read,
        write: &write,
        masks: &masks,
        hidden: &hidden,
        covered: &covered,
    })
}
/// The files of `/etc` that only root may read (`shadow`, `sudoers`, ...): a bot that keeps
/// root's user (without capabilities) still owns them, so they are covered.
fn secrets_of_root() -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir("/etc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o004 == 0)
        })
        .map(|e| e.path())
        .collect()
}

/// The host's path-named sockets a bot could connect to (from `/proc/net/unix`): those in what
/// it sees (`roots`, sorted), but under a folder already hidden.
fn host_sockets(roots: &[PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(table) = std::fs::read_to_string("/proc/net/unix") else {
        return Vec::new();
    };
    let mut sockets: Vec<PathBuf> = table
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().nth(7))
        .filter(|p| p.starts_with('/'))
        .map(PathBuf::from)
        .filter(|p| {
            view::sees(roots, p)
                && !hidden.iter().any(|h| p.starts_with(h))
                && std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket())
        })
        .collect();
    sockets.sort();
    sockets.dedup();
    sockets
}

impl Containment {
    /// After the spawn: closes the referee's copy of the write end and reads what the bot's
    /// start reported (it is all there: the spawn returns once the bot has exec'd).
    pub fn spawned(&mut self) -> Report {
        self.writer = None;
        self.control_init = None;
        self.reader.drain(&mut self.report);
        if self.report.namespaces.unwrap_or(0) & Namespaces::PID == 0 {
            // No init: no one to hold the bot.
            self.control = None;
        }
        if self.report.mounts.unwrap_or(0) & Mounts::TMP != 0 {
            self.tmp = self.report.init.and_then(scratch::open);
        }
        self.report
    }

    /// Takes the bot's private /tmp (once), to save what the bot wrote there after its end.
    pub fn take_tmp(&mut self) -> Option<OwnedFd> {
        self.tmp.take()
    }

    /// Asks the init to hold or continue the bot (its answer then comes on the report pipe:
    /// [`answer`](Containment::answer)); false if it cannot be asked (no init, or it is gone).
    pub fn ask(&mut self, ask: Ask) -> bool {
        let Some(control) = &self.control else {
            return false;
        };
        self.report.held = None;
        self.report.going = None;
        let byte = match ask {
            Ask::Hold => hold::HOLD,
            Ask::Go => hold::GO,
        };
        // SAFETY: a one-byte write from a stack byte to a descriptor owned here.
        unsafe { libc::write(control.as_raw_fd(), (&byte as *const u8).cast(), 1) == 1 }
    }

    /// Whether the init can be asked to hold the bot (it has one, with a control pipe).
    pub fn can_hold(&self) -> bool {
        self.control.is_some()
    }

    /// The init's answer to the last [`ask`](Containment::ask), if it has come: whether it did
    /// what was asked.
    pub fn answer(&mut self, ask: Ask) -> Option<bool> {
        let ended = self.reader.drain(&mut self.report);
        let answer = match ask {
            Ask::Hold => self.report.held,
            Ask::Go => self.report.going,
        };
        // The init is gone without answering: the bot is gone with it.
        answer.or(ended.then_some(false))
    }

    /// The descriptor the init's answers come on, to wait on.
    pub fn answers_fd(&self) -> std::os::fd::RawFd {
        self.reader.fd()
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
    let here = std::env::current_dir()?;
    let grants = policy.grants(&argv, &here, &[], &[]);
    let mut command = std::process::Command::new(&exe);
    command
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let Some(mut containment) = contain(&mut command, &grants, policy, None)? else {
        return Ok(Report::default());
    };
    let mut child = command.spawn()?;
    containment.spawned();
    child.wait()?;
    Ok(containment.report())
}
