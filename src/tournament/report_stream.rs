//! The `--json` report of a match, a tournament or merged standings ([`Report`]), and a match's
//! report written as the match goes: its opening before the first game, each game's results
//! line as that game ends, `complete` and the standings at the end. Nothing is
//! kept per game, so a long match holds no more memory than a short one.
//!
//! The document is the one `serde_json::to_string_pretty` makes of the whole [`Report`], byte
//! for byte (then made safe for a terminal by [`text::json`], which leaves plain text as it is):
//! the opening and the closing are cut from that very serialization (of the report
//! as known at the start, and at the end), so the stream never restates the report's fields.
//! This relies on `games` coming after the fields known at the start and before those known
//! only at the end (`complete`, `standings`), as [`Report`] orders them.

use std::io::{self, Write};

use allfives_engine::rules::Rules;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::text;
use crate::tournament::audit::Verified;
use crate::tournament::results::{Entrant, GameLine, RESULTS_VERSION};
use crate::tournament::schedule::Format;
use crate::tournament::standings::Standings;

/// The JSON that `match`, `tournament` and `standings` print (docs/results.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// Always `allfives-results`.
    pub format: String,
    /// [`RESULTS_VERSION`].
    pub version: u32,
    /// `match`, `tournament` or `standings`.
    pub kind: String,
    /// The master seed (absent for merged standings of several runs).
    pub seed: Option<u64>,
    /// True when the deals follow from the seed by public formulas (`--public-seed`), so that
    /// bots could have computed them; written only then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub public_seed: bool,
    /// The rules (absent for merged standings).
    pub rules: Option<Rules>,
    /// A tournament's format (absent for a match, and for merged folders of different formats):
    /// a gauntlet's first entrant is its challenger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament_format: Option<Format>,
    /// The entrants, by index.
    pub entrants: Vec<Entrant>,
    /// Every game (a match only: a tournament's are in its results.jsonl).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<Vec<GameLine>>,
    /// False when the run was cut short (Ctrl-C, an SPRT decision, an error) or results are
    /// missing. Printed after `games`: a match prints each game as it ends, and this only at its
    /// end.
    pub complete: bool,
    /// The standings.
    pub standings: Standings,
    /// What `standings --verify` checked against the games' logs (absent without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<Verified>,
}

impl Report {
    /// A report of `kind`.
    pub fn new(kind: &str, complete: bool, entrants: Vec<Entrant>, standings: Standings) -> Report {
        Report {
            format: "allfives-results".to_string(),
            version: RESULTS_VERSION,
            kind: kind.to_string(),
            seed: None,
            public_seed: false,
            rules: None,
            tournament_format: None,
            entrants,
            games: None,
            complete,
            standings,
            verified: None,
        }
    }
}

/// Where `games` stands in a pretty-printed report with no games: a field of the top-level
/// object (indented by two spaces; nested objects' fields are indented further).
const EMPTY_GAMES: &str = "\n  \"games\": []";

/// The indentation of a game: an element of `games`, two levels into the document.
const GAME_INDENT: &str = "\n    ";

/// A report being written to `out`: [`start`](ReportStream::start), then
/// [`game`](ReportStream::game) for each game as it ends, then [`finish`](ReportStream::finish).
/// Each part is flushed as it is written, so that a reader of a pipe sees every game when it
/// ends. Dropped before `finish` (stdout failed), the document stays open.
#[derive(Debug)]
pub struct ReportStream<W: Write> {
    out: W,
    /// Games written so far.
    games: u64,
}

impl<W: Write> ReportStream<W> {
    /// Writes the opening of `report` (every field before `games`, then `"games": [`); only its
    /// fields before `games` are written, so its standings may be those of no game yet.
    pub fn start(mut out: W, report: &Report) -> io::Result<ReportStream<W>> {
        let (opening, _) = halves(report);
        write_flushed(&mut out, &opening)?;
        Ok(ReportStream { out, games: 0 })
    }

