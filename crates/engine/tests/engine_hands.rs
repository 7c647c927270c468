//! The end of a hand and of the game, with fixed deals small enough to play by hand.

use allfives_engine::game::round_to_five;
use allfives_engine::{
    DealError, EndId, Event, Finish, Game, GameEnding, HandEnd, HandEnding, HandSummary, Move,
    MoveError, Rules, Seat, Seen, SpinnerRule, Status,
};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::support::{deal, t, ts};

const L: Option<EndId> = Some(EndId::Left);
const R: Option<EndId> = Some(EndId::Right);

fn rules(players: usize, hand_size: usize, hand_end: HandEnd) -> Rules {
    let mut rules = Rules::new(players);
    rules.hand_size = hand_size;
    rules.hand_end = hand_end;
    rules.target = 1000;
    rules
}

fn play(game: &mut Game, seat: Seat, tile: &str, end: Option<EndId>) -> u32 {
    let mv = Move { tile: t(tile), end };
    game.play(seat, mv)
        .unwrap_or_else(|e| panic!("seat {seat} {tile} on {end:?}: {e}"))
}

/// The summary of the last hand that ended.
fn last_hand_end(game: &Game) -> HandSummary {
    game.events()
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::HandEnd(summary) => Some((**summary).clone()),
            _ => None,
        })
        .expect("a hand has ended")
}

#[test]
fn round_to_five_follows_the_rulebook() {
    for (pips, rounded) in [
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 5),
        (4, 5),
        (5, 5),
        (6, 5),
        (7, 5),
        (8, 10),
        (12, 10),
        (13, 15),
        (14, 15),
        (17, 15),
        (18, 20),
        (63, 65),
        (81, 80),
    ] {
        assert_eq!(round_to_five(pips), rounded, "{pips} pips");
    }
}

/// Two players, one tile each: seat 0 leads [0|1] (sum 1, no score) and goes out at once.
fn one_tile_hand(loser: &str, hand_end: HandEnd) -> Game {
    let mut game = Game::new(rules(2, 1, hand_end)).expect("valid rules");
    game.start_hand(deal(&[&["[0|1]"], &[loser]], &[], 0))
        .expect("valid deal");
    assert_eq!(play(&mut game, 0, "[0|1]", None), 0);
    game
}

#[test]
fn rounding_at_real_hand_ends() {
    for (loser, pips, rounded) in [("[1|6]", 7, 5), ("[2|6]", 8, 10), ("[6|6]", 12, 10)] {
        let game = one_tile_hand(loser, HandEnd::Penalty);
        let summary = last_hand_end(&game);
        assert_eq!(summary.ending, HandEnding::WentOut { seat: 0 });
        assert_eq!(summary.pips, vec![0, pips]);
        assert_eq!(summary.hands, vec![vec![], ts(&[loser])]);
        assert_eq!(summary.points, vec![0, -rounded], "penalty for {loser}");
        assert_eq!(game.scores(), &[0, -rounded]);

        let game = one_tile_hand(loser, HandEnd::Bonus);
        let summary = last_hand_end(&game);
        assert_eq!(summary.points, vec![rounded, 0], "bonus for {loser}");
        assert_eq!(game.scores(), &[rounded, 0]);
    }
    // 13 pips left by two opponents: 7 + 6 rounds to 15 when counted together (bonus) and to
    // 5 + 5 when each hand is rounded on its own (penalty).
    for (hand_end, points) in [
        (HandEnd::Bonus, vec![15, 0, 0]),
        (HandEnd::Penalty, vec![0, -5, -5]),
    ] {
        let mut game = Game::new(rules(3, 1, hand_end)).expect("valid rules");
        game.start_hand(deal(&[&["[0|1]"], &["[1|6]"], &["[1|5]"]], &[], 0))
            .expect("valid deal");
        play(&mut game, 0, "[0|1]", None);
        let summary = last_hand_end(&game);
        assert_eq!(summary.pips, vec![0, 7, 6]);
        assert_eq!(summary.points, points, "{hand_end:?}");
        assert_eq!(game.scores(), &points[..]);
    }
}

