//! A verified game in a terminal: each hand's deal, each move with the layout drawn in text,
//! the open ends and what each counts, the sum, the points, the scores, draws, passes and faults.

use std::fmt::Write;

use allfives_engine::rules::Seat;

use crate::gamelog::describe::{count, tiles};
use allfives_engine::layout::OpenEnd;
use allfives_engine::protocol::Info;

use crate::replay::drawing::{Arm, Drawing, Laid};
use crate::replay::steps::{Document, Step};
use crate::replay::turn::Position;

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

/// Colours text, or leaves it plain.
pub struct Paint(pub bool);

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
    // A log is a file a user may edit: its names are made safe for a terminal.
    let names: Vec<String> = doc
        .about
        .names()
        .iter()
        .map(|n| crate::text::terminal(n))
        .collect();
    let who = |seat: Seat| format!("seat {seat} ({})", names.get(seat).map_or("?", |n| n));
    let labels = side_labels(&names, doc.about.header["rules"]["teams"] == true);
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
            step_text(&mut text, doc.about.seat, step, &who, &labels, &paint);
        }
    }
    if !started {
        let _ = writeln!(text, "(the game has no such hand or move)");
    }
    match (doc.about.complete, doc.about.torn) {
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
    let h = &doc.about.header;
    let players: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(seat, n)| format!("{n} (seat {seat})"))
        .collect();
    let mut text = String::new();
    let head = format!("game {}: {}", h["game"], players.join(" vs "));
    wrapped(&mut text, "", &paint.bold(&head));
    let rules = &h["rules"];
    let line = format!(
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
    wrapped(&mut text, "", &line);
    match doc.about.seat {
        Some(seat) => {
            let _ = writeln!(text, "as seat {seat} saw it");
        }
        None => {
            let _ = writeln!(text, "seed {}; {}", h["seed"], doc.about.deals);
        }
    }
    text
}

