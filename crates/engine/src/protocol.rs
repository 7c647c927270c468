//! Protocol v1: the messages between the referee and a bot, one JSON object a line.
//!
//! `protocol.md` is the contract for bot authors; these types are its source of truth.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::game::{GameResult, HandSummary, Move};
use crate::layout::EndId;
use crate::rules::{Rules, Seat};
use crate::tile::Tile;
use crate::view::{Seen, View};

/// The protocol version this referee speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line a bot may write, in bytes, its `\n` or `\r\n` excluded.
pub const MAX_BOT_LINE: usize = 64 * 1024;

/// The most bytes a move's `info` may take, written as compact JSON; a longer one is cut down to
/// text ([`Info::capped`]).
pub const MAX_INFO: usize = 1024;

/// The time controls, as a bot is told them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClockInfo {
    /// Time allowed for the handshake, in milliseconds.
    pub startup_ms: u64,
    /// Time allowed for each move, in milliseconds.
    pub move_ms: u64,
    /// Extra time a game may draw on past the per-move limit, in milliseconds.
    pub bank_ms: u64,
}

/// A message from the referee to a bot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot {
    /// The handshake: answer with [`FromBot::Hello`] echoing `id`.
    Hello {
        /// Echo this in the answer.
        id: u64,
        /// The protocol version.
        protocol: u32,
        /// The referee's name and version.
        referee: String,
    },
    /// A game begins.
    GameStart {
        /// The game's number within the match, from 1.
        game: u32,
        /// The bot's seat in this game.
        seat: Seat,
        /// The rules.
        rules: Rules,
        /// Each seat's bot name.
        players: Vec<String>,
        /// The time controls.
        clock: ClockInfo,
        /// A seed for the bot's own random generator (below 2^53): the same for the same game
        /// and seat, whatever the bot's process played before; it reveals nothing of the deal
        /// (unless the run was started with `--public-seed`). Absent from older referees.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bot_seed: Option<u64>,
    },
    /// A hand is dealt.
    HandStart {
        /// The hand's number, from 1.
        hand: u32,
        /// The seat that leads.
        leader: Seat,
        /// The bot's own tiles.
        tiles: Vec<Tile>,
        /// How many tiles each seat holds.
        hand_sizes: Vec<usize>,
        /// How many tiles are in the boneyard.
        boneyard: usize,
    },
    /// Something happened in the hand (as this seat may see it).
    Event {
        /// The event.
        event: Seen,
    },
    /// The bot must move: answer with [`FromBot::Move`] echoing `id`.
    Turn {
        /// Echo this in the answer.
        id: u64,
        /// Time left for this move, in milliseconds (per-move limit plus what is left of the bank).
        time_left_ms: u64,
        /// Everything the seat may know, legal moves included.
        view: Box<View>,
    },
    /// A hand ended: every hand is shown.
    HandEnd {
        /// The scoring of the hand.
        summary: HandSummary,
    },
    /// A game ended.
    GameEnd {
        /// The result.
        result: GameResult,
    },
    /// The match is over: exit.
    Bye,
}

/// A message from a bot to the referee.
///
/// Fields the referee does not know are ignored (an entry of the view's `legal` copied whole,
/// with its `sum` and `points`, is a valid move), so that either side may grow; the fields it
/// knows are read strictly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromBot {
    /// The answer to the handshake.
    Hello {
        /// The id of the referee's hello.
        id: u64,
        /// The bot's name, for results.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The protocol version the bot speaks (1 if absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol: Option<u32>,
    },
    /// The answer to a turn.
    Move {
        /// The id of the turn.
        id: u64,
        /// The tile to play.
        tile: Tile,
        /// The end to play it on; `null` or absent when leading.
        #[serde(default)]
        end: Option<EndId>,
        /// What the bot was thinking, for the log and the replay (never told to another bot): a
        /// short text or a small object, at most [`MAX_INFO`] bytes as compact JSON.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        info: Option<Info>,
    },
}

/// A move's `info`: a text, or an object of the bot's own fields (an evaluation, a win
/// estimate, the line it expects). At most 1,024 bytes ([`MAX_INFO`]) as compact JSON; a longer
/// one is kept cut down to text, with a note of its length. Logged with the move, shown by the
/// replay, never told to another bot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Info {
    /// A short text.
    Text(String),
    /// A small JSON object.
    Object(serde_json::Map<String, serde_json::Value>),
}

