//! The command line: raw arguments (clap) and their checking into a [`MatchConfig`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::bot::clock::{ClockKind, Clocks, DEFAULT_MOVE_MS, DEFAULT_STARTUP_MS};
use crate::bot::lifetime::Processes;
use crate::bot::player::BotSpec;
use crate::cli::deal_file::{never_played, read_deals};
use crate::cli::entrants;
use crate::cli::exit::{BAD_INPUT, say};
use crate::cli::key_file;
use crate::placement::Placement;
use crate::referee::game::FaultPolicy;
use crate::referee::matchplay::{GameSettings, LogTarget, MatchConfig, Plan, PlannedGame};
use crate::sandbox::{Policy, ResourceLimits, outputs};
use crate::tournament::definition::Definition;
use crate::tournament::ratings::SprtSpec;
use crate::tournament::schedule::{self, Format, Table};
use crate::tournament::seeds::{self, DealKey, Master, SEED_LIMIT};
use crate::tournament::shard::ShardAsk;
use allfives_engine::deal::Deal;
use allfives_engine::protocol::MAX_BOT_LINE;

use crate::replay::turn::Wanted;
use allfives_engine::rules::{Finish, HandEnd, Rules, SpinnerRule};

/// A referee for bots playing the domino game All Fives.
#[derive(Debug, Parser)]
#[command(name = "allfives", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Parses the process's arguments. Help and the version go to stdout; any other mistake is one
/// line on stderr in the referee's own style, `allfives: ...`. `Err` holds the exit code.
pub fn parse() -> Result<Cli, u8> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().try_get_matches().map_err(reported)?;
    let mut cli = Cli::from_arg_matches(&matches).map_err(reported)?;
    if let (Command::Tournament(args), Some(typed)) =
        (&mut cli.command, matches.subcommand_matches("tournament"))
    {
        args.typed = KeptSetting::ALL
            .into_iter()
            .filter(|kept| typed.value_source(kept.id()) == Some(ValueSource::CommandLine))
            .collect();
    }
    Ok(cli)
}

/// An option with a default whose stored value `tournament --resume` keeps: only the parser
/// knows whether it was typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptSetting {
    /// `--startup-ms`.
    StartupMs,
    /// `--move-ms`.
    MoveMs,
    /// `--bank-ms`.
    BankMs,
    /// `--clock`.
    Clock,
    /// `--on-fault`.
    OnFault,
    /// `--max-faults`.
    MaxFaults,
    /// `--max-line`.
    MaxLine,
    /// `--players`.
    Players,
    /// `--format`.
    Format,
    /// `--splits`.
    Splits,
    /// `--all-orders`.
    AllOrders,
}

impl KeptSetting {
    /// Every one of them.
    pub const ALL: [KeptSetting; 11] = [
        KeptSetting::StartupMs,
        KeptSetting::MoveMs,
        KeptSetting::BankMs,
        KeptSetting::Clock,
        KeptSetting::OnFault,
        KeptSetting::MaxFaults,
        KeptSetting::MaxLine,
        KeptSetting::Players,
        KeptSetting::Format,
        KeptSetting::Splits,
        KeptSetting::AllOrders,
    ];

    /// The parser's id of the option (its field's name in [`GameArgs`]).
    fn id(self) -> &'static str {
        match self {
            KeptSetting::StartupMs => "startup_ms",
            KeptSetting::MoveMs => "move_ms",
            KeptSetting::BankMs => "bank_ms",
            KeptSetting::Clock => "clock",
            KeptSetting::OnFault => "on_fault",
            KeptSetting::MaxFaults => "max_faults",
            KeptSetting::MaxLine => "max_line",
            KeptSetting::Players => "players",
            KeptSetting::Format => "format",
            KeptSetting::Splits => "splits",
            KeptSetting::AllOrders => "all_orders",
        }
    }

    /// The option as it is typed.
    pub fn flag(self) -> String {
        format!("--{}", self.id().replace('_', "-"))
    }
}

/// A parser error reported: help and the version on stdout, any other mistake as one line.
fn reported(e: clap::Error) -> u8 {
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // Help asked for goes to stdout, which may refuse it (/dev/full, a closed pipe);
            // help for a missing command goes to stderr, which may too: its code stands.
            match e.print() {
                Err(failed) if !e.use_stderr() => crate::cli::exit::output_failed(&failed),
                _ => e.exit_code() as u8,
            }
        }
        _ => {
            say(format_args!(
                "allfives: {}",
                crate::text::terminal(&one_line(&e))
            ));
            BAD_INPUT
        }
    }
}

/// A parser error as one sentence: clap's message and tips, without its usage block.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts: Vec<&str> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if !line.is_empty() {
            parts.push(line.strip_prefix("error: ").unwrap_or(line));
        }
    }
    format!("{} (see --help)", parts.join(" ").replace(" tip: ", "; "))
}

/// `-j N`: at least one game at once.
fn games_at_once(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err(
            "-j 0 plays no game at once: give at least 1, or leave -j out to use every CPU".into(),
        ),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play one game, or a match of several, between 2 to 4 bots.
    Match(MatchArgs),
    /// Check a game log line by line against the rules engine, then show the game: as text, as
    /// JSON, as an HTML page, or one decision of it (and pose that decision to a bot).
    Replay(ReplayArgs),
    /// Check that a bot speaks the protocol: a scripted conversation, PASS or FAIL per step.
    Check(CheckArgs),
    /// Play a tournament: every group of entrants on duplicate deals, on every core, with
    /// results kept in a folder that can be resumed.
    Tournament(TournamentArgs),
    /// Print the standings of a tournament folder, or of a tournament's shards (run on several
    /// machines) merged.
    Standings(StandingsArgs),
    /// Print a JSON Schema: of every protocol message (the default), or of the results format.
    Schema(SchemaArgs),
    /// Print the completion script of a shell for allfives.
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of allfives or of one of its commands.
    Man(ManArgs),
    /// Write a starter bot, with the protocol and the rulebook beside it, into a folder, then
    /// print the commands that check it and play it. Never overwrites a file.
    Kit(KitArgs),
    /// Print the rulebook: scoring, doubles, spinners, every rule option (Markdown).
    Rules,
    /// Compare two versions of a bot on the same deals, seats and seeded opponents: the paired
    /// difference deal by deal, and the first decision where their games part, ranked.
    Compare(crate::cli::compare::CompareArgs),
}

