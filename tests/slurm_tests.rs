//! A real Slurm cluster (issue 29): README's sbatch script, verbatim, as a job array of 4 tasks
//! playing Python sample bots. One task is cancelled mid-run, then requeued; the node crashes
//! under another (slurmd, the tasks' step daemons and their processes killed, slurmd started
//! again) and Slurm requeues what ran there. Then the shards' standings must equal a
//! one-machine run with the same seed: the same games, the same ratings, nothing counted twice.
//!
//! Ignored by a plain `cargo test`, which has no cluster: `scripts/slurm-test.sh` starts a
//! private one-node cluster (`scripts/slurm-cluster.sh`), sets `ALLFIVES_SLURM_DIR` and
//! `SLURM_CONF`, and runs it; CI does. Run without them, it fails.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::harness::*;

/// Longer than anything here takes: Slurm notices a lost task within a minute.
const PATIENCE: Duration = Duration::from_secs(300);

/// The Slurm job array of README.md, as written there.
fn readme_script() -> String {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme
        .find("```sh\n#!/bin/bash\n#SBATCH --array")
        .expect("README.md holds a Slurm job array script");
    let body = &readme[start + "```sh\n".len()..];
    body[..body.find("```").expect("the script's block ends")].to_string()
}

/// A Slurm command's run, which must succeed; its stdout.
fn slurm(program: &str, args: &[&str], dir: &Path) -> String {
    let output: Output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path_with_allfives())
        .output()
        .unwrap_or_else(|e| panic!("{program} does not start: {e}"));
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// PATH with the folder of the `allfives` under test first: the job's script calls `allfives`.
fn path_with_allfives() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_allfives"))
        .parent()
        .expect("the binary's folder");
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Waits for `done` (polled), failing with `what` after [`PATIENCE`].
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The lines of a shard's results file (none before it exists).
fn results(shard: &Path) -> Vec<Value> {
    fs::read_to_string(shard.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Each task's state (`RUNNING`, `PENDING`, `COMPLETED`...), by task number.
fn task_states(job: &str, dir: &Path) -> BTreeMap<u32, String> {
    let shown = slurm("scontrol", &["-o", "show", "job", job], dir);
    shown
        .lines()
        .filter_map(|line| {
            let field = |name: &str| {
                line.split_whitespace()
                    .find_map(|w| w.strip_prefix(name))
                    .map(str::to_string)
            };
            Some((field("ArrayTaskId=")?.parse().ok()?, field("JobState=")?))
        })
        .collect()
}

/// The Slurm job id of the running task `task` of array `job`.
fn raw_id(job: &str, task: u32, dir: &Path) -> String {
    let shown = slurm(
        "scontrol",
        &["-o", "show", "job", &format!("{job}_{task}")],
        dir,
    );
    shown
        .split_whitespace()
        .find_map(|w| w.strip_prefix("JobId="))
        .expect("a job id")
        .to_string()
}

/// Every process's parent, from /proc.
fn parents() -> Vec<(i32, i32, String)> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        // The name may hold spaces and parentheses: the parent follows the last ')'.
        let after = &stat[stat.rfind(')').map_or(0, |i| i + 1)..];
        if let Some(ppid) = after.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            found.push((pid, ppid, cmdline));
        }
    }
    found
}