impl Info {
    /// The info as the referee keeps it: as sent when its compact JSON fits in [`MAX_INFO`]
    /// bytes; otherwise the text of its first bytes (cut at a character), followed by a note
    /// of how long it was, so that a bot's debugging output never costs it the game.
    pub fn capped(self) -> Info {
        // Measured without being kept: nearly every info fits.
        let mut measured = Measured(0);
        if serde_json::to_writer(&mut measured, &self).is_err() || measured.0 <= MAX_INFO {
            return self;
        }
        let json = serde_json::to_string(&self).unwrap_or_default();
        let whole = match &self {
            Info::Text(text) => text.as_str(),
            Info::Object(_) => json.as_str(),
        };
        // Room for the note; the kept text is measured as JSON writes it (a control character
        // takes six bytes there), so that what is kept is within the cap and stays as it is.
        let room = MAX_INFO - 128;
        let mut used = 0;
        let cut = whole
            .char_indices()
            .find(|&(_, c)| {
                used += serde_json::to_string(&c).map_or(6, |q| q.len() - 2);
                used > room
            })
            .map_or(whole.len(), |(at, _)| at);
        Info::Text(format!(
            "{} [cut: the info took {} bytes, over the cap of {MAX_INFO}]",
            &whole[..cut],
            json.len()
        ))
    }
}

/// Counts the bytes written to it, and keeps none.
struct Measured(usize);

impl std::io::Write for Measured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl FromBot {
    /// The id the message answers.
    pub fn id(&self) -> u64 {
        match self {
            FromBot::Hello { id, .. } | FromBot::Move { id, .. } => *id,
        }
    }

    /// The move's info, if this is a move that carries one, capped ([`Info::capped`]).
    pub fn info(self) -> Option<Info> {
        match self {
            FromBot::Move { info, .. } => info.map(Info::capped),
            FromBot::Hello { .. } => None,
        }
    }

    /// The move, if this is one.
    pub fn as_move(&self) -> Option<Move> {
        match *self {
            FromBot::Move { tile, end, .. } => Some(Move { tile, end }),
            FromBot::Hello { .. } => None,
        }
    }
}

/// The JSON Schema (draft 2020-12) of every message, both ways: `$defs.ToBot` for what the referee
/// sends, `$defs.FromBot` for what a bot answers; the root accepts either.
///
/// Each direction is described as it is used: `ToBot` as the referee writes it (every field
/// present, `null` where a value is absent), `FromBot` as the referee reads it (optional
/// fields may be left out).
pub fn schema() -> serde_json::Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12();
    let mut writes = settings.clone().for_serialize().into_generator();
    let mut reads = settings.for_deserialize().into_generator();
    let to_bot = writes.subschema_for::<ToBot>();
    let from_bot = reads.subschema_for::<FromBot>();
    let mut defs = writes.take_definitions(true);
    // The types both directions share (tiles, ends) read as they are written.
    for (name, def) in reads.take_definitions(true) {
        defs.entry(name).or_insert(def);
    }
    defs.entry("ToBot").or_insert_with(|| to_bot.to_value());
    defs.entry("FromBot").or_insert_with(|| from_bot.to_value());
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("allfives-protocol-{PROTOCOL_VERSION}"),
        "title": format!("allfives protocol {PROTOCOL_VERSION}"),
        "description": "One JSON object a line. ToBot: referee to bot. FromBot: bot to referee.",
        // anyOf: a hello has the same shape both ways, now that a bot's may carry more fields.
        "anyOf": [{ "$ref": "#/$defs/ToBot" }, { "$ref": "#/$defs/FromBot" }],
        "$defs": defs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(info: &Info) -> usize {
        serde_json::to_string(info).expect("plain data").len()
    }

    #[test]
    fn an_info_within_the_cap_is_kept_and_a_longer_one_is_cut_to_text() {
        let small: Info =
            serde_json::from_str(r#"{"eval":1.5,"pv":["[1|2] left"]}"#).expect("info");
        assert_eq!(small.clone().capped(), small);
        // Multi-byte characters across the cut: it falls on a character's boundary.
        let long = Info::Text("é✓".repeat(MAX_INFO));
        let cut = long.capped();
        let Info::Text(text) = &cut else {
            panic!("cut to text: {cut:?}")
        };
        assert!(
            text.ends_with(&format!("over the cap of {MAX_INFO}]")),
            "{text}"
        );
        assert!(size(&cut) <= MAX_INFO, "{} bytes", size(&cut));
        let mut fields = serde_json::Map::new();
        fields.insert("moves".into(), serde_json::Value::from(vec![7.25; 400]));
        let cut = Info::Object(fields).capped();
        assert!(matches!(&cut, Info::Text(t) if t.starts_with("{\"moves\":[7.25,")));
        assert_eq!(cut.clone().capped(), cut, "a cut info is within the cap");
        // Characters JSON escapes count as written.
        let control = Info::Text("\u{1}".repeat(2000)).capped();
        assert!(size(&control) <= MAX_INFO, "{} bytes", size(&control));
        assert_eq!(control.clone().capped(), control);
    }

    #[test]
    fn a_move_reads_with_or_without_its_info() {
        let plain = r#"{"type":"move","id":3,"tile":[1,2],"end":"left"}"#;
        let with = r#"{"type":"move","id":3,"tile":[1,2],"end":"left","info":"sure"}"#;
        let read = |line: &str| serde_json::from_str::<FromBot>(line).expect("a move");
        assert_eq!(read(plain).info(), None);
        assert_eq!(read(with).info(), Some(Info::Text("sure".into())));
        assert!(serde_json::from_str::<FromBot>(&with.replace("\"sure\"", "3")).is_err());
    }
}
