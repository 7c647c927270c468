//! A match: several games between the same bots, seats rotated, every game logged, totals kept.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use crate::bot::clock::Clocks;
use crate::bot::fault::FaultKind;
use crate::bot::player::{BotSpec, BotStats, Player, Stop, tell_apart};
use crate::bot::process::StderrSink;
use crate::gamelog::GameLog;
use crate::referee::game::{FaultPolicy, GRACE, GameRecord, GameSetup, play_game};
use crate::sandbox::{self, Policy, Protections, Report, files};
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

/// Everything a match needs.
#[derive(Debug, Clone)]
pub struct MatchConfig {
    /// The bots, in the order given.
    pub bots: Vec<BotSpec>,
    /// The rules.
    pub rules: Rules,
    /// How many games.
    pub games: u32,
    /// The match seed.
    pub seed: u64,
    /// Rotate the seats from game to game (each deal is played once per rotation).
    pub rotate: bool,
    /// The time controls.
    pub clocks: Clocks,
    /// The fault policy.
    pub on_fault: FaultPolicy,
    /// A fresh process for every game.
    pub fresh: bool,
    /// Deals for the first hands of every game.
    pub deals: Vec<Deal>,
    /// Where logs go.
    pub logs: LogTarget,
    /// Echo bots' stderr to the terminal.
    pub echo_stderr: bool,
    /// The longest line a bot may write.
    pub max_line: usize,
    /// The most stderr kept in each bot's file.
    pub stderr_cap: u64,
    /// How bot processes are contained.
    pub sandbox: Policy,
    /// The protections in force, found by [`protections`] (recorded in each log's header;
    /// `None` without bot processes).
    pub protections: Option<Protections>,
}

/// A bot's totals over a match.
#[derive(Debug, Clone, Serialize)]
pub struct BotTotals {
    /// The bot's name.
    pub bot: String,
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

/// The seed of the deals of game `index` (from 0): one seed per round of rotations, so that
/// every seating of the bots plays the same deals.
pub fn game_seed(seed: u64, index: u32, players: usize, rotate: bool) -> u64 {
    let round = if rotate {
        index / players as u32
    } else {
        index
    };
    seed.wrapping_add(u64::from(round))
}

/// Plays a match; `on_start` hears of it once every bot has given its name, `on_game` of each
/// game as it ends.
pub async fn run_match(
    config: &MatchConfig,
    on_start: impl FnOnce(&MatchConfig),
    mut on_game: impl FnMut(&MatchConfig, &GameRecord),
) -> io::Result<MatchReport> {
    let mut players = start_players(config)?;
    let config = &introduce(config, &mut players).await;
    on_start(config);
    let mut records = Vec::new();
    let n = config.bots.len();
    for index in 0..config.games {
        let turn = if config.rotate { index as usize % n } else { 0 };
        let setup = GameSetup {
            number: index + 1,
            seed: game_seed(config.seed, index, n, config.rotate),
            rules: config.rules,
            seating: (0..n).map(|seat| (seat + turn) % n).collect(),
            clocks: config.clocks,
            on_fault: config.on_fault,
            protections: config.protections.clone(),
            deals: config.deals.clone(),
        };
        let mut log = match &config.logs {
            LogTarget::File(path) => GameLog::create(path),
            LogTarget::Dir(dir) => GameLog::create(&dir.join(format!("game-{}.jsonl", index + 1))),
        }?;
        let record = play_game(&setup, &mut players, &mut log).await?;
        on_game(config, &record);
        records.push(record);
        if config.fresh {
            stop_all(&mut players).await;
        }
    }
    stop_all(&mut players).await;
    let totals = totals(config, &players, &records);
    Ok(MatchReport {
        seed: config.seed,
        rules: config.rules,
        bots: config.bots.clone(),
        games: records,
        totals,
    })
}

/// The protections the match's bots will be under: what a throwaway contained process gets
/// on this machine, and which bots are held back from their own folders (they hold the logs).
/// `None` when no bot runs as a process (builtins need none).
pub fn protections(config: &MatchConfig) -> Option<Protections> {
    if !config.bots.iter().any(BotSpec::is_process) {
        return None;
    }
    let report = match config.sandbox.enabled {
        true => sandbox::probe(&config.sandbox).unwrap_or_default(),
        false => Report::default(),
    };
    let notes = config
        .bots
        .iter()
        .filter(|_| config.sandbox.enabled)
        .filter_map(|spec| Some((spec, spec.argv()?)))
        .flat_map(|(spec, argv)| {
            sandbox::grants(argv, &config.sandbox.hidden)
                .notes
                .into_iter()
                .map(move |note| format!("{}: {note}", spec.name))
        })
        .collect();
    Some(Protections::from_report(&config.sandbox, &report, notes))
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
    files::create_private_dir(&stderr_dir)?;
    let policy = Arc::new(config.sandbox.clone());
    let mut players = Vec::new();
    for (i, spec) in config.bots.iter().enumerate() {
        let file = spec.is_process().then(|| {
            stderr_dir.join(format!(
                "{}{}.stderr",
                stem.as_deref().unwrap_or(""),
                spec.name
            ))
        });
        if let Some(file) = &file {
            // Each match starts its stderr files anew; restarts within it append.
            files::create_new(file)?;
        }
        let sink = StderrSink {
            file,
            cap: config.stderr_cap,
            echo_prefix: config.echo_stderr.then(|| format!("[{}] ", spec.name)),
        };
        let seed = config.seed ^ (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i as u64 + 1));
        players.push(Player::new(
            spec.clone(),
            seed,
            sink,
            config.max_line,
            Arc::clone(&policy),
        ));
    }
    Ok(players)
}

/// Starts every bot to hear its `hello`, and names each after it unless the command line named
/// it; names stay unique.
async fn introduce(config: &MatchConfig, players: &mut [Player]) -> MatchConfig {
    for player in players.iter_mut() {
        player.introduce(&config.clocks).await;
    }
    let names = tell_apart(players.iter().map(|p| p.display_name().to_string()));
    let mut config = config.clone();
    for ((player, spec), name) in players.iter_mut().zip(&mut config.bots).zip(names) {
        *spec = spec.clone().renamed(name);
        player.spec = spec.clone();
    }
    config
}

async fn stop_all(players: &mut [Player]) {
    for player in players {
        player.stop(Stop::Politely(GRACE)).await;
    }
}

fn totals(config: &MatchConfig, players: &[Player], records: &[GameRecord]) -> Vec<BotTotals> {
    players
        .iter()
        .enumerate()
        .map(|(bot, player)| {
            let mut t = BotTotals {
                bot: player.spec.name.clone(),
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
                let partners = if config.rules.teams { 2 } else { 1 };
                t.games += 1;
                rank_sum += u64::from(rank);
                match (rank, firsts > partners) {
                    (1, false) => t.wins += 1,
                    (1, true) => t.draws += 1,
                    _ => t.losses += 1,
                }
                let side = config.rules.side_of(seat);
                t.points += i64::from(record.result.scores[side]);
                let lost_by_fault = record
                    .forfeit
                    .as_ref()
                    .is_some_and(|f| config.rules.side_of(f.seat) == side);
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
