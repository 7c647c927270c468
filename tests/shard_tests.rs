//! Shards as a batch scheduler runs them (issue 29): one command for a shard's first run and
//! every rerun, `--shard auto` from an array's variables, the seed refused up front, as many
//! workers as the CPUs given, and standings that name what is unfinished or missing. The real
//! Slurm cluster is `slurm_tests`.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::harness::*;

const GREEDY: &str = "greedy=builtin:greedy";
const RANDOM: &str = "random=builtin:random";

/// The variables a batch scheduler's task reads: none of them leak in from where the tests run.
const ARRAY_VARIABLES: [&str; 7] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_CPUS_ON_NODE",
    "SLURM_CPUS_PER_TASK",
    "JOB_COMPLETION_INDEX",
];

/// `allfives tournament --quiet --out OUT ARGS...` with `vars` set and no other array variable.
fn tournament_with(out: &Path, args: &[&str], vars: &[(&str, &str)]) -> Ran {
    let out = out.display().to_string();
    let mut all = vec!["tournament", "--quiet", "--out", &out];
    all.extend(args);
    allfives_with(&all, |command| {
        for name in ARRAY_VARIABLES {
            command.env_remove(name);
        }
        command.envs(vars.iter().copied());
    })
}

fn tournament(out: &Path, args: &[&str]) -> Ran {
    tournament_with(out, args, &[])
}

/// The shard stored in `OUT/tournament.json`, if any.
fn stored_shard(out: &Path) -> Value {
    let text = fs::read_to_string(out.join("tournament.json")).expect("a definition");
    let definition: Value = serde_json::from_str(&text).expect("JSON");
    definition["shard"].clone()
}

fn lines(out: &Path) -> Vec<String> {
    fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The games' ids, sorted.
fn ids(lines: &[String]) -> Vec<String> {
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| {
            let line: Value = serde_json::from_str(l).expect("a JSON line");
            line["id"].as_str().expect("an id").to_string()
        })
        .collect();
    ids.sort();
    ids
}

/// Keeps the first `keep` lines of `OUT/results.jsonl`, as a task killed mid-run leaves it.
fn cut_results(out: &Path, keep: usize) {
    let kept: String = lines(out)[..keep]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(out.join("results.jsonl"), kept).expect("write");
}

/// The common arguments of a small tournament whose shards share their deals.
fn shared(key: &str) -> Vec<&str> {
    vec![
        GREEDY,
        RANDOM,
        "random2=builtin:random",
        "--deals",
        "4",
        "--seed",
        "11",
        "--deal-key",
        key,
        "-j",
        "1",
    ]
}

#[test]
fn one_command_starts_a_shard_and_continues_it() {
    let sb = Sandbox::new();
    let key = sb.path("deal-key").display().to_string();
    let out = sb.path("shard-2");
    let mut command = shared(&key);
    command.extend(["--shard", "2/3"]);
    let first = tournament(&out, &command);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let all = lines(&out);
    assert_eq!(all.len(), 8, "{}", first.stderr);
    // A task killed mid-run, requeued: the same command plays only what is missing.
    cut_results(&out, 3);
    let requeued = tournament(&out, &command);
    assert_eq!(requeued.code, Some(0), "{}", requeued.stderr);
    assert!(
        requeued.stdout.contains("5 games to play of 8 scheduled"),
        "{}",
        requeued.stdout
    );
    assert!(requeued.stderr.contains("continued"), "{}", requeued.stderr);
    assert_eq!(ids(&lines(&out)), ids(&all), "the same games, each once");
    // Finished: the same command plays nothing, and says so.
    let finished = tournament(&out, &command);
    assert_eq!(finished.code, Some(0), "{}", finished.stderr);
    assert!(
        finished
            .stderr
            .contains("nothing to play: all 8 games of shard 2/3 are in"),
        "{}",
        finished.stderr
    );
    assert_eq!(lines(&out).len(), 8);
    // Another shard, or another tournament, in that folder: refused, naming what differs.
    let mut other_shard = shared(&key);
    other_shard.extend(["--shard", "1/3"]);
    let refused = tournament(&out, &other_shard);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("holds shard 2/3 of this tournament, and this run is shard 1/3"),
        "{}",
        refused.stderr
    );
    let mut other_seed = shared(&key);
    other_seed.extend(["--shard", "2/3", "--move-ms", "900"]);
    other_seed[6] = "12";
    let refused = tournament(&out, &other_seed);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("holds another tournament (what differs from this run's: seed; clocks)"),
        "{}",
        refused.stderr
    );
    assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
    assert_eq!(lines(&out).len(), 8);
}

