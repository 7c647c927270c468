//! Standings: results folded in one game at a time into fixed-size totals (nothing kept per
//! game), then read out as a table per entrant, a crosstable, team results, ratings and a
//! winner. Duplicate sets are gathered until complete; only complete sets are rated, and sets
//! left unfinished are counted apart.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, mpsc};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::bot::fault::FaultKind;
use crate::bot::timing::MoveTimes;
use crate::sandbox::{Probed, probes};
use crate::tournament::ratings::batch::{BatchFit, FEW_GAMES, Side};
use crate::tournament::ratings::normal::clean;
use crate::tournament::ratings::sets;
use crate::tournament::ratings::sprt::Decision;
use crate::tournament::ratings::{self, Anchor, Elo, Sets, Sprt, SprtSpec, SprtTest};
use crate::tournament::results::{FaultLine, GameLine};

/// One game for the ratings: each side's entrants and rank.
type RatedGame = Vec<(Side, u32)>;

/// An entrant's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Row {
    /// Its index.
    pub entrant: usize,
    /// Its name.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Games its side ranked first alone.
    pub wins: u64,
    /// Games its side ranked first with another.
    pub draws: u64,
    /// The other games.
    pub losses: u64,
    /// Its score in percent: each game scores the share of other sides it beat, a tie half.
    pub score_pct: f64,
    /// Its side's mean rank.
    pub mean_rank: f64,
    /// Its side's mean final score.
    pub points_for: f64,
    /// The mean final score of the other sides.
    pub points_against: f64,
    /// Faults by kind.
    pub faults: BTreeMap<FaultKind, u64>,
    /// Its last fault, in words, with the game and the turn it came at, as `replay --turn`
    /// takes it (a crash's ends with the last lines of its stderr).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_fault: Option<String>,
    /// Moves it chose.
    pub moves: u64,
    /// Their mean time in milliseconds.
    pub mean_ms: f64,
    /// Their median in milliseconds (the upper edge of its histogram bucket).
    #[serde(default)]
    pub median_ms: f64,
    /// Their 99th percentile in milliseconds (the upper edge of its histogram bucket).
    pub p99_ms: f64,
    /// The slowest in milliseconds (the upper edge of its histogram bucket); timed-out answers
    /// are counted at the time they were given up on.
    #[serde(default)]
    pub slowest_ms: f64,
    /// What it tried and was refused, by system call, over its games (calls honest bots never
    /// make: see docs/fair-play.md); absent when nothing was.
    #[serde(default, skip_serializing_if = "Probed::is_empty")]
    pub probed: Probed,
}

/// A team's row (partnerships): its entrants (one, for a team of two copies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TeamRow {
    /// Its entrants' names.
    pub names: Vec<String>,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games level at the top.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Its score in percent.
    pub score_pct: f64,
    /// Its total final score over all games.
    pub points: i64,
}

/// Entrants past which the standings have no crosstable (its size grows as the square of
/// theirs: 100,000 entrants would need ten billion cells).
pub const CROSSTABLE_LIMIT: usize = 100;

/// One cell of the crosstable: the row entrant's score against the column entrant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cell {
    /// Points (1 per game ranked above the other, 0.5 level).
    pub score: f64,
    /// Games where both played on different sides.
    pub games: u64,
}

/// The winner by the standings' [`Criterion`], unless it cannot pick one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Winner {
    /// The winner's names (a team's entrants); empty when none is named.
    pub names: Vec<String>,
    /// Whether several share the best score (by score).
    pub level: bool,
    /// The winner's score in percent (by score: the shared best when level).
    pub score_pct: f64,
    /// What decided it, and the standings' order.
    #[serde(default)]
    pub by: Criterion,
    /// The winner's rating (by rating).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    /// Why no winner is named (absent when one is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none: Option<NoWinner>,
}

/// What decides the winner and the order of the standings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    /// The score: every entrant (every team, with fixed partners) met every other in as many
    /// games, so the score ranks them as the ratings do (each entrant's expected score rises
    /// with its rating against the same opponents).
    #[default]
    Score,
    /// The batch rating: whom an entrant met changes what its score is worth.
    Rating,
}

/// Why the criterion names no winner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoWinner {
    /// Nothing was played.
    NoGames,
    /// By score: several share the best.
    Level,
    /// By rating: no rating yet (no complete set).
    NotRated,
    /// By rating: some entrant that played is not rated against the rest (or none is: the
    /// complete sets fix no rating).
    NotComparable,
    /// By rating: the best is not ahead of the second at 95%.
    NotSeparated,
}

