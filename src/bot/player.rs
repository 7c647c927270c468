//! A seat's player as the referee drives it: an external bot process speaking the protocol, or
//! a builtin bot. It owns the request ids, the handshake, and turning what a bot wrote into a
//! move or a [`Fault`].

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::bot::builtin::{self, Builtin};
use crate::bot::clock::{Clock, ClockKind, Clocks};
use crate::bot::fault::{Fault, FaultKind};
use crate::bot::framing::Received;
use crate::bot::framing::parse_answer;
use crate::bot::lifetime::Dealt;
use crate::bot::process::{BotProcess, Deferred, Ending, Launch, Nothing, StderrSink};
use crate::bot::timing::MoveTimes;
use crate::sandbox::{Ask, Policy};
use crate::text;
use allfives_engine::game::{Game, Move};
use allfives_engine::json::TurnWriter;
use allfives_engine::protocol::{FromBot, Info, PROTOCOL_VERSION, ToBot};
use allfives_engine::rules::Seat;
use allfives_engine::view::Choice;

/// A bot as given on the command line or in a bots file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BotSpec {
    /// The name shown in results.
    pub name: String,
    /// The command line as given (`builtin:NAME` for builtins).
    pub command: String,
    /// The working directory its process starts in (default: the referee's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// Variables added to its environment.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Folders it may also read, contained (a bots file's `read`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<PathBuf>,
    /// Folders it may also write, contained (a bots file's `write`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<PathBuf>,
    #[serde(skip)]
    kind: BotKind,
    /// Whether the command line gave the name (then a bot's `hello` name does not replace it).
    #[serde(skip)]
    name_given: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum BotKind {
    Builtin(String),
    Command(Vec<String>),
}

impl BotSpec {
    /// Reads a bot argument: `NAME=COMMAND` (a bot named NAME), `builtin:NAME`, a path to an
    /// executable, or a command line.
    pub fn parse(text: &str) -> Result<BotSpec, String> {
        match text.split_once('=') {
            Some((name, command)) if is_name(name) => {
                Ok(BotSpec::with_setup(command, None, BTreeMap::new())?
                    .with_given_name(name.to_string()))
            }
            // `a/b=builtin:greedy`: no command, but a name that is not one (a command line with
            // an `=` in an argument has a space before it).
            Some((name, _)) if !name.contains(char::is_whitespace) => {
                BotSpec::with_setup(text, None, BTreeMap::new()).map_err(|_| name_problem(name))
            }
            _ => BotSpec::with_setup(text, None, BTreeMap::new()),
        }
    }

    /// A bot from its command, started in `dir` (if given) with `env` added to its environment.
    pub fn with_setup(
        command: &str,
        dir: Option<PathBuf>,
        env: BTreeMap<String, String>,
    ) -> Result<BotSpec, String> {
        if let Some(name) = command.strip_prefix("builtin:") {
            if dir.is_some() || !env.is_empty() {
                return Err(format!(
                    "{command} runs inside the referee: `dir` and `env` do not apply to it; \
                     remove them"
                ));
            }
            Builtin::new(name, 0)?;
            return Ok(BotSpec {
                name: builtin::default_name(name),
                command: command.to_string(),
                dir: None,
                env: BTreeMap::new(),
                read: Vec::new(),
                write: Vec::new(),
                kind: BotKind::Builtin(name.to_string()),
                name_given: false,
            });
        }
        check_env(&env)?;
        let argv = shlex::split(command)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| format!("bot '{command}' is not a command line (check its quotes)"))?;
        let base = dir.clone().unwrap_or_default();
        if !base.as_os_str().is_empty() && !base.is_dir() {
            return Err(format!(
                "bot '{command}': {} is not a folder",
                base.display()
            ));
        }
        find_program(&argv[0], &base).map_err(|why| format!("bot '{command}': {why}"))?;
        find_script(&argv[1..], &base).map_err(|why| format!("bot '{command}': {why}"))?;
        Ok(BotSpec {
            name: name_of(&argv, &base),
            command: command.to_string(),
            dir,
            env,
            read: Vec::new(),
            write: Vec::new(),
            kind: BotKind::Command(argv),
            name_given: false,
        })
    }

    /// Grants the bot folders to read and to write besides what every contained bot may.
    pub fn with_access(mut self, read: Vec<PathBuf>, write: Vec<PathBuf>) -> BotSpec {
        self.read = read;
        self.write = write;
        self
    }

    /// How its process starts (`None` for a builtin).
    pub fn launch(&self) -> Option<Launch<'_>> {
        let BotKind::Command(argv) = &self.kind else {
            return None;
        };
        Some(Launch {
            argv,
            dir: self.dir.as_deref(),
            env: &self.env,
            read: &self.read,
            write: &self.write,
        })
    }

    /// The folders that hold the bot's own files (none for a builtin): hidden from other bots.
    pub fn homes(&self) -> Vec<PathBuf> {
        match &self.kind {
            BotKind::Command(argv) => {
                let named = crate::bot::process::named_from(argv, self.dir.as_deref());
                crate::sandbox::homes(&named, self.dir.as_deref())
            }
            BotKind::Builtin(_) => Vec::new(),
        }
    }

    /// The bot's command line, split into words (`None` for a builtin).
    pub fn argv(&self) -> Option<&[String]> {
        match &self.kind {
            BotKind::Command(argv) => Some(argv),
            BotKind::Builtin(_) => None,
        }
    }

    /// Whether the bot runs as a process of its own (not a builtin).
    pub fn is_process(&self) -> bool {
        matches!(self.kind, BotKind::Command(_))
    }

    /// Renames the bot (to tell apart two bots of the same name).
    pub fn renamed(mut self, name: String) -> BotSpec {
        self.name = name;
        self
    }

    /// Names the bot as the user asked: its `hello` name will not replace this one.
    pub fn with_given_name(mut self, name: String) -> BotSpec {
        self.name = name;
        self.name_given = true;
        self
    }
}

