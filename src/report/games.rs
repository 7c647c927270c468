//! Every game of a tournament as columns: one array (or one string of digits) per field, with
//! entrants by index, and what can be derived (a game's id from its group, deal and
//! arrangement) written only where it differs. A game costs about 25 bytes of the page.
//!
//! A long run keeps a sample: past twice [`GAMES_KEPT`] games every other one is dropped and
//! only every `stride`-th game is listed from then on, so that the columns, in memory and on the
//! page, stay bounded however many games are played (the standings count every game).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::tournament::results::GameLine;
use allfives_engine::game::GameEnding;

/// Fault details kept on the page (the first ones, each cut short): a run where every game
/// faults would otherwise weigh its details in megabytes. Their kinds are all kept.
pub const DETAILS_KEPT: usize = 2000;

/// Games listed at least once past it (at most twice as many): every `stride`-th game.
pub const GAMES_KEPT: usize = 25_000;

/// Characters of a fault's detail kept.
const DETAIL_CHARS: usize = 160;

/// The games, column by column, in the order they were recorded.
#[derive(Debug, Clone, Serialize)]
pub struct Games {
    /// Games listed.
    pub count: usize,
    /// Games of the listed shape recorded, listed or not.
    pub recorded: usize,
    /// The games listed are every `stride`-th recorded (the first, then each `stride` later):
    /// listed game `g` is recorded game `g * stride`.
    pub stride: usize,
    /// Members of each game's group (a team of copies is listed twice).
    pub group_size: usize,
    /// Seats at each table.
    pub players: usize,
    /// Sides in each game (teams with partnerships, else seats).
    pub sides: usize,
    /// Each game's group, `group_size` entrant indices a game.
    pub group: Vec<usize>,
    /// Each game's deal index.
    pub deal: Vec<u64>,
    /// Each game's seat arrangement, one base-36 digit a game.
    pub arrangement: String,
    /// Who sat where: for each seat, the index of its member in the group, one digit a seat.
    pub members: String,
    /// Each side's rank (1 best), one digit a side.
    pub ranks: String,
    /// Each side's final score, `sides` numbers a game.
    pub scores: Vec<i32>,
    /// Hands started in each game.
    pub hands: Vec<u32>,
    /// How each game ended: `t` (a side reached the target), `m` (the hand limit), `f` (a
    /// forfeit).
    pub ending: String,
    /// The ids that are not `GROUP/DEAL/ARRANGEMENT` (group joined by `-`), by game.
    pub ids: BTreeMap<usize, String>,
    /// Each game's folder (an index into the folders merged); empty when there is one.
    pub folder: Vec<usize>,
    /// Every fault.
    pub faults: Faults,
    /// Games of another shape (group size, seats, sides) than the first: not listed (a
    /// tournament's games all have one shape; kept for a folder that was tampered with).
    pub unlisted: u64,
}

/// Every fault, column by column, in game order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Faults {
    /// The game's index in [`Games`].
    pub game: Vec<usize>,
    /// The seat, one digit a fault.
    pub seat: String,
    /// The kind's index in `kinds`, one digit a fault.
    pub kind: String,
    /// The kinds' names.
    pub kinds: Vec<String>,
    /// Whether it cost the game: `1` or `0` a fault.
    pub forfeit: String,
    /// What happened, cut short, for the first [`DETAILS_KEPT`] faults.
    pub detail: Vec<String>,
}

impl Default for Games {
    fn default() -> Games {
        Games {
            count: 0,
            recorded: 0,
            stride: 1,
            group_size: 0,
            players: 0,
            sides: 0,
            group: Vec::new(),
            deal: Vec::new(),
            arrangement: String::new(),
            members: String::new(),
            ranks: String::new(),
            scores: Vec::new(),
            hands: Vec::new(),
            ending: String::new(),
            ids: BTreeMap::new(),
            folder: Vec::new(),
            faults: Faults::default(),
            unlisted: 0,
        }
    }
}

