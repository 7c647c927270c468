//! A verified game in a terminal: each hand's deal, each move with the layout drawn in text,
//! the open ends and what each counts, the sum, the points, the scores, draws, passes and faults.

use std::fmt::Write;

use allfives_engine::rules::Seat;

use crate::gamelog::describe::{self, count, tiles};
use crate::replay::drawing::{Arm, Drawing, Laid};
use crate::replay::steps::{Document, Step};

/// What to show, and how.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// Start at this hand.
    pub hand: Option<u32>,
    /// Start at this move of the hand.
    pub from_move: Option<u32>,
    /// Colour (ANSI escapes).
    pub colour: bool,
}

struct Paint(bool);

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        match self.0 {
            true => format!("\x1b[{code}m{text}\x1b[0m"),
            false => text.to_string(),
        }
    }
    fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }
    fn good(&self, text: &str) -> String {
        self.wrap("32", text)
    }
    fn warn(&self, text: &str) -> String {
        self.wrap("33", text)
    }
    fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }
}

/// The game as text, from the chosen hand and move on.
pub fn render(doc: &Document, options: TextOptions) -> String {
    let paint = Paint(options.colour);
    let names: Vec<String> = doc.header["seats"]
        .as_array()
        .map(|seats| {
            seats
                .iter()
                // A log is a file a user may edit: its names are made safe for a terminal.
                .map(|s| crate::text::terminal(s["bot"].as_str().unwrap_or("?")))
                .collect()
        })
        .unwrap_or_default();
    let who = |seat: Seat| format!("seat {seat} ({})", names.get(seat).map_or("?", |n| n));
    let mut text = title(doc, &names, &paint);
    let from = |step: &Step| match (options.hand, options.from_move) {
        (None, None) => true,
        (hand, from_move) => {
            let hand = hand.unwrap_or(1);
            step.hand > hand
                || (step.hand == hand
                    && from_move.is_none_or(|m| m <= 1 || step.move_number.is_some_and(|n| n >= m)))
        }
    };
    let mut started = false;
    for step in &doc.steps {
        if !started && from(step) && step.event["type"] != "hand_start" && step.hand > 0 {
            let _ = writeln!(
                text,
                "\n{}",
                paint.bold(&format!(
                    "hand {}, from move {}:",
                    step.hand,
                    step.move_number.unwrap_or(1)
                ))
            );
        }
        started = started || from(step);
        if started {
            step_text(&mut text, doc.seat, step, &who, &paint);
        }
    }
    if !started {
        let _ = writeln!(text, "(the game has no such hand or move)");
    }
    match (doc.complete, doc.torn) {
        (true, _) => {}
        (false, Some(line)) => {
            let _ = writeln!(
                text,
                "{}",
                paint.warn(&format!(
                    "the log stops here: line {line} is cut off mid-way (the referee was stopped)"
                ))
            );
        }
        (false, None) => {
            let _ = writeln!(
                text,
                "{}",
                paint.warn("the log stops before the game's end (the referee was stopped)")
            );
        }
    }
    text
}

fn title(doc: &Document, names: &[String], paint: &Paint) -> String {
    let h = &doc.header;
    let players: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(seat, n)| format!("{n} (seat {seat})"))
        .collect();
    let mut text = paint.bold(&format!("game {}: {}", h["game"], players.join(" vs ")));
    text.push('\n');
    let rules = &h["rules"];
    let _ = writeln!(
        text,
        "rules: {} players{}, {} tiles each, spinner {}, hand end {}, target {}, finish {}, at most {}",
        rules["players"],
        if rules["teams"] == true {
            " in teams"
        } else {
            ""
        },
        rules["hand_size"],
        rules["spinner"].as_str().unwrap_or("?"),
        rules["hand_end"].as_str().unwrap_or("?"),
        rules["target"],
        rules["finish"].as_str().unwrap_or("?"),
        count(rules["max_hands"].as_u64().unwrap_or(0), "hand")
    );
    match doc.seat {
        Some(seat) => {
            let _ = writeln!(text, "as seat {seat} saw it");
        }
        None => {
            let _ = writeln!(text, "seed {}; {}", h["seed"], doc.deals);
        }
    }
    text
}

