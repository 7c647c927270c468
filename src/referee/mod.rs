//! The referee: one game between seated bots ([`game`]), a match of games ([`matchplay`]), the
//! seed each bot is given for its own generator ([`bot_seed`]), and a game between builtins
//! played straight through the engine, for benches ([`builtin_game`]).

pub mod bot_seed;
pub mod builtin_game;
pub mod game;
pub mod matchplay;
