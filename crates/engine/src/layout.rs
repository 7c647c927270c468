//! The layout: the tiles on the table, their open ends, and the sum that scores.
//!
//! The layout is a tree. The lead grows two arms, `left` and `right`. A spinner grows two more,
//! `up` and `down` (for the n-th spinner of a hand, n >= 2: `upN` and `downN`), which open only
//! when both its long sides have a tile. Every other tile extends the arm it is played on. With
//! `spinner = first` there is at most one spinner, with `none` none, with `all` every double is
//! one; the model is the same tree in all three.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::end::MAX_ARMS;
pub use crate::end::{EndId, OpenEnd, ParseEndError};
use crate::error::MoveError;
use crate::rules::SpinnerRule;
use crate::tile::{SET_SIZE, Tile, TileSet};

/// The points a sum of open ends scores: itself when a positive multiple of five, else nothing.
pub fn points_of(sum: u32) -> u32 {
    if sum.is_multiple_of(5) { sum } else { 0 }
}

/// The slots whose bits are set in `mask`, in order.
fn slots(mut mask: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let slot = mask.trailing_zeros() as usize;
        mask &= mask.wrapping_sub(1);
        (slot < MAX_ARMS).then_some(slot)
    })
}

/// A tile on the table, as played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Placement {
    /// The tile.
    pub tile: Tile,
    /// The end it was played on; `None` for the lead.
    pub end: Option<EndId>,
}

#[derive(Clone, Copy)]
struct Node {
    tile: Tile,
    /// The number facing away from the tile it was played on (for the lead: its right side).
    outer: u8,
    end: Option<EndId>,
    /// The spinner's ordinal, if this double spins.
    spinner: Option<u8>,
}

#[derive(Clone, Copy, Default)]
struct Arm {
    /// The outermost tile of the arm; `None` while the arm is bare.
    tip: Option<u8>,
    /// The node the arm grows from (the lead or a spinner).
    root: u8,
    /// Short ends exist from the spinner's placement but open later.
    open: bool,
    exists: bool,
}

/// The tiles played in the current hand, arranged as the rules arrange them.
#[derive(Clone)]
pub struct Layout {
    rule: SpinnerRule,
    nodes: [Node; SET_SIZE],
    len: u8,
    arms: [Arm; MAX_ARMS],
    spinners: u8,
    on_table: TileSet,
    // Derived after each placement, so that queries (asked many times a move) cost nothing.
    open: u16,
    numbers: [u8; MAX_ARMS],
    counts: [u8; MAX_ARMS],
    sum: u32,
    playable: TileSet,
    /// For each number, the open arms showing it.
    arms_with: [u16; 7],
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Layout")
            .field("tiles", &self.placements().collect::<Vec<_>>())
            .field("ends", &self.open_ends().collect::<Vec<_>>())
            .field("sum", &self.sum())
            .finish()
    }
}

impl Layout {
    /// An empty layout under a spinner rule.
    pub fn new(rule: SpinnerRule) -> Layout {
        let blank = Node {
            tile: Tile::from_index(0).expect("the set has a tile 0"),
            outer: 0,
            end: None,
            spinner: None,
        };
        Layout {
            rule,
            nodes: [blank; SET_SIZE],
            len: 0,
            arms: [Arm::default(); MAX_ARMS],
            spinners: 0,
            on_table: TileSet::EMPTY,
            open: 0,
            numbers: [0; MAX_ARMS],
            counts: [0; MAX_ARMS],
            sum: 0,
            playable: TileSet::FULL,
            arms_with: [0; 7],
        }
    }

    /// Rebuilds a layout from its placements in play order (as a [`crate::View`] lists them).
    pub fn from_placements(
        rule: SpinnerRule,
        placements: &[Placement],
    ) -> Result<Layout, MoveError> {
        let mut layout = Layout::new(rule);
        for p in placements {
            layout.place(p.tile, p.end)?;
        }
        Ok(layout)
    }

    /// The sum the open ends would have after `tile` went on `end`, or the rule it would break.
    pub fn sum_after(&self, tile: Tile, end: Option<EndId>) -> Result<u32, MoveError> {
        self.check(tile, end)?;
        Ok(self.sum_after_checked(tile, end))
    }

