//! A seccomp filter that keeps partners from signalling through what the kernel shares between
//! every reader of a file (locks and watches), and a bot from keeping memory across its restart
//! in what the kernel keeps between processes (the page cache, keyrings).
//!
//! Every file a bot may read, another may read too (`/etc/passwd`, the interpreter's library),
//! and a lock belongs to the file, whatever the mount or namespace: one partner holding a lock
//! on a byte, the other probing it, passed a whole hand a move. Seccomp cannot tell which file
//! a descriptor names, so **every lock a bot takes is granted without effect**: `flock` and
//! `fcntl`'s `F_SETLK`, `F_SETLKW`, `F_OFD_SETLK`, `F_OFD_SETLKW` return success and lock
//! nothing, as do `F_SETLEASE` and `F_NOTIFY`. As no bot then holds a lock, probing
//! (`F_GETLK`, a `LOCK_NB` attempt) always finds the file free and runs unfiltered. Watches
//! (`inotify_init`, `fanotify_init`) are refused: a watch on a shared file sees its partner
//! open it. `--bot-locks` lets locks and watches through, and nothing else.
//!
//! The calls that read or clear the page cache without a clock (`fadvise64` with
//! `POSIX_FADV_DONTNEED`, `madvise` with `MADV_PAGEOUT`, `preadv2`/`pwritev2` with
//! `RWF_NOWAIT`, `cachestat`, `mincore`) and the key calls (`add_key`, `keyctl`,
//! `request_key`), which honest bots do not make, are handed to the bot's init to be refused
//! and counted ([`super::probes`]); with no init to hand them to, the kernel refuses them
//! (`ENOSYS`). `io_uring_setup` and `io_setup` (whose reads can ask not to wait, out of the
//! filter's sight) fail with `ENOSYS`, uncounted: runtimes such as Node.js's try them and fall
//! back.
//!
//! The filter is assembled in the referee (it allocates) and installed between fork and exec
//! with two raw calls: by the bot's init, which listens for the counted calls and whose bot
//! inherits the filter, or by the bot itself when it has no init. A system call of another
//! architecture (i386 on x86_64, arm32 on aarch64), where the numbers differ, kills the
//! process; x32 calls on x86_64 are refused.

use std::io;
use std::os::fd::RawFd;

/// `SECCOMP_FILTER_FLAG_SPEC_ALLOW`: do not turn on the speculative store bypass mitigation
/// for the bot (older kernels did, with any filter, slowing every bot down).
const SPEC_ALLOW: libc::c_ulong = 4;

/// What a filtered call gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Runs.
    Allow,
    /// Returns 0 without doing anything.
    NoEffect,
    /// Fails with this errno.
    Refuse(u32),
    /// Handed to the init, which counts it and answers (`ENOSYS` when no one listens).
    Notify,
    /// Kills the process (a foreign architecture's call).
    Kill,
}

impl Verdict {
    const ALL: [Verdict; 5] = [
        Verdict::Allow,
        Verdict::NoEffect,
        Verdict::Refuse(libc::ENOSYS as u32),
        Verdict::Notify,
        Verdict::Kill,
    ];

    fn ret(self) -> u32 {
        match self {
            Verdict::Allow => libc::SECCOMP_RET_ALLOW,
            Verdict::NoEffect => libc::SECCOMP_RET_ERRNO,
            Verdict::Refuse(errno) => libc::SECCOMP_RET_ERRNO | errno,
            Verdict::Notify => libc::SECCOMP_RET_USER_NOTIF,
            Verdict::Kill => libc::SECCOMP_RET_KILL_PROCESS,
        }
    }
}

/// Where a comparison goes: on to the next step, over this many steps, or to a verdict.
#[derive(Debug, Clone, Copy)]
enum Then {
    Next,
    Skip(usize),
    Give(Verdict),
}

/// One step of the filter before assembly.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Loads 32 bits of `struct seccomp_data` at this offset.
    Load(u32),
    /// Compares what was loaded with a value: equal (`true`) or at least (`false`).
    Compare(bool, u32, Then, Then),
    /// Tests what was loaded for any of these bits.
    Test(u32, Then, Then),
}

/// `struct seccomp_data`: the call's number, its architecture, and the low half of an argument
/// (little-endian; `fcntl`'s command is an `unsigned int`, whose high half the kernel ignores,
/// so only the low half decides; the advice and flags are `int`s).
const NR: u32 = 0;
const ARCH: u32 = 4;
const fn arg_low(n: u32) -> u32 {
    16 + 8 * n
}

