//! Any text, replayed as a game log.

use allfives::gamelog::replay;

/// The bytes are the log (lossily decoded, as a file read back would be checked line by line).
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(replayed) = replay(&text) {
        // A log that checks out has a header and no more plays than lines.
        assert!(replayed.decisions.len() < text.lines().count());
    }
}
