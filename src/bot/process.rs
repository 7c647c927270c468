//! A bot's operating-system process: spawned in its own process group, its input queued and
//! written only within a deadline (so a bot that stops reading never blocks the referee), its
//! output read line by line with a length cap, its stderr drained to a capped
//! file, and killed with its whole group.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncReadExt, AsyncWriteExt, Interest};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::{timeout, timeout_at};

use crate::bot::answer_wait::AnswerWait;
use crate::bot::framing::{LineFramer, Received};
use crate::bot::stderr_lines::StderrLines;
use crate::sandbox::{self, Containment, Policy};

/// What a bot that closed its output and still runs is said to have done.
const CLOSED_OUTPUT: &str = "closed its output";
/// How long a bot that exits has to get its last lines read before its exit is reported.
const EXIT_GRACE: Duration = Duration::from_millis(100);
/// How long a bot's answer is awaited before its process's exit is watched for too (a bot
/// that exits while a child of its own holds its output open is known to have ended only so).
const QUICK: Duration = Duration::from_millis(20);
/// How long the referee's thread waits for an answer in a plain blocking wait
/// ([`AnswerWait`]) before it hands the wait to the async runtime: most bots answer well within
/// it, and a blocking wait costs the referee less CPU per move than the runtime's wake-ups. Other tasks on the thread (other
/// games of a tournament) wait at most this long; a signal ends the wait at once, or within
/// this bound when it comes before deferred work is due (the wait then goes on after it).
/// Stderr is drained by threads of its own.
const BLOCKING: Duration = Duration::from_millis(5);
/// How long a contained bot's init may take to answer a hold or a go: a hold gives up by
/// itself after a second; the rest is a busy machine's delay.
const INIT_ANSWER: Duration = Duration::from_secs(5);

/// Work the referee puts off while a bot answers at once, and does once a wait for an answer
/// lasts (a game's log: written when an answer is slow, not before every wait).
pub trait Deferred {
    /// When the work must be done at the latest; `None` while there is none.
    fn due(&self) -> Option<std::time::Instant>;
    /// Does it now.
    fn catch_up(&mut self);
}

/// Nothing put off: a wait with no other work.
pub struct Nothing;

impl Deferred for Nothing {
    fn due(&self) -> Option<std::time::Instant> {
        None
    }

    fn catch_up(&mut self) {}
}

/// Where a bot's stderr goes.
#[derive(Debug, Clone)]
pub struct StderrSink {
    /// The file that receives it, up to `cap` bytes; `None` discards it.
    pub file: Option<PathBuf>,
    /// The most bytes written to the file; a marker says where it was cut.
    pub cap: u64,
    /// Also echo it to the terminal, each line prefixed with this and made safe for a terminal.
    pub echo_prefix: Option<String>,
    /// Also gather its lines here, for the game's log.
    pub lines: Option<Arc<StderrLines>>,
}

/// How a bot process came to its end when it was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited by itself once its input closed.
    Exited,
    /// It needed SIGTERM.
    Terminated,
    /// It needed SIGKILL.
    Killed,
}

/// What to start: the command's words, the folder it starts in, variables added to its
/// environment.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// The program and its arguments.
    pub argv: &'a [String],
    /// The working directory (default: the referee's).
    pub dir: Option<&'a Path>,
    /// Added to the referee's environment.
    pub env: &'a BTreeMap<String, String>,
    /// Folders it may also read, besides what the policy grants every bot.
    pub read: &'a [PathBuf],
    /// Folders it may also write.
    pub write: &'a [PathBuf],
}

impl Launch<'_> {
    /// What the bot may touch when contained by `policy` ([`sandbox::Grants`]).
    pub fn grants(&self, policy: &Policy) -> io::Result<sandbox::Grants> {
        let named = named_from(self.argv, self.dir);
        let here = match self.dir {
            Some(dir) => dir.to_path_buf(),
            None => std::env::current_dir()?,
        };
        Ok(policy.grants(&named, &here, self.read, self.write))
    }

    /// Why it could not start (`error`), in one sentence: contained, what it could not see and
    /// which option grants it, else where its program was looked for.
    pub fn start_failure(&self, policy: &Policy, error: &io::Error) -> String {
        let here = self
            .dir
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        let program = self.argv.first().map_or("", String::as_str);
        let hint = match policy.enabled {
            true => self
                .grants(policy)
                .ok()
                .and_then(|g| g.why_not_started(&named_from(self.argv, self.dir), &here)),
            false => None,
        };
        let found = match program.contains('/') {
            true => Some(here.join(program)).filter(|p| p.is_file()),
            false => sandbox::grants::resolve(program),
        };
        let interpreter = found.as_deref().and_then(sandbox::grants::shebang);
        let hint = hint.unwrap_or_else(|| match (error.kind(), found, interpreter) {
            (io::ErrorKind::NotFound, Some(_), Some(i)) if !i.exists() => format!(
                "{program} names the interpreter {} on its #! line, which does not exist",
                i.display()
            ),
            (io::ErrorKind::NotFound, None, _) => format!(
                "{program} was not found from {}: check the command (a bare name is looked \
                 for in PATH)",
                here.display()
            ),
            _ => format!("{program} in {}", here.display()),
        });
        format!("could not start: {error}: {hint}")
    }
}

