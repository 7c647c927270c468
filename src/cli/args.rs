//! The command line: raw arguments (clap) and their checking into a [`MatchConfig`].

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::bot::clock::{ClockKind, Clocks, DEFAULT_MOVE_MS, DEFAULT_STARTUP_MS};
use crate::bot::player::{BotSpec, tell_apart};
use crate::cli::commands::BAD_INPUT;
use crate::placement::Placement;
use crate::referee::game::FaultPolicy;
use crate::referee::matchplay::{LogTarget, MatchConfig};
use crate::sandbox::{Policy, ResourceLimits};
use allfives_engine::deal::Deal;
use allfives_engine::protocol::MAX_BOT_LINE;
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
    Cli::try_parse().map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            e.exit_code() as u8
        }
        _ => {
            eprintln!("allfives: {}", one_line(&e));
            BAD_INPUT
        }
    })
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

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play one game, or a match of several, between 2 to 4 bots.
    Match(MatchArgs),
    /// Replay a game log through the rules engine, check every score, and print the game.
    Replay(ReplayArgs),
    /// Check that a bot speaks the protocol: a scripted conversation, PASS or FAIL per step.
    Check(CheckArgs),
    /// Print the JSON Schema of every protocol message, both ways.
    Schema,
    /// Print the completion script of a shell for allfives.
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of allfives or of one of its commands.
    Man(ManArgs),
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

/// `allfives check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The bot: a path to an executable, a quoted command line, or `builtin:NAME`.
    pub bot: String,
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
    /// The most data memory, in MiB, each bot process may use [default: no limit].
    #[arg(long, value_name = "MIB")]
    pub bot_memory: Option<u64>,
    /// The most processes and threads each bot may run at once (not enforced for root)
    /// [default: no limit].
    #[arg(long, value_name = "N")]
    pub bot_processes: Option<u64>,
}

impl SandboxArgs {
    /// The policy, with `hidden` (the logs) out of every bot's reach.
    pub fn policy(&self, hidden: Vec<PathBuf>) -> Result<Policy, String> {
        if self.bot_memory == Some(0) || self.bot_processes == Some(0) {
            return Err("--bot-memory and --bot-processes must be above 0".into());
        }
        Ok(Policy {
            enabled: !self.no_sandbox,
            network: self.bot_network,
            limits: ResourceLimits {
                memory: self.bot_memory.map(|mib| mib << 20),
                processes: self.bot_processes,
            },
            hidden,
        })
    }
}