#[cfg(target_arch = "x86_64")]
mod arch {
    /// `AUDIT_ARCH_X86_64`.
    pub const AUDIT: u32 = 0xC000_003E;
    /// x32 calls carry this bit (`__X32_SYSCALL_BIT`).
    pub const X32: Option<u32> = Some(0x4000_0000);
    pub const INOTIFY_INIT: Option<i64> = Some(libc::SYS_inotify_init);
}

#[cfg(target_arch = "aarch64")]
mod arch {
    /// `AUDIT_ARCH_AARCH64`.
    pub const AUDIT: u32 = 0xC000_00B7;
    pub const X32: Option<u32> = None;
    pub const INOTIFY_INIT: Option<i64> = None;
}

/// The `fcntl` commands that take a lock, a lease or a watch.
const LOCKING: [libc::c_int; 6] = [
    libc::F_SETLK,
    libc::F_SETLKW,
    libc::F_OFD_SETLK,
    libc::F_OFD_SETLKW,
    libc::F_SETLEASE,
    libc::F_NOTIFY,
];

/// The older `inotify_init`, where there is one.
pub(super) const INOTIFY_INIT: Option<i64> = arch::INOTIFY_INIT;

/// The calls handed to the init to be counted, whatever their arguments (see
/// [`super::probes`]).
const COUNTED: [i64; 5] = [
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    super::probes::SYS_CACHESTAT,
    libc::SYS_mincore,
];

/// The filter, before assembly; `locks`: locks take no effect and watches are refused (not
/// with `--bot-locks`).
fn steps(locks: bool) -> Vec<Step> {
    let enosys = Then::Give(Verdict::Refuse(libc::ENOSYS as u32));
    let notify = Then::Give(Verdict::Notify);
    let allow = Then::Give(Verdict::Allow);
    let call = |nr: i64, then: Then| Step::Compare(true, nr as u32, then, Then::Next);
    let mut steps = vec![
        Step::Load(ARCH),
        Step::Compare(true, arch::AUDIT, Then::Next, Then::Give(Verdict::Kill)),
        Step::Load(NR),
    ];
    if let Some(bit) = arch::X32 {
        steps.push(Step::Compare(false, bit, enosys, Then::Next));
    }
    steps.extend(COUNTED.map(|nr| call(nr, notify)));
    steps.extend([libc::SYS_io_uring_setup, libc::SYS_io_setup].map(|nr| call(nr, enosys)));
    if locks {
        steps.push(call(libc::SYS_flock, Then::Give(Verdict::NoEffect)));
        let watches = [libc::SYS_inotify_init1, libc::SYS_fanotify_init];
        steps.extend(
            watches
                .iter()
                .chain(&arch::INOTIFY_INIT)
                .map(|&nr| call(nr, notify)),
        );
    }
    // A call whose argument decides: its number, then the argument's test (the last
    // comparison gives a verdict either way, so the next call's test finds its number loaded).
    let mut with_argument = |nr: i64, body: Vec<Step>| {
        steps.push(Step::Compare(
            true,
            nr as u32,
            Then::Next,
            Then::Skip(body.len()),
        ));
        steps.extend(body);
    };
    let advice = |arg: u32, value: i32| {
        vec![
            Step::Load(arg_low(arg)),
            Step::Compare(true, value as u32, notify, allow),
        ]
    };
    with_argument(libc::SYS_fadvise64, advice(3, libc::POSIX_FADV_DONTNEED));
    with_argument(libc::SYS_madvise, advice(2, libc::MADV_PAGEOUT));
    for nr in [libc::SYS_preadv2, libc::SYS_pwritev2] {
        let flags = vec![
            Step::Load(arg_low(5)),
            Step::Test(libc::RWF_NOWAIT as u32, notify, allow),
        ];
        with_argument(nr, flags);
    }
    if locks {
        let mut commands = vec![Step::Load(arg_low(1))];
        commands.extend(LOCKING.iter().enumerate().map(|(i, &command)| {
            let otherwise = if i + 1 == LOCKING.len() {
                allow
            } else {
                Then::Next
            };
            Step::Compare(
                true,
                command as u32,
                Then::Give(Verdict::NoEffect),
                otherwise,
            )
        }));
        with_argument(libc::SYS_fcntl, commands);
    }
    steps
}