/// Four players in partnerships, two tiles each. Seat 0 leads [1|2]; [2|6], [1|6], [5|6]
/// follow; seat 0 goes out with [6|0] for 5 points. Left: seat 1 [3|4] (7), seat 2 [4|4] (8),
/// seat 3 [2|5] (7).
fn partnership_hand(hand_end: HandEnd) -> Game {
    let mut rules = rules(4, 2, hand_end);
    assert!(rules.teams);
    rules.spinner = SpinnerRule::First;
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(deal(
        &[
            &["[1|2]", "[0|6]"],
            &["[2|6]", "[3|4]"],
            &["[1|6]", "[4|4]"],
            &["[5|6]", "[2|5]"],
        ],
        &[],
        0,
    ))
    .expect("valid deal");
    assert_eq!(play(&mut game, 0, "[1|2]", None), 0);
    assert_eq!(play(&mut game, 1, "[2|6]", R), 0);
    assert_eq!(play(&mut game, 2, "[1|6]", L), 0);
    assert_eq!(play(&mut game, 3, "[5|6]", L), 0);
    assert_eq!(play(&mut game, 0, "[6|0]", R), 5);
    game
}

#[test]
fn partnerships_penalty_rounds_each_partner_on_its_own() {
    let game = partnership_hand(HandEnd::Penalty);
    let summary = last_hand_end(&game);
    assert_eq!(summary.ending, HandEnding::WentOut { seat: 0 });
    assert_eq!(summary.pips, vec![0, 7, 8, 7]);
    // Team 0: 0 and 8 -> 10. Team 1: 7 -> 5 and 7 -> 5, so 10 (not 14 -> 15).
    assert_eq!(summary.points, vec![-10, -10]);
    assert_eq!(game.scores(), &[-5, -10]);
    assert_eq!(summary.scores, vec![-5, -10]);
    assert_eq!(summary.next_leader, Some(0));
}

#[test]
fn partnerships_bonus_counts_both_opponents_rounded_once() {
    let game = partnership_hand(HandEnd::Bonus);
    let summary = last_hand_end(&game);
    // Seats 1 and 3 hold 7 + 7 = 14 -> 15; the partner's [4|4] does not count.
    assert_eq!(summary.points, vec![15, 0]);
    assert_eq!(game.scores(), &[20, 0]);
}

/// The ten plays (spinner = none) that use up every tile showing 0 and leave 0 at both ends:
/// [0|0], [0|1] L, [1|2] L, [2|0] L, [0|3] R, [3|4] R, [4|0] R, [0|5] L (5 points), [5|6] L,
/// [6|0] L. Seats take turns from seat 0.
const BLOCKING_LINE: [(&str, Option<EndId>, u32); 10] = [
    ("[0|0]", None, 0),
    ("[0|1]", L, 0),
    ("[1|2]", L, 0),
    ("[2|0]", L, 0),
    ("[0|3]", R, 0),
    ("[3|4]", R, 0),
    ("[4|0]", R, 0),
    ("[0|5]", L, 5),
    ("[5|6]", L, 0),
    ("[6|0]", L, 0),
];

/// Plays the blocking line: the hand must be blocked after it.
fn play_blocking_line(game: &mut Game) {
    let players = game.rules().players;
    for (i, &(tile, end, points)) in BLOCKING_LINE.iter().enumerate() {
        let seat = i % players;
        assert_eq!(game.status(), Status::ToPlay { seat }, "play {}", i + 1);
        assert_eq!(play(game, seat, tile, end), points, "play {}", i + 1);
    }
    assert_eq!(game.layout().sum(), 0);
    let summary = last_hand_end(game);
    assert_eq!(summary.ending, HandEnding::Blocked);
    assert_eq!(summary.next_leader, None);
    assert_eq!(game.status(), Status::Dealing { leader: None });
}