/// `allfives kit`: `allfives kit python mybot` writes mybot/bot.py, mybot/protocol.md and the
/// pages it links to (mybot/docs/).
#[derive(Debug, Args)]
pub struct KitArgs {
    /// The bot's language (`docs` for any other: the protocol and the rulebook alone).
    #[arg(value_parser = crate::cli::kit::LanguageParser)]
    pub language: crate::cli::kit::Language,
    /// The folder to write it into (made if missing).
    pub dir: PathBuf,
}

/// `allfives completions`: `allfives completions bash >
/// ~/.local/share/bash-completion/completions/allfives`, for one.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `allfives man`: `allfives man match | man -l -` reads the page of `allfives match`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print [default: allfives itself].
    pub command: Option<String>,
}

/// `allfives schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// `protocol` (every message, both ways), `results` (the --json of match, tournament and
    /// standings), `results-line` (a line of results.jsonl) or `compare` (compare's --json).
    #[arg(default_value = "protocol", value_parser = ["protocol", "results", "results-line", "compare"])]
    pub what: String,
}

/// The options that make a run's master seed (`match` and `tournament`).
#[derive(Debug, Clone, Default, Args)]
pub struct SeedArgs {
    /// A seed below 2^53 that names the run's deals. It is mixed with a secret deal key, so that
    /// no bot can compute the deals from it: a fresh key every run (the same N then deals other
    /// games) unless --deal-key names one; the master seed it makes is printed and recorded
    /// [default: a fresh master seed from the operating system].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Deal from --seed N by public formulas, with no key: N gives the same games anywhere, and
    /// a bot that guesses N can compute every hand (recorded in the logs and results, and
    /// warned). Right for a seed the referee printed (a master seed, a results line's rerun)
    /// [default: off].
    #[arg(long, requires = "seed", conflicts_with = "deal_key")]
    pub public_seed: bool,
    /// Mix --seed with the deal key in FILE, made with a fresh key (mode 0600) if it does not
    /// exist: the same seed and key give the same games in every run and every shard. Hidden
    /// from every contained bot [default: a fresh key, kept nowhere].
    #[arg(long, value_name = "FILE", requires = "seed")]
    pub deal_key: Option<PathBuf>,
}

impl SeedArgs {
    /// The seed option that names a master other than the stored one, if any: another typed seed,
    /// `--public-seed` for a master a key made, or a deal key that does not make the stored master
    /// (a public master resumed without `--public-seed` is the stored one: the folder decides).
    pub fn names_another_master(&self, stored: &Definition) -> Option<&'static str> {
        let typed = self.seed?;
        // Older definitions kept no typed seed: their master was the typed seed itself.
        if typed != stored.typed_seed.unwrap_or(stored.seed) {
            return Some("--seed");
        }
        if self.public_seed && !stored.public_seed {
            return Some("--public-seed");
        }
        let other_key = self.deal_key.as_ref().is_some_and(|file| {
            key_file::load_or_make(file)
                .map_or(true, |key| seeds::keyed(&key, typed) != stored.seed)
        });
        other_key.then_some("--deal-key")
    }

    /// Whether every run with these options makes the same master (what shards need).
    pub fn reproducible(&self) -> bool {
        self.seed.is_some() && (self.public_seed || self.deal_key.is_some())
    }

    /// The deal key's file, which no bot may read (it may lie in a folder a bot reads).
    pub fn key_file(&self) -> Option<PathBuf> {
        self.deal_key
            .as_deref()
            .map(crate::sandbox::grants::absolute)
    }

    /// The master seed these options make; `fresh` draws one when no --seed is given. The
    /// error is one sentence.
    pub fn master(&self, fresh: impl FnOnce() -> Result<u64, String>) -> Result<Master, String> {
        let Some(typed) = self.seed else {
            return Ok(Master::untyped(fresh()?, false));
        };
        if typed >= SEED_LIMIT {
            return Err(format!("--seed must be below 2^53 ({SEED_LIMIT})"));
        }
        let seed = match (self.public_seed, &self.deal_key) {
            (true, _) => typed,
            (false, Some(file)) => seeds::keyed(&key_file::load_or_make(file)?, typed),
            (false, None) => seeds::keyed(&DealKey::fresh()?, typed),
        };
        Ok(Master {
            seed,
            typed: Some(typed),
            public: self.public_seed,
        })
    }
}

