//! How commands speak: human tables (default) or JSON (`--json`), and errors as one line
//! (or one JSON object) with a distinct exit code.

use std::process::ExitCode;

use serde_json::{Value, json};

/// A command's failure, shaped for a person or a program.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input: names the flag (or the positional `<ARG>`). Nothing was done.
    #[error("{}{field}: {message}", if field.starts_with('<') { "" } else { "--" })]
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
    /// Something on this machine failed (nonce store, signing, a file): not the caller's input.
    #[error("{0}")]
    Local(String),
    /// The relayer refused the intent: nothing was queued. `code` is the exchange's own.
    #[error("the relayer refused it ({code}): {message}")]
    Refused { code: String, message: String },
    /// The command ran and printed its result, but what was asked did not (yet) happen: the
    /// exit status says which. The result document already says it, so JSON mode adds nothing.
    #[error("{message}")]
    Unsettled { status: Unsettled, message: String },
}

/// Why a command whose intents were sent did not end as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsettled {
    /// At least one intent was refused by the relayer (others may have settled).
    Refused,
    /// An intent ended failed, expired or cancelled (or a cancel lost the race).
    Failed,
    /// No fate was seen before the command stopped waiting: it may still settle.
    Pending,
}

/// Exit statuses: 0 done as asked, 1 network or answer, 2 input, and these three.
pub const EXIT_REFUSED: u8 = 3;
pub const EXIT_FAILED: u8 = 4;
pub const EXIT_PENDING: u8 = 5;

/// What a set of intents' fates means for the exit status: every one `wanted` is success; any
/// other settled fate is a failure; a fate not seen (`pending`, `unknown`) is pending. The worst
/// wins, refusals (`refused…`) first.
pub fn expect_outcomes<'a>(
    wanted: &str,
    fates: impl IntoIterator<Item = &'a str>,
) -> Result<(), CliError> {
    let fates: Vec<&str> = fates.into_iter().collect();
    let count = |f: &dyn Fn(&str) -> bool| fates.iter().filter(|x| f(x)).count();
    let refused = count(&|x| x.starts_with("refused"));
    let pending = count(&|x| matches!(x, "pending" | "unknown"));
    let failed = fates.len() - refused - pending - count(&|x| x == wanted);
    let of = fates.len();
    let (status, message) = if refused > 0 {
        (
            Unsettled::Refused,
            format!("{refused} of {of} intent(s) were refused by the relayer"),
        )
    } else if failed > 0 {
        (
            Unsettled::Failed,
            format!("{failed} of {of} intent(s) did not end {wanted}"),
        )
    } else if pending > 0 {
        (
            Unsettled::Pending,
            format!(
                "{pending} of {of} intent(s) had no outcome yet; it may still settle: \
                 follow it with `positions --follow` (it is never resent)"
            ),
        )
    } else {
        return Ok(());
    };
    Err(CliError::Unsettled { status, message })
}

