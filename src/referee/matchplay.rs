//! A match: games between the same bots, seated as planned, every game logged, totals kept.
//!
//! The match's state lives outside the future that plays it ([`Match::play`]), so that a match
//! cut short (Ctrl-C, a closed stdout) still reports every game it finished.

use std::fs;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::bot::clock::Clocks;
use crate::bot::fault::FaultKind;
use crate::bot::player::{BotSpec, BotStats, Player, Stop};
use crate::bot::process::StderrSink;
use crate::gamelog::GameLog;
use crate::referee::game::{FaultPolicy, GRACE, GameRecord, GameSetup, play_game};
use allfives_engine::deal::Deal;
use allfives_engine::rules::Rules;

/// Where game logs go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogTarget {
    /// One file (a one-game match).
    File(PathBuf),
    /// A directory with `game-N.jsonl` for each game.
    Dir(PathBuf),
}

/// One game of the plan: its number, the seed of its hands, and who sits where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedGame {
    /// Its number in the match, from 1.
    pub number: u32,
    /// The seed its hands are dealt from.
    pub seed: u64,
    /// For each seat, the index of its bot.
    pub seating: Vec<usize>,
}

/// How every game of a match (or of a tournament) is played.
#[derive(Debug, Clone)]
pub struct GameSettings {
    /// The rules.
    pub rules: Rules,
    /// The time controls.
    pub clocks: Clocks,
    /// The fault policy.
    pub on_fault: FaultPolicy,
    /// Deals for the first hands of every game.
    pub deals: Vec<Deal>,
    /// The longest line a bot may write.
    pub max_line: usize,
    /// The most stderr kept in each bot's file.
    pub stderr_cap: u64,
}

/// Everything a match needs.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// The bots, in the order given.
    pub bots: Vec<BotSpec>,
    /// How the games are played.
    pub settings: GameSettings,
    /// The match seed.
    pub seed: u64,
    /// The games, in order.
    pub plan: Vec<PlannedGame>,
    /// A fresh process for every game.
    pub fresh: bool,
    /// Where logs go.
    pub logs: LogTarget,
    /// Echo bots' stderr to the terminal.
    pub echo_stderr: bool,
}

/// A bot's totals over a match.
#[derive(Debug, Clone, Serialize)]
pub struct BotTotals {
    /// The bot's name.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Games ranked first alone (with a partner, as a team).
    pub wins: u32,
    /// Games ranked first level with another side.
    pub draws: u32,
    /// The other games.
    pub losses: u32,
    /// Games lost by forfeit.
    pub forfeits: u32,
    /// The sum of its side's final scores.
    pub points: i64,
    /// Its mean rank.
    pub mean_rank: f64,
    /// Answer times and faults.
    #[serde(flatten)]
    pub stats: BotStats,
}

/// A whole match's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct MatchReport {
    /// Whether every planned game was played (false when the match was cut short).
    pub complete: bool,
    /// The match seed.
    pub seed: u64,
    /// The rules.
    pub rules: Rules,
    /// The bots, in the order given.
    pub bots: Vec<BotSpec>,
    /// Every game.
    pub games: Vec<GameRecord>,
    /// Each bot's totals, in the order given.
    pub totals: Vec<BotTotals>,
}

/// A match being played: its players and the games finished so far.
pub struct Match {
    /// What was asked for.
    pub config: MatchConfig,
    players: Vec<Player>,
    records: Vec<GameRecord>,
}

impl Match {
    /// Prepares the players (no process starts before the first game).
    pub fn new(config: MatchConfig) -> io::Result<Match> {
        let players = start_players(&config)?;
        Ok(Match {
            config,
            players,
            records: Vec::new(),
        })
    }

    /// The games finished so far.
    pub fn records(&self) -> &[GameRecord] {
        &self.records
    }

    /// Plays the games not played yet; `on_game` hears of each game as it ends and may stop
    /// the match. Every bot is stopped at the end.
    pub async fn play(
        &mut self,
        mut on_game: impl FnMut(&MatchConfig, &GameRecord) -> ControlFlow<()>,
    ) -> io::Result<()> {
        let config = &self.config;
        for planned in config.plan.iter().skip(self.records.len()) {
            let mut log = match &config.logs {
                LogTarget::File(path) => GameLog::create(path),
                LogTarget::Dir(dir) => {
                    GameLog::create(&dir.join(format!("game-{}.jsonl", planned.number)))
                }
            }?;
            let record =
                play_planned(&config.settings, planned, &mut self.players, &mut log).await?;
            let flow = on_game(config, &record);
            self.records.push(record);
            if config.fresh {
                stop_all(&mut self.players).await;
            }
            if flow.is_break() {
                break;
            }
        }
        stop_all(&mut self.players).await;
        Ok(())
    }