impl Games {
    /// Adds a game, recorded in folder `folder` of `folders`: listed if it is a `stride`-th.
    pub fn add(&mut self, line: &GameLine, folder: usize, folders: usize) {
        let sides = line.sides().len();
        if self.count == 0 && self.unlisted == 0 {
            self.group_size = line.group.len();
            self.players = line.seats.len();
            self.sides = sides;
        }
        if (line.group.len(), line.seats.len(), sides)
            != (self.group_size, self.players, self.sides)
            || line.scores.len() != sides
        {
            self.unlisted += 1;
            return;
        }
        self.recorded += 1;
        if !(self.recorded - 1).is_multiple_of(self.stride) {
            return;
        }
        let game = self.count;
        self.count += 1;
        self.group.extend(&line.group);
        self.deal.push(line.deal);
        self.arrangement.push(digit(line.arrangement));
        for seat in &line.seats {
            let member = line.group.iter().position(|&e| e == seat.entrant);
            self.members.push(digit(member.unwrap_or(0)));
        }
        for seats in line.sides() {
            self.ranks.push(digit(line.seats[seats[0]].rank as usize));
        }
        self.scores.extend(&line.scores);
        self.hands.push(line.hands);
        self.ending.push(match line.ending {
            GameEnding::Target { .. } => 't',
            GameEnding::MaxHands => 'm',
            GameEnding::Forfeit { .. } => 'f',
        });
        let id = default_id(line);
        if line.id != id {
            self.ids.insert(game, line.id.clone());
        }
        if folders > 1 {
            self.folder.push(folder);
        }
        for fault in &line.faults {
            self.faults.add(game, fault);
        }
        if self.count >= 2 * GAMES_KEPT {
            self.halve();
        }
    }

    /// Drops every other game listed (the first stays) and doubles the stride.
    fn halve(&mut self) {
        every_other(&mut self.group, self.group_size);
        every_other(&mut self.deal, 1);
        every_other_char(&mut self.arrangement, 1);
        every_other_char(&mut self.members, self.players);
        every_other_char(&mut self.ranks, self.sides);
        every_other(&mut self.scores, self.sides);
        every_other(&mut self.hands, 1);
        every_other_char(&mut self.ending, 1);
        self.ids = std::mem::take(&mut self.ids)
            .into_iter()
            .filter(|(g, _)| g % 2 == 0)
            .map(|(g, id)| (g / 2, id))
            .collect();
        every_other(&mut self.folder, 1);
        self.faults.halve();
        self.count = self.count.div_ceil(2);
        self.stride *= 2;
    }
}

/// Keeps the even-numbered runs of `width` items (a game's share of a column).
fn every_other<T>(column: &mut Vec<T>, width: usize) {
    let mut i = 0;
    column.retain(|_| {
        i += 1;
        ((i - 1) / width.max(1)).is_multiple_of(2)
    });
}

/// [`every_other`] for a column of one character per item.
fn every_other_char(column: &mut String, width: usize) {
    let mut i = 0;
    column.retain(|_| {
        i += 1;
        ((i - 1) / width.max(1)).is_multiple_of(2)
    });
}

impl Faults {
    fn add(&mut self, game: usize, fault: &crate::tournament::results::FaultLine) {
        let name = fault.kind.to_string();
        let kind = match self.kinds.iter().position(|k| *k == name) {
            Some(k) => k,
            None => {
                self.kinds.push(name);
                self.kinds.len() - 1
            }
        };
        self.game.push(game);
        self.seat.push(digit(fault.seat));
        self.kind.push(digit(kind));
        self.forfeit.push(if fault.forfeit { '1' } else { '0' });
        // Details stay those of the first faults listed: none once one was not kept.
        if self.detail.len() < DETAILS_KEPT && self.detail.len() + 1 == self.game.len() {
            self.detail
                .push(fault.detail.chars().take(DETAIL_CHARS).collect());
        }
    }
}

impl Faults {
    /// Keeps the faults of the even-numbered games, renumbered for [`Games::halve`].
    fn halve(&mut self) {
        let kept: Vec<bool> = self.game.iter().map(|g| g % 2 == 0).collect();
        let keep = |i: &mut usize| {
            *i += 1;
            kept[*i - 1]
        };
        let mut i = 0;
        self.seat.retain(|_| keep(&mut i));
        i = 0;
        self.kind.retain(|_| keep(&mut i));
        i = 0;
        self.forfeit.retain(|_| keep(&mut i));
        i = 0;
        self.detail.retain(|_| keep(&mut i));
        self.game = self
            .game
            .iter()
            .filter(|g| *g % 2 == 0)
            .map(|g| g / 2)
            .collect();
    }
}

/// A game's id as a tournament's schedule makes it.
fn default_id(line: &GameLine) -> String {
    let group: Vec<String> = line.group.iter().map(usize::to_string).collect();
    format!("{}/{}/{}", group.join("-"), line.deal, line.arrangement)
}

