//! `allfives replay --html` in a real headless browser (Debian's `chromium`, which `.ci/run`
//! installs): the page loads without a console message, stepping changes what it shows, a
//! hostile bot name stays text, and a screenshot of the longest game is taken.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::harness::*;

/// Runs headless chromium on `url` with `args` in a fresh profile; returns (stdout, stderr).
fn chromium(sb: &Sandbox, url: &str, args: &[&str]) -> (String, String) {
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

/// The page's DOM after its script ran, at `fragment` (`step=N`, `check`); fails on any console
/// message.
fn dom_at(sb: &Sandbox, page: &Path, fragment: &str) -> String {
    let url = format!("file://{}#{fragment}", page.display());
    let (dom, log) = chromium(sb, &url, &["--dump-dom"]);
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "the page wrote to the console: {console:?}"
    );
    assert!(dom.contains("id=\"counter\""), "no page: {dom}");
    dom
}

/// The text of the element with id `id` in a dumped DOM.
fn text_of<'a>(dom: &'a str, id: &str) -> &'a str {
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
    let log = sb.path("long.jsonl");
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
        "--log",
        &log.display().to_string(),
    ]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
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
    let start = dom_at(&sb, &page, "step=0");
    let middle = dom_at(&sb, &page, &format!("step={fullest}"));
    assert_eq!(text_of(&start, "counter"), format!("step 1 of {steps}"));
    assert_eq!(
        text_of(&middle, "counter"),
        format!("step {} of {steps}", fullest + 1)
    );
    assert_ne!(text_of(&start, "says"), text_of(&middle, "says"));
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
        start.contains("<title>allfives replay</title>"),
        "the name's script ran"
    );

    // Every step drawn, and no two dominoes on the table overlap in any of them.
    let checked = dom_at(&sb, &page, "check");
    assert!(
        checked.contains(&format!("data-overlaps=\"0\" data-checked=\"{steps}\"")),
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
    let seen = dom_at(&sb, &view, &format!("step={fullest}"));
    assert!(seen.contains("as seat 1 saw it"), "{seen}");
    assert!(seen.contains("#35507a"), "the other hand face down");
    let boneyard = &seen[seen.find("boneyard: ").expect("the boneyard's row")..];
    let boneyard = &boneyard[..boneyard.find("</div>").expect("its end")];
    assert!(
        !boneyard.contains('['),
        "the boneyard's tiles are hidden: {boneyard}"
    );
    let full = dom_at(&sb, &page, "step=1");
    assert!(
        full.contains("boneyard: ") && full.contains("</span><span>["),
        "shown face up"
    );

    let shot = sb.path("shot.png");
    let url = format!("file://{}#step={fullest}", page.display());
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