    /// The outcome of the games finished so far.
    pub fn report(&self) -> MatchReport {
        MatchReport {
            complete: self.records.len() == self.config.plan.len(),
            seed: self.config.seed,
            rules: self.config.settings.rules,
            bots: self.config.bots.clone(),
            games: self.records.clone(),
            totals: totals(&self.config, &self.players, &self.records),
        }
    }
}

/// Plays a whole match and reports it, for callers that never cut it short.
pub async fn run_match(
    config: &MatchConfig,
    mut on_game: impl FnMut(&MatchConfig, &GameRecord),
) -> io::Result<MatchReport> {
    let mut played = Match::new(config.clone())?;
    played
        .play(|config, record| {
            on_game(config, record);
            ControlFlow::Continue(())
        })
        .await?;
    Ok(played.report())
}

/// Plays one planned game with `players`: builtins are seeded from the game's seed and seat, so
/// the game plays the same when played alone.
pub async fn play_planned(
    settings: &GameSettings,
    planned: &PlannedGame,
    players: &mut [Player],
    log: &mut GameLog,
) -> io::Result<GameRecord> {
    for (seat, &p) in planned.seating.iter().enumerate() {
        let seed = planned.seed ^ 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(seat as u64 + 1);
        players[p].reseed(seed);
    }
    let setup = GameSetup {
        number: planned.number,
        seed: planned.seed,
        rules: settings.rules,
        seating: planned.seating.clone(),
        clocks: settings.clocks,
        on_fault: settings.on_fault,
        deals: settings.deals.clone(),
    };
    play_game(&setup, players, log).await
}

fn start_players(config: &MatchConfig) -> io::Result<Vec<Player>> {
    let stderr_dir = match &config.logs {
        LogTarget::File(path) => path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        LogTarget::Dir(dir) => dir.clone(),
    };
    let stem = match &config.logs {
        LogTarget::File(path) => path
            .file_stem()
            .map(|s| format!("{}.", s.to_string_lossy())),
        LogTarget::Dir(_) => None,
    };
    fs::create_dir_all(&stderr_dir)?;
    let mut players = Vec::new();
    for spec in &config.bots {
        let file = spec.is_process().then(|| {
            stderr_dir.join(format!(
                "{}{}.stderr",
                stem.as_deref().unwrap_or(""),
                spec.name
            ))
        });
        if let Some(file) = &file {
            // Each match starts its stderr files empty; restarts within it append.
            fs::write(file, b"")?;
        }
        players.push(player(spec, file, config.echo_stderr, &config.settings));
    }
    Ok(players)
}

/// A player for `spec`, its stderr kept in `stderr` (and echoed if asked).
pub fn player(
    spec: &BotSpec,
    stderr: Option<PathBuf>,
    echo: bool,
    settings: &GameSettings,
) -> Player {
    let sink = StderrSink {
        file: stderr,
        cap: settings.stderr_cap,
        echo_prefix: echo.then(|| format!("[{}] ", spec.name)),
    };
    Player::new(spec.clone(), 0, sink, settings.max_line)
}

/// Stops every player's process politely.
pub async fn stop_all(players: &mut [Player]) {
    for player in players {
        player.stop(Stop::Politely(GRACE)).await;
    }
}

fn totals(config: &MatchConfig, players: &[Player], records: &[GameRecord]) -> Vec<BotTotals> {
    let rules = &config.settings.rules;
    players
        .iter()
        .enumerate()
        .map(|(bot, player)| {
            let mut t = BotTotals {
                name: player.spec.name.clone(),
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                forfeits: 0,
                points: 0,
                mean_rank: 0.0,
                stats: player.stats.clone(),
            };
            let mut rank_sum = 0u64;
            for record in records {
                let Some(seat) = record.seating.iter().position(|&p| p == bot) else {
                    continue;
                };
                let rank = record.result.ranks[seat];
                let firsts = record.result.ranks.iter().filter(|&&r| r == 1).count();
                let partners = if rules.teams { 2 } else { 1 };
                t.games += 1;
                rank_sum += u64::from(rank);
                match (rank, firsts > partners) {
                    (1, false) => t.wins += 1,
                    (1, true) => t.draws += 1,
                    _ => t.losses += 1,
                }
                let side = rules.side_of(seat);
                t.points += i64::from(record.result.scores[side]);
                let lost_by_fault = record
                    .forfeit
                    .as_ref()
                    .is_some_and(|f| rules.side_of(f.seat) == side);
                t.forfeits += u32::from(lost_by_fault);
            }
            t.mean_rank = rank_sum as f64 / f64::from(t.games.max(1));
            t
        })
        .collect()
}

/// The faults of a bot over the match, as "timeout 2, illegal 1".
pub fn fault_summary(stats: &BotStats) -> String {
    if stats.faults.is_empty() {
        return "none".to_string();
    }
    stats
        .faults
        .iter()
        .map(|(kind, n): (&FaultKind, &u32)| format!("{kind} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
