//! The report page: `page.html` (its styles and its one script, which draws every table and
//! chart from the data with `textContent` and SVG elements only) filled by [`crate::page`].

use crate::report::data::ReportData;

const PAGE: &str = include_str!("page.html");

/// The page for `data`.
pub fn page(data: &ReportData) -> String {
    crate::page::fill(PAGE, "allfives report", false, data)
}
