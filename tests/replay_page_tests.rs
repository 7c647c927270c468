//! The replay page's navigation and a debugger's tools (issue 43), in a real headless browser:
//! fault controls and marks, the list of steps, one seat's view, the raw log, the commands of
//! the decision shown, the score chart up to the step, and the page on a phone.

use std::fs;
use std::path::{Path, PathBuf};

use crate::browser_tests::{
    chromium, long_game, long_named_game, page_of, quiet_dom, short_game, text_of, three_games,
};
use crate::harness::*;

/// What `script` returns (a function body given `doc`, the page's document, and `win`, its
/// window), run once `page` at `fragment` is loaded in a frame of `width` x `height` CSS px
/// (headless chromium makes no window under 500 px wide; the frame can be), in a page of the
/// test's own (`--allow-file-access-from-files` lets the two file pages see each other); fails
/// on any console message.
pub fn driven(
    sb: &Sandbox,
    page: &Path,
    fragment: &str,
    (width, height): (u32, u32),
    script: &str,
) -> String {
    let frame = sb.path("driven.html");
    fs::write(
        &frame,
        format!(
            r#"<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" style="border:0;width:{width}px;height:{height}px" src="file://{}#{fragment}"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {{
  var f = document.getElementById("f"), out = document.createElement("pre");
  out.id = "out";
  out.textContent = String((function (doc, win) {{ {script} }})(f.contentDocument, f.contentWindow));
  document.body.appendChild(out);
}});
</script></body></html>"#,
            page.display()
        ),
    )
    .expect("the frame's page");
    let url = format!("file://{}", frame.display());
    let (dom, log) = chromium(
        sb,
        &url,
        &[
            "--allow-file-access-from-files",
            "--window-size=1500,1000",
            "--dump-dom",
        ],
    );
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "the page wrote to the console: {console:?}"
    );
    text_of(&dom, "out")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// A game of 9 faults: a bot that from its second turn on plays on an end its tile does not