/// `allfives replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The game log (a .jsonl file written by `allfives match`).
    pub log: PathBuf,
    /// Print only the check's verdict, not the game.
    #[arg(long)]
    pub quiet: bool,
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
    /// Each player's own pips left, rounded, come off its side's score.
    Penalty,
    /// The hand's winner scores the opponents' pips left, rounded once.
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
    /// The bots, 2 to 4: `builtin:random`, `builtin:greedy`, a path to an executable, or a
    /// quoted command line such as "python3 sample_bots/python/greedy_bot.py".
    // Counted in `config`, so that too many bots get a sentence naming the rule.
    #[arg(required = true, num_args = 1.., value_name = "BOT")]
    pub bots: Vec<String>,
    /// How many games; the seats rotate from game to game.
    #[arg(long, short = 'g', value_name = "N", default_value_t = 1)]
    pub games: u32,
    /// The match seed [default: a fresh one, printed and logged].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// A JSON file with the deal of the first hand, or an array of deals for the first hands
    /// [default: deals drawn from the seed].
    #[arg(long, value_name = "FILE")]
    pub deal: Option<PathBuf>,
    /// With 4 bots: partnerships, seats 0 and 2 against 1 and 3 [default with 4 bots].
    #[arg(long, overrides_with = "no_teams")]
    pub teams: bool,
    /// With 4 bots: every player for themselves.
    #[arg(long)]
    pub no_teams: bool,
    /// Tiles dealt to each player [default: 9 with 2 players, 7 with 3, 5 with 4].
    #[arg(long, value_name = "N")]
    pub hand_size: Option<usize>,
    /// Which doubles spin.
    #[arg(long, value_enum, value_name = "RULE", default_value_t = SpinnerArg::First)]
    pub spinner: SpinnerArg,
    /// End-of-hand scoring.
    #[arg(long, value_enum, value_name = "RULE", default_value_t = HandEndArg::Penalty)]
    pub hand_end: HandEndArg,
    /// The winning score [default: 250 with 2 players, 200 with 3 or 4].
    #[arg(long, value_name = "POINTS", allow_negative_numbers = true)]
    pub target: Option<i32>,
    /// When reaching the target ends the game.
    #[arg(long, value_enum, value_name = "RULE", default_value_t = FinishArg::Immediate)]
    pub finish: FinishArg,
    /// The most hands a game may last.
    #[arg(long, value_name = "N", default_value_t = Rules::new(2).max_hands)]
    pub max_hands: u32,
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
    /// Write the game's log to FILE (a one-game match) [default: a file in --log-dir's folder].
    #[arg(long, value_name = "FILE", conflicts_with = "log_dir")]
    pub log: Option<PathBuf>,
    /// Write each game's log to DIR/game-N.jsonl [default: allfives-logs/match-SEED].
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// Print one JSON object with the whole result instead of text.
    #[arg(long)]
    pub json: bool,
    /// Start a fresh process for every game (by default one process a bot serves the match).
    #[arg(long)]
    pub fresh: bool,
    /// Keep every bot in the seat given (by default the seats rotate from game to game).
    #[arg(long)]
    pub no_rotate: bool,
    /// Echo the bots' stderr to the terminal, each line prefixed with the bot's name, and say
    /// which protections are in force.
    #[arg(long, short = 'v')]
    pub verbose: bool,
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
    /// Where the match runs: `same-core` holds one CPU for the referee and its bots (fastest
    /// for bots that think only when asked); `free` lets the scheduler place each process (for
    /// bots that think on their opponent's time or use several threads).
    #[arg(long, value_enum, default_value_t = Placement::SameCore)]
    pub placement: Placement,
}

impl MatchArgs {
    /// Checks the arguments and builds the match; the error is one sentence for the user.
    pub fn config(&self, fresh_seed: u64) -> Result<MatchConfig, String> {
        match self.bots.len() {
            0 | 1 => {
                return Err(format!(
                    "a match needs at least 2 bots, not {}",
                    self.bots.len()
                ));
            }
            2..=4 => {}
            n => return Err(format!("a match takes at most 4 bots, not {n}")),
        }
        let bots = self.bot_specs()?;
        let rules = self.rules(bots.len())?;
        if self.games == 0 {
            return Err("--games must be at least 1".into());
        }
        let clocks = Clocks::from_ms(self.startup_ms, self.move_ms, self.bank_ms, self.clock)?;
        if self.max_faults == 0 {
            return Err("--max-faults must be at least 1".into());
        }
        if self.max_line < 64 {
            return Err("--max-line must be at least 64 bytes".into());
        }
        let seed = self.seed.unwrap_or(fresh_seed);
        let logs = match (&self.log, &self.log_dir) {
            (Some(_), _) if self.games > 1 => {
                return Err("--log writes one game; use --log-dir for a match of several".into());
            }
            (Some(file), _) => LogTarget::File(file.clone()),
            (None, Some(dir)) => LogTarget::Dir(dir.clone()),
            (None, None) => LogTarget::Dir(PathBuf::from(format!("allfives-logs/match-{seed}"))),
        };
        let hidden = match &logs {
            LogTarget::File(file) => file.parent().unwrap_or(Path::new(".")).to_path_buf(),
            LogTarget::Dir(dir) => dir.clone(),
        };
        let sandbox = self.sandbox.policy(vec![hidden])?;
        let deals = match &self.deal {
            Some(path) => read_deals(path, &rules)?,
            None => Vec::new(),
        };
        Ok(MatchConfig {
            bots,
            rules,
            games: self.games,
            seed,
            rotate: !self.no_rotate,
            clocks,
            on_fault: match self.on_fault {
                OnFault::Forfeit => FaultPolicy::Forfeit,
                OnFault::Fallback => FaultPolicy::Fallback {
                    max_faults: self.max_faults,
                },
            },
            fresh: self.fresh,
            deals,
            logs,
            echo_stderr: self.verbose,
            max_line: self.max_line,
            stderr_cap: 1024 * 1024,
            sandbox,
            protections: None,
        })
    }

