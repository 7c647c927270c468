//! Ladders (`tournament --format ladder`): tables drawn for a budget of games, balanced or by
//! matchmaking, entrants joining and retiring on `--resume`, shards drawn apart and merged.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::harness::*;

/// `allfives tournament --format ladder --json --quiet --out OUT ARGS...` (the format only on a
/// first run: a resume keeps it).
fn ladder(out: &Path, args: &[&str]) -> Ran {
    let out = out.display().to_string();
    let mut all = vec!["tournament", "--json", "--quiet", "--out", &out];
    if !args.contains(&"--resume") {
        all.extend(["--format", "ladder"]);
    }
    all.extend(args);
    allfives(&all)
}

/// Every line of `OUT/results.jsonl`.
fn lines(out: &Path) -> Vec<Value> {
    fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The entrant indices of a line's group.
fn group(line: &Value) -> Vec<u64> {
    line["group"]
        .as_array()
        .expect("a group")
        .iter()
        .map(|e| e.as_u64().expect("an index"))
        .collect()
}

/// Games per entrant index.
fn games_each(lines: &[Value]) -> BTreeMap<u64, u64> {
    let mut games = BTreeMap::new();
    for line in lines {
        for e in group(line) {
            *games.entry(e).or_default() += 1;
        }
    }
    games
}

fn builtins(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let bot = if i % 2 == 0 { "greedy" } else { "random" };
            format!("{n}=builtin:{bot}")
        })
        .collect()
}

