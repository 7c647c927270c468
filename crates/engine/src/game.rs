//! A game of All Fives: hands, turns, forced draws, scoring, the end of a hand and of the game.
//!
//! [`Game`] is a state machine driven by its caller. It waits either for a deal
//! ([`Status::Dealing`]) or for a seat's move ([`Status::ToPlay`]); forced draws and passes are
//! rules, not choices, so the engine performs them itself and records them as [`Event`]s.

use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::deal::Deal;
use crate::error::{DealError, MoveError, SeatError};
use crate::layout::{EndId, Layout, points_of};
use crate::rules::{Finish, HandEnd, Rules, RulesError, Seat, SpinnerRule};
use crate::tile::{ALL_TILES, SET_SIZE, Tile, TileSet};

/// A move: a tile and the end it goes on (`None` for the lead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Move {
    /// The tile played.
    pub tile: Tile,
    /// The open end it is played on; `None` (JSON `null`) when leading.
    pub end: Option<EndId>,
}

/// What the game waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status<'a> {
    /// The next hand's deal. `leader` is the seat that must lead it, if the rules fix one.
    Dealing {
        /// The seat that went out last hand; `None` when the leader is drawn at random.
        leader: Option<Seat>,
    },
    /// A move from `seat`, which has at least one legal move.
    ToPlay {
        /// The seat to play.
        seat: Seat,
    },
    /// Nothing: the game is over.
    Over(&'a GameResult),
}

/// How a hand ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HandEnding {
    /// The seat played its last tile.
    WentOut {
        /// The seat that went out.
        seat: Seat,
    },
    /// The boneyard was empty and nobody could play.
    Blocked,
}

/// The scoring of a finished hand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HandSummary {
    /// The hand's number, from 1.
    pub hand: u32,
    /// How it ended.
    pub ending: HandEnding,
    /// The tiles left in each seat's hand.
    pub hands: Vec<Vec<Tile>>,
    /// The pips left in each seat's hand.
    pub pips: Vec<u32>,
    /// Points each side (team or player) scored at the end of the hand (negative for penalties).
    pub points: Vec<i32>,
    /// Each side's score after them.
    pub scores: Vec<i32>,
    /// The seat that leads the next hand; `None` when it is drawn at random.
    pub next_leader: Option<Seat>,
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GameEnding {
    /// A side reached the target (mid-hand with `finish = immediate`, else after a hand).
    Target {
        /// The side that won.
        side: usize,
    },
    /// The hand limit was reached.
    MaxHands,
    /// A seat broke the protocol.
    Forfeit {
        /// The seat that forfeited.
        seat: Seat,
    },
}

/// The final result of a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GameResult {
    /// Why the game ended.
    pub ending: GameEnding,
    /// Hands started, the last one included.
    pub hands: u32,
    /// Each side's final score (a side is a team with partnerships, else a seat).
    pub scores: Vec<i32>,
    /// Each seat's rank, 1 for the best; equal scores share a rank; a forfeit ranks below all others.
    pub ranks: Vec<u32>,
}

/// A tile placed: every seat sees it alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Play {
    /// The seat that played.
    pub seat: Seat,
    /// The tile.
    pub tile: Tile,
    /// Where it went (`null` for the lead).
    pub end: Option<EndId>,
    /// The sum of the open ends after it.
    pub sum: u32,
    /// Points scored by it.
    pub points: u32,
}

/// Something that happened, in full (the omniscient record; views filter it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A hand was dealt.
    HandStart {
        /// The hand's number, from 1.
        hand: u32,
        /// The deal (boxed, like the other large events, to keep every event small).
        deal: Box<Deal>,
    },
    /// A tile was placed.
    Play(Play),
    /// A seat drew a tile from the boneyard (it could not play).
    Draw {
        /// The seat.
        seat: Seat,
        /// The tile drawn: only that seat may see it.
        tile: Tile,
    },
    /// A seat could not play and the boneyard was empty.
    Pass {
        /// The seat.
        seat: Seat,
    },
    /// A hand ended and was scored.
    HandEnd(Box<HandSummary>),
    /// The game ended.
    GameEnd(Box<GameResult>),
}

#[derive(Debug, Clone)]
enum State {
    Dealing { leader: Option<Seat> },
    Turn { seat: Seat, drawn: Option<Tile> },
    Over(GameResult),
}

/// The current hand's tiles.
#[derive(Debug, Clone)]
struct Table {
    hands: [TileSet; 4],
    drawn: [TileSet; 4],
    /// The boneyard in drawing order, `next_draw..boneyard_len` still to draw; a fixed array,
    /// so that copying a game (as a search does, many times a move) allocates nothing.
    boneyard: [Tile; SET_SIZE],
    boneyard_len: usize,
    next_draw: usize,
    layout: Layout,
}

