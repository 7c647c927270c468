//! `allfives replay --html` in a real headless browser (Debian's `chromium`, which `.ci/run`
//! installs): the page loads without a console message, stepping changes what it shows, a
//! hostile bot name stays text, and a screenshot of the longest game is taken.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::harness::*;

/// Runs headless chromium on `url` with `args` in a fresh profile; returns (stdout, stderr).
pub fn chromium(sb: &Sandbox, url: &str, args: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().expect("a profile directory");
    let profile_arg = format!("--user-data-dir={}", profile.path().display());
    let found = Command::new("chromium").arg("--version").output();
    assert!(
        found.is_ok_and(|o| o.status.success()),
        "chromium cannot run: install it with `apt-get install chromium` (.ci/run does); \
         this test needs a real browser"
    );
    // A bound on a browser that hangs (coreutils' timeout kills it).
    let out = Command::new("timeout")
        .args(["120", "chromium"])
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            &profile_arg,
        ])
        .args(args)
        .arg(url)
        // Whatever chromium keeps between runs stays in the profile, which is removed.
        .env("HOME", profile.path())
        .env("XDG_CACHE_HOME", profile.path())
        .env("XDG_CONFIG_HOME", profile.path())
        .current_dir(sb.path(""))
        .output()
        .expect("coreutils' timeout runs");
    assert_ne!(out.status.code(), Some(124), "chromium hung on {url}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A page's DOM after its script ran, at `fragment`; fails on any console message.
pub fn quiet_dom(sb: &Sandbox, page: &Path, fragment: &str) -> String {
    let url = format!("file://{}#{fragment}", page.display());
    let (dom, log) = chromium(sb, &url, &["--dump-dom"]);
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "the page wrote to the console: {console:?}"
    );
    dom
}

/// The replay page's DOM after its script ran, at `fragment` (`step=N`, `check`); fails on any
/// console message.
fn dom_at(sb: &Sandbox, page: &Path, fragment: &str) -> String {
    let dom = quiet_dom(sb, page, fragment);
    assert!(dom.contains("id=\"counter\""), "no page: {dom}");
    dom
}

/// The text of the element with id `id` in a dumped DOM.
pub fn text_of<'a>(dom: &'a str, id: &str) -> &'a str {
    let start = dom
        .find(&format!("id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no #{id} in the page"))
        + id.len()
        + 6;
    &dom[start..start + dom[start..].find('<').expect("an element's end")]
}

