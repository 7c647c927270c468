//! `allfives kit LANGUAGE DIR`: a starter bot, embedded in the binary, written into a folder with
//! the protocol and the rulebook beside it, so that someone who installed only the binary (the
//! Python wheel) has a bot to start from and every page it points to.
//!
//! The pages are the repository's own, made to fit the folder as they are written: a span
//! between `<!-- repository-only -->` and `<!-- /repository-only -->` (how to build from a
//! clone, where the repository keeps its bots) is left out, a link to a page the kit does not
//! hold keeps its words but loses its target, and the files of the repository a page names
//! that the kit lacks are listed under its title as the repository's. The bot's usage lines
//! name the folder's file.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use clap::ValueEnum;

use crate::text::shell_word as quoted;

/// The languages with a starter bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Language {
    /// bot.py: greedy, the standard library only (Python 3.8+).
    Python,
    /// bot.py: greedy, written with the package's helper (`from allfives.bot import run`).
    PythonHelper,
    /// starter_bot.cpp: C++17 types for the view, greedy; the standard library only.
    Cpp,
    /// StarterBot.java: Java types for the view, greedy; JDK 17+.
    Java,
    /// bot.js: greedy, for Node.js, no dependencies.
    Js,
    /// No bot: the protocol and the rulebook only, for a bot in any other language (Lua, Go,
    /// Rust...): any program that reads and writes lines of JSON can play.
    Docs,
}

/// The error for a language without a kit: any language plays, and where its contract is.
fn no_kit(value: &str) -> String {
    let kits: Vec<String> = Language::value_variants()
        .iter()
        .filter_map(|l| Some(l.to_possible_value()?.get_name().to_string()))
        .collect();
    format!(
        "no starter kit for '{value}' (kits: {}). A bot can be written in any language: a \
         program that reads lines of JSON on stdin and answers on stdout. `allfives kit docs DIR` \
         writes the protocol (DIR/protocol.md, a minimal bot among its parts) and the \
         rulebook (DIR/docs/rules.md) without a bot; `allfives rules` prints the rulebook",
        kits.join(", ")
    )
}

/// The parser of a kit's language: clap's own, with [`no_kit`]'s words for a language
/// without a kit.
#[derive(Debug, Clone, Copy)]
pub struct LanguageParser;