/// Two players, 14 tiles each (no boneyard). Seat 0's leftovers hold 63 pips; seat 1's hold
/// 63 too, or 57 and 69 when `unequal` swaps [1|1] and [4|4].
fn blocked_two_player(hand_end: HandEnd, unequal: bool) -> Game {
    let mut rules = rules(2, 14, hand_end);
    rules.spinner = SpinnerRule::None;
    let mut zero = vec!["[0|0]", "[1|2]", "[0|3]", "[0|4]", "[5|6]"];
    let mut one = vec!["[0|1]", "[0|2]", "[3|4]", "[0|5]", "[0|6]"];
    let (low, high) = if unequal {
        ("[4|4]", "[1|1]")
    } else {
        ("[1|1]", "[4|4]")
    };
    zero.extend([
        "[6|6]", "[5|5]", "[4|6]", "[4|5]", low, "[1|3]", "[2|2]", "[1|4]", "[1|6]",
    ]);
    one.extend([
        "[1|5]", "[2|3]", "[2|4]", "[2|5]", "[2|6]", "[3|3]", "[3|5]", "[3|6]", high,
    ]);
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(deal(&[&zero, &one], &[], 0))
        .expect("valid deal");
    assert!(game.boneyard().is_empty());
    play_blocking_line(&mut game);
    game
}

/// Checks the blocked hand that `blocked` deals and plays (`what` says which): the leftover
/// `pips`, and with a bonus and with a penalty the points the hand scores and the game's scores
/// after it (the blocking line itself scores 5 for the seat that plays [0|5]).
fn check_blocked<const SIDES: usize>(
    what: &str,
    blocked: impl Fn(HandEnd) -> Game,
    pips: &[u32],
    bonus: ([i32; SIDES], [i32; SIDES]),
    penalty: ([i32; SIDES], [i32; SIDES]),
) {
    for (hand_end, (points, scores)) in [(HandEnd::Bonus, bonus), (HandEnd::Penalty, penalty)] {
        let game = blocked(hand_end);
        let summary = last_hand_end(&game);
        assert_eq!(summary.pips, pips, "{what}, {hand_end:?}: pips");
        assert_eq!(summary.points, points, "{what}, {hand_end:?}: points");
        assert_eq!(game.scores(), scores, "{what}, {hand_end:?}: scores");
    }
}

#[test]
fn blocked_hand_with_a_tie_or_a_unique_lowest() {
    // Whether seat 1's leftovers are unequal, the pips, then (points, scores) with a bonus and
    // with a penalty. On a tie nobody scores a bonus; with a unique lowest seat 1 holds fewest
    // and scores the other hand's 69 -> 70.
    for (unequal, pips, bonus, penalty) in [
        (false, [63, 63], ([0, 0], [0, 5]), ([-65, -65], [-65, -60])),
        (true, [69, 57], ([0, 70], [0, 75]), ([-70, -55], [-70, -50])),
    ] {
        let what = format!("two players, unequal = {unequal}");
        let blocked = |hand_end| blocked_two_player(hand_end, unequal);
        check_blocked(&what, blocked, &pips, bonus, penalty);
    }
}

/// Four players in partnerships, 7 tiles each (no boneyard), the blocking line played round the
/// table. Leftovers: seat 0 15, seat 1 33, seat 2 30, seat 3 48 pips.
fn blocked_partnerships(hand_end: HandEnd) -> Game {
    let mut rules = rules(4, 7, hand_end);
    rules.spinner = SpinnerRule::None;
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(deal(
        &[
            &[
                "[0|0]", "[0|3]", "[5|6]", "[1|1]", "[1|3]", "[2|2]", "[1|4]",
            ],
            &[
                "[0|1]", "[3|4]", "[0|6]", "[2|5]", "[2|6]", "[3|5]", "[4|6]",
            ],
            &[
                "[1|2]", "[0|4]", "[2|3]", "[1|5]", "[2|4]", "[3|3]", "[1|6]",
            ],
            &[
                "[0|2]", "[0|5]", "[3|6]", "[4|5]", "[4|4]", "[5|5]", "[6|6]",
            ],
        ],
        &[],
        0,
    ))
    .expect("valid deal");
    play_blocking_line(&mut game);
    game
}