fn step_text(
    text: &mut String,
    viewer: Option<Seat>,
    step: &Step,
    who: &dyn Fn(Seat) -> String,
    labels: &[String],
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
            if let Some(d) = &step.decision {
                if d.forced {
                    how.push("only move".into());
                }
                if d.fallback {
                    how.push("the bot faulted: the referee played for it".into());
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
            let line = format!(
                "move {}: {} plays {tile} {place}: sum {}, {scored}{how}",
                step.move_number.unwrap_or(0),
                who(seat),
                step.sum,
            );
            wrapped(text, "", &line);
            table_text(text, step.layout.as_ref(), &step.ends, &step.scores, labels);
            let info = step.decision.as_ref().and_then(|d| d.info.as_ref());
            thinking_text(text, info, &step.stderr, paint);
            if viewer.is_some() {
                hands_text(text, step, who);
            }
        }
        "draw" => {
            let drawn = step.event["tile"]
                .as_array()
                .map_or("a tile".to_string(), |t| format!("[{}|{}]", t[0], t[1]));
            let line = format!(
                "{} draws {drawn} ({} left in the boneyard)",
                who(seat),
                step.boneyard_size
            );
            wrapped(text, "  ", &line);
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
            wrapped(text, "  ", &paint.warn(&line));
            // The info the bot sent with a move that faulted (an illegal or late move).
            let info: Option<Info> = serde_json::from_value(step.event["info"].clone()).ok();
            thinking_text(text, info.as_ref(), &step.stderr, paint);
        }
        "hand_end" => hand_end_text(text, step, who, labels, paint),
        "game_end" => {
            let line = format!(
                "game over: {}",
                step.says.trim_start_matches("the game ends: ")
            );
            text.push('\n');
            wrapped(text, "", &paint.bold(&line));
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
        wrapped(text, "  ", &format!("{} holds {shown}", who(seat)));
    }
    let boneyard = match &step.boneyard {
        Some(b) => tiles(b),
        None => count(step.boneyard_size as u64, "tile"),
    };
    wrapped(text, "  ", &format!("boneyard {boneyard}"));
}

fn hand_end_text(
    text: &mut String,
    step: &Step,
    who: &dyn Fn(Seat) -> String,
    labels: &[String],
    paint: &Paint,
) {
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
        let line = format!(
            "{} is left with {} ({} pips)",
            who(seat),
            if held.is_empty() {
                "nothing".into()
            } else {
                held.join(" ")
            },
            summary["pips"][seat]
        );
        wrapped(text, "  ", &line);
    }
    let points: Vec<String> = summary["points"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(ToString::to_string)
        .collect();
    let line = format!(
        "end-of-hand points {}; scores: {}",
        points.join(", "),
        scores_text(&step.scores, labels)
    );
    wrapped(text, "  ", &line);
}

/// The widest line the text replay writes (a layout wider than this is cut into bands).
pub const WIDTH: usize = 100;

/// Each side's name for the scores: a bot, or a team (`team 0+2 (a+c)`).
pub fn side_labels(names: &[String], teams: bool) -> Vec<String> {
    match teams {
        false => names.to_vec(),
        true => (0..2)
            .map(|side| {
                let seats: Vec<usize> = (side..names.len()).step_by(2).collect();
                let numbers: Vec<String> = seats.iter().map(ToString::to_string).collect();
                let bots: Vec<&str> = seats.iter().map(|&s| names[s].as_str()).collect();
                format!("team {} ({})", numbers.join("+"), bots.join("+"))
            })
            .collect(),
    }
}

/// The scores, each labelled with its side.
fn scores_text(scores: &[i32], labels: &[String]) -> String {
    let each: Vec<String> = scores
        .iter()
        .enumerate()
        .map(|(side, s)| format!("{} {s}", labels.get(side).map_or("?", |l| l)))
        .collect();
    each.join(", ")
}

/// The layout drawn (in bands of at most [`WIDTH`] columns), the open ends and the scores.
pub fn table_text(
    text: &mut String,
    layout: Option<&Drawing>,
    ends: &[OpenEnd],
    scores: &[i32],
    labels: &[String],
) {
    if let Some(drawing) = layout {
        let rows = cross(drawing);
        let widest = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
        let band = WIDTH - 4;
        for start in (0..widest).step_by(band) {
            if start > 0 {
                let _ = writeln!(text, "    ... the layout goes on:");
            }
            for row in &rows {
                let part: String = row.chars().skip(start).take(band).collect();
                if !part.trim().is_empty() {
                    let _ = writeln!(text, "    {}", part.trim_end());
                }
            }
        }
    }
    let sum: u32 = ends.iter().map(|e| e.counts).sum();
    let shown: Vec<String> = ends
        .iter()
        .map(|e| format!("{} {} (counts {})", e.end, e.number, e.counts))
        .collect();
    let line = format!(
        "ends: {}; sum {sum}; scores: {}",
        shown.join(", "),
        scores_text(scores, labels)
    );
    wrapped(text, "  ", &line);
}

/// What the bot said it was thinking (its move's `info`) and wrote on stderr meanwhile.
pub fn thinking_text(text: &mut String, info: Option<&Info>, stderr: &[String], paint: &Paint) {
    for line in stderr {
        let shown = format!("stderr: {}", crate::text::terminal(line));
        wrapped(text, "  ", &paint.dim(&shown));
    }
    if let Some(info) = info {
        let shown = crate::text::terminal(&info_text(info));
        wrapped(text, "  ", &paint.dim(&format!("info: {shown}")));
    }
}

/// A bot's info as the replays show it, before it is made safe for a terminal or a page: a
/// text as it is, an object as its compact JSON.
pub fn info_text(info: &Info) -> String {
    match info {
        Info::Text(t) => t.clone(),
        Info::Object(_) => serde_json::to_string(info).unwrap_or_default(),
    }
}

/// Writes `line` after `indent`, broken at spaces so that no line passes [`WIDTH`] columns;
/// the lines it goes on to are indented two more, and a word too long for a line is cut.
pub fn wrapped(text: &mut String, indent: &str, line: &str) {
    let room = WIDTH - indent.len();
    let (mut current, mut width, mut fresh) = (String::new(), 0, true);
    for word in line.split(' ') {
        let mut word = word.to_string();
        let mut w = visible(&word);
        if !fresh && width + 1 + w > room {
            let _ = writeln!(text, "{indent}{current}");
            (current, width, fresh) = ("  ".to_string(), 2, true);
        }
        if !fresh {
            current.push(' ');
            width += 1;
        }
        while width + w > room {
            let (head, rest) = split_at_column(&word, room - width);
            let _ = writeln!(text, "{indent}{current}{head}");
            word = rest.to_string();
            w = visible(&word);
            (current, width) = ("  ".to_string(), 2);
        }
        current.push_str(&word);
        width += w;
        fresh = false;
    }
    let _ = writeln!(text, "{indent}{current}");
}

/// `word` cut where it has taken `columns` columns, never inside an escape that
/// [`crate::text::terminal`] writes (`\x1b`, `\u{202e}`, `\n`) nor inside a colour escape:
/// each is shown whole on one line. At least one piece goes first, however wide.
fn split_at_column(word: &str, columns: usize) -> (&str, &str) {
    let (mut at, mut width) = (0, 0);
    while at < word.len() {
        let piece = piece_at(&word[at..]);
        let w = visible(&word[at..at + piece]);
        if width + w > columns && at > 0 {
            break;
        }
        (at, width) = (at + piece, width + w);
    }
    word.split_at(at)
}

/// The length in bytes of the piece `s` starts with: a colour escape (ESC to `m`), an escape
/// as `terminal` writes it, or one character.
fn piece_at(s: &str) -> usize {
    let bytes = s.as_bytes();
    let hex = |from: usize, n: usize| {
        bytes.len() >= from + n && bytes[from..from + n].iter().all(u8::is_ascii_hexdigit)
    };
    match bytes {
        [0x1b, ..] => s.find('m').map_or(s.len(), |m| m + 1),
        [b'\\', b't' | b'n' | b'r', ..] => 2,
        [b'\\', b'x', ..] if hex(2, 2) => 4,
        [b'\\', b'u', b'{', ..] => match s.find('}') {
            Some(end) if (4..=9).contains(&end) && hex(3, end - 3) => end + 1,
            _ => 1,
        },
        _ => s.chars().next().map_or(0, char::len_utf8),
    }
}

/// The columns a word takes, its colour escapes left out.
fn visible(word: &str) -> usize {
    let mut n = 0;
    let mut escape = false;
    for c in word.chars() {
        match (escape, c) {
            (false, '\x1b') => escape = true,
            (true, 'm') => escape = false,
            (true, _) => {}
            (false, _) => n += 1,
        }
    }
    n
}

/// The layout as text rows, drawn as it lies on the table: the line of play across, every
/// double laid crosswise (three rows tall, its numbers above and below the line), a spinner's
/// short arms up and down from it, and the arms of a spinner on a short arm across from it. An
/// arm that would run into tiles already drawn is listed beneath instead, so that what is drawn
/// is never wrong.
pub fn cross(drawing: &Drawing) -> Vec<String> {
    let mut canvas = Canvas::default();
    let lead = &drawing.lead;
    let width = canvas.tile(lead, 0, 0, Way::Right);
    let mut beneath = Vec::new();
    canvas.arm(&drawing.left, 0, 0, Way::Left, &mut beneath);
    canvas.arm(&drawing.right, 0, width, Way::Right, &mut beneath);
    canvas.branches(lead, 0, 0, Way::Right, &mut beneath);
    let mut rows = canvas.rows();
    rows.extend(beneath);
    rows
}

/// The way an arm grows on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    Left,
    Right,
    Up,
    Down,
}

