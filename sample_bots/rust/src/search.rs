//! A short look-ahead over one determinization of the hand.
//!
//! Given every hand and the boneyard's order (a [`Sample`]), the rest of the hand is a game of
//! perfect information: the engine's own [`Game`], rebuilt from the view and the sample with
//! [`Game::from_view`], plays it with the real rules for forced draws, passes, going out, blocked
//! hands, end-of-hand scoring and reaching the target. [`Search`] plays it out a few decisions
//! deep, every seat choosing the move that is best for its side (its side's value minus the mean
//! of the other sides' values). Where the look-ahead stops, a hand is worth its side's points so
//! far minus a guess at what its remaining tiles will cost ([`Weights`]).
//!
//! With two sides (two players, or two partnerships) the game is zero-sum and the search is
//! alpha-beta, trying the moves that score most first; with three or four sides it is max-n.

use allfives_engine::game::{GameEnding, Move, Status};
use allfives_engine::rules::Seat;
use allfives_engine::view::View;
use allfives_engine::{Game, Guess, GuessError};

use crate::belief::Sample;

/// What reaching the target is worth, in points: far more than any hand can score.
const WIN: f32 = 1000.0;

/// The most sides a game has.
const SIDES: usize = 4;

/// A value for each side (team with partnerships, else seat).
pub type Values = [f32; SIDES];

/// How the search values a hand where it stops looking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Cost of each pip still held (with `hand_end = penalty` they come off the score).
    pub pips: f32,
    /// Cost of each tile still held (more tiles: slower to go out, likelier to draw).
    pub tiles: f32,
}

/// Where a position stands.
enum Outcome {
    /// `seat` is to choose a move, after `passes` seats passed (each pass counts as a turn
    /// of the look-ahead, as a move does).
    Turn {
        /// The seat to choose.
        seat: Seat,
        /// Seats that passed since the last move.
        passes: u32,
    },
    /// The hand (or the game) is over; the values are final.
    Over(Values),
}

/// The positions after each move from one position, and the order to try them in.
struct Children {
    /// Each child with where it stands.
    games: Vec<(Game, Outcome)>,
    /// Minus the mover's side's score after the move, and the child's index: best first.
    order: Vec<(i32, usize)>,
}

impl Children {
    /// The children, best first.
    fn in_order(&self) -> impl Iterator<Item = &(Game, Outcome)> {
        self.order.iter().map(|&(_, i)| &self.games[i])
    }
}

/// A look-ahead over one determinization.
pub struct Search {
    /// The game at the root, the hidden tiles dealt as the sample says.
    root: Game,
    /// Each side's score at the root.
    start: Values,
    weights: Weights,
    /// Positions visited, for measuring.
    pub nodes: u64,
}

impl Search {
    /// A search from `view` with the sample's hands and boneyard.
    pub fn new(view: &View, sample: &Sample, weights: Weights) -> Result<Search, GuessError> {
        let guess = Guess {
            hands: sample.hands[..view.rules.players].to_vec(),
            boneyard: sample.boneyard.clone(),
        };
        let root = Game::from_view(view, &guess)?.without_history();
        let mut start = [0.0; SIDES];
        for (v, &s) in start.iter_mut().zip(root.scores()) {
            *v = s as f32;
        }
        Ok(Search {
            root,
            start,
            weights,
            nodes: 0,
        })
    }

    /// How good it is for `seat`'s side that `seat` plays `mv` now, looking `depth` more
    /// decisions ahead: its side's value against the mean of the other sides' values.
    pub fn utility_of(&mut self, seat: Seat, mv: Move, depth: u32) -> f32 {
        let mut game = self.root.clone();
        if game.play(seat, mv).is_err() {
            // Only legal moves reach here; value an impossible one as hopeless for its side.
            let mut values = self.estimate(&game);
            values[game.rules().side_of(seat)] -= WIN;
            return self.utility(&game, &values, seat);
        }
        let two_sides = game.rules().sides() == 2;
        match self.outcome(&game, seat) {
            Outcome::Over(values) => self.utility(&game, &values, seat),
            // Two sides: a zero-sum game, where alpha-beta pruning gives the same answer faster.
            Outcome::Turn { seat: next, passes } if two_sides => {
                let Some(depth) = self.past_passes(passes, depth) else {
                    let v = self.estimate(&game);
                    return self.utility(&game, &v, seat);
                };
                let v = self.alpha_beta(&game, next, depth, f32::NEG_INFINITY, f32::INFINITY);
                if game.rules().side_of(seat) == 0 {
                    v
                } else {
                    -v
                }
            }
            Outcome::Turn { seat: next, passes } => {
                let values = match self.past_passes(passes, depth) {
                    Some(depth) => self.max_n(&game, next, depth),
                    None => self.estimate(&game),
                };
                self.utility(&game, &values, seat)
            }
        }
    }

