//! The data of the replay page, kept small so that a long game's page stays within a small
//! multiple of its log: each hand's deal and its final layout once (every tile numbered in the
//! order of play, so that the page draws the layout of any step, and fits the hand's final
//! layout, without moving a tile), and each step only what it changed.

use serde::Serialize;
use serde_json::Value;

use allfives_engine::layout::EndId;
use allfives_engine::protocol::Info;
use allfives_engine::rules::Seat;
use allfives_engine::tile::Tile;
use allfives_engine::view::Choice;

use crate::gamelog::Decision;
use crate::replay::drawing::Drawing;
use crate::replay::steps::{About, Document, Step};
use crate::replay::text::info_text;

/// Everything the page shows.
#[derive(Debug, Clone, Serialize)]
pub struct PageData {
    /// What is said of the game.
    #[serde(flatten)]
    pub about: About,
    /// Where a log that does not check out stops checking out: what comes before is shown.
    pub failed: Option<Failure>,
    /// The index page of the folder this game's page is in, if it is one of many.
    pub index: Option<String>,
    /// The game's name where its number in its match does not name it: a tournament game's id
    /// (`0-1/2/0`).
    pub name: Option<String>,
    /// The game's raw log, relative to the page (its folder's path, as a URL encodes it the
    /// page's script's job), where the page may link to it: not in one seat's view.
    pub log: Option<String>,
    /// The command that replays this game's log (`allfives replay LOG`, or `allfives replay
    /// DIR --game ID`), each word quoted for a shell, to which the page adds `--turn K`.
    pub replay: Option<String>,
    /// Each hand: its deal as the viewer may see it, and its final layout.
    pub hands: Vec<PageHand>,
    /// Every step, with only what it changed.
    pub steps: Vec<PageStep>,
}

/// The line of a log where verification stopped, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The line's number, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

/// A hand, as dealt, and its layout at its end.
#[derive(Debug, Clone, Serialize)]
pub struct PageHand {
    /// The hand's number, from 1.
    pub hand: u32,
    /// The seat that leads.
    pub leader: Seat,
    /// Each seat's tiles as dealt; `None` for tiles the viewer may not see.
    pub hands: Vec<Option<Vec<Tile>>>,
    /// How many tiles each seat was dealt.
    pub sizes: Vec<usize>,
    /// The boneyard in drawing order; `None` when hidden.
    pub boneyard: Option<Vec<Tile>>,
    /// How many tiles the boneyard holds at the start.
    pub boneyard_size: usize,
    /// The layout at the hand's end (each tile with its `order` of play).
    pub layout: Option<Drawing>,
}

/// A step: the event and what it changed (its hand and its move's number the page counts).
#[derive(Debug, Clone, Serialize)]
pub struct PageStep {
    /// The event's type (`play`, `draw`, `pass`, `fault`, `hand_start`, `hand_end`, `game_end`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The seat that acted, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// The tile played, or drawn (when the viewer may see it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile: Option<Tile>,
    /// The end a tile was played on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<EndId>,
    /// For a decision a bot was asked for: its number, as `--turn` counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// What a play scored, when it scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
    /// After a play: the sum of the open ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sum: Option<u32>,
    /// After a play: the open ends, each as `"left 6"`, or `"left 4 (counts 8)"` where an end
    /// counts other than its number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ends: Option<Vec<String>>,
    /// Each side's score, when the step changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<i32>>,
    /// How a play was decided (thinking time, forced, fallback, info; the request id is left
    /// out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The step in words, for what the page does not word itself (faults, hand and game ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub says: Option<String>,
    /// A fault's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<Value>,
    /// The info the bot sent with its move (or with the move that faulted), as the text replay
    /// shows it: a text as it is, an object as its compact JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<String>,
    /// What the bot wrote on stderr while it decided.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
    /// At a decision: each legal move as `[tile, end, points]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub legal: Vec<(Tile, Option<EndId>, u32)>,
    /// A hand's end: each seat's pips left and the hand's points, for the score table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
}

/// The page's data for a verified game's document.
pub fn page_data(doc: &Document) -> PageData {
    let mut hands = Vec::new();
    let mut steps = Vec::with_capacity(doc.steps.len());
    let mut scores: Vec<i32> = Vec::new();
    for (i, step) in doc.steps.iter().enumerate() {
        let kind = step.event["type"].as_str().unwrap_or("").to_string();
        if kind == "hand_start" {
            hands.push(hand_of(doc, i));
        }
        let changed = step.scores != scores;
        scores.clone_from(&step.scores);
        steps.push(compact(step, kind, changed));
    }
    PageData {
        about: doc.about.clone(),
        failed: None,
        index: None,
        name: None,
        log: None,
        replay: None,
        hands,
        steps,
    }
}

/// The hand that starts at step `start`: its deal, and its layout at its last step.
fn hand_of(doc: &Document, start: usize) -> PageHand {
    let first = &doc.steps[start];
    let last = doc.steps[start..]
        .iter()
        .take_while(|s| s.hand == first.hand)
        .filter(|s| s.layout.is_some())
        .last();
    PageHand {
        hand: first.hand,
        leader: first.event["leader"]
            .as_u64()
            .or(first.event["deal"]["leader"].as_u64())
            .unwrap_or(0) as Seat,
        hands: first.hands.clone(),
        sizes: first.hand_sizes.clone(),
        boneyard: first.boneyard.clone(),
        boneyard_size: first.boneyard_size,
        layout: last.and_then(|s| s.layout.clone()),
    }
}

fn compact(step: &Step, kind: String, scores_changed: bool) -> PageStep {
    let tile = serde_json::from_value(step.event["tile"].clone()).ok();
    let end = serde_json::from_value(step.event["end"].clone())
        .ok()
        .flatten();
    let play = kind == "play";
    let worded = !matches!(kind.as_str(), "play" | "draw" | "pass");
    PageStep {
        seat: step.seat,
        tile,
        end,
        turn: step.turn,
        points: step.event["points"]
            .as_u64()
            .filter(|&p| p > 0)
            .map(|p| p as u32),
        sum: play.then_some(step.sum),
        ends: play.then(|| {
            step.ends
                .iter()
                .map(|e| match u32::from(e.number) == e.counts {
                    true => format!("{} {}", e.end, e.number),
                    false => format!("{} {} (counts {})", e.end, e.number, e.counts),
                })
                .collect()
        }),
        scores: scores_changed.then(|| step.scores.clone()),
        decision: step.decision.clone().map(|d| Decision {
            id: None,
            info: None,
            ..d
        }),
        says: worded.then(|| step.says.clone()),
        fault: (kind == "fault").then(|| {
            let mut fault = step.event.clone();
            if let Value::Object(fields) = &mut fault {
                fields.remove("info");
            }
            fault
        }),
        info: info_of(step).map(|i| info_text(&i)),
        stderr: step.stderr.clone(),
        legal: step
            .legal
            .iter()
            .map(|c: &Choice| (c.tile, c.end, c.points))
            .collect(),
        summary: (kind == "hand_end").then(|| {
            serde_json::json!({
                "pips": step.event["pips"],
                "points": step.event["points"],
                "ending": step.event["ending"],
            })
        }),
        kind,
    }
}

/// The info of a step: its move's, or, at a fault, the info sent with the move refused.
fn info_of(step: &Step) -> Option<Info> {
    match step.decision.as_ref().and_then(|d| d.info.clone()) {
        Some(info) => Some(info),
        None => serde_json::from_value(step.event["info"].clone()).ok(),
    }
}
