//! A tool as a seed document names it, and the seeds themselves.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};

use super::tools::Implementation;

/// The five product documents whose MCP servers this one replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seed {
    Sdk,
    Terminal,
    Explorer,
    Risk,
    Liquidations,
}

impl Seed {
    pub const ALL: [Seed; 5] = [
        Seed::Sdk,
        Seed::Terminal,
        Seed::Explorer,
        Seed::Risk,
        Seed::Liquidations,
    ];
    pub const NAMES: [&'static str; 5] = ["sdk", "terminal", "explorer", "risk", "liquidations"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The `serverInfo.name` the seed's own server announces, where its document gives one
    /// (only the terminal's does: "Server name | `papertrade-terminal`"). The others document
    /// none, and one is not made up for them: they keep this binary's name.
    pub fn server_name(self) -> Option<&'static str> {
        match self {
            Seed::Terminal => Some("papertrade-terminal"),
            Seed::Sdk | Seed::Explorer | Seed::Risk | Seed::Liquidations => None,
        }
    }

    pub fn parse(text: &str) -> Option<Seed> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(text.trim()))
    }
}

/// One tool as a seed names it.
pub struct ToolSpec {
    pub name: &'static str,
    pub seed: Seed,
    pub title: &'static str,
    pub description: &'static str,
    pub input: JsonObject,
    pub output: JsonObject,
    /// Whether it reads the exchange (true) or is pure math over its arguments (false).
    pub open_world: bool,
    pub implementation: Implementation,
}

impl ToolSpec {
    /// The `tools/list` entry: read-only, never destructive, idempotent.
    pub fn tool(&self) -> Tool {
        Tool::new(self.name, self.description, Arc::new(self.input.clone()))
            .with_title(self.title)
            .with_raw_output_schema(Arc::new(self.output.clone()))
            .with_annotations(
                ToolAnnotations::with_title(self.title)
                    .read_only(true)
                    .destructive(false)
                    .idempotent(true)
                    .open_world(self.open_world),
            )
    }
}
