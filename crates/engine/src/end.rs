//! The ends of a layout: an arm's name (`left`, `up2`...) and an open end at its tip. Below the
//! layout and its errors, which both name ends.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most arms a layout can have: the lead's two and two for each of the 7 doubles.
pub(crate) const MAX_ARMS: usize = 16;

/// The name of an arm of the layout, and so of the open end at its tip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndId {
    /// The lead's first arm (the lead lies with its smaller number on this side).
    Left,
    /// The lead's second arm.
    Right,
    /// A short end of the spinner with this ordinal (0 for the hand's first spinner).
    Up(u8),
    /// The other short end of the spinner with this ordinal.
    Down(u8),
}

impl EndId {
    /// The arm's slot in the layout's table of arms (and in [`END_NAMES`]).
    pub(crate) fn slot(self) -> usize {
        match self {
            EndId::Left => 0,
            EndId::Right => 1,
            EndId::Up(k) => 2 + 2 * k as usize,
            EndId::Down(k) => 3 + 2 * k as usize,
        }
    }

    pub(crate) fn from_slot(slot: usize) -> EndId {
        let spinner = ((slot.saturating_sub(2)) / 2) as u8;
        match slot {
            0 => EndId::Left,
            1 => EndId::Right,
            s if s % 2 == 0 => EndId::Up(spinner),
            _ => EndId::Down(spinner),
        }
    }

    /// Whether this is a short end of a spinner.
    pub fn is_short(self) -> bool {
        matches!(self, EndId::Up(_) | EndId::Down(_))
    }
}

/// Every end's name, in slot order (a layout has at most 16 arms).
pub(crate) const END_NAMES: [&str; MAX_ARMS] = [
    "left", "right", "up", "down", "up2", "down2", "up3", "down3", "up4", "down4", "up5", "down5",
    "up6", "down6", "up7", "down7",
];

impl EndId {
    /// The end's name: `left`, `right`, `up`, `down`, `up2`, `down2`, ...
    pub fn name(self) -> &'static str {
        END_NAMES.get(self.slot()).copied().unwrap_or("?")
    }

    /// The end `name` names, as [`name`](EndId::name) spells it; `None` if it names none.
    pub fn from_name(name: &[u8]) -> Option<EndId> {
        END_NAMES
            .iter()
            .position(|known| known.as_bytes() == name)
            .map(EndId::from_slot)
    }
}

impl fmt::Display for EndId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a text does not name an end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not an end name: use left, right, up, down, or upN/downN for the N-th spinner")]
pub struct ParseEndError(pub String);

impl FromStr for EndId {
    type Err = ParseEndError;

    fn from_str(text: &str) -> Result<EndId, ParseEndError> {
        EndId::from_name(text.as_bytes()).ok_or_else(|| ParseEndError(text.to_string()))
    }
}

impl JsonSchema for EndId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EndId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An open end: left and right along the line, up and down off the first spinner, upN/downN off the N-th spinner.",
            "type": "string",
            "enum": END_NAMES,
        })
    }
}

impl Serialize for EndId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for EndId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<EndId, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// An open end: where a tile may go, the number it must match, and what it adds to the sum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenEnd {
    /// The end's name.
    pub end: EndId,
    /// The number a tile must show to be played here.
    pub number: u8,
    /// What this end adds to the layout's sum.
    pub counts: u32,
}