/// `allfives tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// The entrants (with those of --bots): `NAME=COMMAND`, `builtin:NAME` (random, greedy,
    /// mix:P: greedy but a random move with probability P), a path to an executable, or a
    /// quoted command line. With --resume, none repeats the stored ones; more
    /// than stored adds entrants (a ladder: only their games are played).
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// A bots file (.toml or .json): `bots`, each with `name`, `command`, and optionally `dir`
    /// (relative to the file), `env`, `read`, `write`, and (a ladder's) `retired = true`.
    #[arg(long = "bots", value_name = "FILE")]
    pub bots_file: Option<PathBuf>,
    /// Players at each table: 2, 3 or 4.
    #[arg(long, short = 'p', default_value_t = 2)]
    pub players: usize,
    /// round-robin (every group of entrants meets equally often), gauntlet (the first
    /// entrant against every group of the others) or ladder (tables drawn one at a time for a
    /// budget of --games or --games-each; entrants may join and --retire as it goes).
    #[arg(long, value_enum, default_value_t = Format::RoundRobin)]
    pub format: Format,
    /// A ladder's budget: games in all, in this folder, rounded up to whole tables. With
    /// --resume, a larger budget plays on.
    #[arg(long, value_name = "N", conflicts_with = "games_each")]
    pub games: Option<u64>,
    /// A ladder's budget: games for every entrant still in; a newcomer plays until it has as
    /// many.
    #[arg(long, value_name = "N")]
    pub games_each: Option<u64>,
    /// A ladder draws each table to settle the ranking fastest: the entrant whose place is
    /// least settled first (an unrated one before all), with the neighbours whose order with it
    /// is most uncertain (default: balanced, the entrant with the fewest games first, with the
    /// opponents it met least).
    #[arg(long)]
    pub matchmaking: bool,
    /// With --resume, a ladder's entrant (by name) no longer drawn: its games stay in the
    /// results and the standings. Repeatable. To replace v1 with v2: --retire v1 v2=COMMAND.
    #[arg(long, value_name = "NAME")]
    pub retire: Vec<String>,
    /// With --format gauntlet: the entrant (by name) that meets every group of the others,
    /// from the command line or the bots file [default: the first entrant].
    #[arg(long, value_name = "NAME")]
    pub challenger: Option<String>,
    /// Deals each group plays (default 10); each deal is played in every seat arrangement that
    /// matters. With --resume, more deals than stored plays only the new ones.
    #[arg(long)]
    pub deals: Option<u64>,
    /// With 4 players in partnerships: play every split of four entrants into two teams
    /// (default: a team is two copies of one entrant).
    #[arg(long)]
    pub splits: bool,
    /// With 4 players cut-throat: all 24 seat orders (default: a balanced 8).
    #[arg(long)]
    pub all_orders: bool,
    /// The seed and the deal key the deals are made from.
    #[command(flatten)]
    pub seeds: SeedArgs,
    /// Games played at once [default: the CPUs this process may run on: its CPU affinity, its
    /// cgroup's CPU quota, and in a Slurm job SLURM_CPUS_PER_TASK or SLURM_CPUS_ON_NODE].
    /// Contained, each deal is played by one worker, so at most as many as the deals.
    #[arg(long, short = 'j', value_name = "N", value_parser = games_at_once)]
    pub concurrency: Option<usize>,
    /// Where the games run: `same-core` gives each game at once a CPU of its own for its bots
    /// and its share of the referee, while there are free CPUs (fastest for bots that think only
    /// when asked); `free` lets the scheduler place each process (for bots that think on their
    /// opponent's time or use several threads).
    #[arg(long, value_enum, default_value_t = Placement::SameCore)]
    pub placement: Placement,
    /// The results folder: logs/, stderr/, tournament.json, results.jsonl (default: a new
    /// folder allfives-tournaments/tournament-N). One run holds it at a time: another run on it
    /// is refused.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue the tournament in --out DIR: play only the games missing from it, with the
    /// seed, schedule, rules and clocks stored there. An option given with a value other than
    /// the stored one is refused, except more --deals or more entrants (added, with a note).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// A later round of a run played in rounds (`compare --sprt`): the notes its first round
    /// gave (the deals added, the processes kept) are not given again.
    #[arg(skip)]
    pub later_round: bool,
    /// The options of [`KeptSetting`] typed on the command line.
    #[arg(skip)]
    pub typed: Vec<KeptSetting>,
    /// Play only slice I of N of the schedule (whole duplicate sets), e.g. 2/8, numbered from 1;
    /// `auto` reads it from a Slurm job array's SLURM_ARRAY_TASK_ID, _MIN, _MAX and _COUNT (the
    /// task counted from the array's first, so arrays from 0 or 1 alike), `auto/N` from a
    /// Kubernetes Indexed Job's JOB_COMPLETION_INDEX (from 0). Needs --seed with --deal-key or --public-seed. The same command
    /// starts a shard and continues it: a folder holding this shard of this tournament is
    /// continued, any other refused.
    #[arg(long, value_name = "I/N|auto", value_parser = ShardAsk::parse)]
    pub shard: Option<ShardAsk>,
    /// Stop as soon as a sequential test decides (two entrants, two players), e.g.
    /// elo0=0,elo1=10,alpha=0.05,beta=0.05.
    #[arg(long, value_name = "SPEC", value_parser = SprtSpec::parse)]
    pub sprt: Option<SprtSpec>,
    /// Print the standings so far to stderr every K games.
    #[arg(long, value_name = "K")]
    pub standings_every: Option<u64>,
    /// How the ratings are shown.
    #[command(flatten)]
    pub rating: RatingArgs,
    /// A fresh process for every game (default: a worker keeps a process for each bot and
    /// seat arrangement of the groups it plays, so that none plays a deal twice).
    #[arg(long)]
    pub fresh: bool,
    /// Let a bot's process play a deal it has already seen, with the seats turned (by default
    /// each arrangement has a process of its own): for trusted bots only, since a bot that remembers the hand it
    /// held then knows its opponent's. Recorded in every log, results line and the standings.
    #[arg(long, conflicts_with = "fresh")]
    pub reuse_processes: bool,
    /// Pack the games' logs: each worker appends every game's log, as one zstd frame, to a
    /// file of its own (OUT/logs/pack-wN.zst) instead of writing a file per game. Kept by
    /// --resume; read a game with `allfives replay OUT --game ID`; `zstd -dc` prints them all.
    #[arg(long)]
    pub pack_logs: bool,
    /// No progress on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print the final standings as JSON (docs/results.md) instead of text.
    #[arg(long)]
    pub json: bool,
    /// How every game is played.
    #[command(flatten)]
    pub game_options: GameArgs,
}

/// `allfives standings`.
#[derive(Debug, Args)]
pub struct StandingsArgs {
    /// Tournament folders (each with tournament.json and results.jsonl): one tournament's run,
    /// or its shards, each once. Every results line is checked against tournament.json.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The sequential test to report (two entrants, two players) [default: the one the
    /// tournament ran, if any].
    #[arg(long, value_name = "SPEC", value_parser = SprtSpec::parse)]
    pub sprt: Option<SprtSpec>,
    /// Check every results line against its game's log too: the log's SHA-256, then the game
    /// replayed through the rules engine (every line is always checked against tournament.json);
    /// what was checked is said on stderr in one line (and as `verified` with --json).
    #[arg(long)]
    pub verify: bool,
    /// How the ratings are shown.
    #[command(flatten)]
    pub rating: RatingArgs,
    /// Print JSON (docs/results.md) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the report page (docs/report.md) to FILE: ratings, crosstable, charts, every
    /// game (past 50,000 an even sample) linked to its replay page; one self-contained HTML file
    /// (replaced if it exists; not `-`: the page is a file).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// With --html: also write every game's replay page, and their index, in replay/ beside FILE
    /// (a new folder; replay-1/, replay-2/... for several folders), where the page links.
    #[arg(long, requires = "html")]
    pub replays: bool,
}

