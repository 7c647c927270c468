//! Any bytes, read as a tournament folder's `results.jsonl` beside a fixed `tournament.json`
//! (two entrants, two deals): each line is counted once and only if it checks out against the
//! definition, or the file is refused; nothing panics.

use std::collections::BTreeSet;

use allfives::tournament::audit;
use allfives::tournament::definition::{self, Definition};
use allfives::tournament::results::RESULTS;

/// The definition the lines are checked against (the corpus's lines were played under it).
const DEFINITION: &str = include_str!("../seeds/tournament.json");

/// Writes the bytes as the results of a folder holding [`DEFINITION`] and reads them back checked
/// (with `--verify`: the logs are missing, so a line that passes the definition is refused there).
pub fn run(data: &[u8]) {
    let folder = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(folder.path().join(definition::FILE), DEFINITION).expect("the definition");
    std::fs::write(folder.path().join(RESULTS), data).expect("the results");
    let definition = Definition::parse(DEFINITION).expect("the seed definition is valid");
    let mut ids = BTreeSet::new();
    let counted = audit::read_checked(folder.path(), &definition, false, |line| {
        assert!(
            ids.insert(line.id.clone()),
            "game {} counted twice",
            line.id
        );
    });
    if let Ok(audited) = counted {
        assert_eq!(audited.counted, ids.len() as u64);
        assert!(audited.counted <= definition.schedule().count(None));
        if audited.counted > 0 {
            assert!(audit::read_checked(folder.path(), &definition, true, |_| {}).is_err());
        }
    }
}