/// Assembles `steps`, followed by one return per verdict, the last step falling through to
/// the first (allow).
fn assemble(steps: &[Step]) -> Vec<libc::sock_filter> {
    let at = |i: usize, then: Then| -> u8 {
        let target = match then {
            Then::Next => i + 1,
            Then::Skip(n) => i + 1 + n,
            Then::Give(v) => {
                steps.len()
                    + Verdict::ALL
                        .iter()
                        .position(|&w| w == v)
                        .expect("every verdict has a return")
            }
        };
        u8::try_from(target - (i + 1)).expect("a short filter")
    };
    let op = |code: u32| code as u16;
    let mut program: Vec<libc::sock_filter> = steps
        .iter()
        .enumerate()
        .map(|(i, step)| match *step {
            Step::Load(offset) => libc::sock_filter {
                code: op(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS),
                jt: 0,
                jf: 0,
                k: offset,
            },
            Step::Compare(equal, k, then, otherwise) => libc::sock_filter {
                code: op(libc::BPF_JMP
                    | if equal { libc::BPF_JEQ } else { libc::BPF_JGE }
                    | libc::BPF_K),
                jt: at(i, then),
                jf: at(i, otherwise),
                k,
            },
            Step::Test(bits, then, otherwise) => libc::sock_filter {
                code: op(libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K),
                jt: at(i, then),
                jf: at(i, otherwise),
                k: bits,
            },
        })
        .collect();
    program.extend(Verdict::ALL.iter().map(|v| libc::sock_filter {
        code: op(libc::BPF_RET | libc::BPF_K),
        jt: 0,
        jf: 0,
        k: v.ret(),
    }));
    program
}

/// A filter ready for a bot to install.
pub(super) struct Prepared {
    /// The instructions, which `header` points to (held here, never read again).
    _program: Vec<libc::sock_filter>,
    header: libc::sock_fprog,
}

// SAFETY: `header` points into the program, which moves with it (a Vec's buffer does not
// move) and is never written after assembly.
unsafe impl Send for Prepared {}
// SAFETY: as above; the kernel only reads through the pointer.
unsafe impl Sync for Prepared {}

/// Assembles the filter (in the referee: it allocates); `locks` as in [`steps`].
pub(super) fn prepare(locks: bool) -> io::Result<Prepared> {
    let mut program = assemble(&steps(locks));
    let header = libc::sock_fprog {
        len: u16::try_from(program.len()).map_err(io::Error::other)?,
        filter: program.as_mut_ptr(),
    };
    Ok(Prepared {
        _program: program,
        header,
    })
}

impl Prepared {
    /// In the bot, between fork and exec: installs the filter for good (no allocation).
    /// Returns 1 if it is in force, 0 if the kernel refused it.
    pub(super) fn install(&self) -> u32 {
        u32::from(self.install_with(0).is_some())
    }

    /// In the bot's init, before it forks the bot (which inherits the filter): installs it
    /// with a listener for the counted calls. Returns the listener (close-on-exec), `None` if
    /// the kernel refused the filter; `Some(-1)` if it took the filter but gave no listener
    /// (the counted calls then fail with `ENOSYS`).
    pub(super) fn install_listening(&self) -> Option<RawFd> {
        let listening = libc::SECCOMP_FILTER_FLAG_NEW_LISTENER;
        self.install_with(listening)
            .or_else(|| self.install_with(0).map(|_| -1))
    }