/// The standings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Standings {
    /// Games counted.
    pub games: u64,
    /// Complete duplicate sets (every seat arrangement of a deal).
    pub complete_sets: u64,
    /// Sets with only some of their games: their games count in the table, not in ratings.
    pub unfinished_sets: u64,
    /// The games of unfinished sets.
    pub unfinished_games: u64,
    /// Each entrant, in index order.
    pub entrants: Vec<Row>,
    /// `crosstable[i][j]`: entrant i's score against j (absent if they never met); empty with
    /// more than [`CROSSTABLE_LIMIT`] entrants.
    pub crosstable: Vec<Vec<Option<Cell>>>,
    /// Teams, with partnerships.
    pub teams: Vec<TeamRow>,
    /// Two players: the Elo difference of each pair of entrants that met, from duplicate pairs.
    pub elo: Vec<Elo>,
    /// Every entrant's Elo fitted to all complete sets at once, best first.
    pub ratings: BatchFit,
    /// The sequential test, when asked for (two entrants, two players).
    pub sprt: Option<Sprt>,
    /// The winner.
    pub winner: Winner,
    /// Entrant indices in the order of the winner's criterion, best first: by score, or by
    /// rating with the entrants not rated after, by score.
    #[serde(default)]
    pub order: Vec<usize>,
    /// The ratings as games were folded in, oldest first, the last at `games` (empty past
    /// [`HISTORY_ENTRANTS`] entrants).
    #[serde(default)]
    pub history: Vec<HistoryPoint>,
    /// Games played with `--reuse-processes`, where a bot's process may have played the deal
    /// before in another seat (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reused_processes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The batch ratings after some number of games: for the chart of ratings over games played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HistoryPoint {
    /// Games folded in by then.
    pub games: u64,
    /// Each entrant's Elo by index, null while it is not rated or has played fewer than
    /// [`FEW_GAMES`] games (a chart of it would be a guess: a chain of entrants with a game
    /// or two each spans thousands of Elo).
    pub elo: Vec<Option<f64>>,
    /// The half-width of each entrant's 95% interval by index, null without one (or a rating).
    pub half_width: Vec<Option<f64>>,
}

impl HistoryPoint {
    /// The point of `fit` after `games` games, for entrants that played `played` games each.
    fn new(games: u64, fit: &BatchFit, played: &[u64]) -> HistoryPoint {
        let mut elo = vec![None; played.len()];
        let mut half_width = vec![None; played.len()];
        for r in fit.entrants.iter() {
            if played[r.entrant] < FEW_GAMES {
                continue;
            }
            elo[r.entrant] = Some(r.elo);
            half_width[r.entrant] = r.half_width().map(clean);
        }
        HistoryPoint {
            games,
            elo,
            half_width,
        }
    }
}

/// Entrants past which the standings keep no rating history (each point is a fit of them all).
pub const HISTORY_ENTRANTS: usize = 1000;

/// The entrants up to which the history's first step is a set: a fit costs about the cube of
/// the entrants, so past them the first step grows as that cube, and the history's fits cost
/// about as much a game as at this size.
const HISTORY_STEP_ENTRANTS: usize = 100;

/// Games between the history's first points: a set, times `(entrants / 100)^3` past 100
/// entrants (1,000 entrants: a point every 1,000 sets at first).
/// A fault in words, with where it came: `timeout in game 3 at --turn 17 (seat 1): ...` (a
/// fault while starting has no turn; a match's game is `--game K`, a tournament's its id).
fn fault_words(game: &str, fault: &FaultLine) -> String {
    let at = fault
        .turn
        .map_or(String::new(), |t| format!(" at --turn {t}"));
    format!(
        "{} in game {game}{at} (seat {}): {}",
        fault.kind, fault.seat, fault.detail
    )
}

fn first_history_step(set_size: usize, entrants: usize) -> u64 {
    let scale = (entrants as f64 / HISTORY_STEP_ENTRANTS as f64)
        .powi(3)
        .ceil();
    set_size.max(1) as u64 * scale.max(1.0) as u64
}

/// The most points the history keeps: past it, the step between points doubles and every other
/// point goes.
pub const HISTORY_POINTS: usize = 64;

/// The parts a game's score is counted in: the share of other sides a side beat (a tie half)
/// is a whole number of them for up to 7 sides, and so is the mean score of up to 6 other
/// sides, so every sum is exact and the same in any order of the games.
const PARTS: u64 = 120;

/// `parts` of [`PARTS`] over `games` games, in percent: one division of exact integers, so
/// equal shares give equal numbers however they were summed.
fn percent(parts: u64, games: u64) -> f64 {
    if games == 0 {
        return 0.0;
    }
    clean((100 * parts) as f64 / (PARTS * games) as f64)
}

#[derive(Debug, Clone, Default)]
struct Totals {
    games: u64,
    wins: u64,
    draws: u64,
    /// Score in [`PARTS`] a game.
    score: u64,
    rank_sum: u64,
    points_for: i64,
    /// The other sides' mean final score, in [`PARTS`] of a point.
    points_against: i64,
    faults: BTreeMap<FaultKind, u64>,
    last_fault: Option<String>,
    times: MoveTimes,
    probed: Probed,
}

