//! Hand-written JSON for what the referee sends on every move (a seat's turn, the events of a
//! hand) and a fast reading of the move a bot answers with. The bytes are exactly what
//! `serde_json` writes for the same [`ToBot`](crate::protocol::ToBot) message (tests hold them
//! to it), at a fraction of the cost: field names are literals rather than escaped strings, a
//! turn is written straight from the [`Game`] without an owned [`View`](crate::view::View), and
//! the parts of a turn that only grow during a hand (the layout and each seat's history) are
//! kept as JSON and extended from turn to turn.

use crate::game::{Game, Move, Play, Status};
use crate::layout::{EndId, Placement};
use crate::protocol::FromBot;
use crate::rules::Seat;
use crate::tile::{Tile, TileSet};
use crate::view::{Choice, Seen};

/// Writes `ToBot::Turn` lines for the seats of one game, keeping the JSON of what only grows
/// during a hand from one turn to the next.
///
/// One writer serves one game: it notices a new hand, but not a different game.
#[derive(Debug, Default)]
pub struct TurnWriter {
    /// `"rules":{...}`, written once.
    rules: Vec<u8>,
    /// The hand the kept JSON belongs to.
    hand: u32,
    /// The placements so far, as JSON array items.
    layout: Grown,
    /// Each seat's history so far, as JSON array items; `count` counts the hand's events read.
    history: Vec<Grown>,
    /// Scratch space for the legal moves.
    moves: Vec<Move>,
    choices: Vec<Choice>,
}

/// JSON array items kept for reuse, and how much of their source they cover.
#[derive(Debug, Default)]
struct Grown {
    json: Vec<u8>,
    count: usize,
}

impl Grown {
    fn clear(&mut self) {
        self.json.clear();
        self.count = 0;
    }

    /// Starts a new item, with a comma after the previous one.
    fn item(&mut self) -> &mut Vec<u8> {
        if !self.json.is_empty() {
            self.json.push(b',');
        }
        &mut self.json
    }
}

impl TurnWriter {
    /// A writer for a new game.
    pub fn new() -> TurnWriter {
        TurnWriter::default()
    }

