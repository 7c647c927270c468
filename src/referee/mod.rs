//! The referee: one game between seated bots ([`game`]), a match of games ([`matchplay`]), and
//! the seed each bot is given for its own generator ([`bot_seed`]).

pub mod bot_seed;
pub mod game;
pub mod matchplay;
