//! What a contained bot left in its private /tmp, saved next to its stderr file: at most 1 MiB
//! and 200 files, the smallest first, and a note (and a line on the referee's stderr) when
//! something was left out.

use std::fs;

use crate::harness::*;

#[test]
fn a_cut_saved_tmp_keeps_small_files_first_and_says_what_was_left_out() {
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
    assert_eq!(
        fs::read_to_string(saved.join("debug.txt")).expect("the small note kept"),
        "note\n"
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
    assert!(note.contains("many/f249 (9 bytes)"), "{note}");
    assert!(!note.contains("many/f198 "), "{note}");
    assert!(
        ran.stderr.contains("was cut") && ran.stderr.contains(".left-out.txt"),
        "{}",
        ran.stderr
    );
    sb.assert_no_bot_left();
}
