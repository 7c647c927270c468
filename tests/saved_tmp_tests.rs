//! What a contained bot left in its private /tmp, saved next to its stderr file: at most 1 MiB
//! and 200 files, logs first, then the last written, then the smallest, and a note (and a
//! line on the referee's stderr) when something was left out.

use std::fs;

use crate::harness::*;

#[test]
fn a_cut_saved_tmp_keeps_logs_first_and_says_what_was_left_out() {
    let sb = Sandbox::new();
    let bots = [
        format!("f={}", sb.fixture("fills_tmp", &[])),
        "builtin:greedy".to_string(),
    ];
    let (ran, _) = play(
        &sb,
        &bots,
        &["--seed", "3", "--public-seed", "--target", "60"],
    );
    let saved = sb.logs().join("f.tmp");
    // Named like a log, the note is kept though 250 smaller files came before the cap.
    assert_eq!(
        fs::read_to_string(saved.join("debug.txt")).expect("the debug note kept"),
        "debug note: hello\n"
    );
    assert!(
        !saved.join("big.bin").exists(),
        "the dump came before the rest"
    );
    let kept = fs::read_dir(saved.join("many"))
        .expect("the small files")
        .count();
    assert_eq!(kept, 199, "200 files in all, the note among them");
    let note = fs::read_to_string(saved.join(".left-out.txt")).expect("a note of what was cut");
    assert!(note.contains("big.bin (2097152 bytes)"), "{note}");
    assert!(note.contains("files named like logs first"), "{note}");
    let left_out_small = note.lines().filter(|l| l.starts_with("many/f")).count();
    assert_eq!(left_out_small, 51, "{note}");
    // The file 100 folders deep is neither kept nor lost without a word.
    let deep = format!(
        "deep/{}/ (a folder deeper than 8 levels",
        ["d"; 8].join("/")
    );
    assert!(note.contains(&deep), "{note}");
    assert!(!saved.join("deep").join(["d"; 8].join("/")).exists());
    assert!(
        ran.stderr.contains("was cut") && ran.stderr.contains(".left-out.txt"),
        "{}",
        ran.stderr
    );
    sb.assert_no_bot_left();
}