/// Makes names unique, in order: a name already taken gets the first free `#2`, `#3`, ...
pub fn tell_apart(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut unique: Vec<String> = Vec::new();
    for name in names {
        let mut candidate = name.clone();
        let mut n = 1;
        while unique.contains(&candidate) {
            n += 1;
            candidate = format!("{name}#{n}");
        }
        unique.push(candidate);
    }
    unique
}

/// The longest display name taken from a bot's `hello`, in characters.
const MAX_HELLO_NAME: usize = 40;

/// A name a bot or a file chose (its `hello` name, its script's file name) made fit for a
/// terminal: every control, bidi or invisible character shown escaped ([`text::terminal`]), so
/// that no name can act on a terminal or pass for another; no `/`, trimmed and short. `None` if
/// nothing is left. File names are made of it with [`text::file_name`].
fn display_name(name: &str) -> Option<String> {
    // Cut before it is escaped, so that the cut never falls inside an escape (`\u{`).
    let short: String = name
        .chars()
        .filter(|c| *c != '/')
        .take(MAX_HELLO_NAME)
        .collect();
    let clean = text::terminal(short.trim());
    (!clean.is_empty()).then_some(clean)
}

/// The longest name the user may give a bot (`NAME=COMMAND`, a bots file), in bytes.
pub const MAX_NAME: usize = 64;

/// Why `name` cannot name a bot, in a sentence that says what a name may hold.
pub fn name_problem(name: &str) -> String {
    let shown = text::terminal(name);
    match name.len() > MAX_NAME {
        true => format!("the bot name '{shown}' is too long: a name has at most {MAX_NAME} bytes"),
        false => format!(
            "'{shown}' is not a valid bot name: a name holds letters, digits, _ . - and # only"
        ),
    }
}

/// Whether `name` can name a bot in `NAME=COMMAND`: letters, digits, `_ . -` and `#` (no
/// invisible letter), at most [`MAX_NAME`] bytes, so that an `=` inside a command
/// (`./bot --depth=3`) is never taken for a name.
pub fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_.-#".contains(c))
        && text::terminal(name) == name
}

/// The longest `KEY=VALUE` the kernel passes to a new process, in bytes with its NUL
/// (Linux's MAX_ARG_STRLEN, 32 pages of 4 KiB).
const MAX_ENV_ENTRY: usize = 32 * 4096;

/// The most bytes of variables a bot may be given in all: the kernel's limit for the arguments
/// and the environment together is 2 MiB or more, of which the referee's own environment and
/// the command line take their share.
const MAX_ENV_TOTAL: usize = 1024 * 1024;

/// Refuses variables that could never start a process, so that every game would not be a
/// crash forfeit: a name empty or holding `=` or a control character, a NUL byte, an entry or
/// a total too large.
fn check_env(env: &BTreeMap<String, String>) -> Result<(), String> {
    let mut total = 0;
    for (key, value) in env {
        let shown = text::terminal(key);
        if key.is_empty() {
            return Err("env: a variable needs a name (an empty key was given)".into());
        }
        if key.contains('=') {
            return Err(format!(
                "env key '{shown}': a variable's name cannot hold '=' (write the value apart)"
            ));
        }
        if key.contains('\0') || value.contains('\0') {
            return Err(format!(
                "env '{shown}': a variable cannot hold a NUL byte (\\u0000)"
            ));
        }
        // A newline or other control in a name makes a variable no shell can name or set,
        // and `env` prints it as two lines: a slip, never what was meant.
        if key.chars().any(char::is_control) {
            return Err(format!(
                "env key '{shown}': a variable's name cannot hold a control character (a newline, a tab): write its name on one line"
            ));
        }
        let entry = key.len() + value.len() + 2;
        if entry > MAX_ENV_ENTRY {
            return Err(format!(
                "env '{shown}': {entry} bytes is too large to start a process (at most {MAX_ENV_ENTRY} bytes a variable)"
            ));
        }
        total += entry;
    }
    match total > MAX_ENV_TOTAL {
        true => Err(format!(
            "env: {total} bytes of variables in all is too large to start a process reliably \
             (at most {MAX_ENV_TOTAL})"
        )),
        false => Ok(()),
    }
}

/// Checks that a program can be found, as the shell would look for it (a path from `base`, the
/// bot's working directory), and can be run.
fn find_program(program: &str, base: &Path) -> Result<(), String> {
    if program.contains('/') {
        return runnable(&base.join(program));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file());
    match found {
        Some(path) => runnable(&path),
        None if base.join(program).is_file() => Err(format!(
            "{program} is not found on PATH (a file of that name is in the bot's folder: write \
             ./{program} to run it)"
        )),
        None => Err(format!("{program} is not found on PATH")),
    }
}

/// Whether `path` is a file the user may execute that is a program: a binary (ELF) or a
/// script with a `#!` line. Anything else would only fail at the first game.
fn runnable(path: &Path) -> Result<(), String> {
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|_| format!("{shown} is not a file"))?;
    if !meta.is_file() {
        return Err(format!("{shown} is not a file"));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(format!(
            "{shown} is not executable (chmod +x it, or name its interpreter first)"
        ));
    }
    let mut head = [0u8; 4];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| format!("{shown} cannot be read: {e}"))?;
    match &head[..n] {
        [0x7f, b'E', b'L', b'F'] => Ok(()),
        [b'#', b'!', ..] => Ok(()),
        _ => Err(format!(
            "{shown} is not a program (neither a binary nor a script starting with #!)"
        )),
    }
}

