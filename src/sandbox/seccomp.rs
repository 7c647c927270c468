//! A seccomp filter that keeps partners from signalling through what the kernel shares between
//! every reader of a file: locks and watches.
//!
//! Every file a bot may read, another may read too (`/etc/passwd`, the interpreter's library),
//! and a lock belongs to the file, whatever the mount or namespace: one partner holding a lock
//! on a byte, the other probing it, passed a whole hand a move. Seccomp cannot tell which file
//! a descriptor names, so **every lock a bot takes is granted without effect**: `flock` and
//! `fcntl`'s `F_SETLK`, `F_SETLKW`, `F_OFD_SETLK`, `F_OFD_SETLKW` return success and lock
//! nothing, as do `F_SETLEASE` and `F_NOTIFY`. As no bot then holds a lock, probing
//! (`F_GETLK`, a `LOCK_NB` attempt) always finds the file free and runs unfiltered. Watches
//! (`inotify_init`, `fanotify_init`) are refused: a watch on a shared file sees its partner
//! open it. An honest bot loses only mutual exclusion between its own processes through file
//! locks (SQLite, `lockf`, `flock` still return success); docs/fair-play.md weighs it.
//!
//! The filter is assembled in the referee (it allocates) and installed by the bot between fork
//! and exec with two raw calls. A system call of another architecture (i386 on x86_64, arm32 on
//! aarch64), where the numbers differ, kills the process; x32 calls on x86_64 are refused.

use std::io;

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
    /// Kills the process (a foreign architecture's call).
    Kill,
}

impl Verdict {
    const ALL: [Verdict; 5] = [
        Verdict::Allow,
        Verdict::NoEffect,
        Verdict::Refuse(libc::ENOSYS as u32),
        Verdict::Refuse(libc::EPERM as u32),
        Verdict::Kill,
    ];

    fn ret(self) -> u32 {
        match self {
            Verdict::Allow => libc::SECCOMP_RET_ALLOW,
            Verdict::NoEffect => libc::SECCOMP_RET_ERRNO,
            Verdict::Refuse(errno) => libc::SECCOMP_RET_ERRNO | errno,
            Verdict::Kill => libc::SECCOMP_RET_KILL_PROCESS,
        }
    }
}

/// Where a comparison goes: on to the next step, or to a verdict.
#[derive(Debug, Clone, Copy)]
enum Then {
    Next,
    Give(Verdict),
}

/// One step of the filter before assembly.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Loads 32 bits of `struct seccomp_data` at this offset.
    Load(u32),
    /// Compares what was loaded with a value: equal (`true`) or at least (`false`).
    Compare(bool, u32, Then, Then),
}

/// `struct seccomp_data`: the call's number, its architecture, the low half of its second
/// argument (little-endian; `fcntl`'s command is an `unsigned int`, whose high half the kernel
/// ignores, so only the low half decides).
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG1_LOW: u32 = 16 + 8;

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

/// The filter, before assembly.
fn steps() -> Vec<Step> {
    let enosys = Then::Give(Verdict::Refuse(libc::ENOSYS as u32));
    let call = |nr: i64, then: Then| Step::Compare(true, nr as u32, then, Then::Next);
    let mut steps = vec![
        Step::Load(ARCH),
        Step::Compare(true, arch::AUDIT, Then::Next, Then::Give(Verdict::Kill)),
        Step::Load(NR),
    ];
    if let Some(bit) = arch::X32 {
        steps.push(Step::Compare(false, bit, enosys, Then::Next));
    }
    steps.push(call(libc::SYS_flock, Then::Give(Verdict::NoEffect)));
    steps.push(call(libc::SYS_inotify_init1, enosys));
    if let Some(nr) = arch::INOTIFY_INIT {
        steps.push(call(nr, enosys));
    }
    steps.push(call(
        libc::SYS_fanotify_init,
        Then::Give(Verdict::Refuse(libc::EPERM as u32)),
    ));
    steps.push(Step::Compare(
        true,
        libc::SYS_fcntl as u32,
        Then::Next,
        Then::Give(Verdict::Allow),
    ));
    steps.push(Step::Load(ARG1_LOW));
    for command in LOCKING {
        steps.push(Step::Compare(
            true,
            command as u32,
            Then::Give(Verdict::NoEffect),
            Then::Next,
        ));
    }
    steps
}

/// Assembles `steps`, followed by one return per verdict, the last step falling through to
/// the first (allow).
fn assemble(steps: &[Step]) -> Vec<libc::sock_filter> {
    let at = |i: usize, then: Then| -> u8 {
        let target = match then {
            Then::Next => i + 1,
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

/// Assembles the filter (in the referee: it allocates).
pub(super) fn prepare() -> io::Result<Prepared> {
    let mut program = assemble(&steps());
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
        // SAFETY: prctl with integer arguments. Landlock has set it already where it runs; a
        // filter needs it (or a capability) to be installed.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return 0;
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
        u32::from(install(SPEC_ALLOW) == 0 || install(0) == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the assembled filter on a call the way the kernel would: its return value.
    fn run(arch: u32, nr: i64, arg1: u64) -> u32 {
        let program = assemble(&steps());
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&(nr as u32).to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        data[24..32].copy_from_slice(&arg1.to_le_bytes());
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
    fn watches_are_refused_and_the_rest_runs() {
        let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        assert_eq!(here(libc::SYS_inotify_init1, 0), enosys);
        assert_eq!(
            here(libc::SYS_fanotify_init, 0),
            libc::SECCOMP_RET_ERRNO | libc::EPERM as u32
        );
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
    fn a_foreign_architecture_is_killed() {
        // AUDIT_ARCH_I386 and AUDIT_ARCH_ARM: the calls of the other half of each machine.
        for foreign in [0x4000_0003, 0x4000_0028] {
            assert_eq!(run(foreign, 0, 0), libc::SECCOMP_RET_KILL_PROCESS);
        }
    }
}
