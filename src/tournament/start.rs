//! A tournament's definition asked for: a new one built from the settings given, or the one a
//! folder stores continued, every stored setting given again checked against it. A run that
//! cannot start is a [`Refusal`], one sentence each. The settings are the library's own
//! ([`Asked`], [`Kept`]); the command line converts its arguments into them.

use std::fmt;
use std::path::{Path, PathBuf};

use allfives_engine::rules::Rules;

use crate::bot::clock::ClockKind;
use crate::bot::player::BotSpec;
use crate::referee::game::FaultPolicy;
use crate::referee::matchplay::GameSettings;
use crate::sandbox::files;
use crate::tournament::definition::{self, Definition, EntrantDef};
use crate::tournament::folder::{self, HeldFolder};
use crate::tournament::ladder::LadderSpec;
use crate::tournament::ratings::SprtSpec;
use crate::tournament::results::{self, RESULTS};
use crate::tournament::schedule::{Format, Table};
use crate::tournament::seeds::Master;

/// What a run asks for, in the library's terms.
pub struct Asked<'a> {
    /// The folder asked for, if one was (else a new one is made).
    pub out: Option<PathBuf>,
    /// Continue the tournament the folder stores.
    pub resume: bool,
    /// The entrants given (a gauntlet's challenger first).
    pub given: Vec<BotSpec>,
    /// How every game is played.
    pub settings: GameSettings,
    /// How the seats are filled.
    pub table: Table,
    /// Who meets whom.
    pub format: Format,
    /// Deals for every group (`None`: 10, or the stored number).
    pub deals: Option<u64>,
    /// This run's shard `(i, n)`, if any.
    pub shard: Option<(u64, u64)>,
    /// Where the shard came from when the environment gave it (`--shard auto`), for a refusal.
    pub shard_from: Option<String>,
    /// A sequential test.
    pub sprt: Option<SprtSpec>,
    /// Pack the logs of the games played.
    pub pack_logs: bool,
    /// A ladder's budget in games in all, or for each entrant.
    pub games: Option<u64>,
    /// A ladder's budget for every entrant still in.
    pub games_each: Option<u64>,
    /// A ladder's tables chosen to settle the ratings fastest.
    pub matchmaking: bool,
    /// Entrants to retire from a ladder.
    pub retire: Vec<String>,
    /// Entrants the bots file marks retired.
    pub retired: Vec<String>,
    /// The first ladder option given, if any (its flag).
    pub ladder_flag: Option<&'static str>,
    /// A gauntlet's challenger named.
    pub challenger: Option<String>,
    /// The settings with a default given explicitly, which a resume must find as stored, each
    /// with its name for the refusal (`--move-ms`).
    pub typed: Vec<(String, Kept)>,
    /// What only the caller can work out (rules and seeds from its options and key files).
    pub caller: &'a dyn Caller,
}

impl Asked<'_> {
    /// The folder as given, for the refusals.
    fn shown(&self) -> String {
        self.out
            .as_deref()
            .map_or(String::new(), |d| d.display().to_string())
    }
}

/// What only the caller can work out, and only when it is needed: a deal key may have to be
/// read or made.
pub trait Caller {
    /// The rules the options ask for, over the stored `rules`.
    fn rules_over(&self, rules: Rules) -> Result<Rules, String>;
    /// A new tournament's master seed.
    fn master(&self) -> Result<Master, String>;
    /// Whether every run with these seeds makes the same master (what shards need).
    fn reproducible(&self) -> bool;
    /// The seed option (its flag) that names a master other than `stored`'s, if any.
    fn seed_changed(&self, stored: &Definition) -> Option<&'static str>;
}

/// A setting with a default, given explicitly with its value: a resume keeps the stored one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kept {
    /// `--startup-ms`.
    StartupMs(u64),
    /// `--move-ms`.
    MoveMs(u64),
    /// `--bank-ms`.
    BankMs(u64),
    /// `--clock`.
    Clock(ClockKind),
    /// `--on-fault`: true for `fallback`.
    OnFault(bool),
    /// `--max-faults`.
    MaxFaults(u32),
    /// `--max-line`.
    MaxLine(usize),
    /// `--players`.
    Players(usize),
    /// `--format`.
    Format(Format),
    /// `--splits`.
    Splits(bool),
    /// `--all-orders`.
    AllOrders(bool),
}