impl Way {
    fn across(self) -> bool {
        matches!(self, Way::Left | Way::Right)
    }
}

/// Characters placed at (row, column); a space is left transparent.
#[derive(Default)]
struct Canvas {
    cells: std::collections::BTreeMap<(i32, i32), char>,
}

impl Canvas {
    /// Puts `lines` with their top-left corner at (row, col), unless a cell is taken.
    fn put(&mut self, row: i32, col: i32, lines: &[String]) -> bool {
        let cells: Vec<((i32, i32), char)> = lines
            .iter()
            .enumerate()
            .flat_map(|(r, line)| {
                line.chars()
                    .enumerate()
                    .filter(|(_, c)| *c != ' ')
                    .map(move |(c, ch)| ((row + r as i32, col + c as i32), ch))
            })
            .collect();
        if cells.iter().any(|(at, _)| self.cells.contains_key(at)) {
            return false;
        }
        self.cells.extend(cells);
        true
    }

    /// Draws a tile in an arm growing `way` at (row, col), its left edge at col; returns its
    /// width, 0 if it could not be drawn.
    fn tile(&mut self, laid: &Laid, row: i32, col: i32, way: Way) -> i32 {
        let (near, far) = (laid.inner, laid.outer);
        let lines: Vec<String> = match (laid.tile.is_double(), way.across()) {
            (true, true) => vec![format!("┌{near}┐"), "├─┤".to_string(), format!("└{near}┘")],
            (_, true) if way == Way::Left => vec![face(far, near)],
            (_, true) => vec![face(near, far)],
            (_, false) if way == Way::Up => vec![face(far, near)],
            (_, false) => vec![face(near, far)],
        };
        let top = if lines.len() == 3 { row - 1 } else { row };
        let width = lines[0].chars().count() as i32;
        match self.put(top, col, &lines) {
            true => width,
            false => 0,
        }
    }