    /// Appends the line (with its newline) asking `seat` for a move: request `id`, with
    /// `time_left_ms` to answer. The same bytes as `serde_json` writes for `ToBot::Turn` with
    /// `game.view(seat)`, plus the newline.
    pub fn write_turn(
        &mut self,
        game: &Game,
        seat: Seat,
        id: u64,
        time_left_ms: u64,
        out: &mut Vec<u8>,
    ) {
        self.catch_up(game, seat);
        out.extend_from_slice(br#"{"type":"turn","id":"#);
        push_u64(out, id);
        out.extend_from_slice(br#","time_left_ms":"#);
        push_u64(out, time_left_ms);
        out.extend_from_slice(br#","view":{"seat":"#);
        push_u64(out, seat as u64);
        out.push(b',');
        if self.rules.is_empty() {
            self.rules.extend_from_slice(br#""rules":"#);
            serde_json::to_writer(&mut self.rules, game.rules()).expect("rules always serialize");
        }
        out.extend_from_slice(&self.rules);
        out.extend_from_slice(br#","game":"#);
        push_u64(out, u64::from(game.number()));
        out.extend_from_slice(br#","hand_number":"#);
        push_u64(out, u64::from(game.hand_number()));
        out.extend_from_slice(br#","leader":"#);
        push_u64(out, game.leader() as u64);
        let turn = match game.status() {
            Status::ToPlay { seat } => Some(seat),
            _ => None,
        };
        out.extend_from_slice(br#","turn":"#);
        push_option(out, turn, |out, s| push_u64(out, s as u64));
        out.extend_from_slice(br#","hand":"#);
        push_tiles(out, game.hand(seat));
        out.extend_from_slice(br#","drawn":"#);
        push_tiles(out, game.drawn(seat));
        out.extend_from_slice(br#","forced":"#);
        let forced = game.forced_tile().filter(|_| turn == Some(seat));
        push_option(out, forced, push_tile);
        out.extend_from_slice(br#","layout":["#);
        out.extend_from_slice(&self.layout.json);
        out.extend_from_slice(br#"],"ends":["#);
        for (i, end) in game.layout().open_ends().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(br#"{"end":""#);
            out.extend_from_slice(end.end.name().as_bytes());
            out.extend_from_slice(br#"","number":"#);
            push_u64(out, u64::from(end.number));
            out.extend_from_slice(br#","counts":"#);
            push_u64(out, u64::from(end.counts));
            out.push(b'}');
        }
        out.extend_from_slice(br#"],"sum":"#);
        push_u64(out, u64::from(game.layout().sum()));
        out.extend_from_slice(br#","hand_sizes":["#);
        for s in 0..game.rules().players {
            if s > 0 {
                out.push(b',');
            }
            push_u64(out, game.hand(s).len() as u64);
        }
        out.extend_from_slice(br#"],"boneyard":"#);
        push_u64(out, game.boneyard().len() as u64);
        out.extend_from_slice(br#","scores":["#);
        for (i, &score) in game.scores().iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_i64(out, i64::from(score));
        }
        out.extend_from_slice(br#"],"history":["#);
        out.extend_from_slice(&self.history[seat].json);
        out.extend_from_slice(br#"],"legal":["#);
        if turn == Some(seat) {
            game.legal_choices(&mut self.moves, &mut self.choices);
        } else {
            self.choices.clear();
        }
        for (i, choice) in self.choices.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_choice(out, choice);
        }
        out.extend_from_slice(b"]}}\n");
    }

    /// Extends the kept layout and `seat`'s history to the game's present.
    fn catch_up(&mut self, game: &Game, seat: Seat) {
        let events = game.hand_events();
        let placed = game.layout().placements().count();
        let stale = game.hand_number() != self.hand
            || placed < self.layout.count
            || self.history.iter().any(|h| h.count > events.len());
        if stale {
            self.hand = game.hand_number();
            self.layout.clear();
            self.history.iter_mut().for_each(Grown::clear);
        }
        if self.history.len() < game.rules().players {
            self.history
                .resize_with(game.rules().players, Grown::default);
        }
        for placement in game.layout().placements().skip(self.layout.count) {
            push_placement(self.layout.item(), &placement);
        }
        self.layout.count = placed;
        let history = &mut self.history[seat];
        for event in &events[history.count..] {
            if let Some(seen) = Seen::of(event, seat) {
                write_seen(&seen, history.item());
            }
        }
        history.count = events.len();
    }
}

/// Appends `seen` as `serde_json` writes it (no newline).
pub fn write_seen(seen: &Seen, out: &mut Vec<u8>) {
    match seen {
        Seen::Play(play) => write_play(play, out),
        Seen::Draw { seat, tile } => {
            out.extend_from_slice(br#"{"type":"draw","seat":"#);
            push_u64(out, *seat as u64);
            out.extend_from_slice(br#","tile":"#);
            push_option(out, *tile, push_tile);
            out.push(b'}');
        }
        Seen::Pass { seat } => {
            out.extend_from_slice(br#"{"type":"pass","seat":"#);
            push_u64(out, *seat as u64);
            out.push(b'}');
        }
    }
}

/// Appends a play as `serde_json` writes `Seen::Play` and `Event::Play` (no newline).
pub fn write_play(play: &Play, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"type":"play","seat":"#);
    push_u64(out, play.seat as u64);
    out.push(b',');
    push_tile_end(out, play.tile, play.end);
    push_sum_points(out, play.sum, play.points);
    out.push(b'}');
}

/// Appends the line (with its newline) telling a seat of `seen`: `ToBot::Event`.
pub fn write_event_message(seen: &Seen, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"type":"event","event":"#);
    write_seen(seen, out);
    out.extend_from_slice(b"}\n");
}

fn push_placement(out: &mut Vec<u8>, placement: &Placement) {
    out.push(b'{');
    push_tile_end(out, placement.tile, placement.end);
    out.push(b'}');
}

fn push_choice(out: &mut Vec<u8>, choice: &Choice) {
    out.push(b'{');
    push_tile_end(out, choice.tile, choice.end);
    push_sum_points(out, choice.sum, choice.points);
    out.push(b'}');
}

/// `"tile":[a,b],"end":E`: the fields a play, a placement and a legal choice begin with.
fn push_tile_end(out: &mut Vec<u8>, tile: Tile, end: Option<EndId>) {
    out.extend_from_slice(br#""tile":"#);
    push_tile(out, tile);
    out.extend_from_slice(br#","end":"#);
    push_option(out, end, push_end);
}

/// `,"sum":S,"points":P`: the fields a play and a legal choice end with.
fn push_sum_points(out: &mut Vec<u8>, sum: u32, points: u32) {
    out.extend_from_slice(br#","sum":"#);
    push_u64(out, u64::from(sum));
    out.extend_from_slice(br#","points":"#);
    push_u64(out, u64::from(points));
}

fn push_tiles(out: &mut Vec<u8>, tiles: TileSet) {
    out.push(b'[');
    for (i, tile) in tiles.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_tile(out, tile);
    }
    out.push(b']');
}

fn push_tile(out: &mut Vec<u8>, tile: Tile) {
    // Pips are single digits.
    out.extend_from_slice(&[b'[', b'0' + tile.low(), b',', b'0' + tile.high(), b']']);
}

fn push_end(out: &mut Vec<u8>, end: EndId) {
    out.push(b'"');
    out.extend_from_slice(end.name().as_bytes());
    out.push(b'"');
}

fn push_option<T>(out: &mut Vec<u8>, value: Option<T>, push: impl FnOnce(&mut Vec<u8>, T)) {
    match value {
        Some(value) => push(out, value),
        None => out.extend_from_slice(b"null"),
    }
}

fn push_u64(out: &mut Vec<u8>, n: u64) {
    // Most numbers in a turn are seats, pips and counts: one digit.
    match n {
        0..=9 => out.push(b'0' + n as u8),
        _ => out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes()),
    }
}

fn push_i64(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Reads a bot's line: [`FromBot`] as `serde_json` reads it, with a fast path for the line a bot
/// writes most, a move written without spaces in the protocol's field order
/// (`{"type":"move","id":7,"tile":[4,5],"end":"right"}`); any other line goes to serde.
pub fn read_from_bot(line: &str) -> serde_json::Result<FromBot> {
    match read_move(line.as_bytes()) {
        Some(answer) => Ok(answer),
        None => serde_json::from_str(line),
    }
}

/// The compact move, or `None` for anything else (which serde then reads, or rejects).
fn read_move(line: &[u8]) -> Option<FromBot> {
    let rest = line.strip_prefix(br#"{"type":"move","id":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    // JSON has no leading zeros; 19 digits always fit a u64.
    if digits == 0 || digits > 19 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let id = rest[..digits]
        .iter()
        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    let rest = rest[digits..].strip_prefix(br#","tile":["#)?;
    let [a, b',', b, b']', rest @ ..] = rest else {
        return None;
    };
    let tile = Tile::new(a.wrapping_sub(b'0'), b.wrapping_sub(b'0')).ok()?;
    let end = match rest {
        b"}" => None,
        _ => {
            let rest = rest.strip_prefix(br#","end":"#)?.strip_suffix(b"}")?;
            match rest {
                b"null" => None,
                quoted => {
                    let name = quoted.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
                    Some(std::str::from_utf8(name).ok()?.parse::<EndId>().ok()?)
                }
            }
        }
    };
    Some(FromBot::Move { id, tile, end })
}