    /// Writes one game's results line, as an element of `games`.
    pub fn game(&mut self, line: &GameLine) -> io::Result<()> {
        let text = serde_json::to_string_pretty(line).expect("a results line always serializes");
        let separator = match self.games {
            0 => "",
            _ => ",",
        };
        // Pretty JSON has no newline but between its tokens (a string's is escaped as \n),
        // so indenting after each one indents every line.
        let element = format!(
            "{separator}{GAME_INDENT}{}",
            text.replace('\n', GAME_INDENT)
        );
        write_flushed(&mut self.out, &element)?;
        self.games += 1;
        Ok(())
    }

    /// Closes `games` and the document with the end of `report` (`complete`, `standings` and
    /// any field after `games`) and a newline; its `games` are not written (they were, one by
    /// one).
    pub fn finish(mut self, report: &Report) -> io::Result<()> {
        let (_, closing) = halves(report);
        let indent = match self.games {
            0 => "",
            _ => "\n  ",
        };
        write_flushed(&mut self.out, &format!("{indent}{closing}\n"))
    }
}

/// `report` pretty-printed with no games, cut inside the empty `games`: the text up to and
/// including its `[`, and the text from its `]` on.
fn halves(report: &Report) -> (String, String) {
    let empty = Report {
        games: Some(Vec::new()),
        ..report.clone()
    };
    let mut text = serde_json::to_string_pretty(&empty).expect("a report always serializes");
    let at = text
        .find(EMPTY_GAMES)
        .expect("a report with games lists them as a field of its own")
        + EMPTY_GAMES.len()
        - 1;
    let closing = text.split_off(at);
    (text, closing)
}

