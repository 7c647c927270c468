//! Which worker plays which deal.
//!
//! Every group of a tournament deals the same deals, and a bot keeps processes in every worker.
//! A worker holds the processes it is not playing, but workers play at once: a bot's process
//! in one could tell its sibling in another the hands it was dealt (through futexes on a file
//! both map: no clock needed), and one seat's hand of a deal is the other seat's opponent's.
//! So, contained, each deal is played by one worker only: two processes that play at once were
//! never dealt the same deal, and what one tells the other is of deals the other never plays.
//!
//! A ladder's tables each have a deal of their own, builtins have no process, and uncontained
//! bots are not held to begin with: their games share one queue, each worker taking the next.

/// How the games are shared out among the workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// One queue: each worker takes the next game.
    Queue,
    /// Deal `d` to worker `d mod workers`, and no other.
    ByDeal,
}

impl Sharing {
    /// By deal when contained bots' processes meet the same deals in several groups: not in a
    /// ladder, not without a bot process, not uncontained.
    pub fn of(ladder: bool, processes: bool, contained: bool) -> Sharing {
        match !ladder && processes && contained {
            true => Sharing::ByDeal,
            false => Sharing::Queue,
        }
    }

    /// The workers to start for `asked` games at once, of a schedule of `deals` deals: by
    /// deal, no more workers than deals.
    pub fn workers(self, asked: usize, deals: u64) -> usize {
        let most = match self {
            Sharing::Queue => asked,
            Sharing::ByDeal => asked.min(usize::try_from(deals).unwrap_or(usize::MAX)),
        };
        most.max(1)
    }

    /// The deals worker `worker` of `workers` plays, as `(worker, workers)` of the deals
    /// modulo `workers` (`(0, 1)`: every deal).
    pub fn share(self, worker: usize, workers: usize) -> (u64, u64) {
        match self {
            Sharing::Queue => (0, 1),
            Sharing::ByDeal => (worker as u64, workers as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contained_bots_of_a_round_robin_share_by_deal_and_nothing_else_does() {
        assert_eq!(Sharing::of(false, true, true), Sharing::ByDeal);
        assert_eq!(Sharing::of(true, true, true), Sharing::Queue);
        assert_eq!(Sharing::of(false, false, true), Sharing::Queue);
        assert_eq!(Sharing::of(false, true, false), Sharing::Queue);
    }

    #[test]
    fn by_deal_starts_no_more_workers_than_deals() {
        assert_eq!(Sharing::ByDeal.workers(16, 10), 10);
        assert_eq!(Sharing::ByDeal.workers(2, 10), 2);
        assert_eq!(Sharing::Queue.workers(16, 10), 16);
        assert_eq!(Sharing::ByDeal.workers(4, 0), 1);
        assert_eq!(Sharing::ByDeal.share(3, 4), (3, 4));
        assert_eq!(Sharing::Queue.share(3, 4), (0, 1));
    }
}
