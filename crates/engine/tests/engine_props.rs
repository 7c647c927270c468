//! Property tests: whole games under random rules, random deals and random legal play, with the
//! invariants checked after every move.

use allfives_engine::deal::below;
use allfives_engine::{
    EndId, Event, Finish, Game, GameEnding, GameResult, HandEnd, HandEnding, Move, MoveError, Play,
    Rules, Seen, SpinnerRule, Status, Tile, TileSet, View,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Rules of every kind, with small targets and hand limits so that games are short.
pub fn any_rules() -> impl Strategy<Value = Rules> {
    (
        2usize..=4,
        any::<bool>(),
        any::<u8>(),
        0u8..3,
        any::<bool>(),
        5i32..=120,
        any::<bool>(),
        1u32..=4,
    )
        .prop_map(
            |(players, teams, size, spinner, bonus, target, immediate, max_hands)| {
                let mut rules = Rules::new(players);
                rules.teams = teams && players == 4;
                rules.hand_size = 1 + usize::from(size) % (28 / players);
                rules.spinner =
                    [SpinnerRule::First, SpinnerRule::None, SpinnerRule::All][usize::from(spinner)];
                rules.hand_end = if bonus {
                    HandEnd::Bonus
                } else {
                    HandEnd::Penalty
                };
                rules.target = target;
                rules.finish = if immediate {
                    Finish::Immediate
                } else {
                    Finish::EndOfHand
                };
                rules.max_hands = max_hands;
                rules
            },
        )
}

/// Every end a move could name, the impossible ones included.
fn every_end() -> Vec<Option<EndId>> {
    let mut ends = vec![None, Some(EndId::Left), Some(EndId::Right)];
    for k in 0..8 {
        ends.push(Some(EndId::Up(k)));
        ends.push(Some(EndId::Down(k)));
    }
    ends
}

/// What the checks carry from one step to the next.
#[derive(Default)]
struct Tracker {
    /// Events already checked.
    seen_events: usize,
    /// Each side's score rebuilt from the events.
    scores: Vec<i32>,
    /// The leader the next deal must have, if the last hand fixed one.
    next_leader: Option<usize>,
}

/// The 28 tiles are each in exactly one place: a hand, the boneyard or the table.
fn check_tiles(game: &Game) {
    let players = game.rules().players;
    let mut places: Vec<TileSet> = (0..players).map(|s| game.hand(s)).collect();
    let boneyard: TileSet = game.boneyard().iter().copied().collect();
    assert_eq!(
        boneyard.len(),
        game.boneyard().len(),
        "boneyard repeats a tile"
    );
    places.push(boneyard);
    places.push(game.layout().tiles());
    let mut all = TileSet::EMPTY;
    let mut count = 0;
    for set in &places {
        assert!(
            all.intersection(*set).is_empty(),
            "a tile is in two places: {places:?}"
        );
        all = all.union(*set);
        count += set.len();
    }
    assert_eq!(all, TileSet::FULL, "tiles lost: {places:?}");
    assert_eq!(count, 28);
    assert_eq!(
        game.layout().placements().count(),
        game.layout().tiles().len()
    );
}

/// Checks the events added since the last call, and the scores they add up to.
fn check_events(game: &Game, tracker: &mut Tracker) {
    let rules = *game.rules();
    for event in game.events_since(tracker.seen_events) {
        match event {
            Event::HandStart { deal, .. } => {
                assert_eq!(deal.validate(&rules), Ok(()));
                if let Some(leader) = tracker.next_leader.take() {
                    assert_eq!(deal.leader, leader, "the seat that went out leads");
                }
            }
            Event::Play(Play {
                seat, sum, points, ..
            }) => {
                let expected = if *sum > 0 && sum.is_multiple_of(5) {
                    *sum
                } else {
                    0
                };
                assert_eq!(*points, expected, "sum {sum}");
                assert!(points.is_multiple_of(5));
                tracker.scores[rules.side_of(*seat)] += *points as i32;
            }
            Event::Draw { .. } | Event::Pass { .. } => {}
            Event::HandEnd(summary) => {
                for (side, p) in summary.points.iter().enumerate() {
                    assert_eq!(p % 5, 0, "end-of-hand points {p}");
                    tracker.scores[side] += p;
                }
                assert_eq!(summary.scores, tracker.scores);
                let pips: Vec<u32> = summary
                    .hands
                    .iter()
                    .map(|h| h.iter().map(|t| t.pips()).sum())
                    .collect();
                assert_eq!(summary.pips, pips);
                match summary.ending {
                    HandEnding::WentOut { seat } => {
                        assert!(summary.hands[seat].is_empty());
                        assert_eq!(summary.next_leader, Some(seat));
                        tracker.next_leader = Some(seat);
                    }
                    HandEnding::Blocked => assert_eq!(summary.next_leader, None),
                }
                match rules.hand_end {
                    HandEnd::Penalty => assert!(summary.points.iter().all(|&p| p <= 0)),
                    HandEnd::Bonus => {
                        assert!(summary.points.iter().all(|&p| p >= 0));
                        assert!(summary.points.iter().filter(|&&p| p > 0).count() <= 1);
                    }
                }
            }
            Event::GameEnd(result) => {
                assert_eq!(Some(&**result), game.result());
                assert_eq!(result.scores, tracker.scores);
                assert_eq!(result.ranks.len(), rules.players);
                assert!(result.ranks.contains(&1));
                if let GameEnding::Target { side } = result.ending {
                    assert!(result.scores[side] >= rules.target);
                    assert!(result.scores.iter().all(|&s| s <= result.scores[side]));
                }
                if result.ending == GameEnding::MaxHands {
                    assert_eq!(result.hands, rules.max_hands);
                }
                check_ranks(&rules, result);
            }
        }
    }
    tracker.seen_events = game.event_count();
    assert_eq!(game.scores(), &tracker.scores[..]);
    assert!(
        game.scores().iter().all(|s| s % 5 == 0),
        "{:?}",
        game.scores()
    );
}

/// Ranks follow the scores (equal scores, equal ranks), a forfeiting side below every other.
fn check_ranks(rules: &Rules, result: &GameResult) {
    let forfeited = match result.ending {
        GameEnding::Forfeit { seat } => Some(rules.side_of(seat)),
        _ => None,
    };
    for a in 0..rules.players {
        for b in 0..rules.players {
            let (side_a, side_b) = (rules.side_of(a), rules.side_of(b));
            let (rank_a, rank_b) = (result.ranks[a], result.ranks[b]);
            if side_a == side_b {
                assert_eq!(rank_a, rank_b, "partners share a rank");
            } else if forfeited == Some(side_a) {
                assert!(rank_a > rank_b, "the forfeit ranks last: {result:?}");
            } else if forfeited != Some(side_b) {
                let (score_a, score_b) = (result.scores[side_a], result.scores[side_b]);
                assert_eq!(score_a.cmp(&score_b), rank_b.cmp(&rank_a), "{result:?}");
            }
        }
    }
}

/// Collects every `[a, b]` pair of small numbers in a JSON value: what a tile looks like.
fn tiles_in_json(value: &serde_json::Value, out: &mut Vec<Tile>) {
    match value {
        serde_json::Value::Array(items) => {
            if let [a, b] = items.as_slice()
                && let (Some(a), Some(b)) = (a.as_u64(), b.as_u64())
                && let Ok(tile) = Tile::new(a.min(255) as u8, b.min(255) as u8)
            {
                out.push(tile);
            }
            for item in items {
                tiles_in_json(item, out);
            }
        }
        serde_json::Value::Object(fields) => {
            for item in fields.values() {
                tiles_in_json(item, out);
            }
        }
        _ => {}
    }
}

/// A seat's view holds its own tiles and the public ones, and never a hidden tile.
fn check_view(game: &Game, seat: usize) {
    let view: View = game.view(seat);
    let own = game.hand(seat);
    let players = game.rules().players;
    let mut hidden: TileSet = game.boneyard().iter().copied().collect();
    for other in (0..players).filter(|&s| s != seat) {
        hidden = hidden.union(game.hand(other));
    }
    assert_eq!(view.hand, own.iter().collect::<Vec<_>>());
    let drawn: TileSet = view.drawn.iter().copied().collect();
    assert_eq!(drawn, game.drawn(seat));
    assert!(drawn.intersection(hidden).is_empty());
    assert_eq!(
        drawn.intersection(own.union(game.layout().tiles())),
        drawn,
        "drawn tiles are held or played"
    );
    if let Some(forced) = view.forced {
        assert!(own.contains(forced));
    }
    assert!(view.legal.iter().all(|c| own.contains(c.tile)));
    let mut moves = Vec::new();
    if view.turn == Some(seat) {
        game.legal_moves(&mut moves);
    }
    let offered: Vec<Move> = view.legal.iter().map(|c| c.to_move()).collect();
    assert_eq!(offered, moves, "the view offers the legal moves");
    for choice in &view.legal {
        let mut after = game.layout().clone();
        let sum = after
            .place(choice.tile, choice.end)
            .expect("a legal move fits");
        assert_eq!(choice.sum, sum);
        let points = if sum > 0 && sum.is_multiple_of(5) {
            sum
        } else {
            0
        };
        assert_eq!(choice.points, points);
    }
    for seen in &view.history {
        if let Seen::Draw { seat: by, tile } = seen {
            assert_eq!(
                tile.is_some(),
                *by == seat,
                "a draw shown to the wrong seat"
            );
        }
    }
    assert_eq!(view.sum, game.layout().sum());
    assert_eq!(view.boneyard, game.boneyard().len());

    // Serialized, the view names no hidden tile outside the public plays.
    let mut json = serde_json::to_value(&view).expect("a view serializes");
    let fields = json.as_object_mut().expect("a view is an object");
    // Not tiles: number pairs that only look like them.
    fields.remove("scores");
    fields.remove("hand_sizes");
    // Public: the layout and the plays of the history.
    fields.remove("layout");
    if let Some(serde_json::Value::Array(history)) = fields.get_mut("history") {
        history.retain(|e| e["type"] != "play");
    }
    let mut named = Vec::new();
    tiles_in_json(&json, &mut named);
    for tile in named {
        assert!(
            !hidden.contains(tile),
            "seat {seat}'s view shows the hidden tile {tile}: {json}"
        );
        assert!(own.contains(tile) || game.drawn(seat).contains(tile));
    }
}

/// The legal moves are exactly the moves `check` accepts, and nobody else may move.
fn check_legal_moves(game: &Game, seat: usize, moves: &[Move]) {
    assert!(!moves.is_empty(), "the seat to play has a move");
    let rules = game.rules();
    for mv in moves {
        assert_eq!(game.check(seat, *mv), Ok(()), "{mv:?} is offered");
    }
    if let Some(forced) = game.forced_tile() {
        assert!(moves.iter().all(|m| m.tile == forced));
    }
    for tile in game.hand(seat).iter() {
        for end in every_end() {
            let mv = Move { tile, end };
            let offered = moves.contains(&mv);
            let accepted = game.check(seat, mv).is_ok();
            assert_eq!(offered, accepted, "{mv:?}: {:?}", game.check(seat, mv));
            for other in (0..rules.players).filter(|&s| s != seat) {
                assert_eq!(
                    game.check(other, mv),
                    Err(MoveError::NotYourTurn {
                        seat: other,
                        turn: seat
                    })
                );
            }
        }
    }
    let mut unique = moves.to_vec();
    unique.sort_by_key(|m| (m.tile, m.end));
    unique.dedup();
    assert_eq!(unique.len(), moves.len(), "a move is offered twice");
}

/// Every check that holds at any moment of a game.
fn check_state(game: &Game, tracker: &mut Tracker) {
    check_events(game, tracker);
    if game.hand_number() > 0 {
        check_tiles(game);
        let ends = game.layout().open_ends().count();
        match game.rules().spinner {
            SpinnerRule::None => assert!(ends <= 2),
            SpinnerRule::First => assert!(ends <= 4),
            SpinnerRule::All => assert!(ends <= 16),
        }
        for seat in 0..game.rules().players {
            check_view(game, seat);
        }
    }
    match game.status() {
        Status::ToPlay { .. } => assert!(game.result().is_none()),
        Status::Dealing { leader } => {
            assert!(game.result().is_none());
            assert_eq!(leader, tracker.next_leader);
        }
        Status::Over(result) => assert_eq!(Some(result), game.result()),
    }
}

/// Plays one whole game at random and checks everything after every step.
/// With `forfeit = Some((step, seat))`, that seat forfeits at that step if the game lasts.
fn play_game(rules: Rules, seed: u64, forfeit: Option<(usize, usize)>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(rules).expect("valid rules");
    let mut tracker = Tracker {
        scores: vec![0; rules.sides()],
        ..Tracker::default()
    };
    let mut moves = Vec::new();
    check_state(&game, &mut tracker);
    for step in 0..10_000 {
        if let Some((at, seat)) = forfeit
            && at == step
            && game.result().is_none()
        {
            let seat = seat % rules.players;
            game.forfeit(seat).expect("a game in progress");
            assert_eq!(
                game.result().map(|r| r.ending),
                Some(GameEnding::Forfeit { seat })
            );
        }
        match game.status() {
            Status::Over(_) => break,
            Status::Dealing { .. } => game.deal(&mut rng).expect("a deal when dealing"),
            Status::ToPlay { seat } => {
                game.legal_moves(&mut moves);
                check_legal_moves(&game, seat, &moves);
                let mv = moves[below(&mut rng, moves.len() as u32) as usize];
                let points = game.play(seat, mv).expect("a legal move is accepted");
                assert!(points.is_multiple_of(5));
                let last_play = game.events().iter().rev().find_map(|e| match e {
                    Event::Play(Play {
                        seat,
                        tile,
                        end,
                        points,
                        ..
                    }) => Some((
                        *seat,
                        Move {
                            tile: *tile,
                            end: *end,
                        },
                        *points,
                    )),
                    _ => None,
                });
                assert_eq!(last_play, Some((seat, mv, points)));
            }
        }
        check_state(&game, &mut tracker);
    }
    let result = game.result().expect("the game ended within 10,000 steps");
    assert!(result.hands <= rules.max_hands);
    let mut none = Vec::new();
    game.legal_moves(&mut none);
    assert!(none.is_empty());
}

/// Plays one game at random and, before every move, holds what each legal move would make of
/// the sum (as [`Game::legal_choices`] and [`Layout::sum_after`] work it out) equal to placing the
/// tile on a copy of the layout; and any other tile and end `sum_after` refuses as `place` does.
///
/// [`Layout::sum_after`]: allfives_engine::Layout::sum_after
fn check_sums_after(rules: Rules, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(rules).expect("valid rules");
    let (mut moves, mut choices) = (Vec::new(), Vec::new());
    while game.result().is_none() {
        let Status::ToPlay { seat } = game.status() else {
            game.deal(&mut rng).expect("a deal when dealing");
            continue;
        };
        let layout = game.layout();
        game.legal_choices(&mut moves, &mut choices);
        assert_eq!(choices.len(), moves.len());
        for choice in &choices {
            let placed = layout.clone().place(choice.tile, choice.end);
            assert_eq!(Ok(choice.sum), placed, "{choice:?} on {layout:?}");
            assert_eq!(layout.sum_after(choice.tile, choice.end), placed);
        }
        for tile in game.hand(seat).iter() {
            for end in every_end() {
                let placed = layout.clone().place(tile, end);
                assert_eq!(layout.sum_after(tile, end), placed, "{tile} on {end:?}");
            }
        }
        let mv = moves[below(&mut rng, moves.len() as u32) as usize];
        game.play(seat, mv).expect("a legal move is accepted");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_sum_after_a_move_is_the_sum_of_placing_it(rules in any_rules(), seed in any::<u64>()) {
        // Every spinner rule on each case's other options.
        for spinner in [SpinnerRule::First, SpinnerRule::None, SpinnerRule::All] {
            check_sums_after(Rules { spinner, ..rules }, seed);
        }
    }

    #[test]
    fn random_games_keep_every_invariant(rules in any_rules(), seed in any::<u64>()) {
        prop_assert_eq!(rules.validate(), Ok(()));
        play_game(rules, seed, None);
    }

    #[test]
    fn random_forfeits_rank_last(
        rules in any_rules(),
        seed in any::<u64>(),
        step in 0usize..40,
        seat in 0usize..4,
    ) {
        play_game(rules, seed, Some((step, seat)));
    }

    #[test]
    fn random_layouts_score_their_sum(spinner in 0u8..3, seed in any::<u64>()) {
        let spinner = [SpinnerRule::First, SpinnerRule::None, SpinnerRule::All][usize::from(spinner)];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut layout = allfives_engine::Layout::new(spinner);
        let mut left: Vec<Tile> = allfives_engine::tile::ALL_TILES.to_vec();
        loop {
            let mut fits = Vec::new();
            for &tile in &left {
                layout.for_each_fit(tile, |end| fits.push((tile, end)));
            }
            for &(tile, end) in &fits {
                prop_assert_eq!(layout.check(tile, end), Ok(()));
                prop_assert_eq!(layout.sum_after(tile, end), layout.clone().place(tile, end));
            }
            if fits.is_empty() {
                break;
            }
            let (tile, end) = fits[below(&mut rng, fits.len() as u32) as usize];
            let sum = layout.place(tile, end).expect("a fit is placed");
            prop_assert_eq!(sum, layout.open_ends().map(|e| e.counts).sum::<u32>());
            left.retain(|&t| t != tile);
            prop_assert_eq!(layout.tiles().len() + left.len(), 28);
            let playable = layout.playable();
            for &tile in &left {
                let mut any = false;
                layout.for_each_fit(tile, |_| any = true);
                prop_assert_eq!(any, playable.contains(tile));
            }
        }
    }
}
