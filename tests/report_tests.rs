//! The report page (`standings --html`, and `report.html` in a running tournament's folder) in
//! a real headless browser, as the replay page is tested: no console message, its figures equal
//! `standings --json`, every game's link opens that game's replay page (and a fault's, the
//! decision), bot-controlled text stays text, and the live page says how the run ended.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value;

use crate::browser_tests::{chromium, quiet_dom, text_of};
use crate::harness::*;
use allfives::text::fixed;

/// The report page's DOM after its script ran, at `fragment`; fails on any console message.
fn report_dom(sb: &Sandbox, page: &Path, fragment: &str) -> String {
    let dom = quiet_dom(sb, page, fragment);
    assert!(
        dom.contains("data-ready-ms=\""),
        "the script did not finish: {dom}"
    );
    dom
}

/// Runs the command line the page shows (`allfives tournament ...`) into a new folder `again`,
/// with `--json`; it must succeed.
fn play_again(sb: &Sandbox, dom: &str) -> Ran {
    let command = text_of(dom, "command")
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let mut words = shlex::split(&command).expect("a shell command line");
    assert_eq!(words.remove(0), "allfives", "{command}");
    let again = sb.path("again");
    words.extend([
        "--out".into(),
        again.display().to_string(),
        "-q".into(),
        "--json".into(),
    ]);
    let ran = allfives(&words);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    ran
}

/// The value of attribute `name` on the element with id `id`.
fn attribute_of(dom: &str, id: &str, name: &str) -> String {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let tag_start = dom[..at].rfind('<').expect("its tag");
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').expect("its end")];
    let value = tag
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name} on #{id}: {tag}"))
        + name.len()
        + 2;
    tag[value..value + tag[value..].find('"').expect("its end")].to_string()
}

/// A link's file: its path without the query (`?report=...`).
fn page_file(href: &str) -> &str {
    href.split('?').next().unwrap_or(href)
}

/// Every `href` of the anchors of class `class`, in order.
fn links(dom: &str, class: &str) -> Vec<String> {
    let marker = format!("<a class=\"{class}\" href=\"");
    dom.match_indices(&marker)
        .map(|(i, _)| {
            let rest = &dom[i + marker.len()..];
            rest[..rest.find('"').expect("its end")].replace("&amp;", "&")
        })
        .collect()
}

/// An Elo as the page shows it: signed, one decimal (a half away from zero, as every figure of
/// the page and the text is rounded), never "-0.0".
fn signed(x: f64) -> String {
    let shown = fixed(x, 1);
    match shown.as_str() {
        "-0.0" => "+0.0".into(),
        s if s.starts_with('-') => shown,
        _ => format!("+{shown}"),
    }
}

/// A bot that plays the first legal move, then on its third turn writes markup to stderr and
/// exits (a crash's fault quotes the end of its stderr).
fn hostile_bot(sb: &Sandbox, argument: &str) -> String {
    let script = sb.path("hostile.py");
    let fixtures = root().join("tests/fixtures/bots");
    fs::write(
        &script,
        format!(
            r#"import os
import sys
sys.path.insert(0, {fixtures:?})
sys.dont_write_bytecode = True
import botlib

def turn(msg, n):
    if n == 3:
        sys.stderr.write("</script><script>alert(2)</script>\n<img src=x onerror=alert(1)>\n")
        sys.stderr.flush()
        os._exit(1)
    botlib.play_first(msg)

botlib.run(turn, stop_on_bye=False)
"#,
            fixtures = fixtures.display().to_string()
        ),
    )
    .expect("the hostile bot's script");
    sb.python(&script, &[argument])
}

