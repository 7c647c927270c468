//! The starter kits (sample_bots/java, sample_bots/cpp), compiled into a temporary folder: each
//! passes `check`, and as shipped plays exactly the moves of builtin:greedy, which shows that it
//! reads the view and writes its moves right. Needs `javac`/`java` (JDK 17+) and `g++` on PATH.
//! Then what a new author meets with the kit alone (issue 32): a kit folder that stands on its
//! own, the rulebook from `allfives rules`, the time columns marked as upper bounds, a fault that
//! names the process limit, a match that stops when a bot cannot start.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::check_tests::assert_passes;
use crate::harness::{Sandbox, allfives, allfives_with, quote, root};
use crate::referee_tests::games_against_random;

/// Runs a compiler; it must succeed.
fn compile(program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} cannot run ({e}): install it (see README.md)"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Checks the compiled kit with `check`, then compares its games with builtin:greedy's.
fn assert_kit_works(command: &dyn Fn(&Sandbox) -> String) {
    let sb = Sandbox::new();
    assert_passes(&sb, &command(&sb));
    let kit = games_against_random(command);
    let builtin = games_against_random(&|_| "builtin:greedy".to_string());
    assert!(kit == builtin, "the kit does not play like builtin:greedy");
}

fn path(p: &Path) -> String {
    quote(&p.display().to_string())
}

#[test]
fn the_java_starter_kit_works() {
    let build = tempfile::tempdir().expect("a build folder");
    let source = root().join("sample_bots/java/StarterBot.java");
    let out = build.path().display().to_string();
    compile(
        "javac",
        &[
            // No /tmp/hsperfdata_USER left behind by the compiler's JVM.
            "-J-XX:-UsePerfData",
            "-Xlint:all",
            "-Werror",
            "-d",
            &out,
            &source.display().to_string(),
        ],
    );
    let classes = path(build.path());
    assert_kit_works(&|sb| format!("java -cp {classes} StarterBot {}", sb.token()));
}

#[test]
fn the_cpp_starter_kit_works() {
    let build = tempfile::tempdir().expect("a build folder");
    let binary = build.path().join("starter_bot");
    let source = root().join("sample_bots/cpp/starter_bot.cpp");
    compile(
        "g++",
        &[
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-o",
            &binary.display().to_string(),
            &source.display().to_string(),
        ],
    );
    let bot = path(&binary);
    assert_kit_works(&|sb| format!("{bot} {}", sb.token()));
}

/// Every Markdown link of the page at `page` (relative targets, without their anchors).
fn relative_links(page: &Path) -> Vec<String> {
    let text = fs::read_to_string(page).expect("a page");
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter(|target| !target.contains("://") && !target.starts_with('#'))
        .map(|target| target.split('#').next().unwrap_or_default().to_string())
        .collect()
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .expect("a folder")
        .flatten()
        .flat_map(|e| match e.path().is_dir() {
            true => files_under(&e.path()),
            false => vec![e.path()],
        })
        .collect()
}

#[test]
fn every_kit_stands_alone() {
    for language in ["python", "python-helper", "js", "cpp", "java", "docs"] {
        let sb = Sandbox::new();
        let dir = sb.path("my bot");
        let ran = allfives(&["kit", language, &dir.display().to_string()]);
        assert_eq!(ran.code, Some(0), "{language}: {}", ran.stderr);
        for file in files_under(&dir) {
            let text = fs::read_to_string(&file).expect("a kit file");
            if file.extension().is_some_and(|x| x == "md") {
                for target in relative_links(&file) {
                    let reached = file.parent().expect("a folder").join(&target);
                    assert!(
                        reached.is_file(),
                        "{}: {target} is not in the kit",
                        file.display()
                    );
                }
            } else {
                // The bot's usage lines name the kit's file, not the repository's.
                assert!(
                    !text.contains("sample_bots/"),
                    "{language}: {}",
                    file.display()
                );
                assert!(text.contains("my bot/"), "{language}: {}", file.display());
            }
        }
        for file in files_under(&dir)
            .iter()
            .filter(|f| f.extension().is_some_and(|x| x == "md"))
        {
            assert_sources_named_where_they_are(&dir, file);
        }
        let protocol = fs::read_to_string(dir.join("protocol.md")).expect("the protocol");
        for repository_only in [
            "cargo build",
            "target/release",
            "sample_bots/",
            "repository-only",
        ] {
            assert!(
                !protocol.contains(repository_only),
                "{language}: {repository_only}"
            );
        }
        assert!(protocol.contains("allfives rules"));
        let rules = fs::read_to_string(dir.join("docs/rules.md")).expect("the rulebook");
        assert!(rules.contains("## Rule options"), "{rules}");
    }
}

/// Every file of the source repository a kit page names (a path under its top folders, or a
/// page) is in the kit, or listed in the page's note under its title as a file of the source
/// repository, and is one there (a pip user has none of them: issue 42).
fn assert_sources_named_where_they_are(kit: &Path, page: &Path) {
    let text = fs::read_to_string(page).expect("a page");
    let note = text
        .lines()
        .find(|l| l.starts_with("> Not in this kit:"))
        .unwrap_or_default();
    let tops = [
        "sample_bots/",
        "crates/",
        "scripts/",
        "src/",
        "tests/",
        "benches/",
        "fuzz/",
        "examples/",
        "python/",
    ];
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || line.starts_with("> Not in this kit:") {
            continue;
        }
        for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c))) {
            let word = word.trim_end_matches(['.', '-']);
            let named = !word.starts_with('/')
                && (tops.iter().any(|t| word.starts_with(t)) || word.ends_with(".md"));
            let in_kit =
                page.parent().expect("a folder").join(word).exists() || kit.join(word).exists();
            if named && !in_kit {
                // A page named alone lies beside the page that names it.
                let beside = page
                    .parent()
                    .expect("a folder")
                    .strip_prefix(kit)
                    .expect("in the kit");
                let source = match word.contains('/') {
                    true => PathBuf::from(word),
                    false => beside.join(word),
                };
                assert!(
                    note.contains(&format!("`{}`", source.display())),
                    "{}: {word} is neither in the kit nor said to be in the source repository",
                    page.display()
                );
                assert!(
                    root().join(&source).exists(),
                    "{}: {} is not in the repository",
                    page.display(),
                    source.display()
                );
            }
        }
    }
    assert!(!text.contains("shared folder"), "{}", page.display());
}

