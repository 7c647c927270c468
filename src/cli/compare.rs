//! `allfives compare OLD NEW --against BOT... --deals N`: plays OLD and NEW, each as the
//! challenger of a gauntlet against the same opponents, into `OUT/old` and `OUT/new` with one
//! master seed (a deal key in `OUT`), so that both meet every deal in every seat with the same
//! `bot_seed`s (with `--sprt`, in rounds of deals until the test decides); or reads folders
//! already played (`--from`). Then [`crate::compare`] pairs the games and finds where they
//! part; this prints it and writes the page.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::bot::player::BotSpec;
use crate::cli::args::{GameArgs, RatingArgs, SeedArgs, TournamentArgs, new_log_dir};
use crate::cli::exit::{BAD_INPUT, FAILED, INTERRUPTED, fail, output_failed};
use crate::cli::output;
use crate::cli::tournament::play_tournament;
use crate::compare::folders::{self, Entrant};
use crate::compare::report::Report;
use crate::compare::summary::SequentialSpec;
use crate::placement::Placement;
use crate::tournament::schedule::Format;
use crate::tournament::seeds;

/// Where comparisons go unless `--out` says.
pub const DEFAULT_COMPARISONS: &str = "allfives-comparisons";

/// Deals played unless `--deals` says.
const DEFAULT_DEALS: u64 = 100;

/// Partings listed in the text output.
const LISTED: usize = 5;

/// `allfives compare`.
#[derive(Debug, Args)]
#[command(
    override_usage = "allfives compare [OPTIONS] <OLD> <NEW> --against <BOT>...\n       allfives compare [OPTIONS] --from <DIR> [DIR] [OLD NEW]"
)]
pub struct CompareArgs {
    /// OLD and NEW: the two versions, as `tournament` takes bots (`v2="python3 v2/bot.py"`;
    /// unnamed, they are named old and new). With --from, the names of the two entrants
    /// compared [default with two folders: each folder's first entrant].
    #[arg(value_name = "OLD NEW")]
    pub versions: Vec<String>,
    /// The opponents both versions meet, on every deal and seat arrangement, with the same
    /// seeds: builtins, or bots that reseed from `bot_seed` (one that does not splits the
    /// games; such pairs are counted and said).
    #[arg(long, num_args = 1.., value_name = "BOT", conflicts_with = "from")]
    pub against: Vec<String>,
    /// Compare games already played: a tournament folder holding both OLD and NEW, or two
    /// folders (OLD's, then NEW's) dealt from the same master seed (the same --seed and
    /// --deal-key, or --public-seed).
    #[arg(long, num_args = 1..=2, value_name = "DIR")]
    pub from: Vec<PathBuf>,
    /// Players at each table: 2, 3 or 4.
    #[arg(long, short = 'p', default_value_t = 2)]
    pub players: usize,
    /// Deals each version plays against each group of opponents, each in every seat
    /// arrangement that matters [default: 100].
    #[arg(long, value_name = "N", conflicts_with = "from")]
    pub deals: Option<u64>,
    /// The seed and the deal key the deals are made from [default: a fresh seed, its key kept
    /// in OUT/deal-key, so that both versions meet the same deals].
    #[command(flatten)]
    pub seeds: SeedArgs,
    /// Games played at once [default: the CPUs this process may run on].
    #[arg(long, short = 'j', value_name = "N")]
    pub concurrency: Option<usize>,
    /// Where the games run (as `tournament --placement`).
    #[arg(long, value_enum, default_value_t = Placement::SameCore)]
    pub placement: Placement,
    /// The comparison's folder: old/ and new/ (a tournament folder each), deal-key,
    /// compare.html [default: a new folder allfives-comparisons/compare-N].
    #[arg(long, value_name = "DIR", conflicts_with = "from")]
    pub out: Option<PathBuf>,
    /// Run the sequential test on the per-deal points difference: DELTA (H1's mean, in
    /// points per deal; H0's is 0) or delta=D,alpha=A,beta=B (0.05 each unless given).
    /// Playing, both versions play in rounds (10 deals, then a tenth more) and stop with the
    /// round in which the test decides.
    #[arg(long, value_name = "SPEC", value_parser = SequentialSpec::parse)]
    pub sprt: Option<SequentialSpec>,
    /// Write the page (the summary, the ranked groups, each parting side by side) to FILE
    /// [default: OUT/compare.html when playing; none with --from].
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// A fresh process for every game.
    #[arg(long)]
    pub fresh: bool,
    /// No progress on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print the comparison as JSON (docs/results.md, "Comparisons") instead of text.
    #[arg(long)]
    pub json: bool,
    /// How every game is played.
    #[command(flatten)]
    pub game_options: GameArgs,
}

