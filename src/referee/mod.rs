//! The referee: one game between seated bots ([`game`]), a match of games ([`matchplay`]), how long a bot's process lives ([`processes`]), the
//! seed each bot is given for its own generator ([`bot_seed`]), and a game between builtins
//! played straight through the engine, for benches ([`builtin_game`]).

pub mod bot_seed;
pub mod builtin_game;
pub mod game;
pub mod matchplay;
pub mod processes;
