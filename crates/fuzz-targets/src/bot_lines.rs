//! A bot's output, cut into lines by the referee's own framer and decoded by its own decoder.

use allfives::bot::framing::{LineFramer, parse_answer};
use allfives::bot::process::{EXCERPT, Received};
use allfives_engine::protocol::MAX_BOT_LINE;

/// The first byte picks the cap (small ones reach its edges) and how the rest arrives in reads;
/// the rest is what the bot wrote.
pub fn run(data: &[u8]) {
    let Some((&head, output)) = data.split_first() else {
        return;
    };
    let max_line = if head < 0x80 {
        1 + usize::from(head % 64)
    } else {
        MAX_BOT_LINE
    };
    let read_size = 1 + usize::from(head % 7) * usize::from(head % 11);
    let mut framer = LineFramer::new(max_line);
    for read in output.chunks(read_size) {
        framer.buffer().extend_from_slice(read);
        while let Some(line) = framer.next_line() {
            check(line, max_line);
        }
    }
    if let Some(line) = framer.rest() {
        check(line, max_line);
    }
}

fn check(received: Received, max_line: usize) {
    match received {
        Received::Line(text) => {
            assert!(text.len() <= max_line, "a line over the cap was passed on");
            assert!(!text.ends_with('\n'), "a newline left in a line");
            // What the decoder accepts reads back the same after writing.
            if let Ok(answer) = parse_answer(&text) {
                let again = serde_json::to_string(&answer).expect("a message serializes");
                assert_eq!(parse_answer(&again).ok(), Some(answer));
            }
        }
        Received::TooLong(start) | Received::NotUtf8(start) => {
            assert!(start.chars().count() <= EXCERPT, "an excerpt too long");
        }
        Received::Exited(_) | Received::Timeout => unreachable!("the framer reads no process"),
    }
}