/// Checks the script an interpreter is given (`python3 bot.py`), when the first argument names
/// one by its extension: a typo there would otherwise show only as a crash at the first game.
fn find_script(args: &[String], base: &Path) -> Result<(), String> {
    const SCRIPTS: [&str; 10] = [
        "py", "js", "mjs", "cjs", "rb", "pl", "lua", "sh", "php", "jar",
    ];
    let Some(at) = args.iter().position(|a| !a.starts_with('-')) else {
        return Ok(());
    };
    let first = &args[at];
    // `bash -c 'exec python3 bot.py'`, `node -e ...`: a script's text, not a file's name.
    if args[..at].iter().any(|a| a == "-c" || a == "-e") || first.contains(char::is_whitespace) {
        return Ok(());
    }
    let path = base.join(first);
    let is_script = path
        .extension()
        .is_some_and(|e| SCRIPTS.contains(&e.to_string_lossy().as_ref()));
    match is_script && !path.is_file() {
        true => Err(format!("{first} is not a file")),
        false => Ok(()),
    }
}

/// A short name from a command: the script's file stem, else the program's.
fn name_of(argv: &[String], base: &Path) -> String {
    let script = argv
        .iter()
        .skip(1)
        .find(|a| !a.starts_with('-') && base.join(a).is_file());
    let word = script.unwrap_or(&argv[0]);
    let stem = Path::new(word)
        .file_stem()
        .map_or_else(|| word.clone(), |s| s.to_string_lossy().into_owned());
    display_name(&stem).unwrap_or_else(|| "bot".to_string())
}

/// How a bot fared over a match.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BotStats {
    /// Moves the bot was asked for and answered or timed out on (forced moves excluded).
    pub answers: u64,
    /// Their mean time, in milliseconds.
    pub mean_ms: f64,
    /// The slowest, in milliseconds (a move that timed out counts at the time it was given up
    /// on).
    pub slowest_ms: f64,
    /// Moves the bot did not answer in time (late answers included).
    pub timeouts: u64,
    /// Faults by kind.
    pub faults: BTreeMap<FaultKind, u32>,
    /// Every answer's time, for percentiles.
    #[serde(skip)]
    pub times: MoveTimes,
    #[serde(skip)]
    total: Duration,
}

impl BotStats {
    fn answered(&mut self, took: Duration) {
        self.answers += 1;
        self.times.record(took);
        self.total += took;
        self.mean_ms = ms(self.total) / self.answers as f64;
        self.slowest_ms = self.slowest_ms.max(ms(took));
    }

    /// A move that ran out of time after `took`: it counts among the answers' times.
    fn timed_out(&mut self, took: Duration) {
        self.answered(took);
        self.timeouts += 1;
    }

    /// Counts a fault.
    pub fn faulted(&mut self, kind: FaultKind) {
        *self.faults.entry(kind).or_default() += 1;
    }

    /// All faults of every kind.
    pub fn fault_count(&self) -> u32 {
        self.faults.values().sum()
    }
}

/// Milliseconds, fractional.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

enum Runner {
    Builtin(Builtin),
    Process(Option<Box<BotProcess>>),
}

/// A bot in a match: its spec, its running process (if any) and its statistics.
pub struct Player {
    /// What was asked for.
    pub spec: BotSpec,
    /// How it has fared.
    pub stats: BotStats,
    runner: Runner,
    next_id: u64,
    sink: StderrSink,
    max_line: usize,
    /// The name the bot gave in its first `hello`, made fit for display.
    hello_name: Option<String>,
    /// A failed first start, kept to be reported by the game that would have started it.
    failed_start: Option<Fault>,
    /// Scratch space for a builtin's legal moves.
    legal: (Vec<Move>, Vec<Choice>),
    policy: Arc<Policy>,
    left_processes: Option<bool>,
    /// What the running process has been dealt (forgotten when a new one starts).
    seen: HashSet<Dealt>,
    /// The seat arrangement (capped at [`KEPT_PROCESSES`] - 1) the running process plays.
    slot: usize,
    /// The processes of its other arrangements, idle until their arrangement's next game.
    idle: Vec<Idle>,
    /// What its processes tried and were refused (contained only; made at the first start).
    tally: Option<crate::sandbox::Tally>,
    /// What of the tally [`take_probed`](Player::take_probed) has handed out.
    probed_taken: crate::sandbox::Probed,
}

/// The most processes a bot keeps at once in a match (or a tournament's worker), one per seat
/// arrangement: arrangements from the last on share the last process, restarted before a deal
/// it has seen, so that a format of many arrangements (24 with 4 players in every order) does
/// not keep a process alive for each.
pub const KEPT_PROCESSES: usize = 4;

/// A process kept for its seat arrangement while the player plays another, with what it has
/// been dealt.
struct Idle {
    slot: usize,
    process: Box<BotProcess>,
    seen: HashSet<Dealt>,
}

/// A bot's answer to a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    /// The move.
    pub mv: Move,
    /// The time it took, as the clock measures it.
    pub took: Duration,
    /// What the bot said it was thinking, capped.
    pub info: Option<Info>,
    /// The line it wrote (empty for a builtin).
    pub line: String,
}

/// How to stop a bot process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Close its input, wait `grace`, SIGTERM, wait `grace`, SIGKILL.
    Politely(Duration),
    /// SIGKILL at once (after a fault).
    Kill,
}

impl Player {
    /// A player for `spec`, its process contained by `policy`; `seed` seeds builtins that use
    /// randomness.
    pub fn new(
        spec: BotSpec,
        seed: u64,
        sink: StderrSink,
        max_line: usize,
        policy: Arc<Policy>,
    ) -> Player {
        let runner = match &spec.kind {
            BotKind::Builtin(name) => Runner::Builtin(
                Builtin::new(name, seed).expect("BotSpec::with_setup accepts only valid builtins"),
            ),
            BotKind::Command(_) => Runner::Process(None),
        };
        Player {
            spec,
            stats: BotStats::default(),
            runner,
            next_id: 1,
            sink,
            max_line,
            hello_name: None,
            failed_start: None,
            legal: Default::default(),
            policy,
            left_processes: None,
            seen: HashSet::new(),
            slot: 0,
            idle: Vec::new(),
            tally: None,
            probed_taken: Default::default(),
        }
    }

