//! When a bot's process is replaced between games. Duplicate play deals every deal again with
//! the seats turned, so a process that remembered the hand it held would know its opponent's
//! hand the second time: by default each seat arrangement has a process of its own, which sees
//! every deal in that arrangement only ([`Processes::UnseenDeals`],
//! [`Player::take_up`](crate::bot::player::Player::take_up)), and a process is restarted
//! before it would see a deal again, enforced where each game starts its players (the
//! referee's game), whatever order the games come in.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use allfives_engine::deal::Deal;
use serde::{Deserialize, Serialize};

/// How long a bot's process lives.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Processes {
    /// A new process for every game (`--fresh`).
    Fresh,
    /// A process plays many games, but never a deal it has already seen (in any seat): each
    /// seat arrangement has one, and one that would see a deal again is restarted first. The
    /// default.
    #[default]
    UnseenDeals,
    /// A process plays game after game, deals it has seen included (`--reuse-processes`, for
    /// trusted bots only: a bot that remembers the hand it held knows its opponent's hand when
    /// the same deal comes back with the seats turned).
    Reused,
}

impl Processes {
    /// From the command line's `--fresh` and `--reuse-processes` (which clap keeps apart).
    pub fn from_flags(fresh: bool, reuse: bool) -> Processes {
        match (fresh, reuse) {
            (true, _) => Processes::Fresh,
            (false, true) => Processes::Reused,
            (false, false) => Processes::UnseenDeals,
        }
    }

    /// Whether this is [`Processes::Reused`] (records name only that choice).
    pub fn is_reused(&self) -> bool {
        *self == Processes::Reused
    }
}

/// What a game deals, as a bot could recognise it when it comes again: the seed its hands are
/// drawn from, and the hands a deal file gives (the same in every game of a match that uses
/// the file), told apart by a hash of their text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dealt {
    /// Hands drawn from this seed.
    Seed(u64),
    /// The first hands given by `--deal` or `--deal-from` (or a check's position).
    Given(u64),
}

impl Dealt {
    /// What a game with `seed` and `given` first hands deals.
    pub fn of_game(seed: u64, given: &Arc<[Deal]>) -> Vec<Dealt> {
        let mut dealt = vec![Dealt::Seed(seed)];
        if !given.is_empty() {
            dealt.push(Dealt::Given(given_hash(given)));
        }
        dealt
    }
}

/// The hash of a deal list's text. Every game of a match shares one list, whose hash is kept
/// with a weak handle on it: a game costs a pointer comparison, not its whole size (a file of
/// 100,000 deals cost 44 ms a game to hash anew). The weak handle keeps the list's allocation,
/// so no other list can take its address, and a list behind an `Arc` never changes.
fn given_hash(given: &Arc<[Deal]>) -> u64 {
    static LAST: Mutex<Option<(Weak<[Deal]>, u64)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((list, hash)) = last.as_ref()
        && std::ptr::addr_eq(list.as_ptr(), Arc::as_ptr(given))
    {
        return *hash;
    }
    let text = serde_json::to_vec(&**given).expect("a deal always serializes");
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let hash = hasher.finish();
    *last = Some((Arc::downgrade(given), hash));
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_choose_the_lifetime() {
        assert_eq!(Processes::from_flags(false, false), Processes::UnseenDeals);
        assert_eq!(Processes::from_flags(true, false), Processes::Fresh);
        assert_eq!(Processes::from_flags(false, true), Processes::Reused);
        assert_eq!(Dealt::of_game(3, &Arc::from([])), [Dealt::Seed(3)]);
    }

    #[test]
    fn a_deal_list_is_told_by_its_text_whichever_copy_and_however_often() {
        let deal = |seed| {
            let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
            Deal::random(&allfives_engine::rules::Rules::new(2), None, &mut rng).expect("a deal")
        };
        let one: Arc<[Deal]> = Arc::from([deal(1), deal(2)]);
        let copy: Arc<[Deal]> = Arc::from(one.to_vec());
        let other: Arc<[Deal]> = Arc::from([deal(2), deal(1)]);
        let first = Dealt::of_game(5, &one);
        // Asked again (the hash kept), the same list, a copy of it and another list.
        assert_eq!(Dealt::of_game(5, &one), first);
        assert_eq!(Dealt::of_game(5, &copy), first);
        assert_ne!(Dealt::of_game(5, &other), first);
        assert_eq!(Dealt::of_game(5, &one), first);
        // A list dropped and another made: never taken for the one kept.
        drop(one);
        let again: Arc<[Deal]> = Arc::from([deal(2), deal(1)]);
        assert_eq!(Dealt::of_game(5, &again), Dealt::of_game(5, &other));
    }
}
