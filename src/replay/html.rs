//! A verified game as one self-contained HTML page: the data, the drawing code and the styles
//! all inline, nothing fetched. Everything from the log (bot names, commands, fault inputs, a
//! bot's info and stderr) goes in as JSON data inside `<script type="application/json">`, with
//! every `<` written `\u003c` so that no text can close the script; the page builds its
//! elements with `textContent` only. Its Content-Security-Policy lets only the page's own
//! script run, named by its SHA-256, so that escaping is not the only defence.
//!
//! A folder of games (a match's or a tournament's) gets an index page: each game's players and
//! result, and a link to its page.

use std::fmt::Write;

use sha2::{Digest, Sha256};

use crate::replay::page_data::PageData;
use crate::text::html as escape;

const PAGE: &str = include_str!("page.html");

/// The page for a game's data.
pub fn page(data: &PageData) -> String {
    let json = serde_json::to_string(data)
        .expect("a page's data is plain data, which always serializes")
        .replace('<', "\\u003c");
    PAGE.replacen("{{SCRIPT_HASH}}", &script_hash(PAGE), 1)
        .replacen("{{DATA}}", &json, 1)
}

/// The CSP source of the page's one script (`<script>` without attributes): its SHA-256 in
/// base64, as browsers compute it over the text between the tags.
fn script_hash(page: &str) -> String {
    let start = page
        .find("<script>")
        .map(|i| i + "<script>".len())
        .expect("the page template has its script");
    let end = page[start..]
        .find("</script>")
        .map(|i| start + i)
        .expect("the page template's script is closed");
    base64(&Sha256::digest(&page.as_bytes()[start..end]))
}

/// Standard base64 with padding (RFC 4648, section 4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize])),
                false => out.push('='),
            }
        }
    }
    out
}

/// One game's line in a folder's index.
#[derive(Debug, Clone)]
pub struct IndexEntry {
    /// The game's page, relative to the index.
    pub page: String,
    /// The game's name (its log's file name).
    pub name: String,
    /// Who sat where, seat 0 first.
    pub players: Vec<String>,
    /// The result in words, or what is wrong with the log.
    pub result: String,
    /// Whether the log checks out to its end.
    pub good: bool,
}

/// The index page of a folder of games.
pub fn index(title: &str, entries: &[IndexEntry]) -> String {
    let mut rows = String::new();
    for e in entries {
        let _ = writeln!(
            rows,
            "<tr{}><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td></tr>",
            if e.good { "" } else { " class=\"bad\"" },
            escape(&e.page),
            escape(&e.name),
            escape(&e.players.join(" vs ")),
            escape(&e.result)
        );
    }
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>allfives: {title}</title>
<style>
  body {{ font-family: system-ui, sans-serif; margin: 14px; background: #f4f1ea; color: #222; }}
  table {{ border-collapse: collapse; }}
  td, th {{ padding: 4px 10px; border-bottom: 1px solid #ccc; text-align: left; vertical-align: top; }}
  tr.bad td {{ color: #8a1c00; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>{count}; each page works from the file system, without a server.</p>
<table>
<tr><th>game</th><th>players (seat 0 first)</th><th>result</th></tr>
{rows}</table>
</body>
</html>
"#,
        title = escape(title),
        count = crate::gamelog::describe::count(entries.len() as u64, "game"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648() {
        // The test vectors of RFC 4648, section 10.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn the_script_hash_is_of_the_text_between_the_tags() {
        let page = "<script type=\"application/json\">{}</script><script>alert(1)</script>";
        // sha256("alert(1)"), as `printf 'alert(1)' | openssl dgst -sha256 -binary | base64`.
        assert_eq!(
            script_hash(page),
            "bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI="
        );
    }

    #[test]
    fn index_text_is_escaped() {
        let page = index(
            "a <b>",
            &[IndexEntry {
                page: "game-1.html".into(),
                name: "game-1".into(),
                players: vec!["<script>x</script>".into(), "b&c".into()],
                result: "\"quoted\"".into(),
                good: true,
            }],
        );
        assert!(!page.contains("<script>x"), "{page}");
        assert!(page.contains("&lt;script&gt;x") && page.contains("b&amp;c"));
    }
}