    /// Seeds a builtin's randomness afresh (for a game that must play the same alone).
    pub fn reseed(&mut self, seed: u64) {
        if let (BotKind::Builtin(name), Runner::Builtin(bot)) = (&self.spec.kind, &mut self.runner)
        {
            *bot =
                Builtin::new(name, seed).expect("BotSpec::with_setup accepts only valid builtins");
        }
    }

    /// A player driven by a given builtin (fixed positions in `allfives check`).
    pub fn with_builtin(name: &str, bot: Builtin) -> Player {
        let spec = BotSpec {
            name: name.to_string(),
            command: format!("builtin:{name}"),
            dir: None,
            env: BTreeMap::new(),
            read: Vec::new(),
            write: Vec::new(),
            kind: BotKind::Builtin(name.to_string()),
            name_given: false,
        };
        Player {
            spec,
            stats: BotStats::default(),
            runner: Runner::Builtin(bot),
            next_id: 1,
            sink: StderrSink {
                file: None,
                cap: 0,
                echo_prefix: None,
                lines: None,
            },
            max_line: 0,
            hello_name: None,
            failed_start: None,
            legal: Default::default(),
            policy: Arc::new(Policy::default()),
            left_processes: None,
            seen: HashSet::new(),
            slot: 0,
            idle: Vec::new(),
            tally: None,
            probed_taken: Default::default(),
        }
    }

    /// Starts the bot before the match, to learn the name it gives in its `hello`; a failure
    /// is kept and reported when the first game starts the bot.
    pub async fn introduce(&mut self, clocks: &Clocks) {
        if let Err(fault) = self.start(clocks).await {
            self.failed_start = Some(fault);
        }
    }

    /// Why the bot could not start before the match ([`introduce`](Player::introduce)), until
    /// the first game reports it.
    pub fn failed_start(&self) -> Option<&Fault> {
        self.failed_start.as_ref()
    }

    /// The name to show: the command line's if it gave one, else the bot's `hello` name, else
    /// the name taken from its command.
    pub fn display_name(&self) -> &str {
        match (&self.hello_name, self.spec.name_given) {
            (Some(name), false) => name,
            _ => &self.spec.name,
        }
    }

    /// Starts the bot's process and shakes hands, unless it is already running.
    pub async fn start(&mut self, clocks: &Clocks) -> Result<(), Fault> {
        if !self.spec.is_process() || matches!(self.runner, Runner::Process(Some(_))) {
            return Ok(());
        }
        if let Some(fault) = self.failed_start.take() {
            return Err(fault);
        }
        let launch = self.spec.launch().expect("a command bot has a launch");
        if self.tally.is_none() && self.policy.enabled {
            // Without a page of counters the calls are still refused, only not counted.
            self.tally = crate::sandbox::Tally::new().ok();
        }
        let (sink, tally) = (self.sink.clone(), self.tally.as_ref());
        let mut process = BotProcess::spawn(&launch, self.max_line, sink, &self.policy, tally)
            .map_err(|e| Fault::new(FaultKind::Crash, launch.start_failure(&self.policy, &e)))?;
        tracing::debug!(bot = %self.spec.name, command = %self.spec.command, "started");
        self.seen.clear();
        let id = self.take_id();
        let hello = encode(&ToBot::Hello {
            id,
            protocol: PROTOCOL_VERSION,
            referee: format!("allfives {}", env!("CARGO_PKG_VERSION")),
        });
        process.queue(&hello);
        let asked = Instant::now();
        let answer = exchange(
            &mut process,
            id,
            asked,
            clocks.startup,
            self.max_line,
            &mut Nothing,
        )
        .await;
        match answer.map(|(answer, _)| answer) {
            Ok(FromBot::Hello {
                protocol: Some(version),
                ..
            }) if version != PROTOCOL_VERSION => {
                process.kill().await;
                Err(Fault::new(
                    FaultKind::Malformed,
                    format!("speaks protocol {version}; this referee speaks {PROTOCOL_VERSION}"),
                ))
            }
            Ok(FromBot::Hello { name, .. }) => {
                if self.hello_name.is_none() {
                    self.hello_name = name.as_deref().and_then(display_name);
                }
                self.runner = Runner::Process(Some(Box::new(process)));
                Ok(())
            }
            Ok(FromBot::Move { id, .. }) => {
                process.kill().await;
                Err(Fault::new(
                    FaultKind::Malformed,
                    format!("answered the handshake with a move (id {id}) instead of a hello"),
                ))
            }
            Err(fault) => {
                process.kill().await;
                Err(fault)
            }
        }
    }

    /// Makes the process of seat arrangement `arrangement` the running one: the process running
    /// now waits, idle, for its own arrangement's next game, and the idle one of `arrangement`
    /// takes over (without one, the next [`start`](Player::start) starts it). Each process then
    /// sees every deal in one arrangement only, so never twice; arrangements from
    /// [`KEPT_PROCESSES`] - 1 on share one process, which the check before a deal it has seen
    /// restarts. A contained process is held (every process of its sandbox stopped) for as
    /// long as it is idle, so that it passes nothing to the one that plays; it is held before
    /// the next plays, and continued before it is asked anything. One that cannot be held or
    /// continued is killed (its arrangement then starts a new one).
    pub async fn take_up(&mut self, arrangement: usize) {
        let slot = arrangement.min(KEPT_PROCESSES - 1);
        if !matches!(self.runner, Runner::Process(_)) {
            return;
        }
        let idle_of_slot = self.idle.iter().position(|idle| idle.slot == slot);
        // A process dealt nothing yet (started to hear its hello) serves any arrangement; one
        // put to rest (idle while running is empty) is taken up again.
        if idle_of_slot.is_none() && (slot == self.slot || self.seen.is_empty()) {
            self.slot = slot;
            return;
        }
        self.rest().await;
        if let Some(at) = idle_of_slot {
            let mut idle = self.idle.swap_remove(at);
            let asked = Instant::now();
            let going = idle.process.ask_init(Ask::Go).await;
            let us = asked.elapsed().as_micros();
            if going == Some(false) {
                tracing::debug!(bot = %self.spec.name, us, "could not be continued: killed");
                idle.process.kill().await;
            } else {
                tracing::debug!(bot = %self.spec.name, us, ?going, "continued");
                self.runner = Runner::Process(Some(idle.process));
                self.seen = idle.seen;
            }
        }
        self.slot = slot;
    }

