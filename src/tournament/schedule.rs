//! The schedule: which entrants meet (groups), in which seat arrangements, on which deals, and in
//! which order the games are played. Pure: the same definition always gives the same games.
//!
//! Seat arrangements (member indices per seat), the same for `match` and `tournament`:
//! - 2 players: both seats, `[0,1] [1,0]`;
//! - 3 players: all 6 orders, the 3 rotations of `[0,1,2]` then the 3 of `[0,2,1]`, so that each
//!   member sits just before and just after each other member equally often;
//! - 4 in partnerships (seats 0 and 2 against 1 and 3): the 4 rotations of `[0,1,2,3]`, which
//!   swap the teams and swap the partners; when a team is two copies of one entrant, the first
//!   two (the teams swapped) are all that differ;
//! - 4 cut-throat: the 4 rotations of `[0,1,2,3]` and the 4 of `[0,3,2,1]` (a balanced subset:
//!   each member sits in every seat twice and just before each neighbour as often as just after
//!   it), or with `all_orders` all 24 orders.

use crate::referee::matchplay::BLOCK;
use crate::tournament::groups::Groups;
pub use crate::tournament::groups::{Format, Table};
use crate::tournament::seeds;

/// The seat arrangements that matter for `table`, as member indices per seat.
pub fn arrangements(table: &Table) -> Vec<Vec<usize>> {
    let rotations = |order: &[usize]| -> Vec<Vec<usize>> {
        (0..order.len())
            .map(|r| {
                (0..order.len())
                    .map(|s| order[(s + r) % order.len()])
                    .collect()
            })
            .collect()
    };
    match (table.players, table.teams) {
        (3, _) => [rotations(&[0, 1, 2]), rotations(&[0, 2, 1])].concat(),
        (4, true) => rotations(&[0, 1, 2, 3]),
        (4, false) if table.all_orders => permutations(4),
        (4, false) => [rotations(&[0, 1, 2, 3]), rotations(&[0, 3, 2, 1])].concat(),
        (n, _) => rotations(&(0..n).collect::<Vec<_>>()),
    }
}

/// Every order of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for first in 0..n {
        for rest in permutations(n - 1) {
            let mut order = vec![first];
            order.extend(rest.into_iter().map(|x| if x >= first { x + 1 } else { x }));
            all.push(order);
        }
    }
    all
}

/// One game of a match or a tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GamePlan {
    /// Its id: stable when entrants are added, unique within a tournament.
    pub id: String,
    /// The entrant (tournament) or bot (match) index of each member of its group.
    pub members: Vec<usize>,
    /// For each seat, the member sitting there.
    pub seating: Vec<usize>,
    /// The deal's index: every group plays deal `d` with the same seed.
    pub deal: u64,
    /// The deal's seed (derived from the master seed and `deal`).
    pub deal_seed: u64,
    /// The index of the seat arrangement.
    pub arrangement: usize,
    /// The seed the game's hands are dealt from (`deal_seed`'s first round).
    pub seed: u64,
    /// The game's number in `allfives match --seed DEAL_SEED` that plays it alone.
    pub match_game: u64,
}

/// The `game`-th game (from 1) of a match of `bots` bots with seed `master`: the seats go
/// through every arrangement that matters before a deal repeats (`rotate`), each new round of
/// arrangements on a new deal.
pub fn match_game(table: &Table, master: u64, game: u64, rotate: bool) -> GamePlan {
    let orders = arrangements(table);
    let per_deal = if rotate { orders.len() as u64 } else { 1 };
    let index = game - 1;
    let (round, arrangement) = (index / per_deal, (index % per_deal) as usize);
    let seed = seeds::derive(master, round);
    GamePlan {
        id: format!("{game}"),
        members: (0..table.players).collect(),
        seating: orders[arrangement].clone(),
        deal: round,
        deal_seed: master,
        arrangement,
        seed,
        match_game: game,
    }
}

/// A tournament's schedule: the groups and how many deals each plays.
#[derive(Debug, Clone)]
pub struct Schedule {
    /// The table.
    pub table: Table,
    /// Every group, as entrant indices per member, made when needed.
    pub groups: Groups,
    /// Deals per group.
    pub deals: u64,
    /// The master seed.
    pub master: u64,
    orders: Vec<Vec<usize>>,
}

impl Schedule {
    /// The schedule of `entrants` entrants.
    pub fn new(table: Table, format: Format, entrants: usize, deals: u64, master: u64) -> Self {
        let mut orders = arrangements(&table);
        if table.players == 4 && table.teams && !table.splits {
            // Two copies of one entrant make a team: swapping partners changes nothing.
            orders.truncate(2);
        }
        Schedule {
            table,
            groups: Groups::new(&table, format, entrants),
            deals,
            master,
            orders,
        }
    }

