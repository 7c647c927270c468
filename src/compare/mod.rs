//! `allfives compare OLD NEW`: two versions of a bot played on the same deals, in the same seats,
//! against the same seeded opponents, and told apart deal by deal. Their games stay identical
//! until the first decision where the two versions choose differently (the parting), so each
//! deal's paired difference is that choice's doing, unless an opponent that does not follow its
//! `bot_seed` split the games first (counted and said).
//!
//! Pure: [`pairing`] (which game of OLD meets which of NEW), [`parting`] (the first decision
//! that differs, and the choice's plain signature), [`summary`] (the paired statistics) and
//! [`report`] (ranked groups, the `--json` document). The folders and logs are read by
//! [`folders`]; [`html`] fills the page through `page`. The command line plays the two runs
//! (`cli::compare`).

pub mod folders;
pub mod html;
pub mod pairing;
pub mod parting;
pub mod report;
pub mod summary;
