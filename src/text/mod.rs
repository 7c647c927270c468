//! Text that a bot or a user's file controls (names, fault details, the input a fault quotes, a
//! bot's stderr), made safe for where it goes: a terminal ([`terminal`]), JSON ([`json`]) or a
//! file name ([`file_name`]); a page's HTML and data show it as a terminal does (the `page`
//! module escapes it). Pure: no I/O. Nothing of the house is used here, and every part that
//! prints such text calls in.
//!
//! On a terminal, a control character can clear the screen, retitle the window or forge a line,
//! and a bidi or invisible character can make one name look like another; both are shown as
//! escapes (`\x1b`, `\u{202e}`), so that what is printed is what was sent, visibly.

use std::fmt::Write;

/// `s` with every control character (C0 with tab and newline, DEL, C1) and every bidi or
/// invisible character written as an escape: `\t`, `\n`, `\r`, `\x1b` below U+0080, `\u{9b}` or
/// `\u{202e}` above. Every other character, a backslash included, is kept as it is.
pub fn terminal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if hidden(c) && (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if hidden(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as one word for a POSIX shell: quoted when it needs quoting (a space, a quote, `$`...),
/// as it is when it cannot be quoted (a NUL byte), to print a command line to type.
pub fn shell_word(s: &str) -> String {
    shlex::try_quote(s).map_or_else(|_| s.to_string(), |q| q.into_owned())
}

/// JSON text (as serde_json writes it) with every control, bidi or invisible character that it
/// leaves raw inside a string (DEL, C1, U+202E, U+200B, ...) written as a `\uXXXX` escape: the
/// same JSON to a parser, plain ASCII punctuation to a terminal. JSON's own structure is ASCII
/// below DEL, so only strings are touched; the tabs and newlines between tokens are kept.
pub fn json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match hidden(c) && (c as u32) >= 0x7f {
            true => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            false => out.push(c),
        }
    }
    out
}

/// The longest file name [`file_name`] gives, in bytes: room is left under the usual limit of
/// 255 for a prefix and a suffix (`game-12.`, `.w3.stderr`).
const MAX_FILE_NAME: usize = 96;

/// `s` as a safe part of a file name: ASCII letters, digits and `_ - . #` only, every other
/// character (a `/`, a space, a control or bidi character, any non-ASCII letter) written `_`,
/// no leading dot, never empty, at most 96 bytes. When that changed `s`, a short digest of `s`
/// is added, so that two names that differ still give two file names.
pub fn file_name(s: &str) -> String {
    let mut slug: String = s
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() || "_-.#".contains(c) {
            true => c,
            false => '_',
        })
        .collect();
    if slug.starts_with('.') {
        slug.replace_range(..1, "_");
    }
    if slug == s && !slug.is_empty() && slug.len() <= MAX_FILE_NAME {
        return slug;
    }
    let digest = format!("-{:08x}", fnv1a(s.as_bytes()) as u32);
    slug.truncate(MAX_FILE_NAME - digest.len());
    slug + &digest
}