/// Runs `allfives compare`.
pub fn compare_command(args: &CompareArgs) -> u8 {
    let (old, new, page) = match entrants(args) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let mut report = match folders::compare(&old, &new, args.sprt) {
        Ok(report) => report,
        Err(message) => return fail(BAD_INPUT, message),
    };
    if args.from.is_empty() {
        report.deals_asked = Some(args.deals.unwrap_or(DEFAULT_DEALS));
    }
    if let Some(path) = page {
        if let Err(message) = write_page(&path, &report) {
            return fail(BAD_INPUT, message);
        }
        let shown = crate::text::terminal(&path.display().to_string());
        crate::cli::exit::say(format_args!(
            "allfives: the page, with each parting's two games side by side: {shown}"
        ));
    }
    let printed = match args.json {
        true => output::print_line(&serde_json::to_string(&report).expect("plain data")),
        false => output::print_line(&text(&report)),
    };
    match printed {
        Ok(()) => 0,
        Err(e) => output_failed(&e),
    }
}

/// The two entrants compared (played first, unless `--from`), and where the page goes.
fn entrants(args: &CompareArgs) -> Result<(Entrant, Entrant, Option<PathBuf>), u8> {
    let bad = |message: String| fail(BAD_INPUT, message);
    let names = match args.versions.as_slice() {
        [] => None,
        [old, new] => Some((old.as_str(), new.as_str())),
        _ => {
            return Err(bad(format!(
                "compare takes two versions, OLD and NEW, not {}: `allfives compare OLD NEW --against BOT...` or `allfives compare --from DIR [DIR] [OLD NEW]`",
                args.versions.len()
            )));
        }
    };
    let (old_dir, new_dir, page) = match (args.from.as_slice(), names) {
        ([], None) => return Err(bad("compare needs OLD and NEW: `allfives compare OLD NEW --against BOT... --deals N`, or games already played with --from DIR".into())),
        ([], Some((old, new))) => {
            let out = play(args, old, new)?;
            let page = args.html.clone().unwrap_or(out.join("compare.html"));
            (out.join("old"), out.join("new"), Some(page))
        }
        ([one], None) => return Err(bad(format!("--from {} alone: name the two entrants compared, `allfives compare OLD NEW --from DIR`", one.display()))),
        ([one], Some(_)) => (one.clone(), one.clone(), args.html.clone()),
        ([a, b, ..], _) => (a.clone(), b.clone(), args.html.clone()),
    };
    let pick = |i: usize| names.map(|n| if i == 0 { n.0 } else { n.1 });
    let played = args.from.is_empty();
    let old = Entrant::open(&old_dir, if played { None } else { pick(0) }).map_err(bad)?;
    let new = Entrant::open(&new_dir, if played { None } else { pick(1) }).map_err(bad)?;
    Ok((old, new, page))
}

