//! The exit codes (README.md, "Exit codes"), and the one plain sentence on stderr that goes with
//! each failure.

/// The referee itself failed (e.g. a log could not be written).
pub const FAILED: u8 = 1;
/// Bad arguments or an unreadable input file.
pub const BAD_INPUT: u8 = 2;
/// A replayed log does not check out.
pub const BAD_LOG: u8 = 3;
/// A bot failed `check`, or could not start for a match (which stopped after its first game).
pub const CHECK_FAILED: u8 = 4;
/// Stdout cannot be written (closed, or the disk is full).
pub const OUTPUT_FAILED: u8 = 5;
/// A replayed log checks out as far as it goes, but it is cut short before the game's end.
pub const CUT_LOG: u8 = 6;
/// Interrupted (Ctrl-C or SIGTERM).
pub const INTERRUPTED: u8 = 130;
/// Stdout's reader went away.
pub const BROKEN_PIPE: u8 = 141;

/// Writes one line on stderr and returns `code`. The message is made safe for a terminal: it
/// may quote a name, a path or a line of a file that a bot or a user wrote.
pub fn fail(code: u8, message: impl std::fmt::Display) -> u8 {
    say(format_args!(
        "allfives: {}",
        crate::text::terminal(&message.to_string())
    ));
    code
}

/// Writes `text` on stderr as a note, made safe for a terminal.
pub fn note(text: &str) {
    say(format_args!(
        "allfives: note: {}",
        crate::text::terminal(text)
    ));
}

/// `code`, unless Ctrl-C, SIGTERM or SIGHUP stopped what failed: then [`INTERRUPTED`].
pub fn stopped_or(code: u8) -> u8 {
    match crate::input::stopping() {
        true => INTERRUPTED,
        false => code,
    }
}

/// Writes `line` and a newline on stderr, as it is. A stderr that cannot take it (a full disk,
/// a closed pipe) is let go, where `eprintln!` would panic: the exit code still tells.
pub fn say(line: impl std::fmt::Display) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Stdout failed: its reader went away (quiet, as other tools), or it cannot be written.
pub fn output_failed(e: &std::io::Error) -> u8 {
    match e.kind() {
        std::io::ErrorKind::BrokenPipe => BROKEN_PIPE,
        _ => fail(OUTPUT_FAILED, format!("cannot write to stdout: {e}")),
    }
}