/// The command's words with the files it names inside its working directory made full paths:
/// the sandbox grants a bot what its command names, and a bot started in a folder of its own
/// names its files from there.
pub fn named_from(argv: &[String], dir: Option<&Path>) -> Vec<String> {
    let Some(dir) = dir else {
        return argv.to_vec();
    };
    argv.iter()
        .map(|word| match dir.join(word) {
            path if !word.starts_with('-') && path.exists() => path.display().to_string(),
            _ => word.clone(),
        })
        .collect()
}

/// A running bot process.
pub struct BotProcess {
    child: Child,
    pgid: Pid,
    stdin: Option<ChildStdin>,
    /// Another handle on the input pipe, to learn that the bot closed its end while the
    /// referee waits (it holds the pipe open: it is dropped with `stdin`).
    input_watch: Option<AsyncFd<OwnedFd>>,
    /// Lines queued for the bot; they go out with the next request or flush, in one write.
    pending: Vec<u8>,
    /// How much of `pending` is already written (writes can be cut short by a deadline).
    written: usize,
    stdout: LineReader,
    /// The blocking wait's watch on stdout and stderr, kept from move to move.
    waiter: AnswerWait,
    exit: Option<ExitStatus>,
    /// Requests answered in time: a timeout tells a bot never flushed from one late once.
    answers: u64,
    stderr: StderrDrain,
    /// Whether stderr held bytes when the last answer came, as the wait saw it (`None`: it
    /// was not looked at, and taking the lines looks at the pipe).
    stderr_ready: std::cell::Cell<Option<bool>>,
    /// The report of the processes between the referee and a contained bot.
    containment: Option<Containment>,
    /// Where what the bot leaves in its private /tmp is saved once it has ended, and how much.
    keep_tmp: Option<(PathBuf, u64)>,
}