#[derive(Debug, Clone, Default)]
struct TeamTotals {
    games: u64,
    wins: u64,
    draws: u64,
    /// Score in [`PARTS`] a game.
    score: u64,
    points: i64,
}

/// A set being gathered: its games so far, each by its arrangement, as its sides' entrants and
/// ranks.
#[derive(Debug, Default)]
struct PendingSet {
    games: Vec<(usize, RatedGame)>,
}

/// A history point to fit: its game count, the sets then, and each entrant's games then.
type PointJob = (u64, Sets, Vec<u64>);

/// The thread fitting history points apart ([`Tally::history_apart`]).
#[derive(Debug)]
struct Apart {
    /// Points to fit; at most one waits, so that the sets' copies stay few.
    jobs: mpsc::SyncSender<PointJob>,
    /// The points fitted, and those received so far.
    fitted: Mutex<(mpsc::Receiver<HistoryPoint>, Vec<HistoryPoint>)>,
    /// Points sent since the history last gathered them.
    sent: usize,
    /// Which points it fits: every one (1), or every other (2).
    every: usize,
}

impl Apart {
    /// The thread fitting the points of the entrants `names`, placed by `anchor`; `None` if
    /// no thread could start (the points are then all fitted in line).
    fn start(names: Vec<String>, anchor: Anchor, every: usize) -> Option<Apart> {
        let (jobs, inbox) = mpsc::sync_channel::<PointJob>(1);
        let (outbox, fitted) = mpsc::channel();
        let fit_points = move || {
            for (games, sets, played) in inbox {
                let fit = ratings::batch::fit(&names, &sets, anchor);
                if outbox
                    .send(HistoryPoint::new(games, &fit, &played))
                    .is_err()
                {
                    return;
                }
            }
        };
        std::thread::Builder::new()
            .name("history".into())
            .spawn(fit_points)
            .ok()?;
        Some(Apart {
            jobs,
            fitted: Mutex::new((fitted, Vec::new())),
            sent: 0,
            every,
        })
    }

    /// Sends `job` to the thread; gives back its entrants' games if the thread is gone.
    fn send(&mut self, job: PointJob) -> Option<Vec<u64>> {
        match self.jobs.send(job) {
            Ok(()) => {
                self.sent += 1;
                None
            }
            Err(mpsc::SendError((_, _, played))) => Some(played),
        }
    }

    /// The points sent since the history last took them, once all are fitted.
    fn fitted(&self) -> Vec<HistoryPoint> {
        let mut fitted = self.fitted.lock().unwrap_or_else(|p| p.into_inner());
        let (inbox, received) = &mut *fitted;
        while received.len() < self.sent {
            match inbox.recv() {
                Ok(point) => received.push(point),
                // The thread is gone (it cannot be but by a panic): its points with it.
                Err(_) => break,
            }
        }
        received.clone()
    }

    /// The same, taken: the next call gives only the points sent after.
    fn take(&mut self) -> Vec<HistoryPoint> {
        let points = self.fitted();
        let mut fitted = self.fitted.lock().unwrap_or_else(|p| p.into_inner());
        fitted.1.clear();
        self.sent = 0;
        points
    }
}

/// Standings being folded.
#[derive(Debug)]
pub struct Tally {
    names: Vec<String>,
    set_size: usize,
    anchor: Anchor,
    totals: Vec<Totals>,
    /// Only the pairs that met: a round-robin of many entrants meets few pairs per game.
    cross: HashMap<(usize, usize), Cell>,
    teams: BTreeMap<Vec<usize>, TeamTotals>,
    pending: HashMap<(Vec<usize>, u64, u64), PendingSet>,
    sets: Sets,
    complete_sets: u64,
    pentanomial: BTreeMap<(usize, usize), [u64; 5]>,
    games: u64,
    /// Games played with `--reuse-processes`.
    reused_processes: u64,
    sprt: Option<SprtTest>,
    history: Vec<HistoryPoint>,
    /// Games between two points of the history.
    history_step: u64,
    /// The thread that fits every other point of the history, if there is one.
    apart: Option<Apart>,
    /// A point due at the games counted now, fitted when the next game comes: the standings
    /// read at this count put their own fit in its place, so a point at the last game is never
    /// fitted.
    due: bool,
}

impl Tally {
    /// Empty standings for `names` (entrants by index) and sets of `set_size` games.
    pub fn new(names: Vec<String>, set_size: usize, sprt: Option<SprtSpec>) -> Tally {
        let n = names.len();
        Tally {
            anchor: Anchor::Mean(0.0),
            names,
            set_size,
            totals: vec![Totals::default(); n],
            cross: HashMap::new(),
            teams: BTreeMap::new(),
            pending: HashMap::new(),
            sets: Sets::default(),
            complete_sets: 0,
            pentanomial: BTreeMap::new(),
            games: 0,
            reused_processes: 0,
            sprt: sprt.map(SprtTest::new),
            history: Vec::new(),
            history_step: first_history_step(set_size, n),
            apart: None,
            due: false,
        }
    }

