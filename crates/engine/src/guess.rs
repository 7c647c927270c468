//! A game rebuilt from one seat's [`View`] and a guess at what that seat cannot see, so that a
//! bot can play out the rest of a hand with the real rules (forced draws, passes, blocked hands,
//! scoring, the target) instead of a copy of them.

use crate::error::GuessError;
use crate::game::{Game, MidHand};
use crate::layout::Layout;
use crate::tile::{Tile, TileSet};
use crate::view::View;

/// A guess at the tiles a seat cannot see: where each of its [`View::unseen`] tiles lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guess {
    /// Each seat's hand, indexed by seat. The viewing seat's own entry is ignored: its hand is
    /// the view's.
    pub hands: Vec<TileSet>,
    /// The boneyard in drawing order (the next tile drawn first).
    pub boneyard: Vec<Tile>,
}

impl Game {
    /// The game as `view` shows it, with the hidden tiles placed as `guess` says: the seat on
    /// move may then play, and the engine carries the hand (and the game) on exactly as the
    /// referee would. The new game's events begin at this moment.
    ///
    /// The guess must put every tile of [`View::unseen`] in exactly one place, give each seat as
    /// many tiles as the view says it holds, and leave the seat on move a tile it can play.
    ///
    /// ```
    /// use allfives_engine::{Game, Guess, Rules, Status, TileSet};
    /// use rand::SeedableRng;
    ///
    /// // The referee's game; seat 0 sees only its view.
    /// let mut real = Game::new(Rules::new(2)).expect("default rules are valid");
    /// real.deal(&mut rand::rngs::ChaCha8Rng::seed_from_u64(3)).expect("a deal");
    /// let Status::ToPlay { seat } = real.status() else { panic!("a hand in play") };
    /// let view = real.view(seat);
    ///
    /// // A guess: the first unseen tiles make up the other hand, the rest the boneyard.
    /// let other = 1 - seat;
    /// let unseen: Vec<_> = view.unseen().iter().collect();
    /// let (held, boneyard) = unseen.split_at(view.hand_sizes[other]);
    /// let mut hands = vec![TileSet::EMPTY; 2];
    /// hands[other] = held.iter().copied().collect();
    /// let guess = Guess { hands, boneyard: boneyard.to_vec() };
    ///
    /// let mut sim = Game::from_view(&view, &guess).expect("a consistent guess");
    /// let mut moves = Vec::new();
    /// sim.legal_moves(&mut moves);
    /// sim.play(seat, moves[0]).expect("a legal move");
    /// assert_eq!(sim.layout().placements().count(), 1);
    /// ```
    pub fn from_view(view: &View, guess: &Guess) -> Result<Game, GuessError> {
        let rules = view.rules;
        rules.validate().map_err(GuessError::Rules)?;
        let turn = view.turn.ok_or(GuessError::NoTurn)?;
        let layout = Layout::from_placements(rules.spinner, &view.layout)
            .map_err(|e| GuessError::Layout(e.to_string()))?;
        let hands = hands(view, guess)?;
        check_boneyard(view, guess, &hands)?;
        let forced = view.forced.filter(|_| turn == view.seat);
        if forced.is_none() && hands[turn].intersection(layout.playable()).is_empty() {
            return Err(GuessError::CannotPlay { seat: turn });
        }
        let mut scores = [0; 4];
        for (score, &s) in scores.iter_mut().zip(&view.scores) {
            *score = s;
        }
        let mut drawn = [TileSet::EMPTY; 4];
        drawn[view.seat] = view.drawn.iter().copied().collect();
        Ok(Game::mid_hand(MidHand {
            rules,
            number: view.game,
            scores,
            hand_no: view.hand_number,
            leader: view.leader,
            turn,
            forced,
            hands,
            drawn,
            boneyard: guess.boneyard.clone(),
            layout,
        }))
    }
}

/// Every seat's hand: the view's own, the guess's for the others, each of the view's size.
fn hands(view: &View, guess: &Guess) -> Result<[TileSet; 4], GuessError> {
    let players = view.rules.players;
    if guess.hands.len() != players || view.hand_sizes.len() != players {
        return Err(GuessError::Seats {
            got: guess.hands.len(),
            players,
        });
    }
    let mut hands = [TileSet::EMPTY; 4];
    for (seat, hand) in hands.iter_mut().enumerate().take(players) {
        *hand = if seat == view.seat {
            view.hand.iter().copied().collect()
        } else {
            guess.hands[seat]
        };
        if hand.len() != view.hand_sizes[seat] {
            return Err(GuessError::HandSize {
                seat,
                got: hand.len(),
                expected: view.hand_sizes[seat],
            });
        }
    }
    Ok(hands)
}

/// The boneyard has the view's size, and hands and boneyard hold each unseen tile once.
fn check_boneyard(view: &View, guess: &Guess, hands: &[TileSet; 4]) -> Result<(), GuessError> {
    if guess.boneyard.len() != view.boneyard {
        return Err(GuessError::BoneyardSize {
            got: guess.boneyard.len(),
            expected: view.boneyard,
        });
    }
    let unseen = view.unseen();
    let mut placed = TileSet::EMPTY;
    let others = (0..view.rules.players).filter(|&s| s != view.seat);
    let guessed = others
        .flat_map(|s| hands[s].iter())
        .chain(guess.boneyard.iter().copied());
    for tile in guessed {
        if !unseen.contains(tile) {
            return Err(GuessError::Seen(tile));
        }
        if !placed.insert(tile) {
            return Err(GuessError::Duplicate(tile));
        }
    }
    match unseen.difference(placed).iter().next() {
        Some(tile) => Err(GuessError::Missing(tile)),
        None => Ok(()),
    }
}