    /// Makes its running process idle (held, when contained) until the next
    /// [`take_up`](Player::take_up) of its arrangement: at a change of arrangement, and for a
    /// tournament's worker that turns to another group, whose games deal the same deals (a
    /// process of this group must not pass them on to the bot's process there). One that
    /// cannot be held is killed.
    pub async fn rest(&mut self) {
        let Runner::Process(running) = &mut self.runner else {
            return;
        };
        let Some(mut process) = running.take() else {
            return;
        };
        let seen = std::mem::take(&mut self.seen);
        let asked = Instant::now();
        let held = process.ask_init(Ask::Hold).await;
        let us = asked.elapsed().as_micros();
        if held == Some(false) {
            tracing::debug!(bot = %self.spec.name, us, "could not be held: killed");
            process.kill().await;
            return;
        }
        tracing::debug!(bot = %self.spec.name, us, ?held, "held");
        let slot = self.slot;
        self.idle.push(Idle {
            slot,
            process,
            seen,
        });
    }

    /// Stops every process of the bot, the idle ones included (each continued first),
    /// politely (`bye`, then `grace` before each signal); [`left_processes`](Player::left_processes)
    /// then says whether any had left processes behind.
    pub async fn stop_every(&mut self, grace: Duration) {
        let mut left = None;
        loop {
            if self.stop(Stop::Politely(grace)).await.is_some() {
                left = match (left, self.left_processes) {
                    (Some(a), Some(b)) => Some(a || b),
                    (a, b) => a.or(b),
                };
            }
            let Some(mut idle) = self.idle.pop() else {
                break;
            };
            // Held, it would not read its `bye`; one that cannot go on is killed by the stop.
            idle.process.ask_init(Ask::Go).await;
            self.runner = Runner::Process(Some(idle.process));
        }
        if left.is_some() {
            self.left_processes = left;
        }
    }

    /// Whether its running process has been dealt any of `dealt` (a builtin never is: it is
    /// reseeded for every game and keeps nothing).
    pub fn has_seen(&self, dealt: &[Dealt]) -> bool {
        self.listens() && dealt.iter().any(|d| self.seen.contains(d))
    }

    /// Notes that its running process is dealt `dealt`.
    pub fn remember(&mut self, dealt: &[Dealt]) {
        if self.listens() {
            self.seen.extend(dealt);
        }
    }

    /// Whether this player needs messages at all (builtins read nothing); only such a player
    /// is ever waited on.
    pub fn listens(&self) -> bool {
        matches!(self.runner, Runner::Process(Some(_)))
    }

    /// Queues an encoded line for the bot; it goes out with the next request or flush.
    pub fn queue(&mut self, line: &[u8]) {
        if let Runner::Process(Some(process)) = &mut self.runner {
            process.queue(line);
        }
    }

    /// Queues what `fill` appends (whole encoded lines), written straight into the bot's queue;
    /// `fill` is not called for a player that does not listen (a builtin).
    pub fn queue_with(&mut self, fill: impl FnOnce(&mut Vec<u8>)) {
        if let Runner::Process(Some(process)) = &mut self.runner {
            process.queue_with(fill);
        }
    }

    /// Writes what is queued, waiting at most `limit` for the bot to take it.
    pub async fn flush(&mut self, limit: Duration) {
        if let Runner::Process(Some(process)) = &mut self.runner {
            process.flush(limit).await;
        }
    }

    /// Asks `seat`'s player for its move in `game` within the clock, charges the time taken to
    /// it (wall or CPU time, as the clock measures), and returns both. `turns` writes the
    /// request (one writer per game); `deferred` is done if the answer has not come when it is
    /// due.
    pub async fn ask(
        &mut self,
        game: &Game,
        seat: Seat,
        turns: &mut TurnWriter,
        clock: &mut Clock,
        deferred: &mut dyn Deferred,
    ) -> Result<Answered, Fault> {
        let allowance = clock.allowance();
        let wall_limit = clock.kind().wall_limit(allowance);
        let mut start = Instant::now();
        let mut cpu_start = None;
        let id = self.take_id();
        let chosen = match &mut self.runner {
            Runner::Builtin(bot) => {
                // A builtin never waits: spending the task's budget makes a match between
                // builtins yield now and then, so that the runtime still sees Ctrl-C.
                tokio::task::consume_budget().await;
                // The yield waited on other tasks, not on the builtin: only its choice is timed.
                start = Instant::now();
                let (moves, choices) = &mut self.legal;
                game.legal_choices(moves, choices);
                bot.choose(choices)
                    .map(|mv| (mv, None, String::new()))
                    .ok_or_else(|| {
                        Fault::new(FaultKind::Illegal, "the builtin found no legal move")
                    })
            }
            Runner::Process(None) => Err(Fault::new(FaultKind::Crash, "is not running")),
            Runner::Process(Some(process)) => {
                let time_left_ms = allowance.as_millis() as u64;
                process.queue_with(|line| turns.write_turn(game, seat, id, time_left_ms, line));
                if clock.kind() == ClockKind::Cpu {
                    cpu_start = process.cpu_time();
                }
                match exchange(process, id, start, wall_limit, self.max_line, deferred).await {
                    Ok((answer, line)) => match answer.as_move() {
                        Some(mv) => Ok((mv, answer.info(), line)),
                        None => Err(Fault::with_input(
                            FaultKind::Malformed,
                            "answered a turn with a hello",
                            &line,
                        )),
                    },
                    Err(fault)
                        if fault.kind == FaultKind::Timeout && clock.kind() == ClockKind::Cpu =>
                    {
                        Err(backstop(fault, wall_limit))
                    }
                    Err(fault) => Err(fault),
                }
            }
        };
        let took = match (&self.runner, cpu_start) {
            (Runner::Process(Some(process)), Some(before)) => process
                .cpu_time()
                .map_or(start.elapsed(), |after| after.saturating_sub(before)),
            _ => start.elapsed(),
        };
        // A builtin has no clock (protocol.md): a busy machine must not make it forfeit.
        let clocked = matches!(self.runner, Runner::Process(_));
        if let Ok((_, info, line)) = &chosen
            && clocked
            && !clock.charge(took)
        {
            self.stats.timed_out(took);
            let what = match clock.kind() {
                ClockKind::Wall => "answered after",
                ClockKind::Cpu => "used CPU for",
            };
            // The move came too late, but it is the bot's: what it wrote is kept with its info.
            return Err(Fault::of_answer(
                FaultKind::Timeout,
                overran(what, took, allowance),
                line,
                info.clone(),
            ));
        }
        match &chosen {
            Ok(_) => self.stats.answered(took),
            Err(fault) if fault.kind == FaultKind::Timeout => self.stats.timed_out(took),
            Err(_) => {}
        }
        chosen.map(|(mv, info, line)| Answered {
            mv,
            took,
            info,
            line,
        })
    }