    /// Places the ratings by `anchor` (default: their mean is 0).
    pub fn anchored(mut self, anchor: Anchor) -> Tally {
        self.anchor = anchor;
        self
    }

    /// Fits every other point of the history on a thread of its own, beside the reading of the
    /// results and the standings' own fit: for `standings` of a folder, whose second core is
    /// free. The points are the same (each a cold fit of the sets at its count). Comes after
    /// [`Tally::anchored`].
    pub fn history_apart(mut self) -> Tally {
        self.apart = Apart::start(self.names.clone(), self.anchor, 2);
        self
    }

    /// Fits every point of the history on a thread of its own: for a running tournament, whose
    /// one collecting thread records every worker's games, so that a point's fit (of every set
    /// so far) never holds up the recording. The CPU is the same, spent beside it; the points
    /// are the same. Comes after [`Tally::anchored`].
    pub fn history_off_thread(mut self) -> Tally {
        self.apart = Apart::start(self.names.clone(), self.anchor, 1);
        self
    }

    /// The sequential test with its decision taken before, stored in the folder: it stands,
    /// whatever order the lines are read in.
    pub fn sprt_decided(mut self, decision: Option<Decision>) -> Tally {
        self.sprt = self.sprt.map(|test| test.decided(decision));
        self
    }

    /// The test asked for, if any.
    pub fn sprt_spec(&self) -> Option<&SprtSpec> {
        self.sprt.as_ref().map(SprtTest::spec)
    }

    /// The sequential test's decision, once taken (cheap: for the dispatcher after each game).
    pub fn sprt_decision(&self) -> Option<Decision> {
        self.sprt.as_ref().and_then(SprtTest::decision)
    }

    /// The sequential test's complete pairs so far and its LLR over them, once there are more
    /// than `since` pairs (for the report page's LLR over games: computed only then); `None`
    /// without a test or before.
    pub fn sprt_llr(&self, since: u64) -> Option<(u64, f64)> {
        let test = self.sprt.as_ref()?;
        let counts = self
            .pentanomial
            .values()
            .next()
            .copied()
            .unwrap_or_default();
        let pairs = counts.iter().sum();
        (pairs > since).then(|| (pairs, ratings::sprt::llr(test.spec(), counts)))
    }

    /// Games counted so far.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Complete duplicate sets counted so far.
    pub fn complete_sets(&self) -> u64 {
        self.complete_sets
    }

    /// The batch fit of every complete set so far (the standings' ratings, alone).
    pub fn ratings(&self) -> BatchFit {
        ratings::batch::fit(&self.names, &self.sets, self.anchor)
    }