impl BotProcess {
    /// Starts the command in a new process group with all three streams piped.
    /// Contained by `policy` (see [`crate::sandbox`]), what it is refused counted in `tally`.
    pub fn spawn(
        launch: &Launch,
        max_line: usize,
        stderr: StderrSink,
        policy: &Policy,
        tally: Option<&sandbox::Tally>,
    ) -> io::Result<BotProcess> {
        let argv = launch.argv;
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty bot command"))?;
        let mut command = Command::new(program);
        if let Some(dir) = launch.dir {
            command.current_dir(dir);
        }
        if let Some(keep) = &policy.clean_env {
            command.env_clear();
            command.envs(keep.iter().filter_map(|k| Some((k, std::env::var_os(k)?))));
        }
        if policy.enabled {
            // The bot's own writable folder (docs/fair-play.md).
            command.env("TMPDIR", "/tmp");
        }
        command
            .args(args)
            .envs(launch.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut containment = match policy.enabled {
            true => {
                let grants = launch.grants(policy)?;
                sandbox::contain(command.as_std_mut(), &grants, policy, tally)?
            }
            false => None,
        };
        let mut child = command.spawn()?;
        if let Some(c) = containment.as_mut() {
            let report = c.spawned();
            tracing::debug!(?report, "contained");
        }
        let pid = child.id().expect("a just-spawned child has a pid");
        let pgid = Pid::from_raw(pid as i32);
        let stdin = child.stdin.take().expect("stdin was piped");
        let input_watch = watch_input(&stdin);
        let stdout = child.stdout.take().expect("stdout was piped");
        let err = child.stderr.take().expect("stderr was piped");
        let keep_tmp = stderr
            .file
            .as_ref()
            .map(|f| (f.with_extension("tmp"), stderr.cap));
        let stderr = match StderrDrain::start(err, stderr) {
            Ok(drain) => drain,
            Err(e) => {
                let _ = killpg(pgid, Signal::SIGKILL);
                return Err(e);
            }
        };
        let peek = stderr.lines.as_ref().map(|(_, peek)| peek.as_fd());
        let waiter = match AnswerWait::new(stdout.as_fd(), peek) {
            Ok(waiter) => waiter,
            Err(e) => {
                let _ = killpg(pgid, Signal::SIGKILL);
                return Err(e);
            }
        };
        crate::bot::shutdown::register(pgid);
        Ok(BotProcess {
            child,
            pgid,
            stdin: Some(stdin),
            input_watch,
            pending: Vec::with_capacity(16 * 1024),
            written: 0,
            stdout: LineReader::new(stdout, max_line),
            waiter,
            exit: None,
            answers: 0,
            stderr,
            stderr_ready: std::cell::Cell::new(None),
            containment,
            keep_tmp,
        })
    }

    /// The stderr lines the bot wrote since last asked, once what is in the pipe has been read
    /// (empty unless its sink gathers lines).
    pub fn stderr_lines(&self) -> Vec<String> {
        match &self.stderr.lines {
            // The look is the last answer's: taken once, never for a later fault.
            Some((lines, peek)) => lines.take(Some(peek), self.stderr_ready.take()),
            None => Vec::new(),
        }
    }

    /// Queues a line (which must end in a newline); it is written with the next request or flush.
    pub fn queue(&mut self, line: &[u8]) {
        if self.stdin.is_some() {
            self.pending.extend_from_slice(line);
        }
    }

    /// Queues what `fill` appends (whole lines); it is written with the next request or flush.
    pub fn queue_with(&mut self, fill: impl FnOnce(&mut Vec<u8>)) {
        if self.stdin.is_some() {
            fill(&mut self.pending);
        }
    }

    /// Writes what is queued, within `limit`; false if the bot did not take it all in time.
    pub async fn flush(&mut self, limit: Duration) -> bool {
        timeout(limit, self.write_pending()).await.unwrap_or(false)
    }

    /// Writes what is queued (ending with a request) and waits, all within `limit` from
    /// `since` (a moment ago: the clock is read as little as possible), for the bot's next line;
    /// `deferred` is done once it is due, if the line has not come by then, and before any
    /// wait on the async runtime.
    pub async fn request(
        &mut self,
        since: std::time::Instant,
        limit: Duration,
        deferred: &mut dyn Deferred,
    ) -> Received {
        let since = tokio::time::Instant::from_std(since);
        let deadline = since + limit;
        if self.write_now() {
            return self.receive_by(since, deadline, deferred).await;
        }
        deferred.catch_up();
        match timeout_at(deadline, self.write_pending()).await {
            // The write waited: the wait for the answer starts now.
            Ok(true) => {
                self.receive_by(tokio::time::Instant::now(), deadline, deferred)
                    .await
            }
            // The pipe is broken: the bot is gone, or closed its input and cannot play on.
            Ok(false) => match timeout(EXIT_GRACE, self.child.wait()).await {
                Ok(Ok(status)) => Received::Exited(describe(self.settle(status))),
                _ => Received::Exited("closed its input".to_string()),
            },
            // A bot that stopped reading, or is gone: which one, its exit tells.
            Err(_) => match self.child.try_wait() {
                Ok(Some(status)) => Received::Exited(describe(self.settle(status))),
                _ => Received::Timeout,
            },
        }
    }

    /// What the bot has written of a line it has not ended yet (its start), if anything.
    pub fn partial_line(&self) -> Option<String> {
        self.stdout.partial()
    }

    /// Counts a request answered in time (its hello included).
    pub fn answered(&mut self) {
        self.answers += 1;
    }

    /// How many requests it answered in time, its hello included.
    pub fn answers(&self) -> u64 {
        self.answers
    }

    /// How many bytes the bot has written to its stdout so far.
    pub fn bytes_read(&self) -> u64 {
        self.stdout.total
    }

    /// Waits up to `limit` for the bot's next line.
    pub async fn receive(&mut self, limit: Duration, deferred: &mut dyn Deferred) -> Received {
        let now = tokio::time::Instant::now();
        self.receive_by(now, now + limit, deferred).await
    }

    /// Waits for the bot's next line until `deadline`; `since` is when the wait began (a
    /// moment ago). `deferred` waits while the line may still come in the blocking wait before
    /// it is due.
    async fn receive_by(
        &mut self,
        since: tokio::time::Instant,
        deadline: tokio::time::Instant,
        deferred: &mut dyn Deferred,
    ) -> Received {
        // The blocking wait never yields to the runtime by itself: spending the task's budget
        // makes it yield now and then, so that the runtime sees signals and its other tasks.
        tokio::task::consume_budget().await;
        let blocking = deadline.min(since + BLOCKING);
        // Most answers come long before the deferred work is due: it waits for them.
        let first = deferred
            .due()
            .map_or(blocking, |due| blocking.min(due.into()));
        if let Some(line) = self.receive_blocking(since, first) {
            return line;
        }
        deferred.catch_up();
        if first < blocking {
            let now = tokio::time::Instant::now();
            if let Some(line) = self.receive_blocking(now, blocking) {
                return line;
            }
        }
        // Until QUICK has passed, wait for the line alone, which spares a slower answer the
        // cost of also watching for the process's exit.
        let quick = deadline.min(since + QUICK);
        if let Ok(line) = timeout_at(quick, self.stdout.next_line()).await {
            return match line {
                Some(line) => line,
                None => self.exited(deadline, CLOSED_OUTPUT).await,
            };
        }
        tokio::select! {
            biased;
            line = self.stdout.next_line() => match line {
                Some(line) => line,
                None => self.exited(deadline, CLOSED_OUTPUT).await,
            },
            status = self.child.wait(), if self.exit.is_none() => {
                if let Ok(status) = status {
                    self.settle(status);
                }
                // A bot may write its last answer and exit at once: read what it left.
                match timeout(EXIT_GRACE, self.stdout.next_line()).await {
                    Ok(Some(line)) => line,
                    _ => self.exited(deadline, CLOSED_OUTPUT).await,
                }
            }
            // The bot may be exiting: then its exit says more.
            () = input_closed(self.input_watch.as_ref()) => self.exited(deadline, "closed its input").await,
            () = tokio::time::sleep_until(deadline) => Received::Timeout,
        }
    }

    /// The next line if it comes before `until`, in the blocking wait; `since` is now, or a
    /// moment ago.
    fn receive_blocking(
        &mut self,
        since: tokio::time::Instant,
        until: tokio::time::Instant,
    ) -> Option<Received> {
        let stderr = self.stderr.lines.as_ref().map(|(_, peek)| peek.as_fd());
        let (line, stderr_ready) = self.stdout.next_line_blocking(
            since,
            until.saturating_duration_since(since),
            &mut self.waiter,
            stderr,
        );
        self.stderr_ready.set(stderr_ready);
        line
    }

    /// Closes the bot's input (it reads the end of it).
    fn close_input(&mut self) {
        self.stdin = None;
        self.input_watch = None;
    }

    /// Writes as much of the queue as the pipe takes at once, without the runtime (the usual
    /// case: a request fits in the pipe); true if all of it went. Anything else (a full pipe,
    /// an error) is left to [`write_pending`](BotProcess::write_pending), which goes on from
    /// `written` and sees the error again.
    fn write_now(&mut self) -> bool {
        let Some(stdin) = self.stdin.as_ref() else {
            return false;
        };
        while self.written < self.pending.len() {
            match nix::unistd::write(stdin, &self.pending[self.written..]) {
                Ok(n) if n > 0 => self.written += n,
                _ => return false,
            }
        }
        self.pending.clear();
        self.written = 0;
        true
    }

    /// Writes the queue; cancel-safe, since progress is kept in `written`.
    async fn write_pending(&mut self) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        while self.written < self.pending.len() {
            match stdin.write(&self.pending[self.written..]).await {
                Ok(0) | Err(_) => {
                    self.close_input();
                    return false;
                }
                Ok(n) => self.written += n,
            }
        }
        self.pending.clear();
        self.written = 0;
        true
    }

