//! The layout as a tree to draw: the lead, its two arms, and off each spinner its two short
//! arms, each tile turned so that its matching number touches the tile it was played on.
//!
//! The engine numbers spinners in the order they were put down, and only doubles spin, so the
//! `N`-th spinner (`upN`/`downN`) is the `N`-th double of the hand that grew short arms.

use serde::Serialize;

use allfives_engine::layout::{EndId, Placement};
use allfives_engine::tile::Tile;

/// A tile as laid: `inner` touches the tile it was played on (for the lead: its left side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Laid {
    /// The tile.
    pub tile: Tile,
    /// The number toward the lead.
    pub inner: u8,
    /// The number away from the lead.
    pub outer: u8,
    /// Its place in the hand's order of play, from 1 (the lead is 1).
    pub order: usize,
    /// For a spinner with tiles on its short ends: its `up` arm and its `down` arm.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<Arm>,
}

/// An arm: the tiles from its root outward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Arm {
    /// The arm's end name.
    pub end: EndId,
    /// Its tiles, nearest the root first.
    pub tiles: Vec<Laid>,
}

/// The whole layout of a hand at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Drawing {
    /// The lead, with the first spinner's arms if it is that spinner.
    pub lead: Laid,
    /// The arm off the lead's left side.
    pub left: Arm,
    /// The arm off the lead's right side.
    pub right: Arm,
}

struct Node {
    tile: Tile,
    inner: u8,
    outer: u8,
    /// The spinner number this double would have, counting doubles in play order.
    double: Option<u8>,
}

/// Arranges placements (in play order, as the engine lists them) into a drawing; `None` for an
/// empty layout. Placements are trusted: they come from the engine.
pub fn draw(placements: &[Placement]) -> Option<Drawing> {
    let (first, rest) = placements.split_first()?;
    let mut nodes = vec![Node {
        tile: first.tile,
        inner: first.tile.low(),
        outer: first.tile.high(),
        double: first.tile.is_double().then_some(0),
    }];
    let mut doubles = u8::from(first.tile.is_double());
    // For each arm: its node indices, outward.
    let mut arms: Vec<(EndId, Vec<usize>)> = Vec::new();
    for p in rest {
        let Some(end) = p.end else { continue };
        let number = open_number(&nodes, &arms, end);
        let outer = p.tile.other(number).unwrap_or(number);
        nodes.push(Node {
            tile: p.tile,
            inner: number,
            outer,
            double: p.tile.is_double().then_some(doubles),
        });
        doubles += u8::from(p.tile.is_double());
        let index = nodes.len() - 1;
        match arms.iter_mut().find(|(e, _)| *e == end) {
            Some((_, tiles)) => tiles.push(index),
            None => arms.push((end, vec![index])),
        }
    }
    let arm = |end: EndId| build_arm(&nodes, &arms, end);
    Some(Drawing {
        lead: laid(&nodes, &arms, 0),
        left: arm(EndId::Left),
        right: arm(EndId::Right),
    })
}

/// The number showing at `end`'s tip before the next tile.
fn open_number(nodes: &[Node], arms: &[(EndId, Vec<usize>)], end: EndId) -> u8 {
    if let Some(&tip) = arms
        .iter()
        .find(|(e, _)| *e == end)
        .and_then(|(_, t)| t.last())
    {
        return nodes[tip].outer;
    }
    match end {
        EndId::Left => nodes[0].inner,
        EndId::Right => nodes[0].outer,
        EndId::Up(k) | EndId::Down(k) => nodes
            .iter()
            .find(|n| n.double == Some(k))
            .map_or(0, |n| n.outer),
    }
}

fn build_arm(nodes: &[Node], arms: &[(EndId, Vec<usize>)], end: EndId) -> Arm {
    let tiles = arms
        .iter()
        .find(|(e, _)| *e == end)
        .map(|(_, t)| t.iter().map(|&i| laid(nodes, arms, i)).collect())
        .unwrap_or_default();
    Arm { end, tiles }
}

fn laid(nodes: &[Node], arms: &[(EndId, Vec<usize>)], index: usize) -> Laid {
    let node = &nodes[index];
    let branches = match node.double {
        Some(k) => [EndId::Up(k), EndId::Down(k)]
            .into_iter()
            .map(|end| build_arm(nodes, arms, end))
            .filter(|arm| !arm.tiles.is_empty())
            .collect(),
        None => Vec::new(),
    };
    Laid {
        tile: node.tile,
        inner: node.inner,
        outer: node.outer,
        order: index + 1,
        branches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Tile {
        text.parse().expect("a tile")
    }

    fn p(tile: &str, end: Option<&str>) -> Placement {
        Placement {
            tile: t(tile),
            end: end.map(|e| e.parse().expect("an end")),
        }
    }

    #[test]
    fn tiles_turn_to_match_and_spinners_branch() {
        let drawing = draw(&[
            p("[5|5]", None),
            p("[3|5]", Some("left")),
            p("[5|2]", Some("right")),
            p("[5|6]", Some("up")),
            p("[6|6]", Some("up")),
            p("[6|1]", Some("up2")),
        ])
        .expect("a layout");
        assert_eq!(drawing.left.tiles[0].outer, 3);
        assert_eq!(drawing.right.tiles[0].outer, 2);
        let up = &drawing.lead.branches[0];
        assert_eq!(up.end, EndId::Up(0));
        assert_eq!((up.tiles[0].inner, up.tiles[0].outer), (5, 6));
        let up2 = &up.tiles[1].branches[0];
        assert_eq!(up2.end, EndId::Up(1));
        assert_eq!(up2.tiles[0].outer, 1);
    }
}
