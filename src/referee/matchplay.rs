//! A match: games between the same bots, seated as planned, every game logged, totals kept.
//!
//! The match's state lives outside the future that plays it ([`Match::play`]), so that a match
//! cut short (Ctrl-C, a closed stdout) still reports every game it finished.

use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bot::builtin::builtin_seed;
use crate::bot::clock::Clocks;
use crate::bot::lifetime::Processes;
use crate::bot::player::{BotSpec, BotStats, Player, tell_apart};
use crate::bot::process::StderrSink;
use crate::bot::timing::MoveTimes;
use crate::gamelog::GameLog;
use crate::referee::game::{FaultPolicy, GRACE, GameRecord, GameSetup, play_game};
use crate::sandbox::{self, Policy, Protections, Report, files};
use crate::text;
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
    /// Its deal's index (a round of seat arrangements).
    pub deal: u64,
    /// Its seat arrangement's index.
    pub arrangement: usize,
    /// The seed its hands are dealt from.
    pub seed: u64,
    /// For each seat, the index of its bot.
    pub seating: Vec<usize>,
}

/// Deals played by a group before the next group's turn: games of the same entrants follow one
/// another, so that a worker can keep their processes, while all groups advance together.
/// Within a block each arrangement's games come together (arrangement 0 of every deal, then
/// arrangement 1, ...): a process, which must never play a deal twice, then plays a whole
/// arrangement of the block before it is restarted (the same for a tournament's groups).
pub const BLOCK: u64 = 8;

/// The order a match plays its games `numbers`, numbered deal after deal with `per_deal` games
/// (arrangements) each: by blocks of [`BLOCK`] deals, each arrangement of the block's deals in
/// turn. Game numbers keep their deal and arrangement; only the order differs.
pub fn match_order(
    numbers: std::ops::RangeInclusive<u32>,
    per_deal: u32,
) -> impl Iterator<Item = u32> + Send + 'static {
    let (first, last) = (u64::from(*numbers.start()), u64::from(*numbers.end()));
    let per_deal = u64::from(per_deal.max(1));
    let deal_of = |k: u64| (k.max(1) - 1) / per_deal;
    let blocks = match numbers.is_empty() {
        true => 0..0,
        false => deal_of(first) / BLOCK..deal_of(last) / BLOCK + 1,
    };
    blocks.flat_map(move |block| {
        (0..per_deal).flat_map(move |a| {
            (block * BLOCK..(block + 1) * BLOCK)
                .map(move |deal| deal * per_deal + a + 1)
                .filter(move |k| (first..=last).contains(k))
                .map(|k| u32::try_from(k).expect("within the u32 numbers asked for"))
        })
    })
}

/// The games of a match, each made when its turn comes: a long match holds no list of them.
#[derive(Clone)]
pub struct Plan {
    numbers: std::ops::RangeInclusive<u32>,
    per_deal: u32,
    make: Arc<dyn Fn(u32) -> PlannedGame + Send + Sync>,
}

impl Plan {
    /// Games `numbers`, numbered deal after deal with `per_deal` games each, game `k` made by
    /// `make(k)`.
    pub fn new(
        numbers: std::ops::RangeInclusive<u32>,
        per_deal: u32,
        make: impl Fn(u32) -> PlannedGame + Send + Sync + 'static,
    ) -> Plan {
        Plan {
            numbers,
            per_deal,
            make: Arc::new(make),
        }
    }

    /// How many games.
    pub fn len(&self) -> usize {
        self.numbers.clone().count()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.numbers.is_empty()
    }

    /// The games in playing order ([`match_order`]), from the `skip`-th.
    pub fn games(&self, skip: usize) -> impl Iterator<Item = PlannedGame> + '_ {
        match_order(self.numbers.clone(), self.per_deal)
            .skip(skip)
            .map(|k| (self.make)(k))
    }
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plan({:?})", self.numbers)
    }
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
    pub deals: Arc<[Deal]>,
    /// The longest line a bot may write.
    pub max_line: usize,
    /// The most stderr kept in each bot's file.
    pub stderr_cap: u64,
    /// How bot processes are contained.
    pub sandbox: Policy,
    /// The protections in force, found by [`protections`] (recorded in each log's header;
    /// `None` without bot processes).
    pub protections: Option<Protections>,
    /// How long a bot's process lives.
    pub processes: Processes,
    /// The games are dealt from a public seed (`--public-seed`): recorded in each log's header.
    pub public_seed: bool,
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
    pub plan: Plan,
    /// Where logs go.
    pub logs: LogTarget,
    /// Echo bots' stderr to the terminal.
    pub echo_stderr: bool,
}

