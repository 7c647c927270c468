//! Choosing a move: every legal move is tried on many sampled deals and the best on average wins.

use std::time::Instant;

use allfives_engine::view::{Choice, View};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::belief::Belief;
use crate::search::{Search, Weights};

/// The bot's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Determinizations tried for each move.
    pub samples: usize,
    /// Turns looked at after the bot's own move (other seats' and its own, draws and passes
    /// included).
    pub depth: u32,
    /// The most positions a move may visit, about 6,000 a millisecond: a move whose first
    /// determinization shows it would need more looks one turn less deep, and so on.
    pub budget: u64,
    /// How a hand is valued where the look-ahead stops.
    pub weights: Weights,
}

impl Default for Params {
    /// The settings tuned against `builtin:greedy` and against other settings (see the header
    /// of `main.rs`).
    fn default() -> Params {
        Params {
            samples: 40,
            depth: 5,
            budget: 400_000,
            weights: Weights {
                pips: 0.2,
                tiles: 0.0,
            },
        }
    }
}

/// A move chosen, with what it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The move.
    pub choice: Choice,
    /// How deep the search looked (0 when there was nothing to search).
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// Each legal move's mean utility over the deals searched, in the view's `legal` order
    /// (empty when there was nothing to search).
    pub estimates: Vec<f32>,
    /// How many sampled deals were searched.
    pub samples: usize,
}

/// The legal move that scores most now, ties to the heaviest tile: the fallback when the view
/// cannot be read (it should not happen) and the tie-break of equal estimates.
pub fn greedy(view: &View) -> Option<Choice> {
    view.legal
        .iter()
        .copied()
        .enumerate()
        .max_by_key(|(i, c)| (c.points, c.tile.pips(), usize::MAX - i))
        .map(|(_, c)| c)
}

/// The move to play in `view` (`None` only if the view offers none). The game's number, the
/// seat and the position seed the sampling, so that a match can be replayed exactly.
///
/// Past `deadline` it stops trying more determinizations and decides on those done: a safety
/// net for slow machines and unoptimised builds, which a release build does not reach with the
/// default settings and clock (so that its play stays reproducible).
pub fn choose(view: &View, params: &Params, deadline: Option<Instant>) -> Option<Decision> {
    let unsearched = |choice| Decision {
        choice,
        depth: 0,
        nodes: 0,
        estimates: Vec::new(),
        samples: 0,
    };
    if view.legal.len() <= 1 {
        return view.legal.first().copied().map(unsearched);
    }
    let Some(belief) = Belief::from_view(view) else {
        return greedy(view).map(unsearched);
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed(view));
    // With nothing hidden every determinization is the same deal: one will do.
    let count = if belief.hidden_count() == 0 {
        1
    } else {
        params.samples.max(1)
    };
    let searches: Result<Vec<Search>, _> = (0..count)
        .map(|_| Search::new(view, &belief.sample(&mut rng), params.weights))
        .collect();
    let Ok(mut searches) = searches else {
        return greedy(view).map(unsearched);
    };

    // Each move's total utility over the samples, at a depth that keeps within the budget.
    let mut depth = params.depth;
    let (mut totals, mut nodes) = evaluate(view, &mut searches[0], depth);
    while depth > 1 && nodes * count as u64 > params.budget {
        depth -= 1;
        (totals, nodes) = evaluate(view, &mut searches[0], depth);
    }
    let mut searched = 1;
    for search in &mut searches[1..] {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        searched += 1;
        let (utilities, n) = evaluate(view, search, depth);
        for (total, u) in totals.iter_mut().zip(utilities) {
            *total += u;
        }
        nodes += n;
    }

    // The best mean; on a tie, the greedy order (points now, then the heaviest tile).
    let choice = view
        .legal
        .iter()
        .zip(&totals)
        .max_by(|(a, ta), (b, tb)| {
            ta.total_cmp(tb)
                .then(a.points.cmp(&b.points))
                .then(a.tile.pips().cmp(&b.tile.pips()))
        })
        .map(|(c, _)| *c)?;
    Some(Decision {
        choice,
        depth,
        nodes,
        estimates: totals.iter().map(|t| t / searched as f32).collect(),
        samples: searched,
    })
}

/// Each legal move's utility on one determinization, and the positions visited.
fn evaluate(view: &View, search: &mut Search, depth: u32) -> (Vec<f32>, u64) {
    search.nodes = 0;
    let utilities = view
        .legal
        .iter()
        .map(|c| search.utility_of(view.seat, c.to_move(), depth))
        .collect();
    (utilities, search.nodes)
}

/// A seed from the game, the seat and the position (SplitMix64 over the numbers).
fn seed(view: &View) -> u64 {
    let mix = |x: u64| {
        let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    [
        view.seat as u64,
        u64::from(view.hand_number),
        view.history.len() as u64,
    ]
    .into_iter()
    .fold(mix(u64::from(view.game)), |acc, x| mix(acc ^ x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use allfives_engine::rules::{Rules, SpinnerRule};
    use allfives_engine::{Game, Status};

    /// Plays whole games, the strong bot in seat 0 against greedy seats, checking that the view
    /// always reads (the belief's counts add up) and every choice is legal and reproducible.
    fn play_games(rules: Rules, games: u64) {
        let params = Params {
            samples: 6,
            depth: 3,
            ..Params::default()
        };
        for g in 0..games {
            let mut game = Game::new(rules)
                .expect("valid rules")
                .numbered(g as u32 + 1);
            let mut rng = ChaCha8Rng::seed_from_u64(g);
            while game.result().is_none() {
                let Status::ToPlay { seat } = game.status() else {
                    game.deal(&mut rng).expect("a deal");
                    continue;
                };
                let view = game.view(seat);
                let choice = if seat % 2 == 0 {
                    assert!(Belief::from_view(&view).is_some(), "unreadable: {view:?}");
                    let decision = choose(&view, &params, None).expect("a move");
                    let again = choose(&view, &params, None).expect("a move");
                    assert_eq!(decision, again, "the same view gives the same move");
                    assert!(view.legal.contains(&decision.choice));
                    assert!(
                        decision.estimates.is_empty()
                            || decision.estimates.len() == view.legal.len()
                    );
                    decision.choice
                } else {
                    greedy(&view).expect("a move")
                };
                game.play(seat, choice.to_move()).expect("a legal move");
            }
        }
    }

    #[test]
    fn plays_legal_reproducible_moves_with_two_players() {
        play_games(Rules::new(2), 3);
    }

    #[test]
    fn plays_with_three_players_and_every_double_spinning() {
        let mut rules = Rules::new(3);
        rules.spinner = SpinnerRule::All;
        play_games(rules, 2);
    }

    #[test]
    fn plays_in_partnerships_without_a_spinner() {
        let mut rules = Rules::new(4);
        rules.spinner = SpinnerRule::None;
        play_games(rules, 2);
    }
}
