//! The command line: its arguments ([`args`]), what each command does ([`commands`]) and what it
//! prints ([`output`]).

pub mod args;
pub mod commands;
pub mod entrants;
pub mod output;
pub mod progress;
pub mod tournament;