/// The node crashes under the running tasks of `job`: slurmd, each task's step daemon and
/// every process below it killed at once (SIGKILL), as a power cut would; then slurmd starts
/// again, as after a reboot.
fn crash_node(job: &str, cluster: &Path, dir: &Path) {
    let conf = std::env::var("SLURM_CONF").expect("SLURM_CONF");
    let running = task_states(job, dir);
    let lost: Vec<u32> = running
        .iter()
        .filter(|(_, state)| *state == "RUNNING")
        .map(|(&task, _)| task)
        .collect();
    let steps: Vec<String> = lost
        .iter()
        .map(|&task| format!("slurmstepd: [{}.batch]", raw_id(job, task, dir)))
        .collect();
    assert!(!steps.is_empty(), "no task runs: {running:?}");
    let procs = parents();
    let mut doomed: Vec<i32> = procs
        .iter()
        .filter(|(_, _, cmdline)| steps.iter().any(|s| cmdline.trim() == s))
        .map(|&(pid, _, _)| pid)
        .collect();
    assert_eq!(doomed.len(), steps.len(), "{steps:?}");
    let mut at = 0;
    while at < doomed.len() {
        let parent = doomed[at];
        doomed.extend(procs.iter().filter(|p| p.1 == parent).map(|p| p.0));
        at += 1;
    }
    let slurmd = fs::read_to_string(cluster.join("run/slurmd.pid")).expect("slurmd's pid file");
    doomed.push(slurmd.trim().parse().expect("a pid"));
    for pid in doomed {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    // The controller counts a task missing from its node as lost once it has run longer than
    // BatchStartTimeout + MessageTimeout, when the node registers: it registers as slurmd
    // starts, so slurmd starts once the tasks it lost are that old.
    let lost_after =
        config_seconds("BatchStartTimeout", dir) + config_seconds("MessageTimeout", dir);
    wait_for("the lost tasks count as lost", || {
        lost.iter()
            .all(|&task| run_seconds(job, task, dir) > lost_after)
    });
    slurm("slurmd", &["-f", &conf], dir);
}

/// A setting of the controller's, in seconds (`scontrol show config`: `NAME = 10 sec`).
fn config_seconds(name: &str, dir: &Path) -> u64 {
    let config = slurm("scontrol", &["show", "config"], dir);
    config
        .lines()
        .find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == name).then(|| value.split_whitespace().next()?.parse().ok())?
        })
        .unwrap_or_else(|| panic!("scontrol show config has no {name}"))
}

/// How long the controller thinks task `task` of `job` has run, in seconds.
fn run_seconds(job: &str, task: u32, dir: &Path) -> u64 {
    let shown = slurm(
        "scontrol",
        &["-o", "show", "job", &format!("{job}_{task}")],
        dir,
    );
    let time = shown
        .split_whitespace()
        .find_map(|w| w.strip_prefix("RunTime="))
        .expect("a run time");
    // [D-]HH:MM:SS
    let (days, clock) = time.split_once('-').unwrap_or(("0", time));
    let parts: Vec<u64> = clock.split(':').filter_map(|p| p.parse().ok()).collect();
    let [h, m, s] = parts[..] else {
        panic!("RunTime={time}");
    };
    days.parse::<u64>().expect("days") * 86_400 + h * 3600 + m * 60 + s
}

/// A game's outcome, timings left out.
fn outcome(game: &Value) -> Value {
    let mut game = game.clone();
    for seat in game["seats"].as_array_mut().expect("seats") {
        let seat = seat.as_object_mut().expect("a seat");
        seat.remove("time_us");
        seat.remove("time_buckets");
    }
    let keep = [
        "group",
        "deal",
        "arrangement",
        "seed",
        "seats",
        "scores",
        "hands",
        "ending",
        "faults",
    ];
    keep.iter()
        .map(|&k| (k.to_string(), game[k].clone()))
        .collect()
}

/// The job array's tournament command, run on one machine: no shard, another folder, JSON.
fn one_machine(script: &str, dir: &Path) -> Value {
    let command = script
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("\\\n", " ");
    let whole = command.replace(" --shard auto ", " ").replace(
        r#"--out "league/shard-$SLURM_ARRAY_TASK_ID""#,
        "--out whole",
    );
    assert!(
        !whole.contains("--shard") && whole.contains("--out whole"),
        "README's job array changed its shape: {command}"
    );
    let output = Command::new("bash")
        .args(["-c", &format!("{} --json", whole.trim())])
        .current_dir(dir)
        .env("PATH", path_with_allfives())
        .output()
        .expect("bash");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("a JSON report")
}

