//! How commands speak: human tables (default) or JSON (`--json`), and errors as one line
//! (or one JSON object) with a distinct exit code.

use std::process::ExitCode;

use serde_json::{Value, json};

/// A command's failure, shaped for a person or a program.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input: names the flag. Nothing was done.
    #[error("--{field}: {message}")]
    Input { field: String, message: String },
    /// The command line itself did not parse.
    #[error("{0}")]
    Usage(String),
    /// The config file is missing, unreadable or invalid.
    #[error("{0}")]
    Config(String),
    /// The exchange or Hyperliquid could not be reached or refused the read.
    #[error("{0}")]
    Network(String),
    /// An answer arrived but was not what the protocol says.
    #[error("{0}")]
    Malformed(String),
}

impl CliError {
    pub fn input(field: &str, message: impl Into<String>) -> Self {
        CliError::Input {
            field: field.to_string(),
            message: message.into(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            CliError::Input { .. } => "invalid_argument",
            CliError::Usage(_) => "usage",
            CliError::Config(_) => "config",
            CliError::Network(_) => "unreachable",
            CliError::Malformed(_) => "malformed_answer",
        }
    }

    /// 2: the caller must change something; 1: the world failed, trying later may work.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Input { .. } | CliError::Usage(_) | CliError::Config(_) => ExitCode::from(2),
            CliError::Network(_) | CliError::Malformed(_) => ExitCode::from(1),
        }
    }

    /// Print the error the way the caller asked for output, and return the exit code.
    pub fn report(&self, json: bool) -> ExitCode {
        let message = crate::text::sanitize_line(&self.to_string(), 400);
        if json {
            let field = match self {
                CliError::Input { field, .. } => Value::String(field.clone()),
                _ => Value::Null,
            };
            println!(
                "{}",
                json!({"error": {"code": self.code(), "field": field, "message": message}})
            );
        } else {
            eprintln!("error: {message}");
        }
        self.exit_code()
    }
}

impl From<crate::client::FetchError> for CliError {
    fn from(e: crate::client::FetchError) -> Self {
        match e {
            crate::client::FetchError::Malformed { .. } => CliError::Malformed(e.to_string()),
            _ => CliError::Network(e.to_string()),
        }
    }
}

/// Print a JSON document (pretty, one trailing newline).
pub fn print_json(value: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).expect("JSON values serialize")
    );
}

/// Human formatting lives with the units, so the CLI and the terminal UI show the same text.
pub use crate::protocol::units::{
    price_display as price, usd_signed_text as usd_signed, usd_text as usd,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A plain-text table with a header rule; columns sized to their widest cell.
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Self {
            columns: columns.iter().map(|(h, a)| (h.to_string(), *a)).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, (h, _))| {
                self.rows
                    .iter()
                    .map(|r| r[i].chars().count())
                    .chain([h.chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: Vec<&str>| -> String {
            let parts: Vec<String> = cells
                .iter()
                .zip(&self.columns)
                .zip(&widths)
                .map(|((cell, (_, align)), w)| match align {
                    Align::Left => format!("{cell:<w$}"),
                    Align::Right => format!("{cell:>w$}"),
                })
                .collect();
            parts.join("  ").trim_end().to_string()
        };
        let mut out = line(self.columns.iter().map(|(h, _)| h.as_str()).collect());
        out.push('\n');
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        out.push_str(&line(rule.iter().map(String::as_str).collect()));
        for row in &self.rows {
            out.push('\n');
            out.push_str(&line(row.iter().map(String::as_str).collect()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_numbers() {
        assert_eq!(usd(-1_234_567_000_000_000_000_000), "-$1,234.57");
        assert_eq!(usd_signed(36_246_000_000_000_000_000), "+$36.25");
        assert_eq!(price(826740, 10), "82,674.0");
        assert_eq!(price(251215, 100), "2,512.15");
    }

    #[test]
    fn tables_align() {
        let mut t = Table::new(&[("name", Align::Left), ("value", Align::Right)]);
        t.row(vec!["a".into(), "1".into()]);
        t.row(vec!["long".into(), "1,000".into()]);
        assert_eq!(
            t.render(),
            "name  value\n────  ─────\na         1\nlong  1,000"
        );
    }
}
