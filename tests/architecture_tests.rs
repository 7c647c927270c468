//! The house's walls, checked: no folder imports a part above it (docs/architecture.md), and the
//! engine crate depends on nothing that does I/O, async, processes or the command line.

use std::fs;
use std::path::Path;

use crate::harness::root;

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).expect("a source folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = fs::read_to_string(&path).expect("a readable source file");
            found.push((path.display().to_string(), text));
        }
    }
    found
}

/// Fails naming each file under `src/{folder}` that mentions one of `above`.
fn assert_never_reaches(folder: &str, above: &[&str]) {
    let offenders: Vec<String> = sources(&root().join("src").join(folder))
        .into_iter()
        .flat_map(|(file, text)| {
            above
                .iter()
                .filter(|a| text.contains(&format!("crate::{a}")))
                .map(|a| format!("{file} uses crate::{a}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn no_folder_reaches_up() {
    assert_never_reaches(
        "bot",
        &[
            "cli",
            "referee",
            "check",
            "gamelog",
            "tournament",
            "replay",
            "report",
            "page",
        ],
    );
    assert_never_reaches(
        "gamelog",
        &[
            "cli",
            "referee",
            "check",
            "tournament",
            "replay",
            "report",
            "page",
        ],
    );
    assert_never_reaches(
        "referee",
        &["cli", "check", "tournament", "replay", "report"],
    );
    assert_never_reaches("tournament", &["cli", "check", "replay", "report", "page"]);
    assert_never_reaches("check", &["cli", "replay", "report"]);
    assert_never_reaches("replay", &["cli", "tournament", "report"]);
    // The report page reads the tournament's records; only the command line writes it.
    assert_never_reaches("report", &["cli", "check", "replay"]);
    let leaves = [
        "cli",
        "referee",
        "check",
        "gamelog",
        "bot",
        "tournament",
        "replay",
        "report",
    ];
    assert_never_reaches("placement", &[&leaves[..], &["page"]].concat());
    assert_never_reaches("sandbox", &[&leaves[..], &["page"]].concat());
    // A page is filled in one place (its data embedded, its script named in its CSP), which
    // calls no part of the house.
    assert_never_reaches(
        "page",
        &[&leaves[..], &["placement", "sandbox", "text"]].concat(),
    );
    // The files a user names are read in one place, which calls no part of the house.
    let all = [&leaves[..], &["placement", "sandbox", "page", "text"]].concat();
    assert_never_reaches("input", &all);
    // Text is cleaned in one place that every part may call, and that calls none of them.
    let everything = [&leaves[..], &["placement", "sandbox", "page"]].concat();
    assert_never_reaches("text", &everything);
}

#[test]
fn the_engine_cannot_reach_a_clock_a_file_or_a_process() {
    let manifest = fs::read_to_string(root().join("crates/engine/Cargo.toml")).expect("manifest");
    for shell in ["tokio", "clap", "nix", "tracing", "anyhow", "allfives ="] {
        assert!(!manifest.contains(shell), "the engine depends on {shell}");
    }
    for (file, text) in sources(&root().join("crates/engine/src")) {
        for io in [
            "std::fs",
            "std::process",
            "std::net",
            "std::time",
            "std::thread",
        ] {
            assert!(!text.contains(io), "{file} uses {io}");
        }
    }
}