/// Writes `report` to `out` as `serde_json::to_string_pretty` does, made safe for a terminal
/// ([`text::json`]), and a newline: written as it is serialized, never held whole (the report
/// of 100,000 entrants is tens of megabytes).
pub fn write_report(out: impl Write, report: &Report) -> io::Result<()> {
    // Buffered before it is made safe: serde_json writes a piece of a string at a time.
    let mut out = io::BufWriter::with_capacity(
        1 << 16,
        TerminalSafe {
            out,
            carried: Vec::new(),
        },
    );
    serde_json::to_writer_pretty(&mut out, report)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// A writer of JSON that writes it on made safe for a terminal ([`text::json`]); a character
/// cut between two writes is carried to the next.
struct TerminalSafe<W: Write> {
    out: W,
    /// The start of a character whose end comes with the next write.
    carried: Vec<u8>,
}

impl<W: Write> Write for TerminalSafe<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        // Plain ASCII below DEL, most of a report, is safe as it is.
        if self.carried.is_empty() && bytes.iter().all(|&b| b < 0x7f) {
            self.out.write_all(bytes)?;
            return Ok(bytes.len());
        }
        self.carried.extend_from_slice(bytes);
        let whole = match std::str::from_utf8(&self.carried) {
            Ok(text) => text.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
        };
        let text = std::str::from_utf8(&self.carried[..whole]).expect("checked above");
        self.out.write_all(text::json(text).as_bytes())?;
        self.carried.drain(..whole);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Writes `json` whole, made safe for a terminal ([`text::json`]: the same JSON), and flushes it.
fn write_flushed(out: &mut impl Write, json: &str) -> io::Result<()> {
    out.write_all(text::json(json).as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::results::{Entrant, SeatLine};
    use crate::tournament::standings::Tally;
    use allfives_engine::game::GameEnding;
    use allfives_engine::rules::Rules;

    fn entrants() -> Vec<Entrant> {
        ["a", "b"]
            .iter()
            .enumerate()
            .map(|(index, name)| Entrant {
                index,
                name: name.to_string(),
                command: "builtin:greedy".to_string(),
                retired: false,
            })
            .collect()
    }

    fn line(game: u64) -> GameLine {
        let seat = |entrant: usize, rank| SeatLine {
            entrant,
            name: entrants()[entrant].name.clone(),
            side: entrant,
            rank,
            moves: 40 + game,
            time_us: 7,
            time_buckets: vec![(0, 39), (3, 1 + game)],
            probed: Default::default(),
        };
        GameLine {
            id: game.to_string(),
            game,
            group: vec![0, 1],
            deal: game / 2,
            deal_seed: 9,
            arrangement: (game % 2) as usize,
            seed: 1000 + game,
            teams: false,
            seats: vec![seat(0, 1), seat(1, 2)],
            scores: vec![250, 120],
            hands: 6,
            ending: GameEnding::Target { side: 0 },
            faults: Vec::new(),
            log: Some(format!("logs/game-{game}.jsonl\n\"quoted\"")),
            rerun: format!("allfives match a b --seed 9 --game {game}"),
            definition: None,
            log_sha256: None,
            reused_processes: false,
            log_offset: None,
            log_bytes: None,
        }
    }

    /// What `match --json` printed before streaming: the whole report, at once.
    fn whole(games: &[GameLine], complete: bool) -> String {
        let mut tally = Tally::new(vec!["a".into(), "b".into()], 2, None);
        games.iter().for_each(|g| tally.add(g));
        let mut report = Report::new("match", complete, entrants(), tally.standings());
        report.seed = Some(9);
        report.rules = Some(Rules::new(2));
        report.games = Some(games.to_vec());
        serde_json::to_string_pretty(&report).expect("serializes") + "\n"
    }

    /// The same report, streamed as a match does.
    fn streamed(games: &[GameLine], complete: bool) -> String {
        let names = vec!["a".to_string(), "b".to_string()];
        let mut tally = Tally::new(names, 2, None);
        let mut opening = Report::new("match", false, entrants(), tally.standings());
        opening.seed = Some(9);
        opening.rules = Some(Rules::new(2));
        let mut out = Vec::new();
        let mut stream = ReportStream::start(&mut out, &opening).expect("written");
        for g in games {
            tally.add(g);
            stream.game(g).expect("written");
        }
        let mut end = Report::new("match", complete, entrants(), tally.standings());
        end.seed = opening.seed;
        end.rules = opening.rules;
        stream.finish(&end).expect("written");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn a_streamed_report_is_the_whole_report_byte_for_byte() {
        let games: Vec<GameLine> = (1..=3).map(line).collect();
        for n in 0..=games.len() {
            for complete in [false, true] {
                let text = streamed(&games[..n], complete);
                assert_eq!(text, whole(&games[..n], complete), "{n} games");
                let back: Report = serde_json::from_str(&text).expect("a report");
                assert_eq!(back.games.as_deref(), Some(&games[..n]));
                assert_eq!(back.complete, complete);
            }
        }
    }

    #[test]
    fn complete_comes_after_the_games() {
        let text = streamed(&[line(1)], true);
        let games = text.find("\n  \"games\"").expect("games");
        let complete = text.find("\n  \"complete\"").expect("complete");
        assert!(games < complete, "{text}");
    }

    #[test]
    fn a_written_report_is_the_whole_report_made_safe() {
        // Characters cut between the buffer's writes (two bytes each, past 64 KiB), and some
        // that a terminal would act on.
        let names = [
            "\u{e9}".repeat(50_000) + "\u{202e}\u{7f}\u{9b}<\"\\",
            "b\u{200b}".to_string(),
        ];
        let mut tally = Tally::new(names.to_vec(), 2, None);
        let mut games = vec![line(1), line(2)];
        for g in &mut games {
            for seat in &mut g.seats {
                seat.name = names[seat.entrant].clone();
            }
            tally.add(g);
        }
        let mut entrants = entrants();
        for (e, name) in entrants.iter_mut().zip(&names) {
            e.name = name.clone();
        }
        let mut report = Report::new("tournament", true, entrants, tally.standings());
        report.games = Some(games);
        let mut written = Vec::new();
        write_report(&mut written, &report).expect("written");
        let whole = text::json(&serde_json::to_string_pretty(&report).expect("serializes"));
        assert_eq!(String::from_utf8(written).expect("UTF-8"), whole + "\n");
    }
}
