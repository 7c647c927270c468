//! Ladders: instead of every group, tables drawn one at a time from the entrants still in, for a
//! budget of games; entrants join, retire and are replaced as it runs
//! ([`draw`] decides who meets, [`queue`] hands the games to the workers, [`fits`] cuts the
//! fits a matchmaking draw reads).

pub mod draw;
pub mod fits;
pub mod queue;

use serde::{Deserialize, Serialize};

/// A ladder's budget of games and how it draws, kept in `tournament.json` (a resume may raise
/// the budget or turn matchmaking on: neither changes a game played).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderSpec {
    /// Games in all, in this folder (rounded up to whole tables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
    /// Games for every entrant still in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games_each: Option<u64>,
    /// Tables chosen to settle the ratings fastest, rather than balanced.
    #[serde(default)]
    pub matchmaking: bool,
}
