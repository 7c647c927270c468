//! A bot's output cut into lines and decoded into messages, as pure functions over bytes (the
//! process feeds them what it reads; the fuzz targets feed them anything).

use allfives_engine::json::read_from_bot;
use allfives_engine::protocol::FromBot;

use crate::bot::fault::excerpt;
use crate::bot::fault::{Fault, FaultKind};
use crate::bot::misread::misread;

/// What a bot wrote, or what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// A complete line (without its newline).
    Line(String),
    /// A line longer than the cap; its start.
    TooLong(String),
    /// A line that is not UTF-8; its start, lossily decoded.
    NotUtf8(String),
    /// The process ended (or closed its output).
    Exited(String),
    /// Nothing came in time.
    Timeout,
}

/// Cuts a byte stream into lines of at most `max_line` bytes, not counting the line's `\n` or
/// `\r\n`. Bytes are appended to [`buffer`](LineFramer::buffer) as they arrive; a line cut off
/// between two reads is completed by the next.
#[derive(Debug)]
pub struct LineFramer {
    buf: Vec<u8>,
    /// Bytes of `buf` already searched for a newline.
    scanned: usize,
    max_line: usize,
    /// Inside an over-long line: drop input up to its newline.
    skipping: bool,
}

impl LineFramer {
    /// A framer with an empty buffer.
    pub fn new(max_line: usize) -> LineFramer {
        LineFramer {
            buf: Vec::with_capacity(64 * 1024),
            scanned: 0,
            max_line,
            skipping: false,
        }
    }

    /// Where new input goes: append to it (reads only ever append).
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// A complete line from the buffer, or a too-long report, if there is one.
    pub fn next_line(&mut self) -> Option<Received> {
        loop {
            let found = memchr::memchr(b'\n', &self.buf[self.scanned..]);
            return match found {
                Some(at) => {
                    let end = self.scanned + at;
                    self.scanned = 0;
                    // The end of an over-long line already reported: on to the next line.
                    let received = match std::mem::take(&mut self.skipping) {
                        true => None,
                        false => Some(self.received(end)),
                    };
                    self.buf.drain(..=end);
                    match received {
                        Some(received) => Some(received),
                        None => continue,
                    }
                }
                None if self.unfinished_too_long() => {
                    let start = excerpt(&self.buf);
                    self.buf.clear();
                    self.scanned = 0;
                    // Only the first overflow of a line is reported; the rest of it is dropped.
                    let first = !std::mem::replace(&mut self.skipping, true);
                    first.then_some(Received::TooLong(start))
                }
                None => {
                    self.scanned = self.buf.len();
                    None
                }
            };
        }
    }

    /// The line in the buffer up to `end` (its newline), read.
    fn received(&self, end: usize) -> Received {
        let line = &self.buf[..end];
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        match text.len() > self.max_line {
            true => Received::TooLong(excerpt(text)),
            false => decode(text),
        }
    }

    /// Whether the line being read, with no newline yet, is already over the cap (a last `\r`
    /// may still turn out to be the start of its `\r\n`).
    fn unfinished_too_long(&self) -> bool {
        let content = self.buf.strip_suffix(b"\r").unwrap_or(&self.buf);
        content.len() > self.max_line
    }

    /// The start of an unfinished line in the buffer, if there is one.
    pub fn partial(&self) -> Option<String> {
        (!self.buf.is_empty() && !self.skipping).then(|| excerpt(&self.buf))
    }

    /// A last line without a newline, once the output has ended.
    pub fn rest(&mut self) -> Option<Received> {
        self.scanned = 0;
        let rest = std::mem::take(&mut self.buf);
        if rest.is_empty() || std::mem::take(&mut self.skipping) {
            return None;
        }
        let text = rest.strip_suffix(b"\r").unwrap_or(&rest);
        Some(decode(text))
    }
}

fn decode(line: &[u8]) -> Received {
    match std::str::from_utf8(line) {
        Ok(text) => Received::Line(text.to_string()),
        Err(_) => Received::NotUtf8(excerpt(line)),
    }
}

/// A line a bot wrote, read as a message (by the engine's reader: the compact form by hand,
/// anything else through serde_json). A refused line's fault says which field is wrong and what
/// it should hold, where it can ([`misread`]); else it gives the reader's message.
pub fn parse_answer(text: &str) -> Result<FromBot, Fault> {
    read_from_bot(text).map_err(|e| {
        let why = misread(text).unwrap_or_else(|| e.to_string());
        Fault::with_input(
            FaultKind::Malformed,
            format!("not a valid message: {why}"),
            text,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `chunks` one read at a time and gathers every line, the last one at the end.
    fn frame(max_line: usize, chunks: &[&[u8]]) -> Vec<Received> {
        let mut framer = LineFramer::new(max_line);
        let mut out = Vec::new();
        for chunk in chunks {
            framer.buffer().extend_from_slice(chunk);
            while let Some(line) = framer.next_line() {
                out.push(line);
            }
        }
        out.extend(framer.rest());
        out
    }

    fn line(text: &str) -> Received {
        Received::Line(text.to_string())
    }

    #[test]
    fn the_cap_counts_a_line_without_its_newline() {
        let full = "x".repeat(8);
        for ending in ["\n", "\r\n"] {
            let at_cap = format!("{full}{ending}");
            assert_eq!(frame(8, &[at_cap.as_bytes()]), [line(&full)], "{ending:?}");
            let over = format!("{full}y{ending}");
            assert!(matches!(
                frame(8, &[over.as_bytes()])[..],
                [Received::TooLong(_)]
            ));
        }
        // The `\r` arrives in one read, its `\n` in the next.
        let cut = frame(8, &[format!("{full}\r").as_bytes(), b"\nnext\n"]);
        assert_eq!(cut, [line(&full), line("next")]);
    }

    #[test]
    fn an_over_long_line_is_reported_once_and_skipped() {
        let out = frame(4, &[b"abcdef", b"ghij", b"kl\nok\n"]);
        assert!(
            matches!(&out[..], [Received::TooLong(start), ok] if start == "abcdef" && *ok == line("ok"))
        );
    }

    #[test]
    fn lines_are_split_across_reads_and_decoded() {
        let out = frame(64, &[b"{\"a\"", b":1}\r\n\xff\xfe\n", b"last"]);
        assert_eq!(out[0], line("{\"a\":1}"));
        assert!(matches!(out[1], Received::NotUtf8(_)));
        assert_eq!(out[2], line("last"));
    }
}
