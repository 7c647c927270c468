//! A bot's output, cut into lines by the referee's own framer and decoded by its own decoder.

use allfives::bot::fault::EXCERPT;
use allfives::bot::framing::Received;
use allfives::bot::framing::{LineFramer, parse_answer};
use allfives_engine::protocol::{FromBot, MAX_BOT_LINE};

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
    let lines = frame(output, max_line, read_size);
    // The same output with `\r\n` newlines frames alike: the cap counts neither.
    if !output.contains(&b'\r') {
        let mut crlf = Vec::with_capacity(output.len() * 2);
        for &b in output {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
        }
        let same = |a: &Received, b: &Received| match (a, b) {
            (Received::TooLong(_), Received::TooLong(_)) => true,
            _ => a == b,
        };
        let with_crlf = frame(&crlf, max_line, read_size);
        assert!(
            lines.len() == with_crlf.len() && lines.iter().zip(&with_crlf).all(|(a, b)| same(a, b)),
            "\\n and \\r\\n frame differently: {lines:?} {with_crlf:?}"
        );
    }
}

/// Every line of `output`, read `read_size` bytes at a time, each checked.
fn frame(output: &[u8], max_line: usize, read_size: usize) -> Vec<Received> {
    let mut framer = LineFramer::new(max_line);
    let mut lines = Vec::new();
    for read in output.chunks(read_size) {
        framer.buffer().extend_from_slice(read);
        lines.extend(std::iter::from_fn(|| framer.next_line()));
    }
    lines.extend(framer.rest());
    for line in &lines {
        check(line, max_line);
    }
    lines
}

fn check(received: &Received, max_line: usize) {
    match received {
        Received::Line(text) => {
            assert!(text.len() <= max_line, "a line over the cap was passed on");
            assert!(!text.ends_with('\n'), "a newline left in a line");
            // The referee's reader (a fast path for the compact move, then serde) reads a line
            // exactly as serde alone does.
            let read = parse_answer(text).ok();
            let by_serde = serde_json::from_str::<FromBot>(text).ok();
            assert_eq!(
                read, by_serde,
                "the fast reader and serde differ on {text:?}"
            );
            // What the decoder accepts reads back the same after writing.
            if let Some(answer) = read {
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