/// match, each move with an info of terminal and bidi escapes, under `fallback` (the 9th
/// fault costs it the game); its log's path.
fn faulty_game(sb: &Sandbox) -> PathBuf {
    let log = sb.path("faulty.jsonl");
    let ran = allfives(&[
        "match".to_string(),
        sb.fixture("illegal", &["wrong-end", "info"]),
        "builtin:greedy".into(),
        "--on-fault".into(),
        "fallback".into(),
        "--max-faults".into(),
        "9".into(),
        "--seed".into(),
        "5".into(),
        "--public-seed".into(),
        "--log".into(),
        log.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    log
}

/// The game's steps, as `replay --json` gives them.
fn steps_of(log: &Path) -> Vec<serde_json::Value> {
    let doc = allfives(&["replay", &log.display().to_string(), "--json"]).json();
    doc["steps"].as_array().expect("steps").clone()
}

/// The steps (from 1) of the game's faults.
fn fault_steps(steps: &[serde_json::Value]) -> Vec<usize> {
    (0..steps.len())
        .filter(|&i| steps[i]["event"]["type"] == "fault")
        .map(|i| i + 1)
        .collect()
}

#[test]
fn the_fault_controls_and_the_sliders_marks_land_on_each_fault() {
    let sb = Sandbox::new();
    let log = faulty_game(&sb);
    let page = page_of(&sb, &log, "faulty.html", &[]);
    let steps = steps_of(&log);
    let faults = fault_steps(&steps);
    assert_eq!(faults.len(), 9, "{faults:?}");
    let total = steps.len();
    // Each mark on the slider: its step, its link, and where it sits along the slider.
    let marks = driven(
        &sb,
        &page,
        "step=1",
        (1400, 900),
        r##"return Array.prototype.map.call(doc.querySelectorAll("#marks a"), function (a) {
             return a.getAttribute("data-step") + " " + a.getAttribute("href") + " " + parseFloat(a.style.left).toFixed(2);
           }).join("|");"##,
    );
    let expected: Vec<String> = faults
        .iter()
        .map(|&k| {
            format!(
                "{k} #step={k} {:.2}",
                100.0 * (k - 1) as f64 / (total - 1) as f64
            )
        })
        .collect();
    assert_eq!(marks, expected.join("|"));
    // From step 1, "next fault" lands on each fault in turn, then is disabled; "previous
    // fault" goes back through them.
    let walked = driven(
        &sb,
        &page,
        "step=1",
        (1400, 900),
        r##"var out = [], next = doc.getElementById("next-fault"), prev = doc.getElementById("prev-fault");
           var at = function () { return doc.getElementById("counter").textContent.split(" ")[1]; };
           out.push("prev " + prev.disabled);
           for (var n = 0; n < 20 && !next.disabled; n++) { next.click(); out.push(at()); }
           out.push("back");
           for (var n = 0; n < 20 && !prev.disabled; n++) { prev.click(); out.push(at()); }
           return out.join(" ");"##,
    );
    let forward: Vec<String> = faults.iter().map(|k| k.to_string()).collect();
    let backward: Vec<String> = faults.iter().rev().skip(1).map(|k| k.to_string()).collect();
    assert_eq!(
        walked,
        format!(
            "prev true {} back {}",
            forward.join(" "),
            backward.join(" ")
        )
    );
    // The keys: F to the next fault, shift+F to the one before.
    let dom = quiet_dom(&sb, &page, &format!("step={}&keys=f,f,F", faults[3]));
    assert_eq!(
        text_of(&dom, "counter"),
        format!("step {} of {total}", faults[4])
    );
    // #fault=K opens the K-th; a fault the game does not have is said, as the command line
    // says it (it opened step 1 without a word).
    let dom = quiet_dom(&sb, &page, "fault=3");
    assert_eq!(
        text_of(&dom, "counter"),
        format!("step {} of {total}", faults[2])
    );
    let dom = quiet_dom(&sb, &page, "fault=10");
    assert_eq!(text_of(&dom, "counter"), format!("step 1 of {total}"));
    assert!(
        dom.contains("class=\"bad\">The game has 9 faults, so no fault 10"),
        "the missing fault said: {}",
        &dom[dom.find("<header").unwrap_or(0)..dom.find("id=\"controls\"").unwrap_or(0)]
    );
    let cli = allfives(&["replay", &log.display().to_string(), "--turn", "fault:10"]);
    assert!(cli.stderr.contains("so no fault 10"), "{cli:?}");
}

#[test]
fn a_steps_list_jumps_to_any_step_of_the_hand() {
    let sb = Sandbox::new();
    let log = faulty_game(&sb);
    let page = page_of(&sb, &log, "faulty.html", &[]);
    let steps = steps_of(&log);
    let hand_end = steps
        .iter()
        .position(|s| s["event"]["type"] == "hand_end")
        .expect("a hand ends")
        + 1;
    // Every step of the first hand is listed, each linking to itself, the one shown marked;
    // clicking one shows it.
    let listed = driven(
        &sb,
        &page,
        "step=3",
        (1400, 900),
        r##"var links = doc.querySelectorAll("#moves a"), now = doc.querySelector("#moves li.now a");
           var first = Array.prototype.map.call(links, function (a) { return a.getAttribute("href"); }).join(" ");
           return first + "|" + now.getAttribute("href") + "|" + links.length;"##,
    );
    let parts: Vec<&str> = listed.split('|').collect();
    let first_hand = steps
        .iter()
        .position(|s| s["event"]["type"] == "hand_start")
        .expect("a hand")
        + 1;
    let hrefs: Vec<String> = (first_hand..=hand_end)
        .map(|k| format!("#step={k}"))
        .collect();
    assert_eq!(parts[0], hrefs.join(" "));
    assert_eq!(parts[1], "#step=3");
    let dom = quiet_dom(&sb, &page, &format!("step={}", hand_end - 1));
    assert!(
        dom.contains(&format!("class=\"now\"><a href=\"#step={}\"", hand_end - 1)),
        "the step shown is marked"
    );
    // A click on a step's link opens it (through the address, as a link to it does).
    let clicked = driven(
        &sb,
        &page,
        "step=3",
        (1400, 900),
        r##"doc.querySelectorAll("#moves a")[5].click();
           return win.location.hash;"##,
    );
    assert_eq!(clicked, format!("#step={}", first_hand + 5));
}