impl clap::builder::TypedValueParser for LanguageParser {
    type Value = Language;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Language, clap::Error> {
        clap::builder::EnumValueParser::<Language>::new()
            .parse_ref(cmd, arg, value)
            .map_err(|_| {
                clap::Error::raw(
                    clap::error::ErrorKind::InvalidValue,
                    no_kit(&value.to_string_lossy()) + "\n",
                )
                .with_cmd(cmd)
            })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Language::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

/// A page of the kit: its path in DIR (and in the repository) and its text.
type Page = (&'static str, &'static str);

/// The pages written beside every bot: the protocol, the rulebook, and the pages they link to.
const PAGES: [Page; 5] = [
    ("protocol.md", include_str!("../../protocol.md")),
    ("docs/rules.md", RULEBOOK),
    ("docs/fair-play.md", include_str!("../../docs/fair-play.md")),
    (
        "docs/log-format.md",
        include_str!("../../docs/log-format.md"),
    ),
    ("docs/results.md", include_str!("../../docs/results.md")),
];

/// The rulebook (docs/rules.md): scoring, doubles, spinners, every rule option. `allfives
/// rules` prints it.
pub const RULEBOOK: &str = include_str!("../../docs/rules.md");

/// Where a repository-only span of a page starts and ends.
const REPOSITORY_ONLY: (&str, &str) = ("<!-- repository-only -->", "<!-- /repository-only -->");

impl Language {
    /// The bot's file: its path in the repository, its name in DIR, and its text (none for
    /// the docs alone).
    fn source(self) -> Option<(&'static str, &'static str, &'static str)> {
        Some(match self {
            Language::Docs => return None,
            Language::Python => (
                "sample_bots/python/greedy_bot.py",
                "bot.py",
                include_str!("../../sample_bots/python/greedy_bot.py"),
            ),
            Language::PythonHelper => (
                "sample_bots/python/helper_bot.py",
                "bot.py",
                include_str!("../../sample_bots/python/helper_bot.py"),
            ),
            Language::Cpp => (
                "sample_bots/cpp/starter_bot.cpp",
                "starter_bot.cpp",
                include_str!("../../sample_bots/cpp/starter_bot.cpp"),
            ),
            Language::Java => (
                "sample_bots/java/StarterBot.java",
                "StarterBot.java",
                include_str!("../../sample_bots/java/StarterBot.java"),
            ),
            Language::Js => (
                "sample_bots/js/greedy_bot.js",
                "bot.js",
                include_str!("../../sample_bots/js/greedy_bot.js"),
            ),
        })
    }

    /// The commands that build the bot (if it needs building), then the command line that
    /// runs it, for a kit written into `dir` (already quoted for a shell); `python` runs a
    /// Python bot.
    fn build_and_run(self, dir: &str, python: &str) -> (Vec<String>, String) {
        let join = |name: &str| quoted(&Path::new(dir).join(name).display().to_string());
        match self {
            Language::Python | Language::PythonHelper => {
                (vec![], format!("\"{} {}\"", quoted(python), join("bot.py")))
            }
            Language::Js => (vec![], format!("\"node {}\"", join("bot.js"))),
            Language::Cpp => (
                vec![format!(
                    "g++ -std=c++17 -O2 -o {} {}",
                    join("starter_bot"),
                    join("starter_bot.cpp")
                )],
                join("starter_bot"),
            ),
            Language::Java => {
                let classes = quoted(dir);
                (
                    vec![format!("javac -d {classes} {}", join("StarterBot.java"))],
                    format!("\"java -cp {classes} StarterBot\""),
                )
            }
            // The bot is the reader's to write: an example of a command line that runs one.
            Language::Docs => (
                vec![format!(
                    "read {} (the whole contract; its \"A minimal bot\" shows one), write \
                     your bot, then, for one run as `lua {}`:",
                    join("protocol.md"),
                    join("bot.lua")
                )],
                format!("\"lua {}\"", join("bot.lua")),
            ),
        }
    }
}

/// Why a kit was not written.
#[derive(Debug, thiserror::Error)]
pub enum KitError {
    /// A file of the kit is already there: it is never overwritten.
    #[error("{0} already exists: choose another folder, or move the file away")]
    Exists(PathBuf),
    /// The folder or a file could not be made.
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
}

/// The kit's files for `language` written into `dir`: each path in DIR and its text.
fn files(language: Language, dir: &Path) -> Vec<(&'static str, String)> {
    let present: Vec<&str> = PAGES.iter().map(|(path, _)| *path).collect();
    let mut files = Vec::new();
    if let Some((origin, name, text)) = language.source() {
        let written = quoted(&dir.join(name).display().to_string());
        files.push((name, text.replace(origin, &written)));
    }
    files.extend(
        PAGES
            .iter()
            .map(|(path, text)| (*path, for_kit(text, path, &present))),
    );
    files
}

/// The top folders of allfives' source repository: a path under one names a file of it.
const SOURCE_FOLDERS: [&str; 9] = [
    "sample_bots/",
    "crates/",
    "scripts/",
    "src/",
    "tests/",
    "benches/",
    "fuzz/",
    "examples/",
    "python/",
];

/// The files of the source repository that `text` (the page at `path`) names and the kit does
/// not hold, in order, each once: paths under [`SOURCE_FOLDERS`] and pages (`*.md`), outside
/// code blocks (whose commands are examples).
fn elsewhere(text: &str, path: &str, present: &[&str]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let words = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c)))
            .map(|w| w.trim_end_matches(['.', '-']));
        for word in words {
            // An absolute path or an address's tail is no file of the repository.
            let source = !word.starts_with('/')
                && (SOURCE_FOLDERS.iter().any(|f| word.starts_with(f)) || word.ends_with(".md"));
            let held = resolves(path, word, present) || present.contains(&word);
            // A page named alone is a link's target, beside the page that names it.
            let word = match word.contains('/') {
                true => word.to_string(),
                false => Path::new(path)
                    .parent()
                    .unwrap_or(Path::new(""))
                    .join(word)
                    .display()
                    .to_string(),
            };
            if source && !held && !found.contains(&word) {
                found.push(word);
            }
        }
    }
    found
}

/// `text`, the page at `path`, with a note under its title naming what of the source
/// repository it mentions that the kit does not hold, and where that is.
fn with_elsewhere_noted(text: &str, path: &str, present: &[&str]) -> String {
    let named = elsewhere(text, path, present);
    if named.is_empty() {
        return text.to_string();
    }
    let listed: Vec<String> = named.iter().map(|n| format!("`{n}`")).collect();
    let note = format!(
        "> Not in this kit: {}: files of allfives' source repository (from which the package \
         is built), named here for reference; the kit holds only the protocol and its pages in \
         `docs/`.\n\n",
        crate::text::listed(&listed)
    );
    // Under the title: its first line, and the blank line after it.
    match text.split_once("\n\n") {
        Some((title, rest)) if title.starts_with('#') && !title.contains('\n') => {
            format!("{title}\n\n{note}{rest}")
        }
        _ => format!("{note}{text}"),
    }
}