#[test]
#[ignore = "needs a Slurm cluster: scripts/slurm-test.sh starts one and runs this"]
fn readme_job_array_survives_a_cancel_and_a_node_crash_and_equals_one_machine() {
    let cluster = PathBuf::from(std::env::var("ALLFIVES_SLURM_DIR").expect(
        "ALLFIVES_SLURM_DIR names no cluster: run scripts/slurm-test.sh, which starts one",
    ));
    let sb = Sandbox::new();
    let dir = sb.path("");
    let sample = |name: &str| root().join("sample_bots/python").join(name);
    let bots = format!(
        "[[bots]]\nname = \"greedy\"\ncommand = \"python3 {}\"\n\n[[bots]]\nname = \"random\"\ncommand = \"python3 {}\"\n\n[[bots]]\nname = \"builtin\"\ncommand = \"builtin:greedy\"\n",
        sample("greedy_bot.py").display(),
        sample("random_bot.py").display()
    );
    fs::write(dir.join("bots.toml"), bots).expect("bots.toml");
    let script = readme_script();
    fs::write(dir.join("league.sbatch"), &script).expect("the script");
    let started = Instant::now();
    let job = slurm("sbatch", &["--parsable", "league.sbatch"], &dir)
        .trim()
        .to_string();
    let shard = |i: u32| dir.join(format!("league/shard-{i}"));

    // Task 3 cancelled mid-run.
    wait_for("shard 3 plays", || !results(&shard(3)).is_empty());
    slurm("scancel", &[&format!("{job}_3")], &dir);
    wait_for("task 3 ends", || {
        task_states(&job, &dir)
            .get(&3)
            .is_some_and(|s| s == "CANCELLED")
    });
    // The node crashes under task 4 (and any other task still running).
    wait_for("shard 4 plays", || !results(&shard(4)).is_empty());
    crash_node(&job, &cluster, &dir);
    let crashed = started.elapsed();
    let ended = ["COMPLETED", "CANCELLED", "FAILED", "NODE_FAIL", "TIMEOUT"];
    wait_for("every task ends", || {
        let states = task_states(&job, &dir);
        states.len() == 4 && states.values().all(|s| ended.contains(&s.as_str()))
    });
    let requeued = started.elapsed();
    let states = task_states(&job, &dir);
    assert_eq!(states[&3], "CANCELLED", "{states:?}");
    for task in [1, 2, 4] {
        assert_eq!(states[&task], "COMPLETED", "{states:?}");
    }
    let log4 = fs::read_to_string(dir.join(format!("slurm-{job}_4.out"))).expect("task 4's log");
    assert!(
        log4.contains("holds shard 4/4 of this tournament: continued"),
        "task 4 was not run again after the crash:\n{log4}"
    );

    // The standings name the cancelled shard; requeued, it finishes.
    let standings = |extra: &[&str]| -> Ran {
        let mut args = vec!["standings".to_string(), "--json".to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend((1..=4).map(|i| shard(i).display().to_string()));
        allfives(&args)
    };
    // Its games under way when it was cancelled were finished (a SIGTERM lets them end).
    let cut = results(&shard(3)).len();
    let scheduled = 18;
    assert!(
        cut < scheduled,
        "shard 3 finished before it was cancelled: make the job longer"
    );
    let partial = standings(&[]);
    assert_eq!(partial.json()["complete"], false);
    let unfinished = format!(
        "shard 3/4 ({}: {cut} of {scheduled} games)",
        shard(3).display()
    );
    assert!(partial.stderr.contains(&unfinished), "{}", partial.stderr);
    slurm("scontrol", &["requeue", &format!("{job}_3")], &dir);
    wait_for("task 3 runs again and ends", || {
        task_states(&job, &dir)
            .get(&3)
            .is_some_and(|s| s == "COMPLETED")
    });
    let on_slurm = started.elapsed();

    // The same games and ratings as one machine's, each game once.
    let merged = standings(&["--verify"]);
    assert_eq!(merged.code, Some(0), "{}", merged.stderr);
    let merged = merged.json();
    assert_eq!(merged["complete"], true);
    let alone = Instant::now();
    let whole = one_machine(&script, &dir);
    let alone = alone.elapsed();
    assert_eq!(timeless(&merged), timeless(&whole));
    let mut sharded = BTreeMap::new();
    for i in 1..=4 {
        let lines = results(&shard(i));
        assert_eq!(lines.len(), scheduled, "shard {i}");
        for game in lines {
            let id = game["id"].as_str().expect("an id").to_string();
            assert!(sharded.insert(id, outcome(&game)).is_none(), "a game twice");
        }
    }
    let single: BTreeMap<String, Value> = results(&dir.join("whole"))
        .iter()
        .map(|g| (g["id"].as_str().expect("an id").to_string(), outcome(g)))
        .collect();
    assert_eq!(sharded, single);
    let s = |d: Duration| format!("{:.1} s", d.as_secs_f64());
    eprintln!(
        "slurm: {} games in 4 array tasks; the node crashed at {}, its tasks ran again and every task ended at {}; the cancelled task requeued ended at {}; one machine played them in {}",
        single.len(),
        s(crashed),
        s(requeued),
        s(on_slurm),
        s(alone)
    );
}

/// `prog`'s path on this machine's PATH (`ps`, `awk`), for a PATH of a few programs only.
fn on_path(prog: &str) -> PathBuf {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|dir| Path::new(dir).join(prog))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("{prog} is not on PATH"))
}

