//! The explorer's server (seed `002_…`).

use super::super::catalog::ToolSpec;

pub fn tools() -> Vec<ToolSpec> {
    Vec::new()
}