impl Kept {
    /// True when `stored` keeps another value.
    fn differs(self, stored: &Definition) -> bool {
        let (fallback, max_faults) = match stored.on_fault {
            FaultPolicy::Forfeit => (false, None),
            FaultPolicy::Fallback { max_faults } => (true, Some(max_faults)),
        };
        match self {
            Kept::StartupMs(ms) => ms != stored.clock.startup_ms,
            Kept::MoveMs(ms) => ms != stored.clock.move_ms,
            Kept::BankMs(ms) => ms != stored.clock.bank_ms,
            Kept::Clock(kind) => kind != stored.clock_kind,
            Kept::OnFault(given) => given != fallback,
            Kept::MaxFaults(n) => Some(n) != max_faults,
            Kept::MaxLine(bytes) => bytes != stored.max_line,
            Kept::Players(n) => n != stored.table.players,
            Kept::Format(format) => format != stored.format,
            Kept::Splits(on) => on != stored.table.splits,
            Kept::AllOrders(on) => on != stored.table.all_orders,
        }
    }
}

/// Why a run cannot start as asked.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The folder holds a tournament, and no resume was asked.
    HoldsOne {
        /// The folder.
        dir: String,
    },
    /// A resume of a folder that holds no tournament.
    NothingToResume {
        /// The folder.
        dir: String,
    },
    /// A resume under other rules than the stored ones.
    OtherRules {
        /// The folder.
        dir: String,
        /// The stored rules.
        rules: Rules,
    },
    /// A resume with settings other than the stored ones.
    OtherSettings {
        /// The folder.
        dir: String,
        /// The options that differ.
        flags: Vec<String>,
    },
    /// A resume with another sequential test.
    OtherTest {
        /// The folder.
        dir: String,
        /// The stored test.
        stored: Option<SprtSpec>,
    },
    /// A shard's folder that holds another tournament.
    OtherTournament {
        /// The folder.
        dir: String,
        /// What differs, in words.
        what: Vec<String>,
    },
    /// A shard's folder that holds another shard of the tournament (or the whole of it).
    OtherShard {
        /// The folder.
        dir: String,
        /// The shard stored there (`None`: the whole tournament).
        stored: Option<(u64, u64)>,
        /// The shard asked for.
        asked: (u64, u64),
        /// Where the environment gave it from, with `--shard auto`.
        from: Option<String>,
    },
    /// Any other check failed, in one sentence.
    Other(String),
}

/// Why a shard must be given the seed and the key (or a public seed).
const SHARD_SEEDS: &str = "--shard needs the deals every shard shares: --seed N with --deal-key FILE (one key file for all shards), or --seed N --public-seed";