#[test]
fn shard_auto_reads_the_task_of_a_slurm_array_or_a_kubernetes_job() {
    let sb = Sandbox::new();
    let key = sb.path("deal-key").display().to_string();
    let mut auto = shared(&key);
    auto.extend(["--shard", "auto"]);
    // An array numbered from 0: its first task is shard 1.
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "0"),
        ("SLURM_ARRAY_TASK_MIN", "0"),
        ("SLURM_ARRAY_TASK_MAX", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
    ];
    let ran = tournament_with(&sb.path("slurm"), &auto, &slurm);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(stored_shard(&sb.path("slurm")), serde_json::json!([1, 3]));
    // A Kubernetes Indexed Job gives the index from 0; the count is typed.
    let mut counted = shared(&key);
    counted.extend(["--shard", "auto/3"]);
    let kubernetes = [("JOB_COMPLETION_INDEX", "2")];
    let ran = tournament_with(&sb.path("k8s"), &counted, &kubernetes);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(stored_shard(&sb.path("k8s")), serde_json::json!([3, 3]));
    // No array: refused at once, naming the variables, leaving no folder.
    let refused = tournament(&sb.path("none"), &auto);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("SLURM_ARRAY_TASK_ID")
            && refused.stderr.contains("JOB_COMPLETION_INDEX"),
        "{}",
        refused.stderr
    );
    assert!(!sb.path("none").exists());
    // An array numbered from 0 typed by hand: refused with the way out.
    let mut zero = shared(&key);
    zero.extend(["--shard", "0/3"]);
    let refused = tournament(&sb.path("zero"), &zero);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--shard auto"),
        "{}",
        refused.stderr
    );
    // One task of the array resubmitted alone (--array=1): it cannot tell its shard.
    let alone = [
        ("SLURM_ARRAY_TASK_ID", "1"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_MAX", "1"),
        ("SLURM_ARRAY_TASK_COUNT", "1"),
    ];
    let refused = tournament_with(&sb.path("slurm"), &auto, &alone);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("scontrol requeue"),
        "{}",
        refused.stderr
    );
}

/// A way to start a shard: its folder, its options and the variables of its task.
type Way<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, &'a str)]);