    /// The bots, with names made unique ("greedy", "greedy#2").
    fn bot_specs(&self) -> Result<Vec<BotSpec>, String> {
        let specs = self
            .bots
            .iter()
            .map(|text| BotSpec::parse(text))
            .collect::<Result<Vec<_>, _>>()?;
        let names = tell_apart(specs.iter().map(|s| s.name.clone()));
        Ok(specs
            .into_iter()
            .zip(names)
            .map(|(spec, name)| spec.renamed(name))
            .collect())
    }

    /// Options that are accepted but would do nothing, and a match whose deals are not all
    /// played from every seat: each a sentence for the user.
    pub fn warnings(&self) -> Vec<String> {
        let players = self.bots.len();
        let mut warnings = Vec::new();
        if self.max_faults != DEFAULT_MAX_FAULTS && self.on_fault != OnFault::Fallback {
            warnings.push(
                "--max-faults does nothing without --on-fault fallback (the first fault forfeits)"
                    .to_string(),
            );
        }
        if self.no_teams && players != 4 {
            warnings.push(format!(
                "--no-teams does nothing with {players} bots (partnerships need 4)"
            ));
        }
        let rounds_cut = self.games > 1 && !self.games.is_multiple_of(players as u32);
        if rounds_cut && !self.no_rotate {
            warnings.push(format!(
                "{} games with {players} bots leave the last deal without all its seatings: \
                 play a multiple of {players} games for duplicate play",
                self.games
            ));
        }
        warnings
    }

    fn rules(&self, players: usize) -> Result<Rules, String> {
        let mut rules = Rules::new(players);
        if self.teams && players != 4 {
            return Err(format!("--teams needs 4 bots, not {players}"));
        }
        if self.no_teams {
            rules.teams = false;
        }
        rules.hand_size = self.hand_size.unwrap_or(rules.hand_size);
        rules.spinner = self.spinner.into();
        rules.hand_end = self.hand_end.into();
        rules.target = self.target.unwrap_or(rules.target);
        rules.finish = self.finish.into();
        rules.max_hands = self.max_hands;
        rules.validate().map_err(|e| e.to_string())?;
        Ok(rules)
    }
}

/// Reads a deal file: one deal, or an array of deals for the first hands.
pub fn read_deals(path: &std::path::Path, rules: &Rules) -> Result<Vec<Deal>, String> {
    let shown = path.display();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read deal file {shown}: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("deal file {shown} is not JSON: {e}"))?;
    let deals: Vec<Deal> = match value {
        serde_json::Value::Array(_) => serde_json::from_value(value),
        _ => serde_json::from_value(value).map(|d| vec![d]),
    }
    .map_err(|e| format!("deal file {shown}: {e}"))?;
    for (i, deal) in deals.iter().enumerate() {
        deal.validate(rules)
            .map_err(|e| format!("deal file {shown}, deal {}: {e}", i + 1))?;
    }
    Ok(deals)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command line's defaults are the engine's: `match` with no rule option plays
    /// `Rules::new` for every number of bots.
    #[test]
    fn the_default_rules_are_the_engines() {
        for players in 2..=4 {
            let mut args = vec!["allfives", "match"];
            args.extend(std::iter::repeat_n("builtin:random", players));
            let Command::Match(parsed) = Cli::try_parse_from(args).expect("it parses").command
            else {
                panic!("not a match");
            };
            let config = parsed.config(1).expect("a valid match");
            assert_eq!(config.rules, Rules::new(players));
            assert!(parsed.warnings().is_empty());
        }
    }
}