    /// `seat`'s utility: its side's value against the mean of the others'.
    fn utility(&self, game: &Game, values: &Values, seat: Seat) -> f32 {
        let sides = game.rules().sides();
        let mine = game.rules().side_of(seat);
        let others: f32 = (0..sides).filter(|&s| s != mine).map(|s| values[s]).sum();
        values[mine] - others / (sides - 1) as f32
    }

    /// Who is to choose after `mover` played, or the final values if the hand or the game is
    /// over. The engine has already made every forced draw and pass and scored an ended hand.
    fn outcome(&self, game: &Game, mover: Seat) -> Outcome {
        match game.status() {
            Status::ToPlay { seat } => {
                let players = game.rules().players;
                let passes = (seat + players - mover - 1) % players;
                Outcome::Turn {
                    seat,
                    passes: passes as u32,
                }
            }
            Status::Dealing { .. } => Outcome::Over(self.gains(game)),
            Status::Over(result) => {
                let mut values = self.gains(game);
                if let GameEnding::Target { side } = result.ending {
                    values[side] += WIN;
                }
                Outcome::Over(values)
            }
        }
    }

    /// Every move of `seat` from `game`, each with the game after it, most points first (so
    /// that alpha-beta meets good moves early).
    fn children(&self, game: &Game, seat: Seat) -> Children {
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let side = game.rules().side_of(seat);
        let mut children = Children {
            games: Vec::with_capacity(moves.len()),
            order: Vec::with_capacity(moves.len()),
        };
        for mv in moves {
            let mut child = game.clone();
            if child.play(seat, mv).is_ok() {
                let outcome = self.outcome(&child, seat);
                children
                    .order
                    .push((-child.scores()[side], children.games.len()));
                children.games.push((child, outcome));
            }
        }
        // Sorting small keys, not whole games, saves moving the games about.
        children.order.sort_unstable();
        children
    }

    /// The values after `seat` and the seats after it make `depth` decisions, each seat choosing
    /// what is best for its side (max-n search, for three or four sides).
    fn max_n(&mut self, game: &Game, seat: Seat, depth: u32) -> Values {
        self.nodes += 1;
        if depth == 0 {
            return self.estimate(game);
        }
        let mut best: Option<(f32, Values)> = None;
        for (child, outcome) in self.children(game, seat).in_order() {
            let values = match *outcome {
                Outcome::Over(values) => values,
                Outcome::Turn { seat: next, passes } => match self.past_passes(passes, depth - 1) {
                    Some(depth) => self.max_n(child, next, depth),
                    None => self.estimate(child),
                },
            };
            let u = self.utility(game, &values, seat);
            if best.as_ref().is_none_or(|(b, _)| u > *b) {
                best = Some((u, values));
            }
        }
        best.map_or_else(|| self.estimate(game), |(_, values)| values)
    }

