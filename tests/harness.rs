//! What the end-to-end tests share: a sandbox a test (a temporary directory whose name marks
//! every bot process the test starts), running the real `allfives` binary with a bound on its
//! time, and finding processes that outlived it.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_allfives");
/// No run of the referee in these tests may take longer (it would be hung).
pub const HUNG: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A shell word (the referee splits bot commands like a POSIX shell).
pub fn quote(word: &str) -> String {
    if word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A path hex-encoded, as the cheating fixtures take one (any byte survives the command line).
pub fn hex(path: &Path) -> String {
    path.display()
        .to_string()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A test's private directory; its name marks every bot process the test starts.
pub struct Sandbox {
    dir: TempDir,
    token: String,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("allfives-referee-")
            .tempdir()
            .expect("a temporary directory");
        let token = dir
            .path()
            .file_name()
            .expect("a named directory")
            .to_string_lossy()
            .into_owned();
        Sandbox { dir, token }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn logs(&self) -> PathBuf {
        self.path("logs")
    }

    /// The names in the sandbox's folder, but `kept`: what a command left there.
    pub fn left_but(&self, kept: &str) -> Vec<String> {
        fs::read_dir(self.dir.path())
            .expect("the sandbox")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != kept)
            .collect()
    }

    /// A log directory no match of this test has used yet: `logs`, then `logs-2`, ... (logs
    /// are never overwritten).
    pub fn unused_logs(&self) -> PathBuf {
        std::iter::once(self.logs())
            .chain((2..).map(|n| self.path(&format!("logs-{n}"))))
            .find(|dir| !dir.exists())
            .expect("an unused name")
    }

    pub fn log(&self, game: usize) -> PathBuf {
        self.logs().join(format!("game-{game}.jsonl"))
    }

    /// The command line of a Python script with its arguments, marked with the token.
    /// The token that marks this test's processes.
    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn python(&self, script: &Path, args: &[&str]) -> String {
        let mut words = vec!["python3".to_string(), quote(&script.display().to_string())];
        words.extend(args.iter().map(|a| quote(a)));
        words.push(self.token.clone());
        words.join(" ")
    }

    pub fn fixture(&self, name: &str, args: &[&str]) -> String {
        let script = root().join(format!("tests/fixtures/bots/{name}.py"));
        self.python(&script, args)
    }

    pub fn sample(&self, name: &str, args: &[&str]) -> String {
        let script = root().join(format!("sample_bots/python/{name}.py"));
        self.python(&script, args)
    }

    /// Fails if a process started by this test is still alive. A process sent SIGKILL may take
    /// a moment to vanish (longer on a loaded machine), so survivors are looked for up to 30 s;
    /// one that lives on is a leak. A test that passes waits no longer than its processes take.
    pub fn assert_no_bot_left(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let alive = processes_holding(&self.token);
            if alive.is_empty() {
                return;
            }
            if Instant::now() > deadline {
                for (pid, _) in &alive {
                    let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
                }
                panic!("bot processes outlived the referee: {alive:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Live (not zombie) processes whose command line contains `token`, other than this one.
pub fn processes_holding(token: &str) -> Vec<(i32, String)> {
    let me = std::process::id() as i32;
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if !cmdline.contains(token) {
            continue;
        }
        let zombie = fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|stat| {
                let after = stat.rfind(')')?;
                stat[after + 1..]
                    .split_whitespace()
                    .next()
                    .map(|s| s == "Z")
            })
            .unwrap_or(true);
        if !zombie {
            found.push((pid, cmdline));
        }
    }
    found
}

/// What a run of the referee came to.
#[derive(Debug)]
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
}

impl Ran {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

pub fn spawn(args: &[String]) -> Child {
    spawn_with(args, |_| {})
}

/// As [`spawn`], with the command adjusted by `configure` first.
pub fn spawn_with(args: &[String], configure: impl FnOnce(&mut Command)) -> Child {
    let mut command = Command::new(BIN);
    command.args(args);
    spawn_command(command, configure)
}

/// Spawns `command` (the referee, perhaps through `setpriv`) from the checkout, piped, with the
/// registry of earlier runs kept in the build's folder (not the user's state folder).
fn spawn_command(mut command: Command, configure: impl FnOnce(&mut Command)) -> Child {
    command
        .env(
            "XDG_STATE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
        )
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    configure(&mut command);
    command.spawn().expect("the allfives binary starts")
}

/// Runs the referee to its end (killing it and failing if it hangs).
pub fn allfives<S: AsRef<str>>(args: &[S]) -> Ran {
    allfives_with(args, |_| {})
}

/// As [`allfives`], with the command adjusted by `configure` first.
pub fn allfives_with<S: AsRef<str>>(args: &[S], configure: impl FnOnce(&mut Command)) -> Ran {
    let args: Vec<String> = args.iter().map(|a| a.as_ref().to_string()).collect();
    let start = Instant::now();
    let child = spawn_with(&args, configure);
    finish(child, &args, start)
}

/// As [`allfives_with`], run as the ordinary user `nobody` (uid 65534) with `home` (which it
/// owns) as its home folder, and its registry of earlier runs there: how an ordinary user's
/// referee contains its bots.
pub fn allfives_as_nobody<S: AsRef<str>>(
    args: &[S],
    home: &Path,
    configure: impl FnOnce(&mut Command),
) -> Ran {
    let args: Vec<String> = args.iter().map(|a| a.as_ref().to_string()).collect();
    let start = Instant::now();
    let mut command = Command::new("setpriv");
    command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN])
        .args(&args);
    let child = spawn_command(command, |c| {
        c.env("HOME", home).env_remove("XDG_STATE_HOME");
        configure(c);
    });
    finish(child, &args, start)
}

/// Waits for a referee's run to end (killing it and failing if it hangs).
/// Waits for `child` (spawned with `args` at `start`) to end (killing it and failing if it
/// hangs).
pub fn finish(child: Child, args: &[String], start: Instant) -> Ran {
    let pid = child.id() as i32;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = match rx.recv_timeout(HUNG) {
        Ok(output) => output.expect("waiting for allfives"),
        Err(_) => {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            panic!("allfives {args:?} ran for over {HUNG:?}");
        }
    };
    Ran {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        took: start.elapsed(),
    }
}

/// A report's standings without the timings (which differ from run to run), and of the rating
/// history only its last point: the history follows the order games were recorded in, which a
/// resumed or sharded run changes; its last point is the ratings of every game, whatever order.
pub fn timeless(report: &Value) -> Value {
    let mut s = report["standings"].clone();
    let last = s["history"].as_array().and_then(|h| h.last()).cloned();
    s["history"] = last.into_iter().collect();
    for row in s["entrants"].as_array_mut().expect("entrants") {
        let row = row.as_object_mut().expect("a row");
        row.retain(|key, _| !key.ends_with("_ms"));
    }
    s
}

/// A copy of tournament folder `from` at `to` (its files and its logs).
pub fn copy_folder(from: &Path, to: &Path) {
    fs::create_dir_all(to.join("logs")).expect("a folder");
    for name in ["tournament.json", "results.jsonl"] {
        fs::copy(from.join(name), to.join(name)).expect("a copy");
    }
    for entry in fs::read_dir(from.join("logs")).expect("logs").flatten() {
        fs::copy(entry.path(), to.join("logs").join(entry.file_name())).expect("a copy");
    }
}

/// Plays a match with `--json` into the sandbox's log directory; it must end with exit code 0, or 4 when a
/// bot could not start.
pub fn play(sandbox: &Sandbox, bots: &[String], options: &[&str]) -> (Ran, Value) {
    let mut args = vec!["match".to_string()];
    args.extend(bots.iter().cloned());
    args.extend(["--json", "--log-dir"].map(String::from));
    args.push(sandbox.unused_logs().display().to_string());
    args.extend(options.iter().map(|o| o.to_string()));
    let ran = allfives(&args);
    // A bot that could not start ends the match with exit code 4 and a line saying so, after
    // its first game (of one game too): a played match, as the report shows.
    let code = match ran.stderr.contains(") could not start: ") {
        true => 4,
        false => 0,
    };
    assert_eq!(
        ran.code,
        Some(code),
        "allfives {args:?} failed:\n{}",
        ran.stderr
    );
    let report = ran.json();
    (ran, report)
}

/// `allfives replay --quiet LOG` must accept the log; returns its stdout.
pub fn assert_replays(log: &Path) -> String {
    replays_with(log, 0)
}

/// `allfives replay --quiet LOG` must accept the log as far as it goes, and exit 6 (it is cut
/// short); returns its stdout.
pub fn assert_replays_cut(log: &Path) -> String {
    replays_with(log, 6)
}

fn replays_with(log: &Path, code: i32) -> String {
    let ran = allfives(&[
        "replay".to_string(),
        "--quiet".into(),
        log.display().to_string(),
    ]);
    assert_eq!(
        ran.code,
        Some(code),
        "replay of {} failed: {}{}",
        log.display(),
        ran.stdout,
        ran.stderr
    );
    assert!(ran.stdout.contains("checks out"), "{}", ran.stdout);
    ran.stdout
}

pub fn log_lines(log: &Path) -> Vec<Value> {
    let text = fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

pub fn kind(v: &Value) -> &str {
    v["type"].as_str().unwrap_or("")
}

pub fn uint(v: &Value) -> usize {
    v.as_u64().unwrap_or_else(|| panic!("{v} is not a count")) as usize
}

/// A game's entrant index in each seat.
pub fn seating(game: &Value) -> Value {
    seats_field(game, "entrant")
}

/// A game's rank of each seat.
pub fn ranks(game: &Value) -> Value {
    seats_field(game, "rank")
}

fn seats_field(game: &Value, field: &str) -> Value {
    let seats = game["seats"].as_array().expect("seats");
    Value::Array(seats.iter().map(|s| s[field].clone()).collect())
}

/// Checks a report's shape and that each game's log replays. Returns the logs, by game number.
pub fn check_report(report: &Value, players: usize, teams: bool, games: usize) -> Vec<PathBuf> {
    let sides = if teams { 2 } else { players };
    assert_eq!(report["rules"]["players"], players);
    assert_eq!(report["rules"]["teams"], teams);
    assert_eq!(report["entrants"].as_array().map(Vec::len), Some(players));
    let mut records = report["games"].as_array().expect("games").clone();
    assert_eq!(records.len(), games, "{report:#}");
    // Played an arrangement at a time over blocks of deals; checked (and returned) by number.
    records.sort_by_key(|g| g["game"].as_u64());
    let mut logs = Vec::new();
    for (i, game) in records.iter().enumerate() {
        assert_eq!(game["game"], i + 1);
        let scores: Vec<i64> = game["scores"]
            .as_array()
            .expect("scores")
            .iter()
            .map(|s| s.as_i64().expect("a score"))
            .collect();
        let ranks: Vec<usize> = ranks(game)
            .as_array()
            .expect("ranks")
            .iter()
            .map(uint)
            .collect();
        assert_eq!(scores.len(), sides, "{game:#}");
        assert_eq!(ranks.len(), players, "{game:#}");
        let seating: BTreeSet<usize> = seating(game)
            .as_array()
            .expect("seating")
            .iter()
            .map(uint)
            .collect();
        assert_eq!(seating, (0..players).collect(), "{game:#}");
        assert_eq!(game["faults"], Value::Array(vec![]), "{game:#}");
        assert!(
            ["target", "max_hands"].contains(&game["ending"]["kind"].as_str().unwrap_or("")),
            "{game:#}"
        );
        assert!(uint(&game["hands"]) >= 1);
        for (seat, &rank) in ranks.iter().enumerate() {
            let side = if teams { seat % 2 } else { seat };
            let better = scores.iter().filter(|&&s| s > scores[side]).count();
            assert_eq!(rank, 1 + better, "seat {seat} in {game:#}");
        }
        let log = PathBuf::from(game["log"].as_str().expect("a log path"));
        assert_replays(&log);
        let lines = log_lines(&log);
        assert_eq!(kind(&lines[0]), "header");
        let end = lines.last().expect("a last line");
        assert_eq!(kind(end), "game_end");
        assert_eq!(end["scores"], game["scores"]);
        assert_eq!(end["ranks"], self::ranks(game));
        assert_eq!(end["forfeits"], Value::Array(vec![]));
        logs.push(log);
    }
    let totals = report["standings"]["entrants"]
        .as_array()
        .expect("standings");
    assert_eq!(totals.len(), players);
    let played: usize = totals.iter().map(|t| uint(&t["games"])).sum();
    assert_eq!(played, games * players);
    for t in totals {
        assert_eq!(t["faults"], serde_json::json!({}));
        assert_eq!(
            uint(&t["wins"]) + uint(&t["draws"]) + uint(&t["losses"]),
            uint(&t["games"])
        );
    }
    logs
}

/// The strong Rust sample bot, built with the workspace (`cargo test` builds every member).
pub fn strong_bot() -> PathBuf {
    workspace_binary("strong_bot", "allfives-strong")
}

/// Binary `name` of workspace member `package`, built beside the tests.
pub fn workspace_binary(name: &str, package: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its path");
    // target/<profile>/deps/main-<hash> -> target/<profile>/NAME
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lives in target/<profile>/deps");
    let binary = profile.join(name);
    assert!(
        binary.is_file(),
        "{} is not built: run `cargo build -p {package}`",
        binary.display()
    );
    binary
}

/// Waits until process `pid` holds `path` open (a FIFO it reads, say), for at most [`HUNG`].
pub fn wait_until_open(pid: u32, path: &Path) {
    let fds = format!("/proc/{pid}/fd");
    let start = Instant::now();
    while !fs::read_dir(&fds)
        .into_iter()
        .flatten()
        .flatten()
        .any(|fd| fs::read_link(fd.path()).is_ok_and(|l| l == path))
    {
        assert!(
            start.elapsed() < HUNG,
            "{} was never opened",
            path.display()
        );
        std::thread::yield_now();
    }
}

/// Puts a FIFO at `path` (in place of what is there), held open for writing by the file
/// returned and never written: a reader waits for bytes that never come.
pub fn silent_fifo(path: &Path) -> fs::File {
    let _ = fs::remove_file(path);
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).expect("a FIFO");
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("the FIFO's write end")
}
