//! The `allfives` command: parse the arguments, set up tracing, run the command. What each
//! command does, and the exit codes, are in [`allfives::cli::commands`].

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A contained bot's init, exec'd afresh so that the bot sees none of the referee's
    // command line (docs/fair-play.md).
    if allfives::sandbox::is_init() {
        allfives::sandbox::init_main();
    }
    keep_freed_memory();
    let cli = match allfives::cli::args::parse() {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        // Colour codes only where a terminal shows them, never in a file or a pipe.
        .with_ansi(std::io::stderr().is_terminal())
        .init();
    ExitCode::from(allfives::cli::commands::run(cli))
}

/// A contained bot's init (exec'd at each of its starts) begins here, before the runtime's
/// set-up, which it does not need ([`allfives::sandbox::init_early`]); any other process goes
/// on to `main`. glibc passes a constructor the arguments.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[unsafe(link_section = ".init_array")]
static INIT_EARLY: extern "C" fn(libc::c_int, *const *const libc::c_char) = init_early;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" fn init_early(argc: libc::c_int, argv: *const *const libc::c_char) {
    // SAFETY: glibc calls the constructors with the process's argc and argv.
    unsafe { allfives::sandbox::init_early(argc, argv) }
}

/// Keeps the memory the rating fits free for the next fit. Each fit allocates matrices of
/// megabytes (8 MB each at 1,000 entrants) and frees them; glibc hands blocks that large back to
/// the kernel (mmap past 128 KB by default, and the heap's top trimmed past 128 KB), so every
/// fit faulted its pages in again: 0.4-0.5 s of system time in a 1.5 s `standings` of 1,000
/// entrants, 0.12-0.15 s with these settings, peak memory the same (docs/benchmarks.md). A
/// matrix up to 32 MB (2,000 entrants, the most one fit rates) comes from the heap, and up to
/// 256 MB freed at its top stays for reuse.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's thresholds, before any thread is started.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}