impl Table {
    /// An empty table: no hands, no boneyard, no layout.
    fn new(rule: SpinnerRule) -> Table {
        Table {
            hands: [TileSet::EMPTY; 4],
            drawn: [TileSet::EMPTY; 4],
            boneyard: ALL_TILES,
            boneyard_len: 0,
            next_draw: 0,
            layout: Layout::new(rule),
        }
    }

    /// Sets the boneyard, in drawing order (at most the 28 tiles, as a valid deal has).
    fn set_boneyard(&mut self, tiles: &[Tile]) {
        let len = tiles.len().min(SET_SIZE);
        self.boneyard[..len].copy_from_slice(&tiles[..len]);
        self.boneyard_len = len;
        self.next_draw = 0;
    }
}

/// The parts of a game in the middle of a hand (see [`Game::mid_hand`]).
pub(crate) struct MidHand {
    pub(crate) rules: Rules,
    pub(crate) number: u32,
    pub(crate) scores: [i32; 4],
    pub(crate) hand_no: u32,
    pub(crate) leader: Seat,
    pub(crate) turn: Seat,
    pub(crate) forced: Option<Tile>,
    pub(crate) hands: [TileSet; 4],
    pub(crate) drawn: [TileSet; 4],
    pub(crate) boneyard: Vec<Tile>,
    pub(crate) layout: Layout,
}

/// A game in progress: the whole truth, hidden tiles included. Show a seat only its [`view`](Game::view).
#[derive(Debug, Clone)]
pub struct Game {
    rules: Rules,
    /// The game's number within its match, from 1.
    number: u32,
    scores: [i32; 4],
    hand_no: u32,
    leader: Seat,
    state: State,
    table: Table,
    /// The current (or last) hand's events, from its deal: a view needs no older history, and
    /// keeping every hand's would grow without bound over a long game.
    events: Vec<Event>,
    /// Events of earlier hands, dropped.
    dropped: usize,
    hand_events: usize,
    /// Whether events are kept (see [`Game::without_history`]).
    history: bool,
}

impl Game {
    /// A new game, waiting for its first deal.
    pub fn new(rules: Rules) -> Result<Game, RulesError> {
        rules.validate()?;
        Ok(Game {
            rules,
            number: 1,
            scores: [0; 4],
            hand_no: 0,
            leader: 0,
            state: State::Dealing { leader: None },
            table: Table::new(rules.spinner),
            events: Vec::new(),
            dropped: 0,
            hand_events: 0,
            history: true,
        })
    }

    /// The same game, numbered `number` within its match (1 unless set); views show it.
    pub fn numbered(mut self, number: u32) -> Game {
        self.number = number;
        self
    }

    /// The game's number within its match, from 1.
    pub fn number(&self) -> u32 {
        self.number
    }

    /// The seat that led the current (or last) hand; 0 before the first deal.
    pub fn leader(&self) -> Seat {
        self.leader
    }

    /// A game in the middle of a hand, from parts already checked against each other (see
    /// [`Game::from_view`]). Its events begin at this moment.
    pub(crate) fn mid_hand(parts: MidHand) -> Game {
        let mut game = Game {
            rules: parts.rules,
            number: parts.number,
            scores: parts.scores,
            hand_no: parts.hand_no,
            leader: parts.leader,
            state: State::Turn {
                seat: parts.turn,
                drawn: parts.forced,
            },
            table: Table {
                hands: parts.hands,
                drawn: parts.drawn,
                layout: parts.layout,
                ..Table::new(parts.rules.spinner)
            },
            events: Vec::new(),
            dropped: 0,
            hand_events: 0,
            history: true,
        };
        game.table.set_boneyard(&parts.boneyard);
        game
    }

    /// The same game, keeping no events from now on: for a search that plays out many copies of
    /// a game, where the history would only cost copying. Its [`events`](Game::events) and its
    /// views' `history` stay as they are now; the rules are played exactly as before.
    pub fn without_history(mut self) -> Game {
        self.history = false;
        self
    }

    fn record(&mut self, event: Event) {
        if self.history {
            self.events.push(event);
        }
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// What the game waits for.
    pub fn status(&self) -> Status<'_> {
        match &self.state {
            State::Dealing { leader } => Status::Dealing { leader: *leader },
            State::Turn { seat, .. } => Status::ToPlay { seat: *seat },
            State::Over(result) => Status::Over(result),
        }
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        match &self.state {
            State::Over(result) => Some(result),
            _ => None,
        }
    }

