//! A short look-ahead over one determinization of the hand.
//!
//! Given every hand and the boneyard's order (a [`Sample`]), the rest of the hand is a game of
//! perfect information. [`Search`] plays it out a few turns deep, every seat choosing the move
//! that is best for its side (its side's value minus the mean of the other sides' values), with
//! the engine's own rules for forced draws, passes, going out, blocked hands and reaching the
//! target. Where the look-ahead stops, a hand is worth its side's points so far minus a guess at
//! what its remaining tiles will cost ([`Weights`]).
//!
//! With two sides (two players, or two partnerships) the game is zero-sum and the search is
//! alpha-beta, trying the moves that score most first; with three or four sides it is max-n.

use allfives_engine::game::{HandEnding, hand_points, winner_after_hand};
use allfives_engine::layout::{EndId, Layout, points_of};
use allfives_engine::rules::{Finish, Rules, Seat};
use allfives_engine::tile::{Tile, TileSet};

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

/// The state of the hand inside the search. Cheap to clone: the layout is a fixed-size array.
#[derive(Clone)]
struct State {
    layout: Layout,
    hands: [TileSet; 4],
    /// How many boneyard tiles have been drawn (the boneyard itself lives in [`Search`]).
    drawn: usize,
    /// Points each side scored since the search began.
    gains: [i32; SIDES],
}

/// What a seat may do at the start of its turn.
enum Turn {
    /// Play one of these tiles (after drawing, if it had to).
    Play(State, TileSet),
    /// Pass: nothing plays and the boneyard is empty.
    Pass(State),
    /// Nobody can play: the hand is blocked, with these final values.
    Over(Values),
}

/// How a move in the search ended.
enum Outcome {
    /// Play goes on with the next seat.
    Continue,
    /// The hand (or the game) is over; the values are final.
    Over(Values),
}

/// A look-ahead over one determinization.
pub struct Search<'a> {
    rules: &'a Rules,
    /// Each side's score when the search began.
    scores: &'a [i32],
    boneyard: &'a [Tile],
    weights: Weights,
    root: State,
    /// Positions visited, for measuring.
    pub nodes: u64,
}