/// Plays OLD's and NEW's gauntlets into a new comparison folder, which it returns.
fn play(args: &CompareArgs, old: &str, new: &str) -> Result<PathBuf, u8> {
    let bad = |message: String| fail(BAD_INPUT, message);
    if args.against.is_empty() {
        return Err(bad(
            "compare needs opponents: --against BOT... (builtin:greedy, a command line, ...)"
                .into(),
        ));
    }
    let out = out_folder(args).map_err(bad)?;
    crate::sandbox::outputs::register(&out);
    let mut seeds = args.seeds.clone();
    // Both runs must make one master: a typed seed with a key kept in the folder.
    if !seeds.public_seed && seeds.deal_key.is_none() {
        seeds.deal_key = Some(out.join("deal-key"));
        seeds.seed = Some(match seeds.seed {
            Some(typed) => typed,
            None => seeds::fresh().map_err(bad)?,
        });
    }
    let asked = args.deals.unwrap_or(DEFAULT_DEALS);
    let mut played = 0;
    // One round at least: `--deals 0` is refused as `tournament` refuses it.
    loop {
        let end = round_end(played, asked, args.sprt.is_some());
        for (label, bot) in [("old", old), ("new", new)] {
            let bot = named(label, bot).map_err(bad)?;
            let run = gauntlet(args, bot, seeds.clone(), out.join(label), (end, played > 0));
            play_version(label, &run, &out)?;
        }
        played = end;
        if played >= asked || decided(args.sprt, &out).map_err(bad)? {
            break;
        }
    }
    Ok(out)
}

/// Plays one version's gauntlet (a round of it), refusing a run stopped short.
fn play_version(label: &str, run: &TournamentArgs, out: &Path) -> Result<(), u8> {
    let (played, dir) = play_tournament(run)?;
    if let Some(e) = played.error {
        return Err(fail(FAILED, format!("{label}'s games stopped: {e}")));
    }
    if played.interrupts > 0 {
        return Err(fail(
            INTERRUPTED,
            format!(
                "interrupted: the games played so far are kept in {}; `allfives compare --from {} {}` compares what was played",
                dir.display(),
                out.join("old").display(),
                out.join("new").display()
            ),
        ));
    }
    Ok(())
}

/// Whether the sequential test, if asked for, has decided on the games in `out`.
fn decided(test: Option<SequentialSpec>, out: &Path) -> Result<bool, String> {
    let Some(spec) = test else {
        return Ok(false);
    };
    let old = Entrant::open(&out.join("old"), None)?;
    let new = Entrant::open(&out.join("new"), None)?;
    Ok(folders::sequential_so_far(&old, &new, spec)?.decision != "continue")
}

/// The deals played by the end of the next round, `played` being played: all those `asked`
/// without a test. With one, the 10 it reads before it may decide, then a tenth more each
/// round (at least 10): play stops at most a round after the decision, and the rounds (each
/// rereads the results) grow in number as the logarithm of the deals. A deal's games are the
/// same whatever the rounds (its seed and seats come from the master seed and its index).
fn round_end(played: u64, asked: u64, test: bool) -> u64 {
    match test {
        false => asked,
        true => (played + (played / 10).max(10)).min(asked),
    }
}