#[test]
fn blocked_hand_in_partnerships() {
    check_blocked(
        "partnerships",
        blocked_partnerships,
        &[15, 33, 30, 48],
        // Team 0 holds 45, team 1 holds 81: team 0 scores 81 rounded once, 80 (not 35 + 50).
        ([80, 0], [80, 5]),
        // Each hand rounded on its own: 15 + 30 and 35 + 50 (not 81 -> 80).
        ([-45, -85], [-45, -80]),
    );
}

#[test]
fn the_seat_that_went_out_leads_next() {
    let mut game = Game::new(rules(2, 1, HandEnd::Penalty)).expect("valid rules");
    game.start_hand(deal(&[&["[1|6]"], &["[0|1]"]], &[], 1))
        .expect("valid deal");
    assert_eq!(game.status(), Status::ToPlay { seat: 1 });
    play(&mut game, 1, "[0|1]", None);
    assert_eq!(game.status(), Status::Dealing { leader: Some(1) });
    assert_eq!(last_hand_end(&game).next_leader, Some(1));

    let err = game
        .start_hand(deal(&[&["[1|6]"], &["[0|1]"]], &[], 0))
        .expect_err("seat 1 must lead");
    assert_eq!(
        err,
        DealError::WrongLeader {
            expected: 1,
            got: 0
        }
    );
    assert_eq!(
        err.to_string(),
        "seat 1 went out in the last hand and must lead, not seat 0"
    );
    assert_eq!(game.status(), Status::Dealing { leader: Some(1) });
    assert_eq!(game.hand_number(), 1);

    // A random deal puts the fixed leader in, whatever the generator draws.
    for seed in 0..8 {
        let mut copy = game.clone();
        copy.deal(&mut ChaCha8Rng::seed_from_u64(seed))
            .expect("deal");
        assert_eq!(copy.status(), Status::ToPlay { seat: 1 });
        assert_eq!(copy.leader(), 1);
    }
    game.start_hand(deal(&[&["[1|6]"], &["[0|1]"]], &[], 1))
        .expect("the right leader");
    assert_eq!(game.hand_number(), 2);
    let err = game
        .start_hand(deal(&[&["[1|6]"], &["[0|1]"]], &[], 1))
        .expect_err("a hand is in play");
    assert_eq!(err, DealError::HandInPlay);
}

#[test]
fn after_a_block_any_seat_may_lead() {
    for leader in [0, 1] {
        let mut game = blocked_two_player(HandEnd::Bonus, true);
        let mut hands = [Vec::new(), Vec::new()];
        for (i, tile) in allfives_engine::tile::ALL_TILES.iter().enumerate() {
            hands[i % 2].push(*tile);
        }
        game.start_hand(allfives_engine::Deal {
            hands: hands.to_vec(),
            boneyard: vec![],
            leader,
        })
        .expect("any leader after a block");
        assert_eq!(game.status(), Status::ToPlay { seat: leader });
        assert_eq!(game.hand_number(), 2);
    }
}

#[test]
fn finish_immediate_ends_mid_hand() {
    let mut rules = rules(2, 3, HandEnd::Penalty);
    rules.target = 10;
    rules.finish = Finish::Immediate;
    let hand = deal(
        &[&["[5|5]", "[0|0]", "[1|1]"], &["[2|2]", "[3|3]", "[4|4]"]],
        &[],
        0,
    );
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(hand.clone()).expect("valid deal");
    assert_eq!(play(&mut game, 0, "[5|5]", None), 10);
    let result = game.result().expect("the game is over").clone();
    assert_eq!(result.ending, GameEnding::Target { side: 0 });
    assert_eq!(result.hands, 1);
    assert_eq!(result.scores, vec![10, 0]);
    assert_eq!(result.ranks, vec![1, 2]);
    assert_eq!(game.status(), Status::Over(&result));
    assert!(
        !game.events().iter().any(|e| matches!(e, Event::HandEnd(_))),
        "the unfinished hand is not scored"
    );
    assert_eq!(
        game.events().last(),
        Some(&Event::GameEnd(Box::new(result)))
    );
    assert_eq!(
        game.play(
            1,
            Move {
                tile: t("[2|2]"),
                end: None
            }
        ),
        Err(MoveError::GameOver)
    );
    assert_eq!(game.start_hand(hand.clone()), Err(DealError::GameOver));
    assert_eq!(game.forfeit(1), Err(MoveError::GameOver));

    // The same play under end_of_hand does not end the game.
    rules.finish = Finish::EndOfHand;
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(hand).expect("valid deal");
    play(&mut game, 0, "[5|5]", None);
    assert_eq!(game.result(), None);
    assert!(matches!(game.status(), Status::ToPlay { .. }));
}