/// How the ratings are placed and shown (`tournament` and `standings`).
#[derive(Debug, Clone, Args)]
pub struct RatingArgs {
    /// The entrant whose rating is fixed at --anchor-elo [default: the mean of all is].
    #[arg(long, value_name = "NAME")]
    pub anchor: Option<String>,
    /// The rating of the anchor, or of the mean without --anchor.
    #[arg(
        long,
        value_name = "ELO",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub anchor_elo: f64,
    /// Print the Elo line of every pair of entrants that met (always printed for two
    /// entrants; always in --json).
    #[arg(long)]
    pub pairs: bool,
}

/// `allfives check`.
#[derive(Debug, Args)]
#[command(
    override_usage = "allfives check [OPTIONS] <BOT>\n       allfives check [OPTIONS] --bots <FILE> <NAME>"
)]
pub struct CheckArgs {
    /// The bot: a path to an executable, a quoted command line, or `builtin:NAME`; with
    /// --bots, the name of a bot of that file.
    pub bot: String,
    /// A bots file (as `match --bots`): check its bot named BOT exactly as it plays there (its
    /// `dir`, `env`, `read` and `write`, the other bots' folders hidden from it).
    #[arg(long = "bots", value_name = "FILE")]
    pub bots_file: Option<PathBuf>,
    /// Milliseconds the bot has for each move (as in `match`).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_MOVE_MS)]
    pub move_ms: u64,
    /// Milliseconds the bot has to start and answer the handshake (as in `match`).
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_STARTUP_MS)]
    pub startup_ms: u64,
    /// Milliseconds a bot may draw on, over a game, past the per-move limit (as in `match`).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub bank_ms: u64,
    /// Echo the bot's stderr to the terminal as it runs, each line prefixed with its name.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// How the bot is contained.
    #[command(flatten)]
    pub sandbox: SandboxArgs,
}

/// How bots are contained (`docs/fair-play.md`).
#[derive(Debug, Clone, Args)]
pub struct SandboxArgs {
    /// Run bots uncontained (for trusted bots): they can read the logs and each other.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Let bots use the network (off by default).
    #[arg(long)]
    pub bot_network: bool,
    /// Let the locks bots take on files have effect, and their file watches (inotify) work (by
    /// default a lock takes none and a watch is refused, so that partners cannot signal
    /// through a file both read): for trusted bots whose processes lock files between them
    /// (SQLite written by several processes) or watch files. Recorded in every log.
    #[arg(long)]
    pub bot_locks: bool,
    /// The most data memory, in MiB, each bot process may use [default: no limit].
    #[arg(long, value_name = "MIB")]
    pub bot_memory: Option<u64>,
    /// The most processes and threads each bot may run at once [default: no limit].
    #[arg(long, value_name = "N")]
    pub bot_processes: Option<u64>,
    /// A folder every contained bot may also read (repeatable; a bot reads its working
    /// directory, its program and interpreter, and what its command names, without it)
    /// [default: none].
    #[arg(long, value_name = "PATH")]
    pub bot_read: Vec<PathBuf>,
    /// A folder every contained bot may also write (repeatable; each bot writes its own /tmp,
    /// also $TMPDIR, without it) [default: none].
    #[arg(long, value_name = "PATH")]
    pub bot_write: Vec<PathBuf>,
    /// The size of each contained bot's private /tmp, and of its /dev/shm, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = crate::sandbox::DEFAULT_TMP_MIB)]
    pub bot_tmp: u64,
    /// The bots' environment: `pass` (the referee's, as a program started from this shell
    /// gets) or `clean` (only the variables of --bot-env-keep and a short list: PATH, HOME,
    /// USER, LOGNAME, LANG, LC_*, TZ, TERM and the interpreters' own variables).
    #[arg(long, value_name = "HOW", value_enum, default_value_t = BotEnv::Pass)]
    pub bot_env: BotEnv,
    /// A variable kept with --bot-env clean (repeatable) [default: none].
    #[arg(long, value_name = "VAR")]
    pub bot_env_keep: Vec<String>,
}

/// What the bots' environment is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BotEnv {
    /// The referee's whole environment.
    Pass,
    /// An allow-list of it.
    Clean,
}

/// The variables `--bot-env clean` keeps: what programs need to start and find their
/// interpreters, nothing that is usually a secret.
const KEPT_ENV: [&str; 20] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "PWD",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "NVM_DIR",
    "NVM_BIN",
    "JAVA_HOME",
    "PYTHONPATH",
    "NODE_PATH",
    "CLASSPATH",
];

impl SandboxArgs {
    /// The policy, with `hidden` (the logs) out of every bot's reach.
    pub fn policy(&self, hidden: Vec<PathBuf>) -> Result<Policy, String> {
        if self.bot_memory == Some(0) || self.bot_processes == Some(0) || self.bot_tmp == 0 {
            return Err("--bot-memory, --bot-processes and --bot-tmp must be above 0".into());
        }
        for (option, path) in self
            .bot_read
            .iter()
            .map(|p| ("--bot-read", p))
            .chain(self.bot_write.iter().map(|p| ("--bot-write", p)))
        {
            if !path.exists() {
                return Err(format!(
                    "{option} {}: no such file or folder",
                    path.display()
                ));
            }
        }
        if self.bot_write.iter().any(|p| !p.is_dir()) {
            return Err("--bot-write takes a folder".into());
        }
        let clean_env = (self.bot_env == BotEnv::Clean).then(|| {
            let inherited = std::env::vars_os()
                .filter_map(|(k, _)| k.into_string().ok())
                .filter(|k| k.starts_with("LC_"));
            KEPT_ENV
                .iter()
                .map(|k| k.to_string())
                .chain(inherited)
                .chain(self.bot_env_keep.iter().cloned())
                .collect()
        });
        let absolute = |paths: &[PathBuf]| {
            paths
                .iter()
                .map(|p| crate::sandbox::grants::absolute(p))
                .collect()
        };
        Ok(Policy {
            enabled: !self.no_sandbox,
            network: self.bot_network,
            real_locks: self.bot_locks,
            limits: ResourceLimits {
                memory: self.bot_memory.map(|mib| mib << 20),
                processes: self.bot_processes,
            },
            hidden,
            homes: Vec::new(),
            read: absolute(&self.bot_read),
            write: absolute(&self.bot_write),
            tmp_bytes: self.bot_tmp << 20,
            clean_env,
            // This program: its main knows to run as a bot's init.
            init_program: std::env::current_exe().ok(),
        })
    }
}