/// A match being played: its players and how many games are finished.
pub struct Match {
    /// What was asked for.
    pub config: MatchConfig,
    players: Vec<Player>,
    finished: usize,
}

/// A finished game: the referee's record and each seat's move times in it.
#[derive(Debug, Clone)]
pub struct Played {
    /// The referee's record.
    pub record: GameRecord,
    /// Each seat's move times in this game.
    pub times: Vec<MoveTimes>,
    /// What each seat's bot tried and was refused since the last game it played ended (see
    /// [`crate::sandbox::probes`]): during this game, or before it (at its start, between
    /// games), so that no call goes uncounted by hiding between games.
    pub probed: Vec<sandbox::Probed>,
}

impl Match {
    /// Prepares the players (no process starts before the first game).
    pub fn new(config: MatchConfig) -> io::Result<Match> {
        let players = start_players(&config)?;
        Ok(Match {
            config,
            players,
            finished: 0,
        })
    }

    /// Starts every bot to hear its `hello`, and names each after it unless the command line
    /// named it (names stay unique). A bot that fails to start is reported by the first game;
    /// returns a sentence for each (its name, command and fault).
    pub async fn introduce(&mut self) -> Vec<String> {
        for player in &mut self.players {
            player.introduce(&self.config.settings.clocks).await;
        }
        let names = tell_apart(self.players.iter().map(|p| p.display_name().to_string()));
        let bots = self.config.bots.iter_mut();
        for ((player, spec), name) in self.players.iter_mut().zip(bots).zip(names) {
            *spec = spec.clone().renamed(name);
            player.spec = spec.clone();
        }
        self.players
            .iter()
            .filter_map(|p| {
                let fault = p.failed_start()?;
                Some(format!(
                    "{} ({}) could not start: {}",
                    p.display_name(),
                    p.spec.command,
                    fault.detail
                ))
            })
            .collect()
    }

    /// Each bot's statistics so far.
    pub fn stats(&self) -> Vec<BotStats> {
        self.players.iter().map(|p| p.stats.clone()).collect()
    }

    /// Whether every planned game is finished.
    pub fn complete(&self) -> bool {
        self.finished == self.config.plan.len()
    }

    /// Plays the games not played yet; `on_game` hears of each game as it ends and may stop
    /// the match. Every bot is stopped at the end.
    pub async fn play(
        &mut self,
        mut on_game: impl FnMut(&MatchConfig, &PlannedGame, &Played) -> ControlFlow<()>,
    ) -> io::Result<()> {
        let config = &self.config;
        for planned in config.plan.games(self.finished) {
            let planned = &planned;
            let mut log = match &config.logs {
                LogTarget::File(path) => GameLog::create(path),
                LogTarget::Dir(dir) => {
                    GameLog::create(&dir.join(format!("game-{}.jsonl", planned.number)))
                }
            }?;
            let played =
                play_planned(&config.settings, planned, &mut self.players, &mut log).await?;
            let flow = on_game(config, planned, &played);
            self.finished += 1;
            if config.settings.processes == Processes::Fresh {
                stop_all(&mut self.players).await;
            }
            if flow.is_break() {
                break;
            }
        }
        stop_all(&mut self.players).await;
        Ok(())
    }
}

/// Plays a whole match, for callers that never cut it short; returns each bot's statistics.
pub async fn run_match(config: &MatchConfig) -> io::Result<Vec<BotStats>> {
    let mut played = Match::new(config.clone())?;
    played.play(|_, _, _| ControlFlow::Continue(())).await?;
    Ok(played.stats())
}