impl From<String> for Refusal {
    fn from(sentence: String) -> Refusal {
        Refusal::Other(sentence)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::HoldsOne { dir } => write!(
                f,
                "{dir} holds a tournament already: add --resume to continue it, or choose another --out"
            ),
            Refusal::NothingToResume { dir } => write!(f, "{dir} holds no tournament to resume"),
            Refusal::OtherRules { dir, rules } => write!(
                f,
                "{dir} holds a tournament played under other rules ({rules}); --resume keeps them: drop the rule options, or start a new tournament with another --out"
            ),
            Refusal::OtherSettings { dir, flags } => {
                let (verb, it) = match flags.len() {
                    1 => ("differs", "it"),
                    _ => ("differ", "them"),
                };
                write!(
                    f,
                    "{dir} holds a tournament played with other settings: {} {verb} from its tournament.json; --resume keeps those: drop {it}, or start a new tournament with another --out",
                    flags.join(", ")
                )
            }
            Refusal::OtherTest { dir, stored } => write!(
                f,
                "{dir} holds a tournament with {}; --resume keeps its test: drop --sprt, or start a new tournament with another --out",
                stored.map_or("no sequential test".to_string(), |s| format!(
                    "the sequential test elo0={},elo1={},alpha={},beta={}",
                    s.elo0, s.elo1, s.alpha, s.beta
                ))
            ),
            Refusal::OtherTournament { dir, what } => write!(
                f,
                "{dir} holds another tournament (what differs from this run's: {}): a shard's folder is continued only by the same shard of the same tournament; choose another --out",
                what.join("; ")
            ),
            Refusal::OtherShard {
                dir,
                stored,
                asked: (i, n),
                from,
            } => write!(
                f,
                "{dir} holds {}, and this run is shard {i}/{n}{}: give each shard a folder of its own (e.g. --out DIR/shard-$SLURM_ARRAY_TASK_ID)",
                stored.map_or(
                    "a whole tournament, not a shard".to_string(),
                    |(i, n)| format!("shard {i}/{n} of this tournament")
                ),
                from.as_ref()
                    .map_or(String::new(), |from| format!(" (--shard auto: {from})"))
            ),
            Refusal::Other(sentence) => f.write_str(sentence),
        }
    }
}