impl CliError {
    pub(crate) fn input(field: &str, message: impl Into<String>) -> Self {
        CliError::Input {
            field: field.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn code(&self) -> &'static str {
        match self {
            CliError::Input { .. } => "invalid_argument",
            CliError::Usage(_) => "usage",
            CliError::Config(_) => "config",
            CliError::Network(_) => "unreachable",
            CliError::Malformed(_) => "malformed_answer",
            CliError::Local(_) => "local_failure",
            CliError::Refused { .. } => "refused",
            CliError::Unsettled { status, .. } => match status {
                Unsettled::Refused => "refused",
                Unsettled::Failed => "not_settled",
                Unsettled::Pending => "pending",
            },
        }
    }

    /// 2: the caller must change something; 1: the world failed, trying later may work.
    pub(crate) fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Input { .. } | CliError::Usage(_) | CliError::Config(_) => ExitCode::from(2),
            CliError::Network(_) | CliError::Malformed(_) | CliError::Local(_) => ExitCode::from(1),
            CliError::Refused { .. } => ExitCode::from(EXIT_REFUSED),
            CliError::Unsettled { status, .. } => ExitCode::from(match status {
                Unsettled::Refused => EXIT_REFUSED,
                Unsettled::Failed => EXIT_FAILED,
                Unsettled::Pending => EXIT_PENDING,
            }),
        }
    }

    /// Print the error the way the caller asked for output, and return the exit code.
    pub(crate) fn report(&self, json: bool) -> ExitCode {
        let message = crate::text::sanitize_line(&self.to_string(), 400);
        // One JSON document per run: an unsettled result has been printed already.
        if json && !matches!(self, CliError::Unsettled { .. }) {
            let field = match self {
                CliError::Input { field, .. } => Value::String(field.clone()),
                _ => Value::Null,
            };
            let code = match self {
                // The exchange's own code, so a program can tell `opposite_side_open` from
                // `nonce_used`.
                CliError::Refused { code, .. } => crate::text::sanitize_line(code, 64),
                _ => self.code().to_string(),
            };
            print_json_line(&json!({"error": {"code": code, "field": field, "message": message}}));
        } else {
            eprintln!("error: {message}");
        }
        self.exit_code()
    }
}

impl From<crate::report::ReportError> for CliError {
    fn from(e: crate::report::ReportError) -> Self {
        use crate::report::ReportError;
        match e {
            ReportError::Input { field, message } => CliError::Input { field, message },
            ReportError::Network(m) => CliError::Network(m),
            ReportError::Malformed(m) => CliError::Malformed(m),
        }
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

/// Print a JSON document (pretty, one trailing newline), every string sanitised: a program's
/// terminal deserves the same protection from the network's text as ours.
pub fn print_json(value: &Value) {
    let mut value = value.clone();
    crate::text::sanitize_json(&mut value);
    write_out(&serde_json::to_string_pretty(&value).expect("JSON values serialize"));
}

/// One JSON document on one line (a `--follow` event), sanitised like [`print_json`].
pub fn print_json_line(value: &Value) {
    let mut value = value.clone();
    crate::text::sanitize_json(&mut value);
    write_out(&serde_json::to_string(&value).expect("JSON values serialize"));
}

/// A command's human output, as `println!` takes it: every line a command prints goes through
/// [`write_out`], so `… | head` ends it quietly like `--json` does (`println!` panics there).
macro_rules! say {
    () => {
        $crate::cli::output::write_out("")
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_out(&format!($($arg)*))
    };
}
pub(crate) use say;

/// A line on stdout. When the reader has gone (`… | head`), nothing more can reach it: the
/// process ends quietly (exit 0), as a Unix tool does, instead of panicking on the broken pipe.
pub(crate) fn write_out(text: &str) {
    write_bytes(format!("{text}\n").as_bytes());
}

/// Bytes on stdout as they are (a generated script, a man page), with `write_out`'s broken-pipe
/// rule.
pub(crate) fn write_bytes(bytes: &[u8]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
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
    fn exit_status_follows_the_worst_fate() {
        let status = |fates: &[&str]| match expect_outcomes("succeeded", fates.iter().copied()) {
            Ok(()) => 0,
            Err(e) => {
                let code = e.exit_code();
                [1u8, 2, 3, 4, 5]
                    .into_iter()
                    .find(|c| ExitCode::from(*c) == code)
                    .unwrap()
            }
        };
        assert_eq!(status(&["succeeded", "succeeded"]), 0);
        assert_eq!(status(&["succeeded", "pending"]), EXIT_PENDING);
        assert_eq!(status(&["unknown"]), EXIT_PENDING);
        assert_eq!(status(&["pending", "expired"]), EXIT_FAILED);
        assert_eq!(status(&["failed"]), EXIT_FAILED);
        assert_eq!(status(&["cancelled"]), EXIT_FAILED);
        assert_eq!(status(&["failed", "refused: nonce_used"]), EXIT_REFUSED);
        assert!(expect_outcomes("cancelled", ["cancelled"]).is_ok());
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
