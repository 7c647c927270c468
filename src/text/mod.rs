//! Text a bot or a user's file controls, made safe for where it goes.

/// `s` for a terminal: control, invisible and bidirectional-override characters shown escaped
/// (`\x1b`, `\u{202e}`), so that nothing a bot wrote can move the cursor, retitle a window or
/// reorder what the user reads.
pub fn terminal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if unsafe_in_terminal(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// C1 controls, and the invisible and bidirectional formatting characters that can spoof text.
fn unsafe_in_terminal(c: char) -> bool {
    matches!(c as u32,
        0x80..=0x9f | 0x061c | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x2069 | 0xfeff)
}
