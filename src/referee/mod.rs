//! The referee: one game between seated bots ([`game`]) and a match of games ([`matchplay`]).

pub mod game;
pub mod matchplay;