    /// Stops the bot's process, if it has one, and says how it ended (`None` without one);
    /// the next [`start`](Player::start) starts anew.
    pub async fn stop(&mut self, how: Stop) -> Option<Ending> {
        let Runner::Process(slot) = &mut self.runner else {
            return None;
        };
        let process = *slot.take()?;
        Some(match how {
            Stop::Politely(grace) => {
                let mut process = process;
                process.queue(&encode(&ToBot::Bye));
                let (ending, left) = process.shutdown(grace).await;
                self.left_processes = left;
                ending
            }
            Stop::Kill => {
                process.kill().await;
                Ending::Killed
            }
        })
    }

    /// The stderr lines the bot wrote since last asked (empty unless its sink gathers lines).
    pub fn stderr_lines(&self) -> Vec<String> {
        match &self.runner {
            Runner::Process(Some(process)) => process.stderr_lines(),
            // A process killed after a fault may have left lines behind.
            _ => self
                .sink
                .lines
                .as_ref()
                .map_or_else(Vec::new, |lines| lines.take(None, None)),
        }
    }

    /// Starts gathering the bot's stderr lines for a new game (the cap starts afresh).
    pub fn new_game_lines(&self) {
        if let Some(lines) = &self.sink.lines {
            lines.new_game();
        }
    }

    /// The id the next request will carry (the log records it with the move).
    pub fn next_request_id(&self) -> u64 {
        self.next_id
    }

    /// What the bot's processes have tried and been refused so far (see
    /// [`crate::sandbox::probes`]): empty for an honest bot, a builtin, or uncontained.
    pub fn probed(&self) -> crate::sandbox::Probed {
        self.tally
            .as_ref()
            .map(crate::sandbox::Tally::counts)
            .unwrap_or_default()
    }

    /// What the bot's processes have tried and been refused since the last call (each call is
    /// counted once: a game's results take what came before their end).
    pub fn take_probed(&mut self) -> crate::sandbox::Probed {
        let now = self.probed();
        let new = crate::sandbox::probes::since(&now, &self.probed_taken);
        self.probed_taken = now;
        new
    }

    /// Whether the bot, when last stopped politely, had left processes running (they were
    /// killed); `None` when unknown (not contained, or not stopped politely).
    pub fn left_processes(&self) -> Option<bool> {
        self.left_processes
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }
}

/// A timeout, with what the bot wrote meanwhile: the usual mistakes of a new bot are an answer
/// left in an output buffer and an answer without its newline.
fn timeout(process: &BotProcess, allowance: Duration, before: u64) -> Fault {
    let within = format!("did not answer within {:.0} ms", ms(allowance));
    match process.partial_line() {
        Some(start) => Fault::with_input(
            FaultKind::Timeout,
            format!("{within}: a line arrived without its newline (end each line with \\n)"),
            &start,
        ),
        // A bot whose fork was refused may wait for it (Bash retries): its stderr says why.
        None => match process
            .stderr_so_far()
            .filter(|said| refused_a_process(said))
        {
            Some(said) => Fault::new(
                FaultKind::Timeout,
                format!("{within}; its stderr ends: {said}. {PROCESS_LIMIT}"),
            ),
            None if process.bytes_read() == 0 => Fault::new(
                FaultKind::Timeout,
                format!("{within}: it never wrote a byte on stdout: is the output flushed?"),
            ),
            None if process.bytes_read() == before && process.answers() <= 1 => Fault::new(
                FaultKind::Timeout,
                format!(
                    "{within}: it wrote no byte on stdout since its hello: is the output flushed after each answer?"
                ),
            ),
            // Its earlier moves came, so its output is flushed; whether this answer would have
            // come later, or never, the clock's end cannot tell.
            None if process.bytes_read() == before => Fault::new(
                FaultKind::Timeout,
                format!(
                    "{within}, where its earlier answers came in time: it thought longer this \
                     turn, or stopped answering"
                ),
            ),
            None => Fault::new(FaultKind::Timeout, within),
        },
    }
}

