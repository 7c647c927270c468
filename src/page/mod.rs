//! Every HTML page the house writes (the replay page, the report page, a folder's index page)
//! starts with the one [`head`]: its Content-Security-Policy lets nothing be fetched and no
//! script run but the page's own. Text a bot or a user's file controls goes into a page's HTML
//! through [`escape`] only. The replay and report pages are a template with its styles and one
//! inline script, [`fill`]ed with the head and the page's data as JSON inside
//! `<script type="application/json">`: every string in it shown as on a terminal, every `<`
//! written `\u003c` so that no text can close the script; the policy names that one script by
//! its SHA-256, so that escaping is not the only defence. Pure: no I/O.

mod shown;

use std::io::{self, Write};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::text::terminal;

/// What a page may load besides its styles: its one script, named by its hash, and images
/// given as `data:` URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowed<'a> {
    /// The CSP source of the page's script (`sha256-...`), if it has one.
    pub script: Option<&'a str>,
    /// Whether `data:` images may be shown.
    pub data_images: bool,
}

/// The start of every page, up to its `<title>` (`title` is text, escaped here).
pub fn head(title: &str, allowed: Allowed<'_>) -> String {
    let title = escape(title);
    let mut csp = "default-src 'none'; style-src 'unsafe-inline'".to_string();
    if let Some(script) = allowed.script {
        csp.push_str(&format!("; script-src '{script}'"));
    }
    if allowed.data_images {
        csp.push_str("; img-src data:");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n<title>{title}</title>"
    )
}