/// Plays one planned game with `players`: builtins are seeded from the game's seed and seat, so
/// the game plays the same when played alone.
pub async fn play_planned(
    settings: &GameSettings,
    planned: &PlannedGame,
    players: &mut [Player],
    log: &mut GameLog,
) -> io::Result<Played> {
    let before: Vec<MoveTimes> = planned
        .seating
        .iter()
        .map(|&p| players[p].stats.times.clone())
        .collect();
    for (seat, &p) in planned.seating.iter().enumerate() {
        players[p].reseed(builtin_seed(planned.seed, seat));
    }
    let setup = GameSetup {
        number: planned.number,
        seed: planned.seed,
        rules: settings.rules,
        seating: planned.seating.clone(),
        clocks: settings.clocks,
        on_fault: settings.on_fault,
        protections: settings.protections.clone(),
        deals: settings.deals.clone(),
        arrangement: planned.arrangement,
        processes: settings.processes,
        public_seed: settings.public_seed,
    };
    let record = play_game(&setup, players, log).await?;
    let times = planned
        .seating
        .iter()
        .zip(&before)
        .map(|(&p, earlier)| players[p].stats.times.since(earlier))
        .collect();
    let probed = planned
        .seating
        .iter()
        .map(|&p| players[p].take_probed())
        .collect();
    Ok(Played {
        record,
        times,
        probed,
    })
}

/// The protections `bots` will be under with `policy`: what a throwaway contained process gets
/// on this machine, and what each bot may touch beyond the default, or is refused.
/// `None` when no bot runs as a process (builtins need none).
pub fn protections(bots: &[BotSpec], policy: &Policy) -> Option<Protections> {
    if !bots.iter().any(BotSpec::is_process) {
        return None;
    }
    let report = match policy.enabled {
        true => sandbox::probe(policy).unwrap_or_default(),
        false => Report::default(),
    };
    let grants: Vec<(String, sandbox::Grants)> = bots
        .iter()
        .filter(|_| policy.enabled)
        .filter_map(|spec| Some((spec.name.clone(), spec.launch()?.grants(policy).ok()?)))
        .collect();
    Some(Protections::from_report(policy, &report, &grants))
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
    let policy = Arc::new(config.settings.sandbox.clone());
    let mut players = Vec::new();
    for spec in &config.bots {
        let file = spec.is_process().then(|| {
            stderr_dir.join(format!(
                "{}{}.stderr",
                stem.as_deref().unwrap_or(""),
                text::file_name(&spec.name)
            ))
        });
        if let Some(file) = &file {
            // Each match starts its stderr files anew; restarts within it append.
            files::create_new(file)?;
        }
        players.push(player(
            spec,
            file,
            config.echo_stderr,
            &config.settings,
            &policy,
        ));
    }
    Ok(players)
}

/// A player for `spec`, its stderr kept in `stderr` (and echoed if asked), its process
/// contained by `policy`.
pub fn player(
    spec: &BotSpec,
    stderr: Option<PathBuf>,
    echo: bool,
    settings: &GameSettings,
    policy: &Arc<Policy>,
) -> Player {
    let sink = StderrSink {
        file: stderr,
        cap: settings.stderr_cap,
        echo_prefix: echo.then(|| format!("[{}] ", spec.name)),
        lines: Some(Arc::default()),
    };
    Player::new(spec.clone(), 0, sink, settings.max_line, Arc::clone(policy))
}

/// Stops every player's processes politely, the idle ones of other arrangements included.
pub async fn stop_all(players: &mut [Player]) {
    for player in players {
        player.stop_every(GRACE).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_plays_every_game_once_an_arrangement_of_a_block_at_a_time() {
        for (numbers, per_deal) in [(1..=100, 2), (1..=37, 8), (5..=5, 6), (3..=20, 1)] {
            let order: Vec<u32> = match_order(numbers.clone(), per_deal).collect();
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, numbers.clone().collect::<Vec<_>>());
        }
        let order: Vec<u32> = match_order(1..=20, 2).take(10).collect();
        assert_eq!(order, [1, 3, 5, 7, 9, 11, 13, 15, 2, 4]);
        let none = std::ops::RangeInclusive::new(1, 0);
        assert_eq!(match_order(none, 2).count(), 0);
    }
}