#[test]
fn a_decision_gives_its_commands_its_info_as_the_text_shows_it_and_the_raw_log() {
    let sb = Sandbox::new();
    let log = faulty_game(&sb);
    let page = page_of(&sb, &log, "faulty.html", &[]);
    let dom = quiet_dom(&sb, &page, "fault=2");
    // The info, escaped once: as the text replay shows it (the page showed `\\u{202e}`).
    let text = allfives(&["replay", &log.display().to_string(), "--turn", "fault:2"]);
    let line = text
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("info: "))
        .expect("the info in the text");
    assert_eq!(
        text_of(&dom, "info").replace("&amp;", "&"),
        line,
        "{}",
        text.stdout
    );
    assert!(line.contains("\\u{202e}evil"), "{line}");
    // The commands of the decision shown run as they are.
    let unescape = |s: &str| {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    };
    let turn = unescape(text_of(&dom, "turn-command"));
    assert_eq!(
        turn,
        format!("allfives replay {} --turn fault:2", log.display())
    );
    let ask = unescape(text_of(&dom, "ask-command"));
    for command in [&turn, &ask] {
        let mut words = shlex::split(command).expect("a shell command line");
        assert_eq!(words.remove(0), "allfives");
        let ran = allfives(&words);
        assert_eq!(ran.code, Some(0), "{command}: {ran:?}");
        assert!(ran.stdout.contains(line), "{command}: {}", ran.stdout);
    }
    assert!(ask.contains("--ask '"), "{ask}");
    // At a play: its own decision's number.
    let steps = steps_of(&log);
    let play = steps
        .iter()
        .position(|s| s["event"]["type"] == "play" && s["turn"].is_u64())
        .expect("a decision");
    let dom = quiet_dom(&sb, &page, &format!("step={}", play + 1));
    assert_eq!(
        unescape(text_of(&dom, "turn-command")),
        format!(
            "allfives replay {} --turn {}",
            log.display(),
            steps[play]["turn"]
        )
    );
    // The raw log, beside the page.
    let href = {
        let at = dom
            .find("id=\"raw-log\" href=\"")
            .expect("the raw log's link")
            + 19;
        dom[at..at + dom[at..].find('"').expect("its end")].to_string()
    };
    assert_eq!(href, "faulty.jsonl");
    // One seat's page links to no log (the log shows every hand).
    let own = page_of(&sb, &log, "seat1.html", &["--seat", "1"]);
    let dom = quiet_dom(&sb, &own, "step=1");
    assert!(
        !dom.contains("id=\"raw-log\""),
        "a seat's page links to the log"
    );
}

#[test]
fn the_page_switches_to_one_seats_view_and_back() {
    let sb = Sandbox::new();
    let log = faulty_game(&sb);
    let page = page_of(&sb, &log, "faulty.html", &[]);
    let steps = steps_of(&log);
    // Seat 0's fault, seen by seat 1: not told, and seat 0's decision hidden.
    let fault = fault_steps(&steps)[0];
    let seen = driven(
        &sb,
        &page,
        &format!("step={fault}"),
        (1400, 900),
        r##"var v = doc.getElementById("view");
           var shown = function () {
             var by = doc.getElementById("hands").textContent, b = by.slice(by.indexOf("boneyard"));
             return [doc.querySelectorAll("#hands svg")[0].innerHTML.indexOf("#35507a") >= 0,
                     b.indexOf("[") >= 0, doc.getElementById("decision").textContent.length > 0,
                     doc.getElementById("says").textContent.indexOf("was not told") >= 0,
                     doc.getElementById("link").getAttribute("href")].join(" ");
           };
           var out = [shown()];
           v.value = "1"; v.dispatchEvent(new Event("change"));
           out.push(shown());
           v.value = ""; v.dispatchEvent(new Event("change"));
           out.push(shown());
           return out.join("|");"##,
    );
    assert_eq!(
        seen,
        format!(
            "false true true false #step={fault}|true false false true #step={fault}&view=1|false true true false #step={fault}"
        )
    );
    // The view is kept in the address: a link to it opens it.
    let dom = quiet_dom(&sb, &page, &format!("step={fault}&view=1"));
    assert!(
        dom.contains("seat 1 (greedy) (this view)"),
        "the view named"
    );
    // Seat 1's own decisions are numbered as `--seat 1 --turn K` counts them.
    let own = steps
        .iter()
        .position(|s| s["seat"] == 1 && s["turn"].is_u64())
        .expect("a decision of seat 1");
    let dom = quiet_dom(&sb, &page, &format!("step={}&view=1", own + 1));
    let command = text_of(&dom, "turn-command").replace("&amp;", "&");
    assert_eq!(
        command,
        format!("allfives replay {} --seat 1 --turn 1", log.display())
    );
    let mut words = shlex::split(&command).expect("words");
    words.remove(0);
    let ran = allfives(&words);
    assert_eq!(ran.code, Some(0), "{ran:?}");
}

