//! A bot's answer times over a match: every move it was asked for, timed from the request to its
//! answer (or to the end of its clock, for a move that timed out), summed up as mean, median,
//! 99th percentile and slowest.

use std::time::Duration;

use serde::{Serialize, Serializer};

/// Every answer time of one bot, in microseconds, and how many of them timed out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timing {
    /// Microseconds each answer took (u32: over an hour a move).
    samples_us: Vec<u32>,
    timeouts: u32,
}

/// What [`Timing`] comes to; the numbers a table or a standings page shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TimingSummary {
    /// Moves the bot was asked for and answered or timed out on (forced single moves excluded).
    pub answers: u64,
    /// Their mean time, in milliseconds.
    pub mean_ms: f64,
    /// The median (the nearest-rank 50th percentile), in milliseconds.
    pub median_ms: f64,
    /// The nearest-rank 99th percentile, in milliseconds.
    pub p99_ms: f64,
    /// The slowest, in milliseconds (a timed-out move counts at the time it was given up on).
    pub slowest_ms: f64,
    /// Moves the bot did not answer in time (late answers included).
    pub timeouts: u32,
}

impl Timing {
    /// Records an answer in time.
    pub fn answered(&mut self, took: Duration) {
        self.samples_us.push(micros(took));
    }

    /// Records a move that ran out of time after `took` (an answer too late, or none at all).
    pub fn timed_out(&mut self, took: Duration) {
        self.samples_us.push(micros(took));
        self.timeouts += 1;
    }

    /// The answers recorded, timeouts included.
    pub fn answers(&self) -> u64 {
        self.samples_us.len() as u64
    }

    /// Mean, median, 99th percentile and slowest; all zero with no answer.
    pub fn summary(&self) -> TimingSummary {
        let mut sorted = self.samples_us.clone();
        sorted.sort_unstable();
        let Some(&slowest) = sorted.last() else {
            return TimingSummary::default();
        };
        let total: u64 = sorted.iter().map(|&us| u64::from(us)).sum();
        TimingSummary {
            answers: sorted.len() as u64,
            mean_ms: total as f64 / sorted.len() as f64 / 1000.0,
            median_ms: ms(nearest_rank(&sorted, 50)),
            p99_ms: ms(nearest_rank(&sorted, 99)),
            slowest_ms: ms(slowest),
            timeouts: self.timeouts,
        }
    }
}

impl Serialize for Timing {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.summary().serialize(serializer)
    }
}

/// The nearest-rank `percent`-th percentile of sorted, non-empty samples: the smallest sample
/// with at least `percent` % of the samples at or below it.
fn nearest_rank(sorted: &[u32], percent: usize) -> u32 {
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

fn ms(us: u32) -> f64 {
    f64::from(us) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(ms: &[u64]) -> Timing {
        let mut t = Timing::default();
        ms.iter()
            .for_each(|&m| t.answered(Duration::from_millis(m)));
        t
    }

    #[test]
    fn no_answer_sums_up_to_zeros() {
        assert_eq!(Timing::default().summary(), TimingSummary::default());
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let s = timing(&(1..=200).collect::<Vec<_>>()).summary();
        assert_eq!(s.answers, 200);
        assert_eq!(s.median_ms, 100.0);
        assert_eq!(s.p99_ms, 198.0);
        assert_eq!(s.slowest_ms, 200.0);
        assert_eq!(s.mean_ms, 100.5);
        let one = timing(&[7]).summary();
        assert_eq!((one.median_ms, one.p99_ms, one.slowest_ms), (7.0, 7.0, 7.0));
    }

    #[test]
    fn timeouts_count_and_weigh_in() {
        let mut t = timing(&[1, 2, 3]);
        t.timed_out(Duration::from_millis(1000));
        let s = t.summary();
        assert_eq!((s.answers, s.timeouts), (4, 1));
        assert_eq!(s.slowest_ms, 1000.0);
    }
}
