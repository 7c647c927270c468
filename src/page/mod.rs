//! A self-contained HTML page, shared by the replay page and the report page: a template with
//! its styles and one inline script, and the page's data as JSON inside
//! `<script type="application/json">`, every `<` written `\u003c` so that no text can close the
//! script. The template's Content-Security-Policy names that one script by its SHA-256
//! (`{{SCRIPT_HASH}}`), so that escaping is not the only defence: nothing else runs, nothing is
//! fetched. Pure: no I/O.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// `template` with its script's hash in place of `{{SCRIPT_HASH}}` and `data`, as JSON, in place
/// of `{{DATA}}`.
pub fn fill(template: &str, data: &impl Serialize) -> String {
    let json = serde_json::to_string(data)
        .expect("a page's data is plain data, which always serializes")
        .replace('<', "\\u003c");
    template
        .replacen("{{SCRIPT_HASH}}", &script_hash(template), 1)
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
    fn no_text_in_the_data_closes_its_script() {
        let page = fill(
            "<script type=\"application/json\">{{DATA}}</script><script>x</script>",
            &"</script><script>alert(1)",
        );
        assert_eq!(page.matches("</script>").count(), 2, "{page}");
        assert!(page.contains("\\u003c/script>"));
    }
}
