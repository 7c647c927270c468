//! Text a bot controls never reaches a terminal raw: a bot whose hello name, stderr and bad
//! answers carry terminal payloads (ESC sequences, BEL, C1's CSI, bidi and invisible
//! characters, a newline that forges a line), and a bot named by a script file whose name
//! carries them, go through every command; every byte they print is checked.

use std::fs;
use std::path::Path;

use crate::harness::*;

/// The characters no output may carry raw.
const RAW: [char; 9] = [
    '\x1b', '\x07', '\x7f', '\u{9b}', '\u{202e}', '\u{200b}', '\u{2028}', '\u{2029}', '\u{feff}',
];

/// Fails naming the command if its stdout or stderr holds a payload character raw, or a line
/// forged by a newline in a name, a stderr line or an answer.
fn assert_clean(what: &str, ran: &Ran) {
    for (stream, text) in [("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
        for c in RAW {
            assert!(
                !text.contains(c),
                "{what}: {stream} holds U+{:04X} raw:\n{text}",
                c as u32
            );
        }
        assert!(
            !text.lines().any(|l| l.starts_with("FORGED")),
            "{what}: {stream} holds a forged line:\n{text}"
        );
    }
}

/// Fails naming the page if a page at or under `path` holds a payload character raw.
fn assert_clean_pages(path: &Path) {
    if path.is_dir() {
        for entry in fs::read_dir(path).expect("a folder").flatten() {
            assert_clean_pages(&entry.path());
        }
        return;
    }
    let text = fs::read_to_string(path).expect("a page");
    for c in RAW {
        assert!(
            !text.contains(c),
            "{}: holds U+{:04X} raw",
            path.display(),
            c as u32
        );
    }
}

/// Fails if a file name under `dir` holds anything but printable ASCII.
fn assert_plain_file_names(dir: &Path) {
    for entry in fs::read_dir(dir).expect("a folder").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            name.bytes().all(|b| b.is_ascii_graphic()),
            "{}: {name:?}",
            dir.display()
        );
        if entry.path().is_dir() {
            assert_plain_file_names(&entry.path());
        }
    }
}

/// The hostile bot named by its hello, misbehaving at its `at`-th turn (0: never).
fn named(sandbox: &Sandbox, at: &str) -> String {
    sandbox.fixture("hostile_text", &["--at", at])
}

/// The hostile bot with no hello name, run from a script whose file name carries payloads.
fn file_named(sandbox: &Sandbox) -> String {
    let script = sandbox.path("sc\x1b[31m\u{202e}\u{200b}\nFORGED.py");
    let fixture = root().join("tests/fixtures/bots/hostile_text.py");
    let body = format!(
        "import runpy\nrunpy.run_path({:?}, run_name='__main__')\n",
        fixture.display().to_string()
    );
    fs::write(&script, body).expect("the script");
    sandbox.python(&script, &["--anonymous", "--at", "0"])
}

/// Runs `allfives args` (a failed check keeps its logs in the sandbox's temporary folder),
/// and checks every byte it printed.
fn run_in(sandbox: &Sandbox, what: &str, args: &[&str]) -> Ran {
    let tmp = sandbox.path("tmp");
    fs::create_dir_all(&tmp).expect("a temporary folder");
    let ran = allfives_with(args, |command| {
        command.env("TMPDIR", &tmp);
    });
    assert_clean(what, &ran);
    ran
}

#[test]
fn no_command_prints_a_bots_payloads_raw() {
    let sandbox = Sandbox::new();
    let (a, b) = (named(&sandbox, "2"), file_named(&sandbox));
    let logs = sandbox.path("logs");
    let logs_v = sandbox.path("logs-v");
    let logs_json = sandbox.path("logs-json");
    let dir = |p: &Path| p.display().to_string();
    let one = [
        "--games",
        "1",
        "--seed",
        "7",
        "--public-seed",
        "--no-sandbox",
    ];
    let text = run_in(
        &sandbox,
        "match",
        &[&["match", &a, &b, "--log-dir", &dir(&logs)][..], &one].concat(),
    );
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(text.stdout.contains("malformed"), "{}", text.stdout);
    let verbose = run_in(
        &sandbox,
        "match -v",
        &[
            &["match", "-v", &a, &b, "--log-dir", &dir(&logs_v)][..],
            &one,
        ]
        .concat(),
    );
    assert!(
        verbose.stderr.contains("stderr \\x1b[2J"),
        "{}",
        verbose.stderr
    );
    let json = run_in(
        &sandbox,
        "match --json",
        &[
            &["match", "--json", &a, &b, "--log-dir", &dir(&logs_json)][..],
            &one,
        ]
        .concat(),
    );
    let report = json.json();
    let input = report["games"][0]["faults"][0]["input"]
        .as_str()
        .expect("input");
    assert!(
        input.starts_with("\x1b[2J"),
        "JSON keeps the input: {input:?}"
    );
    for folder in [&logs, &logs_v, &logs_json] {
        assert_plain_file_names(folder);
    }
    let log = dir(&logs.join("game-1.jsonl"));
    run_in(&sandbox, "replay", &["replay", &log]);
    run_in(&sandbox, "replay --json", &["replay", "--json", &log]);
    run_in(&sandbox, "replay --turn", &["replay", &log, "--turn", "1"]);
    let ask = named(&sandbox, "1");
    let asked = run_in(
        &sandbox,
        "replay --ask",
        &["replay", &log, "--turn", "1", "--ask", &ask, "--no-sandbox"],
    );
    assert!(asked.stdout.contains("gives no move"), "{}", asked.stdout);
    let out = sandbox.path("tournament");
    let played = run_in(
        &sandbox,
        "tournament",
        &[
            "tournament",
            &a,
            &b,
            "--out",
            &dir(&out),
            "--deals",
            "1",
            "--seed",
            "7",
            "--public-seed",
            "--no-sandbox",
            "-j",
            "1",
        ],
    );
    assert_eq!(played.code, Some(0), "{}", played.stderr);
    assert_plain_file_names(&out);
    run_in(&sandbox, "standings", &["standings", &dir(&out)]);
    run_in(
        &sandbox,
        "standings --json",
        &["standings", "--json", &dir(&out)],
    );
    // Pages show the payloads as the terminal does: escaped, never raw (a U+202E in a page
    // reverses the rest of its line in the browser).
    let page = run_in(
        &sandbox,
        "replay --html -",
        &["replay", &log, "--html", "-"],
    );
    assert!(
        page.stdout.contains("\\u{202e}"),
        "the page shows no escape"
    );
    let file = sandbox.path("game.html");
    run_in(
        &sandbox,
        "replay --html FILE",
        &["replay", &log, "--html", &dir(&file)],
    );
    let pages = sandbox.path("pages");
    run_in(
        &sandbox,
        "replay DIR --html",
        &["replay", &dir(&out), "--html", &dir(&pages)],
    );
    let report = sandbox.path("site/report.html");
    fs::create_dir_all(sandbox.path("site")).expect("a folder");
    run_in(
        &sandbox,
        "standings --html --replays",
        &[
            "standings",
            &dir(&out),
            "--html",
            &dir(&report),
            "--replays",
        ],
    );
    for written in [file, pages, sandbox.path("site")] {
        assert_clean_pages(&written);
    }
    let checked = run_in(&sandbox, "check", &["check", &a, "--no-sandbox"]);
    assert_eq!(checked.code, Some(4), "{}", checked.stdout);
    run_in(&sandbox, "check -v", &["check", "-v", &a, "--no-sandbox"]);
    sandbox.assert_no_bot_left();
}
