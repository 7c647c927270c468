//! Progress on stderr while a tournament runs: a bar on a terminal (games done of total, rate,
//! time left, the leader), otherwise a plain line every few seconds; nothing with `--quiet`.

use std::io::IsTerminal;

use crate::cli::exit::say;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a plain progress line is written.
const EVERY: Duration = Duration::from_secs(5);

/// The progress display.
pub struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
    total: u64,
    start: Instant,
    last: Instant,
}

impl Progress {
    /// Progress over `total` games.
    pub fn new(total: u64, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style =
                ProgressStyle::with_template("{bar:30} {pos}/{len} games ({eta} left), {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        let now = Instant::now();
        Progress {
            bar,
            plain: !quiet && !terminal,
            total,
            start: now,
            last: now,
        }
    }

    /// `done` games are finished; `leader` says who leads.
    pub fn update(&mut self, done: u64, leader: &str) {
        let leader = crate::text::terminal(leader);
        let rate = done as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(format!("{rate:.0} games/s; {leader}"));
        }
        if self.plain && (self.last.elapsed() >= EVERY || done == self.total) {
            self.last = Instant::now();
            say(format_args!(
                "allfives: {done}/{} games, {rate:.1} games/s, {} left; {leader}",
                self.total,
                time_left(self.total.saturating_sub(done), rate)
            ));
        }
    }

    /// Writes `text` to stderr without breaking the bar.
    pub fn note(&self, text: &str) {
        // Made safe line by line: a standings block keeps its lines.
        let print = || {
            for line in text.lines() {
                say(format_args!("{}", crate::text::terminal(line)));
            }
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The time `games` more games take at `rate` games a second, as "1h 02m", "3m 05s" or "12s";
/// "unknown" before the first game.
fn time_left(games: u64, rate: f64) -> String {
    if games == 0 {
        return "0s".to_string();
    }
    if rate <= 0.0 || !rate.is_finite() {
        return "unknown".to_string();
    }
    let seconds = (games as f64 / rate).ceil() as u64;
    match (seconds / 3600, seconds / 60 % 60, seconds % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, m, _) => format!("{h}h {m:02}m"),
    }
}

#[cfg(test)]
mod tests {
    use super::time_left;

    #[test]
    fn time_left_reads_plainly() {
        assert_eq!(time_left(0, 0.0), "0s");
        assert_eq!(time_left(10, 0.0), "unknown");
        assert_eq!(time_left(12, 1.0), "12s");
        assert_eq!(time_left(370, 2.0), "3m 05s");
        assert_eq!(time_left(3720, 1.0), "1h 02m");
    }
}
