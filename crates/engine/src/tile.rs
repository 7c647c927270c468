//! Tiles of the double-six set and compact sets of them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The highest number on a tile of the double-six set.
pub const MAX_PIPS: u8 = 6;
/// How many tiles the double-six set holds.
pub const SET_SIZE: usize = 28;

/// One domino `[a|b]`, always stored with `a <= b`.
///
/// Written in text as `[a|b]`; in JSON as the array `[a, b]` (either order is accepted on input).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile {
    low: u8,
    high: u8,
}

/// Why a pair of numbers is not a tile of the double-six set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("[{0}|{1}] is not a double-six tile: each number must be 0 to 6")]
pub struct NotATile(pub u8, pub u8);

impl Tile {
    /// The tile with these two numbers, in either order.
    pub fn new(a: u8, b: u8) -> Result<Tile, NotATile> {
        if a > MAX_PIPS || b > MAX_PIPS {
            return Err(NotATile(a, b));
        }
        Ok(Tile {
            low: a.min(b),
            high: a.max(b),
        })
    }

    /// The tile at `index` (0..28) in the set's canonical order `[0|0], [0|1], .. [0|6], [1|1], .. [6|6]`.
    pub fn from_index(index: usize) -> Option<Tile> {
        ALL_TILES.get(index).copied()
    }

    /// This tile's position in the canonical order (0..28).
    pub fn index(self) -> usize {
        let (a, b) = (self.low as usize, self.high as usize);
        // Rows before row `a` hold 7 + 6 + .. tiles: a * (15 - a) / 2.
        a * (15 - a) / 2 + (b - a)
    }

    /// The smaller number.
    pub fn low(self) -> u8 {
        self.low
    }

    /// The larger number.
    pub fn high(self) -> u8 {
        self.high
    }

    /// Both numbers, smaller first.
    pub fn numbers(self) -> (u8, u8) {
        (self.low, self.high)
    }

    /// Whether both halves show the same number.
    pub fn is_double(self) -> bool {
        self.low == self.high
    }

    /// The sum of both halves.
    pub fn pips(self) -> u32 {
        u32::from(self.low) + u32::from(self.high)
    }

    /// Whether one half shows `number`.
    pub fn has(self, number: u8) -> bool {
        self.low == number || self.high == number
    }

    /// The half that is left when the half showing `number` is matched, if the tile has it.
    pub fn other(self, number: u8) -> Option<u8> {
        if self.low == number {
            Some(self.high)
        } else if self.high == number {
            Some(self.low)
        } else {
            None
        }
    }
}

/// All 28 tiles in canonical order.
pub const ALL_TILES: [Tile; SET_SIZE] = {
    let mut tiles = [Tile { low: 0, high: 0 }; SET_SIZE];
    let mut i = 0;
    let mut a = 0;
    while a <= MAX_PIPS {
        let mut b = a;
        while b <= MAX_PIPS {
            tiles[i] = Tile { low: a, high: b };
            i += 1;
            b += 1;
        }
        a += 1;
    }
    tiles
};

impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}|{}]", self.low, self.high)
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a text is not a tile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseTileError {
    /// The text is not of the form `[a|b]`, `a|b` or `a-b`.
    #[error("'{0}' is not a tile: write it as [a|b], e.g. [6|4]")]
    Syntax(String),
    /// The numbers are out of range.
    #[error(transparent)]
    Range(#[from] NotATile),
}

impl FromStr for Tile {
    type Err = ParseTileError;

    fn from_str(text: &str) -> Result<Tile, ParseTileError> {
        let syntax = || ParseTileError::Syntax(text.to_string());
        let inner = text.trim();
        let inner = inner
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(inner);
        let (a, b) = inner
            .split_once('|')
            .or_else(|| inner.split_once('-'))
            .ok_or_else(syntax)?;
        let a: u8 = a.trim().parse().map_err(|_| syntax())?;
        let b: u8 = b.trim().parse().map_err(|_| syntax())?;
        Ok(Tile::new(a, b)?)
    }
}

impl schemars::JsonSchema for Tile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Tile".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A tile [a, b], each number 0 to 6 (sent smaller first; either order accepted).",
            "type": "array",
            "items": { "type": "integer", "minimum": 0, "maximum": 6 },
            "minItems": 2,
            "maxItems": 2,
        })
    }
}

impl Serialize for Tile {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        [self.low, self.high].serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Tile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tile, D::Error> {
        let [a, b] = <[u8; 2]>::deserialize(deserializer)?;
        Tile::new(a, b).map_err(serde::de::Error::custom)
    }
}

