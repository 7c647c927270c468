//! A game between builtin bots played straight through the engine: no process, no clock, no
//! log. It plays the moves the referee's own game ([`super::game`]) would: the deals come from
//! the game's seed the same way, each builtin is seeded by [`builtin_seed`], and a builtin is
//! asked only when the seat has a real choice. For measuring ratings and schedules over
//! millions of games (`benches/ladder.rs`), where a log per game would cost more than the game.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::bot::builtin::{Builtin, builtin_seed};
use allfives_engine::game::{Game, GameResult, Move, Status};
use allfives_engine::rules::{Rules, RulesError};
use allfives_engine::view::Choice;

/// Reusable space for the legal moves, so that a long run allocates nothing per turn.
#[derive(Debug, Default)]
pub struct Scratch {
    moves: Vec<Move>,
    choices: Vec<Choice>,
}

/// Plays the game dealt from `seed` under `rules`, seat `s` played by `builtin(s, seed)`: a
/// builtin made for that seat, seeded from `builtin_seed(seed, s)` as the referee seeds it.
pub fn play(
    rules: Rules,
    seed: u64,
    mut builtin: impl FnMut(usize, u64) -> Builtin,
    scratch: &mut Scratch,
) -> Result<GameResult, RulesError> {
    let mut seats: Vec<Builtin> = (0..rules.players)
        .map(|s| builtin(s, builtin_seed(seed, s)))
        .collect();
    let mut game = Game::new(rules)?.without_history();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    loop {
        match game.status() {
            Status::Over(result) => return Ok(result.clone()),
            Status::Dealing { .. } => game.deal(&mut rng).expect("validated rules always deal"),
            Status::ToPlay { seat } => {
                game.legal_moves(&mut scratch.moves);
                let mv = match game.choices(&scratch.moves) {
                    // No real choice: the referee plays it without asking.
                    1 => scratch.moves[0],
                    _ => {
                        game.legal_choices(&mut scratch.moves, &mut scratch.choices);
                        seats[seat]
                            .choose(&scratch.choices)
                            .expect("a seat to play has a legal move")
                    }
                };
                game.play(seat, mv)
                    .expect("the engine accepts a move from its own legal list");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The results of 40 games of seat 0 against seat 1, each seat's builtin made by `bots`.
    fn results(bots: [&str; 2]) -> Vec<GameResult> {
        let mut scratch = Scratch::default();
        (0..40)
            .map(|seed| {
                let make = |s: usize, bot_seed| Builtin::new(bots[s], bot_seed).expect("a builtin");
                play(Rules::new(2), seed, make, &mut scratch).expect("valid rules")
            })
            .collect()
    }

    #[test]
    fn mix_0_plays_as_greedy_and_mix_1_as_random() {
        assert_eq!(results(["mix:0", "mix:1"]), results(["greedy", "random"]));
        assert_eq!(results(["mix:1", "mix:0"]), results(["random", "greedy"]));
        // Between them, a mix plays as neither, the same for the same seeds.
        let half = results(["mix:0.5", "mix:0.5"]);
        assert_eq!(half, results(["mix:0.5", "mix:0.5"]));
        assert_ne!(half, results(["greedy", "greedy"]));
        assert_ne!(half, results(["random", "random"]));
    }

    #[test]
    fn the_stronger_mix_wins_more() {
        let wins = |bots| results(bots).iter().filter(|r| r.ranks[0] == 1).count();
        assert!(wins(["mix:0.1", "mix:0.9"]) > wins(["mix:0.9", "mix:0.1"]) + 10);
    }
}