    /// The entrant with the best score so far, and its score in percent (cheap: for progress).
    pub fn leader(&self) -> Option<(&str, f64)> {
        self.totals
            .iter()
            .enumerate()
            .filter(|(_, t)| t.games > 0)
            .map(|(e, t)| (self.names[e].as_str(), percent(t.score, t.games)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Folds in one game.
    pub fn add(&mut self, line: &GameLine) {
        self.fit_due_point();
        self.games += 1;
        self.reused_processes += u64::from(line.reused_processes);
        let game = line.rated();
        let ranks: Vec<u32> = game.iter().map(|(_, rank)| *rank).collect();
        let side_entrants: Vec<Side> = game.iter().map(|(side, _)| side.clone()).collect();
        for (side, entrants) in side_entrants.iter().enumerate() {
            let (won, level, score) = outcome(&ranks, side);
            let others: Vec<i64> = (0..game.len())
                .filter(|&o| o != side)
                .map(|o| i64::from(line.scores[o]))
                .collect();
            let against = others.iter().sum::<i64>() * PARTS as i64 / others.len().max(1) as i64;
            for &e in entrants {
                let t = &mut self.totals[e];
                t.games += 1;
                t.wins += u64::from(won);
                t.draws += u64::from(level);
                t.score += score;
                t.rank_sum += u64::from(ranks[side]);
                t.points_for += i64::from(line.scores[side]);
                t.points_against += against;
            }
            if line.teams {
                let team = self.teams.entry(entrants.clone()).or_default();
                team.games += 1;
                team.wins += u64::from(won);
                team.draws += u64::from(level);
                team.score += score;
                team.points += i64::from(line.scores[side]);
            }
            for (other, their) in side_entrants.iter().enumerate() {
                if other == side {
                    continue;
                }
                let points = match ranks[side].cmp(&ranks[other]) {
                    std::cmp::Ordering::Less => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Greater => 0.0,
                };
                for &e in entrants {
                    for &o in their {
                        let cell = self.cross.entry((e, o)).or_insert(Cell {
                            score: 0.0,
                            games: 0,
                        });
                        cell.score += points;
                        cell.games += 1;
                    }
                }
            }
        }
        for seat in &line.seats {
            let times = &mut self.totals[seat.entrant].times;
            seat.time_buckets
                .iter()
                .for_each(|&(b, n)| times.add_bucket(b, n));
            times.add_total(seat.time_us);
            probes::add(&mut self.totals[seat.entrant].probed, &seat.probed);
        }
        for fault in &line.faults {
            let totals = &mut self.totals[fault.entrant];
            *totals.faults.entry(fault.kind).or_default() += 1;
            totals.last_fault = Some(fault_words(&line.id, fault));
        }
        self.gather(line.set_key(), line.arrangement, game);
        self.checkpoint();
    }

    /// Adds a point to the history if the game count calls for one: every `history_step`
    /// games, the step doubling (and every other point going) when the points would exceed
    /// [`HISTORY_POINTS`]. Decided by the count alone, so a live run and a later `standings`
    /// of its results keep the same points.
    fn checkpoint(&mut self) {
        if self.names.len() > HISTORY_ENTRANTS || !self.games.is_multiple_of(self.history_step) {
            return;
        }
        if self.history.len() + self.apart.as_ref().map_or(0, |a| a.sent) == HISTORY_POINTS {
            if let Some(apart) = self.apart.as_mut() {
                self.history.extend(apart.take());
                self.history.sort_by_key(|p| p.games);
            }
            self.history_step *= 2;
            let step = self.history_step;
            self.history.retain(|p| p.games.is_multiple_of(step));
            if !self.games.is_multiple_of(step) {
                return;
            }
        }
        self.due = true;
    }

    /// Fits the point due, if one is, before the next game changes the sets.
    fn fit_due_point(&mut self) {
        if !std::mem::take(&mut self.due) {
            return;
        }
        let played = self.played();
        let fitted = self.history.len() + self.apart.as_ref().map_or(0, |a| a.sent);
        // Each point a cold fit (none started from the one before): the points are
        // independent, so every other one can be fitted apart.
        let played = match self
            .apart
            .as_mut()
            .filter(|a| fitted.is_multiple_of(a.every))
        {
            Some(apart) => apart.send((self.games, self.sets.clone(), played)),
            None => Some(played),
        };
        if let Some(played) = played {
            let fit = self.ratings();
            self.history
                .push(HistoryPoint::new(self.games, &fit, &played));
        }
    }

    /// Each entrant's games so far.
    fn played(&self) -> Vec<u64> {
        self.totals.iter().map(|t| t.games).collect()
    }

    /// The history's points, those fitted apart included, by game count.
    fn gathered(&self) -> Vec<HistoryPoint> {
        let mut history = self.history.clone();
        if let Some(apart) = &self.apart {
            history.extend(apart.fitted());
            history.sort_by_key(|p| p.games);
        }
        history
    }

    /// The history, ending with `now` (the standings' own fit) in place of a point at the same
    /// count (the same fit).
    fn history(&self, now: &BatchFit) -> Vec<HistoryPoint> {
        let mut history = self.gathered();
        if history.last().is_some_and(|p| p.games == self.games) {
            history.pop();
        }
        if self.games > 0 && self.names.len() <= HISTORY_ENTRANTS {
            history.push(HistoryPoint::new(self.games, now, &self.played()));
        }
        history
    }

    fn gather(&mut self, key: (Vec<usize>, u64, u64), arrangement: usize, game: RatedGame) {
        let set = self.pending.entry(key.clone()).or_default();
        set.games.push((arrangement, game));
        if set.games.len() < self.set_size {
            return;
        }
        let mut set = self.pending.remove(&key).expect("the set was just found");
        // Rated in arrangement order, whatever order the games finished in.
        set.games.sort_by_key(|(a, _)| *a);
        let games: Vec<RatedGame> = set.games.into_iter().map(|(_, g)| g).collect();
        self.complete_sets += 1;
        if let [(a, _), (b, _)] = &games[0][..]
            && let ([a], [b]) = (&a[..], &b[..])
            && games.len() == 2
        {
            let (first, second) = ((*a).min(*b), (*a).max(*b));
            let pair: u64 = games
                .iter()
                .map(|g| {
                    let side = g
                        .iter()
                        .position(|(e, _)| e[0] == first)
                        .expect("both sides");
                    let ranks: Vec<u32> = g.iter().map(|(_, r)| *r).collect();
                    outcome(&ranks, side).2
                })
                .sum();
            let counts = self.pentanomial.entry((first, second)).or_insert([0; 5]);
            counts[(pair * 2 / PARTS) as usize] += 1;
            if let Some(test) = &mut self.sprt {
                test.observe(*counts);
            }
        }
        let (_, deal, deal_seed) = &key;
        self.sets.add(sets::deal_key(*deal, *deal_seed), &games);
    }

    /// Whether everyone met everyone equally: every two entrants that played (every two teams,
    /// with partners always together) opposed in the same number of games. Partners that
    /// change, or a schedule cut short, are not.
    fn balanced(&self) -> bool {
        let playing: Vec<usize> = (0..self.totals.len())
            .filter(|&e| self.totals[e].games > 0)
            .collect();
        // Each entrant's team, the entrant alone without partnerships.
        let mut team_of: Vec<Option<&Vec<usize>>> = vec![None; self.totals.len()];
        for members in self.teams.keys() {
            for &e in members {
                if team_of[e].is_some_and(|t| t != members) {
                    return false;
                }
                team_of[e] = Some(members);
            }
        }
        // Every ordered pair of opponents has a cell: counted first (in one pass, so that a
        // ladder of 100,000 entrants stops here at once).
        let size = |e: usize| team_of[e].map_or(1, Vec::len);
        let opponents: usize = playing.iter().map(|&e| playing.len() - size(e)).sum();
        if self.cross.len() != opponents || opponents == 0 {
            return false;
        }
        let games = self.cross.values().next().map(|c| c.games);
        self.cross.values().all(|c| Some(c.games) == games)
    }

    /// The crosstable, empty past [`CROSSTABLE_LIMIT`] entrants.
    fn crosstable(&self) -> Vec<Vec<Option<Cell>>> {
        let n = self.names.len();
        if n > CROSSTABLE_LIMIT {
            return Vec::new();
        }
        (0..n)
            .map(|e| (0..n).map(|o| self.cross.get(&(e, o)).copied()).collect())
            .collect()
    }

    /// The standings so far.
    pub fn standings(&self) -> Standings {
        let entrants: Vec<Row> = self
            .totals
            .iter()
            .enumerate()
            .map(|(e, t)| {
                let per = |x: f64| {
                    if t.games == 0 {
                        0.0
                    } else {
                        clean(x / t.games as f64)
                    }
                };
                let parts = PARTS as f64;
                Row {
                    entrant: e,
                    name: self.names[e].clone(),
                    games: t.games,
                    wins: t.wins,
                    draws: t.draws,
                    losses: t.games - t.wins - t.draws,
                    score_pct: percent(t.score, t.games),
                    mean_rank: per(t.rank_sum as f64),
                    points_for: per(t.points_for as f64),
                    points_against: per(t.points_against as f64 / parts),
                    faults: t.faults.clone(),
                    last_fault: t.last_fault.clone(),
                    moves: t.times.moves(),
                    mean_ms: clean(t.times.mean_ms()),
                    median_ms: clean(t.times.median_ms()),
                    p99_ms: clean(t.times.p99_ms()),
                    slowest_ms: clean(t.times.slowest_ms()),
                    probed: t.probed.clone(),
                }
            })
            .collect();
        let teams: Vec<TeamRow> = self
            .teams
            .iter()
            .map(|(members, t)| TeamRow {
                names: members.iter().map(|&e| self.names[e].clone()).collect(),
                games: t.games,
                wins: t.wins,
                draws: t.draws,
                losses: t.games - t.wins - t.draws,
                score_pct: percent(t.score, t.games),
                points: t.points,
            })
            .collect();
        let elo: Vec<Elo> = self
            .pentanomial
            .iter()
            .map(|(&(a, b), &counts)| ratings::elo(&self.names[a], &self.names[b], counts))
            .collect();
        let sprt = self.sprt.as_ref().map(|test| {
            let counts = self.pentanomial.values().next().copied();
            test.report(counts.unwrap_or_default())
        });
        let unfinished_games = self.pending.values().map(|s| s.games.len() as u64).sum();
        let mut fit = ratings::batch::fit(&self.names, &self.sets, self.anchor);
        fit.settled_by_games(|e| self.totals[e].games);
        let by = match self.balanced() {
            true => Criterion::Score,
            false => Criterion::Rating,
        };
        let order = order(by, &entrants, &fit);
        Standings {
            games: self.games,
            complete_sets: self.complete_sets,
            unfinished_sets: self.pending.len() as u64,
            unfinished_games,
            winner: match by {
                Criterion::Score => winner(&entrants, &teams),
                Criterion::Rating => winner_by_rating(&entrants, &fit),
            },
            order,
            crosstable: self.crosstable(),
            history: self.history(&fit),
            ratings: fit,
            entrants,
            teams,
            elo,
            sprt,
            reused_processes: self.reused_processes,
        }
    }
}

/// Side `side`'s outcome among `ranks`: (won alone, level at the top, score in [`PARTS`]).
fn outcome(ranks: &[u32], side: usize) -> (bool, bool, u64) {
    let mine = ranks[side];
    let behind = ranks.iter().filter(|&&r| r > mine).count() as u64;
    let equal = ranks.iter().filter(|&&r| r == mine).count() as u64 - 1;
    let score = (2 * behind + equal) * (PARTS / 2) / (ranks.len() as u64 - 1).max(1);
    (mine == 1 && equal == 0, mine == 1 && equal > 0, score)
}

/// Entrant indices best first by `by`: by score (ties by index), or by rating with the entrants
/// not rated after, by score.
fn order(by: Criterion, rows: &[Row], fit: &BatchFit) -> Vec<usize> {
    let mut by_score: Vec<usize> = (0..rows.len()).collect();
    by_score.sort_by(|&a, &b| {
        rows[b]
            .score_pct
            .total_cmp(&rows[a].score_pct)
            .then(a.cmp(&b))
    });
    match by {
        Criterion::Score => by_score,
        Criterion::Rating => {
            let mut order: Vec<usize> = fit.entrants.iter().map(|r| r.entrant).collect();
            let rated: std::collections::BTreeSet<usize> = order.iter().copied().collect();
            order.extend(by_score.into_iter().filter(|e| !rated.contains(e)));
            order
        }
    }
}

/// The best rated entrant, if every entrant that played is rated against the others and it is
/// ahead of the second at 95%.
fn winner_by_rating(rows: &[Row], fit: &BatchFit) -> Winner {
    let none = |why: NoWinner| Winner {
        names: Vec::new(),
        level: false,
        score_pct: 0.0,
        by: Criterion::Rating,
        elo: None,
        none: Some(why),
    };
    let played = rows.iter().filter(|r| r.games > 0).count();
    let Some(best) = fit.entrants.first() else {
        return none(match (played, fit.not_rated.is_empty()) {
            (0, _) => NoWinner::NoGames,
            // Complete sets, but no rating they fix (partners confounded, too many entrants).
            (_, false) => NoWinner::NotComparable,
            (_, true) => NoWinner::NotRated,
        });
    };
    if fit.entrants.len() < played {
        return none(NoWinner::NotComparable);
    }
    if fit.entrants.len() > 1 && best.separated_from_next != Some(true) {
        return none(NoWinner::NotSeparated);
    }
    Winner {
        names: vec![best.name.clone()],
        level: false,
        score_pct: rows[best.entrant].score_pct,
        by: Criterion::Rating,
        elo: Some(best.elo),
        none: None,
    }
}

/// The best team (with partnerships) or entrant by score, or none if several share it.
fn winner(rows: &[Row], teams: &[TeamRow]) -> Winner {
    let scored: Vec<(Vec<String>, f64)> = match teams.is_empty() {
        true => rows
            .iter()
            .filter(|r| r.games > 0)
            .map(|r| (vec![r.name.clone()], r.score_pct))
            .collect(),
        false => teams
            .iter()
            .map(|t| (t.names.clone(), t.score_pct))
            .collect(),
    };
    let best = scored
        .iter()
        .map(|(_, s)| *s)
        .fold(f64::NEG_INFINITY, f64::max);
    let top: Vec<&(Vec<String>, f64)> = scored.iter().filter(|(_, s)| *s == best).collect();
    match top[..] {
        [(names, score)] => Winner {
            names: names.clone(),
            level: false,
            score_pct: *score,
            by: Criterion::Score,
            elo: None,
            none: None,
        },
        _ => Winner {
            names: Vec::new(),
            level: !top.is_empty(),
            score_pct: if top.is_empty() { 0.0 } else { best },
            by: Criterion::Score,
            elo: None,
            none: Some(match top.is_empty() {
                true => NoWinner::NoGames,
                false => NoWinner::Level,
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::results::SeatLine;
    use allfives_engine::game::GameEnding;

    #[test]
    fn percentages_print_rounded_to_a_billionth() {
        // 2809 parts of 30 games: 78.02777777777777 unrounded (issue 41), equal in any order.
        assert_eq!(percent(2809, 30), 78.027777778);
        assert_eq!(percent(2809, 30).to_string(), "78.027777778");
    }

    /// Game `game` of a round robin of `entrants` at 2 players in duplicate pairs, the lower
    /// index winning unless `game` is a multiple of 5.
    fn line(game: u64, entrants: usize) -> GameLine {
        let set = game / 2;
        let a = (set as usize) % entrants;
        let b = (a + 1 + (set as usize / entrants) % (entrants - 1)) % entrants;
        let arrangement = (game % 2) as usize;
        let seated = if arrangement == 0 { [a, b] } else { [b, a] };
        let upset = game.is_multiple_of(5);
        let rank = |e: usize| if (e == a.min(b)) != upset { 1 } else { 2 };
        let seat = |s: usize| SeatLine {
            entrant: seated[s],
            name: format!("e{}", seated[s]),
            side: s,
            rank: rank(seated[s]),
            moves: 10,
            time_us: 7,
            time_buckets: Vec::new(),
            probed: Default::default(),
        };
        GameLine {
            id: game.to_string(),
            game,
            group: vec![a.min(b), a.max(b)],
            deal: set,
            deal_seed: 9,
            arrangement,
            seed: game,
            teams: false,
            seats: vec![seat(0), seat(1)],
            scores: vec![100, 50],
            hands: 3,
            ending: GameEnding::Target { side: 0 },
            faults: Vec::new(),
            log: None,
            log_offset: None,
            log_bytes: None,
            rerun: String::new(),
            definition: None,
            log_sha256: None,
            reused_processes: false,
        }
    }

    fn tally(entrants: usize, games: u64) -> Tally {
        let names = (0..entrants).map(|e| format!("e{e}")).collect();
        let mut tally = Tally::new(names, 2, None);
        (0..games).for_each(|g| tally.add(&line(g, entrants)));
        tally
    }

    #[test]
    fn the_history_keeps_at_most_64_points_on_multiples_of_its_step() {
        let standings = tally(4, 301).standings();
        let games: Vec<u64> = standings.history.iter().map(|p| p.games).collect();
        // Step 2 until 128 games, then 4 (points 4..=128), then 8 from 260 games on: 8, 16, ...
        // 296, and the standings' own point at 301.
        let mut expected: Vec<u64> = (1..=37).map(|k| 8 * k).collect();
        expected.push(301);
        assert_eq!(games, expected);
        assert!(standings.history.len() <= HISTORY_POINTS + 1);
        let last = standings.history.last().expect("a point");
        for r in &standings.ratings.entrants {
            // Every entrant played dozens of games by then.
            assert_eq!(last.elo[r.entrant], Some(r.elo));
            let half_width = standings.ratings.half_width(r.entrant).map(clean);
            assert_eq!(last.half_width[r.entrant], half_width);
        }
    }

    #[test]
    fn the_history_is_the_same_however_often_standings_are_read() {
        let whole = tally(4, 150).standings();
        let mut step_by_step = tally(4, 0);
        for g in 0..150 {
            step_by_step.add(&line(g, 4));
            // As --standings-every 1 does: reading changes nothing that follows.
            let _ = step_by_step.standings();
        }
        assert_eq!(whole.history, step_by_step.standings().history);
    }

    /// At 1,000 entrants a point every set made the dispatcher fit 300 times in 20,000 games,
    /// a second each, while the workers waited.
    #[test]
    fn the_history_steps_grow_with_the_cube_of_the_entrants_past_100() {
        assert_eq!(first_history_step(2, 2), 2);
        assert_eq!(first_history_step(8, 100), 8);
        assert_eq!(first_history_step(8, 150), 8 * 4);
        assert_eq!(first_history_step(2, 1000), 2 * 1000);
    }

    #[test]
    fn the_history_fitted_apart_is_the_history_fitted_in_line() {
        let names: Vec<String> = (0..5).map(|e| format!("e{e}")).collect();
        let mut apart = Tally::new(names, 2, None).history_apart();
        assert!(apart.apart.is_some(), "a thread to fit on");
        // Past 64 points: the step doubles with points still being fitted apart.
        (0..301).for_each(|g| apart.add(&line(g, 5)));
        let (apart, in_line) = (apart.standings(), tally(5, 301).standings());
        assert_eq!(apart.history, in_line.history);
        assert!(apart.history.len() > 30);
        let names: Vec<String> = (0..5).map(|e| format!("e{e}")).collect();
        let mut off = Tally::new(names, 2, None).history_off_thread();
        (0..301).for_each(|g| off.add(&line(g, 5)));
        assert_eq!(off.standings().history, in_line.history);
    }

    #[test]
    fn the_history_fits_each_point_as_a_cold_fit_would() {
        let standings = tally(5, 120).standings();
        for point in &standings.history {
            let cold = tally(5, point.games).standings();
            for (e, elo) in point.elo.iter().enumerate() {
                // Charted from FEW_GAMES games on.
                let expected = cold.ratings.rating(e).map(|r| r.elo);
                let expected = expected.filter(|_| cold.entrants[e].games >= FEW_GAMES);
                // Each point a cold fit: the same to the last bit.
                assert_eq!(*elo, expected, "entrant {e} at {}", point.games);
            }
        }
    }

    #[test]
    fn the_score_decides_only_when_everyone_met_everyone_equally() {
        // 12 sets of 4 entrants: every pair twice. The lower index wins nearly always.
        let whole = tally(4, 24).standings();
        assert_eq!(whole.winner.by, Criterion::Score);
        assert_eq!(whole.winner.names, vec!["e0".to_string()]);
        assert_eq!(whole.order, vec![0, 1, 2, 3]);
        // Cut short: some pairs met once, others twice, so the rating decides.
        let cut = tally(4, 20).standings();
        assert_eq!(cut.winner.by, Criterion::Rating);
        let rated: Vec<usize> = cut.ratings.entrants.iter().map(|r| r.entrant).collect();
        assert_eq!(cut.order, rated);
        // Ten games each at most: no one is ahead at 95%.
        assert_eq!(
            cut.winner.none,
            Some(NoWinner::NotSeparated),
            "{:?}",
            cut.winner
        );
    }

    #[test]
    fn no_history_past_its_entrant_limit() {
        let standings = tally(HISTORY_ENTRANTS + 1, 40).standings();
        assert!(standings.history.is_empty());
        assert!(!standings.ratings.entrants.is_empty());
    }
}