/// `s` as HTML text or a quoted attribute's value: shown as on a terminal (every control, bidi
/// or invisible character an escape, [`terminal`]), then `& < > " '` written as character
/// references.
pub fn escape(s: &str) -> String {
    let shown = terminal(s);
    let mut out = String::with_capacity(shown.len());
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `template` with the [`head`] (titled `title`, its script allowed by its hash) in place of
/// `{{HEAD}}` and `data`, as JSON, in place of `{{DATA}}` ([`write`] into a string).
pub fn fill(template: &str, title: &str, data_images: bool, data: &impl Serialize) -> String {
    let mut page = Vec::new();
    write(&mut page, template, title, data_images, data)
        .expect("a page's data is plain data, which always serializes");
    String::from_utf8(page).expect("a page is UTF-8")
}

/// Writes `template` to `out` with the [`head`] in place of `{{HEAD}}` and `data` in place of
/// `{{DATA}}`, the data written as it is serialized ([`shown`]), never held whole.
pub fn write(
    out: &mut impl Write,
    template: &str,
    title: &str,
    data_images: bool,
    data: &impl Serialize,
) -> io::Result<()> {
    let template = &lean(template);
    let script = format!("sha256-{}", script_hash(template));
    let allowed = Allowed {
        script: Some(&script),
        data_images,
    };
    let (before, after) = template
        .split_once(HEAD)
        .expect("a page template has its head");
    out.write_all(before.as_bytes())?;
    out.write_all(head(title, allowed).as_bytes())?;
    match after.split_once(DATA) {
        Some((before, after)) => {
            out.write_all(before.as_bytes())?;
            shown::write(out, data)?;
            out.write_all(after.as_bytes())
        }
        None => out.write_all(after.as_bytes()),
    }
}

/// `template` without what only its readers need: the lines that hold nothing but a `//`
/// comment (its script's), and every line's indent. A folder's pages repeat the template once a
/// game (100,000 games, 100,000 copies); the page's script is hashed as it is written.
fn lean(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    for line in template.split_inclusive('\n') {
        let kept = line.trim_start_matches([' ', '\t']);
        if !kept.starts_with("//") {
            out.push_str(kept);
        }
    }
    out
}

/// Where a page template's head goes.
const HEAD: &str = "{{HEAD}}";

/// Where a page template's data goes.
const DATA: &str = "{{DATA}}";

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::terminal;
    use serde_json::Value;

    /// The page as it was written before [`shown`]: the data turned into a `Value`, every
    /// string in it shown as on a terminal, then the whole text's `<` replaced (its objects'
    /// keys sorted, as a `Value` holds them).
    fn whole(template: &str, title: &str, data_images: bool, data: &impl Serialize) -> String {
        fn visible(value: Value) -> Value {
            match value {
                Value::String(s) => Value::String(terminal(&s)),
                Value::Array(items) => Value::Array(items.into_iter().map(visible).collect()),
                Value::Object(map) => Value::Object(
                    map.into_iter()
                        .map(|(k, v)| (terminal(&k), visible(v)))
                        .collect(),
                ),
                other => other,
            }
        }
        let data = serde_json::to_value(data).expect("plain data");
        let json = serde_json::to_string(&visible(data))
            .expect("a value")
            .replace('<', "\\u003c");
        let script = format!("sha256-{}", script_hash(template));
        let allowed = Allowed {
            script: Some(&script),
            data_images,
        };
        template
            .replacen("{{HEAD}}", &head(title, allowed), 1)
            .replacen("{{DATA}}", &json, 1)
    }

    /// Asserts that `page` is `whole` but for the order of its data's keys: the same text
    /// around the data, the same data, and no `<` in it.
    fn same(page: String, whole: String) {
        let cut = |page: &str| -> (String, Value, String) {
            let start = page.find(OPENING).expect("the data's script") + OPENING.len();
            let end = start + page[start..].find("</script>").expect("closed");
            let data = serde_json::from_str(&page[start..end]).expect("the data is JSON");
            assert!(!page[start..end].contains('<'), "{page}");
            (page[..start].to_string(), data, page[end..].to_string())
        };
        assert_eq!(cut(&page), cut(&whole));
    }

    const OPENING: &str = "<script type=\"application/json\">";

    #[test]
    fn a_written_page_is_the_whole_page() {
        let template =
            "{{HEAD}}<script type=\"application/json\">{{DATA}}</script><script>x</script>";
        let mut faults = std::collections::BTreeMap::new();
        for (i, kind) in ["timeout", "illegal_move", "crash", "<b>"]
            .iter()
            .enumerate()
        {
            faults.insert(*kind, i);
        }
        let numbered: std::collections::BTreeMap<u64, &str> =
            [(9, "nine"), (10, "ten"), (100, "\u{202e}")]
                .into_iter()
                .collect();
        let data = serde_json::json!({
            "zeta": [1, 2.5, -3, null, true, "a\"b\\c/d\x08\x0c\n\r\t\x01\x7f\u{9b}"],
            "alpha": {"y\u{200b}": faults, "x<": numbered, "": []},
            "Beta": [{"b": {}, "a": [[], [{"c": "</script>"}]]}],
            "<": f64::NAN.to_string(),
            "same\n": 1, "same\\n": 2,
        });
        #[derive(Clone, Serialize)]
        struct Row<'a> {
            name: &'a str,
            games: u64,
            score: f64,
            faults: std::collections::BTreeMap<u8, u64>,
            note: Option<&'a str>,
            big: i64,
            lost: f64,
        }
        let rows = vec![
            Row {
                name: "b\u{202e}1",
                games: 3,
                score: 0.1 + 0.2,
                faults: [(12, 1), (3, 4)].into_iter().collect(),
                note: None,
                big: i64::MIN,
                lost: f64::NAN,
            };
            3
        ];
        let title = "a <title>";
        same(
            fill(template, title, false, &data),
            whole(template, title, false, &data),
        );
        same(
            fill(template, title, true, &rows),
            whole(template, title, true, &rows),
        );
        for text in ["</script><script>alert(1)", "", "\u{202e}<"] {
            same(
                fill(template, title, false, &text),
                whole(template, title, false, &text),
            );
        }
        same(
            fill(template, title, false, &f64::INFINITY),
            whole(template, title, false, &f64::INFINITY),
        );
    }

    #[test]
    fn a_lean_template_keeps_every_line_but_its_comments_without_indent() {
        let template = "{{HEAD}}\n<style>\n  a { b: c; }\n</style>\n<script>\n  // why\n  if (x) {\n    y(\"http://z\"); // kept\n  }\n</script>";
        assert_eq!(
            lean(template),
            "{{HEAD}}\n<style>\na { b: c; }\n</style>\n<script>\nif (x) {\ny(\"http://z\"); // kept\n}\n</script>"
        );
        let page = fill(template, "t", false, &0);
        let script = "\nif (x) {\ny(\"http://z\"); // kept\n}\n";
        let hash = base64(&Sha256::digest(script.as_bytes()));
        assert!(page.contains(&format!("'sha256-{hash}'")), "{page}");
    }

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
    fn no_text_in_the_data_closes_its_script() {
        let page = fill(
            "{{HEAD}}<script type=\"application/json\">{{DATA}}</script><script>x</script>",
            "t",
            false,
            &"</script><script>alert(1)",
        );
        assert_eq!(page.matches("</script>").count(), 2, "{page}");
        assert!(page.contains("\\u003c/script>"));
    }

    #[test]
    fn a_page_allows_its_own_script_and_nothing_else() {
        let page = fill("{{HEAD}}\n<script>x</script>", "a page", true, &0);
        // sha256("x"), as `printf x | openssl dgst -sha256 -binary | base64`.
        let csp = "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-LXEWQrcmsEQBYnyp+6wy9chTD7GQPMTbAiWHF5IaSIE='; img-src data:\"";
        assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
        assert!(page.contains(csp), "{page}");
        assert!(page.contains("<title>a page</title>"), "{page}");
        let index = head(
            "an index",
            Allowed {
                script: None,
                data_images: false,
            },
        );
        assert!(index.contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""));
    }

    #[test]
    fn html_text_cannot_open_a_tag_or_close_an_attribute() {
        assert_eq!(
            escape(r#"<script>"a" & 'b'</script>"#),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
        assert_eq!(escape("a\u{202e}b\x1b"), r"a\u{202e}b\x1b");
        let title = head(
            "<b>",
            Allowed {
                script: None,
                data_images: false,
            },
        );
        assert!(title.ends_with("<title>&lt;b&gt;</title>"), "{title}");
    }

    #[test]
    fn every_string_in_a_pages_data_shows_as_on_a_terminal() {
        let data = serde_json::json!({"a\u{202e}": ["b\u{200b}", 1, {"c": "d\x1b"}]});
        let page = fill("{{HEAD}}<script>x</script>{{DATA}}", "t", false, &data);
        assert!(
            page.ends_with(r#"{"a\\u{202e}":["b\\u{200b}",1,{"c":"d\\x1b"}]}"#),
            "{page}"
        );
    }
}
