//! The command line: its arguments ([`args`]), the deal files it reads ([`deal_file`]), the deal
//! key files it reads or makes ([`key_file`]), what each command does ([`commands`]), its exit
//! codes ([`exit`]) and the signals that stop it ([`signals`]), the starter bots it writes
//! ([`kit`]), what it prints ([`output`]) and the report page it writes ([`report_page`]).

pub mod args;
pub mod commands;
pub mod compare;
pub mod deal_file;
pub mod entrants;
pub mod exit;
pub mod key_file;
pub mod kit;
pub mod output;
pub mod pages;
pub mod progress;
pub mod report_page;
pub mod run_view;
pub mod signals;
pub mod tournament;