    /// How the process ended, waiting for it (until `deadline`, and a moment at least) if it
    /// closed its output or its input first: a bot that exits at once is told by its exit,
    /// however loaded the machine, not by which of its pipes the referee saw close first.
    async fn exited(&mut self, deadline: tokio::time::Instant, closed: &str) -> Received {
        let until = deadline.max(tokio::time::Instant::now() + EXIT_GRACE);
        if self.exit.is_none()
            && let Ok(Ok(status)) = timeout_at(until, self.child.wait()).await
        {
            self.settle(status);
        }
        Received::Exited(match self.exit {
            Some(status) => describe(status),
            None => closed.to_string(),
        })
    }

    /// The CPU time the bot's processes have used so far (see [`crate::bot::cputime`]).
    pub fn cpu_time(&self) -> Option<Duration> {
        crate::bot::cputime::tree_cpu(self.child.id()?)
    }

    /// Records how the bot ended: the status its namespace's init reported, if contained (the
    /// referee's own child is only the keeper), else `status`.
    fn settle(&mut self, status: ExitStatus) -> ExitStatus {
        let reported = self
            .containment
            .as_mut()
            .and_then(|c| c.report().status)
            .map(ExitStatus::from_raw);
        let status = reported.unwrap_or(status);
        self.exit = Some(status);
        status
    }

