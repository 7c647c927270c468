//! A verified game as one self-contained HTML page: the data, the drawing code and the styles
//! all inline, nothing fetched. Everything from the log (bot names, commands, fault inputs, a
//! bot's info and stderr) goes in as JSON data, written by [`crate::page`] (each string shown
//! as on a terminal: a bidi override stays an escape, never acts; the page's one script named
//! in its Content-Security-Policy); the page builds its elements with `textContent` only.
//!
//! A folder of games (a match's or a tournament's) gets an index page: each game's players and
//! result, and a link to its page, under the same [`crate::page::head`], every text in it
//! through [`crate::page::escape`].

use std::fmt::Write;

use crate::page::{Allowed, escape, head};
use crate::replay::page_data::PageData;

const PAGE: &str = include_str!("page.html");

/// The page for a game's data.
pub fn page(data: &PageData) -> String {
    crate::page::fill(PAGE, "allfives replay", true, data)
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
        r#"{head}
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
        head = head(
            &format!("allfives: {title}"),
            Allowed {
                script: None,
                data_images: false,
            }
        ),
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