    /// Draws an arm growing `way` from a tile at (row, col): across, from its edge at `col`;
    /// up or down, from that tile's row, centred on `col`.
    fn arm(&mut self, arm: &Arm, row: i32, col: i32, way: Way, beneath: &mut Vec<String>) {
        let (mut row, mut col) = (row, col);
        for (k, laid) in arm.tiles.iter().enumerate() {
            let width = face_width(laid, way);
            let (r, c) = match way {
                Way::Left => (row, col - width),
                Way::Right => (row, col),
                Way::Up => (row - 1, col - width / 2),
                Way::Down => (row + 1, col - width / 2),
            };
            if self.tile(laid, r, c, way) == 0 {
                beneath.push(listed(arm, k));
                return;
            }
            self.branches(laid, r, c, way, beneath);
            (row, col) = match way {
                Way::Left => (row, c),
                Way::Right => (row, c + width),
                Way::Up | Way::Down => (r, col),
            };
        }
    }

    /// Draws a spinner's short arms: up and down from a tile across, left and right (up and
    /// down, by name) from a tile in a column.
    fn branches(&mut self, laid: &Laid, row: i32, col: i32, way: Way, beneath: &mut Vec<String>) {
        let width = face_width(laid, way);
        for branch in &laid.branches {
            let up = branch.end.name().starts_with("up");
            match (way.across(), up) {
                (true, true) => self.arm(branch, row - 1, col + width / 2, Way::Up, beneath),
                (true, false) => self.arm(branch, row + 1, col + width / 2, Way::Down, beneath),
                (false, true) => self.arm(branch, row, col, Way::Left, beneath),
                (false, false) => self.arm(branch, row, col + width, Way::Right, beneath),
            }
        }
    }