/// `allfives replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The game log (a .jsonl file written by `allfives match`); with --game, a tournament's
    /// folder; with --html, also a folder of logs or a tournament's folder (every game).
    pub log: PathBuf,
    /// The game of this id in the tournament folder LOG (its results.jsonl says where its log
    /// is: a file of its own or a pack).
    #[arg(long, value_name = "ID")]
    pub game: Option<String>,
    /// Print only the check's verdict, not the game.
    #[arg(long, conflicts_with_all = ["json", "html", "turn"])]
    pub quiet: bool,
    /// Show only what this seat saw (its own tiles, the others' counts, no boneyard, no seed).
    #[arg(long, value_name = "N")]
    pub seat: Option<usize>,
    /// Start the text at this hand (from 1).
    #[arg(long, value_name = "H", conflicts_with_all = ["json", "html", "turn", "quiet"])]
    pub hand: Option<u32>,
    /// Start the text at this move of the hand (from 1; of hand 1 without --hand).
    #[arg(long = "move", value_name = "M", conflicts_with_all = ["json", "html", "turn", "quiet"])]
    pub from_move: Option<u32>,
    /// The game's K-th decision (every time a bot was asked for a move, answered or faulted;
    /// with --seat, that seat's K-th): the table, the legal moves, the fault, what was played,
    /// the info and stderr; with --json the exact `turn` message the bot received. `fault`: the
    /// first fault's decision; `fault:K`: the K-th fault's.
    #[arg(long, value_name = "K", value_parser = wanted_turn)]
    pub turn: Option<Wanted>,
    /// Print the verified game as one JSON document (with --turn: the turn message).
    #[arg(long, conflicts_with = "html")]
    pub json: bool,
    /// Pose the position of --turn K to this bot and print its answer beside what was played.
    #[arg(long, value_name = "BOT", requires = "turn", conflicts_with_all = ["json", "html"])]
    pub ask: Option<String>,
    /// Write the game as one self-contained HTML page to FILE (it must not exist yet; `-`:
    /// to stdout). With a folder of logs for LOG: FILE is a folder to create, holding an index
    /// page and every game's page.
    #[arg(long, value_name = "FILE", conflicts_with = "turn")]
    pub html: Option<PathBuf>,
    /// How the bot of --ask is contained (the log's folder is kept out of its reach).
    #[command(flatten)]
    pub sandbox: SandboxArgs,
}

/// What to do when a bot faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnFault {
    /// The bot forfeits the game at its first fault.
    Forfeit,
    /// Play the first legal move for it; it forfeits at its --max-faults-th fault of a game.
    Fallback,
}

/// Which doubles spin (grow `up` and `down` arms): the engine's [`SpinnerRule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpinnerArg {
    /// The hand's first double, the lead included.
    First,
    /// No double.
    None,
    /// Every double.
    All,
}

/// End-of-hand scoring: the engine's [`HandEnd`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HandEndArg {
    /// Each side scores minus its own pips left, rounded to a multiple of 5.
    Penalty,
    /// The side that went out scores everyone else's pips left, rounded to a multiple of 5.
    Bonus,
}

/// When reaching the target ends the game: the engine's [`Finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FinishArg {
    /// At once, in the middle of a hand.
    Immediate,
    /// At the end of the hand.
    #[value(alias = "end_of_hand")]
    EndOfHand,
}

impl From<SpinnerArg> for SpinnerRule {
    fn from(arg: SpinnerArg) -> SpinnerRule {
        match arg {
            SpinnerArg::First => SpinnerRule::First,
            SpinnerArg::None => SpinnerRule::None,
            SpinnerArg::All => SpinnerRule::All,
        }
    }
}

impl From<HandEndArg> for HandEnd {
    fn from(arg: HandEndArg) -> HandEnd {
        match arg {
            HandEndArg::Penalty => HandEnd::Penalty,
            HandEndArg::Bonus => HandEnd::Bonus,
        }
    }
}

impl From<FinishArg> for Finish {
    fn from(arg: FinishArg) -> Finish {
        match arg {
            FinishArg::Immediate => Finish::Immediate,
            FinishArg::EndOfHand => Finish::EndOfHand,
        }
    }
}

/// The fault of a game that forfeits it with `--on-fault fallback`, unless told otherwise.
const DEFAULT_MAX_FAULTS: u32 = 3;

