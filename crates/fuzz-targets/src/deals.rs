//! Any bytes, read as a deal file under rules the first byte picks.

use allfives::cli::deal_file::parse_deals;
use allfives_engine::rules::{Rules, SpinnerRule};

/// The first byte picks the players, the spinner rule and a small hand limit (so that the
/// "more deals than hands" refusal is reached); the rest is the file.
pub fn run(data: &[u8]) {
    let Some((&head, file)) = data.split_first() else {
        return;
    };
    let mut rules = Rules::new(2 + usize::from(head % 3));
    rules.spinner =
        [SpinnerRule::First, SpinnerRule::None, SpinnerRule::All][usize::from(head / 3 % 3)];
    rules.max_hands = 1 + u32::from(head / 9 % 8);
    if let Ok(deals) = parse_deals(file, &rules) {
        assert!(deals.len() <= rules.max_hands as usize);
        for deal in deals.iter() {
            assert_eq!(deal.validate(&rules), Ok(()));
        }
    }
}