fn step_text(
    text: &mut String,
    viewer: Option<Seat>,
    step: &Step,
    who: &dyn Fn(Seat) -> String,
    paint: &Paint,
) {
    let kind = step.event["type"].as_str().unwrap_or("");
    let seat = step.seat.unwrap_or_default();
    match kind {
        "hand_start" => {
            let leader = step.event["leader"]
                .as_u64()
                .or(step.event["deal"]["leader"].as_u64())
                .unwrap_or(0) as Seat;
            let _ = writeln!(
                text,
                "\n{}",
                paint.bold(&format!("hand {}: {} leads", step.hand, who(leader)))
            );
            hands_text(text, step, who);
        }
        "play" => {
            let mut how = Vec::new();
            if let Some(turn) = step.turn {
                how.push(format!("turn {turn}"));
            }
            if let Some(d) = step.decision {
                if d.forced {
                    how.push("only move".into());
                }
                if d.fallback {
                    how.push("played by the referee after a fault".into());
                }
                if let Some(us) = d.time_us {
                    how.push(format!("{:.3} ms", us as f64 / 1000.0));
                }
            }
            let tile = step.event["tile"]
                .as_array()
                .map_or(String::new(), |t| format!("[{}|{}]", t[0], t[1]));
            let place = step.event["end"]
                .as_str()
                .map_or("leads".to_string(), |e| format!("on {e}"));
            let points = step.event["points"].as_u64().unwrap_or(0);
            let scored = match points {
                0 => "no points".to_string(),
                p => paint.good(&format!("scores {p}")),
            };
            let how = match how.is_empty() {
                true => String::new(),
                false => paint.dim(&format!("  ({})", how.join(", "))),
            };
            let _ = writeln!(
                text,
                "move {}: {} plays {tile} {place}: sum {}, {scored}{how}",
                step.move_number.unwrap_or(0),
                who(seat),
                step.sum,
            );
            if let Some(drawing) = &step.layout {
                for row in cross(drawing) {
                    let _ = writeln!(text, "    {}", row.trim_end());
                }
            }
            let ends: Vec<String> = step
                .ends
                .iter()
                .map(|e| format!("{} {} (counts {})", e.end, e.number, e.counts))
                .collect();
            let _ = writeln!(
                text,
                "  ends: {}; sum {}; scores {}",
                ends.join(", "),
                step.sum,
                describe::list(&step.scores)
            );
            if viewer.is_some() {
                hands_text(text, step, who);
            }
        }
        "draw" => {
            let drawn = step.event["tile"]
                .as_array()
                .map_or("a tile".to_string(), |t| format!("[{}|{}]", t[0], t[1]));
            let _ = writeln!(
                text,
                "  {} draws {drawn} ({} left in the boneyard)",
                who(seat),
                step.boneyard_size
            );
        }
        "pass" => {
            let _ = writeln!(text, "  {} passes", who(seat));
        }
        "fault" => {
            let what = step
                .says
                .split_once(" faults: ")
                .map_or(step.says.as_str(), |(_, w)| w);
            let line = format!("{} faults: {what}", who(seat));
            let _ = writeln!(text, "  {}", paint.warn(&line));
        }
        "hand_end" => hand_end_text(text, step, who, paint),
        "game_end" => {
            let _ = writeln!(
                text,
                "\n{}",
                paint.bold(&format!(
                    "game over: {}",
                    step.says.trim_start_matches("the game ends: ")
                ))
            );
        }
        _ => {}
    }
}

fn hands_text(text: &mut String, step: &Step, who: &dyn Fn(Seat) -> String) {
    for (seat, hand) in step.hands.iter().enumerate() {
        let shown = match hand {
            Some(tiles_held) => tiles(tiles_held),
            None => count(step.hand_sizes[seat] as u64, "tile"),
        };
        let _ = writeln!(text, "  {} holds {shown}", who(seat));
    }
    let boneyard = match &step.boneyard {
        Some(b) => tiles(b),
        None => count(step.boneyard_size as u64, "tile"),
    };
    let _ = writeln!(text, "  boneyard {boneyard}");
}

