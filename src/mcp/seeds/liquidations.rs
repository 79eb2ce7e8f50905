//! The liquidations service's server (seed `004_…`).

use super::super::spec::ToolSpec;

pub fn tools() -> Vec<ToolSpec> {
    Vec::new()
}
