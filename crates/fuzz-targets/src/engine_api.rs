//! The engine's public API driven by bytes: placements on a bare layout, then a game under any
//! rules, called in any order with any seats, tiles, ends and deals.

use allfives_engine::tile::ALL_TILES;
use allfives_engine::{
    Deal, EndId, Finish, Game, Guess, HandEnd, Layout, Move, Rules, SpinnerRule, Status, Tile,
    TileSet,
};
use arbitrary::{Result, Unstructured};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Placements first, then game calls, until the bytes run out.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = placements(&mut u).and_then(|()| game(&mut u));
}

fn placements(u: &mut Unstructured) -> Result<()> {
    let rule = spinner(u)?;
    let mut layout = Layout::new(rule);
    for _ in 0..u.int_in_range(0..=40)? {
        let (tile, end) = (tile(u)?, end(u)?);
        let on_table = layout.tiles().contains(tile);
        let before = layout.tiles().len();
        let placed = layout.place(tile, end);
        assert!(!(on_table && placed.is_ok()), "{tile} placed twice");
        assert_eq!(layout.tiles().len(), before + usize::from(placed.is_ok()));
    }
    let placed: Vec<_> = layout.placements().collect();
    let rebuilt = Layout::from_placements(rule, &placed).expect("its own placements rebuild");
    assert_eq!(rebuilt.sum(), layout.sum());
    Ok(())
}

fn game(u: &mut Unstructured) -> Result<()> {
    let Ok(mut game) = Game::new(rules(u)?) else {
        return Ok(());
    };
    let mut moves = Vec::new();
    while !u.is_empty() {
        let seat = u.int_in_range(0..=5)?;
        match u.int_in_range(0..=7)? {
            0 => drop(game.deal(&mut ChaCha8Rng::seed_from_u64(u.arbitrary()?))),
            1 => drop(game.start_hand(deal(u)?)),
            2 => drop(game.play(
                seat,
                Move {
                    tile: tile(u)?,
                    end: end(u)?,
                },
            )),
            3 => drop(game.forfeit(seat)),
            4 => {
                let view = game.view(seat);
                let text = serde_json::to_string(&view).expect("a view serializes");
                assert_eq!(serde_json::from_str(&text).ok(), Some(view));
            }
            5 => from_view(u, &game, seat)?,
            _ => {
                game.legal_moves(&mut moves);
                if let (Status::ToPlay { seat }, false) = (game.status(), moves.is_empty()) {
                    let mv = *u.choose(&moves)?;
                    assert!(game.play(seat, mv).is_ok(), "a legal move is refused");
                }
            }
        }
    }
    Ok(())
}

/// A game rebuilt from a seat's view, some of its fields twisted, and the truth or any guess
/// about its hidden tiles: refused with a reason, or a game whose seat on move can play.
fn from_view(u: &mut Unstructured, game: &Game, seat: usize) -> Result<()> {
    let mut view = game.view(seat);
    for _ in 0..u.int_in_range(0..=2)? {
        match u.int_in_range(0..=5)? {
            0 => view.seat = u.int_in_range(0..=5)?,
            1 => view.turn = u.arbitrary::<bool>()?.then_some(u.int_in_range(0..=5)?),
            2 => view.forced = u.arbitrary::<bool>()?.then_some(tile(u)?),
            3 => view.hand = tiles(u)?,
            4 => {
                view.hand_sizes = (0..u.int_in_range(0..=5)?)
                    .map(|_| u.int_in_range(0..=12))
                    .collect::<Result<_>>()?
            }
            _ => view.boneyard = u.int_in_range(0..=28)?,
        }
    }
    let guess = if u.arbitrary()? {
        let players = game.rules().players;
        Guess {
            hands: (0..players).map(|s| game.hand(s)).collect(),
            boneyard: game.boneyard().to_vec(),
        }
    } else {
        let hands = (0..u.int_in_range(0..=5)?).map(|_| Ok(TileSet::from_iter(tiles(u)?)));
        Guess {
            hands: hands.collect::<Result<_>>()?,
            boneyard: tiles(u)?,
        }
    };
    if let Ok(mut sim) = Game::from_view(&view, &guess) {
        let mut moves = Vec::new();
        sim.legal_moves(&mut moves);
        let (Status::ToPlay { seat }, Some(&mv)) = (sim.status(), moves.first()) else {
            panic!("a game from a view has a seat on move, with a legal move");
        };
        assert!(sim.play(seat, mv).is_ok(), "a legal move is refused");
    }
    Ok(())
}

fn rules(u: &mut Unstructured) -> Result<Rules> {
    Ok(Rules {
        players: u.int_in_range(0..=5)?,
        teams: u.arbitrary()?,
        hand_size: u.int_in_range(0..=30)?,
        spinner: spinner(u)?,
        hand_end: *u.choose(&[HandEnd::Penalty, HandEnd::Bonus])?,
        target: u.int_in_range(-5..=300)?,
        finish: *u.choose(&[Finish::Immediate, Finish::EndOfHand])?,
        max_hands: u.int_in_range(0..=6)?,
    })
}

/// A valid deal for 2 to 4 players half the time, so that hands get played; else any.
fn deal(u: &mut Unstructured) -> Result<Deal> {
    if u.arbitrary()? {
        let rules = Rules::new(u.int_in_range(2..=4)?);
        let rng = &mut ChaCha8Rng::seed_from_u64(u.arbitrary()?);
        return Ok(Deal::random(&rules, None, rng).expect("default rules are valid"));
    }
    let mut hands = Vec::new();
    for _ in 0..u.int_in_range(0..=5)? {
        hands.push(tiles(u)?);
    }
    Ok(Deal {
        hands,
        boneyard: tiles(u)?,
        leader: u.int_in_range(0..=5)?,
    })
}

fn tiles(u: &mut Unstructured) -> Result<Vec<Tile>> {
    (0..u.int_in_range(0..=12)?).map(|_| tile(u)).collect()
}

fn tile(u: &mut Unstructured) -> Result<Tile> {
    u.choose(&ALL_TILES).copied()
}

fn spinner(u: &mut Unstructured) -> Result<SpinnerRule> {
    u.choose(&[SpinnerRule::First, SpinnerRule::None, SpinnerRule::All])
        .copied()
}

fn end(u: &mut Unstructured) -> Result<Option<EndId>> {
    Ok(match u.int_in_range(0..=4)? {
        0 => None,
        1 => Some(EndId::Left),
        2 => Some(EndId::Right),
        3 => Some(EndId::Up(u.arbitrary()?)),
        _ => Some(EndId::Down(u.arbitrary()?)),
    })
}
