//! Validation of what a person typed: shared with the assistant tools, so it lives in
//! `report::input`; every failure names the flag and changes nothing.

pub use crate::report::input::*;
