//! A bot's operating-system process: spawned in its own process group, fed through a queue that
//! never blocks the referee, read line by line with a length cap, its stderr drained to a capped
//! file, and killed with its whole group.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::timeout;

/// How long a bot that exits has to get its last lines read before its exit is reported.
const EXIT_GRACE: Duration = Duration::from_millis(100);
/// How much of an offending line is kept for the record.
pub const EXCERPT: usize = 200;

/// Where a bot's stderr goes.
#[derive(Debug, Clone)]
pub struct StderrSink {
    /// The file that receives it, up to `cap` bytes; `None` discards it.
    pub file: Option<PathBuf>,
    /// The most bytes written to the file; a marker says where it was cut.
    pub cap: u64,
    /// Also echo it to the terminal, each line prefixed with this.
    pub echo_prefix: Option<String>,
}

/// What a bot wrote, or what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// A complete line (without its newline).
    Line(String),
    /// A line longer than the cap; its start.
    TooLong(String),
    /// A line that is not UTF-8; its start, lossily decoded.
    NotUtf8(String),
    /// The process ended (or closed its output).
    Exited(String),
    /// Nothing came in time.
    Timeout,
}

/// What the reader task passes on.
enum Incoming {
    Line(Result<String, Received>),
    Closed,
}

/// A running bot process.
pub struct BotProcess {
    child: Child,
    pgid: Pid,
    input: Option<mpsc::UnboundedSender<Vec<u8>>>,
    output: mpsc::UnboundedReceiver<Incoming>,
    exit: Option<ExitStatus>,
    stderr: JoinHandle<()>,
}

impl BotProcess {
    /// Starts `argv` in a new process group with all three streams piped.
    pub fn spawn(argv: &[String], max_line: usize, stderr: StderrSink) -> io::Result<BotProcess> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty bot command"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()?;
        let pid = child.id().expect("a just-spawned child has a pid");
        let pgid = Pid::from_raw(pid as i32);
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let err = child.stderr.take().expect("stderr was piped");
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(stdin, in_rx));
        tokio::spawn(read_lines(stdout, max_line, out_tx));
        let stderr = tokio::spawn(drain_stderr(err, stderr));
        crate::shutdown::register(pgid);
        Ok(BotProcess {
            child,
            pgid,
            input: Some(in_tx),
            output: out_rx,
            exit: None,
            stderr,
        })
    }

    /// Queues a line (which must end in a newline) for the bot; never waits.
    pub fn send(&self, line: Vec<u8>) {
        if let Some(input) = &self.input {
            // A closed queue means the bot is gone; the next receive reports it.
            let _ = input.send(line);
        }
    }

    /// Waits up to `limit` for the bot's next line.
    pub async fn receive(&mut self, limit: Duration) -> Received {
        let deadline = tokio::time::sleep(limit);
        tokio::select! {
            biased;
            incoming = self.output.recv() => match incoming {
                Some(Incoming::Line(line)) => into_received(line),
                Some(Incoming::Closed) | None => self.exited().await,
            },
            status = self.child.wait(), if self.exit.is_none() => {
                self.exit = status.ok();
                // A bot may write its last answer and exit at once: read what it left.
                match timeout(EXIT_GRACE, self.output.recv()).await {
                    Ok(Some(Incoming::Line(line))) => into_received(line),
                    _ => self.exited().await,
                }
            }
            _ = deadline => Received::Timeout,
        }
    }

    /// How the process ended, waiting a moment for it if it closed its output first.
    async fn exited(&mut self) -> Received {
        if self.exit.is_none() {
            self.exit = timeout(EXIT_GRACE, self.child.wait())
                .await
                .ok()
                .and_then(Result::ok);
        }
        Received::Exited(match self.exit {
            Some(status) => describe(status),
            None => "closed its output".to_string(),
        })
    }

    /// Ends the process politely: closes its input, gives it `grace` to exit, then SIGTERM, then
    /// SIGKILL, always to the whole group.
    pub async fn shutdown(mut self, grace: Duration) {
        self.input = None;
        if self.exit.is_none() && timeout(grace, self.child.wait()).await.is_err() {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            if timeout(grace, self.child.wait()).await.is_err() {
                let _ = killpg(self.pgid, Signal::SIGKILL);
            }
        }
        self.reap().await;
    }

    /// Kills the whole group at once (after a fault).
    pub async fn kill(mut self) {
        let _ = killpg(self.pgid, Signal::SIGKILL);
        self.reap().await;
    }

    async fn reap(&mut self) {
        // Grandchildren may outlive the leader while holding its pipes: kill what is left.
        let _ = killpg(self.pgid, Signal::SIGKILL);
        let _ = self.child.wait().await;
        let _ = timeout(EXIT_GRACE, &mut self.stderr).await;
        crate::shutdown::unregister(self.pgid);
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // Reached when a match is abandoned (Ctrl-C, an error): no process may outlive it.
        if self.exit.is_none() || !self.stderr.is_finished() {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
    }
}

