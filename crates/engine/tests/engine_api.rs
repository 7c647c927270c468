//! The public API never panics: arbitrary placements, rules, deals, seats and calls in any order
//! get an answer or a typed error. (The fuzz target `engine_api` drives the same calls from bytes.)

use allfives_engine::game::{hand_points, round_to_five, winner_after_hand};
use allfives_engine::tile::ALL_TILES;
use allfives_engine::{
    Deal, DealError, EndId, Finish, Game, Guess, HandEnd, HandEnding, Layout, Move, MoveError,
    Placement, Rules, SeatError, SpinnerRule, Status, Tile, TileSet, View,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::support::t;

fn any_tile() -> impl Strategy<Value = Tile> {
    (0usize..28).prop_map(|i| Tile::from_index(i).expect("0..28 is a tile index"))
}

/// Any end a caller could name, those no layout has included.
fn any_end() -> impl Strategy<Value = Option<EndId>> {
    prop_oneof![
        Just(None),
        Just(Some(EndId::Left)),
        Just(Some(EndId::Right)),
        any::<u8>().prop_map(|k| Some(EndId::Up(k))),
        any::<u8>().prop_map(|k| Some(EndId::Down(k))),
    ]
}

fn any_spinner() -> impl Strategy<Value = SpinnerRule> {
    prop_oneof![
        Just(SpinnerRule::First),
        Just(SpinnerRule::None),
        Just(SpinnerRule::All)
    ]
}

/// Rules with every field free, the unplayable ones included.
fn any_rules() -> impl Strategy<Value = Rules> {
    (
        0usize..7,
        any::<bool>(),
        0usize..32,
        any_spinner(),
        any::<bool>(),
        -5i32..120,
        any::<bool>(),
        0u32..4,
    )
        .prop_map(
            |(players, teams, hand_size, spinner, bonus, target, immediate, max_hands)| Rules {
                players,
                teams,
                hand_size,
                spinner,
                hand_end: if bonus {
                    HandEnd::Bonus
                } else {
                    HandEnd::Penalty
                },
                target,
                finish: if immediate {
                    Finish::Immediate
                } else {
                    Finish::EndOfHand
                },
                max_hands,
            },
        )
}

/// Each step either plays a tile that fits (`choice % 4 != 0`, so that layouts grow to all 28
/// tiles and past) or names an arbitrary tile and end.
fn step(layout: &Layout, choice: u16, tile: Tile, end: Option<EndId>) -> (Tile, Option<EndId>) {
    if choice.is_multiple_of(4) {
        return (tile, end);
    }
    let mut fits = Vec::new();
    for tile in ALL_TILES
        .into_iter()
        .filter(|t| !layout.tiles().contains(*t))
    {
        layout.for_each_fit(tile, |end| fits.push((tile, end)));
    }
    fits.get(usize::from(choice / 4) % fits.len().max(1))
        .copied()
        .unwrap_or((tile, end))
}

/// Places `tile` on `end` and checks what the layout answers: a refused placement changes
/// nothing, a tile on the table is always refused, an accepted one adds one tile.
fn place_and_check(layout: &mut Layout, tile: Tile, end: Option<EndId>) -> Result<u32, MoveError> {
    let before: Vec<Placement> = layout.placements().collect();
    let (sum, on_table) = (layout.sum(), layout.tiles().contains(tile));
    let checked = layout.check(tile, end);
    let placed = layout.place(tile, end);
    assert_eq!(checked, placed.clone().map(|_| ()));
    let after: Vec<Placement> = layout.placements().collect();
    match &placed {
        Err(_) => {
            assert_eq!(after, before);
            assert_eq!(layout.sum(), sum);
        }
        Ok(new_sum) => {
            assert!(!on_table, "{tile} placed twice");
            assert_eq!(after.len(), before.len() + 1);
            assert_eq!(*new_sum, layout.sum());
        }
    }
    if on_table {
        assert_eq!(placed, Err(MoveError::OnTable { tile }));
    }
    assert_eq!(layout.tiles().len(), after.len());
    placed
}

/// Every call a caller can make of a game, with any arguments.
#[derive(Debug, Clone)]
enum Call {
    Deal(u64),
    StartHand(Deal),
    Play(usize, Tile, Option<EndId>),
    PlayLegal(usize),
    Forfeit(usize),
    Look(usize),
}

fn any_deal() -> impl Strategy<Value = Deal> {
    (
        prop::collection::vec(prop::collection::vec(any_tile(), 0..10), 0..6),
        prop::collection::vec(any_tile(), 0..30),
        0usize..6,
        any::<u64>(),
        0usize..5,
    )
        .prop_map(|(hands, boneyard, leader, seed, players)| {
            // Half the time a valid deal for some table, so that hands get played.
            if seed.is_multiple_of(2) {
                let rules = Rules::new(players.clamp(2, 4));
                let rng = &mut ChaCha8Rng::seed_from_u64(seed);
                return Deal::random(&rules, None, rng).expect("default rules are valid");
            }
            Deal {
                hands,
                boneyard,
                leader,
            }
        })
}

fn any_call() -> impl Strategy<Value = Call> {
    prop_oneof![
        1 => any::<u64>().prop_map(Call::Deal),
        1 => any_deal().prop_map(Call::StartHand),
        2 => (0usize..6, any_tile(), any_end()).prop_map(|(s, t, e)| Call::Play(s, t, e)),
        6 => any::<usize>().prop_map(Call::PlayLegal),
        1 => (0usize..6).prop_map(Call::Forfeit),
        1 => prop_oneof![0usize..6, Just(usize::MAX)].prop_map(Call::Look),
    ]
}

/// Makes one call and checks that the 28 tiles stay each in one place.
fn call(game: &mut Game, call: Call) {
    match call {
        Call::Deal(seed) => {
            let _ = game.deal(&mut ChaCha8Rng::seed_from_u64(seed));
        }
        Call::StartHand(deal) => {
            if let Err(e) = game.start_hand(deal) {
                let _ = e.to_string();
            }
        }
        Call::Play(seat, tile, end) => {
            let checked = game.check(seat, Move { tile, end });
            let played = game.play(seat, Move { tile, end });
            assert_eq!(checked, played.clone().map(|_| ()));
            if let Err(e) = played {
                assert!(!e.to_string().is_empty() && !e.code().is_empty());
            }
        }
        Call::PlayLegal(index) => {
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            if let (Status::ToPlay { seat }, false) = (game.status(), moves.is_empty()) {
                let mv = moves[index % moves.len()];
                assert!(game.play(seat, mv).is_ok(), "a legal move is refused");
            }
        }
        Call::Forfeit(seat) => {
            let _ = game.forfeit(seat);
        }
        Call::Look(seat) => {
            let view = game.view(seat);
            assert_eq!(view.hand, game.hand(seat).iter().collect::<Vec<_>>());
            let _ = (game.drawn(seat), game.boneyard(), game.forced_tile());
        }
    }
    if game.hand_number() > 0 {
        let hands = (0..game.rules().players).map(|s| game.hand(s));
        let boneyard: TileSet = game.boneyard().iter().copied().collect();
        let places: Vec<TileSet> = hands.chain([boneyard, game.layout().tiles()]).collect();
        let count: usize = places.iter().map(|s| s.len()).sum();
        assert_eq!(count, 28, "a tile is lost or in two places: {places:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn placements_never_panic(
        rule in any_spinner(),
        steps in prop::collection::vec((any::<u16>(), any_tile(), any_end()), 0..64),
    ) {
        let mut layout = Layout::new(rule);
        let mut tried = Vec::new();
        for (choice, tile, end) in steps {
            let (tile, end) = step(&layout, choice, tile, end);
            let _ = place_and_check(&mut layout, tile, end);
            tried.push(Placement { tile, end });
        }
        // Rebuilding from every placement tried stops at the first refused one, or agrees.
        let placed: Vec<Placement> = layout.placements().collect();
        match Layout::from_placements(rule, &tried) {
            Ok(rebuilt) => prop_assert_eq!(&rebuilt.placements().collect::<Vec<_>>(), &placed),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
        let rebuilt = Layout::from_placements(rule, &placed).expect("its own placements rebuild");
        prop_assert_eq!(rebuilt.sum(), layout.sum());
    }

    #[test]
    fn game_calls_never_panic(
        rules in any_rules(),
        calls in prop::collection::vec(any_call(), 0..80),
    ) {
        let Ok(mut game) = Game::new(rules) else {
            prop_assert!(rules.validate().is_err());
            return Ok(());
        };
        for c in calls {
            call(&mut game, c);
        }
    }

    #[test]
    fn free_functions_never_panic(
        rules in any_rules(),
        seat in prop_oneof![0usize..6, Just(usize::MAX)],
        out in any::<bool>(),
        pips in prop::collection::vec(any::<u32>(), 0..6),
        scores in prop::collection::vec(any::<i32>(), 0..6),
        seed in any::<u64>(),
    ) {
        let ending = if out { HandEnding::WentOut { seat } } else { HandEnding::Blocked };
        let fits = (!out || seat < rules.players) && pips.len() <= rules.players;
        match hand_points(&rules, ending, &pips) {
            Ok(points) => {
                prop_assert!(fits);
                prop_assert_eq!(points.len(), rules.sides());
            }
            Err(SeatError { players, .. }) => {
                prop_assert!(!fits);
                prop_assert_eq!(players, rules.players);
            }
        }
        let _ = winner_after_hand(&rules, &scores);
        let _ = round_to_five(pips.first().copied().unwrap_or(u32::MAX));
        let next = rules.next_seat(seat);
        prop_assert!(next < rules.players.max(1));
        let dealt = Deal::random(&rules, None, &mut ChaCha8Rng::seed_from_u64(seed));
        prop_assert_eq!(dealt.is_ok(), rules.validate().is_ok());
        if let Ok(deal) = dealt {
            prop_assert_eq!(deal.validate(&rules), Ok(()));
        }
        let odd = Deal { hands: vec![Vec::new(); rules.players], boneyard: ALL_TILES.to_vec(), leader: seat };
        if let Err(e) = odd.validate(&rules) {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}

/// A field of a view changed to anything a caller (or a bot's own parser) could give.
#[derive(Debug, Clone)]
enum Twist {
    Seat(usize),
    Turn(Option<usize>),
    Leader(usize),
    Forced(Option<Tile>),
    Hand(Vec<Tile>),
    Layout(Vec<(Tile, Option<EndId>)>),
    HandSizes(Vec<usize>),
    Boneyard(usize),
    Scores(Vec<i32>),
}

fn any_twist() -> impl Strategy<Value = Twist> {
    let seat = prop_oneof![0usize..6, Just(usize::MAX)];
    prop_oneof![
        seat.clone().prop_map(Twist::Seat),
        prop::option::of(seat.clone()).prop_map(Twist::Turn),
        seat.prop_map(Twist::Leader),
        prop::option::of(any_tile()).prop_map(Twist::Forced),
        prop::collection::vec(any_tile(), 0..12).prop_map(Twist::Hand),
        prop::collection::vec((any_tile(), any_end()), 0..8).prop_map(Twist::Layout),
        prop::collection::vec(0usize..30, 0..6).prop_map(Twist::HandSizes),
        (0usize..30).prop_map(Twist::Boneyard),
        prop::collection::vec(any::<i32>(), 0..6).prop_map(Twist::Scores),
    ]
}

fn twist(view: &mut View, twist: Twist) {
    match twist {
        Twist::Seat(seat) => view.seat = seat,
        Twist::Turn(turn) => view.turn = turn,
        Twist::Leader(seat) => view.leader = seat,
        Twist::Forced(tile) => view.forced = tile,
        Twist::Hand(tiles) => view.hand = tiles,
        Twist::Layout(placed) => {
            view.layout = placed
                .into_iter()
                .map(|(tile, end)| Placement { tile, end })
                .collect()
        }
        Twist::HandSizes(sizes) => view.hand_sizes = sizes,
        Twist::Boneyard(n) => view.boneyard = n,
        Twist::Scores(scores) => view.scores = scores,
    }
}

/// A view of a real game some moves into a hand, and the truth about its hidden tiles.
fn mid_hand(players: usize, seed: u64, moves: usize) -> (Game, View, Guess) {
    let mut game = Game::new(Rules::new(players)).expect("default rules are valid");
    game.deal(&mut ChaCha8Rng::seed_from_u64(seed))
        .expect("a first deal");
    let mut legal = Vec::new();
    for _ in 0..moves {
        game.legal_moves(&mut legal);
        match (game.status(), legal.first()) {
            (Status::ToPlay { seat }, Some(&mv)) => drop(game.play(seat, mv)),
            _ => break,
        }
    }
    let seat = match game.status() {
        Status::ToPlay { seat } => seat,
        _ => 0,
    };
    let view = game.view(seat);
    let guess = Guess {
        hands: (0..players).map(|s| game.hand(s)).collect(),
        boneyard: game.boneyard().to_vec(),
    };
    (game, view, guess)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn games_from_twisted_views_never_panic(
        players in 2usize..=4,
        seed in any::<u64>(),
        moves in 0usize..20,
        twists in prop::collection::vec(any_twist(), 0..3),
        hands in prop::collection::vec(prop::collection::vec(any_tile(), 0..10), 0..6),
        boneyard in prop::option::of(prop::collection::vec(any_tile(), 0..20)),
    ) {
        let (_, mut view, mut guess) = mid_hand(players, seed, moves);
        for t in twists {
            twist(&mut view, t);
        }
        if let Some(boneyard) = boneyard {
            guess = Guess { hands: hands.into_iter().map(TileSet::from_iter).collect(), boneyard };
        }
        let mut moves = Vec::new();
        match Game::from_view(&view, &guess) {
            Ok(mut sim) => {
                // A game it accepts is one the engine can carry on: its seat on move can play.
                sim.legal_moves(&mut moves);
                let Status::ToPlay { seat } = sim.status() else {
                    panic!("a game from a view has a seat on move");
                };
                prop_assert!(!moves.is_empty(), "no legal move in {view:?}");
                prop_assert!(sim.play(seat, moves[0]).is_ok());
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

/// The two panics fuzzing found: a double placed again under `spinner = all` (which made an
/// eighth spinner), and a 29th placement.
#[test]
fn a_tile_on_the_table_is_refused() {
    let mut layout = Layout::new(SpinnerRule::All);
    layout.place(t("[6|6]"), None).expect("a lead");
    assert_eq!(
        layout.place(t("[6|6]"), Some(EndId::Left)),
        Err(MoveError::OnTable { tile: t("[6|6]") })
    );
    // All 28 tiles in one line (a walk through every pair of numbers), then each again.
    let walk = [
        0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 0, 2, 4, 6, 1, 3, 5, 0, 3, 6, 2, 5, 1, 4, 0,
    ];
    let mut full = Layout::new(SpinnerRule::None);
    for (i, pair) in walk.windows(2).enumerate() {
        let tile = Tile::new(pair[0], pair[1]).expect("numbers 0 to 6");
        let end = (i > 0).then_some(EndId::Right);
        full.place(tile, end).expect("the walk goes on");
    }
    assert_eq!(full.tiles(), TileSet::FULL);
    for tile in ALL_TILES {
        assert_eq!(
            full.place(tile, Some(EndId::Left)),
            Err(MoveError::OnTable { tile })
        );
    }
    let mut again: Vec<Placement> = full.placements().collect();
    again.push(Placement {
        tile: t("[3|3]"),
        end: Some(EndId::Right),
    });
    assert!(matches!(
        Layout::from_placements(SpinnerRule::None, &again),
        Err(MoveError::OnTable { .. })
    ));
}

/// Unplayable rules have no deal and no game, with a reason rather than a panic.
#[test]
fn unplayable_rules_are_errors() {
    let mut rules = Rules::new(2);
    rules.players = 0;
    let rng = &mut ChaCha8Rng::seed_from_u64(1);
    assert!(Deal::random(&rules, None, rng).is_err());
    let deal = Deal {
        hands: Vec::new(),
        boneyard: ALL_TILES.to_vec(),
        leader: 0,
    };
    assert!(matches!(deal.validate(&rules), Err(DealError::Rules(_))));
    assert_eq!(rules.next_seat(usize::MAX), 0);
}