    /// [`sum_after`](Layout::sum_after) for a move already checked (a legal move is), worked out
    /// from the derived tables rather than by placing the tile on a copy of the layout: a move
    /// changes what only two ends count. The end played on counts the new tile instead; and the
    /// first tile on one of the lead's bare arms may change what the other arm counts, if that
    /// is still bare (a double lead then counts whole there, no longer half). Every other end
    /// keeps its count, and the short ends a move opens count nothing while bare.
    #[inline]
    pub(crate) fn sum_after_checked(&self, tile: Tile, end: Option<EndId>) -> u32 {
        let Some(end) = end else {
            // A lead counts both its halves: its own numbers, or half a double on each arm.
            return tile.pips();
        };
        let slot = end.slot();
        let outer = tile
            .other(self.numbers[slot])
            .expect("check() made sure the tile matches");
        let mut sum = self.sum - u32::from(self.counts[slot]) + tip_counts(tile, outer);
        if slot < 2 && self.arms[slot].tip.is_none() {
            let other = 1 - slot;
            if self.arms[other].tip.is_none() {
                sum = sum - u32::from(self.counts[other]) + self.bare_lead_arm_counts(other, false);
            }
        }
        sum
    }

    /// Whether no tile has been played yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tiles on the table.
    pub fn tiles(&self) -> TileSet {
        self.on_table
    }

