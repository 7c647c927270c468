//! What a bot's answer got wrong, in the protocol's words (protocol.md "Messages from the
//! bot"): serde's own message names a Rust type (`invalid type: string "1", expected u8`),
//! where a bot's author needs the field and what it should hold. Pure.

use serde_json::Value;

/// The longest shown part of a wrong value, in characters.
const SHOWN: usize = 40;

/// Why `line`, a JSON object the protocol's reader refused, is not a `hello` or a `move`: the
/// first field the protocol describes that is missing or of the wrong kind. `None` when the
/// line is not a JSON object, or when every field holds the right kind of value (the reader's
/// own message then says more).
pub fn misread(line: &str) -> Option<String> {
    let Value::Object(fields) = serde_json::from_str::<Value>(line).ok()? else {
        return None;
    };
    let get = |name: &str| fields.get(name);
    let kind = match get("type") {
        None => return Some(r#"`type` is missing: it is "hello" or "move""#.into()),
        Some(Value::String(kind)) if kind == "hello" || kind == "move" => kind.as_str(),
        Some(other) => return Some(wrong("type", r#""hello" or "move""#, other)),
    };
    let id = "a whole number from 0 up: the id of the request it answers, as 9";
    match get("id") {
        None => return Some(format!("`id` is missing: it is {id}")),
        Some(value) if value.as_u64().is_none() => return Some(wrong("id", id, value)),
        Some(_) => {}
    }
    match kind {
        "hello" => hello(get("name"), get("protocol")),
        _ => answer(get("tile"), get("end")).or_else(|| info(get("info"))),
    }
}

/// A move's `info`, which is optional: a string or an object when given.
fn info(info: Option<&Value>) -> Option<String> {
    match info {
        Some(v) if !v.is_string() && !v.is_object() && !v.is_null() => Some(wrong(
            "info",
            r#"a string or an object, as "depth 3" or {"depth": 3} (or absent)"#,
            v,
        )),
        _ => None,
    }
}

fn hello(name: Option<&Value>, protocol: Option<&Value>) -> Option<String> {
    match (name, protocol) {
        (Some(name), _) if !name.is_string() && !name.is_null() => {
            Some(wrong("name", "a string (or absent)", name))
        }
        (_, Some(p)) if !p.is_null() && p.as_u64().is_none_or(|v| v > u64::from(u32::MAX)) => {
            Some(wrong("protocol", "a whole number, as 1 (or absent)", p))
        }
        _ => None,
    }
}

fn answer(tile: Option<&Value>, end: Option<&Value>) -> Option<String> {
    const TILE: &str = "two numbers from 0 to 6, as [1, 6]";
    let is_tile = |v: &Value| {
        v.as_array().is_some_and(|pips| {
            pips.len() == 2 && pips.iter().all(|p| p.as_u64().is_some_and(|n| n <= 6))
        })
    };
    match (tile, end) {
        (None, _) => Some(format!("`tile` is missing: it is {TILE}")),
        (Some(tile), _) if !is_tile(tile) => Some(wrong("tile", TILE, tile)),
        (_, Some(end)) if !end.is_string() && !end.is_null() => Some(wrong(
            "end",
            r#"the name of an open end, as "left", or null for the lead"#,
            end,
        )),
        _ => None,
    }
}

/// "`FIELD` must be WHAT, not VALUE", the value shown short.
fn wrong(field: &str, what: &str, value: &Value) -> String {
    let shown = value.to_string();
    let shown = match shown.chars().count() > SHOWN {
        true => shown.chars().take(SHOWN).collect::<String>() + "...",
        false => shown,
    };
    let kind = match value {
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
        Value::Bool(_) => "true or false",
        Value::Null => "null",
    };
    match whole(value) {
        // protocol.md: ids and tiles are whole numbers written without a fraction.
        Some(written) => format!(
            "`{field}` must be {what}: write {written}, not {shown} (whole numbers take no \
             fraction)"
        ),
        None => format!("`{field}` must be {what}, not {kind} ({shown})"),
    }
}

/// `value` written without fractions, if it is a number with a zero fraction (`1.0`), or a
/// list of them (`[1.0, 6.0]`); `None` otherwise.
fn whole(value: &Value) -> Option<String> {
    let number = |v: &Value| match v {
        Value::Number(n) if !n.is_u64() && !n.is_i64() => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
            .map(|f| format!("{f:.0}")),
        _ => None,
    };
    match value {
        Value::Array(items) if !items.is_empty() && items.iter().any(|v| number(v).is_some()) => {
            let written: Option<Vec<String>> = items
                .iter()
                .map(|v| number(v).or_else(|| v.as_i64().map(|n| n.to_string())))
                .collect();
            written.map(|w| format!("[{}]", w.join(", ")))
        }
        other => number(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_is_named_with_what_it_should_hold() {
        let said = |line: &str| misread(line).unwrap_or_default();
        assert!(
            said(r#"{"type":"move","id":3,"tile":["1","2"],"end":"left"}"#)
                .starts_with("`tile` must be two numbers from 0 to 6, as [1, 6], not a list"),
        );
        assert!(
            said(r#"{"type":"move","id":"3","tile":[1,2]}"#)
                .starts_with("`id` must be a whole number")
        );
        assert!(said(r#"{"type":"move","id":3,"tile":[1,7]}"#).starts_with("`tile` must be"));
        assert!(said(r#"{"type":"move","id":3}"#).starts_with("`tile` is missing"));
        assert!(
            said(r#"{"type":"move","id":3,"tile":[1,2],"end":null,"info":42}"#)
                .starts_with("`info` must be a string or an object"),
        );
        assert!(
            said(r#"{"type":"move","id":3,"tile":[1,2],"end":5}"#).starts_with("`end` must be")
        );
        assert!(said(r#"{"id":3}"#).starts_with("`type` is missing"));
        assert!(said(r#"{"type":"moves","id":3}"#).starts_with("`type` must be"));
        assert!(said(r#"{"type":"hello","id":1,"name":7}"#).starts_with("`name` must be"));
        assert!(said(r#"{"type":"hello","id":1,"protocol":"1"}"#).starts_with("`protocol`"));
        assert_eq!(
            said(r#"{"type":"hello","id":1.0}"#),
            "`id` must be a whole number from 0 up: the id of the request it answers, as 9: \
             write 1, not 1.0 (whole numbers take no fraction)"
        );
        assert!(
            said(r#"{"type":"move","id":3,"tile":[1.0,6.0]}"#)
                .ends_with("write [1, 6], not [1.0,6.0] (whole numbers take no fraction)"),
        );
        assert!(said(r#"{"type":"move","id":1.5,"tile":[1,6]}"#).ends_with("not a number (1.5)"));
        assert_eq!(misread(r#"{"type":"move","id":3,"tile":[1,2]}"#), None);
        assert_eq!(misread("not json"), None);
        assert_eq!(misread("[1]"), None);
    }
}
