//! What the report page shows: the standings as `standings --json` gives them, the games as
//! columns, and what the standings do not keep but the page draws, gathered game by game beside
//! the tally: each entrant's move times as a histogram, and the sequential test's LLR over games.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::report::games::Games;
use crate::sandbox::Protections;
use crate::tournament::definition::Definition;
use crate::tournament::report_stream::Report;
use crate::tournament::results::GameLine;
use crate::tournament::standings::Tally;

/// Points kept of the LLR over games: past twice this, every other point is dropped (the first
/// and the latest stay), so the path stays small however long the test runs.
const LLR_POINTS: usize = 2000;

/// Where a report's run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Games are being played: the page reloads itself.
    Running,
    /// Every scheduled game was played (or the sequential test decided).
    Finished,
    /// The run stopped before the end (interrupted or an error); `--resume` plays the rest.
    Stopped,
    /// Read from a folder by `standings --html`.
    Read,
}

/// What is said of the run, besides its standings.
#[derive(Debug, Clone, Serialize)]
pub struct About {
    /// The page's title: the folders shown.
    pub title: String,
    /// Where the run stands.
    pub state: State,
    /// Why it stopped, or another note on the state.
    pub note: Option<String>,
    /// When the page was written, in milliseconds since 1970 (UTC).
    pub updated_ms: u64,
    /// Seconds between the page's reloads while running.
    pub reload_s: u32,
    /// Games scheduled (in the folders shown); 0 when not known ahead (a ladder's budget in
    /// games each).
    pub scheduled: u64,
    /// The definition, every entrant's environment values hidden (names kept).
    pub definition: Definition,
    /// The command line that plays the tournament again.
    pub command: String,
    /// The referee that played it, as its first log's header says.
    pub referee: Option<String>,
    /// The containment in force, as its first log's header says.
    pub containment: Option<Protections>,
    /// Where each folder's games' replay pages are, relative to the report (`replay/`), and the
    /// commands that write them.
    pub replays: Vec<Replays>,
}

/// A folder's replay pages.
#[derive(Debug, Clone, Serialize)]
pub struct Replays {
    /// The pages' folder, relative to the report, ending in `/`.
    pub prefix: String,
    /// The command that writes them there.
    pub command: String,
    /// Whether they were written with this report.
    pub written: bool,
}

/// Gathers, game by game, what the page needs beyond the standings.
#[derive(Debug, Clone)]
pub struct Gathered {
    games: Games,
    folders: usize,
    /// Each entrant's move times: bucket (as in results lines) to count.
    times: Vec<BTreeMap<u8, u64>>,
    /// `(games, pairs, llr)` after each pair completed.
    llr: Sampled<(u64, u64, f64)>,
    pairs: u64,
}

/// The page's data: borrowed, so that a running tournament's refresh copies nothing.
#[derive(Debug, Serialize)]
pub struct ReportData<'a> {
    /// What is said of the run.
    pub about: &'a About,
    /// The standings, as `standings --json` prints them.
    pub report: &'a Report,
    /// Every game.
    pub games: &'a Games,
    /// Each entrant's move times as `[bucket, count]` pairs, bucket `b` holding times from
    /// 2^(b/4) to 2^((b+1)/4) microseconds.
    pub times: Vec<Vec<(u8, u64)>>,
    /// The sequential test's LLR over games: `[games, pairs, llr]` points.
    pub llr: Vec<(u64, u64, f64)>,
}

impl Gathered {
    /// Nothing gathered yet, for `entrants` entrants in `folders` folders.
    pub fn new(entrants: usize, folders: usize) -> Gathered {
        Gathered {
            games: Games::default(),
            folders,
            times: vec![BTreeMap::new(); entrants],
            llr: Sampled::new(),
            pairs: 0,
        }
    }

    /// Adds a game of folder `folder`, just folded into `tally` (which counts it).
    pub fn add(&mut self, line: &GameLine, folder: usize, tally: &Tally) {
        self.games.add(line, folder, self.folders);
        for seat in &line.seats {
            if let Some(times) = self.times.get_mut(seat.entrant) {
                for &(bucket, count) in &seat.time_buckets {
                    *times.entry(bucket).or_default() += count;
                }
            }
        }
        if let Some((pairs, llr)) = tally.sprt_llr(self.pairs) {
            self.pairs = pairs;
            self.llr.push((tally.games(), pairs, llr));
        }
    }

    /// The page's data with `report`'s standings.
    pub fn data<'a>(&'a self, about: &'a About, report: &'a Report) -> ReportData<'a> {
        ReportData {
            about,
            report,
            games: &self.games,
            times: self
                .times
                .iter()
                .map(|t| t.iter().map(|(&b, &n)| (b, n)).collect())
                .collect(),
            llr: self.llr.all(),
        }
    }
}

/// A path sampled evenly however long it grows: every `stride`-th point and the latest; when
/// the samples reach `2 * LLR_POINTS`, every other one is dropped and the stride doubles.
#[derive(Debug, Clone)]
struct Sampled<T> {
    points: Vec<T>,
    latest: Option<T>,
    stride: usize,
    seen: usize,
}

impl<T: Clone> Sampled<T> {
    fn new() -> Self {
        Sampled {
            points: Vec::new(),
            latest: None,
            stride: 1,
            seen: 0,
        }
    }

    fn push(&mut self, point: T) {
        if self.seen.is_multiple_of(self.stride) {
            self.points.push(point);
            self.latest = None;
            if self.points.len() >= 2 * LLR_POINTS {
                // The samples are even in number: the halving drops the point just pushed,
                // which stays as the latest (the path still ends where it ends).
                let last = self.points.last().cloned();
                let mut i = 0;
                self.points.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
                self.latest = last;
            }
        } else {
            self.latest = Some(point);
        }
        self.seen += 1;
    }

    /// The samples, then the latest point.
    fn all(&self) -> Vec<T> {
        self.points.iter().chain(&self.latest).cloned().collect()
    }
}

/// `definition` as the page shows it: every environment value hidden (a bot's key or token may
/// sit there), its name kept.
pub fn shown_definition(definition: &Definition) -> Definition {
    let mut shown = definition.clone();
    for entrant in &mut shown.entrants {
        for value in entrant.env.values_mut() {
            *value = "(hidden)".to_string();
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_kept_path_is_short_ordered_and_ends_where_it_ends(n in 1usize..20_000) {
            let mut sampled = Sampled::new();
            for i in 0..n {
                sampled.push(i);
            }
            let path = sampled.all();
            prop_assert!(path.len() <= 2 * LLR_POINTS);
            prop_assert_eq!(path[0], 0);
            prop_assert_eq!(*path.last().expect("a point"), n - 1);
            prop_assert!(path.windows(2).all(|w| w[0] < w[1]));
            // Evenly spread: no gap wider than twice the mean gap (and at least 2 wide).
            let widest = path.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
            prop_assert!(widest <= (2 * n / path.len()).max(1), "{widest} in {}", path.len());
        }
    }
}