    /// Whether the bot, once ended, had left processes running (they were killed with it);
    /// `None` when unknown (not contained, or killed before it could tell).
    pub fn left_processes(&mut self) -> Option<bool> {
        self.containment.as_mut().and_then(|c| c.report().leftovers)
    }

    /// Ends the process politely: writes what is queued and closes its input, gives it `grace`
    /// to exit, then SIGTERM, then SIGKILL, always to the whole group. Also says whether the
    /// bot left processes behind ([`left_processes`](BotProcess::left_processes)).
    pub async fn shutdown(mut self, grace: Duration) -> (Ending, Option<bool>) {
        self.flush(grace).await;
        self.close_input();
        let mut ending = Ending::Exited;
        if self.exit.is_none() && timeout(grace, self.child.wait()).await.is_err() {
            let _ = killpg(self.pgid, Signal::SIGTERM);
            ending = Ending::Terminated;
            if timeout(grace, self.child.wait()).await.is_err() {
                let _ = killpg(self.pgid, Signal::SIGKILL);
                ending = Ending::Killed;
            }
        }
        self.reap().await;
        (ending, self.left_processes())
    }

    /// Asks a contained bot's init to stop (hold) or continue (go) every process of the bot,
    /// and waits for its answer: whether it did (a hold it could not complete killed them
    /// all). `None` where there is no one to ask (not contained, or no PID namespace): the bot
    /// then runs on.
    pub async fn ask_init(&mut self, ask: sandbox::Ask) -> Option<bool> {
        let containment = self.containment.as_mut().filter(|c| c.can_hold())?;
        if !containment.ask(ask) {
            return Some(false);
        }
        let fd = containment.answers_fd();
        // SAFETY: the descriptor is the containment's, borrowed here for longer than the watch.
        let Ok(answers) = (unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) })
        else {
            return Some(false);
        };
        let answered = timeout(INIT_ANSWER, async {
            loop {
                if let Some(done) = containment.answer(ask) {
                    return done;
                }
                match answers.readable().await {
                    Ok(mut ready) => ready.clear_ready(),
                    Err(_) => return false,
                }
            }
        });
        Some(answered.await.unwrap_or(false))
    }

    /// Kills the whole group at once (after a fault).
    pub async fn kill(mut self) {
        let _ = killpg(self.pgid, Signal::SIGKILL);
        self.reap().await;
    }

    async fn reap(&mut self) {
        // Grandchildren may outlive the leader while holding its pipes: kill what is left.
        let _ = killpg(self.pgid, Signal::SIGKILL);
        if let Ok(status) = self.child.wait().await {
            self.settle(status);
        }
        self.stderr.drained(EXIT_GRACE).await;
        crate::bot::shutdown::unregister(self.pgid);
        self.save_tmp();
    }

    /// Saves what the bot left in its private /tmp next to its stderr file: every process of
    /// the bot is gone by now.
    fn save_tmp(&mut self) {
        let tmp = self.containment.as_mut().and_then(Containment::take_tmp);
        if let (Some(tmp), Some((dest, cap))) = (tmp, &self.keep_tmp) {
            match sandbox::scratch::save(tmp, dest, *cap) {
                Ok(saved) => tracing::debug!(?saved, "the bot's /tmp saved"),
                Err(e) => tracing::warn!("cannot save the bot's /tmp in {}: {e}", dest.display()),
            }
        }
    }

    /// The last lines the bot wrote on stderr (cleaned for display, cut short), waiting a
    /// moment for the drain to read what an ending bot wrote last.
    pub async fn stderr_tail(&mut self) -> Option<String> {
        self.stderr.drained(EXIT_GRACE).await;
        self.stderr_so_far()
    }

    /// The last lines the bot wrote on stderr so far (cleaned for display, cut short), without
    /// waiting: for a bot that is still running.
    pub fn stderr_so_far(&self) -> Option<String> {
        self.stderr.tail.lock().ok()?.text()
    }

    /// All the bot's stderr kept for a crash's message (its last 2 KiB, raw), where the lines
    /// [`stderr_so_far`](Self::stderr_so_far) quotes are too few to say why it ended (Lua's
    /// missing module lists every path it tried above its traceback).
    pub fn stderr_kept(&self) -> String {
        self.stderr
            .tail
            .lock()
            .map(|tail| {
                let bytes: Vec<u8> = tail.bytes.iter().copied().collect();
                String::from_utf8_lossy(&bytes).into_owned()
            })
            .unwrap_or_default()
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // Reached when a match is abandoned (Ctrl-C, an error): no process may outlive it.
        if self.exit.is_none() || !self.stderr.thread.is_finished() {
            let _ = killpg(self.pgid, Signal::SIGKILL);
        }
    }
}

