//! Scoring during play: a table of layouts built step by step, and the errors of refused moves.
//!
//! The engine lays the lead with its smaller number on the left, so `left` ends start with the
//! lead's low number and `right` ends with its high number.

use allfives_engine::tile::ALL_TILES;
use allfives_engine::{
    Deal, EndId, Event, Game, Layout, Move, MoveError, Play, Rules, SpinnerRule, Status, TileSet,
};

use crate::support::{deal, t};

const LEAD: Option<EndId> = None;
const L: Option<EndId> = Some(EndId::Left);
const R: Option<EndId> = Some(EndId::Right);
const U: Option<EndId> = Some(EndId::Up(0));
const D: Option<EndId> = Some(EndId::Down(0));
const U2: Option<EndId> = Some(EndId::Up(1));
const D2: Option<EndId> = Some(EndId::Down(1));
const U3: Option<EndId> = Some(EndId::Up(2));
const D3: Option<EndId> = Some(EndId::Down(2));

/// One step of a case.
enum Step {
    /// The tile goes on the end; then the open ends add up to `sum` and the play scores `points`.
    P(&'static str, Option<EndId>, u32, u32),
    /// The tile is refused on the end with the error of this code; the layout is unchanged.
    X(&'static str, Option<EndId>, &'static str),
}
use Step::{P, X};

struct Case {
    name: &'static str,
    spinner: SpinnerRule,
    steps: &'static [Step],
}

const FIRST: SpinnerRule = SpinnerRule::First;
const NONE: SpinnerRule = SpinnerRule::None;
const ALL: SpinnerRule = SpinnerRule::All;

const CASES: &[Case] = &[
    Case {
        name: "rulebook example 1, every line",
        spinner: FIRST,
        steps: &[
            P("[5|5]", LEAD, 10, 10),
            P("[5|0]", L, 10, 10),
            P("[5|3]", R, 3, 0),
            P("[5|2]", U, 5, 5),
            P("[5|6]", D, 11, 0),
            P("[3|3]", R, 14, 0),
            P("[3|4]", R, 12, 0),
        ],
    },
    Case {
        // The rulebook plays [4|4] "on the right" of [6|4]; this engine lays the lead [4|6]
        // with its 4 on the left, so the mirror image is played on `left`.
        name: "rulebook example 2, mirrored, every line",
        spinner: FIRST,
        steps: &[
            P("[6|4]", LEAD, 10, 10),
            P("[4|4]", L, 14, 0),
            X("[4|0]", U, "short_end_closed"),
            P("[4|1]", L, 7, 0),
            P("[4|0]", U, 7, 0),
        ],
    },
    Case {
        name: "plain lead scoring nothing, a line without doubles",
        spinner: FIRST,
        steps: &[
            P("[2|1]", LEAD, 3, 0),
            P("[1|4]", L, 6, 0),
            P("[2|4]", R, 8, 0),
            P("[4|3]", L, 7, 0),
            P("[4|6]", R, 9, 0),
        ],
    },
    Case {
        name: "lead [5|0] scores 5",
        spinner: FIRST,
        steps: &[
            P("[5|0]", LEAD, 5, 5),
            P("[0|2]", L, 7, 0),
            P("[5|3]", R, 5, 5),
        ],
    },
    Case {
        name: "lead [5|5] scores 10; its open long side counts 10 until covered",
        spinner: FIRST,
        steps: &[
            P("[5|5]", LEAD, 10, 10),
            P("[5|6]", R, 16, 0),
            X("[5|1]", U, "short_end_closed"),
            X("[5|1]", D, "short_end_closed"),
            P("[5|4]", L, 10, 10),
            P("[5|1]", U, 11, 0),
            P("[5|0]", D, 11, 0),
        ],
    },
    Case {
        name: "lead [6|4] scores 10",
        spinner: FIRST,
        steps: &[
            P("[6|4]", LEAD, 10, 10),
            P("[6|1]", R, 5, 5),
            P("[4|1]", L, 2, 0),
        ],
    },
    Case {
        name: "lead double scoring nothing; a double on a short end counts both halves",
        spinner: FIRST,
        steps: &[
            P("[3|3]", LEAD, 6, 0),
            P("[3|2]", L, 8, 0),
            P("[3|4]", R, 6, 0),
            P("[3|6]", U, 12, 0),
            P("[3|1]", D, 13, 0),
            P("[6|6]", U, 19, 0),
            P("[6|0]", U, 7, 0),
        ],
    },
    Case {
        name: "blank spinner [0|0] led; empty short ends add nothing",
        spinner: FIRST,
        steps: &[
            P("[0|0]", LEAD, 0, 0),
            P("[0|5]", R, 5, 5),
            P("[0|2]", L, 7, 0),
            P("[0|3]", U, 10, 10),
            P("[0|4]", D, 14, 0),
        ],
    },
    Case {
        name: "spinner made later on the left end",
        spinner: FIRST,
        steps: &[
            P("[1|2]", LEAD, 3, 0),
            P("[1|1]", L, 4, 0),
            X("[1|5]", U, "short_end_closed"),
            P("[1|3]", L, 5, 5),
            P("[1|5]", U, 10, 10),
            P("[1|6]", D, 16, 0),
            P("[6|6]", D, 22, 0),
            P("[6|4]", D, 14, 0),
        ],
    },
    Case {
        name: "spinner made later on the right end; a later double at a line end",
        spinner: FIRST,
        steps: &[
            P("[2|3]", LEAD, 5, 5),
            P("[3|3]", R, 8, 0),
            X("[3|0]", D, "short_end_closed"),
            P("[3|1]", R, 3, 0),
            P("[3|0]", U, 3, 0),
            P("[3|5]", D, 8, 0),
            P("[2|2]", L, 10, 10),
            P("[2|6]", L, 12, 0),
        ],
    },
    Case {
        name: "the spinner stops counting once both long sides are covered",
        spinner: FIRST,
        steps: &[
            P("[4|4]", LEAD, 8, 0),
            P("[4|2]", R, 10, 10),
            P("[4|0]", L, 2, 0),
            P("[4|3]", U, 5, 5),
            P("[4|1]", D, 6, 0),
        ],
    },
    Case {
        // Four arms ending in [6|6] (12), [5|5] (10), [4|4] (8) and a plain 5: 35.
        name: "the highest scoring sum, 35",
        spinner: FIRST,
        steps: &[
            P("[0|0]", LEAD, 0, 0),
            P("[0|6]", L, 6, 0),
            P("[0|5]", R, 11, 0),
            P("[6|6]", L, 17, 0),
            P("[5|5]", R, 22, 0),
            P("[0|4]", U, 26, 0),
            P("[4|4]", U, 30, 30),
            P("[0|2]", D, 32, 0),
            P("[2|5]", D, 35, 35),
        ],
    },
    Case {
        // With one spinner a layout has at most four ends: 12 + 10 + 8 + 6 = 36 is the
        // highest sum of all, and it does not score.
        name: "the highest sum with one spinner, 36, scores nothing",
        spinner: FIRST,
        steps: &[
            P("[0|0]", LEAD, 0, 0),
            P("[0|6]", L, 6, 0),
            P("[0|5]", R, 11, 0),
            P("[0|4]", U, 15, 15),
            P("[0|3]", D, 18, 0),
            P("[6|6]", L, 24, 0),
            P("[5|5]", R, 29, 0),
            P("[4|4]", U, 33, 0),
            P("[3|3]", D, 36, 0),
        ],
    },
    Case {
        name: "spinner none: a lead double never opens up and down",
        spinner: NONE,
        steps: &[
            P("[5|5]", LEAD, 10, 10),
            X("[5|1]", U, "no_such_end"),
            P("[5|2]", L, 12, 0),
            P("[5|3]", R, 5, 5),
            X("[5|1]", U, "no_such_end"),
            X("[5|1]", D, "no_such_end"),
            P("[3|3]", R, 8, 0),
            P("[3|4]", R, 6, 0),
        ],
    },
    Case {
        name: "spinner none: a later double is a plain double at a line end",
        spinner: NONE,
        steps: &[
            P("[1|4]", LEAD, 5, 5),
            P("[4|4]", R, 9, 0),
            X("[4|6]", U, "no_such_end"),
            P("[4|6]", R, 7, 0),
        ],
    },
    Case {
        name: "spinner none: blank double lead and doubles at both ends",
        spinner: NONE,
        steps: &[
            P("[0|0]", LEAD, 0, 0),
            P("[0|5]", L, 5, 5),
            P("[0|6]", R, 11, 0),
            P("[6|6]", R, 17, 0),
            P("[5|5]", L, 22, 0),
            P("[5|3]", L, 15, 15),
            P("[6|2]", R, 5, 5),
        ],
    },
    Case {
        name: "spinner all: a second double spins with up2 and down2 once covered",
        spinner: ALL,
        steps: &[
            P("[2|2]", LEAD, 4, 0),
            P("[2|5]", L, 9, 0),
            P("[2|3]", R, 8, 0),
            P("[3|3]", R, 11, 0),
            X("[3|4]", U2, "short_end_closed"),
            P("[3|1]", R, 6, 0),
            P("[3|4]", U2, 10, 10),
            P("[2|0]", U, 10, 10),
            P("[3|6]", D2, 16, 0),
        ],
    },
    Case {
        name: "spinner first: the second double is no spinner",
        spinner: FIRST,
        steps: &[
            P("[2|2]", LEAD, 4, 0),
            P("[2|5]", L, 9, 0),
            P("[2|3]", R, 8, 0),
            P("[3|3]", R, 11, 0),
            P("[3|1]", R, 6, 0),
            X("[3|4]", U2, "no_such_end"),
            X("[3|4]", D2, "no_such_end"),
        ],
    },
    Case {
        name: "spinner all: a double on a short end spins too",
        spinner: ALL,
        steps: &[
            P("[6|6]", LEAD, 12, 0),
            P("[6|1]", L, 13, 0),
            P("[6|2]", R, 3, 0),
            P("[6|5]", U, 8, 0),
            P("[5|5]", U, 13, 0),
            X("[5|4]", U2, "short_end_closed"),
            P("[5|0]", U, 3, 0),
            P("[5|4]", U2, 7, 0),
            P("[5|3]", D2, 10, 10),
        ],
    },
    Case {
        name: "spinner all: plain lead, then three spinners",
        spinner: ALL,
        steps: &[
            P("[1|3]", LEAD, 4, 0),
            P("[3|3]", R, 7, 0),
            P("[3|5]", R, 6, 0),
            P("[1|1]", L, 7, 0),
            P("[3|0]", U, 7, 0),
            P("[1|4]", L, 9, 0),
            P("[1|6]", U2, 15, 15),
            P("[1|2]", D2, 17, 0),
            P("[0|0]", U, 17, 0),
            X("[0|5]", U3, "short_end_closed"),
            P("[0|5]", U, 22, 0),
            P("[0|2]", U3, 24, 0),
            P("[0|6]", D3, 30, 30),
        ],
    },
    Case {
        name: "lead [0|1], a blank spinner made on the left",
        spinner: FIRST,
        steps: &[
            P("[0|1]", LEAD, 1, 0),
            P("[0|0]", L, 1, 0),
            P("[0|4]", L, 5, 5),
            P("[0|5]", U, 10, 10),
            P("[0|6]", D, 16, 0),
            P("[1|4]", R, 19, 0),
        ],
    },
    Case {
        name: "lead [0|5], the spinner [5|5] made on the right scores 10",
        spinner: FIRST,
        steps: &[
            P("[0|5]", LEAD, 5, 5),
            P("[5|5]", R, 10, 10),
            P("[5|6]", R, 6, 0),
            P("[5|4]", U, 10, 10),
            P("[5|1]", D, 11, 0),
        ],
    },
    Case {
        name: "lead [4|6], the spinner [6|6] made on the right",
        spinner: FIRST,
        steps: &[
            P("[4|6]", LEAD, 10, 10),
            P("[6|6]", R, 16, 0),
            P("[6|1]", R, 5, 5),
            P("[6|0]", U, 5, 5),
            P("[6|5]", D, 10, 10),
        ],
    },
    Case {
        name: "scores of 10, 30 and 20 across a cross of doubles",
        spinner: FIRST,
        steps: &[
            P("[5|5]", LEAD, 10, 10),
            P("[5|6]", L, 16, 0),
            P("[5|4]", R, 10, 10),
            P("[5|0]", U, 10, 10),
            P("[5|3]", D, 13, 0),
            P("[6|6]", L, 19, 0),
            P("[4|4]", R, 23, 0),
            P("[3|3]", D, 26, 0),
            P("[0|4]", U, 30, 30),
            P("[4|2]", R, 24, 0),
            P("[3|2]", D, 20, 20),
            P("[6|1]", L, 9, 0),
        ],
    },
    Case {
        name: "scores of 15 and 25; doubles at every end",
        spinner: FIRST,
        steps: &[
            P("[6|6]", LEAD, 12, 0),
            P("[6|3]", L, 15, 15),
            P("[6|5]", R, 8, 0),
            P("[6|4]", U, 12, 0),
            P("[6|1]", D, 13, 0),
            P("[5|5]", R, 18, 0),
            P("[4|4]", U, 22, 0),
            P("[3|3]", L, 25, 25),
            P("[1|1]", D, 26, 0),
        ],
    },
    Case {
        name: "a double at a line end counts both halves until it is covered",
        spinner: FIRST,
        steps: &[
            P("[3|3]", LEAD, 6, 0),
            P("[3|1]", L, 7, 0),
            P("[3|6]", R, 7, 0),
            P("[6|6]", R, 13, 0),
            P("[1|1]", L, 14, 0),
            P("[3|2]", U, 16, 0),
            P("[3|4]", D, 20, 20),
            P("[6|5]", R, 13, 0),
            P("[1|0]", L, 11, 0),
        ],
    },
];

/// What a sum scores, by the rulebook: itself when a positive multiple of five.
fn points_for(sum: u32) -> u32 {
    if sum > 0 && sum.is_multiple_of(5) {
        sum
    } else {
        0
    }
}

#[test]
fn the_table_has_enough_cases() {
    assert!(CASES.len() >= 25, "only {} scoring cases", CASES.len());
}

#[test]
fn scoring_table_on_a_layout() {
    for case in CASES {
        let mut layout = Layout::new(case.spinner);
        let mut played = TileSet::EMPTY;
        for (i, step) in case.steps.iter().enumerate() {
            let at = format!("case {:?}, step {}", case.name, i + 1);
            match *step {
                P(tile, end, sum, points) => {
                    let tile = t(tile);
                    assert!(played.insert(tile), "{at}: {tile} played twice");
                    assert_eq!(layout.check(tile, end), Ok(()), "{at}: check");
                    let got = layout
                        .place(tile, end)
                        .unwrap_or_else(|e| panic!("{at}: {tile} refused: {e}"));
                    assert_eq!(got, sum, "{at}: sum after {tile} on {end:?}");
                    assert_eq!(layout.sum(), sum, "{at}: layout.sum()");
                    let by_ends: u32 = layout.open_ends().map(|e| e.counts).sum();
                    assert_eq!(by_ends, sum, "{at}: open ends' counts");
                    assert_eq!(points_for(got), points, "{at}: points");
                    assert_eq!(layout.tiles(), played, "{at}: tiles on the table");
                }
                X(tile, end, code) => {
                    let tile = t(tile);
                    let before = (layout.sum(), layout.tiles());
                    let err = layout
                        .place(tile, end)
                        .expect_err(&format!("{at}: {tile} on {end:?} must be refused"));
                    assert_eq!(err.code(), code, "{at}: {err}");
                    assert_eq!(layout.check(tile, end), Err(err), "{at}: check agrees");
                    assert_eq!((layout.sum(), layout.tiles()), before, "{at}: unchanged");
                }
            }
        }
    }
}

/// Every case again through a real game: two seats take turns with the case's tiles (plus a
/// spare tile each so that nobody goes out), and the Play events and scores must agree.
#[test]
fn scoring_table_through_a_game() {
    for case in CASES {
        let plays: Vec<(allfives_engine::Tile, Option<EndId>, u32, u32)> = case
            .steps
            .iter()
            .filter_map(|s| match *s {
                P(tile, end, sum, points) => Some((t(tile), end, sum, points)),
                X(..) => None,
            })
            .collect();
        let mut hands = [Vec::new(), Vec::new()];
        for (i, p) in plays.iter().enumerate() {
            hands[i % 2].push(p.0);
        }
        let hand_size = hands[0].len() + 1;
        let used: TileSet = plays.iter().map(|p| p.0).collect();
        let mut spare = ALL_TILES.iter().copied().filter(|x| !used.contains(*x));
        for hand in &mut hands {
            while hand.len() < hand_size {
                hand.push(spare.next().expect("enough spare tiles"));
            }
        }
        let mut rules = Rules::new(2);
        rules.hand_size = hand_size;
        rules.spinner = case.spinner;
        rules.target = 1000;
        let mut game = Game::new(rules).expect("valid rules");
        game.start_hand(Deal {
            hands: hands.to_vec(),
            boneyard: spare.collect(),
            leader: 0,
        })
        .expect("valid deal");
        let mut expected = [0i32; 2];
        for (i, &(tile, end, sum, points)) in plays.iter().enumerate() {
            let seat = i % 2;
            let at = format!("case {:?}, play {}", case.name, i + 1);
            assert_eq!(game.status(), Status::ToPlay { seat }, "{at}");
            let got = game
                .play(seat, Move { tile, end })
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(got, points, "{at}: points returned");
            // The last Play event (the next seat may have drawn since).
            let last_play = game
                .events()
                .iter()
                .rev()
                .find(|e| matches!(e, Event::Play(_)));
            assert_eq!(
                last_play,
                Some(&Event::Play(Play {
                    seat,
                    tile,
                    end,
                    sum,
                    points
                })),
                "{at}: Play event"
            );
            expected[seat] += points as i32;
            assert_eq!(game.scores(), &expected[..], "{at}: scores");
        }
    }
}

/// A layout from a list of (tile, end) plays that must all be accepted.
fn layout_of(spinner: SpinnerRule, plays: &[(&str, Option<EndId>)]) -> Layout {
    let mut layout = Layout::new(spinner);
    for &(tile, end) in plays {
        layout
            .place(t(tile), end)
            .unwrap_or_else(|e| panic!("{tile} on {end:?}: {e}"));
    }
    layout
}

#[test]
fn no_match_names_every_open_end() {
    let layout = layout_of(SpinnerRule::First, &[("[3|5]", LEAD)]);
    let six_blank = "[6|0]".parse().expect("a tile");
    let err = layout.check(six_blank, L).expect_err("no 3 or 5 on [6|0]");
    assert!(matches!(err, MoveError::NoMatch { .. }), "{err:?}");
    // The engine prints a tile smaller number first, so [6|0] shows as [0|6].
    assert_eq!(
        err.to_string(),
        "[0|6] does not match any open end: left 3, right 5"
    );
    assert_eq!(err.code(), "no_match");
}

#[test]
fn wrong_end_names_the_end() {
    let layout = layout_of(SpinnerRule::First, &[("[3|5]", LEAD)]);
    let err = layout.check(t("[5|6]"), L).expect_err("5 is on the right");
    assert_eq!(
        err,
        MoveError::WrongEnd {
            tile: t("[5|6]"),
            end: EndId::Left,
            ends: layout.open_ends().collect(),
        }
    );
    assert_eq!(
        err.to_string(),
        "[5|6] does not match the left end; the open ends: left 3, right 5"
    );
}

#[test]
fn missing_end_after_the_lead() {
    let layout = layout_of(SpinnerRule::First, &[("[3|5]", LEAD)]);
    let err = layout
        .check(t("[5|6]"), None)
        .expect_err("an end is needed");
    assert!(matches!(err, MoveError::MissingEnd { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "the layout has tiles, so a move must name an end: left 3, right 5"
    );
}

#[test]
fn the_lead_has_no_end() {
    let layout = Layout::new(SpinnerRule::First);
    let err = layout
        .check(t("[3|5]"), L)
        .expect_err("a lead names no end");
    assert_eq!(err, MoveError::LeadHasNoEnd { end: EndId::Left });
    assert_eq!(
        err.to_string(),
        "the first tile of a hand is led, not played on an end, so its end must be null, not left"
    );
    assert_eq!(layout.check(t("[3|5]"), None), Ok(()));
}

#[test]
fn no_such_end_without_a_spinner() {
    for (spinner, lead, why, ends) in [
        (
            SpinnerRule::First,
            "[3|5]",
            "no spinner yet",
            "left 3, right 5",
        ),
        (
            SpinnerRule::None,
            "[5|5]",
            "spinner = none",
            "left 5, right 5",
        ),
    ] {
        let layout = layout_of(spinner, &[(lead, LEAD)]);
        let err = layout.check(t("[5|6]"), U).expect_err(why);
        assert!(
            matches!(
                err,
                MoveError::NoSuchEnd {
                    end: EndId::Up(0),
                    ..
                }
            ),
            "{why}: {err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("the layout has no end up; its open ends: {ends}")
        );
    }
}

#[test]
fn short_ends_closed_until_both_long_sides_have_tiles() {
    // A led spinner with one long side covered.
    let led = layout_of(SpinnerRule::First, &[("[5|5]", LEAD), ("[5|6]", R)]);
    // A spinner made on the left end: its outer long side is still bare.
    let later = layout_of(SpinnerRule::First, &[("[4|6]", LEAD), ("[4|4]", L)]);
    // A lone spinner lead.
    let lone = layout_of(SpinnerRule::First, &[("[2|2]", LEAD)]);
    for (layout, tile, end) in [
        (&led, "[5|1]", EndId::Up(0)),
        (&led, "[5|1]", EndId::Down(0)),
        (&later, "[4|1]", EndId::Up(0)),
        (&later, "[4|1]", EndId::Down(0)),
        (&lone, "[2|1]", EndId::Up(0)),
    ] {
        let err = layout.check(t(tile), Some(end)).expect_err("closed");
        assert_eq!(err, MoveError::ShortEndClosed { end });
        let text = err.to_string();
        assert!(
            text.contains("the spinner's short ends open only when both long sides have a tile"),
            "{text}"
        );
        assert!(
            layout.open_ends().all(|e| !e.end.is_short()),
            "{layout:?} lists a closed short end"
        );
    }
    assert_eq!(
        MoveError::ShortEndClosed {
            end: EndId::Down(0)
        }
        .to_string(),
        "the spinner's short ends open only when both long sides have a tile, so down is not open yet"
    );
}

#[test]
fn open_ends_are_listed_in_order_with_their_counts() {
    let layout = layout_of(
        SpinnerRule::First,
        &[("[5|5]", LEAD), ("[5|0]", L), ("[5|3]", R), ("[5|2]", U)],
    );
    let ends: Vec<(EndId, u8, u32)> = layout
        .open_ends()
        .map(|e| (e.end, e.number, e.counts))
        .collect();
    assert_eq!(
        ends,
        vec![
            (EndId::Left, 0, 0),
            (EndId::Right, 3, 3),
            (EndId::Up(0), 2, 2),
            (EndId::Down(0), 5, 0),
        ]
    );
    assert_eq!("up2".parse::<EndId>(), Ok(EndId::Up(1)));
    assert_eq!(EndId::Down(1).to_string(), "down2");
}

/// A two-seat game with a forced draw pending for seat 1: seat 0 led [6|6], seat 1 drew [2|3],
/// [4|5] and the playable [1|6].
fn game_with_a_forced_draw() -> Game {
    let mut rules = Rules::new(2);
    rules.hand_size = 2;
    let mut game = Game::new(rules).expect("valid rules");
    game.start_hand(deal(
        &[&["[6|6]", "[0|0]"], &["[0|2]", "[1|3]"]],
        &["[2|3]", "[4|5]", "[1|6]"],
        0,
    ))
    .expect("valid deal");
    game.play(
        0,
        Move {
            tile: t("[6|6]"),
            end: None,
        },
    )
    .expect("lead");
    game
}

#[test]
fn game_move_errors_and_their_messages() {
    let mut rules = Rules::new(2);
    rules.hand_size = 2;
    let mut game = Game::new(rules).expect("valid rules");
    let lead = Move {
        tile: t("[6|6]"),
        end: None,
    };
    assert_eq!(game.check(0, lead), Err(MoveError::NoHand));
    game.start_hand(deal(
        &[&["[6|6]", "[0|0]"], &["[0|2]", "[1|3]"]],
        &["[2|3]", "[4|5]", "[1|6]"],
        0,
    ))
    .expect("valid deal");

    let err = game.check(1, lead).expect_err("seat 0 leads");
    assert_eq!(err, MoveError::NotYourTurn { seat: 1, turn: 0 });
    assert_eq!(err.to_string(), "it is seat 0's turn, not seat 1's");

    let err = game
        .check(
            0,
            Move {
                tile: t("[5|5]"),
                end: None,
            },
        )
        .expect_err("not held");
    assert_eq!(err, MoveError::NotInHand { tile: t("[5|5]") });
    assert_eq!(err.to_string(), "[5|5] is not in your hand");
    // Another seat's tile is not in your hand either.
    assert_eq!(
        game.check(
            0,
            Move {
                tile: t("[0|2]"),
                end: None
            }
        ),
        Err(MoveError::NotInHand { tile: t("[0|2]") })
    );
    // A refused move changes nothing.
    assert!(game.play(1, lead).is_err());
    assert_eq!(game.status(), Status::ToPlay { seat: 0 });
    assert_eq!(game.events().len(), 1);

    let game = game_with_a_forced_draw();
    let err = game
        .check(
            1,
            Move {
                tile: t("[2|3]"),
                end: L,
            },
        )
        .expect_err("the drawn [1|6] must be played");
    assert_eq!(err, MoveError::MustPlayDrawn { drawn: t("[1|6]") });
    assert_eq!(
        err.to_string(),
        "you drew [1|6], which plays, so it must be played now"
    );
    assert_eq!(err.code(), "must_play_drawn");
    assert_eq!(
        game.check(
            1,
            Move {
                tile: t("[1|6]"),
                end: R
            }
        ),
        Ok(())
    );
}

/// The bare arms of one double mirror each other: the same tile on either makes the same
/// position but for the names, so the referee counts them as one choice.
#[test]
fn bare_arms_of_a_double_mirror_each_other() {
    let mirrors =
        |layout: &Layout, end: Option<EndId>| layout.mirrors_earlier(end.expect("an end"));
    let spinner = layout_of(
        SpinnerRule::First,
        &[("[5|5]", LEAD), ("[3|5]", L), ("[5|6]", R)],
    );
    assert!(mirrors(&spinner, D), "down beside a bare up");
    assert!(!mirrors(&spinner, U), "up is listed first");
    assert!(!mirrors(&spinner, L) && !mirrors(&spinner, R));
    let mut grown = spinner.clone();
    grown.place(t("[0|5]"), U).expect("[0|5] on up");
    assert!(!mirrors(&grown, D), "up is no longer bare");

    let double_lead = layout_of(SpinnerRule::None, &[("[3|3]", LEAD)]);
    assert!(
        mirrors(&double_lead, R),
        "right beside a bare left, on a double lead"
    );
    assert!(!mirrors(&double_lead, L));
    let mut grown = double_lead.clone();
    grown.place(t("[3|4]"), L).expect("[3|4] on left");
    assert!(!mirrors(&grown, R));

    let plain_lead = layout_of(SpinnerRule::First, &[("[3|5]", LEAD)]);
    assert!(
        !mirrors(&plain_lead, R),
        "a lead that is not a double has two sides"
    );

    let second = layout_of(
        SpinnerRule::All,
        &[("[0|0]", LEAD), ("[0|1]", R), ("[1|1]", R), ("[1|5]", R)],
    );
    assert!(mirrors(&second, D2), "the second spinner's short ends");
    assert!(!mirrors(&second, U2));
}