    /// The tiles in the order they were played, with the end each went on.
    pub fn placements(&self) -> impl Iterator<Item = Placement> + '_ {
        self.nodes[..self.len as usize].iter().map(|n| Placement {
            tile: n.tile,
            end: n.end,
        })
    }

    /// The open ends, in the order left, right, then each spinner's up and down.
    pub fn open_ends(&self) -> impl Iterator<Item = OpenEnd> + '_ {
        self.open_slots().map(|slot| OpenEnd {
            end: EndId::from_slot(slot),
            number: self.numbers[slot],
            counts: u32::from(self.counts[slot]),
        })
    }

    /// The slots of the open arms, in order.
    fn open_slots(&self) -> impl Iterator<Item = usize> + use<> {
        slots(self.open)
    }
    /// The sum of the open ends: what scores when it is a positive multiple of five.
    pub fn sum(&self) -> u32 {
        self.sum
    }

    /// The tiles (of all 28) that match some open end; every tile when the layout is empty.
    pub fn playable(&self) -> TileSet {
        self.playable
    }

    /// Calls `f` with each end `tile` may be played on (`None` once, for a lead).
    #[inline]
    pub fn for_each_fit(&self, tile: Tile, mut f: impl FnMut(Option<EndId>)) {
        if self.is_empty() {
            return f(None);
        }
        let (a, b) = tile.numbers();
        let fits = self.arms_with[a as usize] | self.arms_with[b as usize];
        for slot in slots(fits) {
            f(Some(EndId::from_slot(slot)));
        }
    }

    /// Whether a tile played on `end` makes the same position, but for the arms' names, as the
    /// same tile on an end listed before it: the two are the bare arms of one double (a
    /// spinner's `down` while its `up` is bare too, or a double lead's `right` while its `left`
    /// is bare too), and so mirror images of each other.
    pub fn mirrors_earlier(&self, end: EndId) -> bool {
        let slot = end.slot();
        let bare = |s: usize| self.open & (1 << s) != 0 && self.arms[s].tip.is_none();
        slot % 2 == 1
            && slot < MAX_ARMS
            && bare(slot)
            && bare(slot - 1)
            && self.nodes[self.arms[slot].root as usize].tile.is_double()
    }

    /// Checks that `tile` may go on `end`, without placing it.
    pub fn check(&self, tile: Tile, end: Option<EndId>) -> Result<(), MoveError> {
        // A tile is unique: placing one twice would also overrun the tables below.
        if self.on_table.contains(tile) {
            return Err(MoveError::OnTable { tile });
        }
        let Some(end) = end else {
            return if self.is_empty() {
                Ok(())
            } else {
                Err(MoveError::MissingEnd {
                    ends: self.open_ends().collect(),
                })
            };
        };
        if self.is_empty() {
            return Err(MoveError::LeadHasNoEnd { end });
        }
        let slot = end.slot();
        let arm = self.arms.get(slot).copied().unwrap_or_default();
        if !arm.exists {
            return Err(MoveError::NoSuchEnd {
                end,
                ends: self.open_ends().collect(),
            });
        }
        if !arm.open {
            return Err(MoveError::ShortEndClosed { end });
        }
        if tile.has(self.numbers[slot]) {
            return Ok(());
        }
        let ends: Vec<OpenEnd> = self.open_ends().collect();
        if ends.iter().any(|e| tile.has(e.number)) {
            Err(MoveError::WrongEnd { tile, end, ends })
        } else {
            Err(MoveError::NoMatch { tile, ends })
        }
    }

    /// Places `tile` on `end` (`None` leads), and returns the new sum.
    pub fn place(&mut self, tile: Tile, end: Option<EndId>) -> Result<u32, MoveError> {
        self.check(tile, end)?;
        Ok(self.place_checked(tile, end))
    }

    /// [`place`](Layout::place) for a move already checked.
    pub(crate) fn place_checked(&mut self, tile: Tile, end: Option<EndId>) -> u32 {
        match end {
            None => self.lead(tile),
            Some(end) => self.extend(tile, end.slot()),
        }
        self.refresh();
        self.sum
    }

    /// Derives the open ends, their numbers and counts, the sum and the playable tiles.
    fn refresh(&mut self) {
        self.open = 0;
        self.sum = 0;
        self.playable = TileSet::EMPTY;
        self.arms_with = [0; 7];
        let arms = 2 + 2 * self.spinners as usize;
        for slot in 0..arms {
            if self.arms[slot].open {
                let (number, counts) = (self.number_at(slot), self.counts_at(slot));
                self.open |= 1 << slot;
                self.numbers[slot] = number;
                self.counts[slot] = counts as u8;
                self.sum += counts;
                self.arms_with[number as usize] |= 1 << slot;
                self.playable = self.playable.union(TileSet::with_number(number));
            }
        }
    }

    fn lead(&mut self, tile: Tile) {
        self.push(tile, tile.high(), None);
        for slot in [0, 1] {
            self.arms[slot] = Arm {
                tip: None,
                root: 0,
                open: true,
                exists: true,
            };
        }
    }

    fn extend(&mut self, tile: Tile, slot: usize) {
        let number = self.numbers[slot];
        let outer = tile
            .other(number)
            .expect("check() made sure the tile matches");
        let previous = self.arms[slot].tip;
        let index = self.push(tile, outer, Some(EndId::from_slot(slot)));
        self.arms[slot].tip = Some(index);
        match previous {
            // A spinner on an arm has one long side taken already: covering it opens its short ends.
            Some(covered) => self.open_short_ends(covered),
            // The lead spinner opens once both of its arms are covered.
            None if slot < 2 && self.arms[0].tip.is_some() && self.arms[1].tip.is_some() => {
                self.open_short_ends(0)
            }
            None => {}
        }
    }

    fn open_short_ends(&mut self, node: u8) {
        if let Some(k) = self.nodes[node as usize].spinner {
            let up = EndId::Up(k).slot();
            self.arms[up].open = true;
            self.arms[up + 1].open = true;
        }
    }

    fn push(&mut self, tile: Tile, outer: u8, end: Option<EndId>) -> u8 {
        let index = self.len;
        let spins = tile.is_double()
            && match self.rule {
                SpinnerRule::First => self.spinners == 0,
                SpinnerRule::None => false,
                SpinnerRule::All => true,
            };
        let spinner = spins.then_some(self.spinners);
        if let Some(k) = spinner {
            self.spinners += 1;
            let up = EndId::Up(k).slot();
            let short = Arm {
                tip: None,
                root: index,
                open: false,
                exists: true,
            };
            self.arms[up] = short;
            self.arms[up + 1] = short;
        }
        self.nodes[index as usize] = Node {
            tile,
            outer,
            end,
            spinner,
        };
        self.len += 1;
        self.on_table.insert(tile);
        index
    }

    /// The number a tile must show to go on the arm in `slot`.
    fn number_at(&self, slot: usize) -> u8 {
        let arm = self.arms[slot];
        match arm.tip {
            Some(tip) => self.nodes[tip as usize].outer,
            None => {
                let root = self.nodes[arm.root as usize].tile;
                if slot == 0 { root.low() } else { root.high() }
            }
        }
    }

    /// What the open end in `slot` adds to the sum.
    fn counts_at(&self, slot: usize) -> u32 {
        let arm = self.arms[slot];
        match arm.tip {
            Some(tip) => {
                let node = self.nodes[tip as usize];
                tip_counts(node.tile, node.outer)
            }
            // A bare short end adds nothing: the spinner stopped counting when it opened.
            None if slot >= 2 => 0,
            None => self.bare_lead_arm_counts(slot, self.arms[1 - slot].tip.is_none()),
        }
    }

    /// What the lead's arm in `slot` (0 or 1) adds to the sum while it is bare, given whether
    /// the lead's other arm is bare too.
    fn bare_lead_arm_counts(&self, slot: usize, other_bare: bool) -> u32 {
        let lead = self.nodes[0].tile;
        match (lead.is_double(), other_bare) {
            // A lone double lead counts both halves once, half on each side.
            (true, true) => u32::from(lead.low()),
            (true, false) => 2 * u32::from(lead.low()),
            (false, _) => u32::from(if slot == 0 { lead.low() } else { lead.high() }),
        }
    }
}

/// What an end adds to the sum when `tile` is at its tip showing `outer`: a double counts both
/// halves.
fn tip_counts(tile: Tile, outer: u8) -> u32 {
    let outer = u32::from(outer);
    if tile.is_double() { 2 * outer } else { outer }
}