    /// Each side's score (index: team with partnerships, else seat).
    pub fn scores(&self) -> &[i32] {
        &self.scores[..self.rules.sides()]
    }

    /// The number of the current (or last) hand, from 1; 0 before the first deal.
    pub fn hand_number(&self) -> u32 {
        self.hand_no
    }

    /// The layout of the current (or last) hand.
    pub fn layout(&self) -> &Layout {
        &self.table.layout
    }

    /// The tiles in a seat's hand (hidden information: for the referee, not for other seats).
    pub fn hand(&self, seat: Seat) -> TileSet {
        self.table.hands.get(seat).copied().unwrap_or_default()
    }

    /// The tiles a seat drew from the boneyard this hand (seen only by that seat).
    pub fn drawn(&self, seat: Seat) -> TileSet {
        self.table.drawn.get(seat).copied().unwrap_or_default()
    }

    /// The boneyard still to draw, in order (hidden information).
    pub fn boneyard(&self) -> &[Tile] {
        &self.table.boneyard[self.table.next_draw..self.table.boneyard_len]
    }

    /// The tile a seat drew and must now play, if its turn began with a forced draw.
    pub fn forced_tile(&self) -> Option<Tile> {
        match self.state {
            State::Turn { drawn, .. } => drawn,
            _ => None,
        }
    }

    /// The events of the current (or last) hand, from its deal on (the game's end included
    /// once it is over). Older hands' events are dropped when the next hand is dealt: to see
    /// every event of a game, read them as they come with [`events_since`](Game::events_since).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// How many events the game has had so far, dropped ones included.
    pub fn event_count(&self) -> usize {
        self.dropped + self.events.len()
    }

    /// The events after the first `count` of the game (see [`event_count`](Game::event_count));
    /// those of hands before the current one are no longer kept.
    pub fn events_since(&self, count: usize) -> &[Event] {
        let from = count.saturating_sub(self.dropped).min(self.events.len());
        &self.events[from..]
    }

    /// The events of the current (or last) hand after its deal.
    pub fn hand_events(&self) -> &[Event] {
        &self.events[self.hand_events..]
    }