/// Whether `c` acts on a terminal or hides itself: a control character (C0, DEL, C1), a bidi
/// control, a zero-width or other default-ignorable character, a line or paragraph separator,
/// or an invisible filler letter.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// FNV-1a, 64 bits: a digest that is the same on every machine and in every release.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `n thing` or `n things`.
pub fn count(n: impl Into<u64>, thing: &str) -> String {
    let n = n.into();
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// `x` with `digits` decimals, rounded as the pages round (JavaScript's `toFixed`): to the
/// nearest, and a value exactly half-way (72.25 to one decimal) away from zero, where Rust's
/// `{:.1}` rounds it to the even digit (72.2). A page and the text then show the same figures.
/// Meant for figures of a report (percentages, ratings, milliseconds), well under 10^9.
pub fn fixed(x: f64, digits: usize) -> String {
    // A double's decimal expansion is finite: 40 more digits show whether it is exactly
    // half-way (a 5 and zeros only) for any figure above 10^-25.
    let exact = format!("{:.*}", digits + 40, x.abs());
    let after = exact.find('.').map_or(exact.len(), |dot| dot + 1 + digits);
    let tie = exact[after..]
        .strip_prefix('5')
        .is_some_and(|rest| rest.bytes().all(|b| b == b'0'));
    let x = match tie {
        // Past the half-way point by far less than the last digit: that digit rounds up.
        true => x + x.signum() * 10f64.powi(-(digits as i32) - 2),
        // A negative zero prints as zero, as JavaScript's does.
        false => x + 0.0,
    };
    format!("{x:.digits$}")
}

/// Words listed as in a sentence: `a`, `a and b`, `a, b and c`.
pub fn listed<S: AsRef<str>>(words: &[S]) -> String {
    match words {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", rest.join(", "), last.as_ref())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_figure_half_way_rounds_away_from_zero_as_on_a_page() {
        assert_eq!(fixed(72.25, 1), "72.3");
        assert_eq!(fixed(-72.25, 1), "-72.3");
        assert_eq!(fixed(0.125, 2), "0.13");
        assert_eq!(fixed(2.5, 0), "3");
        // 1.45 is stored as 1.4499999999999999556: not half-way, as toFixed(1) also says.
        assert_eq!(fixed(1.45, 1), "1.4");
        assert_eq!(fixed(72.24, 1), "72.2");
        assert_eq!(fixed(-0.0, 1), "0.0");
        assert_eq!(fixed(-0.04, 1), "-0.0");
        assert_eq!(fixed(100.0, 1), "100.0");
    }

    #[test]
    fn a_terminal_sees_every_control_and_bidi_character_escaped() {
        let payload = "a\x1b[2Jb\x07c\u{9b}31md\u{202e}e\u{200b}f\u{2028}g\u{feff}h\ni\tj\x7f";
        assert_eq!(
            terminal(payload),
            r"a\x1b[2Jb\x07c\u{9b}31md\u{202e}e\u{200b}f\u{2028}g\u{feff}h\ni\tj\x7f"
        );
        assert_eq!(terminal("plain – ünïcode ⚀ text"), "plain – ünïcode ⚀ text");
    }

    #[test]
    fn json_keeps_its_meaning_and_shows_no_hidden_character() {
        let value = serde_json::json!({"name": "a\x1b\u{9b}\u{202e}\u{e0041}\x7fz", "n": [1, 2]});
        let written = serde_json::to_string_pretty(&value).expect("plain data");
        let safe = json(&written);
        assert!(safe.is_ascii(), "{safe}");
        assert_eq!(terminal(&safe.replace('\n', " ")), safe.replace('\n', " "));
        let back: serde_json::Value = serde_json::from_str(&safe).expect("still JSON");
        assert_eq!(back, value);
    }

    #[test]
    fn a_file_name_is_a_short_slug_that_still_tells_names_apart() {
        assert_eq!(file_name("greedy#2"), "greedy#2");
        let dotted = file_name("../.x");
        assert!(dotted.starts_with("_._.x-"), "{dotted}");
        assert_ne!(file_name("a b"), file_name("a_b"));
        assert_ne!(file_name("a b"), file_name("a\u{202e}b"));
        assert!(!file_name("").is_empty());
        let long = file_name(&"é".repeat(300));
        assert!(long.len() <= MAX_FILE_NAME, "{}", long.len());
        for name in [dotted, long, file_name("a\x1b\n/b")] {
            assert!(name.bytes().all(|b| b.is_ascii_graphic() && b != b'/'));
            assert!(!name.starts_with('.'));
        }
    }

    /// Text with many of the characters that matter here, among any others.
    fn hostile() -> impl Strategy<Value = String> {
        let nasty = prop::sample::select(vec![
            '\x1b',
            '\x07',
            '\n',
            '\t',
            '\r',
            '\0',
            '\x7f',
            '\u{9b}',
            '\u{202e}',
            '\u{2066}',
            '\u{200b}',
            '\u{2028}',
            '\u{feff}',
            '\u{e0041}',
            '/',
            '.',
            '\\',
            '"',
            '<',
        ]);
        prop::collection::vec(prop_oneof![any::<char>(), nasty], 0..60)
            .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #[test]
        fn nothing_hidden_survives_and_nothing_else_changes(s in hostile()) {
            let shown = terminal(&s);
            prop_assert!(!shown.chars().any(hidden));
            if !s.chars().any(hidden) {
                prop_assert_eq!(&shown, &s);
            }
        }

        #[test]
        fn json_reads_back_the_same_and_hides_nothing(s in hostile()) {
            let written = json(&serde_json::to_string(&s).expect("a string"));
            prop_assert!(!written.chars().any(hidden));
            let back: String = serde_json::from_str(&written).expect("still JSON");
            prop_assert_eq!(back, s);
        }

        #[test]
        fn a_file_name_is_always_safe(s in hostile()) {
            let name = file_name(&s);
            prop_assert!(!name.is_empty() && name.len() <= MAX_FILE_NAME);
            prop_assert!(name.bytes().all(|b| b.is_ascii_graphic() && b != b'/'));
            prop_assert!(!name.starts_with('.'));
        }
    }
}