#[test]
fn a_shard_without_the_tournaments_deals_is_refused_before_any_game() {
    let sb = Sandbox::new();
    let key = sb.path("deal-key").display().to_string();
    let task = [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_MAX", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    let started = sb.path("started");
    let ran = tournament(&started, &[&shared(&key)[..], &["--shard", "1/2"]].concat());
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let before = fs::read(started.join("results.jsonl")).expect("results");
    let ways: [Way; 5] = [
        ("new", &["--shard", "1/2"], &[]),
        ("new", &["--shard", "1/2", "--seed", "11"], &[]),
        ("new", &["--shard", "auto", "--seed", "11"], &task),
        (
            "new",
            &["--format", "ladder", "--games", "4", "--shard", "1/2"],
            &[],
        ),
        // The same command without the seed, on a shard's folder: never continued on a
        // fresh key.
        ("started", &["--shard", "1/2"], &[]),
    ];
    for (folder, options, vars) in ways {
        let out = sb.path(folder);
        let mut args = vec![GREEDY, RANDOM, "random2=builtin:random"];
        args.extend(options);
        let refused = tournament_with(&out, &args, vars);
        assert_eq!(refused.code, Some(2), "{options:?}: {}", refused.stderr);
        assert!(
            refused
                .stderr
                .contains("--shard needs the deals every shard shares"),
            "{options:?}: {}",
            refused.stderr
        );
        assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
    }
    assert!(!sb.path("new").exists());
    assert_eq!(
        fs::read(started.join("results.jsonl")).expect("results"),
        before
    );
}

#[test]
fn workers_default_to_the_cpus_this_process_may_run_on() {
    let sb = Sandbox::new();
    let args = [
        GREEDY,
        RANDOM,
        "--deals",
        "1",
        "--seed",
        "1",
        "--public-seed",
    ];
    let at_once = |ran: &Ran| -> String {
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        let banner = ran.stdout.lines().next().expect("a banner");
        banner
            .split(", ")
            .find(|part| part.ends_with(" at once"))
            .unwrap_or_else(|| panic!("no count of games at once: {banner}"))
            .to_string()
    };
    // Pinned to one CPU, as `taskset -c 0` pins it.
    let pinned = {
        let out = sb.path("pinned").display().to_string();
        let mut all = vec!["tournament", "--out", &out];
        all.extend(args);
        allfives_with(&all, |command: &mut Command| {
            for name in ARRAY_VARIABLES {
                command.env_remove(name);
            }
            // SAFETY: sched_setaffinity is async-signal-safe; the set lives in this closure.
            unsafe {
                command.pre_exec(|| {
                    let mut one = nix::sched::CpuSet::new();
                    one.set(0).map_err(std::io::Error::from)?;
                    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &one)
                        .map_err(std::io::Error::from)
                });
            }
        })
    };
    assert_eq!(at_once(&pinned), "1 at once");
    // A Slurm task given one CPU on a node with more.
    let slurm = tournament_with(&sb.path("slurm"), &args, &[("SLURM_CPUS_ON_NODE", "1")]);
    assert_eq!(at_once(&slurm), "1 at once");
    let per_task = [("SLURM_CPUS_ON_NODE", "64"), ("SLURM_CPUS_PER_TASK", "1")];
    let slurm = tournament_with(&sb.path("per-task"), &args, &per_task);
    assert_eq!(at_once(&slurm), "1 at once");
    // Otherwise every CPU it may run on, and -j always wins.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let free = tournament(&sb.path("free"), &args);
    assert_eq!(at_once(&free), format!("{cpus} at once"));
    let typed = tournament_with(
        &sb.path("typed"),
        &[&args[..], &["-j", "3"]].concat(),
        &[("SLURM_CPUS_ON_NODE", "1")],
    );
    assert_eq!(at_once(&typed), "3 at once");
}

#[test]
fn standings_name_the_unfinished_and_the_missing_shards() {
    let sb = Sandbox::new();
    let key = sb.path("deal-key").display().to_string();
    let mut dirs = Vec::new();
    for i in 1..=4 {
        let out = sb.path(&format!("shard-{i}"));
        let shard = format!("{i}/4");
        let ran = tournament(&out, &[&shared(&key)[..], &["--shard", &shard]].concat());
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        dirs.push(out.display().to_string());
    }
    cut_results(&sb.path("shard-3"), 2);
    let standings = |dirs: &[&String]| -> Ran {
        let mut args = vec!["standings", "--json"];
        args.extend(dirs.iter().map(|d| d.as_str()));
        allfives(&args)
    };
    let unfinished = standings(&[&dirs[0], &dirs[1], &dirs[2]]);
    assert_eq!(unfinished.code, Some(0), "{}", unfinished.stderr);
    assert_eq!(unfinished.json()["complete"], false);
    let shard3 = format!("shard 3/4 ({}: 2 of 6 games) is unfinished", dirs[2]);
    assert!(unfinished.stderr.contains(&shard3), "{}", unfinished.stderr);
    assert!(
        unfinished
            .stderr
            .contains("and shard 4/4 of this tournament is missing"),
        "{}",
        unfinished.stderr
    );
    let two_missing = standings(&[&dirs[0], &dirs[1]]);
    assert!(
        two_missing
            .stderr
            .contains("shards 3/4 and 4/4 of this tournament are missing"),
        "{}",
        two_missing.stderr
    );
    let all = standings(&dirs.iter().collect::<Vec<_>>());
    assert_eq!(all.json()["complete"], false);
    assert!(all.stderr.contains(&shard3), "{}", all.stderr);
    assert!(!all.stderr.contains("missing"), "{}", all.stderr);
}

