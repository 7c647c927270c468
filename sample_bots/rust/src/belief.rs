//! What the bot may believe about the tiles it cannot see, from its [`View`] alone.
//!
//! The hidden tiles are the 28 of the set minus the bot's own hand and the layout. Some of them
//! lie in the other players' hands (whose sizes are public) and the rest in the boneyard.
//!
//! The history of the hand tells more: a player who draws or passes holds no tile matching any
//! open end at that moment. The hand is kept as *groups* of hidden tiles, each with the numbers
//! its tiles cannot show. When a player draws, every tile they hold gets the open ends' numbers
//! forbidden, and the tiles they drew (all but the last, which they had to play) form a new group
//! with the same numbers forbidden; later draws only constrain what is held at that time.
//!
//! [`Belief::sample`] deals the hidden tiles at random into hands and boneyard, respecting the
//! groups where it can: one *determinization* of the game for the search to play out.

use allfives_engine::game::Play;
use allfives_engine::layout::Layout;
use allfives_engine::rules::Seat;
use allfives_engine::tile::{ALL_TILES, Tile, TileSet};
use allfives_engine::view::{Seen, View};
use rand::Rng;
use rand::seq::SliceRandom;

/// A set of numbers 0..=6 as a bit mask.
type Numbers = u8;

/// Some of a player's hidden tiles that cannot show the numbers in `forbid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Group {
    seat: Seat,
    count: usize,
    forbid: Numbers,
}

/// One determinization: every hidden tile given a place.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Each seat's hand (the bot's own hand included).
    pub hands: [TileSet; 4],
    /// The boneyard in drawing order.
    pub boneyard: Vec<Tile>,
}

/// The bot's knowledge of the hidden tiles.
#[derive(Debug, Clone)]
pub struct Belief {
    me: Seat,
    my_hand: TileSet,
    /// The tiles the bot cannot see, in canonical order.
    hidden: Vec<Tile>,
    groups: Vec<Group>,
}

/// Whether `tile` shows a number in `numbers`.
fn shows(tile: Tile, numbers: Numbers) -> bool {
    numbers & (1 << tile.low() | 1 << tile.high()) != 0
}

/// The numbers a tile must show to be played on the layout now.
fn open_numbers(layout: &Layout) -> Numbers {
    layout.open_ends().fold(0, |acc, e| acc | 1 << e.number)
}

impl Belief {
    /// Reads the view; `None` if its counts do not add up (then trust nothing but `legal`).
    pub fn from_view(view: &View) -> Option<Belief> {
        let me = view.seat;
        let players = view.rules.players;
        let my_hand: TileSet = view.hand.iter().copied().collect();
        let seen = my_hand.union(view.layout.iter().map(|p| p.tile).collect());
        let hidden: Vec<Tile> = ALL_TILES
            .iter()
            .copied()
            .filter(|&t| !seen.contains(t))
            .collect();

        let mut groups: Vec<Group> = (0..players)
            .filter(|&s| s != me)
            .map(|seat| Group {
                seat,
                count: view.rules.hand_size,
                forbid: 0,
            })
            .collect();
        let mut layout = Layout::new(view.rules.spinner);
        let history = &view.history;
        let mut i = 0;
        while i < history.len() {
            match history[i] {
                Seen::Play(Play {
                    seat, tile, end, ..
                }) => {
                    if seat != me {
                        take_from(&mut groups, seat, tile);
                    }
                    layout.place(tile, end).ok()?;
                }
                Seen::Pass { seat } if seat != me => {
                    forbid(&mut groups, seat, open_numbers(&layout));
                }
                Seen::Draw { seat, .. } if seat != me => {
                    // A run of draws by one seat: they held nothing that plays.
                    let numbers = open_numbers(&layout);
                    forbid(&mut groups, seat, numbers);
                    let mut drawn = 0;
                    while matches!(history.get(i), Some(Seen::Draw { seat: s, .. }) if *s == seat) {
                        drawn += 1;
                        i += 1;
                    }
                    // The last tile drawn is the one played if the run ends in a play, and
                    // may still be waiting to be played if the history stops here.
                    let last = match history.get(i) {
                        Some(&Seen::Play(Play {
                            seat: s, tile, end, ..
                        })) if s == seat => {
                            layout.place(tile, end).ok()?;
                            i += 1;
                            None
                        }
                        None => Some(Group {
                            seat,
                            count: 1,
                            forbid: 0,
                        }),
                        _ => Some(Group {
                            seat,
                            count: 1,
                            forbid: numbers,
                        }),
                    };
                    groups.push(Group {
                        seat,
                        count: drawn - 1,
                        forbid: numbers,
                    });
                    groups.extend(last);
                    continue;
                }
                Seen::Pass { .. } | Seen::Draw { .. } => {}
            }
            i += 1;
        }
        groups.retain(|g| g.count > 0);

        // The groups must account for exactly the hidden tiles outside the boneyard.
        for seat in (0..players).filter(|&s| s != me) {
            let held: usize = groups
                .iter()
                .filter(|g| g.seat == seat)
                .map(|g| g.count)
                .sum();
            if held != *view.hand_sizes.get(seat)? {
                return None;
            }
        }
        let held: usize = groups.iter().map(|g| g.count).sum();
        if held + view.boneyard != hidden.len() {
            return None;
        }
        Some(Belief {
            me,
            my_hand,
            hidden,
            groups,
        })
    }