/// A watch on the input pipe for the bot closing its end (the pipe reports an error then).
fn watch_input(stdin: &ChildStdin) -> Option<AsyncFd<OwnedFd>> {
    let fd = stdin.as_fd().try_clone_to_owned().ok()?;
    // SAFETY: an OwnedFd stays open, and the same descriptor, for as long as it is owned.
    unsafe { AsyncFd::register_with_interest(fd, Interest::ERROR) }.ok()
}

/// Resolves once the bot has closed its input (never, without a watch).
async fn input_closed(watch: Option<&AsyncFd<OwnedFd>>) {
    match watch {
        Some(watch) => match watch.ready(Interest::ERROR).await {
            Ok(mut guard) => guard.retain_ready(),
            Err(_) => std::future::pending().await,
        },
        None => std::future::pending().await,
    }
}

/// Reads a bot's output line by line, with a length cap ([`LineFramer`]). Cancel-safe: a line
/// cut off by a deadline is kept and completed by the next call.
struct LineReader {
    stdout: ChildStdout,
    framer: LineFramer,
    /// Where a blocking read lands before it joins the framer's buffer.
    scratch: Box<[u8]>,
    eof: bool,
    /// Bytes read so far, to tell a bot that wrote nothing from one that wrote half a line.
    total: u64,
}

impl LineReader {
    fn new(stdout: ChildStdout, max_line: usize) -> LineReader {
        LineReader {
            stdout,
            framer: LineFramer::new(max_line),
            scratch: vec![0; 64 * 1024].into_boxed_slice(),
            eof: false,
            total: 0,
        }
    }

    /// The start of an unfinished line in the buffer, if there is one.
    fn partial(&self) -> Option<String> {
        self.framer.partial()
    }

    /// The next line, or `None` at the end of the output.
    async fn next_line(&mut self) -> Option<Received> {
        loop {
            if let Some(line) = self.framer.next_line() {
                return Some(line);
            }
            if self.eof {
                return self.framer.rest();
            }
            self.fill().await;
        }
    }

    /// The next line if it comes within `wait` from `since` (a moment ago), waited for in a
    /// blocking wait on this thread ([`AnswerWait`]); `None` if it does not, at the end of the
    /// output, on a signal or on any error: the async wait then takes over and sees what
    /// happened.
    ///
    /// The same wait watches the bot's `stderr` pipe (`stderr`, when its lines are gathered),
    /// and says whether it held bytes when the line came (`None`: not looked at). The stderr
    /// lines taken with the answer need that look, which would otherwise cost a system call of
    /// its own on every move.
    fn next_line_blocking(
        &mut self,
        since: tokio::time::Instant,
        wait: Duration,
        waiter: &mut AnswerWait,
        stderr: Option<BorrowedFd<'_>>,
    ) -> (Option<Received>, Option<bool>) {
        let until = since + wait;
        // The first wait is taken as given: the clock is read again only for a line that
        // comes in pieces.
        let mut left = wait;
        waiter.rearm(stderr);
        let mut stderr_ready = None;
        loop {
            if let Some(line) = self.framer.next_line() {
                return (Some(line), stderr_ready);
            }
            if self.eof || left.is_zero() {
                return (None, None);
            }
            let Some(seen) = waiter.wait(left) else {
                return (None, None);
            };
            stderr_ready = match seen.stderr {
                Some(ready) => Some(ready),
                // Watched and not reported: it held nothing when stdout was.
                None if waiter.watches_stderr() => stderr_ready.or(Some(false)),
                None => stderr_ready,
            };
            if seen.stdout {
                match nix::unistd::read(&self.stdout, &mut self.scratch) {
                    Ok(0) | Err(_) => return (None, None),
                    Ok(n) => {
                        self.framer.buffer().extend_from_slice(&self.scratch[..n]);
                        self.total += n as u64;
                    }
                }
            }
            // Only stderr was written to, or a piece of the line came: the rest is to come.
            left = until.saturating_duration_since(tokio::time::Instant::now());
        }
    }