/// The `points` of the score chart's lines in a dumped DOM.
fn chart_lines(dom: &str) -> Vec<usize> {
    let chart = &dom[dom.find("id=\"chart\"").expect("the chart")..];
    let chart = &chart[..chart.find("</svg>").expect("its end")];
    chart
        .match_indices("<polyline points=\"")
        .map(|(i, m)| {
            let rest = &chart[i + m.len()..];
            rest[..rest.find('"').expect("its end")].split(' ').count()
        })
        .collect()
}

#[test]
fn the_score_chart_is_drawn_up_to_the_step_shown() {
    let sb = Sandbox::new();
    let log = short_game(&sb);
    let page = page_of(&sb, &log, "game.html", &[]);
    let steps = steps_of(&log);
    // A point for each step that changed the scores, after the start at 0.
    let changes = |upto: usize| {
        let mut last = serde_json::json!([]);
        let mut n = 0;
        for s in &steps[..upto] {
            if s["scores"] != last {
                n += 1;
                last = s["scores"].clone();
            }
        }
        n
    };
    let middle = steps.len() / 2;
    for at in [1, middle, steps.len()] {
        let dom = quiet_dom(&sb, &page, &format!("step={at}"));
        let lines = chart_lines(&dom);
        assert_eq!(lines.len(), 2, "a line a side");
        assert!(
            lines.iter().all(|&n| n == 1 + changes(at)),
            "step {at}: {lines:?} points, {} changes so far",
            changes(at)
        );
    }
}

#[test]
fn a_phone_shows_long_names_whole_and_a_fault_in_view() {
    let sb = Sandbox::new();
    // Four players named with 40 characters: the title had no break points, and the page was
    // 433 px wide on a phone of 400.
    let (four, _) = long_named_game(&sb);
    let page = page_of(&sb, &four, "four.html", &[]);
    let probe = r##"var b = doc.body; return [b.getAttribute("data-viewport"), b.getAttribute("data-page-width"), b.getAttribute("data-says")].join(" ");"##;
    for step in ["step=1", "step=40"] {
        let shown = driven(&sb, &page, &format!("{step}&probe"), (400, 800), probe);
        let parts: Vec<&str> = shown.split(' ').collect();
        assert_eq!(parts[0], "400x800");
        let width: u32 = parts[1].parse().expect("px");
        assert!(width <= 400, "{step}: the page is {width} px wide");
    }
    // At a fault, its words are in view (they were under the table, below the fold).
    let log = faulty_game(&sb);
    let page = page_of(&sb, &log, "faulty.html", &[]);
    for k in [1, 5, 9] {
        let shown = driven(&sb, &page, &format!("fault={k}&probe"), (400, 800), probe);
        let says = shown.split(' ').nth(2).expect("where the words are");
        let (top, bottom) = says.split_once(',').expect("top,bottom");
        let (top, bottom): (i32, i32) = (top.parse().expect("px"), bottom.parse().expect("px"));
        assert!(
            (0..800).contains(&top) && bottom > 0,
            "fault {k}: its words at {top}..{bottom} px in a window of 800"
        );
    }
}