/// A page as the kit writes it at `path`: without its repository-only spans, with links to
/// pages not `present` made plain words, and a note of the source files it names.
fn for_kit(text: &str, path: &str, present: &[&str]) -> String {
    let mut kept = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(REPOSITORY_ONLY.0) {
        kept.push_str(&rest[..start]);
        let after = &rest[start..];
        rest = after
            .find(REPOSITORY_ONLY.1)
            .map_or("", |end| &after[end + REPOSITORY_ONLY.1.len()..]);
    }
    kept.push_str(rest);
    with_elsewhere_noted(&unlink_missing(&kept, path, present), path, present)
}

/// `text` (the page at `path`) with every Markdown link whose target is not among `present`
/// replaced by its words.
fn unlink_missing(text: &str, path: &str, present: &[&str]) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let inner = &rest[open + 1..];
        let link = inner.find(']').and_then(|close| {
            let target = inner[close + 1..].strip_prefix('(')?;
            let end = target.find(')')?;
            Some((&inner[..close], &target[..end], close + end + 3))
        });
        match link {
            Some((words, target, taken)) if !resolves(path, target, present) => {
                out.push_str(&rest[..open]);
                out.push_str(words);
                rest = &inner[taken..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether a link from the page at `path` to `target` reaches an address, an anchor of the same
/// page, or a page `present`.
fn resolves(path: &str, target: &str, present: &[&str]) -> bool {
    let file = target.split('#').next().unwrap_or_default();
    if file.is_empty() || target.contains("://") {
        return true;
    }
    let joined = Path::new(path).parent().unwrap_or(Path::new("")).join(file);
    let mut reached: Vec<&str> = Vec::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                reached.pop();
            }
            Component::Normal(name) => reached.push(name.to_str().unwrap_or_default()),
            _ => {}
        }
    }
    present.contains(&reached.join("/").as_str())
}

/// Writes the kit of `language` into `dir` (made if missing) and returns the paths written.
/// Nothing is written when any of the kit's files is already there.
pub fn write(language: Language, dir: &Path) -> Result<Vec<PathBuf>, KitError> {
    let files = files(language, dir);
    if let Some(taken) = files
        .iter()
        .map(|(name, _)| dir.join(name))
        .find(|path| path.symlink_metadata().is_ok())
    {
        return Err(KitError::Exists(taken));
    }
    files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            let folder = path.parent().unwrap_or(dir);
            fs::create_dir_all(folder).map_err(|e| KitError::Write(folder.to_path_buf(), e))?;
            // create_new: a file that appeared since the look above is still not overwritten.
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut file| file.write_all(text.as_bytes()))
                .map_err(|e| match e.kind() {
                    std::io::ErrorKind::AlreadyExists => KitError::Exists(path.clone()),
                    _ => KitError::Write(path.clone(), e),
                })?;
            Ok(path)
        })
        .collect()
}

/// The Python to run a Python bot with: the one installed beside this `allfives` when there is
/// one (a virtual environment's, which imports the package's helper even when the environment
/// is not activated), else `python3` from PATH.
pub fn python() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("python3")))
        .filter(|python| python.is_file())
        .map_or_else(|| "python3".to_string(), |p| p.display().to_string())
}

/// What to type next, for a kit written into `dir`, Python bots run by `python`: build it,
/// check it, play it (a line each).
pub fn next_steps(language: Language, dir: &Path, python: &str) -> Vec<String> {
    let (build, bot) = language.build_and_run(&dir.display().to_string(), python);
    let mut lines: Vec<String> = build;
    lines.push(format!("allfives check {bot}"));
    lines.push(format!("allfives match {bot} builtin:greedy --games 10"));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_steps_quote_a_folder_with_a_space() {
        let steps = next_steps(Language::Python, Path::new("my bot"), "python3").join("\n");
        assert!(
            steps.contains("allfives check \"python3 'my bot/bot.py'\""),
            "{steps}"
        );
    }

    #[test]
    fn a_compiled_kit_is_built_before_it_is_checked() {
        let steps = next_steps(Language::Cpp, Path::new("b"), "python3").join("\n");
        let build = steps.find("g++").expect("a build line");
        assert!(
            build
                < steps
                    .find("allfives check b/starter_bot")
                    .expect("a check line")
        );
    }

    #[test]
    fn a_link_to_a_page_the_kit_lacks_keeps_only_its_words() {
        let present = ["protocol.md", "docs/rules.md"];
        let text = "see [the rules](rules.md#spinners), [the protocol](../protocol.md), \
                    [benchmarks](benchmarks.md), [a part](#faults) and `[1, 6]` (a tile)";
        assert_eq!(
            unlink_missing(text, "docs/log-format.md", &present),
            "see [the rules](rules.md#spinners), [the protocol](../protocol.md), \
             benchmarks, [a part](#faults) and `[1, 6]` (a tile)"
        );
    }

    #[test]
    fn a_repository_only_span_is_left_out() {
        let text = "a <!-- repository-only -->cargo build<!-- /repository-only -->b";
        assert_eq!(for_kit(text, "protocol.md", &[]), "a b");
    }
}
