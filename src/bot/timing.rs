//! Move times as a histogram of fixed size: quarter-octave buckets of microseconds, so that
//! means are exact and the 99th percentile is within a fifth, however many moves are counted,
//! and histograms of many games add up.

use std::time::Duration;

/// Buckets: bucket `b` holds times in [2^(b/4), 2^((b+1)/4)) microseconds (bucket 0 also 0).
const BUCKETS: usize = 4 * 36;

/// A histogram of move times. Its buckets are made at its first move: a tournament of
/// 100,000 entrants keeps one for each, most of which may never play.
#[derive(Debug, Clone, Default)]
pub struct MoveTimes {
    /// Empty until a move is counted, then `BUCKETS` counts.
    counts: Vec<u64>,
    total_us: u64,
}

impl PartialEq for MoveTimes {
    /// Equal when they counted the same: no buckets made is the same as all empty.
    fn eq(&self, other: &Self) -> bool {
        self.total_us == other.total_us && self.buckets() == other.buckets()
    }
}

impl MoveTimes {
    /// Counts one move's time.
    pub fn record(&mut self, took: Duration) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.add_bucket(bucket_of(us), 1);
        self.total_us = self.total_us.saturating_add(us);
    }

    /// Moves counted.
    pub fn moves(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Their total time, in microseconds.
    pub fn total_us(&self) -> u64 {
        self.total_us
    }

    /// The non-empty buckets, as (bucket, count).
    pub fn buckets(&self) -> Vec<(u8, u64)> {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .map(|(b, &count)| (b as u8, count))
            .collect()
    }

    /// Adds `count` moves to bucket `b` (from a results line), without their time.
    pub fn add_bucket(&mut self, bucket: u8, count: u64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS];
        }
        let b = usize::from(bucket).min(BUCKETS - 1);
        self.counts[b] += count;
    }

    /// Adds time counted elsewhere (a results line gives buckets and total apart).
    pub fn add_total(&mut self, us: u64) {
        self.total_us = self.total_us.saturating_add(us);
    }

    /// What was counted since `earlier` (a snapshot of this histogram).
    pub fn since(&self, earlier: &MoveTimes) -> MoveTimes {
        MoveTimes {
            counts: self
                .counts
                .iter()
                .enumerate()
                .map(|(b, &count)| count - earlier.counts.get(b).copied().unwrap_or(0))
                .collect(),
            total_us: self.total_us - earlier.total_us,
        }
    }

    /// The mean move time in milliseconds (0 without moves).
    pub fn mean_ms(&self) -> f64 {
        match self.moves() {
            0 => 0.0,
            n => self.total_us as f64 / n as f64 / 1000.0,
        }
    }

    /// The 99th percentile in milliseconds: the upper edge of its bucket (0 without moves).
    pub fn p99_ms(&self) -> f64 {
        self.percentile_ms(0.99)
    }

    /// The median in milliseconds: the upper edge of its bucket (0 without moves).
    pub fn median_ms(&self) -> f64 {
        self.percentile_ms(0.5)
    }

    /// The slowest move in milliseconds: the upper edge of its bucket (0 without moves).
    pub fn slowest_ms(&self) -> f64 {
        self.percentile_ms(1.0)
    }

    /// The `q`-quantile (0 < q <= 1) in milliseconds: the upper edge of the bucket holding the
    /// ceil(q n)-th fastest of n moves, so within a fifth above the true time.
    fn percentile_ms(&self, q: f64) -> f64 {
        let n = self.moves();
        if n == 0 {
            return 0.0;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (b, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return upper_edge_ms(b);
            }
        }
        upper_edge_ms(BUCKETS - 1)
    }
}

/// The upper edge of bucket `b`, in milliseconds.
fn upper_edge_ms(b: usize) -> f64 {
    2f64.powf((b + 1) as f64 / 4.0) / 1000.0
}

fn bucket_of(us: u64) -> u8 {
    if us <= 1 {
        return 0;
    }
    let b = ((us as f64).log2() * 4.0).floor() as usize;
    b.min(BUCKETS - 1) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_p99_is_the_bucket_above_the_99th_time() {
        let mut times = MoveTimes::default();
        for ms in 1..=100u64 {
            times.record(Duration::from_millis(ms));
        }
        assert_eq!(times.moves(), 100);
        assert!((times.mean_ms() - 50.5).abs() < 1e-9);
        let p99 = times.p99_ms();
        assert!((99.0..99.0 * 1.19).contains(&p99), "{p99}");
        let median = times.median_ms();
        assert!((50.0..50.0 * 1.19).contains(&median), "{median}");
        let slowest = times.slowest_ms();
        assert!((100.0..100.0 * 1.19).contains(&slowest), "{slowest}");
        let earlier = times.clone();
        times.record(Duration::from_millis(5));
        assert_eq!(times.since(&earlier).moves(), 1);
    }

    #[test]
    fn a_histogram_of_no_moves_holds_no_buckets_and_equals_an_emptied_one() {
        let empty = MoveTimes::default();
        assert_eq!(empty.counts.capacity(), 0);
        assert_eq!(
            (empty.moves(), empty.median_ms(), empty.buckets()),
            (0, 0.0, vec![])
        );
        let mut times = MoveTimes::default();
        times.record(Duration::from_millis(3));
        assert_eq!(times.since(&times), empty);
        assert_eq!(times.since(&empty), times);
    }
}
