//! Hand-written JSON for what the referee sends on every move (a seat's turn, the events of a
//! hand) and on every hand (its deal, its end), and a fast reading of the move a bot answers
//! with. The bytes are exactly what `serde_json` writes for the same
//! [`ToBot`](crate::protocol::ToBot) message (tests hold them to it), at a fraction of the cost:
//! field names are literals rather than escaped strings, written in few copies of a size known
//! when compiling (which need no call to `memcpy`); a turn is written straight from the [`Game`]
//! without an owned [`View`](crate::view::View); and the parts of a turn that only grow during a
//! hand (the layout and each seat's history), or do not change in it (the rules, the game, the
//! hand and its leader), are kept as JSON from turn to turn.

use crate::deal::Deal;
use crate::end::{END_NAMES, EndId};
use crate::game::{Event, Game, HandEnding, HandSummary, Move, Play, Status};
use crate::layout::Placement;
use crate::protocol::{FromBot, Info};
use crate::rules::Seat;
use crate::tile::Tile;
use crate::view::{Choice, Seen};

/// Writes `ToBot::Turn` lines for the seats of one game, keeping the JSON of what only grows
/// during a hand, or does not change in it, from one turn to the next.
///
/// One writer serves one game: it notices a new hand, but not different rules.
#[derive(Debug, Default)]
pub struct TurnWriter {
    /// `"rules":{...}`, written once.
    rules: Vec<u8>,
    /// `,"rules":{...},"game":G,"hand_number":H,"leader":L,"turn":`: what a turn says of the
    /// game and the hand, the same for every seat's turn of the hand.
    head: Vec<u8>,
    /// The game number, hand number and leader `head` was written for.
    head_of: Option<(u32, u32, Seat)>,
    /// The hand the kept layout and histories belong to.
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

/// Room for a turn's parts that are not kept whole (ends, hand, scores, ...) beside those that
/// are, so that a line is seldom reallocated while written.
const TURN_ROOM: usize = 1024;
/// Room for a legal choice (`{"tile":[4,5],"end":"down7","sum":12,"points":0},`), more than
/// most need.
const CHOICE_ROOM: usize = 64;

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
        let turn = match game.status() {
            Status::ToPlay { seat } => Some(seat),
            _ => None,
        };
        if turn == Some(seat) {
            game.legal_choices(&mut self.moves, &mut self.choices);
        } else {
            self.choices.clear();
        }
        let history = &self.history[seat].json;
        out.reserve(
            self.head.len()
                + self.layout.json.len()
                + history.len()
                + CHOICE_ROOM * self.choices.len()
                + TURN_ROOM,
        );
        push_field(out, *br#"{"type":"turn","id":00"#, id);
        push_field(out, *br#","time_left_ms":00"#, time_left_ms);
        push_field(out, *br#","view":{"seat":00"#, seat as u64);
        out.extend_from_slice(&self.head);
        push_option(out, turn, |out, s| push_u64(out, s as u64));
        out.extend_from_slice(br#","hand":["#);
        push_tiles(out, game.hand(seat).iter());
        out.extend_from_slice(br#","drawn":["#);
        push_tiles(out, game.drawn(seat).iter());
        out.extend_from_slice(br#","forced":"#);
        let forced = game.forced_tile().filter(|_| turn == Some(seat));
        push_option(out, forced, push_tile);
        out.extend_from_slice(br#","layout":["#);
        out.extend_from_slice(&self.layout.json);
        out.extend_from_slice(br#"],"ends":["#);
        for end in game.layout().open_ends() {
            out.extend_from_slice(br#"{"end":"#);
            push_end(out, end.end);
            // The number a tile must show is a single digit.
            let mut fields = *br#","number":N,"counts":00"#;
            fields[10] = b'0' + end.number;
            push_field(out, fields, u64::from(end.counts));
            out.extend_from_slice(b"},");
        }
        close_array(out);
        push_field(out, *br#","sum":00"#, u64::from(game.layout().sum()));
        out.extend_from_slice(br#","hand_sizes":["#);
        let sizes = (0..game.rules().players).map(|s| game.hand(s).len());
        push_items(out, sizes, |out, size| push_u64(out, size as u64));
        push_field(out, *br#","boneyard":00"#, game.boneyard().len() as u64);
        out.extend_from_slice(br#","scores":["#);
        push_items(out, game.scores(), |out, &score| {
            push_i64(out, score.into())
        });
        out.extend_from_slice(br#","history":["#);
        out.extend_from_slice(history);
        out.extend_from_slice(br#"],"legal":["#);
        for choice in &self.choices {
            push_tile_end(out, b'{', choice.tile, choice.end);
            push_sum_points(out, choice.sum, choice.points);
            out.extend_from_slice(b"},");
        }
        close_array(out);
        out.extend_from_slice(b"}}\n");
    }

    /// Brings the kept head, layout and `seat`'s history up to the game's present.
    fn catch_up(&mut self, game: &Game, seat: Seat) {
        if self.rules.is_empty() {
            self.rules.extend_from_slice(br#""rules":"#);
            serde_json::to_writer(&mut self.rules, game.rules()).expect("rules always serialize");
        }
        let head_of = (game.number(), game.hand_number(), game.leader());
        if self.head_of != Some(head_of) {
            self.head_of = Some(head_of);
            let head = &mut self.head;
            head.clear();
            head.push(b',');
            head.extend_from_slice(&self.rules);
            push_field(head, *br#","game":00"#, u64::from(head_of.0));
            push_field(head, *br#","hand_number":00"#, u64::from(head_of.1));
            push_field(head, *br#","leader":00"#, head_of.2 as u64);
            head.extend_from_slice(br#","turn":"#);
        }
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
            push_field(out, *br#"{"type":"draw","seat":00"#, *seat as u64);
            out.extend_from_slice(br#","tile":"#);
            push_option(out, *tile, push_tile);
            out.push(b'}');
        }
        Seen::Pass { seat } => {
            push_field(out, *br#"{"type":"pass","seat":00"#, *seat as u64);
            out.push(b'}');
        }
    }
}

/// Appends a play as `serde_json` writes `Seen::Play` and `Event::Play` (no newline).
pub fn write_play(play: &Play, out: &mut Vec<u8>) {
    push_field(out, *br#"{"type":"play","seat":00"#, play.seat as u64);
    push_tile_end(out, b',', play.tile, play.end);
    push_sum_points(out, play.sum, play.points);
    out.push(b'}');
}

/// Appends the line (with its newline) telling a seat of `seen`: `ToBot::Event`.
pub fn write_event_message(seen: &Seen, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"type":"event","event":"#);
    write_seen(seen, out);
    out.extend_from_slice(b"}\n");
}

/// Appends the line (with its newline) telling `seat` that hand number `hand` is dealt as `deal`
/// says: the `ToBot::HandStart` of `Event::HandStart { hand, deal }`, with the seat's own tiles
/// in the order dealt, as `serde_json` writes it.
///
/// # Panics
///
/// If `deal` has no hand for `seat`.
pub fn write_hand_start(hand: u32, deal: &Deal, seat: Seat, out: &mut Vec<u8>) {
    push_field(out, *br#"{"type":"hand_start","hand":00"#, u64::from(hand));
    push_field(out, *br#","leader":00"#, deal.leader as u64);
    out.extend_from_slice(br#","tiles":["#);
    push_tiles(out, deal.hands[seat].iter().copied());
    out.extend_from_slice(br#","hand_sizes":["#);
    push_items(out, &deal.hands, |out, tiles| {
        push_u64(out, tiles.len() as u64)
    });
    push_field(out, *br#","boneyard":00"#, deal.boneyard.len() as u64);
    out.extend_from_slice(b"}\n");
}

/// Appends the line (with its newline) telling a seat how a hand ended: `ToBot::HandEnd` with
/// `summary`, as `serde_json` writes it.
pub fn write_hand_end(summary: &HandSummary, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"type":"hand_end","summary":{"#);
    push_summary_fields(summary, out);
    out.extend_from_slice(b"}}\n");
}

/// Appends the start or the end of a hand as `serde_json` writes the [`Event`] (no newline):
/// the game log's `hand_start` and `hand_end` lines. `None` for any other event.
pub fn write_hand_event(event: &Event, out: &mut Vec<u8>) -> Option<()> {
    match event {
        Event::HandStart { hand, deal } => {
            push_field(out, *br#"{"type":"hand_start","hand":00"#, u64::from(*hand));
            out.extend_from_slice(br#","deal":{"hands":["#);
            push_items(out, &deal.hands, |out, tiles| {
                out.push(b'[');
                push_tiles(out, tiles.iter().copied());
            });
            out.extend_from_slice(br#","boneyard":["#);
            push_tiles(out, deal.boneyard.iter().copied());
            push_field(out, *br#","leader":00"#, deal.leader as u64);
            out.extend_from_slice(b"}}");
        }
        Event::HandEnd(summary) => {
            out.extend_from_slice(br#"{"type":"hand_end","#);
            push_summary_fields(summary, out);
            out.push(b'}');
        }
        _ => return None,
    }
    Some(())
}

/// A hand summary's fields, from `"hand"` to `"next_leader"`, without braces.
fn push_summary_fields(summary: &HandSummary, out: &mut Vec<u8>) {
    push_field(out, *br#""hand":00"#, u64::from(summary.hand));
    match summary.ending {
        HandEnding::WentOut { seat } => {
            push_field(
                out,
                *br#","ending":{"kind":"went_out","seat":00"#,
                seat as u64,
            );
            out.push(b'}');
        }
        HandEnding::Blocked => out.extend_from_slice(br#","ending":{"kind":"blocked"}"#),
    }
    out.extend_from_slice(br#","hands":["#);
    push_items(out, &summary.hands, |out, tiles| {
        out.push(b'[');
        push_tiles(out, tiles.iter().copied());
    });
    out.extend_from_slice(br#","pips":["#);
    push_items(out, &summary.pips, |out, &pips| push_u64(out, pips.into()));
    out.extend_from_slice(br#","points":["#);
    push_items(out, &summary.points, |out, &points| {
        push_i64(out, points.into())
    });
    out.extend_from_slice(br#","scores":["#);
    push_items(out, &summary.scores, |out, &score| {
        push_i64(out, score.into())
    });
    out.extend_from_slice(br#","next_leader":"#);
    push_option(out, summary.next_leader, |out, seat| {
        push_u64(out, seat as u64)
    });
}

// The small writers below are inlined where they are used: a call, with the registers it saves
// and restores, would cost more than the few stores most of them make. Their templates hold
// placeholders that are filled in before the copy: `00` room for a number's digits, `L,H` a
// tile's numbers.

#[inline]
fn push_placement(out: &mut Vec<u8>, placement: &Placement) {
    push_tile_end(out, b'{', placement.tile, placement.end);
    out.push(b'}');
}

/// `"tile":[a,b],"end":E` after `before` (the `{` of a placement or a legal choice, the `,` after
/// a play's seat): the fields a play, a placement and a legal choice share.
#[inline(always)]
fn push_tile_end(out: &mut Vec<u8>, before: u8, tile: Tile, end: Option<EndId>) {
    // One copy of a fixed size, its placeholders filled in (pips are single digits).
    let mut fields = *br#"_"tile":[L,H],"end":"#;
    fields[0] = before;
    fields[9] = b'0' + tile.low();
    fields[11] = b'0' + tile.high();
    out.extend_from_slice(&fields);
    push_option(out, end, push_end);
}

/// `,"sum":S,"points":P`: the fields a play and a legal choice end with.
#[inline(always)]
fn push_sum_points(out: &mut Vec<u8>, sum: u32, points: u32) {
    push_field(out, *br#","sum":00"#, u64::from(sum));
    push_field(out, *br#","points":00"#, u64::from(points));
}

/// Appends `tiles` to an array just opened (its `[` last), and closes the array.
fn push_tiles(out: &mut Vec<u8>, tiles: impl Iterator<Item = Tile>) {
    for tile in tiles {
        let mut item = *b"[L,H],";
        item[1] = b'0' + tile.low();
        item[3] = b'0' + tile.high();
        out.extend_from_slice(&item);
    }
    close_array(out);
}

/// `[a,b]`.
#[inline]
fn push_tile(out: &mut Vec<u8>, tile: Tile) {
    let mut json = *b"[L,H]";
    json[1] = b'0' + tile.low();
    json[3] = b'0' + tile.high();
    out.extend_from_slice(&json);
}

/// Appends each of `items` with `push` and a comma after it, to an array just opened (its `[`
/// last), and closes the array.
#[inline]
fn push_items<T>(
    out: &mut Vec<u8>,
    items: impl IntoIterator<Item = T>,
    mut push: impl FnMut(&mut Vec<u8>, T),
) {
    for item in items {
        push(out, item);
        out.push(b',');
    }
    close_array(out);
}

/// Ends a JSON array whose items were each written with a comma after them (which spares
/// every item a test for being the first): the last item's comma becomes the closing bracket,
/// and an array without items, whose `[` is last, gets one.
#[inline]
fn close_array(out: &mut Vec<u8>) {
    match out.last_mut() {
        Some(last @ b',') => *last = b']',
        _ => out.push(b']'),
    }
}

/// The longest end name, quoted (`"down7"`), fits in this many bytes.
const QUOTED_END: usize = 8;

/// Each end's name as a JSON string (`"left"`), in slot order, padded to [`QUOTED_END`] bytes, with
/// its length.
const QUOTED_ENDS: [([u8; QUOTED_END], usize); END_NAMES.len()] = {
    let mut quoted = [([0; QUOTED_END], 0); END_NAMES.len()];
    let mut slot = 0;
    while slot < END_NAMES.len() {
        let name = END_NAMES[slot].as_bytes();
        // A name too long for the padding fails the build here.
        let (bytes, len) = &mut quoted[slot];
        bytes[0] = b'"';
        let mut i = 0;
        while i < name.len() {
            bytes[1 + i] = name[i];
            i += 1;
        }
        bytes[1 + name.len()] = b'"';
        *len = name.len() + 2;
        slot += 1;
    }
    quoted
};

/// `"name"`: an end's name as a JSON string.
#[inline]
fn push_end(out: &mut Vec<u8>, end: EndId) {
    match QUOTED_ENDS.get(end.slot()) {
        Some((padded, len)) => push_prefix(out, padded, *len),
        None => push_unknown_end(out, end),
    }
}

/// [`push_end`] for an end no layout has (a spinner beyond the seventh), named as
/// [`EndId::name`] names it; kept out of line.
#[inline(never)]
fn push_unknown_end(out: &mut Vec<u8>, end: EndId) {
    out.push(b'"');
    out.extend_from_slice(end.name().as_bytes());
    out.push(b'"');
}

/// Appends the first `len` bytes of `bytes`. Copying all `N` bytes, a size known when compiling
/// (a store or two), then dropping the rest costs less than copying a few bytes of a length
/// known only at run time, which is a call to `memcpy`.
#[inline]
fn push_prefix<const N: usize>(out: &mut Vec<u8>, bytes: &[u8; N], len: usize) {
    out.extend_from_slice(bytes);
    out.truncate(out.len() - N + len);
}

#[inline]
fn push_option<T>(out: &mut Vec<u8>, value: Option<T>, push: impl FnOnce(&mut Vec<u8>, T)) {
    match value {
        Some(value) => push(out, value),
        None => out.extend_from_slice(b"null"),
    }
}

/// Appends a field and its value, a number: `field` is the field's JSON up to the value, then two
/// bytes of room for its digits (`,"sum":00`). A number under 100 (as most numbers in these lines
/// are: seats, pips, counts, sums, points) goes in one copy of a fixed size, the second byte of
/// room dropped after it for a single digit.
#[inline]
fn push_field<const N: usize>(out: &mut Vec<u8>, mut field: [u8; N], n: u64) {
    match n {
        0..=9 => {
            field[N - 2] = b'0' + n as u8;
            push_prefix(out, &field, N - 1);
        }
        10..=99 => {
            field[N - 2] = b'0' + (n / 10) as u8;
            field[N - 1] = b'0' + (n % 10) as u8;
            out.extend_from_slice(&field);
        }
        _ => {
            out.extend_from_slice(&field[..N - 2]);
            push_long(out, n);
        }
    }
}

/// A number alone: a field without a name.
#[inline]
fn push_u64(out: &mut Vec<u8>, n: u64) {
    push_field(out, *b"00", n);
}

/// [`push_field`]'s number of three digits or more, kept out of line.
#[inline(never)]
fn push_long(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

#[inline]
fn push_i64(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Reads a bot's line: [`FromBot`] as `serde_json` reads it, with a fast path for the line a bot
/// writes most, a move in the protocol's field order (its `info` last, if any), written without
/// spaces (`{"type":"move","id":7,"tile":[4,5],"end":"right"}`) or with a space after each `:`
/// and `,` as Python's `json.dumps` writes it; any other line goes to serde.
pub fn read_from_bot(line: &str) -> serde_json::Result<FromBot> {
    match read_move(line.as_bytes()) {
        Some(answer) => Ok(answer),
        None => serde_json::from_str(line),
    }
}

/// The compact move, or `None` for anything else (which serde then reads, or rejects).
fn read_move(line: &[u8]) -> Option<FromBot> {
    let rest = token(line, br#"{"type":"move","id":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    // JSON has no leading zeros; 19 digits always fit a u64.
    if digits == 0 || digits > 19 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let id = rest[..digits]
        .iter()
        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    let rest = token(&rest[digits..], br#","tile":["#)?;
    let [a, rest @ ..] = rest else { return None };
    let [b, rest @ ..] = token(rest, b",")? else {
        return None;
    };
    let rest = token(rest, b"]")?;
    let tile = Tile::new(a.wrapping_sub(b'0'), b.wrapping_sub(b'0')).ok()?;
    let (end, rest) = match token(rest, br#","end":"#) {
        Some(value) => read_end(value)?,
        None => (None, rest),
    };
    // The info, last as the protocol lists it, is read alone: serde's read of the whole line
    // (an internally tagged enum) buffers every field first, and Python's greedy sample bot
    // sends an info with every move.
    let info = match rest {
        b"}" => None,
        _ => Some(read_info(token(rest, br#","info":"#)?.strip_suffix(b"}")?)?),
    };
    Some(FromBot::Move {
        id,
        tile,
        end,
        info,
    })
}

/// An info's value, told by its first byte: a text or an object, read straight into its kind.
/// Serde's untagged read buffers the value whole, then tries each kind on the copy; anything
/// else (or anything either read refuses) is left to serde's read of the whole line.
fn read_info(value: &[u8]) -> Option<Info> {
    match value.first()? {
        b'"' => serde_json::from_slice(value).ok().map(Info::Text),
        b'{' => serde_json::from_slice(value).ok().map(Info::Object),
        _ => None,
    }
}

/// A move's end, `null` or a quoted name, and what follows it.
fn read_end(value: &[u8]) -> Option<(Option<EndId>, &[u8])> {
    if let Some(rest) = value.strip_prefix(b"null") {
        return Some((None, rest));
    }
    let quoted = value.strip_prefix(b"\"")?;
    let close = quoted.iter().position(|&b| b == b'"')?;
    Some((
        Some(EndId::from_name(&quoted[..close])?),
        &quoted[close + 1..],
    ))
}

/// What follows `expected` at the start of `line`, where a space after a `:` or `,` of
/// `expected` may be there or not (JSON's whitespace between tokens, as Python writes it).
fn token<'a>(mut line: &'a [u8], expected: &[u8]) -> Option<&'a [u8]> {
    // Most bots write the compact form: one comparison, not a byte at a time (and the space a
    // last `:` or `,` may have after it).
    if let Some(rest) = line.strip_prefix(expected) {
        return Some(match expected.last() {
            Some(b':' | b',') => rest.strip_prefix(b" ").unwrap_or(rest),
            _ => rest,
        });
    }
    for &byte in expected {
        line = line.strip_prefix(&[byte])?;
        if matches!(byte, b':' | b',') {
            line = line.strip_prefix(b" ").unwrap_or(line);
        }
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `json.dumps` puts a space after each `:` and `,`: its moves took serde's path,
    /// several times slower, on every move of every Python bot.
    #[test]
    fn a_move_as_python_writes_it_takes_the_fast_path() {
        let spaced = br#"{"type": "move", "id": 20, "tile": [4, 5], "end": "right"}"#;
        let compact = br#"{"type":"move","id":20,"tile":[4,5],"end":"right"}"#;
        assert_eq!(read_move(spaced), read_move(compact));
        assert!(read_move(spaced).is_some());
        assert!(read_move(br#"{"type": "move", "id": 20, "tile": [4, 5]}"#).is_some());
        // Two spaces, or a space elsewhere, are serde's to read.
        assert!(read_move(br#"{"type":  "move", "id": 20, "tile": [4, 5]}"#).is_none());
        assert!(read_move(br#"{ "type": "move", "id": 20, "tile": [4, 5]}"#).is_none());
    }

    /// Python's greedy sample bot sends an info with every move: its moves took serde's path.
    #[test]
    fn a_move_with_its_info_takes_the_fast_path() {
        let greedy = br#"{"type": "move", "id": 20, "tile": [4, 5], "end": "right", "info": {"points": 5, "choices": 3}}"#;
        let Some(FromBot::Move { info, .. }) = read_move(greedy) else {
            panic!("the fast path reads it");
        };
        let expected = serde_json::json!({"points": 5, "choices": 3});
        assert_eq!(serde_json::to_value(info).expect("a value"), expected);
        assert!(read_move(br#"{"type":"move","id":2,"tile":[4,5],"info":"a text"}"#).is_some());
        // Anything after the info, or an info that is no text or object, is serde's to read.
        assert!(read_move(br#"{"type":"move","id":2,"tile":[4,5],"info":"a","x":1}"#).is_none());
        assert!(read_move(br#"{"type":"move","id":2,"tile":[4,5],"info":null}"#).is_none());
    }
}