    /// Games in a set (one deal of one group in every arrangement).
    pub fn set_size(&self) -> usize {
        self.orders.len()
    }

    /// Every game.
    pub fn total(&self) -> u64 {
        self.groups
            .len()
            .saturating_mul(self.deals)
            .saturating_mul(self.orders.len() as u64)
    }

    /// The games in playing order: blocks of deals, each group's games of a block together.
    /// With a shard `(i, n)`, only the sets (group and deal) whose index is `i - 1` modulo `n`.
    pub fn games(&self, shard: Option<(u64, u64)>) -> impl Iterator<Item = GamePlan> + '_ {
        self.positions(shard, (0, 1))
            .map(|(group, deal, a)| self.plan(&group, deal, a))
    }

    /// [`games`](Schedule::games), owning the schedule: made one at a time, so that a long
    /// tournament never holds its whole schedule. With `share` `(w, n)`, only the deals that
    /// are `w` modulo `n` (a worker's: [`Sharing`](crate::tournament::affinity::Sharing)).
    pub fn into_games(
        self: std::sync::Arc<Self>,
        shard: Option<(u64, u64)>,
        share: (u64, u64),
    ) -> impl Iterator<Item = GamePlan> + Send + 'static {
        let positions = self.positions(shard, share);
        positions.map(move |(group, deal, a)| self.plan(&group, deal, a))
    }

    /// How many games `shard` (or the whole schedule) holds, counted, not listed.
    pub fn count(&self, shard: Option<(u64, u64)>) -> u64 {
        let sets = u128::from(self.groups.len()) * u128::from(self.deals);
        let in_shard = match shard {
            None => sets,
            // Set indices x below `sets` with x mod n = i - 1.
            Some((i, n)) => (sets + u128::from(n) - u128::from(i)) / u128::from(n),
        };
        u64::try_from(in_shard * self.orders.len() as u128).unwrap_or(u64::MAX)
    }

    /// Whether the set of `group` (by rank) on `deal` is in `shard`. A ladder's tables each
    /// have a deal of their own, the shard's by its index.
    pub fn in_shard(&self, shard: Option<(u64, u64)>, group: u64, deal: u64) -> bool {
        if self.groups.format() == Format::Ladder {
            return shard.is_none_or(|(i, n)| deal % n == i - 1);
        }
        let index = u128::from(deal) * u128::from(self.groups.len()) + u128::from(group);
        shard.is_none_or(|(i, n)| index % u128::from(n) == u128::from(i - 1))
    }

    /// (group, deal, arrangement) of every game in `shard` whose deal is `share.0` modulo
    /// `share.1`, in playing order.
    fn positions(
        &self,
        shard: Option<(u64, u64)>,
        (worker, workers): (u64, u64),
    ) -> impl Iterator<Item = (std::sync::Arc<Vec<usize>>, u64, usize)> + Send + use<> {
        let (deals, orders) = (self.deals, self.orders.len());
        let (groups, me) = (self.groups, self.clone());
        (0..deals.div_ceil(BLOCK)).flat_map(move |block| {
            let me = me.clone();
            groups.iter().zip(0u64..).flat_map(move |(members, g)| {
                let first = block * BLOCK;
                let members = std::sync::Arc::new(members);
                let me = me.clone();
                (0..orders).flat_map(move |a| {
                    let (members, me) = (members.clone(), me.clone());
                    (first..(first + BLOCK).min(deals))
                        .filter(move |&deal| {
                            deal % workers == worker && me.in_shard(shard, g, deal)
                        })
                        .map(move |deal| (members.clone(), deal, a))
                })
            })
        })
    }

    /// The game of `members` (a group) on `deal` in `arrangement`.
    pub fn plan(&self, members: &[usize], deal: u64, arrangement: usize) -> GamePlan {
        let members = members.to_vec();
        let ids: Vec<String> = members.iter().map(|m| m.to_string()).collect();
        let deal_seed = seeds::derive(self.master, deal);
        GamePlan {
            id: format!("{}/{deal}/{arrangement}", ids.join("-")),
            members,
            seating: self.orders[arrangement].clone(),
            deal,
            deal_seed,
            arrangement,
            seed: seeds::derive(deal_seed, 0),
            match_game: arrangement as u64 + 1,
        }
    }

    /// The seating of arrangement `a`, if there is one.
    pub fn seating(&self, a: usize) -> Option<&[usize]> {
        self.orders.get(a).map(Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(players: usize, teams: bool) -> Table {
        Table {
            players,
            teams,
            splits: false,
            all_orders: false,
        }
    }

    /// How often member `a` sits just before member `b` (in playing order, around the table).
    fn just_before(orders: &[Vec<usize>], a: usize, b: usize) -> usize {
        orders
            .iter()
            .filter(|o| (0..o.len()).any(|s| o[s] == a && o[(s + 1) % o.len()] == b))
            .count()
    }

    #[test]
    fn arrangements_put_everyone_everywhere_and_balance_neighbours() {
        for t in [
            table(2, false),
            table(3, false),
            table(4, true),
            table(4, false),
        ] {
            let orders = arrangements(&t);
            for seat in 0..t.players {
                let mut who: Vec<usize> = orders.iter().map(|o| o[seat]).collect();
                who.sort();
                who.dedup();
                assert_eq!(who.len(), t.players, "{t:?} seat {seat}");
            }
            // Partners sit in a fixed order around the table; only cut-throat needs this.
            for a in 0..t.players * usize::from(!t.teams) {
                for b in 0..t.players {
                    assert_eq!(just_before(&orders, a, b), just_before(&orders, b, a));
                }
            }
        }
        assert_eq!(arrangements(&table(3, false)).len(), 6);
        let all = Table {
            all_orders: true,
            ..table(4, false)
        };
        assert_eq!(arrangements(&all).len(), 24);
    }

    #[test]
    fn round_robin_of_four_entrants_three_players() {
        let s = Schedule::new(table(3, false), Format::RoundRobin, 4, 2, 1);
        assert_eq!(s.groups.len(), 4);
        assert_eq!(s.total(), 4 * 2 * 6);
        let ids: std::collections::BTreeSet<String> = s.games(None).map(|g| g.id).collect();
        assert_eq!(ids.len() as u64, s.total());
    }

    #[test]
    fn gauntlet_puts_the_first_entrant_in_every_group() {
        let s = Schedule::new(table(2, false), Format::Gauntlet, 4, 1, 1);
        let all: Vec<Vec<usize>> = s.groups.iter().collect();
        assert_eq!(all, vec![vec![0, 1], vec![0, 2], vec![0, 3]]);
        let t = Table {
            splits: true,
            ..table(4, true)
        };
        let s = Schedule::new(t, Format::RoundRobin, 4, 1, 1);
        assert_eq!(s.groups.len(), 3);
        assert_eq!(s.total(), 3 * 4);
        let copies = Schedule::new(table(4, true), Format::RoundRobin, 3, 1, 1);
        assert_eq!(copies.groups.get(0), vec![0, 1, 0, 1]);
        assert_eq!(copies.total(), 3 * 2);
    }

    #[test]
    fn shards_split_the_games_into_whole_sets() {
        let s = Schedule::new(table(2, false), Format::RoundRobin, 3, 5, 9);
        let mut all: Vec<String> = Vec::new();
        for i in 1..=3 {
            let part: Vec<GamePlan> = s.games(Some((i, 3))).collect();
            assert_eq!(part.len() % 2, 0);
            all.extend(part.into_iter().map(|g| g.id));
        }
        all.sort();
        for i in 1..=3 {
            assert_eq!(s.count(Some((i, 3))), s.games(Some((i, 3))).count() as u64);
        }
        for n in [1, 7, 15, 16] {
            assert_eq!(
                s.count(Some((n, 16))),
                s.games(Some((n, 16))).count() as u64
            );
        }
        assert_eq!(s.count(None), s.total());
        let mut whole: Vec<String> = s.games(None).map(|g| g.id).collect();
        whole.sort();
        assert_eq!(all, whole);
    }

    #[test]
    fn a_group_plays_each_arrangement_of_a_block_in_turn() {
        let s = Schedule::new(table(2, false), Format::RoundRobin, 2, 10, 1);
        let ids: Vec<String> = s.games(None).map(|g| g.id).take(10).collect();
        assert_eq!(ids[..3], ["0-1/0/0", "0-1/1/0", "0-1/2/0"]);
        assert_eq!(ids[8..], ["0-1/0/1", "0-1/1/1"]);
    }

    #[test]
    fn the_workers_shares_split_the_games_by_deal() {
        let s = std::sync::Arc::new(Schedule::new(table(2, false), Format::RoundRobin, 4, 20, 7));
        let mut whole: Vec<String> = s.games(None).map(|g| g.id).collect();
        let mut split = Vec::new();
        for w in 0..3 {
            let share: Vec<GamePlan> = s.clone().into_games(None, (w, 3)).collect();
            assert!(share.iter().all(|g| g.deal % 3 == w));
            split.extend(share.into_iter().map(|g| g.id));
        }
        whole.sort();
        split.sort();
        assert_eq!(split, whole);
    }

    #[test]
    fn a_tournament_game_is_game_k_of_a_match_on_its_deal_seed() {
        let t = table(3, false);
        let s = Schedule::new(t, Format::RoundRobin, 3, 3, 42);
        for g in s.games(None) {
            let m = match_game(&t, g.deal_seed, g.match_game, true);
            assert_eq!((m.seed, &m.seating), (g.seed, &g.seating));
        }
    }
}