/// "exited with code 3" or "killed by signal 9 (SIGKILL)".
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(sig)) => match Signal::try_from(sig) {
            Ok(s) => format!("killed by signal {sig} ({s})"),
            Err(_) => format!("killed by signal {sig}"),
        },
        _ => "ended".to_string(),
    }
}

fn into_received(line: Result<String, Received>) -> Received {
    match line {
        Ok(line) => Received::Line(line),
        Err(fault) => fault,
    }
}

/// The start of `bytes`, lossily decoded, cut to [`EXCERPT`] characters.
pub fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(EXCERPT * 4)]);
    text.chars().take(EXCERPT).collect()
}

async fn write_lines(mut stdin: ChildStdin, mut lines: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        if stdin.write_all(&line).await.is_err() {
            break;
        }
    }
}

async fn read_lines(
    stdout: impl AsyncRead + Unpin,
    max_line: usize,
    out: mpsc::UnboundedSender<Incoming>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(chunk) => chunk,
        };
        let (part, newline) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (&chunk[..at], true),
            None => (chunk, false),
        };
        let used = part.len() + usize::from(newline);
        if !too_long {
            let room = (max_line + 1).saturating_sub(line.len());
            line.extend_from_slice(&part[..part.len().min(room)]);
            if line.len() > max_line {
                too_long = true;
                let _ = out.send(Incoming::Line(Err(Received::TooLong(excerpt(&line)))));
            }
        }
        reader.consume(used);
        if newline {
            if !too_long {
                let _ = out.send(Incoming::Line(decode(std::mem::take(&mut line))));
            }
            line.clear();
            too_long = false;
        }
    }
    if !line.is_empty() && !too_long {
        let _ = out.send(Incoming::Line(decode(line)));
    }
    let _ = out.send(Incoming::Closed);
}

fn decode(mut line: Vec<u8>) -> Result<String, Received> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8(line).map_err(|e| Received::NotUtf8(excerpt(e.as_bytes())))
}

async fn drain_stderr(mut err: impl AsyncRead + Unpin, sink: StderrSink) {
    // Plain blocking writes: small appends to a local file cost less than a hop to a thread pool.
    // Appends: a bot restarted after a fault keeps writing to the same file.
    let mut file = sink.file.as_ref().and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let prefix: Option<Arc<str>> = sink.echo_prefix.as_deref().map(Arc::from);
    let mut written = 0u64;
    let mut buf = vec![0u8; 16 * 1024];
    let mut at_line_start = true;
    loop {
        let n = match err.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        if let Some(f) = file.as_mut() {
            let room = sink.cap.saturating_sub(written) as usize;
            let keep = &chunk[..chunk.len().min(room)];
            let mut ok = io::Write::write_all(f, keep).is_ok();
            written += keep.len() as u64;
            if keep.len() < chunk.len() {
                let marker = format!("\n[allfives: stderr cut here at {} bytes]\n", sink.cap);
                ok = ok && io::Write::write_all(f, marker.as_bytes()).is_ok();
                // Past the cap the rest is read and dropped, so the bot never blocks on stderr.
                file = None;
            }
            if !ok {
                file = None;
            }
        }
        if let Some(prefix) = &prefix {
            echo(prefix, chunk, &mut at_line_start);
        }
    }
}

fn echo(prefix: &str, chunk: &[u8], at_line_start: &mut bool) {
    use std::io::Write;
    let mut text = Vec::with_capacity(chunk.len() + prefix.len());
    for &b in chunk {
        if *at_line_start {
            text.extend_from_slice(prefix.as_bytes());
            *at_line_start = false;
        }
        text.push(b);
        if b == b'\n' {
            *at_line_start = true;
        }
    }
    let _ = io::stderr().lock().write_all(&text);
}