/// An answer that came after its allowance: by how much, shown finely enough that the time
/// never reads as the allowance itself ("after 1000 ms, over its 1000 ms").
fn overran(what: &str, took: Duration, allowance: Duration) -> String {
    let over_ns = took.saturating_sub(allowance).as_nanos();
    let decimals: usize = match over_ns {
        n if n >= 10_000_000 => 0,
        n if n >= 100_000 => 1,
        _ => 3,
    };
    // Rounded up, in whole units of the last decimal shown: an overrun never shows as none.
    let unit_ns = 1_000_000 / 10u128.pow(decimals as u32);
    let over = over_ns.div_ceil(unit_ns) as f64 * unit_ns as f64 / 1e6;
    format!(
        "{what} {:.decimals$} ms: {over:.decimals$} ms over its {:.0} ms",
        ms(took),
        ms(allowance)
    )
}

/// What a refused fork or thread means for a contained bot.
const PROCESS_LIMIT: &str = "A new process or thread was refused: the bot reached its process \
     limit (--bot-processes N: at most N processes and threads at once, its children included); \
     start fewer (one long-lived process, protocol.md), or raise N";

/// Whether a bot's last words say that the system refused it a process or thread (EAGAIN):
/// Bash's `fork: retry: Resource temporarily unavailable`, Python's `[Errno 11]` and `can't
/// start new thread`, Node's `spawn EAGAIN`, the JVM's `unable to create native thread`.
fn refused_a_process(said: &str) -> bool {
    [
        "Resource temporarily unavailable",
        "EAGAIN",
        "[Errno 11]",
        "can't start new thread",
        "unable to create native thread",
    ]
    .iter()
    .any(|words| said.contains(words))
}

/// Why a bot ended before answering: how it ended, the last lines of its stderr (`said`, from
/// all it `kept`), and, where they look like the containment refused something, which option
/// grants it.
fn crash_detail(how: &str, stderr: Option<&str>, kept: &str) -> String {
    let Some(said) = stderr else {
        return format!("{how} before answering (it wrote nothing on stderr)");
    };
    let mut detail = format!("{how} before answering; its stderr ends: {said}");
    if refused_a_process(said) {
        detail.push_str(". ");
        detail.push_str(PROCESS_LIMIT);
    } else if let Some(hint) = hidden_module(kept).or_else(|| containment_hint(said)) {
        detail.push_str(". ");
        detail.push_str(&hint);
    }
    detail
}

/// A hint when a Lua bot's module was not found where it exists: Lua names every path it
/// tried (`no file '/home/me/.luarocks/share/lua/5.4/cjson.lua'`) above its traceback, which
/// is all the last lines show. A path the referee sees was hidden from the bot.
fn hidden_module(kept: &str) -> Option<String> {
    let (_, after) = kept.split_once("module '")?;
    let (module, rest) = after.split_once("' not found")?;
    let found = rest
        .split("no file '")
        .skip(1)
        .filter_map(|tried| tried.split_once('\'').map(|(path, _)| path))
        .find(|path| path.starts_with('/') && Path::new(path).exists())?;
    let grant = granted_folder(Path::new(found));
    Some(format!(
        "Lua did not find its module '{}', yet {} exists: the containment hid it (it is \
         outside the bot's folder and the system's): --bot-read {} grants it, --no-sandbox \
         turns the containment off (docs/fair-play.md)",
        crate::text::terminal(module),
        crate::text::terminal(found),
        crate::text::terminal(&grant.display().to_string())
    ))
}

/// The folder to grant for a hidden file: under the home folder, its tree there (as
/// `~/.luarocks`); elsewhere, the folder that holds it.
fn granted_folder(file: &Path) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    home.as_deref()
        .and_then(|home| {
            let top = file.strip_prefix(home).ok()?.components().next()?;
            Some(home.join(top))
        })
        .filter(|tree| tree.as_path() != file)
        .or_else(|| file.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| file.to_path_buf())
}

/// A hint when a bot's last words look like the containment refused it something.
fn containment_hint(said: &str) -> Option<String> {
    const REFUSALS: [&str; 5] = [
        "Permission denied",
        "Operation not permitted",
        "EACCES",
        "EPERM",
        "cannot change working directory",
    ];
    let absolute = said
        .split(|c: char| c.is_whitespace() || "'\"`:,()[]".contains(c))
        .find(|w| w.starts_with('/') && w.len() > 1);
    // Else the last quoted name (Python: `... file system: 'out.txt'`).
    let quoted = said
        .rsplit('\'')
        .nth(1)
        .filter(|w| !w.is_empty() && !w.contains(' '));
    let shown = absolute
        .or(quoted)
        .map_or("a file it needs".to_string(), |p| p.to_string());
    // A file it did not find that the referee sees was hidden from it (a log folder, another
    // bot's folder).
    let missing = ["No such file or directory", "ENOENT", "Cannot find module"];
    if absolute.is_some_and(|p| std::path::Path::new(p).exists())
        && missing.iter().any(|m| said.contains(m))
    {
        return Some(format!(
            "{shown} exists but the containment hid it (a log folder, or another bot's \
             folder): --bot-read {shown} grants it, --no-sandbox turns the containment off \
             (docs/fair-play.md)"
        ));
    }
    if said.contains("Read-only file system") || said.contains("EROFS") {
        return Some(format!(
            "Contained bots write only in their /tmp ($TMPDIR), saved next to their stderr file; \
             --bot-write DIR lets them write in DIR (here, where {shown} is)"
        ));
    }
    REFUSALS.iter().any(|r| said.contains(r)).then(|| {
        format!(
            "If the containment refused {shown}: --bot-read PATH (or --bot-write PATH) grants \
             it, --no-sandbox turns the containment off (docs/fair-play.md)"
        )
    })
}

/// A timeout on the CPU clock comes from its wall-time backstop: say so, and its size (the bot
/// waited without computing, or the machine was too loaded to run it).
fn backstop(mut fault: Fault, wall_limit: Duration) -> Fault {
    fault.detail = format!(
        "used little CPU but took over the wall-time backstop of {:.0} ms (--clock cpu: 3 times \
         the allowance plus 1 s): it waited without computing, or the machine was too loaded to \
         run it ({})",
        ms(wall_limit),
        fault.detail
    );
    fault
}