/// `n` as one base-36 digit (seats, ranks, arrangements and fault kinds stay below 36).
fn digit(n: usize) -> char {
    char::from_digit(n.min(35) as u32, 36).expect("a number below 36 is a base-36 digit")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, seats: [(usize, u32); 2], faults: serde_json::Value) -> GameLine {
        let seat = |(entrant, rank): (usize, u32), side: usize| {
            serde_json::json!({"entrant": entrant, "name": format!("e{entrant}"), "side": side,
                "rank": rank, "moves": 1, "time_us": 10, "time_buckets": []})
        };
        serde_json::from_value(serde_json::json!({
            "id": id, "game": 1, "group": [3, 7], "deal": 12, "deal_seed": 5, "arrangement": 1,
            "seed": 9, "teams": false, "seats": [seat(seats[0], 0), seat(seats[1], 1)],
            "scores": [100, 250], "hands": 4, "ending": {"kind": "target", "side": 1},
            "faults": faults, "log": "logs/x.jsonl", "rerun": "allfives match ..."
        }))
        .expect("a results line")
    }

    #[test]
    fn a_game_is_a_few_digits_and_only_what_differs_is_written_out() {
        let mut games = Games::default();
        let fault = serde_json::json!([{"seat": 1, "entrant": 3, "kind": "timeout",
            "detail": "<b>late</b>", "forfeit": true}]);
        games.add(&line("3-7/12/1", [(7, 2), (3, 1)], fault), 0, 1);
        games.add(&line("odd", [(7, 1), (3, 2)], serde_json::json!([])), 0, 1);
        assert_eq!(games.count, 2);
        assert_eq!(games.group, [3, 7, 3, 7]);
        assert_eq!(games.members, "1010", "seat 0 is member 1 (entrant 7)");
        assert_eq!(games.ranks, "2112");
        assert_eq!(games.arrangement, "11");
        assert_eq!(games.ending, "tt");
        assert_eq!(
            games.ids.into_iter().collect::<Vec<_>>(),
            [(1, "odd".to_string())],
            "only an id other than group/deal/arrangement is written out"
        );
        assert_eq!(games.faults.game, [0]);
        assert_eq!(games.faults.kinds, ["timeout"]);
        assert_eq!(
            (games.faults.seat.as_str(), games.faults.forfeit.as_str()),
            ("1", "1")
        );
        assert_eq!(games.faults.detail, ["<b>late</b>"]);
        assert!(games.folder.is_empty(), "one folder: no column");
    }

    #[test]
    fn a_long_run_lists_every_stride_th_game_and_stays_bounded() {
        let template = line("3-7/0/1", [(7, 2), (3, 1)], serde_json::json!([]));
        let fault = line(
            "x",
            [(7, 2), (3, 1)],
            serde_json::json!([{"seat": 0, "entrant": 7, "kind": "timeout", "detail": "late",
                "forfeit": false}]),
        )
        .faults;
        let mut games = Games::default();
        let recorded = 4 * GAMES_KEPT + 3;
        for t in 0..recorded {
            let mut game = template.clone();
            game.deal = t as u64;
            game.id = match t % 5 {
                0 => format!("odd{t}"),
                _ => format!("3-7/{t}/1"),
            };
            if t % 3 == 0 {
                game.faults = fault.clone();
            }
            games.add(&game, 0, 1);
            assert!(games.count < 2 * GAMES_KEPT, "{} games listed", games.count);
        }
        assert_eq!((games.recorded, games.stride), (recorded, 4));
        assert_eq!(games.count, recorded.div_ceil(4));
        // Listed game g is recorded game 4g: its deal, its id, its faults.
        assert!(
            games
                .deal
                .iter()
                .enumerate()
                .all(|(g, &d)| d == 4 * g as u64)
        );
        assert_eq!(games.ranks.len(), 2 * games.count);
        assert_eq!(games.group.len(), 2 * games.count);
        let odd: Vec<(usize, String)> = games.ids.clone().into_iter().take(2).collect();
        assert_eq!(odd, [(0, "odd0".to_string()), (5, "odd20".to_string())]);
        let faulted: Vec<usize> = (0..games.count).filter(|g| (4 * g) % 3 == 0).collect();
        assert_eq!(games.faults.game, faulted);
        assert_eq!(games.faults.seat.len(), faulted.len());
        assert!(games.faults.detail.len() <= DETAILS_KEPT);
        assert!(games.faults.detail.iter().all(|d| d == "late"));
    }
}