#[test]
fn a_bonus_that_reaches_the_target_ends_the_game_after_the_hand() {
    let mut game = {
        let mut rules = rules(2, 1, HandEnd::Bonus);
        rules.target = 10;
        Game::new(rules).expect("valid rules")
    };
    game.start_hand(deal(&[&["[0|1]"], &["[2|6]"]], &[], 0))
        .expect("valid deal");
    play(&mut game, 0, "[0|1]", None);
    let result = game.result().expect("over").clone();
    assert_eq!(result.ending, GameEnding::Target { side: 0 });
    assert_eq!(result.scores, vec![10, 0]);
    let n = game.events().len();
    assert!(matches!(game.events()[n - 2], Event::HandEnd(_)));
    assert!(matches!(game.events()[n - 1], Event::GameEnd(_)));
}

/// Two players, two tiles each, target 5: seat 0 leads [0|5] (5), seat 1 makes the spinner
/// [0|0] on the left (5), seat 0 goes out with [5|6]. Seat 1 keeps [1|1] (2 pips, rounds to 0):
/// 5 to 5 after the hand.
fn level_hand(rules: Rules) -> Game {
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(deal(&[&["[0|5]", "[5|6]"], &["[0|0]", "[1|1]"]], &[], 0))
        .expect("valid deal");
    assert_eq!(play(&mut game, 0, "[0|5]", None), 5);
    assert_eq!(play(&mut game, 1, "[0|0]", L), 5);
    assert_eq!(play(&mut game, 0, "[5|6]", R), 0);
    assert_eq!(game.scores(), &[5, 5]);
    game
}

#[test]
fn end_of_hand_with_a_level_top_plays_another_hand() {
    let mut rules = rules(2, 2, HandEnd::Penalty);
    rules.target = 5;
    rules.finish = Finish::EndOfHand;
    let mut game = level_hand(rules);
    assert_eq!(game.result(), None, "level at the top: no winner yet");
    assert_eq!(game.status(), Status::Dealing { leader: Some(0) });

    // Hand 2: seat 0 scores 5 more, seat 1 nothing.
    game.start_hand(deal(&[&["[0|5]", "[5|6]"], &["[0|1]", "[1|1]"]], &[], 0))
        .expect("valid deal");
    assert_eq!(play(&mut game, 0, "[0|5]", None), 5);
    assert_eq!(play(&mut game, 1, "[0|1]", L), 0);
    assert_eq!(play(&mut game, 0, "[5|6]", R), 0);
    let result = game.result().expect("over");
    assert_eq!(result.ending, GameEnding::Target { side: 0 });
    assert_eq!(result.hands, 2);
    assert_eq!(result.scores, vec![10, 5]);
    assert_eq!(result.ranks, vec![1, 2]);
}

#[test]
fn max_hands_ends_the_game() {
    let mut rules = rules(2, 2, HandEnd::Penalty);
    rules.max_hands = 1;
    let game = level_hand(rules);
    let result = game.result().expect("one hand only");
    assert_eq!(result.ending, GameEnding::MaxHands);
    assert_eq!(result.hands, 1);
    assert_eq!(result.scores, vec![5, 5]);
    assert_eq!(result.ranks, vec![1, 1], "a level top is a draw");

    rules.hand_size = 1;
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(deal(&[&["[0|1]"], &["[1|6]"]], &[], 0))
        .expect("valid deal");
    play(&mut game, 0, "[0|1]", None);
    let result = game.result().expect("one hand only");
    assert_eq!(result.ending, GameEnding::MaxHands);
    assert_eq!(result.scores, vec![0, -5]);
    assert_eq!(result.ranks, vec![1, 2]);
}