    /// How many tiles the bot cannot see.
    pub fn hidden_count(&self) -> usize {
        self.hidden.len()
    }

    /// Deals the hidden tiles at random, honouring every group's forbidden numbers when the
    /// shuffle allows it (the most constrained groups are filled first).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Sample {
        let mut order = self.hidden.clone();
        order.shuffle(rng);
        let mut used = vec![false; order.len()];
        let mut hands = [TileSet::EMPTY; 4];
        hands[self.me] = self.my_hand;

        let mut groups = self.groups.clone();
        let choices = |g: &Group| self.hidden.iter().filter(|&&t| !shows(t, g.forbid)).count();
        groups.sort_by_key(|g| choices(g));
        for group in &groups {
            let mut need = group.count;
            // First pass: tiles the group allows; second pass (only if short): any tile left.
            for strict in [true, false] {
                for (k, &tile) in order.iter().enumerate() {
                    if need == 0 {
                        break;
                    }
                    let allowed = !strict || !shows(tile, group.forbid);
                    if !used[k] && allowed {
                        used[k] = true;
                        hands[group.seat].insert(tile);
                        need -= 1;
                    }
                }
            }
        }
        let boneyard = order
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(t, _)| *t)
            .collect();
        Sample { hands, boneyard }
    }
}

/// Every tile `seat` holds now cannot show `numbers`.
fn forbid(groups: &mut [Group], seat: Seat, numbers: Numbers) {
    for g in groups.iter_mut().filter(|g| g.seat == seat) {
        g.forbid |= numbers;
    }
}

/// `seat` played `tile` from its hand: take it from a group that may hold it. The most
/// constrained such group is chosen, which leaves the weaker constraints (the safe guess).
fn take_from(groups: &mut [Group], seat: Seat, tile: Tile) {
    let fits = |g: &&mut Group| g.seat == seat && g.count > 0;
    let best = groups
        .iter_mut()
        .filter(fits)
        .filter(|g| !shows(tile, g.forbid))
        .max_by_key(|g| g.forbid.count_ones());
    if let Some(g) = best {
        g.count -= 1;
    } else if let Some(g) = groups.iter_mut().filter(fits).max_by_key(|g| g.count) {
        // The history contradicts the groups (it should not): keep the counts right at least.
        g.count -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allfives_engine::rules::Rules;
    use allfives_engine::{Game, Move};
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    fn tile(a: u8, b: u8) -> Tile {
        Tile::new(a, b).expect("a valid tile")
    }

    #[test]
    fn a_seat_that_draws_holds_nothing_matching_the_ends() {
        // Seat 1 holds only tiles without a 6 or a 0; the lead [0|6] makes it draw.
        let hands = vec![
            vec![
                tile(0, 6),
                tile(0, 0),
                tile(0, 1),
                tile(0, 2),
                tile(0, 3),
                tile(0, 4),
                tile(0, 5),
                tile(6, 6),
                tile(1, 6),
            ],
            vec![
                tile(1, 1),
                tile(1, 2),
                tile(1, 3),
                tile(1, 4),
                tile(1, 5),
                tile(2, 2),
                tile(2, 3),
                tile(2, 4),
                tile(2, 5),
            ],
        ];
        let used: TileSet = hands.iter().flatten().copied().collect();
        let boneyard: Vec<Tile> = ALL_TILES
            .into_iter()
            .filter(|t| !used.contains(*t))
            .collect();
        let mut game = Game::new(Rules::new(2)).expect("valid rules");
        game.start_hand(allfives_engine::Deal {
            hands,
            boneyard,
            leader: 0,
        })
        .expect("a valid deal");
        game.play(
            0,
            Move {
                tile: tile(0, 6),
                end: None,
            },
        )
        .expect("a legal lead");
        // Seat 1 draws until a tile plays, and must play it.
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        game.play(1, moves[0]).expect("the drawn tile plays");
        let view = game.view(0);
        let belief = Belief::from_view(&view).expect("consistent counts");
        let drew = view
            .history
            .iter()
            .filter(|e| matches!(e, Seen::Draw { seat: 1, .. }))
            .count();
        assert!(drew > 0, "seat 1 had to draw");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..50 {
            let sample = belief.sample(&mut rng);
            assert_eq!(sample.hands[1].len(), view.hand_sizes[1]);
            assert_eq!(sample.boneyard.len(), view.boneyard);
            assert!(sample.hands[1].iter().all(|t| !t.has(0) && !t.has(6)));
            assert_eq!(sample.hands[0], view.hand.iter().copied().collect());
        }
    }
}
