//! A scan's result is what a network task reports: it lives in `feed::scan` (the client produces
//! it, and the client stands on nothing above the protocol's and the feed's data). Kept here so
//! the path the liquidation figures always used still names it.

pub use crate::feed::scan::{Scan, Scanned};