#[test]
fn forfeits_rank_below_everyone() {
    // Three players: seat 0 leads [5|5] for 10, then forfeits.
    let mut game = Game::new(rules(3, 2, HandEnd::Penalty)).expect("valid rules");
    game.start_hand(deal(
        &[
            &["[5|5]", "[0|0]"],
            &["[1|1]", "[1|2]"],
            &["[2|2]", "[2|3]"],
        ],
        &[],
        0,
    ))
    .expect("valid deal");
    play(&mut game, 0, "[5|5]", None);
    game.forfeit(0).expect("in play");
    let result = game.result().expect("over");
    assert_eq!(result.ending, GameEnding::Forfeit { seat: 0 });
    assert_eq!(result.scores, vec![10, 0, 0]);
    assert_eq!(result.ranks, vec![3, 1, 1]);

    // Partnerships: team 0 leads by 10 and seat 2 forfeits; the whole team ranks second.
    let mut game = Game::new(rules(4, 1, HandEnd::Penalty)).expect("valid rules");
    game.start_hand(deal(
        &[&["[5|5]"], &["[1|1]"], &["[2|2]"], &["[3|3]"]],
        &[],
        0,
    ))
    .expect("valid deal");
    play(&mut game, 0, "[5|5]", None);
    // Seat 0 went out: team 0 loses [2|2] (5), team 1 loses [1|1] (0) and [3|3] (5).
    assert_eq!(game.scores(), &[5, -5]);
    assert_eq!(game.status(), Status::Dealing { leader: Some(0) });
    game.forfeit(2).expect("between hands");
    let result = game.result().expect("over");
    assert_eq!(result.ending, GameEnding::Forfeit { seat: 2 });
    assert_eq!(result.ranks, vec![2, 1, 2, 1]);
}

#[test]
fn several_forfeits_rank_below_every_seat_that_did_not_forfeit() {
    // Issue 18: greedy against two bots that fail to start gave ranks [1, 3, 1].
    let mut game = Game::new(rules(3, 2, HandEnd::Penalty)).expect("valid rules");
    game.forfeit_seats(&[1, 2]).expect("before the first hand");
    let result = game.result().expect("over");
    assert_eq!(result.ending, GameEnding::Forfeit { seat: 1 });
    assert_eq!(result.ranks, vec![1, 2, 2]);

    // Both players fail: neither is credited a win (ranks [2, 1] before).
    let mut game = Game::new(rules(2, 2, HandEnd::Penalty)).expect("valid rules");
    game.forfeit_seats(&[0, 1]).expect("before the first hand");
    assert_eq!(game.result().expect("over").ranks, vec![1, 1]);

    // Four cut-throat, seats 0 and 3 fail: the two that started share the top.
    let mut cut_throat = rules(4, 2, HandEnd::Penalty);
    cut_throat.teams = false;
    let mut game = Game::new(cut_throat).expect("valid rules");
    game.forfeit_seats(&[0, 3]).expect("before the first hand");
    assert_eq!(game.result().expect("over").ranks, vec![3, 1, 1, 3]);

    // Partnerships: one seat of each team fails; both teams forfeit and share the rank.
    let mut game = Game::new(rules(4, 2, HandEnd::Penalty)).expect("valid rules");
    game.forfeit_seats(&[0, 1]).expect("before the first hand");
    assert_eq!(game.result().expect("over").ranks, vec![1, 1, 1, 1]);

    // A seat out of range changes nothing; an empty list changes nothing.
    let mut game = Game::new(rules(2, 2, HandEnd::Penalty)).expect("valid rules");
    assert!(game.forfeit_seats(&[0, 2]).is_err());
    game.forfeit_seats(&[]).expect("nothing to do");
    assert!(game.result().is_none());
}

