//! Entrants: bot arguments (`NAME=COMMAND`, `builtin:NAME`, a command line) and bots files
//! (TOML or JSON, by extension) giving each bot a name, a command, a working directory,
//! environment variables, and folders it may also read and write when contained.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::bot::player::{BotSpec, is_name, name_problem, tell_apart};
use crate::input;

/// A bots file: `[[bots]]` tables in TOML, or `{"bots": [...]}` in JSON.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotsFile {
    bots: Vec<BotEntry>,
}

/// One bot of a bots file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotEntry {
    name: String,
    command: String,
    /// Relative to the bots file's folder.
    #[serde(default)]
    dir: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Folders it may also read, contained; relative to the bots file's folder.
    #[serde(default)]
    read: Vec<PathBuf>,
    /// Folders it may also write, contained; relative to the bots file's folder.
    #[serde(default)]
    write: Vec<PathBuf>,
    /// A ladder's entrant no longer drawn.
    #[serde(default)]
    retired: bool,
}

/// The bots of `file` (if any), then those of the arguments, in that order.
pub fn entrants(file: Option<&Path>, args: &[String]) -> Result<Vec<BotSpec>, String> {
    let mut specs = match file {
        Some(path) => read_bots_file(path)?,
        None => Vec::new(),
    };
    for (i, text) in args.iter().enumerate() {
        let spec = BotSpec::parse(text).map_err(|why| match i.checked_sub(1) {
            // `allfives match perl minimal.pl ...`: a command line split into two bots.
            Some(before) if is_one_word_command(&args[before]) => format!(
                "{why}; if it belongs to the command before it, quote the whole command line \
                 as one argument: '{} {text}'",
                args[before]
            ),
            _ => why,
        })?;
        specs.push(spec);
    }
    Ok(specs)
}

/// The bot named `name` in bots file `file`, and the folders of all its bots (hidden from one
/// another, as in a match with that file).
pub fn entrant_of(file: &Path, name: &str) -> Result<(BotSpec, Vec<PathBuf>), String> {
    let specs = read_bots_file(file)?;
    let homes = specs.iter().flat_map(BotSpec::homes).collect();
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    match specs.iter().find(|s| s.name == name) {
        Some(spec) => Ok((spec.clone(), homes)),
        None => Err(format!(
            "bots file {} has no bot named '{name}' (it has {}): name one of them",
            file.display(),
            names.join(", ")
        )),
    }
}

/// Whether `arg` is a command of one word (`perl`, `./bot`), that the next argument may have
/// been meant to follow.
fn is_one_word_command(arg: &str) -> bool {
    !arg.starts_with("builtin:") && !arg.contains(|c: char| c == '=' || c.is_whitespace())
}

/// Renames bots that share a name: "greedy", "greedy#2", "greedy#3".
pub fn unique_names(specs: Vec<BotSpec>) -> Vec<BotSpec> {
    let names = tell_apart(specs.iter().map(|s| s.name.clone()));
    specs
        .into_iter()
        .zip(names)
        .map(|(spec, name)| spec.renamed(name))
        .collect()
}

/// The names of the bots `file` marks `retired` (a ladder's).
pub fn retired_in(file: Option<&Path>) -> Result<Vec<String>, String> {
    let Some(path) = file else {
        return Ok(Vec::new());
    };
    Ok(parse_bots_file(path)?
        .bots
        .into_iter()
        .filter(|b| b.retired)
        .map(|b| b.name)
        .collect())
}

fn parse_bots_file(path: &Path) -> Result<BotsFile, String> {
    let shown = path.display();
    let text = input::read_text(path, input::MAX_LIST_BYTES)
        .map_err(|e| format!("cannot read bots file {shown}: {e}"))?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => toml::from_str(&text).map_err(|e| one_line(&e.to_string())),
        Some("json") => serde_json::from_str(&text).map_err(|e| e.to_string()),
        _ => Err("name it .toml or .json".to_string()),
    }
    .map_err(|e| format!("bots file {shown}: {e}"))
}

fn read_bots_file(path: &Path) -> Result<Vec<BotSpec>, String> {
    let shown = path.display();
    let file = parse_bots_file(path)?;
    let folder = path.parent().unwrap_or(Path::new(""));
    file.bots
        .into_iter()
        .map(|entry| {
            if !is_name(&entry.name) {
                return Err(format!("bots file {shown}: {}", name_problem(&entry.name)));
            }
            if entry.dir.as_ref().is_some_and(|d| d.as_os_str().is_empty()) {
                return Err(format!(
                    "bots file {shown}, bot '{}': `dir` is empty; name a folder (\".\" is the \
                     bots file's) or leave `dir` out to start the bot where the referee starts",
                    entry.name
                ));
            }
            let dir = entry.dir.map(|d| folder.join(d));
            let here = |paths: Vec<PathBuf>| paths.into_iter().map(|p| folder.join(p)).collect();
            let (read, write): (Vec<PathBuf>, Vec<PathBuf>) = (here(entry.read), here(entry.write));
            // Checked as --bot-read and --bot-write are: a path that is not there grants
            // nothing, and is a slip.
            missing_access(&read, &write)
                .map_err(|why| format!("bots file {shown}, bot '{}': {why}", entry.name))?;
            BotSpec::with_setup(&entry.command, dir, entry.env)
                .map(|spec| {
                    spec.with_given_name(entry.name.clone())
                        .with_access(read, write)
                })
                .map_err(|e| format!("bots file {shown}, bot '{}': {e}", entry.name))
        })
        .collect()
}

/// Why a bot's `read` or `write` paths (`write` takes folders) cannot be granted, if they
/// cannot.
fn missing_access(read: &[PathBuf], write: &[PathBuf]) -> Result<(), String> {
    let named = |field: &str, p: &PathBuf| format!("`{field}` {}", p.display());
    if let Some(p) = read.iter().chain(write).find(|p| !p.exists()) {
        let field = if read.contains(p) { "read" } else { "write" };
        return Err(format!("{}: no such file or folder", named(field, p)));
    }
    match write.iter().find(|p| !p.is_dir()) {
        Some(p) => Err(format!("{}: `write` takes a folder", named("write", p))),
        None => Ok(()),
    }
}

/// TOML's errors span several lines (a source excerpt); the first says what is wrong.
fn one_line(text: &str) -> String {
    text.split('\n')
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
