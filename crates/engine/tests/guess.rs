//! A game rebuilt from a seat's view and the true hidden tiles plays on exactly like the real
//! one; a guess that does not fit the view is refused with the reason.

use allfives_engine::{Game, Guess, GuessError, Rules, Status, TileSet, View};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::engine_props::any_rules;

/// The truth about what `view`'s seat cannot see, read from the real game.
fn truth(game: &Game, view: &View) -> Guess {
    Guess {
        hands: (0..view.rules.players).map(|s| game.hand(s)).collect(),
        boneyard: game.boneyard().to_vec(),
    }
}

/// The state two games must share to be the same game.
fn same(a: &Game, b: &Game) -> bool {
    let seats = 0..a.rules().players;
    a.scores() == b.scores()
        && a.hand_number() == b.hand_number()
        && a.layout().placements().eq(b.layout().placements())
        && a.boneyard() == b.boneyard()
        && seats.clone().all(|s| a.hand(s) == b.hand(s))
        && format!("{:?}", a.status()) == format!("{:?}", b.status())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// At every decision of a random game, the rebuilt game and the real one stay the same
    /// game through the rest of the hand, the same moves played in both.
    #[test]
    fn a_game_rebuilt_from_a_view_plays_on_like_the_real_one(
        rules in any_rules(),
        seed in any::<u64>(),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut game = Game::new(rules).expect("valid rules").numbered(3);
        let mut moves = Vec::new();
        let mut sim: Option<Game> = None;
        let mut step = 0u64;
        while game.result().is_none() {
            let Status::ToPlay { seat } = game.status() else {
                game.deal(&mut rng).expect("a deal");
                sim = None;
                continue;
            };
            let view = game.view(seat);
            prop_assert_eq!(view.game, 3);
            if sim.is_none() || step.is_multiple_of(5) {
                let rebuilt = Game::from_view(&view, &truth(&game, &view));
                let rebuilt = rebuilt.map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(rebuilt.view(seat).legal, view.legal.clone());
                // Every other copy keeps no history: it must play exactly the same.
                sim = Some(if step.is_multiple_of(2) { rebuilt.without_history() } else { rebuilt });
            }
            game.legal_moves(&mut moves);
            let mv = moves[(seed.wrapping_add(step) % moves.len() as u64) as usize];
            game.play(seat, mv).expect("a legal move");
            let copy = sim.as_mut().expect("rebuilt above");
            copy.play(seat, mv).expect("the same move is legal in the copy");
            prop_assert!(same(&game, copy), "the copy went its own way at step {}", step);
            step += 1;
        }
    }
}

/// Seat 0's view at the start of a fixed two-player hand, and the true guess.
fn start() -> (Game, View, Guess) {
    let mut game = Game::new(Rules::new(2)).expect("default rules are valid");
    game.deal(&mut ChaCha8Rng::seed_from_u64(5))
        .expect("a deal");
    let Status::ToPlay { seat } = game.status() else {
        panic!("a dealt hand has a seat on move")
    };
    let view = game.view(seat);
    let guess = truth(&game, &view);
    (game, view, guess)
}

#[test]
fn unseen_tiles_are_the_other_hands_and_the_boneyard() {
    let (game, view, _) = start();
    let other = game.hand(1 - view.seat);
    let boneyard: TileSet = game.boneyard().iter().copied().collect();
    assert_eq!(view.unseen(), other.union(boneyard));
}

#[test]
fn a_guess_that_does_not_fit_the_view_is_refused_with_the_reason() {
    let (_, view, guess) = start();
    let other = 1 - view.seat;
    let mine = view.hand[0];

    let mut short = guess.clone();
    short.boneyard.pop();
    let err = Game::from_view(&view, &short).expect_err("a tile short");
    assert!(matches!(err, GuessError::BoneyardSize { .. }), "{err}");

    let mut seen = guess.clone();
    seen.boneyard[0] = mine;
    let err = Game::from_view(&view, &seen).expect_err("one of my tiles hidden");
    assert_eq!(err, GuessError::Seen(mine));

    let mut twice = guess.clone();
    let held = guess.hands[other].iter().next().expect("a tile");
    twice.boneyard[0] = held;
    let err = Game::from_view(&view, &twice).expect_err("a tile in two places");
    assert_eq!(err, GuessError::Duplicate(held));

    let mut seats = guess.clone();
    seats.hands.push(TileSet::EMPTY);
    let err = Game::from_view(&view, &seats).expect_err("three hands for two");
    assert_eq!(err.to_string(), "the guess has 3 hands for 2 players");
}