#[test]
fn the_report_page_shows_the_standings_and_opens_every_game() {
    let sb = Sandbox::new();
    let out = sb.path("tournament");
    // Names are letters, digits and `_ . - #`; a command may hold anything.
    let markup = "</script><b>evil&\"'";
    let ran = allfives(&[
        "tournament".to_string(),
        "greedy=builtin:greedy".into(),
        "random=builtin:random".into(),
        format!("hostile={}", hostile_bot(&sb, markup)),
        "--deals".into(),
        "2".into(),
        "--seed".into(),
        "3".into(),
        "--public-seed".into(),
        "-j".into(),
        "2".into(),
        "--out".into(),
        out.display().to_string(),
        "-q".into(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    sb.assert_no_bot_left();
    let live = report_dom(&sb, &out.join("report.html"), "");
    assert_eq!(attribute_of(&live, "status", "data-state"), "finished");

    let json = allfives(&["standings", &out.display().to_string(), "--json"]).json();
    let site = sb.path("site");
    fs::create_dir(&site).expect("a folder for the site");
    let page = site.join("report.html");
    pages(&out, &page);
    let html = fs::read_to_string(&page).expect("the page");
    assert!(
        html.contains("script-src 'sha256-"),
        "the CSP names its script"
    );
    for outside in ["<link", "src=\"http", "href=\"http", "@import", "url("] {
        assert!(!html.contains(outside), "the page reaches out: {outside}");
    }
    assert!(!html.contains(markup), "the command went in unescaped");
    assert!(
        !html.contains("<script>alert"),
        "the crash went in unescaped"
    );
    assert!(
        html.contains("\\u003cimg src=x"),
        "the crash's stderr, escaped: {html}"
    );

    let dom = report_dom(&sb, &page, "");
    assert_eq!(attribute_of(&dom, "status", "data-state"), "read");
    let standings = &json["standings"];
    let rated = standings["ratings"]["entrants"]
        .as_array()
        .expect("ratings");
    assert_eq!(rated.len(), 3, "every entrant rated: {standings}");
    for r in rated {
        let e = r["entrant"].as_u64().expect("an index");
        let elo = r["elo"].as_f64().expect("an Elo");
        assert_eq!(text_of(&dom, &format!("elo-{e}")), signed(elo), "{r}");
        let interval = match r["interval"].as_array() {
            Some(ends) => format!(
                "{} .. {}",
                signed(ends[0].as_f64().expect("an end")),
                signed(ends[1].as_f64().expect("an end"))
            ),
            None => "a bound only".to_string(),
        };
        assert_eq!(text_of(&dom, &format!("interval-{e}")), interval, "{r}");
    }
    for row in standings["entrants"].as_array().expect("rows") {
        let e = row["entrant"].as_u64().expect("an index");
        let wdl = format!("{}-{}-{}", row["wins"], row["draws"], row["losses"]);
        assert_eq!(text_of(&dom, &format!("wdl-{e}")), wdl);
        let score = format!("{}%", fixed(row["score_pct"].as_f64().expect("a score"), 1));
        assert_eq!(text_of(&dom, &format!("score-{e}")), score);
        let rank = fixed(row["mean_rank"].as_f64().expect("a rank"), 2);
        assert_eq!(text_of(&dom, &format!("rank-{e}")), rank);
    }
    // Each crosstable cell: the row's score against the column, and its games.
    let names: Vec<&str> = json["entrants"]
        .as_array()
        .expect("entrants")
        .iter()
        .map(|e| e["name"].as_str().expect("a name"))
        .collect();
    for (a, row) in standings["crosstable"]
        .as_array()
        .expect("a crosstable")
        .iter()
        .enumerate()
    {
        for (b, cell) in row.as_array().expect("a row").iter().enumerate() {
            if cell.is_null() {
                continue;
            }
            let said = format!(
                "title=\"{} vs {}: {} of {} (",
                names[a],
                names[b],
                cell["score"].as_f64().expect("a score"),
                cell["games"]
            );
            assert!(dom.contains(&said), "no cell {said}");
        }
    }
    let played = standings["games"].as_u64().expect("games");
    assert_eq!(
        attribute_of(&dom, "games-shown", "data-matching"),
        played.to_string()
    );

    // Bot-controlled text is text: no element came of the command, the stderr or the crash.
    assert!(
        dom.contains("&lt;/script&gt;&lt;b&gt;evil&amp;"),
        "the command, as text"
    );
    assert!(!dom.contains("<b>evil"), "the command became an element");
    assert!(!dom.contains("<img"), "the stderr became an element");
    assert!(
        dom.contains("<title>allfives report: "),
        "the title is the page's"
    );

    // The command shown plays the same tournament again.
    let ran = play_again(&sb, &dom);
    let replayed = &ran.json()["standings"];
    for field in ["games", "crosstable", "winner"] {
        assert_eq!(
            replayed[field], standings[field],
            "{field} differs when played again"
        );
    }
    assert_eq!(
        replayed["ratings"]["entrants"], standings["ratings"]["entrants"],
        "the ratings differ when played again"
    );

    // Every game links to its own replay page, written by --replays.
    let results: Vec<Value> = fs::read_to_string(out.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a results line"))
        .collect();
    assert_eq!(results.len() as u64, played);
    let games: BTreeSet<String> = links(&dom, "game").into_iter().collect();
    for line in &results {
        let id = line["id"].as_str().expect("an id");
        // Each page is told it was opened from the report, to lead back to it.
        let href = format!("replay/{}.html?report=report.html", id.replace('/', "_"));
        assert!(games.contains(&href), "no link to {href}: {games:?}");
        let target = fs::read_to_string(site.join(page_file(&href))).expect("the game's page");
        assert!(
            target.contains(&format!("\"seed\":{}", line["seed"])),
            "{href} is another game's page"
        );
    }
    assert_eq!(games.len(), results.len(), "one link a game: {games:?}");

    // A fault links to the decision where it happened.
    let faults = links(&dom, "fault");
    let fault = faults.first().expect("the crash is listed");
    assert!(fault.ends_with("#fault=1"), "{fault}");
    let (file, fragment) = fault.split_once('#').expect("a fragment");
    let url = format!(
        "file://{}?{}#{fragment}",
        site.join(page_file(file)).display(),
        file.split_once('?').map_or("", |(_, q)| q)
    );
    let (game, _) = chromium(&sb, &url, &["--dump-dom"]);
    assert!(
        game.contains("fault: costs the game"),
        "the replay opens at the fault: {}",
        text_of(&game, "counter")
    );
}

#[test]
fn a_running_tournaments_page_reloads_itself_and_says_how_it_ended() {
    let sb = Sandbox::new();
    let out = sb.path("tournament");
    let mut child = spawn(&[
        "tournament".to_string(),
        "greedy=builtin:greedy".into(),
        format!("stuck={}", sb.fixture("never_answers", &[])),
        "--deals".into(),
        "1".into(),
        "--seed".into(),
        "1".into(),
        "--public-seed".into(),
        "-j".into(),
        "1".into(),
        "--move-ms".into(),
        "60000".into(),
        "--out".into(),
        out.display().to_string(),
    ]);
    // The page is written before the banner.
    let mut banner = String::new();
    BufReader::new(child.stdout.as_mut().expect("stdout"))
        .read_line(&mut banner)
        .expect("the banner");
    assert!(banner.starts_with("allfives tournament:"), "{banner}");
    let page = out.join("report.html");
    let running = report_dom(&sb, &page, "");
    assert_eq!(attribute_of(&running, "status", "data-state"), "running");
    assert!(running.contains("this page reloads itself"), "{running}");
    let pid = Pid::from_raw(child.id() as i32);
    kill(pid, Signal::SIGINT).expect("SIGINT");
    // The second Ctrl-C once the first was taken (two at once may arrive as one).
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let taken = stderr
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l.contains("stopping"));
    assert!(taken, "the first Ctrl-C was not taken");
    kill(pid, Signal::SIGINT).expect("a second SIGINT");
    stderr.for_each(drop);
    let ended = child.wait().expect("it ends");
    assert_eq!(ended.code(), Some(130));
    let stopped = report_dom(&sb, &page, "");
    assert_eq!(attribute_of(&stopped, "status", "data-state"), "stopped");
    assert!(stopped.contains("Interrupted: --resume plays the rest."));
    sb.assert_no_bot_left();
}

#[test]
fn the_page_draws_the_sequential_tests_llr_against_its_bounds() {
    let sb = Sandbox::new();
    let out = sb.path("tournament");
    let ran = allfives(&[
        "tournament",
        "builtin:greedy",
        "builtin:random",
        "--sprt",
        "elo0=0,elo1=100,alpha=0.05,beta=0.05",
        "--deals",
        "200",
        "--seed",
        "4",
        "--public-seed",
        "--out",
        &out.display().to_string(),
        "-q",
        "--json",
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let sprt = &ran.json()["standings"]["sprt"];
    assert_ne!(sprt["decision"], "continue", "the test decided: {sprt}");
    let dom = report_dom(&sb, &out.join("report.html"), "");
    assert_eq!(attribute_of(&dom, "status", "data-state"), "finished");
    assert!(dom.contains("The sequential test decided."));
    let chart = &dom[dom.find("id=\"sprt-chart\"").expect("the LLR's chart")..];
    let chart = &chart[..chart.find("</svg>").expect("its end")];
    assert!(chart.contains("<polyline"), "the LLR's path");
    let llr = format!("{:.2}", sprt["llr"].as_f64().expect("an LLR"));
    assert!(
        dom.contains(&format!(": {llr} after ")),
        "the LLR {llr} shown"
    );
    for bound in ["upper", "lower"] {
        let at = format!("{:.2}", sprt[bound].as_f64().expect("a bound"));
        assert!(chart.contains(&at), "the {bound} bound {at} drawn");
    }
}

#[test]
fn a_ladders_page_shows_its_budget_and_its_command_plays_it_again() {
    let sb = Sandbox::new();
    let out = sb.path("ladder");
    let mut args: Vec<String> = [
        "tournament",
        "--format",
        "ladder",
        "--games",
        "24",
        "--seed",
        "6",
        "--public-seed",
    ]
    .map(String::from)
    .to_vec();
    args.extend((1..=4).map(|i| format!("b{i}=builtin:{}", ["random", "greedy"][i % 2])));
    args.extend(["--out".into(), out.display().to_string(), "-q".into()]);
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let dom = report_dom(&sb, &out.join("report.html"), "");
    assert_eq!(attribute_of(&dom, "status", "data-state"), "finished");
    assert!(
        dom.contains("24 games in all, balanced tables"),
        "the budget"
    );
    assert!(
        !text_of(&dom, "command").contains("--deals"),
        "a ladder takes no --deals"
    );
    play_again(&sb, &dom);
    let again = sb.path("again");
    let games = |dir: &Path| {
        fs::read_to_string(dir.join("results.jsonl"))
            .expect("results")
            .lines()
            .count()
    };
    assert_eq!(games(&again), games(&out), "the same budget");

    // A newcomer with two games among entrants with a dozen each is still settling.
    let ran = allfives(&[
        "tournament",
        "--resume",
        "--out",
        &out.display().to_string(),
        "b5=builtin:greedy",
        "--games",
        "26",
        "-q",
        "--json",
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let report = ran.json();
    let dom = report_dom(&sb, &out.join("report.html"), "");
    let badges = dom.matches(">provisional</span>").count();
    let marked = report["standings"]["ratings"]["entrants"]
        .as_array()
        .expect("ratings")
        .iter()
        .filter(|r| r["provisional"] == true)
        .count();
    assert!(marked >= 1, "the newcomer is provisional: {report}");
    assert_eq!(badges, marked, "one mark per provisional entrant");
}

#[test]
fn packed_games_get_their_replay_pages_and_a_page_that_cannot_be_written_is_one_sentence() {
    let sb = Sandbox::new();
    let out = sb.path("tournament");
    // Packed logs: the replay pages are made from the packs.
    let ran = allfives(&[
        "tournament",
        "--pack-logs",
        "builtin:greedy",
        "builtin:random",
        "--deals",
        "1",
        "--seed",
        "1",
        "--public-seed",
        "--out",
        &out.display().to_string(),
        "-q",
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    // The referee's version is read from the first game's log, in its pack.
    let live = fs::read_to_string(out.join("report.html")).expect("the live page");
    assert!(
        live.contains(r#""referee":"allfives "#),
        "no referee version"
    );
    // A missing folder is made, as --out's is.
    let elsewhere = sb.path("missing/report.html");
    let ran = allfives(&[
        "standings",
        &out.display().to_string(),
        "--html",
        &elsewhere.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(elsewhere.is_file(), "the page was not written");
    // A folder that cannot be made: one sentence naming the path asked for, not a temporary.
    fs::write(sb.path("a-file"), "").expect("a file");
    let nowhere = sb.path("a-file/report.html");
    let ran = allfives(&[
        "standings",
        &out.display().to_string(),
        "--html",
        &nowhere.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains(&format!("cannot write {}", nowhere.display())),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains(".new"), "{}", ran.stderr);
    let page = sb.path("report.html");
    let with_replays = [
        "standings".to_string(),
        out.display().to_string(),
        "--html".into(),
        page.display().to_string(),
        "--replays".into(),
    ];
    assert_eq!(allfives(&with_replays).code, Some(0));
    let dom = report_dom(&sb, &page, "");
    let games = links(&dom, "game");
    assert!(!games.is_empty(), "games linked");
    for href in games {
        assert!(
            sb.path(page_file(&href)).is_file(),
            "{href} was not written"
        );
    }
    let again = allfives(&with_replays);
    assert_eq!(again.code, Some(2), "{again:?}");
    assert!(again.stderr.contains("exists already"), "{}", again.stderr);
}

/// `standings OUT --html PAGE --replays`: the report page of the tournament in `out`, and every
/// game's replay page beside it; it must succeed.
fn pages(out: &Path, page: &Path) {
    let ran = allfives(&[
        "standings",
        &out.display().to_string(),
        "--html",
        &page.display().to_string(),
        "--replays",
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
}

/// A tournament of `bots` in `out`: two deals, the public seed `seed`, and `more` options.
fn tournament(out: &Path, bots: &[String], seed: &str, more: &[&str]) {
    let mut args = vec!["tournament".to_string()];
    args.extend(bots.iter().cloned());
    args.extend(
        [
            "--deals",
            "2",
            "--seed",
            seed,
            "--public-seed",
            "-q",
            "--out",
        ]
        .map(String::from),
    );
    args.push(out.display().to_string());
    args.extend(more.iter().map(|m| m.to_string()));
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{ran:?}");
}

#[test]
fn the_page_and_the_text_show_the_same_figures_and_negative_scores_read_plainly() {
    let sb = Sandbox::new();
    let out = sb.path("tournament");
    // Seed 7: greedy's points for are 251.25 a game (the text said 251.2, the page 251.3), and
    // a game ends 255 to -35 (the page said 255--35).
    let bots = [
        "greedy=builtin:greedy".to_string(),
        "random=builtin:random".into(),
    ];
    tournament(&out, &bots, "7", &[]);
    let json = allfives(&["standings", &out.display().to_string(), "--json"]).json();
    let text = allfives(&["standings", &out.display().to_string()]);
    assert_eq!(text.code, Some(0), "{text:?}");
    let page = sb.path("report.html");
    pages(&out, &page);
    let dom = report_dom(&sb, &page, "");
    let mut ties = 0;
    for row in json["standings"]["entrants"].as_array().expect("rows") {
        let e = row["entrant"].as_u64().expect("an index");
        let name = row["name"].as_str().expect("a name");
        let line = text
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row of {name}: {}", text.stdout));
        let cells: Vec<&str> = line.split_whitespace().collect();
        // name games wins draws losses score% rank for against ...
        for (id, column, field) in [
            ("score", 5, "score_pct"),
            ("rank", 6, "mean_rank"),
            ("for", 7, "points_for"),
            ("against", 8, "points_against"),
        ] {
            let shown = text_of(&dom, &format!("{id}-{e}"))
                .trim_end_matches('%')
                .to_string();
            assert_eq!(
                shown, cells[column],
                "{name}'s {field}: the page and the text differ"
            );
            let exact = row[field].as_f64().expect("a figure") * 100.0;
            ties += usize::from(exact.fract() == 0.0 && (exact / 10.0).fract() == 0.5);
        }
    }
    assert!(ties > 0, "a figure half-way between two shown, as 251.25");
    let results: Vec<Value> = fs::read_to_string(out.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a results line"))
        .collect();
    let negative = results
        .iter()
        .map(|l| {
            l["scores"]
                .as_array()
                .expect("scores")
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        })
        .find(|s| s.iter().any(|x| x.starts_with('-')))
        .expect("a game with a score below 0");
    assert!(
        dom.contains(&format!("<td>{}</td>", negative.join(", "))),
        "{negative:?}"
    );
    assert!(
        !dom.contains(&format!("<td>{}</td>", negative.join("-"))),
        "a score reads as a double dash"
    );
    assert!(
        !dom.contains("level at the top") && dom.contains(" won, "),
        "an entrant's results"
    );
    // A two-player game's end names the seat that reached the target.
    let index = fs::read_to_string(sb.path("replay/index.html")).expect("the replay index");
    assert!(
        index.contains("seat 0 reached the target") || index.contains("seat 1 reached the target"),
        "{index}"
    );
    assert!(!index.contains("side "), "{index}");
}

#[test]
fn many_faults_are_summed_up_and_a_game_opened_from_the_report_leads_back_to_it() {
    let sb = Sandbox::new();
    let out = sb.path("tournament");
    // Every turn after its first is malformed, and the referee plays on: dozens of faults a game.
    let bots = [
        format!("garbage={}", sb.fixture("garbage", &[])),
        "greedy=builtin:greedy".into(),
    ];
    tournament(
        &out,
        &bots,
        "3",
        &["--on-fault", "fallback", "--max-faults", "40"],
    );
    let site = sb.path("site");
    fs::create_dir(&site).expect("a folder for the site");
    let page = site.join("results.html");
    pages(&out, &page);
    sb.assert_no_bot_left();
    let dom = report_dom(&sb, &page, "");
    let results: Vec<Value> = fs::read_to_string(out.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a results line"))
        .collect();
    let most = results
        .iter()
        .max_by_key(|l| l["faults"].as_array().map_or(0, Vec::len))
        .expect("games");
    let n = most["faults"].as_array().expect("faults").len();
    assert!(n > 10, "a game of many faults: {n}");
    // The first three faults, then their count folded over the rest.
    let id = most["id"].as_str().expect("an id");
    let row = &dom[dom.find(&format!(">{id}</a>")).expect("the game's row")..];
    let row = &row[..row.find("</tr>").expect("its end")];
    let folded = row
        .find("<details class=\"faults\">")
        .expect("the rest folded");
    assert_eq!(row[..folded].matches("class=\"fault\"").count(), 3, "{row}");
    assert!(
        row.contains(&format!("<summary>and {} more: {n} faults in all (", n - 3)),
        "{row}"
    );
    // Its page, opened from the report: named by its id, and "all games" is the report.
    let href = links(&dom, "game")
        .into_iter()
        .find(|h| h.contains(&id.replace('/', "_")))
        .expect("the game's link");
    assert!(href.ends_with("?report=results.html"), "{href}");
    let (file, query) = href.split_once('?').expect("a query");
    let url = format!("file://{}?{query}#step=1", site.join(file).display());
    let (game, _) = chromium(&sb, &url, &["--dump-dom"]);
    assert!(
        game.contains("<a href=\"../results.html\">all games (the report)</a>"),
        "{game}"
    );
    let players: Vec<&str> = most["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["name"].as_str().expect("a name"))
        .collect();
    let title = format!("allfives game {id}: {}", players.join(" vs "));
    assert!(game.contains(&format!("<title>{title}</title>")), "{game}");
    assert!(
        game.contains(&format!("id=\"title\">{title}</h1>")),
        "{game}"
    );
    // Opened from its folder's index, it leads to the index.
    let alone = quiet_dom(&sb, &site.join(file), "step=1");
    assert!(
        alone.contains("<a href=\"index.html\">all games</a>"),
        "{alone}"
    );
}
