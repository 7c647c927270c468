//! `allfives kit LANGUAGE DIR`: a starter bot, embedded in the binary, written into a folder, so
//! that someone who installed only the binary (the Python wheel) has a bot to start from.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::text::shell_word as quoted;

/// The languages with a starter bot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Language {
    /// bot.py: greedy, the standard library only (Python 3.8+).
    Python,
    /// starter_bot.cpp: C++17 types for the view, greedy; the standard library only.
    Cpp,
    /// StarterBot.java: Java types for the view, greedy; JDK 17+.
    Java,
    /// bot.js: greedy, for Node.js, no dependencies.
    Js,
}

/// The protocol, written beside every kit: the whole contract for a bot's author.
const PROTOCOL: (&str, &str) = ("protocol.md", include_str!("../../protocol.md"));

impl Language {
    /// The bot's file: its name in DIR and its text.
    fn source(self) -> (&'static str, &'static str) {
        match self {
            Language::Python => (
                "bot.py",
                include_str!("../../sample_bots/python/greedy_bot.py"),
            ),
            Language::Cpp => (
                "starter_bot.cpp",
                include_str!("../../sample_bots/cpp/starter_bot.cpp"),
            ),
            Language::Java => (
                "StarterBot.java",
                include_str!("../../sample_bots/java/StarterBot.java"),
            ),
            Language::Js => ("bot.js", include_str!("../../sample_bots/js/greedy_bot.js")),
        }
    }

    /// The commands that build the bot (if it needs building), then the command line that
    /// runs it, for a kit written into `dir` (already quoted for a shell).
    fn build_and_run(self, dir: &str) -> (Vec<String>, String) {
        let join = |name: &str| quoted(&Path::new(dir).join(name).display().to_string());
        match self {
            Language::Python => (vec![], format!("\"python3 {}\"", join("bot.py"))),
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

/// Writes the kit of `language` into `dir` (made if missing) and returns the paths written.
/// Nothing is written when any of the kit's files is already there.
pub fn write(language: Language, dir: &Path) -> Result<Vec<PathBuf>, KitError> {
    let files = [language.source(), PROTOCOL];
    if let Some(taken) = files
        .iter()
        .map(|(name, _)| dir.join(name))
        .find(|path| path.symlink_metadata().is_ok())
    {
        return Err(KitError::Exists(taken));
    }
    fs::create_dir_all(dir).map_err(|e| KitError::Write(dir.to_path_buf(), e))?;
    files
        .iter()
        .map(|(name, text)| {
            let path = dir.join(name);
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

/// What to type next, for a kit written into `dir`: build it, check it, play it (a line each).
pub fn next_steps(language: Language, dir: &Path) -> Vec<String> {
    let (build, bot) = language.build_and_run(&dir.display().to_string());
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
        let steps = next_steps(Language::Python, Path::new("my bot")).join("\n");
        assert!(
            steps.contains("allfives check \"python3 'my bot/bot.py'\""),
            "{steps}"
        );
    }

    #[test]
    fn a_compiled_kit_is_built_before_it_is_checked() {
        let steps = next_steps(Language::Cpp, Path::new("b")).join("\n");
        let build = steps.find("g++").expect("a build line");
        assert!(
            build
                < steps
                    .find("allfives check b/starter_bot")
                    .expect("a check line")
        );
    }
}
