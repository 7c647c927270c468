//! Replaying a verified game log for people and tools: as steps ([`steps`]), the layout as a
//! tree to draw ([`drawing`]), as text in a terminal ([`text`]), as one self-contained HTML page
//! ([`html`]), and a logged decision posed again ([`turn`]).

pub mod drawing;
pub mod html;
pub mod page_data;
pub mod steps;
pub mod text;
pub mod turn;