    /// Starts the next hand with a random deal from `rng` (see [`Deal::random`]).
    pub fn deal<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), DealError> {
        let leader = self.dealing_leader()?;
        self.start_hand(Deal::random(&self.rules, leader, rng)?)
    }

    /// Starts the next hand with a given deal, after checking it.
    pub fn start_hand(&mut self, deal: Deal) -> Result<(), DealError> {
        let required = self.dealing_leader()?;
        deal.validate(&self.rules)?;
        if let Some(expected) = required.filter(|&l| l != deal.leader) {
            return Err(DealError::WrongLeader {
                expected,
                got: deal.leader,
            });
        }
        let mut hands = [TileSet::EMPTY; 4];
        for (seat, hand) in deal.hands.iter().enumerate() {
            hands[seat] = hand.iter().copied().collect();
        }
        self.table = Table {
            hands,
            drawn: [TileSet::EMPTY; 4],
            ..Table::new(self.rules.spinner)
        };
        self.table.set_boneyard(&deal.boneyard);
        self.hand_no += 1;
        self.dropped += self.events.len();
        self.events.clear();
        self.leader = deal.leader;
        self.state = State::Turn {
            seat: deal.leader,
            drawn: None,
        };
        self.record(Event::HandStart {
            hand: self.hand_no,
            deal: Box::new(deal),
        });
        self.hand_events = self.events.len();
        Ok(())
    }

    fn dealing_leader(&self) -> Result<Option<Seat>, DealError> {
        match self.state {
            State::Dealing { leader } => Ok(leader),
            State::Turn { .. } => Err(DealError::HandInPlay),
            State::Over(_) => Err(DealError::GameOver),
        }
    }

    /// Fills `out` with the legal moves of the seat to play (empty when nobody is to play).
    /// Reuses `out`'s allocation.
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        let State::Turn { seat, drawn } = self.state else {
            return;
        };
        let layout = &self.table.layout;
        let candidates = match drawn {
            Some(tile) => TileSet::from_iter([tile]),
            None => self.table.hands[seat].intersection(layout.playable()),
        };
        for tile in candidates.iter() {
            layout.for_each_fit(tile, |end| out.push(Move { tile, end }));
        }
    }

    /// How many real choices `legal` (as [`Game::legal_moves`] lists it) offers: a move that
    /// mirrors an earlier one ([`Layout::mirrors_earlier`]) is the same choice. With one, the
    /// first legal move is as good as any.
    pub fn choices(&self, legal: &[Move]) -> usize {
        let layout = &self.table.layout;
        legal
            .iter()
            .filter(|mv| !mv.end.is_some_and(|end| layout.mirrors_earlier(end)))
            .count()
    }

    /// Checks a move without making it.
    pub fn check(&self, seat: Seat, mv: Move) -> Result<(), MoveError> {
        let (turn, drawn) = match self.state {
            State::Turn { seat, drawn } => (seat, drawn),
            State::Dealing { .. } => return Err(MoveError::NoHand),
            State::Over(_) => return Err(MoveError::GameOver),
        };
        if seat != turn {
            return Err(MoveError::NotYourTurn { seat, turn });
        }
        if !self.table.hands[seat].contains(mv.tile) {
            return Err(MoveError::NotInHand { tile: mv.tile });
        }
        if let Some(drawn) = drawn.filter(|&d| d != mv.tile) {
            return Err(MoveError::MustPlayDrawn { drawn });
        }
        self.table.layout.check(mv.tile, mv.end)
    }

    /// Plays a move for `seat`, then performs every forced draw and pass up to the next choice,
    /// the end of the hand or the end of the game. Returns the points the move scored.
    pub fn play(&mut self, seat: Seat, mv: Move) -> Result<u32, MoveError> {
        self.check(seat, mv)?;
        let sum = self.table.layout.place_checked(mv.tile, mv.end);
        self.table.hands[seat].remove(mv.tile);
        let points = points_of(sum);
        self.record(Event::Play(Play {
            seat,
            tile: mv.tile,
            end: mv.end,
            sum,
            points,
        }));
        let side = self.rules.side_of(seat);
        self.scores[side] = self.scores[side].saturating_add(points as i32);
        if self.rules.finish == Finish::Immediate && self.scores[side] >= self.rules.target {
            self.finish(GameEnding::Target { side }, &[]);
        } else if self.table.hands[seat].is_empty() {
            self.end_hand(HandEnding::WentOut { seat });
        } else {
            self.advance(self.rules.next_seat(seat));
        }
        Ok(points)
    }

    /// Ends the game at once because `seat` broke the protocol: its side ranks below all others.
    pub fn forfeit(&mut self, seat: Seat) -> Result<(), MoveError> {
        self.forfeit_seats(&[seat])
    }

    /// Ends the game at once because every seat of `seats` broke the protocol together (several
    /// bots may fail to start): each of their sides ranks below every side that did not forfeit
    /// (rules.md), and forfeited sides rank among themselves by score. The ending names the
    /// first seat. An empty list changes nothing.
    pub fn forfeit_seats(&mut self, seats: &[Seat]) -> Result<(), MoveError> {
        if matches!(self.state, State::Over(_)) {
            return Err(MoveError::GameOver);
        }
        let players = self.rules.players;
        if let Some(&seat) = seats.iter().find(|&&s| s >= players) {
            return Err(MoveError::NoSuchSeat { seat, players });
        }
        let Some(&first) = seats.first() else {
            return Ok(());
        };
        let mut forfeited = vec![false; self.scores().len()];
        for &seat in seats {
            forfeited[self.rules.side_of(seat)] = true;
        }
        self.finish(GameEnding::Forfeit { seat: first }, &forfeited);
        Ok(())
    }

    /// Moves the turn to the first seat from `seat` on that has a choice, drawing and passing
    /// for those that cannot play, or ends a blocked hand.
    fn advance(&mut self, mut seat: Seat) {
        loop {
            let playable = self.table.layout.playable();
            if !self.table.hands[seat].intersection(playable).is_empty() {
                self.state = State::Turn { seat, drawn: None };
                return;
            }
            while let Some(&tile) = self.boneyard().first() {
                self.table.next_draw += 1;
                self.table.hands[seat].insert(tile);
                self.table.drawn[seat].insert(tile);
                self.record(Event::Draw { seat, tile });
                if playable.contains(tile) {
                    self.state = State::Turn {
                        seat,
                        drawn: Some(tile),
                    };
                    return;
                }
            }
            let hands = &self.table.hands[..self.rules.players];
            if hands.iter().all(|h| h.intersection(playable).is_empty()) {
                self.end_hand(HandEnding::Blocked);
                return;
            }
            self.record(Event::Pass { seat });
            seat = self.rules.next_seat(seat);
        }
    }

    fn end_hand(&mut self, ending: HandEnding) {
        let players = self.rules.players;
        let hands = &self.table.hands[..players];
        let pips: Vec<u32> = hands.iter().map(|h| h.pips()).collect();
        let points =
            hand_points(&self.rules, ending, &pips).expect("the game's own seats are at the table");
        for (side, p) in points.iter().enumerate() {
            self.scores[side] = self.scores[side].saturating_add(*p);
        }
        let next_leader = match ending {
            HandEnding::WentOut { seat } => Some(seat),
            HandEnding::Blocked => None,
        };
        self.record(Event::HandEnd(Box::new(HandSummary {
            hand: self.hand_no,
            ending,
            hands: hands.iter().map(|h| h.iter().collect()).collect(),
            pips,
            points,
            scores: self.scores().to_vec(),
            next_leader,
        })));
        if let Some(side) = winner_after_hand(&self.rules, self.scores()) {
            self.finish(GameEnding::Target { side }, &[]);
        } else if self.hand_no >= self.rules.max_hands {
            self.finish(GameEnding::MaxHands, &[]);
        } else {
            self.state = State::Dealing {
                leader: next_leader,
            };
        }
    }

    /// Ends the game; `forfeited[side]` marks a side that forfeited (none if empty).
    fn finish(&mut self, ending: GameEnding, forfeited: &[bool]) {
        let scores = self.scores().to_vec();
        let side_ranks = rank_sides(&scores, forfeited);
        let ranks = (0..self.rules.players)
            .map(|seat| side_ranks[self.rules.side_of(seat)])
            .collect();
        let result = GameResult {
            ending,
            hands: self.hand_no,
            scores,
            ranks,
        };
        self.record(Event::GameEnd(Box::new(result.clone())));
        self.state = State::Over(result);
    }
}