#[test]
fn a_ladder_of_four_spends_its_budget_in_whole_balanced_tables() {
    let sb = Sandbox::new();
    let out = sb.path("l");
    let bots = builtins(&["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["-p", "4", "--no-teams", "--games", "160", "--seed", "7"]);
    let ran = ladder(&out, &args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(ran.json()["complete"], true);
    let lines = lines(&out);
    assert_eq!(lines.len(), 160);
    // Each table: four distinct entrants on a deal of its own, in all 8 arrangements.
    let mut sets: HashMap<u64, (Vec<u64>, BTreeSet<u64>)> = HashMap::new();
    let mut seats: BTreeMap<(u64, usize), u64> = BTreeMap::new();
    for line in &lines {
        let g = group(line);
        assert!(g.windows(2).all(|w| w[0] < w[1]), "{g:?}");
        let set = sets
            .entry(line["deal"].as_u64().expect("a deal"))
            .or_insert_with(|| (g.clone(), BTreeSet::new()));
        assert_eq!(set.0, g, "one group per deal");
        set.1
            .insert(line["arrangement"].as_u64().expect("an arrangement"));
        for (s, seat) in line["seats"].as_array().expect("seats").iter().enumerate() {
            *seats.entry((uint(&seat["entrant"]) as u64, s)).or_default() += 1;
        }
    }
    assert_eq!(sets.len(), 20);
    assert!(sets.values().all(|(_, a)| a.len() == 8));
    // Everyone plays about as often: 20 tables of 4 among 9 is 8 or 9 tables each.
    let games = games_each(&lines);
    assert_eq!(games.len(), 9);
    let (min, max) = (games.values().min(), games.values().max());
    assert!(max.unwrap() - min.unwrap() <= 8, "{games:?}");
    // ...and sits in every seat equally.
    for e in 0..9u64 {
        let counts: Vec<u64> = (0..4).map(|s| seats[&(e, s)]).collect();
        assert!(counts.iter().all(|&c| c == counts[0]), "{e}: {counts:?}");
    }
    let standings = allfives(&["standings", &out.display().to_string(), "--json"]);
    assert_eq!(standings.code, Some(0), "{}", standings.stderr);
    let report = standings.json();
    assert_eq!(report["standings"]["games"], 160);
    // Greedy bots beat random ones nearly always: their intervals are wide, yet an entrant
    // that played as much as the others is not "still settling".
    let mut counts: Vec<u64> = games.values().copied().collect();
    counts.sort_unstable();
    for r in report["standings"]["ratings"]["entrants"]
        .as_array()
        .expect("ratings")
    {
        let played = games[&(uint(&r["entrant"]) as u64)];
        if played >= counts[counts.len() / 2] {
            assert_eq!(r["provisional"], false, "{r}");
        }
    }
}

#[test]
fn a_newcomer_catches_up_a_retired_entrant_is_not_drawn_and_a_new_version_needs_a_name() {
    let sb = Sandbox::new();
    let out = sb.path("l");
    let bots = builtins(&["a", "b", "c", "d"]);
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["--games", "40", "--seed", "3"]);
    assert_eq!(ladder(&out, &args).code, Some(0));
    let first: BTreeSet<String> = lines(&out)
        .iter()
        .map(|l| l["id"].as_str().expect("an id").to_string())
        .collect();
    let renamed = ladder(&out, &["--resume", "b=builtin:greedy", "--games", "80"]);
    assert_eq!(renamed.code, Some(2), "{}", renamed.stderr);
    assert!(
        renamed.stderr.contains("a new version needs a new name"),
        "{}",
        renamed.stderr
    );
    let unknown = ladder(&out, &["--resume", "--retire", "zz"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("--retire zz: no entrant"),
        "{}",
        unknown.stderr
    );
    // Replace a with a2: a retires, a2 joins.
    let grown = ladder(
        &out,
        &[
            "--resume",
            "--retire",
            "a",
            "a2=builtin:greedy",
            "--games",
            "80",
        ],
    );
    assert_eq!(grown.code, Some(0), "{}", grown.stderr);
    assert!(
        grown.stderr.contains("entrants added: a2"),
        "{}",
        grown.stderr
    );
    assert!(grown.stderr.contains("a retired"), "{}", grown.stderr);
    let all = lines(&out);
    assert_eq!(all.len(), 80);
    let new: Vec<&Value> = all
        .iter()
        .filter(|l| !first.contains(l["id"].as_str().expect("an id")))
        .collect();
    assert!(new.iter().all(|l| !group(l).contains(&0)), "a was drawn");
    // b, c and d had 20 games each; a2 plays every table until it has as many.
    let games = games_each(&all);
    assert_eq!(games[&0], 20);
    assert!(games[&4] >= 20, "{games:?}");
    let report = grown.json();
    assert_eq!(report["entrants"][0]["retired"], true);
    assert!(report["entrants"][4].get("retired").is_none());
}

#[test]
fn ladder_shards_draw_their_own_deals_and_merge_with_their_newcomers() {
    let sb = Sandbox::new();
    let bots = builtins(&["a", "b", "c", "d", "e"]);
    let (one, two) = (sb.path("s1"), sb.path("s2"));
    // Shards share their deals through one key file (the first shard makes it).
    let key = sb.path("deal-key").display().to_string();
    for (i, out) in [(1, &one), (2, &two)] {
        let shard = format!("{i}/2");
        let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
        args.extend(["-p", "3", "--games", "60", "--seed", "5", "--shard", &shard]);
        args.extend(["--deal-key", &key]);
        assert_eq!(ladder(out, &args).code, Some(0));
        let resumed = ladder(out, &["--resume", "f=builtin:greedy", "--games", "120"]);
        assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    }
    for (residue, out) in [(0, &one), (1, &two)] {
        assert!(
            lines(out)
                .iter()
                .all(|l| l["deal"].as_u64().expect("a deal") % 2 == residue)
        );
    }
    let (a, b) = (one.display().to_string(), two.display().to_string());
    let merged = allfives(&["standings", &a, &b, "--json"]);
    assert_eq!(merged.code, Some(0), "{}", merged.stderr);
    let report = merged.json();
    assert_eq!(report["complete"], true);
    assert_eq!(report["standings"]["games"], 240);
    assert_eq!(report["entrants"].as_array().expect("entrants").len(), 6);
    // A shard is not a whole ladder: another seed's shard is refused.
    let other = sb.path("s3");
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["-p", "3", "--games", "6", "--seed", "6", "--shard", "2/2"]);
    args.extend(["--deal-key", &key]);
    assert_eq!(ladder(&other, &args).code, Some(0));
    let refused = allfives(&["standings", &a, &other.display().to_string()]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("hold different tournaments"),
        "{}",
        refused.stderr
    );
}

#[test]
fn matchmaking_ranks_every_greedy_bot_above_every_random_one() {
    let sb = Sandbox::new();
    let out = sb.path("l");
    let bots = builtins(&["g1", "r1", "g2", "r2", "g3", "r3"]);
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["--games", "600", "--matchmaking", "--seed", "11"]);
    let ran = ladder(&out, &args);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let report = ran.json();
    let order: Vec<&str> = report["standings"]["ratings"]["entrants"]
        .as_array()
        .expect("ratings")
        .iter()
        .map(|r| r["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(order.len(), 6);
    assert!(order[..3].iter().all(|n| n.starts_with('g')), "{order:?}");
}

/// Each game of a folder's results: its id, deal, group and scores, sorted by id.
fn games_played(out: &Path) -> Vec<String> {
    let mut games: Vec<String> = lines(out)
        .iter()
        .map(|l| format!("{} {} {} {}", l["id"], l["deal"], l["group"], l["scores"]))
        .collect();
    games.sort();
    games
}

/// The draw reads only what its seed and the sets' numbers give: which worker finished first
/// changes no table, nor does a stop and a resume (matchmaking's draw took whatever fit the
/// finished games gave before).
#[test]
fn a_ladder_draws_the_same_tables_with_one_worker_or_two_and_across_a_resume() {
    let sb = Sandbox::new();
    let bots: Vec<String> = (0..8)
        .map(|i| format!("m{i}=builtin:mix:{}", f64::from(i) / 7.0))
        .collect();
    for draw in [&[][..], &["--matchmaking"][..]] {
        let run = |name: &str, jobs: &str, games: &[&str]| {
            let out = sb.path(&format!("{name}{}", draw.len()));
            for budget in games {
                let mut args: Vec<&str> = vec!["--games", budget, "-j", jobs];
                if out.exists() {
                    args.push("--resume");
                } else {
                    args.extend(bots.iter().map(String::as_str));
                    // One master for the three runs compared.
                    args.extend(["--seed", "5", "--public-seed"]);
                    args.extend(draw);
                }
                let ran = ladder(&out, &args);
                assert_eq!(ran.code, Some(0), "{}", ran.stderr);
            }
            games_played(&out)
        };
        let alone = run("one", "1", &["400"]);
        assert_eq!(alone.len(), 400);
        assert!(
            alone == run("two", "2", &["400"]),
            "{draw:?}: -j 1 and 2 apart"
        );
        let resumed = run("resumed", "2", &["200", "400"]);
        assert!(alone == resumed, "{draw:?}: resumed apart");
    }
}

#[test]
fn a_resumed_ladder_completes_the_tables_a_stop_left_unfinished() {
    let sb = Sandbox::new();
    let out = sb.path("l");
    let bots = builtins(&["a", "b", "c", "d"]);
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["-p", "3", "--games", "36", "--seed", "9"]);
    assert_eq!(ladder(&out, &args).code, Some(0));
    // A run stopped mid-table: the last table's last four games never reached the results.
    let text = fs::read_to_string(out.join("results.jsonl")).expect("results");
    let kept: Vec<&str> = text.lines().take(32).collect();
    fs::write(out.join("results.jsonl"), kept.join("\n") + "\n").expect("cut the results");
    let resumed = ladder(&out, &["--resume"]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    assert_eq!(resumed.json()["complete"], true);
    let all = lines(&out);
    assert_eq!(all.len(), 36);
    let mut sets: HashMap<u64, usize> = HashMap::new();
    for line in &all {
        *sets
            .entry(line["deal"].as_u64().expect("a deal"))
            .or_default() += 1;
    }
    assert!(sets.values().all(|&n| n == 6), "{sets:?}");
}

#[test]
fn ladder_options_out_of_place_are_refused_in_one_sentence() {
    let sb = Sandbox::new();
    let bots = builtins(&["a", "b"]);
    let cases: [(&[&str], &str); 4] = [
        (&["--games", "10"], "--games needs --format ladder"),
        (&["--format", "ladder"], "a ladder needs a budget"),
        (
            &["--format", "ladder", "--games", "4", "--deals", "3"],
            "drop --deals",
        ),
        (
            &["--format", "ladder", "--games", "4", "--retire", "a"],
            "--retire needs --resume",
        ),
    ];
    for (options, message) in cases {
        let out = sb.unused_logs().display().to_string();
        let mut args = vec!["tournament", "--out", &out, "-q"];
        args.extend(bots.iter().map(String::as_str));
        args.extend(options);
        let ran = allfives(&args);
        assert_eq!(ran.code, Some(2), "{options:?}: {}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
        assert!(ran.stderr.contains(message), "{options:?}: {}", ran.stderr);
        assert!(!Path::new(&out).exists(), "a refused run left {out}");
    }
}

#[test]
fn a_bots_file_adds_and_retires_the_entrants_of_a_ladder() {
    let sb = Sandbox::new();
    let out = sb.path("l");
    let bots = builtins(&["a", "b", "c"]);
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["--games", "12", "--seed", "4"]);
    assert_eq!(ladder(&out, &args).code, Some(0));
    let file = sb.path("bots.toml");
    fs::write(
        &file,
        "[[bots]]\nname = \"a\"\ncommand = \"builtin:greedy\"\nretired = true\n\n\
         [[bots]]\nname = \"d\"\ncommand = \"builtin:random\"\n",
    )
    .expect("a bots file");
    let file = file.display().to_string();
    let resumed = ladder(&out, &["--resume", "--bots", &file, "--games", "40"]);
    assert_eq!(resumed.code, Some(0), "{}", resumed.stderr);
    let report = resumed.json();
    assert_eq!(report["entrants"][0]["retired"], true);
    assert_eq!(report["entrants"][3]["name"], "d");
    let games = games_each(&lines(&out));
    assert_eq!(games[&0], 8, "a played only before it retired: {games:?}");
    // Outside a ladder, a retired bot is refused.
    let other = sb.path("t");
    let refused = allfives(&[
        "tournament",
        "--out",
        &other.display().to_string(),
        "--bots",
        &file,
        "b=builtin:greedy",
    ]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("only a ladder"),
        "{}",
        refused.stderr
    );
}

/// Issue 30: `--resume --games 8500` on a ladder of 9,104 games exited 0 and stored 8500.
#[test]
fn a_budget_below_the_games_played_is_refused_and_the_stored_one_kept() {
    let sb = Sandbox::new();
    let out = sb.path("l");
    let bots = builtins(&["a", "b", "c"]);
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["--games", "30", "--seed", "3"]);
    assert_eq!(ladder(&out, &args).code, Some(0));
    let played = lines(&out).len();
    let stored = fs::read_to_string(out.join("tournament.json")).expect("tournament.json");
    let lower = ladder(&out, &["--resume", "--games", "20"]);
    assert_eq!(lower.code, Some(2), "{}", lower.stderr);
    let says = format!("--games 20 is below the {played} games");
    assert!(lower.stderr.contains(&says), "{}", lower.stderr);
    assert!(
        lower.stderr.contains("its budget of 30"),
        "{}",
        lower.stderr
    );
    let after = fs::read_to_string(out.join("tournament.json")).expect("tournament.json");
    assert_eq!(after, stored, "the stored budget stands");
    assert_eq!(lines(&out).len(), played);
}

/// Issue 30: newcomers added by `--resume` with `--games-each` played only each other while they
/// caught up, so their ratings could not be compared with the stored entrants'.
#[test]
fn newcomers_added_by_resume_meet_the_stored_entrants() {
    let sb = Sandbox::new();
    let out = sb.path("l");
    let bots = builtins(&["a", "b", "c", "d"]);
    let mut args: Vec<&str> = bots.iter().map(String::as_str).collect();
    args.extend(["--games-each", "40", "--seed", "3"]);
    assert_eq!(ladder(&out, &args).code, Some(0));
    let stored = lines(&out).len();
    let grown = ladder(
        &out,
        &[
            "--resume",
            "e=builtin:greedy",
            "f=builtin:random",
            "--games-each",
            "40",
        ],
    );
    assert_eq!(grown.code, Some(0), "{}", grown.stderr);
    let all = lines(&out);
    let met_stored = all[stored..]
        .iter()
        .filter(|l| group(l).iter().any(|&e| e < 4))
        .count();
    assert!(
        met_stored * 2 >= all.len() - stored,
        "{met_stored} of the newcomers' {} games were against stored entrants",
        all.len() - stored
    );
}
