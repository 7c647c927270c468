//! The comparison's page: `page.html` (its styles and one script, which draws everything from
//! the data with `textContent` only) filled by [`crate::page`] with the [`Report`].

use std::io::{self, Write};

use crate::compare::report::Report;

const PAGE: &str = include_str!("page.html");

/// Writes the page of `report` to `out`.
pub fn write(out: &mut impl Write, report: &Report) -> io::Result<()> {
    crate::page::write(out, PAGE, "allfives compare", false, report)
}
