//! Any bytes, read as a tournament's `tournament.json`: refused, or a definition whose schedule,
//! counts, digests and group ranks hold together.

use allfives::tournament::definition::Definition;

/// Reads the bytes as a definition; an accepted one is asked what `--resume` and `standings` ask.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(definition) = Definition::parse(text) else {
        return;
    };
    let schedule = definition.schedule();
    let count = schedule.count(definition.shard);
    assert!(count <= schedule.count(None));
    if let Some(group) = schedule.groups.iter().next() {
        assert_eq!(schedule.groups.rank(&group), Some(0));
        assert!(definition.digest_for(&group).is_some());
    }
    let last = schedule.groups.len().checked_sub(1);
    if let Some(last) = last {
        let group = schedule.groups.get(last);
        assert_eq!(schedule.groups.rank(&group), Some(last));
    }
    // The first games, made one at a time, are in the shard and counted.
    for game in schedule.games(definition.shard).take(16) {
        assert!(schedule.seating(game.arrangement).is_some());
    }
}