/// A round-robin of `entrants` random bots, one deal each, one hand a game, its logs in files;
/// its folder.
fn round_robin(sb: &Sandbox, name: &str, entrants: usize) -> PathBuf {
    let out = sb.path(name);
    let mut args = vec!["tournament".to_string()];
    args.extend((1..=entrants).map(|k| format!("r{k}=builtin:random")));
    args.extend(
        [
            "--deals",
            "1",
            "--max-hands",
            "1",
            "--seed",
            "1",
            "--public-seed",
            "-q",
            "--out",
        ]
        .map(String::from),
    );
    args.push(out.display().to_string());
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    out
}

#[test]
fn a_tournaments_games_are_named_found_and_paged_by_their_ids() {
    let sb = Sandbox::new();
    // 13 entrants: 156 games, two pages of the games table; 1-12/0/0 and 11-12/0/0 both exist.
    let out = round_robin(&sb, "league", 13);
    let site = sb.path("site");
    fs::create_dir(&site).expect("the site's folder");
    let report = site.join("report.html");
    let ran = allfives(&[
        "standings",
        &out.display().to_string(),
        "--html",
        &report.display().to_string(),
        "--replays",
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    // The index names each game by its id, as the report and the command line do.
    let index = fs::read_to_string(site.join("replay/index.html")).expect("the index");
    assert!(
        index.contains("<a href=\"1-12_0_0.html\">1-12/0/0</a>"),
        "{index}"
    );
    assert!(!index.contains(">1-12_0_0<"), "{index}");
    // A game's page links to its log where it is.
    let page = site.join("replay/1-12_0_0.html");
    let dom = quiet_dom(&sb, &page, "step=1");
    let at = dom
        .find("id=\"raw-log\" href=\"")
        .expect("the raw log's link")
        + 19;
    let href = &dom[at..at + dom[at..].find('"').expect("its end")];
    assert_eq!(
        site.join("replay")
            .join(href)
            .canonicalize()
            .expect("the log is there"),
        out.join("logs/1-12_0_0.jsonl")
            .canonicalize()
            .expect("the log")
    );
    // Search by an id finds that game only (it found 11-12/0/0 too); the previous and next
    // buttons are disabled at either end; the "command" head sits over its commands.
    let shown = driven(
        &sb,
        &report,
        "",
        (1400, 900),
        r##"var q = doc.getElementById("q"), out = [];
           var state = function () {
             return doc.getElementById("games-shown").getAttribute("data-matching") + " " +
               doc.getElementById("prev").disabled + " " + doc.getElementById("next").disabled;
           };
           var ids = function () { return Array.prototype.map.call(doc.querySelectorAll("#games-table a.game"), function (a) { return a.textContent; }).sort().join(","); };
           out.push(state());
           doc.getElementById("next").click(); out.push(state());
           doc.getElementById("prev").click(); out.push(state());
           ["1-12/0/0", "1-12", "r13 1-12/0"].forEach(function (w) {
             q.value = w; q.dispatchEvent(new Event("input")); out.push(state() + " " + ids());
           });
           var th = doc.querySelectorAll("#definition-entrants th")[2], td = doc.querySelectorAll("#definition-entrants td")[2];
           out.push(th.textContent + " " + win.getComputedStyle(th).textAlign + " " + win.getComputedStyle(td).textAlign);
           return out.join("|");"##,
    );
    assert_eq!(
        shown,
        [
            "156 true false",
            "156 false true",
            "156 true false",
            "1 true true 1-12/0/0",
            "2 true true 1-12/0/0,1-12/0/1",
            "2 true true 1-12/0/0,1-12/0/1",
            "command left left",
        ]
        .join("|")
    );
}

#[test]
fn pages_of_games_cut_short_or_not_checking_out_exit_as_replay_does() {
    let sb = Sandbox::new();
    three_games(&sb);
    let cut = |log: &Path| {
        let text = fs::read_to_string(log).expect("a log");
        let kept: Vec<&str> = text.lines().collect();
        fs::write(log, kept[..kept.len() - 1].join("\n") + "\n").expect("cut");
    };
    cut(&sb.log(2));
    let pages = |name: &str| {
        allfives(&[
            "replay",
            &sb.logs().display().to_string(),
            "--html",
            &sb.path(name).display().to_string(),
        ])
    };
    // A game cut short: `replay`'s code for it, 6, and its name (it exited 0, silent).
    let ran = pages("pages");
    assert_eq!(ran.code, Some(6), "{ran:?}");
    assert!(
        ran.stderr.contains("game-2.jsonl is cut short"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        allfives(&["replay", &sb.log(2).display().to_string()]).code,
        Some(6)
    );
    // And one that does not check out: 3, as `replay` gives it, both named.
    let text = fs::read_to_string(sb.log(3)).expect("a log");
    fs::write(
        sb.log(3),
        text.replacen("\"type\":\"play\"", "\"type\":\"pley\"", 1),
    )
    .expect("forged");
    let ran = pages("pages-2");
    assert_eq!(ran.code, Some(3), "{ran:?}");
    assert!(
        ran.stderr.contains("game-3.jsonl does not check out")
            && ran.stderr.contains("game-2.jsonl is cut short"),
        "{}",
        ran.stderr
    );

    // A tournament's game cut short (a folder from before logs were digested in results):
    // `standings --html --replays` says so, with its code.
    let out = round_robin(&sb, "league", 2);
    let results = out.join("results.jsonl");
    let lines: Vec<String> = fs::read_to_string(&results)
        .expect("results")
        .lines()
        .map(|l| {
            let mut line: serde_json::Value = serde_json::from_str(l).expect("a line");
            if line["id"] == "0-1/0/1" {
                line.as_object_mut()
                    .expect("an object")
                    .remove("log_sha256");
            }
            line.to_string()
        })
        .collect();
    fs::write(&results, lines.join("\n") + "\n").expect("results");
    cut(&out.join("logs/0-1_0_1.jsonl"));
    let site = sb.path("site");
    fs::create_dir(&site).expect("the site's folder");
    let ran = allfives(&[
        "standings",
        &out.display().to_string(),
        "--html",
        &site.join("report.html").display().to_string(),
        "--replays",
    ]);
    assert_eq!(ran.code, Some(6), "{ran:?}");
    assert!(
        ran.stderr.contains("0-1/0/1 of ") && ran.stderr.contains("is cut short"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stdout.contains("winner"),
        "the standings are printed: {ran:?}"
    );
}

#[test]
fn a_long_chain_on_a_phone_is_folded_so_that_its_pips_stay_readable() {
    let sb = Sandbox::new();
    // The longest game of the corpus (every double a spinner) and a two-player game of nine
    // tiles each: their longest layouts had pips of 0.70 and 1.17 px on a phone.
    let long = long_game(&sb);
    let two = root().join("tests/fixtures/golden/two-game-1.jsonl");
    for (log, name) in [(long, "long.html"), (two, "two.html")] {
        let page = page_of(&sb, &log, name, &[]);
        // Every hand's whole layout, drawn at its last step (`#check`): in its box, centred,
        // not overlapping, its smallest pips at least 1.5 px across.
        let shown = crate::browser_tests::framed(&sb, &page, "check", 400, 800);
        let attr = |name: &str| {
            let at = shown
                .find(&format!("{name}=\""))
                .unwrap_or_else(|| panic!("no {name}: {shown}"))
                + name.len()
                + 2;
            shown[at..at + shown[at..].find('"').expect("its end")].to_string()
        };
        let pip: f64 = attr("data-pip-least").parse().expect("px");
        assert!(pip >= 1.5, "{name}: pips of {pip} px on a phone");
        assert_eq!(attr("data-overlaps"), "0", "{name}");
        assert_eq!(attr("data-layout-over"), "0", "{name}");
    }
}
