//! The command line: its arguments ([`args`]), the deal files it reads ([`deal_file`]), what each
//! command does ([`commands`]), the starter bots it writes ([`kit`]) and what it prints ([`output`]).

pub mod args;
pub mod commands;
pub mod deal_file;
pub mod entrants;
pub mod kit;
pub mod output;
pub mod pages;
pub mod progress;
pub mod tournament;
