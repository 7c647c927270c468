//! The sequential test's decision, kept as `sprt.json` in a tournament folder once taken.
//!
//! The test reads complete pairs in the order their lines come, so the same lines in another
//! order (a folder copied, sorted or repaired) could cross a bound at another pair, or never:
//! the decision taken while the tournament ran is stored, and read back by `standings`, the
//! report and `--resume`, never taken again.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::input::{self, InputError};
use crate::sandbox::files;
use crate::tournament::ratings::sprt::{Decision, SprtSpec};

/// The file's name in a tournament folder.
pub const FILE: &str = "sprt.json";

/// What `sprt.json` holds: the test, and what it decided.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    /// The test that decided (a decision answers its own test only).
    sprt: SprtSpec,
    /// The decision.
    decided: Decision,
}

/// Writes the decision of test `sprt` into `dir` (whole or not at all, synced).
pub fn store(dir: &Path, sprt: &SprtSpec, decided: Decision) -> std::io::Result<()> {
    let stored = Stored {
        sprt: *sprt,
        decided,
    };
    let text = serde_json::to_string_pretty(&stored).map_err(std::io::Error::other)?;
    let temporary = dir.join(format!("{FILE}.new"));
    files::replace(&dir.join(FILE), &temporary, |file| {
        file.write_all((text + "\n").as_bytes())
    })
}

/// The decision stored in `dir` for test `sprt`: `None` without a file (a test still running,
/// or a folder written before decisions were stored) or for another test (`standings --sprt`
/// asking its own).
pub fn read(dir: &Path, sprt: &SprtSpec) -> Result<Option<Decision>, String> {
    let path = dir.join(FILE);
    // A few hundred bytes: bounded as every file read.
    let text = match input::read_text(&path, 1 << 20) {
        Ok(text) => text,
        Err(InputError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let stored: Stored = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a stored decision ({e}): restore it from a copy, or remove it to take the decision again from the results in their order",
            path.display()
        )
    })?;
    Ok((stored.sprt == *sprt).then_some(stored.decided))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::ratings::sprt::Hypothesis;

    #[test]
    fn a_decision_is_read_back_for_its_own_test_only() {
        let dir = std::env::temp_dir().join(format!("allfives-decision-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder in the temporary directory");
        let sprt = SprtSpec::parse("elo0=0,elo1=20").expect("a valid test");
        assert_eq!(read(&dir, &sprt), Ok(None));
        let decided = Decision {
            accepted: Hypothesis::H1,
            pair: 412,
            llr: 2.95,
        };
        store(&dir, &sprt, decided).expect("a writable folder");
        assert_eq!(read(&dir, &sprt), Ok(Some(decided)));
        let other = SprtSpec::parse("elo0=0,elo1=5").expect("a valid test");
        assert_eq!(read(&dir, &other), Ok(None));
        std::fs::write(dir.join(FILE), "{").expect("a writable folder");
        assert!(
            read(&dir, &sprt)
                .expect_err("a cut file")
                .contains("remove it")
        );
        std::fs::remove_dir_all(&dir).expect("the test's own folder");
    }
}