/// A message as one line of JSON.
pub fn encode(msg: &ToBot) -> Vec<u8> {
    let mut line = serde_json::to_vec(msg).expect("protocol messages always serialize");
    line.push(b'\n');
    line
}

/// Sends what is queued, which ends with request `id`, and reads lines until its answer
/// arrives, skipping late answers to earlier requests, or until something goes wrong: all
/// within `allowance` from `start`. The answer comes with its line as the bot wrote it.
/// `deferred` is done once due while waiting, and before a crash's stderr is read.
async fn exchange(
    process: &mut BotProcess,
    id: u64,
    start: Instant,
    allowance: Duration,
    max_line: usize,
    deferred: &mut dyn Deferred,
) -> Result<(FromBot, String), Fault> {
    let before = process.bytes_read();
    let mut received = process.request(start, allowance, deferred).await;
    loop {
        let text = match received {
            Received::Line(text) => text,
            Received::TooLong(start) => {
                return Err(Fault::with_input(
                    FaultKind::TooLong,
                    format!("wrote a line longer than {max_line} bytes"),
                    &start,
                ));
            }
            Received::NotUtf8(start) => {
                return Err(Fault::with_input(
                    FaultKind::Malformed,
                    "wrote a line that is not UTF-8",
                    &start,
                ));
            }
            Received::Exited(how) => {
                deferred.catch_up();
                let said = process.stderr_tail().await;
                let kept = process.stderr_kept();
                return Err(Fault::new(
                    FaultKind::Crash,
                    crash_detail(&how, said.as_deref(), &kept),
                ));
            }
            Received::Timeout => return Err(timeout(process, allowance, before)),
        };
        let answer = parse_answer(&text)?;
        match answer.id() {
            // A late answer to a request that already timed out (with --on-fault fallback).
            earlier if earlier < id => {
                received = process
                    .receive(allowance.saturating_sub(start.elapsed()), deferred)
                    .await;
            }
            same if same == id => {
                process.answered();
                return Ok((answer, text));
            }
            other => {
                return Err(Fault::with_input(
                    FaultKind::WrongId,
                    format!("answered id {other} to request {id}"),
                    &text,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allfives_engine::game::Status;

    /// Lua's traceback is all the last lines show: the hint comes from the paths it tried.
    #[test]
    fn a_hidden_lua_module_is_named_with_the_folder_to_grant() {
        let dir = tempfile::tempdir().expect("a folder");
        let module = dir.path().join("share/lua/5.4/cjson.lua");
        std::fs::create_dir_all(module.parent().expect("a folder")).expect("its folders");
        std::fs::write(&module, "return {}").expect("a module");
        let kept = format!(
            "lua5.4: bot.lua:1: module 'cjson' not found:\n\tno field package.preload['cjson']\n\
             \tno file '/usr/local/share/lua/5.4/cjson.lua'\n\tno file '{}'\n\
             stack traceback:\n\t[C]: in function 'require'\n\tbot.lua:1: in main chunk\n\t[C]: in ?\n",
            module.display()
        );
        let said = "[C]: in function 'require' | bot.lua:1: in main chunk | [C]: in ?";
        let detail = crash_detail("exited with code 1", Some(said), &kept);
        assert!(
            detail.contains(&format!(
                "Lua did not find its module 'cjson', yet {} exists",
                module.display()
            )),
            "{detail}"
        );
        assert!(
            detail.contains(&format!(
                "--bot-read {} grants it",
                module.parent().expect("its folder").display()
            )),
            "{detail}"
        );
        let elsewhere = kept.replace(&module.display().to_string(), "/nowhere/cjson.lua");
        assert_eq!(hidden_module(&elsewhere), None);
    }

    #[test]
    fn an_overrun_shows_what_exceeded_the_clock() {
        let said = |took_us: u64| {
            overran(
                "answered after",
                Duration::from_micros(took_us),
                Duration::from_millis(1000),
            )
        };
        assert_eq!(
            said(1_000_400),
            "answered after 1000.4 ms: 0.4 ms over its 1000 ms"
        );
        assert_eq!(
            said(1_000_001),
            "answered after 1000.001 ms: 0.001 ms over its 1000 ms"
        );
        assert_eq!(
            said(1_250_000),
            "answered after 1250 ms: 250 ms over its 1000 ms"
        );
    }
    use allfives_engine::rules::Rules;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    #[tokio::test]
    async fn a_builtin_never_runs_out_of_time() {
        let clocks = Clocks {
            startup: Duration::from_secs(1),
            per_move: Duration::ZERO,
            bank: Duration::ZERO,
            kind: ClockKind::Wall,
        };
        let mut clock = clocks.start_game();
        let mut game = Game::new(Rules::new(2)).expect("the rules for 2 players are valid");
        game.deal(&mut ChaCha8Rng::seed_from_u64(1))
            .expect("a fresh game deals");
        let Status::ToPlay { seat } = game.status() else {
            panic!("a dealt game has a seat to play");
        };
        let bot = Builtin::new("greedy", 1).expect("greedy is a builtin");
        let mut player = Player::with_builtin("greedy", bot);
        let answered = player
            .ask(
                &game,
                seat,
                &mut TurnWriter::new(),
                &mut clock,
                &mut Nothing,
            )
            .await;
        assert!(answered.is_ok(), "{:?}", answered.err());
    }

    #[test]
    fn a_long_hello_name_is_cut_on_a_character_never_inside_its_escape() {
        let name = format!("{}\u{202e}tail", "a".repeat(MAX_HELLO_NAME - 1));
        let shown = display_name(&name).expect("a name");
        assert_eq!(
            shown,
            format!("{}\\u{{202e}}", "a".repeat(MAX_HELLO_NAME - 1))
        );
        assert_eq!(display_name(" /x\u{1b} ").as_deref(), Some("x\\x1b"));
    }
}
