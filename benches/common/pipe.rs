//! The raw pipe round trip that both benches measure the engine and the referee against: this
//! bench binary re-runs itself as an echo process and times lines sent to it and answered.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use nix::sys::resource::UsageWho;

/// The figures of one round-trip measurement.
pub struct RoundTrip {
    pub mean_ns: f64,
    pub median_ns: f64,
    pub p99_ns: f64,
    pub min_ns: f64,
    /// The measuring parent's own CPU time (user + system) per timed round trip.
    pub parent_cpu_ns: f64,
    /// The echo child's CPU time per round trip (its start-up and warm-up included).
    pub child_cpu_ns: f64,
    pub parent_cpus: String,
    pub child_cpus: String,
}

impl RoundTrip {
    /// The figures in microseconds with the CPUs, as one table row.
    pub fn cells(&self) -> String {
        format!(
            "{:>10.2} {:>10.2} {:>10.2} {:>10.2}   {} / {}",
            self.mean_ns / 1e3,
            self.median_ns / 1e3,
            self.p99_ns / 1e3,
            self.min_ns / 1e3,
            self.parent_cpus,
            self.child_cpus
        )
    }
}

/// Spawns this binary with `echo_args` (which must make it call [`echo`]) and times `rounds`
/// round trips of `request` after `warm_up` untimed ones; each answer must be `answer_len` bytes.
pub fn round_trip(
    echo_args: &[&str],
    request: &[u8],
    answer_len: usize,
    warm_up: usize,
    rounds: usize,
) -> io::Result<RoundTrip> {
    let children_before = cpu_ns(UsageWho::RUSAGE_CHILDREN);
    let (mut child, mut to_child, from_child) = spawn_echo(echo_args)?;
    let mut from_child = BufReader::new(from_child);

    // The child's first line says where it may run.
    let mut line = Vec::with_capacity(128);
    from_child.read_until(b'\n', &mut line)?;
    let child_cpus = String::from_utf8_lossy(&line).trim().to_string();

    let mut times = Vec::with_capacity(rounds);
    let mut cpu_start = 0.0;
    for round in 0..warm_up + rounds {
        if round == warm_up {
            cpu_start = cpu_ns(UsageWho::RUSAGE_SELF);
        }
        line.clear();
        let t0 = Instant::now();
        to_child.write_all(request)?;
        from_child.read_until(b'\n', &mut line)?;
        let elapsed = t0.elapsed();
        if line.len() != answer_len {
            return Err(io::Error::other(format!(
                "the echo child answered {} bytes, not {answer_len}",
                line.len()
            )));
        }
        if round >= warm_up {
            times.push(elapsed.as_nanos() as f64);
        }
    }
    let parent_cpu_ns = (cpu_ns(UsageWho::RUSAGE_SELF) - cpu_start) / rounds as f64;
    drop(to_child);
    let mut rest = Vec::new();
    from_child.read_to_end(&mut rest)?;
    child.wait()?;
    let child_cpu_ns = (cpu_ns(UsageWho::RUSAGE_CHILDREN) - children_before) / rounds as f64;

    times.sort_by(f64::total_cmp);
    let n = times.len();
    Ok(RoundTrip {
        mean_ns: times.iter().sum::<f64>() / n as f64,
        median_ns: if n % 2 == 1 {
            times[n / 2]
        } else {
            (times[n / 2 - 1] + times[n / 2]) / 2.0
        },
        p99_ns: times[(n * 99 / 100).min(n - 1)],
        min_ns: times[0],
        parent_cpu_ns,
        child_cpu_ns,
        parent_cpus: cpus_allowed(),
        child_cpus,
    })
}

/// What a referee cannot avoid per asked move with two bots: the floor it is measured against
/// besides the raw round trip.
pub struct Floor {
    /// Wall time per round trip.
    pub wall_ns: f64,
    /// The parent's CPU time (user + system) per round trip.
    pub cpu_ns: f64,
}

/// The system calls a referee must make per asked move, and nothing else: append a
/// `log_line` to a file in `log_dir` (every decided line is written before a wait), write
/// `request` to one of two echo children in turn, wait for its answer with `poll` (the wait
/// must be able to time out) and read it. Timed over `rounds` round trips after `warm_up`.
pub fn referee_floor(
    echo_args: &[&str],
    request: &[u8],
    answer_len: usize,
    log_dir: &std::path::Path,
    warm_up: usize,
    rounds: usize,
) -> io::Result<Floor> {
    use std::os::fd::AsRawFd;
    let log_line = [b'l'; 90];
    let mut log = std::fs::File::create_new(log_dir.join("floor.jsonl"))?;
    let mut children = Vec::new();
    for _ in 0..2 {
        let (child, input, mut output) = spawn_echo(echo_args)?;
        // The first line says where the child may run; it is not part of the floor.
        let mut first = [0u8; 256];
        let _ = output.read(&mut first)?;
        children.push((child, input, output));
    }
    let mut buf = vec![0u8; 64 * 1024];
    let (mut start, mut cpu_start) = (Instant::now(), 0.0);
    for round in 0..warm_up + rounds {
        if round == warm_up {
            (start, cpu_start) = (Instant::now(), cpu_ns(UsageWho::RUSAGE_SELF));
        }
        let (_, input, output) = &mut children[round % 2];
        log.write_all(&log_line)?;
        input.write_all(request)?;
        let mut ready = libc::pollfd {
            fd: output.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call.
        if unsafe { libc::poll(&mut ready, 1, 10_000) } != 1 {
            return Err(io::Error::other("an echo child did not answer"));
        }
        if output.read(&mut buf)? != answer_len {
            return Err(io::Error::other("an echo child's answer came in pieces"));
        }
    }
    let floor = Floor {
        wall_ns: start.elapsed().as_nanos() as f64 / rounds as f64,
        cpu_ns: (cpu_ns(UsageWho::RUSAGE_SELF) - cpu_start) / rounds as f64,
    };
    for (mut child, input, _) in children {
        drop(input);
        child.wait()?;
    }
    Ok(floor)
}

/// This binary re-run with `echo_args` (which must make it call [`echo`]), with its input and
/// output piped.
fn spawn_echo(
    echo_args: &[&str],
) -> io::Result<(
    std::process::Child,
    std::process::ChildStdin,
    std::process::ChildStdout,
)> {
    let mut child = Command::new(std::env::current_exe()?)
        .args(echo_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let input = child.stdin.take().expect("piped stdin");
    let output = child.stdout.take().expect("piped stdout");
    Ok((child, input, output))
}

/// The CPU time so far (user + system) of this process or its reaped children, in nanoseconds.
fn cpu_ns(who: UsageWho) -> f64 {
    let usage = nix::sys::resource::getrusage(who).expect("getrusage works");
    let ns = |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 * 1e9 + tv.tv_usec() as f64 * 1e3;
    ns(usage.user_time()) + ns(usage.system_time())
}

/// The echo process: reports its CPUs, then answers every line with `answer` (newline
/// included) until the end of its input.
pub fn echo(answer: &[u8]) -> io::Result<()> {
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    writeln!(output, "{}", cpus_allowed())?;
    output.flush()?;
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        output.write_all(answer)?;
        output.flush()?;
    }
}

/// The `Cpus_allowed_list` of this process, e.g. `0-1` or `0`; `?` where /proc is missing.
pub fn cpus_allowed() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_else(|| "?".to_string())
}