impl<'a> Search<'a> {
    /// A search from `layout` with the sample's hands and boneyard.
    pub fn new(
        rules: &'a Rules,
        scores: &'a [i32],
        layout: &Layout,
        sample: &'a Sample,
        weights: Weights,
    ) -> Search<'a> {
        Search {
            rules,
            scores,
            boneyard: &sample.boneyard,
            weights,
            root: State {
                layout: layout.clone(),
                hands: sample.hands,
                drawn: 0,
                gains: [0; SIDES],
            },
            nodes: 0,
        }
    }

    /// How good it is for `seat`'s side that `seat` plays `tile` on `end` now, looking `depth`
    /// more turns ahead: its side's value against the mean of the other sides' values.
    pub fn utility_of(&mut self, seat: Seat, tile: Tile, end: Option<EndId>, depth: u32) -> f32 {
        let mut state = self.root.clone();
        let next = self.rules.next_seat(seat);
        let side = self.rules.side_of(seat);
        match self.play(&mut state, seat, tile, end) {
            Outcome::Over(values) => self.utility(&values, seat),
            // Two sides: a zero-sum game, where alpha-beta pruning gives the same answer faster.
            Outcome::Continue if self.rules.sides() == 2 => {
                let v = self.alpha_beta(&state, next, depth, f32::NEG_INFINITY, f32::INFINITY);
                if side == 0 { v } else { -v }
            }
            Outcome::Continue => {
                let values = self.max_n(&state, next, depth);
                self.utility(&values, seat)
            }
        }
    }

    /// `seat`'s utility: its side's value against the mean of the others'.
    fn utility(&self, values: &Values, seat: Seat) -> f32 {
        let sides = self.rules.sides();
        let mine = self.rules.side_of(seat);
        let others: f32 = (0..sides).filter(|&s| s != mine).map(|s| values[s]).sum();
        values[mine] - others / (sides - 1) as f32
    }

    /// Starts `seat`'s turn: draws for it if nothing plays, and says what it may do.
    fn begin_turn(&self, state: &State, seat: Seat) -> Turn {
        let playable = state.layout.playable();
        let mut state = state.clone();
        let candidates = state.hands[seat].intersection(playable);
        if !candidates.is_empty() {
            return Turn::Play(state, candidates);
        }
        // No tile plays: draw until one does (it must be played), or pass on an empty boneyard.
        while let Some(&tile) = self.boneyard.get(state.drawn) {
            state.drawn += 1;
            state.hands[seat].insert(tile);
            if playable.contains(tile) {
                return Turn::Play(state, TileSet::from_iter([tile]));
            }
        }
        let players = self.rules.players;
        let blocked = state.hands[..players]
            .iter()
            .all(|h| h.intersection(playable).is_empty());
        if blocked {
            Turn::Over(self.hand_over(&state, None))
        } else {
            Turn::Pass(state)
        }
    }

    /// Every move of `seat` from `state`, each with the state after it, most points first (so
    /// that alpha-beta meets good moves early).
    fn children(&self, state: &State, seat: Seat, tiles: TileSet) -> Vec<(State, Outcome)> {
        let mut children = Vec::new();
        for tile in tiles.iter() {
            state.layout.for_each_fit(tile, |end| {
                let mut child = state.clone();
                let outcome = self.play(&mut child, seat, tile, end);
                children.push((child, outcome));
            });
        }
        let side = self.rules.side_of(seat);
        children.sort_by_key(|(child, _)| std::cmp::Reverse(child.gains[side]));
        children
    }

    /// The values after `seat` and the seats after it play `depth` turns, each seat choosing
    /// what is best for its side (max-n search, for three or four sides).
    fn max_n(&mut self, state: &State, seat: Seat, depth: u32) -> Values {
        self.nodes += 1;
        if depth == 0 {
            return self.estimate(state);
        }
        let next = self.rules.next_seat(seat);
        let (state, tiles) = match self.begin_turn(state, seat) {
            Turn::Play(state, tiles) => (state, tiles),
            Turn::Pass(state) => return self.max_n(&state, next, depth - 1),
            Turn::Over(values) => return values,
        };
        let mut best: Option<(f32, Values)> = None;
        for (child, outcome) in self.children(&state, seat, tiles) {
            let values = match outcome {
                Outcome::Over(values) => values,
                Outcome::Continue => self.max_n(&child, next, depth - 1),
            };
            let u = self.utility(&values, seat);
            if best.as_ref().is_none_or(|(b, _)| u > *b) {
                best = Some((u, values));
            }
        }
        best.map_or_else(|| self.estimate(&state), |(_, values)| values)
    }

    /// Side 0's value minus side 1's after `depth` more turns from `seat`, side 0 maximizing
    /// and side 1 minimizing, within the window `alpha..beta` (two sides only).
    fn alpha_beta(
        &mut self,
        state: &State,
        seat: Seat,
        depth: u32,
        mut alpha: f32,
        mut beta: f32,
    ) -> f32 {
        self.nodes += 1;
        let diff = |v: Values| v[0] - v[1];
        if depth == 0 {
            return diff(self.estimate(state));
        }
        let next = self.rules.next_seat(seat);
        let (state, tiles) = match self.begin_turn(state, seat) {
            Turn::Play(state, tiles) => (state, tiles),
            Turn::Pass(state) => return self.alpha_beta(&state, next, depth - 1, alpha, beta),
            Turn::Over(values) => return diff(values),
        };
        let maximizing = self.rules.side_of(seat) == 0;
        let mut best = if maximizing {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        for (child, outcome) in self.children(&state, seat, tiles) {
            let v = match outcome {
                Outcome::Over(values) => diff(values),
                Outcome::Continue => self.alpha_beta(&child, next, depth - 1, alpha, beta),
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

    /// Places a tile for `seat`, scores it, and says whether the hand or game is over.
    fn play(&self, state: &mut State, seat: Seat, tile: Tile, end: Option<EndId>) -> Outcome {
        let Ok(sum) = state.layout.place(tile, end) else {
            // Only legal moves reach here; value an impossible one as hopeless for its side.
            let mut values = self.estimate(state);
            values[self.rules.side_of(seat)] -= WIN;
            return Outcome::Over(values);
        };
        state.hands[seat].remove(tile);
        let side = self.rules.side_of(seat);
        state.gains[side] += points_of(sum) as i32;
        let immediate = self.rules.finish == Finish::Immediate;
        if immediate && self.scores[side] + state.gains[side] >= self.rules.target {
            let mut values = self.totals(state);
            values[side] += WIN;
            return Outcome::Over(values);
        }
        if state.hands[seat].is_empty() {
            return Outcome::Over(self.hand_over(state, Some(seat)));
        }
        Outcome::Continue
    }

    /// Each side's points gained so far.
    fn totals(&self, state: &State) -> Values {
        let mut values = [0.0; SIDES];
        for (v, g) in values.iter_mut().zip(state.gains) {
            *v = g as f32;
        }
        values
    }

    /// Values where the look-ahead stops: points gained, less the expected cost of the tiles held.
    fn estimate(&self, state: &State) -> Values {
        let mut values = self.totals(state);
        for seat in 0..self.rules.players {
            let hand = state.hands[seat];
            let cost =
                self.weights.pips * hand.pips() as f32 + self.weights.tiles * hand.len() as f32;
            values[self.rules.side_of(seat)] -= cost;
        }
        values
    }

    /// Final values of a hand that ended: went out (`Some(seat)`) or blocked (`None`), scored
    /// exactly as the rules score it, with [`WIN`] to a side that thereby wins the game.
    fn hand_over(&self, state: &State, out: Option<Seat>) -> Values {
        let rules = self.rules;
        let sides = rules.sides();
        let pips: Vec<u32> = (0..rules.players).map(|s| state.hands[s].pips()).collect();
        let ending = match out {
            Some(seat) => HandEnding::WentOut { seat },
            None => HandEnding::Blocked,
        };
        // The engine's own end-of-hand scoring, so that the bot's arithmetic cannot drift.
        let points =
            hand_points(rules, ending, &pips).expect("the searched seats are the game's seats");
        let mut values = self.totals(state);
        for side in 0..sides {
            values[side] += points[side] as f32;
        }
        let finals: Vec<i32> = (0..sides)
            .map(|s| self.scores[s] + state.gains[s] + points[s])
            .collect();
        if let Some(w) = winner_after_hand(rules, &finals) {
            values[w] += WIN;
        }
        values
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allfives_engine::layout::Placement;

    fn tile(a: u8, b: u8) -> Tile {
        Tile::new(a, b).expect("a valid tile")
    }

    /// A search on `layout` (built from `placed`) with these hands and an empty boneyard.
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
        let sample = Sample {
            hands: [
                hands[0].iter().copied().collect(),
                hands[1].iter().copied().collect(),
                TileSet::EMPTY,
                TileSet::EMPTY,
            ],
            boneyard: Vec::new(),
        };
        let weights = Weights {
            pips: 0.0,
            tiles: 0.0,
        };
        let mut end = None;
        layout.for_each_fit(play, |e| end = end.or(e));
        let mut search = Search::new(&rules, scores, &layout, &sample, weights);
        search.utility_of(0, play, end, 4)
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
