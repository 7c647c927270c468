//! Real game logs with their fields mutated: the structure stays a log's, the values go wrong.

use allfives::gamelog::replay;
use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value};

/// Real logs (2, 3 and 4 players; spinner all, bonus, end of hand; a fallback and a forfeit), of
/// log formats 1 (two, four_teams) and 2 (the others).
const LOGS: [&str; 5] = [
    include_str!("../seeds/two.log"),
    include_str!("../seeds/three_all.log"),
    include_str!("../seeds/four_teams.log"),
    include_str!("../seeds/fallback.log"),
    include_str!("../seeds/forfeit.log"),
];

/// Strings a log's fields hold, and some they must not.
const WORDS: [&str; 24] = [
    "",
    "left",
    "right",
    "up",
    "down",
    "up2",
    "down7",
    "up8",
    "forfeit",
    "fallback",
    "banana",
    "header",
    "hand_start",
    "play",
    "draw",
    "pass",
    "hand_end",
    "game_end",
    "fault",
    "went_out",
    "blocked",
    "target",
    "max_hands",
    "too_long",
];

/// Numbers at the edges of seats, tiles, hands and integer types.
const NUMBERS: [i64; 14] = [0, 1, 2, 3, 4, 5, 6, 7, 27, 28, 29, 255, -1, i64::MIN];

/// The bytes choose a log and a few mutations of it; the result is replayed.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(mut lines) = mutated(&mut u) else {
        return;
    };
    lines.push(String::new());
    let _ = replay(&lines.join("\n"));
}

/// The seed logs' lines, parsed once.
fn parsed() -> &'static [Vec<Value>] {
    static PARSED: OnceLock<Vec<Vec<Value>>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let lines = |log: &str| {
            log.lines()
                .map(|l| serde_json::from_str(l).expect("a seed log line is JSON"))
                .collect()
        };
        LOGS.iter().map(|log| lines(log)).collect()
    })
}

fn mutated(u: &mut Unstructured) -> Result<Vec<String>> {
    let mut lines = u.choose(parsed())?.clone();
    let mut cut = None;
    for _ in 0..u.int_in_range(1..=6)? {
        let n = lines.len();
        if n == 0 {
            break;
        }
        let at = u.choose_index(n)?;
        match u.int_in_range(0..=5)? {
            0 => *field(u, &mut lines[at])? = value(u)?,
            1 => {
                if let Some(object) = field(u, &mut lines[at])?.as_object_mut() {
                    remove_key(u, object)?;
                }
            }
            2 => drop(lines.remove(at)),
            3 => lines.insert(u.choose_index(n + 1)?, lines[at].clone()),
            4 => lines.swap(at, u.choose_index(n)?),
            _ => cut = Some((at, u.arbitrary::<usize>()?)),
        }
    }
    let mut text: Vec<String> = lines.iter().map(Value::to_string).collect();
    // A line cut short, as a killed referee might leave the last one.
    if let Some((at, len)) = cut.filter(|(at, _)| *at < text.len()) {
        let line = &mut text[at];
        let mut end = len % (line.len() + 1);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
    }
    Ok(text)
}

/// A field somewhere inside `value`, reached by walking down a few keys and indexes.
fn field<'a>(u: &mut Unstructured, mut value: &'a mut Value) -> Result<&'a mut Value> {
    loop {
        let len = match &*value {
            Value::Object(object) => object.len(),
            Value::Array(items) => items.len(),
            _ => 0,
        };
        if len == 0 || !u.ratio(3, 4)? {
            return Ok(value);
        }
        let index = u.choose_index(len)?;
        value = match value {
            Value::Object(object) => object.values_mut().nth(index).expect("below the length"),
            Value::Array(items) => &mut items[index],
            other => return Ok(other),
        };
    }
}

fn remove_key(u: &mut Unstructured, object: &mut Map<String, Value>) -> Result<()> {
    if !object.is_empty() {
        let index = u.choose_index(object.len())?;
        let key = object
            .keys()
            .nth(index)
            .cloned()
            .expect("an index below the length");
        object.remove(&key);
    }
    Ok(())
}

/// A value to put in a field: a near or edge number, a telling word, a tile, or anything.
fn value(u: &mut Unstructured) -> Result<Value> {
    Ok(match u.int_in_range(0..=7)? {
        0 => Value::from(*u.choose(&NUMBERS)?),
        1 => Value::from(u.arbitrary::<u64>()?),
        2 => Value::from(*u.choose(&WORDS)?),
        3 => Value::from(u.arbitrary::<String>()?),
        4 => Value::from(vec![u.int_in_range(0u8..=7)?, u.int_in_range(0u8..=7)?]),
        5 => Value::from(u.arbitrary::<bool>()?),
        6 => Value::Null,
        _ => Value::from(Vec::<Value>::new()),
    })
}
