//! A verified game as one self-contained HTML page: the data, the drawing code and the styles
//! all inline, nothing fetched. Everything from the log (bot names, commands, fault inputs, a
//! bot's info and stderr) goes in as JSON data, each string shown as on a terminal
//! ([`crate::text::page_data`]: a bidi override stays an escape, never acts), written by
//! [`crate::page`] (which also names
//! the page's one script in its Content-Security-Policy); the page builds its elements with
//! `textContent` only.
//!
//! A folder of games (a match's or a tournament's) gets an index page: each game's players and
//! result, and a link to its page.

use std::fmt::Write;

use crate::replay::page_data::PageData;
use crate::text::html as escape;

const PAGE: &str = include_str!("page.html");

/// The page for a game's data.
pub fn page(data: &PageData) -> String {
    crate::page::fill(PAGE, &crate::text::page_data(data))
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