/// End-of-hand points for each side (team or player), by the `hand_end` rule, from the pips
/// left in each seat's hand. A seat beyond the rules' players (in `pips` or `ending`) is an error.
pub fn hand_points(rules: &Rules, ending: HandEnding, pips: &[u32]) -> Result<Vec<i32>, SeatError> {
    let players = rules.players;
    let went_out = match ending {
        HandEnding::WentOut { seat } => Some(seat),
        HandEnding::Blocked => None,
    };
    if let Some(seat) = went_out
        .filter(|&s| s >= players)
        .or_else(|| pips.len().checked_sub(1).filter(|&s| s >= players))
    {
        return Err(SeatError { seat, players });
    }
    let mut points = vec![0i32; rules.sides()];
    match rules.hand_end {
        HandEnd::Penalty => {
            for (seat, &p) in pips.iter().enumerate() {
                let side = &mut points[rules.side_of(seat)];
                *side = side.saturating_sub(round_to_five(p) as i32);
            }
        }
        HandEnd::Bonus => {
            let mut side_pips = vec![0u32; rules.sides()];
            for (seat, &p) in pips.iter().enumerate() {
                let side = &mut side_pips[rules.side_of(seat)];
                *side = side.saturating_add(p);
            }
            let winner = match went_out {
                Some(seat) => Some(rules.side_of(seat)),
                None => unique_min(&side_pips),
            };
            if let Some(w) = winner {
                let all = side_pips.iter().fold(0u32, |a, &p| a.saturating_add(p));
                points[w] = round_to_five(all - side_pips[w]) as i32;
            }
        }
    }
    Ok(points)
}

/// The side that has won once a hand is scored, given each side's score, if any: with
/// `finish = immediate` the top score at or over the target; with `end_of_hand`, the same if
/// nobody is level with it.
pub fn winner_after_hand(rules: &Rules, scores: &[i32]) -> Option<usize> {
    let top = *scores.iter().max()?;
    let leaders = scores.iter().filter(|&&s| s == top).count();
    let won = match rules.finish {
        Finish::Immediate => top >= rules.target,
        Finish::EndOfHand => top >= rules.target && leaders == 1,
    };
    won.then(|| scores.iter().position(|&s| s == top))?
}

/// Rounds pips to the nearest multiple of five (1 and 2 round down, 3 and 4 up).
pub fn round_to_five(pips: u32) -> u32 {
    pips.saturating_add(2) / 5 * 5
}

/// The index of the single smallest value, or `None` on a tie.
fn unique_min(values: &[u32]) -> Option<usize> {
    let low = *values.iter().min()?;
    let mut at = values.iter().enumerate().filter(|(_, v)| **v == low);
    let (first, _) = at.next()?;
    at.next().is_none().then_some(first)
}

/// Competition ranks (1, 1, 3) by score, every forfeited side below all that did not forfeit.
fn rank_sides(scores: &[i32], forfeited: &[bool]) -> Vec<u32> {
    let key = |side: usize| (!forfeited.get(side).copied().unwrap_or(false), scores[side]);
    (0..scores.len())
        .map(|side| 1 + (0..scores.len()).filter(|&o| key(o) > key(side)).count() as u32)
        .collect()
}