/// The CI script stops when its private cluster does not start: before, `eval "$(...)"` hid the
/// refusal and the test ran, against whatever cluster SLURM_CONF named.
#[test]
fn the_slurm_test_stops_where_its_cluster_does_not_start() {
    let sb = Sandbox::new();
    let scripts = sb.path("tree/scripts");
    fs::create_dir_all(&scripts).expect("a folder");
    let script = scripts.join("slurm-test.sh");
    fs::copy(root().join("scripts/slurm-test.sh"), &script).expect("the script");
    // A start that refuses, as beside a running Slurm daemon.
    fs::write(
        scripts.join("slurm-cluster.sh"),
        "#!/bin/sh\n[ \"$1\" = stop ] && exit 0\necho 'a Slurm daemon runs on this machine already' >&2\nexit 1\n",
    )
    .expect("a refusing start");
    // A `cargo` that says it was run.
    let bin = sb.path("bin");
    fs::create_dir_all(&bin).expect("a folder");
    let ran_marker = sb.path("cargo-ran");
    fs::write(
        bin.join("cargo"),
        format!(
            "#!/bin/sh\ntouch {}\n",
            quote(&ran_marker.display().to_string())
        ),
    )
    .expect("a fake cargo");
    for file in [scripts.join("slurm-cluster.sh"), bin.join("cargo")] {
        Command::new("chmod")
            .arg("+x")
            .arg(&file)
            .status()
            .expect("chmod");
    }
    let output = Command::new("bash")
        .arg(&script)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("SLURM_CONF", "/etc/slurm/slurm.conf")
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(!ran_marker.exists(), "the test ran: {stderr}");
    assert!(stderr.contains("no test was run"), "{stderr}");
    assert!(
        !stderr.contains("logs are in"),
        "no logs to point to: {stderr}"
    );
}

/// A zombie (`<defunct>`) named slurmd is no running daemon: the private cluster's start does
/// not refuse for it (here it then stops at the first program this PATH lacks).
#[test]
fn a_defunct_slurm_daemon_does_not_refuse_the_private_cluster() {
    let sb = Sandbox::new();
    let bin = sb.path("bin");
    fs::create_dir_all(&bin).expect("a folder");
    // pgrep too, which the start once used (and which listed zombies).
    for prog in ["ps", "awk", "pgrep"] {
        std::os::unix::fs::symlink(on_path(prog), bin.join(prog)).expect("a link");
    }
    let daemon = sb.path("slurmd");
    fs::copy(on_path("true"), &daemon).expect("a program named slurmd");
    let mut zombie = Command::new(&daemon).spawn().expect("it starts");
    let stat = format!("/proc/{}/stat", zombie.id());
    let deadline = Instant::now() + PATIENCE;
    // Unreaped until the end: it stays a zombie once it has exited.
    while !fs::read_to_string(&stat).is_ok_and(|s| s.contains(") Z ")) {
        assert!(Instant::now() < deadline, "slurmd did not exit");
        std::thread::yield_now();
    }
    // Named by its path: the PATH given is the child's, and holds no bash.
    let output = Command::new(on_path("bash"))
        .arg(root().join("scripts/slurm-cluster.sh"))
        .args(["start", &sb.path("cluster").display().to_string()])
        .env("PATH", &bin)
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    zombie.wait().expect("reaped");
    assert!(!stderr.contains("runs on this machine already"), "{stderr}");
    assert!(stderr.contains("munged is missing"), "{stderr}");
}
