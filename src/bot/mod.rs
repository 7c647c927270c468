//! A bot: an external process (or a builtin strategy) spoken to in the protocol, with its clock,
//! its faults, and the means to stop every bot at once.

pub mod answer_wait;
pub mod builtin;
pub mod clock;
pub mod cputime;
pub mod fault;
pub mod framing;
pub mod lifetime;
pub mod misread;
pub mod player;
pub mod process;
pub mod shutdown;
pub mod stderr_lines;
pub mod timing;
