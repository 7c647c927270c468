//! Small helpers shared by the test modules.

use allfives_engine::tile::ALL_TILES;
use allfives_engine::{Deal, Seat, Tile, TileSet};

/// The tile written `[a|b]` (panics on a typo in a test).
pub fn t(text: &str) -> Tile {
    text.parse()
        .unwrap_or_else(|e| panic!("bad tile {text:?} in a test: {e}"))
}

/// The tiles written in `texts`, in order.
pub fn ts(texts: &[&str]) -> Vec<Tile> {
    texts.iter().map(|x| t(x)).collect()
}

/// A fixed deal: these hands, a boneyard that starts with `front` and goes on with every tile
/// not dealt yet in canonical order, and this leader.
pub fn deal(hands: &[&[&str]], front: &[&str], leader: Seat) -> Deal {
    let hands: Vec<Vec<Tile>> = hands.iter().map(|h| ts(h)).collect();
    let mut boneyard = ts(front);
    let used: TileSet = hands.iter().flatten().chain(&boneyard).copied().collect();
    boneyard.extend(ALL_TILES.iter().filter(|x| !used.contains(**x)));
    Deal {
        hands,
        boneyard,
        leader,
    }
}