/// `allfives match`.
#[derive(Debug, Args)]
#[command(override_usage = "allfives match [OPTIONS] <BOT> <BOT> [BOT] [BOT]")]
pub struct MatchArgs {
    /// The bots, 2 to 4 (with those of --bots): `builtin:random`, `builtin:greedy`,
    /// `builtin:mix:P` (greedy, but a random move with probability P), a path to an
    /// executable, or a quoted command line such as "python3 sample_bots/python/greedy_bot.py";
    /// `NAME=COMMAND` names one (`v2="python3 v2/bot.py"`).
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// A bots file (.toml or .json): `bots`, each with `name`, `command`, and optionally `dir`
    /// (relative to the file) and `env`; they come before the BOT arguments [default: none].
    #[arg(long = "bots", value_name = "FILE")]
    pub bots_file: Option<PathBuf>,
    /// How many games; the seats go through every arrangement that matters (2 players: both
    /// seats; 3: all 6 orders; 4: see docs/results.md) before a new deal.
    #[arg(long, short = 'g', value_name = "N", default_value_t = 1)]
    pub games: u32,
    /// The seed and the deal key the deals are made from.
    #[command(flatten)]
    pub seeds: SeedArgs,
    /// Play game K of the match alone, exactly as it is seated and dealt in the whole match
    /// [default: every game].
    #[arg(long, value_name = "K")]
    pub game: Option<u64>,
    /// A JSON file with the deal of the first hand, or an array of deals for the first hands
    /// [default: deals drawn from the seed].
    #[arg(long, value_name = "FILE")]
    pub deal: Option<PathBuf>,
    /// Play the deals of a logged game again (a .jsonl log), under its rules unless rule options
    /// are given; later hands are drawn from the seed (default: the log's) [default: none].
    #[arg(long, value_name = "LOG", conflicts_with = "deal")]
    pub deal_from: Option<PathBuf>,
    /// With --deal-from: start from this hand of the log (scores start at 0) [default: 1].
    #[arg(long, value_name = "H", requires = "deal_from")]
    pub hand: Option<u32>,
    /// How every game is played.
    #[command(flatten)]
    pub game_options: GameArgs,
    /// Where the match runs: `same-core` holds one CPU for the referee and its bots (fastest
    /// for bots that think only when asked); `free` lets the scheduler place each process (for
    /// bots that think on their opponent's time or use several threads).
    #[arg(long, value_enum, default_value_t = Placement::SameCore)]
    pub placement: Placement,
    /// Write the game's log to FILE, which must not exist (a one-game match) [default: a file in
    /// --log-dir's folder].
    #[arg(long, value_name = "FILE", conflicts_with = "log_dir")]
    pub log: Option<PathBuf>,
    /// Write each game's log to DIR/game-N.jsonl; a game's log already there is refused before
    /// the first game [default: a new folder allfives-logs/match-N, never one used before].
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// Print one JSON object with the whole result instead of text, each game as it ends
    /// (docs/results.md).
    #[arg(long)]
    pub json: bool,
    /// Start a fresh process for every game (by default a bot has a process for each seat
    /// arrangement, which serves game after game and never plays a deal twice).
    #[arg(long)]
    pub fresh: bool,
    /// Let a bot's process play a deal it has already seen, with the seats turned (by default
    /// each arrangement has a process of its own): for trusted bots only, since a bot that remembers the hand it
    /// held then knows its opponent's. Recorded in every log, results line and the standings.
    #[arg(long, conflicts_with = "fresh")]
    pub reuse_processes: bool,
    /// Keep every bot in the seat given (by default the seats rotate from game to game).
    #[arg(long)]
    pub no_rotate: bool,
    /// Echo the bots' stderr to the terminal, each line prefixed with the bot's name, and say
    /// which protections are in force.
    #[arg(long, short = 'v', conflicts_with = "quiet")]
    pub verbose: bool,
    /// No line per game (the match's progress): the banner and the standings only (--json
    /// still holds every game).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The options of every game: rules, clocks, faults (shared by `match` and `tournament`).
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    /// With 4 players: partnerships, seats 0 and 2 against 1 and 3 [default with 4 players].
    #[arg(long, overrides_with = "no_teams")]
    pub teams: bool,
    /// With 4 players: every player for themselves.
    #[arg(long)]
    pub no_teams: bool,
    /// Tiles dealt to each player [default: 9 with 2 players, 7 with 3, 5 with 4].
    #[arg(long, value_name = "N")]
    pub hand_size: Option<usize>,
    // The rule options stay optional, so that --deal-from keeps a logged game's rules unless
    // they are given; their defaults are the engine's (`Rules::new`).
    /// Which doubles spin [default: first].
    #[arg(long, value_enum, value_name = "RULE")]
    pub spinner: Option<SpinnerArg>,
    /// End-of-hand scoring [default: penalty].
    #[arg(long, value_enum, value_name = "RULE")]
    pub hand_end: Option<HandEndArg>,
    /// The winning score [default: 250 with 2 players, 200 with 3 or 4].
    #[arg(long, value_name = "POINTS", allow_negative_numbers = true)]
    pub target: Option<i32>,
    /// When reaching the target ends the game [default: immediate].
    #[arg(long, value_enum, value_name = "RULE")]
    pub finish: Option<FinishArg>,
    /// The most hands a game may last [default: 200].
    #[arg(long, value_name = "N")]
    pub max_hands: Option<u32>,
    /// Milliseconds a bot has to start and answer the handshake.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_STARTUP_MS)]
    pub startup_ms: u64,
    /// Milliseconds a bot has for each move.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_MOVE_MS)]
    pub move_ms: u64,
    /// Milliseconds a bot may draw on, over a game, past the per-move limit.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub bank_ms: u64,
    /// What a fault costs.
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = OnFault::Forfeit)]
    pub on_fault: OnFault,
    /// With --on-fault fallback: the fault of a game that forfeits it.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_FAULTS)]
    pub max_faults: u32,
    /// What a move's time is: `wall` (elapsed) or `cpu` (the CPU the bot's processes used,
    /// with 3 times the allowance plus 1 s of wall time as a backstop).
    #[arg(long, value_enum, default_value_t = ClockKind::Wall)]
    pub clock: ClockKind,
    /// How bots are contained.
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// The longest line, in bytes, a bot may write.
    #[arg(long, value_name = "BYTES", default_value_t = MAX_BOT_LINE)]
    pub max_line: usize,
}

impl GameArgs {
    /// Checks the options and builds the games' settings for `players` players, with `hidden`
    /// (the folders holding logs and results) out of every bot's reach.
    pub fn settings(
        &self,
        rules: Rules,
        deals: Arc<[Deal]>,
        hidden: Vec<PathBuf>,
    ) -> Result<GameSettings, String> {
        let clocks = Clocks::from_ms(self.startup_ms, self.move_ms, self.bank_ms, self.clock)?;
        if self.max_faults == 0 {
            return Err("--max-faults must be at least 1".into());
        }
        if self.max_line < 64 {
            return Err("--max-line must be at least 64 bytes".into());
        }
        Ok(GameSettings {
            rules,
            deals,
            max_line: self.max_line,
            stderr_cap: 1024 * 1024,
            sandbox: self.sandbox.policy(hidden)?,
            protections: None,
            processes: Processes::default(),
            public_seed: false,
            clocks,
            on_fault: match self.on_fault {
                OnFault::Forfeit => FaultPolicy::Forfeit,
                OnFault::Fallback => FaultPolicy::Fallback {
                    max_faults: self.max_faults,
                },
            },
        })
    }

    /// The rules: `base` (a logged game's) or the defaults for `players`, with the options given.
    pub fn rules(&self, players: usize, base: Option<Rules>) -> Result<Rules, String> {
        let mut rules = base.unwrap_or_else(|| Rules::new(players));
        if self.teams && players != 4 {
            return Err(format!("--teams needs 4 players, not {players}"));
        }
        if self.no_teams {
            rules.teams = false;
        }
        rules.hand_size = self.hand_size.unwrap_or(rules.hand_size);
        rules.spinner = self.spinner.map_or(rules.spinner, Into::into);
        rules.hand_end = self.hand_end.map_or(rules.hand_end, Into::into);
        rules.target = self.target.unwrap_or(rules.target);
        rules.finish = self.finish.map_or(rules.finish, Into::into);
        rules.max_hands = self.max_hands.unwrap_or(rules.max_hands);
        rules.validate().map_err(|e| e.to_string())?;
        Ok(rules)
    }
}

