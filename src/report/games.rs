//! Every game of a tournament as columns: one array (or one string of digits) per field, with
//! entrants by index, and what can be derived (a game's id from its group, deal and
//! arrangement) written only where it differs. A game costs about 25 bytes of the page.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::tournament::results::GameLine;
use allfives_engine::game::GameEnding;

/// Fault details kept on the page (the first ones, each cut short): a run where every game
/// faults would otherwise weigh its details in megabytes. Their kinds are all kept.
pub const DETAILS_KEPT: usize = 2000;

/// Characters of a fault's detail kept.
const DETAIL_CHARS: usize = 160;

/// The games, column by column, in the order they were recorded.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Games {
    /// Games listed.
    pub count: usize,
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

impl Games {
    /// Adds a game, recorded in folder `folder` of `folders`.
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
    }
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
        if self.detail.len() < DETAILS_KEPT {
            self.detail
                .push(fault.detail.chars().take(DETAIL_CHARS).collect());
        }
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
}