#[test]
fn forced_draws_then_the_drawn_tile_is_the_only_legal_one() {
    let mut game = Game::new(rules(2, 2, HandEnd::Penalty)).expect("valid rules");
    game.start_hand(deal(
        &[&["[6|6]", "[0|0]"], &["[0|2]", "[1|3]"]],
        &["[2|3]", "[4|5]", "[1|6]"],
        0,
    ))
    .expect("valid deal");
    assert_eq!(game.boneyard().len(), 24);
    play(&mut game, 0, "[6|6]", None);
    assert_eq!(
        &game.hand_events()[1..],
        &[
            Event::Draw {
                seat: 1,
                tile: t("[2|3]")
            },
            Event::Draw {
                seat: 1,
                tile: t("[4|5]")
            },
            Event::Draw {
                seat: 1,
                tile: t("[1|6]")
            },
        ]
    );
    assert_eq!(game.status(), Status::ToPlay { seat: 1 });
    assert_eq!(game.forced_tile(), Some(t("[1|6]")));
    assert_eq!(game.boneyard().len(), 21);
    assert_eq!(game.hand(1).len(), 5);
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert_eq!(
        moves,
        vec![
            Move {
                tile: t("[1|6]"),
                end: L
            },
            Move {
                tile: t("[1|6]"),
                end: R
            },
        ]
    );

    // The drawer sees its tiles; the other seat sees only that three were drawn.
    let own = game.view(1);
    assert_eq!(own.drawn, ts(&["[1|6]", "[2|3]", "[4|5]"]));
    assert_eq!(own.forced, Some(t("[1|6]")));
    let offered: Vec<Move> = own.legal.iter().map(|c| c.to_move()).collect();
    assert_eq!(offered, moves);
    // Either way the [1|6] shows 1 and the lead [6|6] counts 12 on its bare side: 13.
    assert!(
        own.legal.iter().all(|c| c.sum == 13 && c.points == 0),
        "{:?}",
        own.legal
    );
    assert_eq!(
        own.history[1..],
        [
            Seen::Draw {
                seat: 1,
                tile: Some(t("[2|3]"))
            },
            Seen::Draw {
                seat: 1,
                tile: Some(t("[4|5]"))
            },
            Seen::Draw {
                seat: 1,
                tile: Some(t("[1|6]"))
            },
        ]
    );
    let other = game.view(0);
    assert!(other.drawn.is_empty());
    assert_eq!(other.forced, None);
    assert!(other.legal.is_empty());
    assert_eq!(other.hand_sizes, vec![1, 5]);
    assert_eq!(other.boneyard, 21);
    assert_eq!(
        other.history[1..],
        [Seen::Draw {
            seat: 1,
            tile: None
        }; 3]
    );

    // Seat 1 plays it: 1 + 12 = 13. Seat 0 holds [0|0] only, draws [0|1] (the next in the
    // boneyard) and must play it.
    assert_eq!(play(&mut game, 1, "[1|6]", L), 0);
    assert_eq!(game.status(), Status::ToPlay { seat: 0 });
    assert_eq!(game.forced_tile(), Some(t("[0|1]")));
    game.legal_moves(&mut moves);
    assert!(!moves.is_empty());
    assert!(moves.iter().all(|m| m.tile == t("[0|1]")), "{moves:?}");
}

#[test]
fn passes_when_the_boneyard_is_empty() {
    let mut game = Game::new(rules(2, 14, HandEnd::Penalty)).expect("valid rules");
    game.start_hand(deal(
        &[
            &[
                "[0|6]", "[1|6]", "[2|6]", "[3|6]", "[4|6]", "[5|6]", "[6|6]", "[0|5]", "[1|5]",
                "[2|5]", "[3|5]", "[4|5]", "[5|5]", "[0|0]",
            ],
            &[
                "[0|1]", "[0|2]", "[0|3]", "[0|4]", "[1|1]", "[1|2]", "[1|3]", "[1|4]", "[2|2]",
                "[2|3]", "[2|4]", "[3|3]", "[3|4]", "[4|4]",
            ],
        ],
        &[],
        0,
    ))
    .expect("valid deal");
    assert!(game.boneyard().is_empty());
    play(&mut game, 0, "[6|6]", None);
    assert_eq!(game.events().last(), Some(&Event::Pass { seat: 1 }));
    assert_eq!(game.status(), Status::ToPlay { seat: 0 });
    play(&mut game, 0, "[6|5]", L);
    assert_eq!(game.events().last(), Some(&Event::Pass { seat: 1 }));
    assert_eq!(game.status(), Status::ToPlay { seat: 0 });
    let passes = game
        .hand_events()
        .iter()
        .filter(|e| matches!(e, Event::Pass { seat: 1 }))
        .count();
    assert_eq!(passes, 2);
    assert!(
        !game
            .hand_events()
            .iter()
            .any(|e| matches!(e, Event::Draw { .. }))
    );
    assert_eq!(game.view(0).history.last(), Some(&Seen::Pass { seat: 1 }));
}

