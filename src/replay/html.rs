//! A verified game as one self-contained HTML page: the data, the drawing code and the styles
//! all inline, nothing fetched. Everything from the log (bot names, commands, fault inputs) goes
//! in as JSON data inside `<script type="application/json">`, with every `<` written `\u003c` so
//! that no text can close the script; the page builds its elements with `textContent` only.

use crate::replay::steps::Document;

const PAGE: &str = include_str!("page.html");

/// The page for `doc`.
pub fn page(doc: &Document) -> String {
    let data = serde_json::to_string(doc)
        .expect("a document of plain data always serializes")
        .replace('<', "\\u003c");
    PAGE.replacen("{{DATA}}", &data, 1)
}