#[test]
fn a_shard_given_no_games_says_so() {
    let sb = Sandbox::new();
    // One group, two deals: two duplicate sets, for three shards.
    let args = [
        GREEDY,
        RANDOM,
        "--deals",
        "2",
        "--seed",
        "3",
        "--public-seed",
    ];
    let out = sb.path("shard-3");
    let ran = tournament(&out, &[&args[..], &["--shard", "3/3"]].concat());
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "shard 3/3 holds no games: this tournament's 2 duplicate sets go to shards 1 to 2"
        ),
        "{}",
        ran.stderr
    );
}

/// The same bots file named two ways, from two folders, is the same tournament: its bots'
/// folders are stored as one spelling. A shard continues, shards merge, and a refusal names
/// what differs (and a folder that is no shard is not blamed for its entrants).
#[test]
fn a_bots_file_named_two_ways_defines_one_tournament() {
    let sb = Sandbox::new();
    let league = sb.path("league");
    fs::create_dir_all(league.join("bots")).expect("a folder");
    fs::copy(
        root().join("sample_bots/python/greedy_bot.py"),
        league.join("bots/greedy_bot.py"),
    )
    .expect("a bot");
    let bots = |env: &str| {
        format!(
            "[[bots]]\nname = \"py\"\ncommand = {}\ndir = \"bots\"\nenv = {{ MODE = \"{env}\" }}\n",
            toml_string(&format!("python3 greedy_bot.py {}", sb.token()))
        )
    };
    fs::write(league.join("bots.toml"), bots("a")).expect("a bots file");
    fs::write(league.join("other.toml"), bots("b")).expect("another bots file");
    let run = |cwd: &Path, file: &str, out: &str, shard: &str| {
        let args = [
            "tournament",
            "--quiet",
            "--bots",
            file,
            "greedy=builtin:greedy",
            "--deals",
            "2",
            "--seed",
            "5",
            "--public-seed",
            "-j",
            "1",
            "--shard",
            shard,
            "--out",
            out,
        ];
        allfives_with(&args, |command| {
            for name in ARRAY_VARIABLES {
                command.env_remove(name);
            }
            command.current_dir(cwd);
        })
    };
    let first = run(&league, "bots.toml", "shard-1", "1/2");
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    // From the folder above, through `..`: the same shard, continued (here, finished).
    let again = run(
        &sb.path(""),
        "./league/../league/bots.toml",
        "league/shard-1",
        "1/2",
    );
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(again.stderr.contains("nothing to play"), "{}", again.stderr);
    let second = run(&sb.path(""), "league/bots.toml", "league/shard-2", "2/2");
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    let shards = [league.join("shard-1"), league.join("shard-2")];
    let merged = allfives(&[
        "standings",
        &shards[0].display().to_string(),
        &shards[1].display().to_string(),
    ]);
    assert_eq!(merged.code, Some(0), "{}", merged.stderr);
    // Another environment: refused, naming the entrant and what of it differs.
    let other = run(&league, "other.toml", "shard-1", "1/2");
    assert_eq!(other.code, Some(2), "{}", other.stderr);
    assert!(
        other
            .stderr
            .contains("entrant 1, py: its env (MODE=b here, MODE=a stored)"),
        "{}",
        other.stderr
    );
    // A whole tournament's folder is no shard's: said so, not blamed on its entrants.
    let whole = allfives_with(
        &[
            "tournament",
            "--quiet",
            "--bots",
            "other.toml",
            "greedy=builtin:greedy",
            "--deals",
            "1",
            "--seed",
            "5",
            "--public-seed",
            "-j",
            "1",
            "--out",
            "whole",
        ],
        |command| {
            command.current_dir(&league);
        },
    );
    assert_eq!(whole.code, Some(0), "{}", whole.stderr);
    let shard_there = run(&league, "bots.toml", "whole", "1/2");
    assert_eq!(shard_there.code, Some(2), "{}", shard_there.stderr);
    assert!(
        shard_there
            .stderr
            .contains("holds a whole tournament, not a shard"),
        "{}",
        shard_there.stderr
    );
    assert!(
        !shard_there.stderr.contains("entrant"),
        "{}",
        shard_there.stderr
    );
    sb.assert_no_bot_left();
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}