#[test]
fn the_html_replay_works_in_a_real_browser() {
    let sb = Sandbox::new();
    // The longest game of the corpus: small hands and every double spinning make long hands
    // with crosses on crosses.
    let log = long_game(&sb);
    // A bot name that tries to end the data's script and run its own.
    let hostile = "</script><img src=x onerror=\"document.title='owned'\">";
    let mut lines: Vec<String> = fs::read_to_string(&log)
        .expect("log")
        .lines()
        .map(String::from)
        .collect();
    let mut header: serde_json::Value = serde_json::from_str(&lines[0]).expect("header");
    header["seats"][0]["bot"] = hostile.into();
    lines[0] = header.to_string();
    fs::write(&log, lines.join("\n") + "\n").expect("write");

    let page = sb.path("game.html");
    let ran = allfives(&[
        "replay",
        &log.display().to_string(),
        "--html",
        &page.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let html = fs::read_to_string(&page).expect("the page");
    // Only the page's own script may run: it is named by its hash, and runs (the counter).
    assert!(html.contains("script-src 'sha256-") && !html.contains("'unsafe-inline'; img"));
    // The game's data is under 3 times its log; the page's code and styles, the same for every
    // game, are under 50 KB.
    let size = |p: &Path| fs::metadata(p).expect("a file").len() as usize;
    let opening = "<script type=\"application/json\" id=\"game\">";
    let data_at = html.find(opening).expect("the data") + opening.len();
    let data = html[data_at..].find("</script>").expect("its end");
    assert!(
        data < 3 * size(&log),
        "the page's data ({data} bytes) is over 3 times its log ({} bytes)",
        size(&log)
    );
    assert!(
        size(&page) - data < 50_000,
        "the page's code and styles take {} bytes",
        size(&page) - data
    );
    for outside in ["<link", "src=\"http", "href=\"http", "@import", "url("] {
        assert!(!html.contains(outside), "the page reaches out: {outside}");
    }
    assert!(!html.contains(hostile), "the bot's name went in unescaped");

    let doc = allfives(&["replay", &log.display().to_string(), "--json"]).json();
    let all = doc["steps"].as_array().expect("steps");
    let steps = all.len();
    assert!(steps > 300, "a long game: {steps} steps");
    // The step with the most tiles on the table.
    let fullest = (0..steps)
        .max_by_key(|&i| all[i]["layout"].to_string().matches("\"tile\"").count())
        .expect("steps");
    // Steps are counted from 1, as the page's counter counts them.
    let start = dom_at(&sb, &page, "step=1");
    let middle = dom_at(&sb, &page, &format!("step={}", fullest + 1));
    assert_eq!(text_of(&start, "counter"), format!("step 1 of {steps}"));
    assert_eq!(
        text_of(&middle, "counter"),
        format!("step {} of {steps}", fullest + 1)
    );
    let says = |dom: &str| {
        let at = dom.find("id=\"says\">").expect("the step in words");
        dom[at..at + dom[at..].find("</div>").expect("its end")].to_string()
    };
    assert_ne!(says(&start), says(&middle));
    let table = |dom: &str| {
        let at = dom.find("id=\"layout\"").expect("the table");
        dom[at..at + dom[at..].find("</svg>").expect("its end")].to_string()
    };
    assert!(
        table(&middle).matches("<rect").count() > 3,
        "dominoes on the table: {}",
        table(&middle)
    );
    assert_ne!(table(&middle), table(&start), "stepping changes the table");
    // The name is shown as text, and no element came of it.
    assert!(start.contains("&lt;/script&gt;&lt;img"), "the name is text");
    assert!(!start.contains("<img"), "the name became an element");
    assert!(
        start.contains("<title>allfives game 1: &lt;/script&gt;&lt;img"),
        "the name's script ran"
    );

    // Every hand's whole layout drawn (each step shows a part of it, in the same places), and
    // no two dominoes on the table overlap in any of them.
    let hands = all
        .iter()
        .filter(|s| s["event"]["type"] == "hand_start")
        .count();
    let checked = dom_at(&sb, &page, "check");
    assert!(
        checked.contains(&format!("data-overlaps=\"0\" data-checked=\"{hands}\"")),
        "overlapping dominoes: {}",
        &checked[..checked.find("<header").unwrap_or(0)]
    );

    // One seat's view: the other seat's tiles face down, no boneyard, no seed anywhere.
    let view = sb.path("seat1.html");
    let ran = allfives(&[
        "replay",
        &log.display().to_string(),
        "--seat",
        "1",
        "--html",
        &view.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(
        !fs::read_to_string(&view)
            .expect("the page")
            .contains("\"seed\"")
    );
    let seen = dom_at(&sb, &view, &format!("step={}", fullest + 1));
    assert!(seen.contains("as seat 1 saw it"), "{seen}");
    assert!(seen.contains("#35507a"), "the other hand face down");
    let boneyard = &seen[seen.find("boneyard: ").expect("the boneyard's row")..];
    let boneyard = &boneyard[..boneyard.find("</div>").expect("its end")];
    assert!(
        !boneyard.contains('['),
        "the boneyard's tiles are hidden: {boneyard}"
    );
    let full = dom_at(&sb, &page, "step=2");
    assert!(
        full.contains("boneyard: ") && full.contains("</span><span>["),
        "shown face up"
    );

    let shot = sb.path("shot.png");
    let url = format!("file://{}#step={}", page.display(), fullest + 1);
    chromium(
        &sb,
        &url,
        &[
            "--window-size=1400,1000",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let png = fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "a real picture"
    );
}

/// The DOM of `page` at `fragment` in a window of `size` (`W,H`).
fn dom_sized(sb: &Sandbox, page: &Path, fragment: &str, size: &str) -> String {
    let url = format!("file://{}#{fragment}", page.display());
    let (dom, log) = chromium(sb, &url, &[&format!("--window-size={size}"), "--dump-dom"]);
    assert!(
        !log.contains(":CONSOLE"),
        "the page wrote to the console: {log}"
    );
    dom
}

/// The body's attributes of `page` at `fragment` (`name="value"` each) as a window of exactly
/// `width` x `height` CSS pixels shows it (in a frame: headless chromium makes no window
/// narrower than 500 px, so a phone's 400 px needs one). Fails on any console message.
pub fn framed(sb: &Sandbox, page: &Path, fragment: &str, width: u32, height: u32) -> String {
    crate::replay_page_tests::driven(
        sb,
        page,
        fragment,
        (width, height),
        r#"return Array.prototype.map.call(doc.body.attributes, function (a) { return a.name + '="' + a.value + '"'; }).join(" ");"#,
    )
}

/// The value of the body's attribute `name` after `#check`.
fn body_attr(dom: &str, name: &str) -> String {
    let at = dom
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name}"))
        + name.len()
        + 2;
    dom[at..at + dom[at..].find('"').expect("its end")].to_string()
}

/// A page written by `replay LOG --html PAGE [more]`.
pub fn page_of(sb: &Sandbox, log: &Path, name: &str, more: &[&str]) -> std::path::PathBuf {
    let page = sb.path(name);
    let mut args = vec![
        "replay".to_string(),
        log.display().to_string(),
        "--html".into(),
        page.display().to_string(),
    ];
    args.extend(more.iter().map(|m| m.to_string()));
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    page
}

/// A game of several short hands (5 tiles each, to 150), greedy against random; its log.
pub fn short_game(sb: &Sandbox) -> std::path::PathBuf {
    let log = sb.path("game.jsonl");
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:random",
        "--seed",
        "4",
        "--public-seed",
        "--hand-size",
        "5",
        "--target",
        "150",
        "--log",
        &log.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    log
}

#[test]
fn the_page_links_to_its_step_and_its_keys_and_speed_work() {
    let sb = Sandbox::new();
    let log = short_game(&sb);
    let page = page_of(&sb, &log, "game.html", &[]);
    let doc = allfives(&["replay", &log.display().to_string(), "--json"]).json();
    let starts: Vec<usize> = doc["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .enumerate()
        .filter(|(_, s)| s["event"]["type"] == "hand_start")
        .map(|(i, _)| i + 1)
        .collect();
    assert!(starts.len() >= 3, "a game of several hands: {starts:?}");
    let inside = starts[2] + 3;
    let at = |keys: &str| {
        let dom = dom_at(&sb, &page, &format!("step={inside}&keys={keys}"));
        let link = &dom[dom.find("id=\"link\" href=\"").expect("the link") + 16..];
        (
            text_of(&dom, "counter").to_string(),
            link[..link.find('"').expect("its end")].to_string(),
            text_of(&dom, "speed").to_string(),
        )
    };
    let (counter, link, speed) = at("ArrowRight");
    assert_eq!(
        counter,
        format!(
            "step {} of {}",
            inside + 1,
            doc["steps"].as_array().map_or(0, Vec::len)
        )
    );
    assert_eq!(
        link,
        format!("#step={}", inside + 1),
        "the link follows the step"
    );
    assert_eq!(speed, "700 ms a step");
    // ArrowUp: the hand's start, then the start of the hand before.
    assert_eq!(at("ArrowUp").1, format!("#step={}", starts[2]));
    assert_eq!(at("ArrowUp,ArrowUp").1, format!("#step={}", starts[1]));
    assert_eq!(
        at("ArrowDown").1,
        format!("#step={}", starts[3.min(starts.len() - 1)])
    );
    assert_eq!(at("+,+").2, "250 ms a step");
    assert_eq!(at("-").2, "1000 ms a step");
}

#[test]
fn the_page_fits_a_desktop_and_a_phone_with_every_layout_whole_and_centred() {
    let sb = Sandbox::new();
    let four = root().join("tests/fixtures/golden/four-game-1.jsonl");
    let page = page_of(&sb, &four, "four.html", &[]);
    let desktop = dom_sized(&sb, &page, "check", "1400,900");
    assert_eq!(
        body_attr(&desktop, "data-fits"),
        "true",
        "no scrolling at 1400x900"
    );
    let pip: f64 = body_attr(&desktop, "data-pip-least")
        .parse()
        .expect("a number");
    assert!(pip >= 1.5, "pips of {pip} px on a desktop");
    // A phone: every hand's whole layout inside its box (it was drawn 157 to 473 px wider than
    // its box of 373 px, its right end cut), centred, as large as the box allows.
    for page in [
        page.clone(),
        page_of(&sb, &long_game(&sb), "long.html", &[]),
    ] {
        let phone = framed(&sb, &page, "check", 400, 800);
        assert_eq!(body_attr(&phone, "data-viewport"), "400x800");
        assert_eq!(body_attr(&phone, "data-layout-over"), "0", "{phone}");
        let off: f64 = body_attr(&phone, "data-layout-off").parse().expect("px");
        assert!(off <= 1.0, "{off} px off centre: {phone}");
        let fill: f64 = body_attr(&phone, "data-layout-fill")
            .parse()
            .expect("a share");
        assert!(fill >= 0.98, "a layout fills {fill} of its box: {phone}");
    }
    let phone = dom_sized(&sb, &page, "check", "400,800");
    assert!(
        phone.contains("seat 3 (random#2)"),
        "every hand on the page"
    );
}

/// The longest game of the corpus (small hands, every double a spinner), greedy against random;
/// its log's path.
pub fn long_game(sb: &Sandbox) -> std::path::PathBuf {
    let log = sb.path("long.jsonl");
    if !log.exists() {
        let ran = allfives(&[
            "match",
            "builtin:greedy",
            "builtin:random",
            "--spinner",
            "all",
            "--hand-size",
            "3",
            "--seed",
            "2",
            "--public-seed",
            "--log",
            &log.display().to_string(),
        ]);
        assert_eq!(ran.code, Some(0), "{ran:?}");
    }
    log
}

/// The score table's rows shown (its hidden rows left out), each as its cells' texts.
fn score_rows(dom: &str) -> Vec<Vec<String>> {
    let table = &dom[dom.find("id=\"scoretable\"").expect("the score table")..];
    let body = &table
        [table.find("<tbody>").expect("its rows")..table.find("</tbody>").expect("their end")];
    body.split("<tr")
        .skip(1)
        .filter(|row| !row.starts_with(" hidden") && !row.contains("hidden=\"\""))
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let text = &cell[cell.find('>').expect("a cell") + 1..];
                    text[..text.find('<').expect("its end")].to_string()
                })
                .collect()
        })
        .collect()
}

#[test]
fn the_score_table_shows_what_has_happened_and_fits_its_panel() {
    let sb = Sandbox::new();
    let log = long_game(&sb);
    let page = page_of(&sb, &log, "long.html", &[]);
    let doc = allfives(&["replay", &log.display().to_string(), "--json"]).json();
    let steps = doc["steps"].as_array().expect("steps");
    let end = &doc["end"];
    // At step 1 only the first hand is in the table (every later hand's totals were).
    let first = dom_at(&sb, &page, "step=1");
    assert_eq!(
        score_rows(&first),
        vec![vec!["1 \u{2026}", "0 (+0)", "0 (+0)"]]
    );
    assert!(first.contains(
        "class=\"legend\">Each side's score after each hand, and in brackets what the hand gave it"
    ));
    // At the last step the hand the game ended in has its row, with the final scores.
    let last = dom_at(&sb, &page, &format!("step={}", steps.len()));
    let rows = score_rows(&last);
    let hands = end["hands"].as_u64().expect("hands") as usize;
    assert_eq!(rows.len(), hands, "a row a hand: {rows:?}");
    let scores: Vec<i64> = end["scores"]
        .as_array()
        .expect("scores")
        .iter()
        .map(|s| s.as_i64().expect("a score"))
        .collect();
    let shown: Vec<i64> = rows[hands - 1][1..]
        .iter()
        .map(|c| {
            c.split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .expect("a score")
        })
        .collect();
    assert_eq!(shown, scores, "the final score: {rows:?}");
    assert_eq!(rows[hands - 1][0], hands.to_string());
    assert!(last.contains(" in plays"), "a cell says what its hand gave");

    // Four players, every one for themselves, named with 40 characters: every column shows,
    // the names cut short with their whole in the title (the table was 1,435 px wide in a
    // panel of 380, one column of five in view).
    let (four, names) = long_named_game(&sb);
    let page = page_of(&sb, &four, "four.html", &[]);
    for (w, h) in [(1400, 900), (400, 800)] {
        let shown = framed(&sb, &page, "step=3&scores", w, h);
        assert_eq!(
            body_attr(&shown, "data-score-columns"),
            "5 of 5",
            "{w}x{h}: {shown}"
        );
        let table: u32 = body_attr(&shown, "data-scores-width").parse().expect("px");
        let panel: u32 = body_attr(&shown, "data-side-width").parse().expect("px");
        assert!(
            table <= panel,
            "{w}x{h}: a table of {table} px in {panel} px"
        );
        assert_eq!(
            body_attr(&shown, "data-side-over"),
            "0",
            "{w}x{h}: the panel is cut"
        );
    }
    let dom = dom_sized(&sb, &page, "step=1", "1400,900");
    for name in &names {
        assert!(
            dom.contains(&format!("<th title=\"{name}\" style=\"color")),
            "{name}'s column"
        );
    }
}

/// A game of four players, each for themselves, named with 40 characters (greedy and random in
/// turn); its log and the names.
pub fn long_named_game(sb: &Sandbox) -> (std::path::PathBuf, Vec<String>) {
    let names: Vec<String> = (1..=4).map(|k| format!("{}{k}", "n".repeat(39))).collect();
    let mut args = vec!["match".to_string()];
    for (k, name) in names.iter().enumerate() {
        args.push(format!(
            "{name}={}",
            ["builtin:greedy", "builtin:random"][k % 2]
        ));
    }
    let four = sb.path("four.jsonl");
    args.extend(["--no-teams", "--seed", "3", "--public-seed", "--log"].map(String::from));
    args.push(four.display().to_string());
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    (four, names)
}

#[test]
fn a_long_games_score_table_keeps_its_current_hand_in_view() {
    let sb = Sandbox::new();
    let log = sb.path("thousand.jsonl");
    let ran = allfives(&[
        "match",
        "builtin:greedy",
        "builtin:greedy",
        "--target",
        "1000000",
        "--max-hands",
        "1000",
        "--hand-size",
        "3",
        "--seed",
        "1",
        "--public-seed",
        "--log",
        &log.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let page = page_of(&sb, &log, "thousand.html", &[]);
    // Builtins neither fault nor write on stderr: each line after the header is a step.
    let steps: Vec<serde_json::Value> = log_lines(&log).into_iter().skip(1).collect();
    for at in [1, steps.len() * 3 / 4, steps.len()] {
        let hand = steps[..at]
            .iter()
            .filter(|s| s["type"] == "hand_start")
            .count();
        let shown = framed(&sb, &page, &format!("step={at}&scores"), 1400, 900);
        assert_eq!(
            body_attr(&shown, "data-score-rows"),
            hand.to_string(),
            "{shown}"
        );
        assert_eq!(
            body_attr(&shown, "data-now-row"),
            "in view",
            "step {at}: {shown}"
        );
    }
}

#[test]
fn the_page_shows_a_decision_its_fault_info_and_stderr_as_text() {
    let sb = Sandbox::new();
    let log = sb.path("stalled.jsonl");
    let ran = allfives(&[
        "match".to_string(),
        sb.fixture("thinks_aloud", &["3"]),
        "builtin:greedy".into(),
        "--seed".into(),
        "5".into(),
        "--public-seed".into(),
        "--move-ms".into(),
        "3000".into(),
        "--no-rotate".into(),
        "--log".into(),
        log.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let page = page_of(&sb, &log, "stalled.html", &[]);
    let doc = allfives(&["replay", &log.display().to_string(), "--json"]).json();
    let steps = doc["steps"].as_array().expect("steps");
    let step_of = |wanted: &dyn Fn(&serde_json::Value) -> bool| {
        steps.iter().position(wanted).expect("such a step") + 1
    };
    let second = step_of(&|s| {
        s["seat"] == 0
            && s["turn"].is_u64()
            && s["stderr"]
                .as_array()
                .is_some_and(|ls| ls.iter().any(|x| x == "thinking about turn 2 <b>"))
    });
    let dom = dom_at(&sb, &page, &format!("step={second}"));
    assert!(dom.contains("the moves it could make"), "{dom}");
    assert!(
        dom.contains("first legal &lt;script&gt;"),
        "the info, as text"
    );
    assert!(
        dom.contains("thinking about turn 2 &lt;b&gt;"),
        "stderr, as text"
    );
    assert!(
        !dom.contains("<b>") && !dom.contains("<script>first"),
        "no element came of it"
    );
    let fault = step_of(&|s| s["event"]["type"] == "fault");
    let dom = dom_at(&sb, &page, &format!("step={fault}"));
    assert!(dom.contains("fault: costs the game"), "the fault's marker");
    assert!(
        dom.contains("thinking about turn 3"),
        "what it wrote while it stalled"
    );
    let own = page_of(&sb, &log, "seat1.html", &["--seat", "1"]);
    let text = fs::read_to_string(own).expect("the page");
    assert!(
        !text.contains("thinking about") && !text.contains("first legal"),
        "seat 1 sees neither"
    );
    sb.assert_no_bot_left();
}

#[test]
fn a_log_that_does_not_check_out_shows_how_far_it_does() {
    let sb = Sandbox::new();
    let good = root().join("tests/fixtures/golden/two-game-1.jsonl");
    let mut lines: Vec<String> = fs::read_to_string(&good)
        .expect("log")
        .lines()
        .map(String::from)
        .collect();
    // A play's sum forged, in the middle of the game.
    let play = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].contains("\"type\":\"play\""))
        .expect("a play");
    let sum = lines[play].find("\"sum\":").expect("a sum") + 6;
    let digits = lines[play][sum..].find(',').expect("its end");
    lines[play].replace_range(sum..sum + digits, "99");
    let log = sb.path("bad.jsonl");
    fs::write(&log, lines.join("\n") + "\n").expect("write");
    let page = sb.path("bad.html");
    let ran = allfives(&[
        "replay",
        &log.display().to_string(),
        "--html",
        &page.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(3), "{ran:?}");
    assert!(
        ran.stderr.contains(&format!("line {}", play + 1)),
        "{}",
        ran.stderr
    );
    let dom = dom_at(&sb, &page, "step=1");
    assert!(
        dom.contains(&format!("does not check out: line {}", play + 1)),
        "the page says where"
    );
    assert!(dom.contains("class=\"bad\""), "marked");
}

/// Three short games of greedy against random in the sandbox's logs (a folder of pages).
pub fn three_games(sb: &Sandbox) {
    let options = [
        "--games",
        "3",
        "--seed",
        "9",
        "--public-seed",
        "--max-hands",
        "2",
    ];
    play(
        sb,
        &["builtin:greedy".into(), "builtin:random".into()],
        &options,
    );
}

#[test]
fn a_folder_of_games_gets_an_index_linking_every_page() {
    let sb = Sandbox::new();
    three_games(&sb);
    let out = sb.path("pages");
    let ran = allfives(&[
        "replay",
        &sb.logs().display().to_string(),
        "--html",
        &out.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let index = fs::read_to_string(out.join("index.html")).expect("the index");
    for game in 1..=3 {
        assert!(
            index.contains(&format!("href=\"game-{game}.html\"")),
            "{index}"
        );
        let page = out.join(format!("game-{game}.html"));
        let dom = dom_at(&sb, &page, "step=1");
        assert!(dom.contains("href=\"index.html\""), "back to the index");
    }
    let again = allfives(&[
        "replay",
        &sb.logs().display().to_string(),
        "--html",
        &out.display().to_string(),
    ]);
    assert_eq!(
        again.code,
        Some(2),
        "an existing folder is not written over: {again:?}"
    );
}