/// A set of tiles as a 28-bit mask: cheap to copy, test and intersect.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TileSet(u32);

/// For each number 0..=6, the set of tiles showing it.
const WITH_NUMBER: [TileSet; 7] = {
    let mut sets = [TileSet(0); 7];
    let mut i = 0;
    while i < SET_SIZE {
        let t = ALL_TILES[i];
        sets[t.low as usize].0 |= 1 << i;
        sets[t.high as usize].0 |= 1 << i;
        i += 1;
    }
    sets
};

impl TileSet {
    /// The empty set.
    pub const EMPTY: TileSet = TileSet(0);
    /// All 28 tiles.
    pub const FULL: TileSet = TileSet((1 << SET_SIZE) - 1);

    /// The tiles showing `number` (empty if `number` > 6).
    pub fn with_number(number: u8) -> TileSet {
        WITH_NUMBER
            .get(number as usize)
            .copied()
            .unwrap_or(TileSet::EMPTY)
    }

    /// Whether `tile` is in the set.
    pub fn contains(self, tile: Tile) -> bool {
        self.0 & (1 << tile.index()) != 0
    }

    /// Adds `tile`; returns false if it was already there.
    pub fn insert(&mut self, tile: Tile) -> bool {
        let had = self.contains(tile);
        self.0 |= 1 << tile.index();
        !had
    }

    /// Removes `tile`; returns false if it was not there.
    pub fn remove(&mut self, tile: Tile) -> bool {
        let had = self.contains(tile);
        self.0 &= !(1 << tile.index());
        had
    }

    /// How many tiles the set holds.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set holds no tile.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The tiles in both sets.
    pub fn intersection(self, other: TileSet) -> TileSet {
        TileSet(self.0 & other.0)
    }

    /// The tiles in either set.
    pub fn union(self, other: TileSet) -> TileSet {
        TileSet(self.0 | other.0)
    }

    /// The tiles in this set and not in `other`.
    ///
    /// ```
    /// use allfives_engine::{Tile, TileSet};
    /// let double_six = Tile::new(6, 6).expect("a tile");
    /// let sixes = TileSet::with_number(6);
    /// assert_eq!(sixes.difference(TileSet::from_iter([double_six])).len(), 6);
    /// ```
    pub fn difference(self, other: TileSet) -> TileSet {
        TileSet(self.0 & !other.0)
    }

    /// The tiles of the set of 28 that are not in this set.
    ///
    /// ```
    /// use allfives_engine::TileSet;
    /// assert_eq!(TileSet::with_number(0).complement().len(), 21);
    /// assert_eq!(TileSet::EMPTY.complement(), TileSet::FULL);
    /// ```
    pub fn complement(self) -> TileSet {
        TileSet::FULL.difference(self)
    }

    /// The total pips of the tiles in the set.
    pub fn pips(self) -> u32 {
        self.iter().map(Tile::pips).sum()
    }

    /// The tiles in canonical order.
    pub fn iter(self) -> impl Iterator<Item = Tile> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(ALL_TILES[i])
        })
    }
}

impl FromIterator<Tile> for TileSet {
    fn from_iter<I: IntoIterator<Item = Tile>>(iter: I) -> TileSet {
        let mut set = TileSet::EMPTY;
        for tile in iter {
            set.insert(tile);
        }
        set
    }
}

impl fmt::Debug for TileSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_order_round_trips() {
        for (i, tile) in ALL_TILES.iter().enumerate() {
            assert_eq!(tile.index(), i);
            assert_eq!(Tile::from_index(i), Some(*tile));
        }
        assert_eq!(ALL_TILES[27], Tile::new(6, 6).expect("in range"));
    }

    #[test]
    fn parses_and_prints() {
        let t: Tile = "[6|4]".parse().expect("valid");
        assert_eq!(t.to_string(), "[4|6]");
        assert_eq!(
            "3-3".parse::<Tile>().expect("valid"),
            Tile::new(3, 3).expect("in range")
        );
        assert!("[7|1]".parse::<Tile>().is_err());
        assert!("61".parse::<Tile>().is_err());
    }

    #[test]
    fn sets_count_numbers() {
        for n in 0..=6 {
            assert_eq!(TileSet::with_number(n).len(), 7);
        }
        assert_eq!(TileSet::FULL.len(), 28);
        assert_eq!(TileSet::FULL.pips(), 168);
    }
}