#[test]
fn deal_validation_errors() {
    let mut game = Game::new(rules(2, 2, HandEnd::Penalty)).expect("valid rules");
    let good = deal(&[&["[0|0]", "[0|1]"], &["[1|1]", "[1|2]"]], &[], 0);

    let mut dup = good.clone();
    dup.boneyard[0] = t("[0|0]");
    let err = game.start_hand(dup).expect_err("duplicate");
    assert_eq!(err, DealError::Duplicate(t("[0|0]")));
    assert_eq!(err.to_string(), "[0|0] is dealt twice");

    let mut missing = good.clone();
    let gone = missing.boneyard.pop().expect("a boneyard");
    let err = game.start_hand(missing).expect_err("missing");
    assert_eq!(err, DealError::Missing(gone));
    assert_eq!(
        err.to_string(),
        "[6|6] is missing: hands and boneyard together must hold all 28 tiles once each"
    );

    let mut size = good.clone();
    let moved = size.boneyard.pop().expect("a boneyard");
    size.hands[1].push(moved);
    let err = game.start_hand(size).expect_err("hand size");
    assert_eq!(
        err,
        DealError::HandSize {
            seat: 1,
            got: 3,
            expected: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "seat 1's hand has 3 tiles; the rules deal 2"
    );

    let mut hands = good.clone();
    let third = vec![hands.boneyard.remove(0), hands.boneyard.remove(0)];
    hands.hands.push(third);
    let err = game.start_hand(hands).expect_err("three hands");
    assert_eq!(err, DealError::Hands { got: 3, players: 2 });
    assert_eq!(err.to_string(), "the deal has 3 hands for 2 players");

    let mut leader = good.clone();
    leader.leader = 2;
    let err = game.start_hand(leader).expect_err("no seat 2");
    assert_eq!(
        err,
        DealError::Leader {
            leader: 2,
            players: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "the leader must be a seat from 0 to 1, not 2"
    );

    // None of the refusals started a hand.
    assert_eq!(game.status(), Status::Dealing { leader: None });
    assert!(game.events().is_empty());
    game.start_hand(good).expect("the good deal");
    assert_eq!(game.hand_number(), 1);
}

/// A long game keeps only the current hand's events, while `events_since` hands a caller every
/// event once, in order.
#[test]
fn a_game_keeps_only_the_current_hands_events() {
    let mut rules = Rules::new(3);
    rules.target = 1_000_000;
    rules.max_hands = 60;
    let mut game = Game::new(rules).expect("valid rules");
    let rng = &mut ChaCha8Rng::seed_from_u64(3);
    let (mut seen, mut moves, mut most) = (Vec::new(), Vec::new(), 0);
    while game.result().is_none() {
        match game.status() {
            Status::ToPlay { seat } => {
                game.legal_moves(&mut moves);
                game.play(seat, moves[0]).expect("a legal move");
            }
            _ => game.deal(rng).expect("a deal"),
        }
        seen.extend_from_slice(game.events_since(seen.len()));
        assert!(matches!(game.events()[0], Event::HandStart { .. }));
        most = most.max(game.events().len());
    }
    assert_eq!(seen.len(), game.event_count());
    let starts = seen.iter().filter(|e| matches!(e, Event::HandStart { .. }));
    assert_eq!(starts.count(), 60);
    assert!(matches!(seen.last(), Some(Event::GameEnd(_))));
    // A hand has at most 28 plays and draws, and a few passes between plays: far below 60 hands.
    assert!(most < 150, "{most} events kept");
    assert_eq!(game.events_since(0), game.events());
}
