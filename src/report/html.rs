//! The report page: `page.html` (its styles and its one script, which draws every table and
//! chart from the data with `textContent` and SVG elements only) filled by [`crate::page`].

use std::io::{self, Write};

use crate::report::data::ReportData;

const PAGE: &str = include_str!("page.html");

/// Writes the page for `data` to `out`, its data as it is serialized (never held whole).
pub fn write(out: &mut impl Write, data: &ReportData) -> io::Result<()> {
    crate::page::write(out, PAGE, "allfives report", false, data)
}