    /// Side 0's value minus side 1's after `depth` more decisions from `seat`, side 0 maximizing
    /// and side 1 minimizing, within the window `alpha..beta` (two sides only).
    fn alpha_beta(
        &mut self,
        game: &Game,
        seat: Seat,
        depth: u32,
        mut alpha: f32,
        mut beta: f32,
    ) -> f32 {
        self.nodes += 1;
        let diff = |v: Values| v[0] - v[1];
        if depth == 0 {
            return diff(self.estimate(game));
        }
        let maximizing = game.rules().side_of(seat) == 0;
        let mut best = if maximizing {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        for (child, outcome) in self.children(game, seat).in_order() {
            let v = match *outcome {
                Outcome::Over(values) => diff(values),
                Outcome::Turn { seat: next, passes } => match self.past_passes(passes, depth - 1) {
                    Some(depth) => self.alpha_beta(child, next, depth, alpha, beta),
                    None => diff(self.estimate(child)),
                },
            };
            if maximizing {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The depth left after `passes` seats passed with `depth` to go, `None` if the look-ahead
    /// ends among them. Each pass is a position of the look-ahead, as a move is: the budget and
    /// the depths stay those the bot was tuned with.
    fn past_passes(&mut self, passes: u32, depth: u32) -> Option<u32> {
        self.nodes += u64::from(passes.min(depth + 1));
        depth.checked_sub(passes)
    }

    /// Each side's points gained since the root.
    fn gains(&self, game: &Game) -> Values {
        let mut values = [0.0; SIDES];
        for ((v, &s), start) in values.iter_mut().zip(game.scores()).zip(self.start) {
            *v = s as f32 - start;
        }
        values
    }

    /// Values where the look-ahead stops: points gained, less the expected cost of the tiles held.
    fn estimate(&self, game: &Game) -> Values {
        let mut values = self.gains(game);
        let rules = game.rules();
        for seat in 0..rules.players {
            let hand = game.hand(seat);
            let cost =
                self.weights.pips * hand.pips() as f32 + self.weights.tiles * hand.len() as f32;
            values[rules.side_of(seat)] -= cost;
        }
        values
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allfives_engine::layout::{EndId, Layout, Placement};
    use allfives_engine::rules::Rules;
    use allfives_engine::tile::{Tile, TileSet};

    fn tile(a: u8, b: u8) -> Tile {
        Tile::new(a, b).expect("a valid tile")
    }

    /// Seat 0's utility of playing `play` on a line of `placed` tiles, with these hands and
    /// scores; the tiles nobody holds are in the boneyard.
    fn utility(
        rules: Rules,
        scores: &[i32],
        placed: &[Tile],
        hands: [&[Tile]; 2],
        play: Tile,
    ) -> f32 {
        let placements: Vec<Placement> = placed
            .iter()
            .enumerate()
            .map(|(i, &tile)| Placement {
                tile,
                end: (i > 0).then_some(EndId::Right),
            })
            .collect();
        let layout = Layout::from_placements(rules.spinner, &placements).expect("a valid layout");
        let held = hands.map(|h| h.iter().copied().collect::<TileSet>());
        let boneyard: Vec<Tile> = held[0]
            .union(held[1])
            .union(layout.tiles())
            .complement()
            .iter()
            .collect();
        let mut game = Game::new(rules).expect("valid rules");
        game.deal(&mut <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0))
            .expect("a deal");
        let mut view = game.view(0);
        view.turn = Some(0);
        view.forced = None;
        view.drawn = Vec::new();
        view.history = Vec::new();
        view.layout = placements;
        view.hand = held[0].iter().collect();
        view.hand_sizes = vec![held[0].len(), held[1].len()];
        view.boneyard = boneyard.len();
        view.scores = scores.to_vec();
        let sample = Sample {
            hands: [held[0], held[1], TileSet::EMPTY, TileSet::EMPTY],
            boneyard,
        };
        let weights = Weights {
            pips: 0.0,
            tiles: 0.0,
        };
        let mut end = None;
        layout.for_each_fit(play, |e| end = end.or(e));
        let mut search = Search::new(&view, &sample, weights).expect("a consistent sample");
        search.utility_of(0, Move { tile: play, end }, 4)
    }

    #[test]
    fn going_out_scores_the_penalties_exactly() {
        // [6|4] leads; seat 0 goes out with [4|0] (sum 6, no points); seat 1 keeps 22 pips,
        // which round to a 20-point penalty.
        let u = utility(
            Rules::new(2),
            &[0, 0],
            &[tile(6, 4)],
            [&[tile(4, 0)], &[tile(6, 6), tile(5, 5)]],
            tile(4, 0),
        );
        assert_eq!(u, 20.0);
    }

    #[test]
    fn reaching_the_target_outweighs_everything() {
        // At 15 of 20, [5|0] next to the lead [5|5] makes 10 and wins at once.
        let mut rules = Rules::new(2);
        rules.target = 20;
        let hands: [&[Tile]; 2] = [&[tile(5, 0), tile(1, 2)], &[tile(6, 6), tile(3, 4)]];
        let win = utility(rules, &[15, 0], &[tile(5, 5)], hands, tile(5, 0));
        let other = utility(rules, &[15, 0], &[tile(5, 5)], hands, tile(1, 2));
        assert!(win >= WIN, "{win}");
        assert!(other < win, "{other} < {win}");
    }
}