/// The folder `--out` names (made, and refused if it holds a comparison), or a new one.
fn out_folder(args: &CompareArgs) -> Result<PathBuf, String> {
    let Some(dir) = &args.out else {
        return new_log_dir(Path::new(DEFAULT_COMPARISONS), "compare")
            .map_err(|e| format!("cannot create a folder in {DEFAULT_COMPARISONS}: {e}"));
    };
    if dir.join("old").exists() || dir.join("new").exists() {
        return Err(format!(
            "{} holds a comparison already: `allfives compare --from {} {}` reads it again; give another --out to play anew",
            dir.display(),
            dir.join("old").display(),
            dir.join("new").display()
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir.clone())
}

/// `bot` named `label` unless it names itself (`v2=COMMAND`), so that an opponent that is the
/// same bot keeps its own name in both runs.
fn named(label: &str, bot: &str) -> Result<String, String> {
    let spec = BotSpec::parse(bot).map_err(|why| format!("{label}: {why}"))?;
    let given = bot
        .split_once('=')
        .is_some_and(|(name, _)| name == spec.name);
    Ok(if given {
        bot.to_string()
    } else {
        format!("{label}={bot}")
    })
}

/// The tournament that plays `bot` as the challenger of a gauntlet against the opponents.
/// `deals` is (the deals to have played, whether the folder holds a round played already).
fn gauntlet(
    args: &CompareArgs,
    bot: String,
    seeds: SeedArgs,
    out: PathBuf,
    deals: (u64, bool),
) -> TournamentArgs {
    TournamentArgs {
        bots: std::iter::once(bot)
            .chain(args.against.iter().cloned())
            .collect(),
        bots_file: None,
        players: args.players,
        format: Format::Gauntlet,
        games: None,
        games_each: None,
        matchmaking: false,
        retire: Vec::new(),
        challenger: None,
        deals: Some(deals.0),
        splits: false,
        all_orders: false,
        seeds,
        concurrency: args.concurrency,
        placement: args.placement,
        out: Some(out),
        resume: deals.1,
        later_round: deals.1,
        typed: Vec::new(),
        shard: None,
        sprt: None,
        standings_every: None,
        rating: RatingArgs {
            anchor: None,
            anchor_elo: 0.0,
            pairs: false,
        },
        fresh: args.fresh,
        reuse_processes: false,
        pack_logs: false,
        quiet: args.quiet,
        // No banner on stdout: it carries the comparison only.
        json: true,
        game_options: args.game_options.clone(),
    }
}

/// Writes the page to `path` (replaced if there).
fn write_page(path: &Path, report: &Report) -> Result<(), String> {
    let mut page = Vec::new();
    crate::compare::html::write(&mut page, report).expect("a page is written to memory");
    std::fs::write(path, page).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The comparison in words: the summary, the top groups, their costliest partings.
fn text(r: &Report) -> String {
    let p = &r.points.per_deal;
    let e = &r.results.elo;
    let interval = |i: Option<(f64, f64)>| {
        i.map_or(String::new(), |(lo, hi)| {
            format!(" (95% {lo:+.2} to {hi:+.2})")
        })
    };
    let mut lines = vec![
        format!(
            "compare: NEW {} ({}) against OLD {} ({})",
            r.new.name, r.new.folder, r.old.name, r.old.folder
        ),
        format!(
            "{} deals, {} pairs of games (the same deal, seats and opponents)",
            r.deals, r.pairs
        ),
        format!(
            "points per deal, NEW minus OLD: {:+.2}{}, {}; in all {:+}",
            p.mean,
            interval(p.interval),
            p.method,
            r.points.total
        ),
        format!(
            "results: NEW better in {}, the same in {}, worse in {} pairs; Elo of NEW over OLD {}{} (pentanomial {:?})",
            r.results.better,
            r.results.same,
            r.results.worse,
            e.elo.map_or("-".into(), |x| format!("{x:+.1}")),
            interval(e.interval),
            e.pentanomial
        ),
        format!(
            "partings: {} pairs parted, {} the same throughout, {} split by an opponent first",
            r.counts.parted, r.counts.same, r.counts.split
        ),
    ];
    if let Some(q) = &r.sequential {
        lines.push(format!(
            "sequential test: {} after {} deals (LLR {:.2}, bounds {:.2} and {:.2}; {})",
            q.decision, q.deals, q.llr, q.lower, q.upper, q.method
        ));
        lines.extend(q.slow_note(p.interval));
    }
    if let Some(asked) = r.deals_asked.filter(|&asked| asked > r.deals) {
        lines.push(format!(
            "play stopped once the test decided: {} of the {asked} deals asked were played",
            r.deals
        ));
    }
    if r.counts.split > 0 {
        lines.push(format!("note: an opponent does not follow its bot_seed: {} pairs parted at its move before OLD and NEW differed (first: deal {}, {})", r.counts.split, r.splits[0].deal, r.splits[0].old_replay));
    }
    if r.unpaired != (0, 0) {
        lines.push(format!("note: {} games of OLD and {} of NEW have no partner (other deals, seats or opponents): left out", r.unpaired.0, r.unpaired.1));
    }
    for (rank, g) in r.groups.iter().take(LISTED).enumerate() {
        lines.push(format!(
            "\n{}. {} : {} partings, {:+} points",
            rank + 1,
            g.signature,
            g.count,
            g.points
        ));
        for &i in g.partings.iter().take(LISTED) {
            let q = &r.partings[i];
            lines.push(format!(
                "   deal {} turn {}: {:+} (OLD {}; NEW {})\n     {}\n     {}",
                q.deal, q.turn, q.points, q.old_move, q.new_move, q.old_replay, q.new_replay
            ));
        }
    }
    lines.join("\n")
}