    fn rows(&self) -> Vec<String> {
        let Some(((top, _), _)) = self.cells.first_key_value() else {
            return Vec::new();
        };
        let bottom = self.cells.keys().map(|(r, _)| *r).max().unwrap_or(*top);
        let left = self.cells.keys().map(|(_, c)| *c).min().unwrap_or(0);
        (*top..=bottom)
            .map(|row| {
                let mut line = String::new();
                let mut at = left;
                for (&(_, col), &ch) in self.cells.range((row, i32::MIN)..=(row, i32::MAX)) {
                    line.extend(std::iter::repeat_n(' ', (col - at) as usize));
                    line.push(ch);
                    at = col + 1;
                }
                line
            })
            .collect()
    }
}

/// How wide a tile is drawn in an arm growing `way`: a double across a line, 3; else 5.
fn face_width(laid: &Laid, way: Way) -> i32 {
    match laid.tile.is_double() && way.across() {
        true => 3,
        false => 5,
    }
}

/// An arm that could not be drawn, from its `k`-th tile on, as a line beneath the drawing.
fn listed(arm: &Arm, k: usize) -> String {
    let faces: Vec<String> = arm.tiles[k..]
        .iter()
        .map(|t| face(t.inner, t.outer))
        .collect();
    format!(
        "  (no room to draw) {} goes on: {}",
        arm.end,
        faces.join("")
    )
}

fn face(a: u8, b: u8) -> String {
    format!("[{a}|{b}]")
}

/// A decision as its bot met it: the table (layout, ends, scores), the bot's tiles, every legal
/// move with what it would have scored, then the fault, the move played and the bot's info.
pub fn decision(position: &Position, turn: u32, names: &[String], paint: &Paint) -> String {
    let game = &position.game;
    let seat = position.seat;
    let view = game.view(seat);
    // A log is a file a user may edit: its names are made safe for a terminal, as in [`render`].
    let names: Vec<String> = names.iter().map(|n| crate::text::terminal(n)).collect();
    let who = |s: Seat| format!("seat {s} ({})", names.get(s).map_or("?", |n| n));
    let labels = side_labels(&names, game.rules().teams);
    let mut text = String::new();
    let id = position
        .id
        .map_or("its id is not logged".to_string(), |id| {
            format!("request id {id}")
        });
    let head = format!(
        "turn {turn}: {} to move in hand {}, after {} ({id}, {} ms to answer)",
        who(seat),
        view.hand_number,
        count(view.layout.len() as u64, "tile"),
        position.time_left_ms
    );
    wrapped(&mut text, "", &paint.bold(&head));
    let placements: Vec<_> = game.layout().placements().collect();
    let drawing = crate::replay::drawing::draw(&placements);
    table_text(
        &mut text,
        drawing.as_ref(),
        &view.ends,
        &view.scores,
        &labels,
    );
    wrapped(&mut text, "  ", &format!("it holds {}", tiles(&view.hand)));
    for choice in &view.legal {
        let line = format!("could play {}", position.describe(choice.to_move()));
        wrapped(&mut text, "  ", &line);
    }
    if let Some(fault) = &position.fault {
        let cost = match fault.forfeit {
            true => "; it cost the game",
            false => "",
        };
        let line = format!("{} faults: {}{cost}", who(seat), fault.fault);
        wrapped(&mut text, "  ", &paint.warn(&line));
    }
    match (position.played, position.decision.fallback) {
        (Some(mv), true) => {
            let line = format!(
                "the referee played {} for it (the first legal move)",
                position.describe(mv)
            );
            wrapped(&mut text, "  ", &line);
        }
        (Some(mv), false) => {
            let took = position.decision.time_us.map_or(String::new(), |us| {
                format!(" ({:.3} ms)", us as f64 / 1000.0)
            });
            wrapped(
                &mut text,
                "  ",
                &format!("played {}{took}", position.describe(mv)),
            );
        }
        (None, _) => {}
    }
    // A move the bot chose carries its info; a move that faulted, its fault does.
    let info = position
        .decision
        .info
        .as_ref()
        .or(position.fault.as_ref().and_then(|f| f.fault.info.as_ref()));
    thinking_text(&mut text, info, &position.stderr, paint);
    text
}