impl MatchArgs {
    /// Checks the arguments and builds the match, with its master seed and how it was made;
    /// the error is one sentence for the user. `fresh_seed` gives a seed when none is given;
    /// the default log folder is created here, so that no other run can take it.
    pub fn config(
        &self,
        fresh_seed: impl FnOnce() -> Result<u64, String>,
    ) -> Result<(MatchConfig, Master), String> {
        let bots = self.bot_specs()?;
        let logged = match &self.deal_from {
            Some(path) => Some(read_logged_deals(path, bots.len(), self.hand)?),
            None => None,
        };
        let base = logged.as_ref().map(|l| l.rules);
        let rules = self.game_options.rules(bots.len(), base)?;
        if self.games == 0 {
            return Err("--games must be at least 1".into());
        }
        // A logged game played again without --seed keeps the log's seed, public or not.
        let master = match (&logged, self.seeds.seed) {
            (Some(logged), None) => Master::untyped(logged.seed, logged.public_seed),
            _ => self.seeds.master(fresh_seed)?,
        };
        let seed = master.seed;
        let deals = match (&self.deal, logged) {
            (Some(path), _) => read_deals(path, &rules)?,
            (None, Some(logged)) => validated(logged.deals, &rules, "--deal-from")?.into(),
            (None, None) => Arc::from([]),
        };
        let mut settings = self.game_options.settings(rules, deals, Vec::new())?;
        settings.public_seed = master.public;
        let plan = self.plan(&rules, seed)?;
        let logs = match (&self.log, &self.log_dir) {
            (Some(_), _) if plan.len() > 1 => {
                return Err("--log writes one game; use --log-dir for a match of several".into());
            }
            // A bare file name is a file in the current folder (its parent is "").
            (Some(file), _) if file.parent() == Some(Path::new("")) => {
                LogTarget::File(Path::new(".").join(file))
            }
            (Some(file), _) => LogTarget::File(file.clone()),
            (None, Some(dir)) => LogTarget::Dir(dir.clone()),
            (None, None) => LogTarget::Dir(
                new_log_dir(Path::new(DEFAULT_LOGS), "match")
                    .map_err(|e| format!("cannot create a log folder in {DEFAULT_LOGS}: {e}"))?,
            ),
        };
        logs_free(&logs, &plan)?;
        // Created last, once every option is checked: a refused command leaves no folder.
        let folder = match &logs {
            LogTarget::File(file) => file.parent().unwrap_or(Path::new(".")).to_path_buf(),
            LogTarget::Dir(dir) => dir.clone(),
        };
        // Recorded for later runs to hide (an ordinary user's bots could read it otherwise).
        let written = match &logs {
            LogTarget::File(file) => file.clone(),
            LogTarget::Dir(dir) => dir.clone(),
        };
        outputs::register(&written);
        // A log file in a folder the bot may see (its own) is hidden on its own too.
        let mut hidden = hidden_with(folder);
        hidden.push(written);
        hidden.extend(self.seeds.key_file());
        settings.sandbox.hidden = outputs::compact(hidden);
        settings.sandbox.homes = bots.iter().flat_map(BotSpec::homes).collect();
        settings.processes = Processes::from_flags(self.fresh, self.reuse_processes);
        let config = MatchConfig {
            bots,
            seed,
            plan,
            logs,
            echo_stderr: self.verbose,
            settings,
        };
        Ok((config, master))
    }

    /// The table of a match: its bots are all distinct players (teams as given).
    pub fn table(&self, rules: &Rules) -> Table {
        Table {
            players: rules.players,
            teams: rules.teams,
            splits: true,
            all_orders: false,
        }
    }

    /// The games: all of them, or game `--game K` alone.
    fn plan(&self, rules: &Rules, seed: u64) -> Result<Plan, String> {
        let table = self.table(rules);
        let numbers = match self.game {
            Some(0) => return Err("--game counts from 1".into()),
            Some(k) => {
                let k = u32::try_from(k).map_err(|_| "--game is too large".to_string())?;
                k..=k
            }
            None => 1..=self.games,
        };
        let rotate = !self.no_rotate;
        let per_deal = match rotate {
            true => schedule::arrangements(&table).len() as u32,
            false => 1,
        };
        // A logged game played again keeps its own seed: later hands and builtin bots draw
        // from it as they did (the seed is then the game's, not a match's to derive from).
        let replayed = self.deal_from.is_some();
        Ok(Plan::new(numbers, per_deal, move |k| {
            let game = schedule::match_game(&table, seed, u64::from(k), rotate);
            PlannedGame {
                number: k,
                seed: if replayed { seed } else { game.seed },
                deal: game.deal,
                arrangement: game.arrangement,
                seating: game.seating,
            }
        }))
    }

    /// The bots, with names made unique ("greedy", "greedy#2").
    fn bot_specs(&self) -> Result<Vec<BotSpec>, String> {
        // Counted before any bot is looked for: five bots is the mistake to name, not the
        // first that is missing.
        if self.bots.len() > 4 {
            bot_count(self.bots.len())?;
        }
        let specs = entrants::entrants(self.bots_file.as_deref(), &self.bots)?;
        bot_count(specs.len())?;
        Ok(entrants::unique_names(specs))
    }

    /// Options that are accepted but would do nothing, and a match that stops within a set of
    /// seatings of a deal: each a sentence for the user. `players` is the number of bots.
    pub fn warnings(&self, players: usize) -> Vec<String> {
        let options = &self.game_options;
        let mut warnings = Vec::new();
        if options.max_faults != DEFAULT_MAX_FAULTS && options.on_fault != OnFault::Fallback {
            warnings.push(
                "--max-faults does nothing without --on-fault fallback (the first fault forfeits)"
                    .to_string(),
            );
        }
        if options.no_teams && players != 4 {
            warnings.push(format!(
                "--no-teams does nothing with {players} bots (partnerships need 4)"
            ));
        }
        let Ok(rules) = options.rules(players, None) else {
            return warnings;
        };
        let set = schedule::arrangements(&self.table(&rules)).len() as u32;
        let cut = self.games > 1 && self.game.is_none() && !self.games.is_multiple_of(set);
        if cut && !self.no_rotate {
            warnings.push(format!(
                "{} games leave the last deal without all its {set} seatings: play a multiple \
                 of {set} games for duplicate play",
                self.games
            ));
        }
        warnings
    }
}