fn hand_end_text(text: &mut String, step: &Step, who: &dyn Fn(Seat) -> String, paint: &Paint) {
    let summary = &step.event;
    let how = match summary["ending"]["kind"].as_str() {
        Some("went_out") => format!(
            "{} went out",
            who(summary["ending"]["seat"].as_u64().unwrap_or(0) as Seat)
        ),
        _ => "blocked".to_string(),
    };
    let _ = writeln!(
        text,
        "{}",
        paint.bold(&format!("hand {} over: {how}", step.hand))
    );
    let empty = Vec::new();
    let left = summary["hands"].as_array().unwrap_or(&empty);
    for (seat, hand) in left.iter().enumerate() {
        let held: Vec<String> = hand
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .map(|t| format!("[{}|{}]", t[0], t[1]))
            .collect();
        let _ = writeln!(
            text,
            "  {} is left with {} ({} pips)",
            who(seat),
            if held.is_empty() {
                "nothing".into()
            } else {
                held.join(" ")
            },
            summary["pips"][seat]
        );
    }
    let points: Vec<String> = summary["points"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(ToString::to_string)
        .collect();
    let _ = writeln!(
        text,
        "  end-of-hand points {}; scores {}",
        points.join(", "),
        describe::list(&step.scores)
    );
}

/// The layout as text rows: the line of play across, with the short arms of the spinners on it
/// up and down in their columns; spinners off a short arm are listed beneath, arm by arm.
pub fn cross(drawing: &Drawing) -> Vec<String> {
    let mut cells: Vec<(String, &Laid)> = drawing
        .left
        .tiles
        .iter()
        .rev()
        .map(|l| (face(l.outer, l.inner), l))
        .collect();
    cells.push((face(drawing.lead.inner, drawing.lead.outer), &drawing.lead));
    cells.extend(
        drawing
            .right
            .tiles
            .iter()
            .map(|l| (face(l.inner, l.outer), l)),
    );
    let mut line = String::new();
    let mut columns: Vec<(usize, &Laid)> = Vec::new();
    for (text, laid) in cells {
        if !laid.branches.is_empty() {
            columns.push((line.len(), laid));
        }
        line.push_str(&text);
    }
    let column_rows = |up: bool| -> Vec<String> {
        let height = columns
            .iter()
            .filter_map(|(_, l)| arm_of(l, up))
            .map(|a| a.tiles.len())
            .max()
            .unwrap_or(0);
        (0..height)
            .map(|row| {
                let mut text = String::new();
                for (col, laid) in &columns {
                    if let Some(t) = arm_of(laid, up).and_then(|a| a.tiles.get(row)) {
                        let face = match up {
                            true => face(t.outer, t.inner),
                            false => face(t.inner, t.outer),
                        };
                        text.push_str(&" ".repeat(col.saturating_sub(text.len())));
                        text.push_str(&face);
                    }
                }
                text
            })
            .collect()
    };
    let mut rows: Vec<String> = column_rows(true).into_iter().rev().collect();
    rows.push(line);
    rows.extend(column_rows(false));
    let mut nested = Vec::new();
    for (_, laid) in &columns {
        for arm in &laid.branches {
            nested_arms(arm, &mut nested);
        }
    }
    rows.extend(nested);
    rows
}

/// A spinner's `up` arm (or its `down` arm), if it has tiles.
fn arm_of(laid: &Laid, up: bool) -> Option<&Arm> {
    laid.branches
        .iter()
        .find(|a| a.end.name().starts_with("up") == up)
}

/// Lists the arms of spinners that sit on a short arm (their arms run across it).
fn nested_arms(arm: &Arm, out: &mut Vec<String>) {
    for laid in &arm.tiles {
        for branch in &laid.branches {
            let faces: Vec<String> = branch
                .tiles
                .iter()
                .map(|t| face(t.inner, t.outer))
                .collect();
            out.push(format!(
                "  off {} on {}: {} {}",
                face(laid.inner, laid.outer),
                arm.end,
                branch.end,
                faces.join("")
            ));
            nested_arms(branch, out);
        }
    }
}

fn face(a: u8, b: u8) -> String {
    format!("[{a}|{b}]")
}