    async fn fill(&mut self) {
        // read_buf only ever appends what was read, so a read cut off by a deadline leaves the
        // buffer as it was.
        let buf = self.framer.buffer();
        buf.reserve(64 * 1024);
        match self.stdout.read_buf(buf).await {
            Ok(0) | Err(_) => self.eof = true,
            Ok(n) => self.total += n as u64,
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

/// The thread that drains a bot's stderr. A thread of its own, in plain blocking reads: the
/// referee's thread may wait for answers in blocking calls, and a bot must never block on a
/// full stderr pipe meanwhile.
struct StderrDrain {
    thread: std::thread::JoinHandle<()>,
    /// Where its lines are gathered, and another handle on the pipe to see what is unread.
    lines: Option<(Arc<StderrLines>, OwnedFd)>,
    /// Resolves when the thread has read the end of the stream (`None` once it has).
    done: Option<tokio::sync::oneshot::Receiver<()>>,
    /// The last bytes read, for a crash's message.
    tail: Arc<std::sync::Mutex<Tail>>,
}

/// The last bytes of a stream, at most [`Tail::KEEP`].
#[derive(Default)]
struct Tail {
    bytes: std::collections::VecDeque<u8>,
}

impl Tail {
    const KEEP: usize = 2048;
    /// The most lines and characters a crash's message quotes.
    const LINES: usize = 3;
    const CHARS: usize = 300;

    fn push(&mut self, chunk: &[u8]) {
        let chunk = &chunk[chunk.len().saturating_sub(Self::KEEP)..];
        let over = (self.bytes.len() + chunk.len()).saturating_sub(Self::KEEP);
        self.bytes.drain(..over);
        self.bytes.extend(chunk);
    }

    /// The last non-empty lines, joined with " | ", cleaned and cut short.
    fn text(&self) -> Option<String> {
        let bytes: Vec<u8> = self.bytes.iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let last = &lines[lines.len().saturating_sub(Self::LINES)..];
        if last.is_empty() {
            return None;
        }
        let joined = crate::text::terminal(&last.join(" | "));
        let mut cut: String = joined
            .chars()
            .rev()
            .take(Self::CHARS)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if cut.len() < joined.len() {
            cut.insert(0, '…');
        }
        Some(cut)
    }
}

impl StderrDrain {
    fn start(err: tokio::process::ChildStderr, sink: StderrSink) -> io::Result<StderrDrain> {
        let fd = err.into_owned_fd()?;
        // The runtime made the pipe non-blocking; this thread wants to sleep in its reads.
        let flags = nix::fcntl::OFlag::from_bits_truncate(nix::fcntl::fcntl(
            &fd,
            nix::fcntl::FcntlArg::F_GETFL,
        )?);
        nix::fcntl::fcntl(
            &fd,
            nix::fcntl::FcntlArg::F_SETFL(flags - nix::fcntl::OFlag::O_NONBLOCK),
        )?;
        let lines = match &sink.lines {
            Some(lines) => Some((Arc::clone(lines), fd.try_clone()?)),
            None => None,
        };
        let (tx, done) = tokio::sync::oneshot::channel();
        let tail = Arc::new(std::sync::Mutex::new(Tail::default()));
        let kept = Arc::clone(&tail);
        let thread = std::thread::Builder::new()
            .name("bot stderr".into())
            .spawn(move || {
                drain_stderr(std::fs::File::from(fd), sink, &kept);
                let _ = tx.send(());
            })?;
        Ok(StderrDrain {
            thread,
            lines,
            done: Some(done),
            tail,
        })
    }

    /// Waits at most `limit` for the thread to read the end of the stream.
    async fn drained(&mut self, limit: Duration) {
        if let Some(done) = self.done.as_mut()
            && timeout(limit, done).await.is_ok()
        {
            self.done = None;
        }
    }
}

fn drain_stderr(mut err: std::fs::File, sink: StderrSink, tail: &std::sync::Mutex<Tail>) {
    // Appends: a bot restarted after a fault keeps writing to the same file.
    let mut file = sink
        .file
        .as_ref()
        .and_then(|p| sandbox::files::append_existing(p).ok());
    let prefix: Option<Arc<str>> = sink.echo_prefix.as_deref().map(Arc::from);
    let mut written = 0u64;
    let mut buf = vec![0u8; 16 * 1024];
    let mut pending = Vec::new();
    // The file gets whole lines: the bot's other processes (one a seat arrangement) append to
    // it too, and a line written in pieces must not take one of theirs in its middle.
    let mut unwritten = Vec::new();
    loop {
        if let Some(lines) = &sink.lines {
            readable(&err);
            lines.reading();
        }
        let n = match io::Read::read(&mut err, &mut buf) {
            Ok(0) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        // The lines first: an answer may be waiting for them.
        if let Some(lines) = &sink.lines {
            lines.add(chunk);
        }
        if let Ok(mut tail) = tail.lock() {
            tail.push(chunk);
        }
        if let Some(f) = file.as_mut() {
            let room = sink.cap.saturating_sub(written) as usize;
            let keep = &chunk[..chunk.len().min(room)];
            written += keep.len() as u64;
            let cut = keep.len() < chunk.len();
            unwritten.extend_from_slice(keep);
            let upto = passable(&unwritten, cut);
            let mut ok = io::Write::write_all(f, &unwritten[..upto]).is_ok();
            unwritten.drain(..upto);
            if cut {
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
            pending.extend_from_slice(chunk);
            echo(prefix, &mut pending, false);
        }
    }
    if let Some(lines) = &sink.lines {
        lines.read_nothing();
    }
    if let Some(f) = file.as_mut() {
        let _ = io::Write::write_all(f, &unwritten);
    }
    if let Some(prefix) = &prefix {
        echo(prefix, &mut pending, true);
    }
}

/// Sleeps until `file` has something to read, or its end (a failed wait reads at once).
fn readable(file: &std::fs::File) {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
    while let Err(nix::errno::Errno::EINTR) = poll(&mut fds, PollTimeout::NONE) {}
}

/// The longest piece of one stderr line held back for its end before it is passed on anyway.
const LINE_PIECE: usize = 4096;

/// How much of `pending` to pass on: its whole lines, or all of it at its `end` or once its
/// unfinished line is longer than [`LINE_PIECE`].
fn passable(pending: &[u8], end: bool) -> usize {
    let whole = pending
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    match end || pending.len() - whole > LINE_PIECE {
        true => pending.len(),
        false => whole,
    }
}

/// Echoes the whole lines in `pending` (and the rest too when `end`, or when it grows past
/// [`LINE_PIECE`]) to the referee's stderr, each prefixed and made safe for a terminal; keeps
/// the unfinished line. Whole lines are cleaned, so that no escape sequence or multi-byte
/// character is split between two reads.
fn echo(prefix: &str, pending: &mut Vec<u8>, end: bool) {
    use std::io::Write;
    let upto = passable(pending, end);
    let mut text = String::new();
    for line in pending[..upto].split_inclusive(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        text.push_str(prefix);
        text.push_str(&crate::text::terminal(&String::from_utf8_lossy(line)));
        text.push('\n');
    }
    pending.drain(..upto);
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state letter of every process below `pid` (its children, theirs, ...).
    fn states_below(pid: u32) -> Vec<char> {
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
        let mut states = Vec::new();
        for child in children.unwrap_or_default().split_whitespace() {
            let child: u32 = child.parse().expect("a process id");
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            let state = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.chars().next());
            states.extend(state);
            states.extend(states_below(child));
        }
        states
    }

    /// A contained bot whose init stays a fork of the referee (a program that only embeds the
    /// library): held, its shell and the shell's child are stopped; continued, neither is.
    #[tokio::test]
    async fn a_held_bot_has_every_process_stopped_until_it_goes_on() {
        let argv = [
            "/bin/sh",
            "-c",
            "sleep 30 & echo started; read line; kill $!",
        ]
        .map(String::from);
        let env = BTreeMap::new();
        let launch = Launch {
            argv: &argv,
            dir: None,
            env: &env,
            read: &[],
            write: &[],
        };
        let policy = Policy {
            enabled: true,
            ..Policy::default()
        };
        let sink = StderrSink {
            file: None,
            cap: 0,
            echo_prefix: None,
            lines: None,
        };
        let mut bot = BotProcess::spawn(&launch, 1024, sink, &policy, None).expect("a shell");
        let init = bot.containment.as_mut().and_then(|c| c.report().init);
        let said = bot.receive(Duration::from_secs(30), &mut Nothing).await;
        assert_eq!(said, Received::Line("started".into()));
        let Some(init) = init else {
            // No PID namespace on this machine: no one to hold the bot.
            assert_eq!(bot.ask_init(sandbox::Ask::Hold).await, None);
            return bot.kill().await;
        };
        assert_eq!(bot.ask_init(sandbox::Ask::Hold).await, Some(true));
        let held = states_below(init);
        assert_eq!(held, ['T', 'T'], "the shell and its sleep");
        assert_eq!(bot.ask_init(sandbox::Ask::Go).await, Some(true));
        let going = states_below(init);
        assert_eq!(going.len(), 2);
        assert!(!going.contains(&'T'), "{going:?}");
        bot.kill().await;
    }
}