/// Whether `n` bots make a match, as one sentence if not.
fn bot_count(n: usize) -> Result<(), String> {
    match n {
        0 | 1 => Err(format!("a match needs at least 2 bots, not {n}")),
        2..=4 => Ok(()),
        n => Err(format!("a match takes at most 4 bots, not {n}")),
    }
}

/// Checks, before any game, that no game's log exists already (logs are never overwritten):
/// else the match would stop at that game, after playing those before it.
fn logs_free(logs: &LogTarget, plan: &Plan) -> Result<(), String> {
    let taken = match logs {
        LogTarget::File(file) => std::fs::symlink_metadata(file)
            .is_ok()
            .then(|| file.clone()),
        LogTarget::Dir(dir) if !dir.exists() => None,
        LogTarget::Dir(dir) if !dir.is_dir() => {
            return Err(format!(
                "--log-dir {} is a file, not a folder: name a folder (it is created if absent), or use --log FILE for one game",
                dir.display()
            ));
        }
        LogTarget::Dir(dir) => plan
            .games(0)
            .map(|g| dir.join(format!("game-{}.jsonl", g.number)))
            .find(|log| std::fs::symlink_metadata(log).is_ok()),
    };
    match taken {
        Some(log) => Err(format!(
            "{} exists already (logs are never overwritten): name a new --log-dir or --log, \
             or remove it",
            log.display()
        )),
        None => Ok(()),
    }
}

/// `--turn`'s value: `K`, `fault` or `fault:K` (K from 1).
fn wanted_turn(value: &str) -> Result<Wanted, String> {
    let number = |k: &str| {
        k.parse::<u32>().ok().filter(|&k| k > 0).ok_or_else(|| {
            format!("'{value}' is not K, fault or fault:K (K a whole number from 1)")
        })
    };
    match value.strip_prefix("fault") {
        Some("") => Ok(Wanted::Fault(1)),
        Some(rest) => rest.strip_prefix(':').map_or_else(
            || {
                Err(format!(
                    "'{value}' is not K, fault or fault:K (K a whole number from 1)"
                ))
            },
            |k| number(k).map(Wanted::Fault),
        ),
        None => number(value).map(Wanted::Turn),
    }
}

/// Where `match` keeps its logs unless told.
pub const DEFAULT_LOGS: &str = "allfives-logs";
/// Where tournament folders go by default.
pub const DEFAULT_TOURNAMENTS: &str = "allfives-tournaments";

/// What bots may not read: `folder` (a run's logs or results), the default folders of past
/// matches and tournaments here, the run folders beside this one, whatever this run's folder.
/// The registry of earlier runs is read per bot, for what lies where it sees
/// ([`crate::sandbox::Policy::grants`]): none of it here, so no run looks at every earlier one.
pub fn hidden_with(folder: PathBuf) -> Vec<PathBuf> {
    let defaults = [DEFAULT_LOGS, DEFAULT_TOURNAMENTS].map(PathBuf::from);
    let earlier = outputs::beside(&folder);
    let hidden = std::iter::once(folder)
        .chain(defaults.into_iter().filter(|d| d.exists()))
        .chain(earlier)
        .collect();
    outputs::compact(hidden)
}

/// Creates and returns a new folder `STEM-N` in `parent` (the first N free): creating it is the
/// claim, so two runs at once never share one, and no folder is ever used twice.
pub fn new_log_dir(parent: &Path, stem: &str) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::create_dir_all(parent)?;
    for n in 1u32.. {
        let dir = parent.join(format!("{stem}-{n}"));
        // Readable by the user only, as every log folder (docs/fair-play.md).
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!("every {stem}-N is taken")))
}

/// The deals, each checked against the rules.
fn validated(deals: Vec<Deal>, rules: &Rules, source: &str) -> Result<Vec<Deal>, String> {
    // As a deal file: deals no game could play are refused, never dropped.
    let most = rules.max_hands as usize;
    if deals.len() > most {
        return Err(format!("{source}: {}", never_played(most)));
    }
    for (i, deal) in deals.iter().enumerate() {
        deal.validate(rules)
            .map_err(|e| format!("{source}, deal {}: {e}", i + 1))?;
    }
    Ok(deals)
}

/// What `--deal-from` takes from a logged game.
struct LoggedDeals {
    rules: Rules,
    seed: u64,
    public_seed: bool,
    deals: Vec<Deal>,
}

/// Reads a game log, checks it, and takes its deals from hand `from` (default 1) on.
fn read_logged_deals(
    path: &std::path::Path,
    players: usize,
    from: Option<u32>,
) -> Result<LoggedDeals, String> {
    let shown = path.display();
    let text = crate::input::read_text(path, crate::input::MAX_LOG_BYTES)
        .map_err(|e| format!("cannot read log {shown}: {e}"))?;
    let replay =
        crate::gamelog::replay(&text).map_err(|e| format!("{shown} does not check out: {e}"))?;
    let rules = replay.header.rules;
    if rules.players != players {
        return Err(format!(
            "{shown} is a game of {} players: give {} bots",
            rules.players, rules.players
        ));
    }
    let deals = replay.deals();
    let from = from.unwrap_or(1);
    if from == 0 || from as usize > deals.len() {
        return Err(format!(
            "--hand {from}: {shown} has hands 1 to {}",
            deals.len()
        ));
    }
    Ok(LoggedDeals {
        rules,
        seed: replay.header.seed,
        public_seed: replay.header.public_seed,
        deals: deals[from as usize - 1..].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command line's defaults are the engine's: `match` with no rule option plays
    /// `Rules::new` for every number of bots.
    #[test]
    fn the_default_rules_are_the_engines() {
        for players in 2..=4 {
            let mut args = vec!["allfives", "match", "--log", "/nonexistent/x.jsonl"];
            args.extend(std::iter::repeat_n("builtin:random", players));
            let Command::Match(parsed) = Cli::try_parse_from(args).expect("it parses").command
            else {
                panic!("not a match");
            };
            let rules = parsed
                .game_options
                .rules(players, None)
                .expect("valid rules");
            assert_eq!(rules, Rules::new(players));
            assert!(parsed.warnings(players).is_empty());
        }
    }
}