/// A language without a kit is told that any language plays, and where the contract is.
#[test]
fn a_language_without_a_kit_is_pointed_to_the_docs_kit() {
    let sb = Sandbox::new();
    let dir = sb.path("lua bot");
    let ran = allfives(&["kit", "lua", &dir.display().to_string()]);
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    for words in [
        "no starter kit for 'lua'",
        "any language",
        "kit docs DIR",
        "protocol.md",
    ] {
        assert!(ran.stderr.contains(words), "{words}: {}", ran.stderr);
    }
    assert!(!dir.exists(), "nothing is written");
    let ran = allfives(&["kit", "docs", &dir.display().to_string()]);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(dir.join("protocol.md").is_file() && dir.join("docs/rules.md").is_file());
    let written: Vec<_> = files_under(&dir);
    assert!(
        written
            .iter()
            .all(|f| f.extension().is_some_and(|x| x == "md")),
        "only pages: {written:?}"
    );
}

#[test]
fn allfives_rules_prints_the_rulebook() {
    let ran = allfives(&["rules"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let rulebook = fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    assert_eq!(ran.stdout, rulebook);
}

#[test]
fn the_percentile_columns_are_marked_as_upper_bounds() {
    let sb = Sandbox::new();
    let logs = sb.unused_logs().display().to_string();
    let bot = sb.sample("greedy_bot", &[]);
    let ran = allfives(&[
        "match",
        &bot,
        "builtin:random",
        "--seed",
        "1",
        "--public-seed",
        "--log-dir",
        &logs,
    ]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let header = ran
        .stdout
        .lines()
        .find(|l| l.contains("mean ms"))
        .expect("the standings' header");
    for column in ["median ms*", "p99 ms*", "slowest ms*"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(
        ran.stdout.lines().any(|l| l.starts_with("* upper bounds")),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_refused_fork_names_the_process_limit() {
    let sb = Sandbox::new();
    let bot = sb.path("forks.sh");
    fs::write(
        &bot,
        "#!/bin/bash\n# Three processes at once for every line: more than --bot-processes 2.\n\
         while read -r line; do sleep 0 | sleep 0 | sleep 0; done\n",
    )
    .expect("a script");
    let home = sb.path("home");
    fs::create_dir(&home).expect("a home");
    // An ordinary user: the kernel does not hold root to a process limit.
    for (path, mode) in [
        (sb.path(""), 0o755),
        (bot.clone(), 0o755),
        (home.clone(), 0o777),
    ] {
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("permissions");
    }
    let command = format!("{} {}", quote(&bot.display().to_string()), sb.token());
    let args = [
        "check",
        &command,
        "--bot-processes",
        "2",
        // The bot never says hello: the check waits this long, which must outlast a contained
        // Bash's start and first refused fork on a loaded machine (2000 ms: 4 of 4 passed at
        // load 18 on 2 cores; 5000 ms leaves that margin twice over and more).
        "--startup-ms",
        "5000",
    ];
    let ran = allfives_with(&args, |c| {
        c.env("HOME", &home).env("TMPDIR", &home);
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            c.uid(65534).gid(65534);
        }
    });
    assert_eq!(ran.code, Some(4), "{}\n{}", ran.stdout, ran.stderr);
    let handshake = ran.stdout.lines().next().unwrap_or_default();
    assert!(
        handshake.contains("Resource temporarily unavailable")
            && handshake.contains("process limit (--bot-processes N"),
        "{handshake}"
    );
    sb.assert_no_bot_left();
}

#[test]
fn a_match_whose_bot_cannot_start_stops_after_its_first_game() {
    let sb = Sandbox::new();
    let logs = sb.unused_logs().display().to_string();
    let bot = sb.fixture("exits_at_once", &[]);
    let args = [
        "match",
        &bot,
        "builtin:greedy",
        "--games",
        "10",
        "--seed",
        "1",
        "--json",
        "--log-dir",
        &logs,
    ];
    let ran = allfives(&args);
    assert_eq!(ran.code, Some(4), "{}", ran.stderr);
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("exits_at_once (python3 ")
            && ran.stderr.contains("could not start: exited with code 3")
            && ran
                .stderr
                .contains("the match stopped after its first game"),
        "{}",
        ran.stderr
    );
    let report = ran.json();
    let games = report["games"].as_array().expect("games");
    assert_eq!(games.len(), 1, "{report:#}");
    assert_eq!(games[0]["faults"][0]["kind"], "crash");
    sb.assert_no_bot_left();
}

#[test]
fn the_shell_bot_of_protocol_md_passes_check() {
    let doc = fs::read_to_string(root().join("protocol.md")).expect("protocol.md");
    let marked = doc
        .split("<!-- shell-bot -->\n```bash\n")
        .nth(1)
        .expect("protocol.md marks its shell bot with <!-- shell-bot -->");
    let code = marked.split("```").next().expect("the block ends");
    let sb = Sandbox::new();
    let script = sb.path("jqbot.sh");
    fs::write(&script, code).expect("the bot");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("permissions");
    assert_passes(&sb, &format!("{} {}", path(&script), sb.token()));
}