    /// Installs the filter with `flags` (and the speculation flag where the kernel knows it):
    /// what the call returned, `None` if it failed.
    fn install_with(&self, flags: libc::c_ulong) -> Option<RawFd> {
        // SAFETY: prctl with integer arguments. Landlock sets it too; a filter needs it (or a
        // capability) to be installed, and an init that has it still starts its bot.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return None;
        }
        let install = |flags: libc::c_ulong| {
            // SAFETY: seccomp reads the program through a pointer to a header that lives in
            // `self`, which outlives the call.
            unsafe {
                libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    flags,
                    &self.header as *const libc::sock_fprog,
                )
            }
        };
        // A kernel older than 4.17 knows no SPEC_ALLOW and refuses it: then without.
        let mut got = install(flags | SPEC_ALLOW);
        if got < 0 {
            got = install(flags);
        }
        (got >= 0).then_some(got as RawFd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the assembled filter on a call the way the kernel would: its return value.
    fn run(arch: u32, nr: i64, arg1: u64) -> u32 {
        run_with(true, arch, nr, &[0, arg1])
    }

    /// As [`run`], with the filter for `locks` and the call's first arguments.
    fn run_with(locks: bool, arch: u32, nr: i64, args: &[u64]) -> u32 {
        let program = assemble(&steps(locks));
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&(nr as u32).to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (i, arg) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&arg.to_le_bytes());
        }
        let (mut pc, mut a) = (0usize, 0u32);
        loop {
            let i = program[pc];
            let code = u32::from(i.code);
            match code & 0x07 {
                c if c == libc::BPF_RET => return i.k,
                c if c == libc::BPF_LD => {
                    let at = i.k as usize;
                    a = u32::from_le_bytes(data[at..at + 4].try_into().expect("4 bytes"));
                    pc += 1;
                }
                _ => {
                    let taken = match code & 0xf0 {
                        c if c == libc::BPF_JEQ => a == i.k,
                        c if c == libc::BPF_JSET => a & i.k != 0,
                        _ => a >= i.k,
                    };
                    pc += 1 + usize::from(if taken { i.jt } else { i.jf });
                }
            }
        }
    }

    fn here(nr: i64, arg1: u64) -> u32 {
        run(arch::AUDIT, nr, arg1)
    }

    #[test]
    fn locks_take_no_effect_and_probes_run() {
        let no_effect = libc::SECCOMP_RET_ERRNO;
        assert_eq!(here(libc::SYS_flock, 0), no_effect);
        for command in LOCKING {
            assert_eq!(here(libc::SYS_fcntl, command as u64), no_effect);
            // Only the low half is the command, as the kernel reads it.
            assert_eq!(here(libc::SYS_fcntl, command as u64 | 1 << 32), no_effect);
        }
        for command in [
            libc::F_GETLK,
            libc::F_OFD_GETLK,
            libc::F_GETFL,
            libc::F_DUPFD,
        ] {
            assert_eq!(
                here(libc::SYS_fcntl, command as u64),
                libc::SECCOMP_RET_ALLOW
            );
        }
    }

    #[test]
    fn watches_are_counted_and_the_rest_runs() {
        let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        assert_eq!(here(libc::SYS_inotify_init1, 0), notify);
        assert_eq!(here(libc::SYS_fanotify_init, 0), notify);
        for nr in [
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_openat,
            libc::SYS_futex,
        ] {
            assert_eq!(here(nr, 0), libc::SECCOMP_RET_ALLOW);
        }
        if let Some(bit) = arch::X32 {
            assert_eq!(here(libc::SYS_flock | i64::from(bit), 0), enosys);
        }
    }

    #[test]
    fn the_probes_of_the_page_cache_and_the_key_calls_are_counted() {
        let notify = libc::SECCOMP_RET_USER_NOTIF;
        let allow = libc::SECCOMP_RET_ALLOW;
        for locks in [true, false] {
            let call = |nr: i64, args: &[u64]| run_with(locks, arch::AUDIT, nr, args);
            for nr in COUNTED {
                assert_eq!(call(nr, &[]), notify);
            }
            let dontneed = libc::POSIX_FADV_DONTNEED as u64;
            assert_eq!(call(libc::SYS_fadvise64, &[3, 0, 4096, dontneed]), notify);
            let random = libc::POSIX_FADV_RANDOM as u64;
            assert_eq!(call(libc::SYS_fadvise64, &[3, 0, 0, random]), allow);
            let pageout = libc::MADV_PAGEOUT as u64;
            assert_eq!(call(libc::SYS_madvise, &[1 << 20, 4096, pageout]), notify);
            let dontneed = libc::MADV_DONTNEED as u64;
            assert_eq!(call(libc::SYS_madvise, &[1 << 20, 4096, dontneed]), allow);
            for nr in [libc::SYS_preadv2, libc::SYS_pwritev2] {
                let nowait = libc::RWF_NOWAIT as u64 | libc::RWF_HIPRI as u64;
                assert_eq!(call(nr, &[3, 0, 1, 0, 0, nowait]), notify);
                assert_eq!(call(nr, &[3, 0, 1, 0, 0, libc::RWF_HIPRI as u64]), allow);
            }
            let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
            assert_eq!(call(libc::SYS_io_uring_setup, &[]), enosys);
            // The calls after the ones with an argument still find their number.
            assert_eq!(call(libc::SYS_read, &[3, 0, 1]), allow);
        }
    }

    #[test]
    fn with_bot_locks_locks_and_watches_run() {
        let allow = libc::SECCOMP_RET_ALLOW;
        let call = |nr: i64, args: &[u64]| run_with(false, arch::AUDIT, nr, args);
        assert_eq!(call(libc::SYS_flock, &[3, 2]), allow);
        assert_eq!(call(libc::SYS_fcntl, &[3, libc::F_SETLK as u64]), allow);
        assert_eq!(call(libc::SYS_inotify_init1, &[]), allow);
    }

    #[test]
    fn a_foreign_architecture_is_killed() {
        // AUDIT_ARCH_I386 and AUDIT_ARCH_ARM: the calls of the other half of each machine.
        for foreign in [0x4000_0003, 0x4000_0028] {
            assert_eq!(run(foreign, 0, 0), libc::SECCOMP_RET_KILL_PROCESS);
        }
    }
}
