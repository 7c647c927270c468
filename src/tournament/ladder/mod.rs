//! Ladders: instead of every group, tables drawn one at a time from the entrants still in, for a
//! budget of games; entrants join, retire and are replaced as it runs
//! ([`draw`] decides who meets).

pub mod draw;