/// Lays out a tournament's folder `dir` for `definition`: the definition first (a folder
/// without one holds nothing but leftovers of a start), then the folders of its logs.
pub fn lay_out(definition: &Definition, dir: &Path) -> Result<(), String> {
    definition
        .write(dir)
        .map_err(|e| format!("cannot write the definition in {}: {e}", dir.display()))?;
    for sub in folder::SUBFOLDERS {
        let path = dir.join(sub);
        files::create_private_dir(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The definition asked for: a new tournament's, or the stored one continued, checked against
/// what the folder holds.
pub fn define(
    asked: &Asked<'_>,
    held: Option<&HeldFolder>,
    notes: &mut Vec<String>,
) -> Result<Definition, Refusal> {
    let (given, settings, table) = (&asked.given[..], &asked.settings, asked.table);
    // Up front, whatever the folder holds: a shard's first run and every rerun of its command
    // need the deals that every shard shares.
    if asked.shard.is_some() && !asked.resume && !asked.caller.reproducible() {
        return Err(Refusal::Other(SHARD_SEEDS.into()));
    }
    let stored = match held {
        Some(held) => stored_definition(held, asked.resume, notes)?,
        None => None,
    };
    // A ladder's tables each have a deal of their own: its definition keeps 1.
    let deals = match asked.format {
        Format::Ladder => 1,
        _ => asked.deals.unwrap_or(10),
    };
    let definition = match (stored, asked.resume) {
        (Some(stored), false) if asked.shard.is_some() => same_shard(asked, &stored, deals, notes)?,
        (Some(_), false) => {
            return Err(Refusal::HoldsOne { dir: asked.shown() });
        }
        (None, true) => {
            return Err(Refusal::NothingToResume { dir: asked.shown() });
        }
        (Some(stored), true) => {
            let wanted = Definition::new(
                given,
                settings,
                (asked.format, table, deals),
                Master::untyped(0, false),
                None,
            );
            match stored.format {
                Format::Ladder => ladder_resumed(asked, &stored, wanted.entrants, notes)?,
                other => {
                    if let Some(flag) = asked.ladder_flag {
                        return Err(Refusal::Other(format!(
                            "{} holds a {}: {flag} is for a ladder",
                            asked.shown(),
                            other.name()
                        )));
                    }
                    resumed(asked, &stored, wanted.entrants, notes)?
                }
            }
        }
        (None, false) => first_run(asked, deals)?,
    };
    if definition.sprt.is_some() {
        SprtSpec::applies_to(definition.entrants.len(), definition.table.players)?;
        if definition.shard.is_some() {
            return Err(Refusal::Other(
                "--sprt stops the one run that plays its pairs, in the order they finish: it cannot be split with --shard; drop one of them".to_string(),
            ));
        }
    }
    let bots = definition.bots()?;
    distinct_names(&bots)?;
    if definition.schedule().groups.is_empty() {
        return Err(Refusal::Other(format!(
            "{} entrants cannot fill a {} with {} players",
            bots.len(),
            definition.format.name(),
            definition.table.players
        )));
    }
    Ok(definition)
}

/// A new tournament's definition, as asked.
fn first_run(asked: &Asked<'_>, deals: u64) -> Result<Definition, Refusal> {
    let master = asked.caller.master()?;
    let mut definition = Definition::new(
        &asked.given,
        &asked.settings,
        (asked.format, asked.table, deals),
        master,
        asked.shard,
    );
    definition.sprt = asked.sprt;
    definition.pack_logs = asked.pack_logs;
    definition.ladder = ladder_spec(asked);
    definition.retired = asked.retired.clone();
    if let Some(name) = definition.retired.first()
        && asked.format != Format::Ladder
    {
        return Err(Refusal::Other(format!(
            "the bots file marks {name} retired: only a ladder (--format ladder) retires entrants"
        )));
    }
    Ok(definition)
}

/// A shard's folder that holds a tournament already: one command starts a shard and continues
/// it (a requeued task runs it again), so the folder is continued, as `--resume` would, when
/// it holds this shard of the tournament this run would start; anything else is refused,
/// naming what differs.
fn same_shard(
    asked: &Asked<'_>,
    stored: &Definition,
    deals: u64,
    notes: &mut Vec<String>,
) -> Result<Definition, Refusal> {
    let dir = asked.shown();
    let fresh = first_run(asked, deals)?;
    let asked_shard = fresh.shard.expect("a shard run has its shard");
    // A folder that is no shard is not blamed for its entrants: it is no shard's to continue.
    if stored.shard.is_none() {
        return Err(Refusal::OtherShard {
            dir,
            stored: None,
            asked: asked_shard,
            from: asked.shard_from.clone(),
        });
    }
    let what = fresh.differences(stored);
    if !what.is_empty() {
        return Err(Refusal::OtherTournament { dir, what });
    }
    if stored.shard != fresh.shard {
        return Err(Refusal::OtherShard {
            dir,
            stored: stored.shard,
            asked: asked_shard,
            from: asked.shard_from.clone(),
        });
    }
    let (i, n) = asked_shard;
    notes.push(format!(
        "{dir} holds shard {i}/{n} of this tournament: continued (the same command starts a shard and continues it)"
    ));
    match stored.format {
        Format::Ladder => ladder_resumed(asked, stored, fresh.entrants, notes),
        _ => resumed(asked, stored, fresh.entrants, notes),
    }
}

/// The ladder asked for by a first run.
fn ladder_spec(asked: &Asked<'_>) -> Option<LadderSpec> {
    (asked.format == Format::Ladder).then_some(LadderSpec {
        games: asked.games,
        games_each: asked.games_each,
        matchmaking: asked.matchmaking,
    })
}

/// A stored ladder continued: the stored settings as for a tournament; entrants given that are
/// stored must be as stored, the others join; `--retire` names leave the draw; a budget or
/// `--matchmaking` given replaces the stored one.
fn ladder_resumed(
    asked: &Asked<'_>,
    stored: &Definition,
    given: Vec<EntrantDef>,
    notes: &mut Vec<String>,
) -> Result<Definition, Refusal> {
    let dir = asked.shown();
    if asked.deals.is_some() {
        return Err(Refusal::Other(format!(
            "{dir} holds a ladder, whose tables each have a deal of their own: drop --deals (--games or --games-each raise its budget)"
        )));
    }
    let mut definition = resumed(asked, stored, Vec::new(), notes)?;
    let mut added = Vec::new();
    for entrant in given {
        match stored.entrants.iter().find(|e| e.name == entrant.name) {
            Some(old) if !old.same_as(&entrant) => {
                return Err(Refusal::Other(format!(
                    "{dir} holds a ladder whose entrant {} differs from this one: {}; a new version needs a new name (and --retire {} to replace it)",
                    old.name,
                    entrant.differences(old).join(", "),
                    old.name
                )));
            }
            Some(_) => {}
            None => {
                added.push(entrant.name.clone());
                definition.entrants.push(entrant);
            }
        }
    }
    if !added.is_empty() {
        notes.push(format!("entrants added: {}", added.join(", ")));
    }
    for name in asked.retire.iter().chain(&asked.retired) {
        if !definition.entrants.iter().any(|e| e.name == *name) {
            let names: Vec<&str> = definition
                .entrants
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            return Err(Refusal::Other(format!(
                "--retire {name}: no entrant of {dir} has that name (the entrants: {})",
                names.join(", ")
            )));
        }
        if !definition.retired.contains(name) {
            definition.retired.push(name.clone());
            notes.push(format!(
                "{name} retired: no longer drawn, kept in the standings"
            ));
        }
    }
    let mut spec = definition.ladder.expect("a stored ladder has its budget");
    if asked.games.is_some() || asked.games_each.is_some() {
        budget_above_played(asked, &spec)?;
        spec.games = asked.games;
        spec.games_each = asked.games_each;
    }
    spec.matchmaking |= asked.matchmaking;
    definition.ladder = Some(spec);
    Ok(definition)
}

/// Refuses a ladder's budget in games below the games its folder holds: the budget would stand
/// in `tournament.json` while the folder holds more.
fn budget_above_played(asked: &Asked<'_>, stored: &LadderSpec) -> Result<(), Refusal> {
    let (Some(budget), Some(dir)) = (asked.games, asked.out.as_deref()) else {
        return Ok(());
    };
    let path = dir.join(RESULTS);
    let played = results::whole_lines(&path)
        .map_err(|e| Refusal::Other(format!("cannot read {}: {e}", path.display())))?;
    if budget >= played {
        return Ok(());
    }
    let keep = stored.games.map_or(String::new(), |games| {
        format!(", or drop --games to keep its budget of {games}")
    });
    Err(Refusal::Other(format!(
        "--games {budget} is below the {played} games {} holds already: give more than {played} to play on{keep}",
        asked.shown()
    )))
}

/// The definition stored in a held folder, if any. A start cut short (a kill or a full disk
/// before `tournament.json` was in place) is resumed from its whole `tournament.json.new`, or
/// cleaned for a new run; anything else in a folder without a definition is refused.
fn stored_definition(
    held: &HeldFolder,
    resume: bool,
    notes: &mut Vec<String>,
) -> Result<Option<Definition>, Refusal> {
    if let Some(stored) = Definition::read(&held.dir)? {
        return Ok(Some(stored));
    }
    if resume && let Some(recovered) = Definition::recover(&held.dir) {
        notes.push(format!(
            "recovered {} from the tournament.json.new of a run stopped as it started",
            held.dir.join(definition::FILE).display()
        ));
        return Ok(Some(recovered));
    }
    notes.extend(held.clean_cut_start());
    if !held.is_empty() {
        return Err(Refusal::Other(format!(
            "{} is not empty and holds no tournament (no {}): choose another --out",
            held.dir.display(),
            definition::FILE
        )));
    }
    Ok(None)
}

/// The stored tournament continued: every stored setting typed again must say what is stored;
/// more deals and more entrants are honoured with a note.
fn resumed(
    asked: &Asked<'_>,
    stored: &Definition,
    given: Vec<EntrantDef>,
    notes: &mut Vec<String>,
) -> Result<Definition, Refusal> {
    let dir = asked.shown();
    // A rule option given anew must say what is stored: the games already played were played
    // under the stored rules, and a change would mix two tournaments.
    let rules = asked.caller.rules_over(stored.rules)?;
    if rules != stored.rules {
        return Err(Refusal::OtherRules {
            dir,
            rules: stored.rules,
        });
    }
    let changed = changed_settings(asked, stored);
    if !changed.is_empty() {
        return Err(Refusal::OtherSettings {
            dir,
            flags: changed,
        });
    }
    if asked.sprt.is_some() && asked.sprt != stored.sprt {
        return Err(Refusal::OtherTest {
            dir,
            stored: stored.sprt,
        });
    }
    if let Some(name) = &asked.challenger
        && (stored.format != Format::Gauntlet || stored.entrants[0].name != *name)
    {
        return Err(Refusal::Other(format!(
            "{dir} holds a {} whose challenger is {}; --resume keeps it: drop --challenger",
            stored.format.name(),
            match stored.format {
                Format::Gauntlet => stored.entrants[0].name.clone(),
                _ => "none".to_string(),
            }
        )));
    }
    let mut definition = stored.clone();
    if !given.is_empty() {
        definition.entrants = given;
    }
    definition.deals = asked.deals.unwrap_or(stored.deals);
    if asked.pack_logs && !stored.pack_logs {
        definition.pack_logs = true;
        notes.push(
            "--pack-logs: the games played from now on have their logs packed; those already played keep theirs"
                .into(),
        );
    }
    definition
        .continues(stored)
        .map_err(|why| Refusal::Other(format!("{dir} holds another tournament: {why}")))?;
    // The stored entrants kept as they were written (their folders as spelled then): the
    // results' digests were made of them.
    let kept = stored.entrants.len().min(definition.entrants.len());
    definition
        .entrants
        .splice(..kept, stored.entrants[..kept].iter().cloned());
    if definition.deals > stored.deals {
        notes.push(format!(
            "--deals {} adds deals {} to {} to the stored {}",
            definition.deals,
            stored.deals,
            definition.deals - 1,
            stored.deals
        ));
    }
    if definition.entrants.len() > stored.entrants.len() && stored.shard.is_some() {
        // A shard is a slice of the sets of the groups stored: new groups would reslice them.
        return Err(Refusal::Other(format!(
            "{dir} holds a shard of a tournament: entrants can be added to a whole tournament only"
        )));
    }
    if definition.entrants.len() > stored.entrants.len() {
        let added: Vec<&str> = definition.entrants[stored.entrants.len()..]
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        notes.push(format!("entrants added: {}", added.join(", ")));
    }
    Ok(definition)
}

/// The settings typed with `--resume` whose values differ from the stored tournament's, by flag.
fn changed_settings(asked: &Asked<'_>, stored: &Definition) -> Vec<String> {
    let mut changed: Vec<String> = asked
        .typed
        .iter()
        .filter(|(_, kept)| kept.differs(stored))
        .map(|(flag, _)| flag.clone())
        .collect();
    if let Some(flag) = asked.caller.seed_changed(stored) {
        changed.push(flag.into());
    }
    if asked.shard.is_some() && asked.shard != stored.shard {
        changed.push("--shard".into());
    }
    if asked.deals.is_some_and(|deals| deals < stored.deals) {
        changed.push(format!("--deals (fewer than the stored {})", stored.deals));
    }
    changed
}

/// Moves the entrant called `name` first: a gauntlet's challenger is its first entrant.
pub fn challenger_first(
    given: &mut Vec<BotSpec>,
    name: &str,
    format: Format,
) -> Result<(), String> {
    if format != Format::Gauntlet {
        return Err("--challenger needs --format gauntlet".into());
    }
    let at = given.iter().position(|b| b.name == name).ok_or_else(|| {
        let names: Vec<&str> = given.iter().map(|b| b.name.as_str()).collect();
        format!(
            "--challenger {name}: no entrant has that name (the entrants: {})",
            names.join(", ")
        )
    })?;
    let challenger = given.remove(at);
    given.insert(0, challenger);
    Ok(())
}

/// Refuses two entrants of one name (a tournament's results refer to entrants by name).
fn distinct_names(specs: &[BotSpec]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::with_capacity(specs.len());
    for spec in specs {
        if !seen.insert(spec.name.as_str()) {
            return Err(format!(
                "two entrants are named '{}': name them with NAME=COMMAND or a bots file",
                spec.name
            ));
        }
    }
    Ok(())
}
