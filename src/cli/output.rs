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
    /// The config file is unreadable or invalid (its own values only: a flag is `Input`).
    #[error("{0}")]
    Config(String),
    /// The session key or the owner's keystore cannot be used as it is: none, not registered,
    /// expired, the wrong or no passphrase, no keyring, a file that is no keystore.
    #[error("{0}")]
    Key(String),
    /// This machine's environment refuses the command until it is changed: the data directory
    /// (as given, or open to every user) or an environment variable's value.
    #[error("{0}")]
    Environment(String),
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
    /// The exchange's state refuses it now (trading, a market or the intake paused), found by
    /// the pre-trade checks or said by the relayer: nothing was done, and the same command may
    /// pass later. `reason` is the relayer's code for it.
    #[error("{message}")]
    State { reason: String, message: String },
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
    /// Every refused intent was refused for the exchange's state (paused, close-only, intake
    /// paused): nothing of them was queued, and the same command may pass once it changes.
    StateRefused,
    /// An intent ended failed, expired or cancelled (or a cancel lost the race).
    Failed,
    /// No fate was seen before the command stopped waiting: it may still settle.
    Pending,
}

/// Exit statuses: 0 done as asked, 1 network or answer, 2 input, and these four. The exit code
/// table in docs/commands.md is the one place they are documented.
pub const EXIT_REFUSED: u8 = 3;
pub const EXIT_FAILED: u8 = 4;
pub const EXIT_PENDING: u8 = 5;
pub const EXIT_STATE: u8 = 6;

/// The fate [`expect_outcomes`] reads for an intent the relayer refused for the exchange's state
/// (`CliError::State`), beside `refused…` for any other refusal.
pub const REFUSED_STATE: &str = "refused_state";

/// What a set of intents' fates means for the exit status: every one `wanted` is success; any
/// other settled fate is a failure; a fate not seen (`pending`, `unknown`) is pending. The worst
/// wins, refusals (`refused…`) first; when every refusal is [`REFUSED_STATE`], the exchange's
/// state is what refused them.
pub fn expect_outcomes<'a>(
    wanted: &str,
    fates: impl IntoIterator<Item = &'a str>,
) -> Result<(), CliError> {
    let fates: Vec<&str> = fates.into_iter().collect();
    let count = |f: &dyn Fn(&str) -> bool| fates.iter().filter(|x| f(x)).count();
    let refused = count(&|x| x.starts_with("refused"));
    let state_refused = count(&|x| x == REFUSED_STATE);
    let pending = count(&|x| matches!(x, "pending" | "unknown"));
    let failed = fates.len() - refused - pending - count(&|x| x == wanted);
    let of = fates.len();
    let (status, message) = if refused > 0 && refused == state_refused {
        (
            Unsettled::StateRefused,
            format!(
                "{refused} of {of} intent(s) were refused for the exchange's state now; nothing \
                 of them was queued (the same command may pass once it changes)"
            ),
        )
    } else if refused > 0 {
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

    /// The relayer refused an intent with `code`: a state refusal (exit 6) when the code is
    /// about the exchange's state, otherwise a refusal of the intent itself (exit 3).
    pub(crate) fn refused(code: &str, message: String) -> Self {
        if crate::protocol::relayer::is_state_refusal(code) {
            CliError::State {
                reason: code.to_string(),
                message: format!("the relayer refused it now ({code}): {message}"),
            }
        } else {
            CliError::Refused {
                code: code.to_string(),
                message,
            }
        }
    }

    pub(crate) fn code(&self) -> &'static str {
        match self {
            CliError::Input { .. } => "invalid_argument",
            CliError::Usage(_) => "usage",
            CliError::Config(_) => "config",
            CliError::Key(_) => "key",
            CliError::Environment(_) => "environment",
            CliError::Network(_) => "unreachable",
            CliError::Malformed(_) => "malformed_answer",
            CliError::Local(_) => "local_failure",
            CliError::Refused { .. } => "refused",
            CliError::State { .. } => "exchange_state",
            CliError::Unsettled { status, .. } => match status {
                Unsettled::Refused => "refused",
                Unsettled::StateRefused => "exchange_state",
                Unsettled::Failed => "not_settled",
                Unsettled::Pending => "pending",
            },
        }
    }

    /// 2: the caller must change something; 1: the world failed, trying later may work; 6: the
    /// exchange's state refuses it for now (see the exit code table in docs/commands.md).
    pub(crate) fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Input { .. }
            | CliError::Usage(_)
            | CliError::Config(_)
            | CliError::Key(_)
            | CliError::Environment(_) => ExitCode::from(2),
            CliError::Network(_) | CliError::Malformed(_) | CliError::Local(_) => ExitCode::from(1),
            CliError::Refused { .. } => ExitCode::from(EXIT_REFUSED),
            CliError::State { .. } => ExitCode::from(EXIT_STATE),
            CliError::Unsettled { status, .. } => ExitCode::from(match status {
                Unsettled::Refused => EXIT_REFUSED,
                Unsettled::StateRefused => EXIT_STATE,
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
            let mut error = json!({"code": code, "field": field, "message": message});
            if let CliError::State { reason, .. } = self {
                error["reason"] = Value::String(crate::text::sanitize_line(reason, 64));
            }
            print_json_line(&json!({ "error": error }));
        } else {
            eprintln!("error: {message}");
        }
        self.exit_code()
    }
}

impl From<crate::answers::AnswerError> for CliError {
    fn from(e: crate::answers::AnswerError) -> Self {
        use crate::answers::AnswerError;
        match e {
            AnswerError::Input { field, message } => CliError::Input { field, message },
            AnswerError::Network(m) => CliError::Network(m),
            AnswerError::Malformed(m) => CliError::Malformed(m),
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
/// Every human table formats a thing one way: money `$1,234.57` (grouped, cents), prices at the
/// market's precision (`82,332.0`), times `YYYY-MM-DD HH:MM` in UTC.
pub use crate::protocol::units::{
    price_display as price, usd_signed_text as usd_signed, usd_text as usd,
};

/// A time for a person, in every table: `2026-10-13 03:41` UTC (the header says UTC).
pub fn time_utc(ms: u64) -> String {
    crate::clock::utc_minute_text(ms)
}

/// A dollar figure the exchange sends as a display float, as [`usd`] shows a wad: `$1,234.57`.
pub fn usd_shown(x: f64) -> String {
    let text = group_thousands(&format!("{:.2}", x.abs()));
    if x < 0.0 && text != "0.00" {
        format!("-${text}")
    } else {
        format!("${text}")
    }
}

/// As [`usd_shown`] with an explicit `+` on gains, as [`usd_signed`].
pub fn usd_signed_shown(x: f64) -> String {
    let text = usd_shown(x);
    if x > 0.0 && text != "$0.00" {
        format!("+{text}")
    } else {
        text
    }
}

/// A price the exchange sends as a display float or text, at the market's `decimals`, as
/// [`price`] shows a raw one: `82,332.0`. Text that is not a number is shown as it came,
/// sanitised.
pub fn price_shown(text: &str, decimals: u32) -> String {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => group_thousands(&format!("{x:.prec$}", prec = decimals as usize)),
        _ => crate::text::sanitize_line(text, 24),
    }
}

/// The price decimals of each listed market, by symbol and by id, for tables of the exchange's
/// display floats (the trades feed, history). Empty when the markets could not be read: prices
/// are then shown with the digits they came with.
#[derive(Debug, Default)]
pub struct Precision(Vec<(String, u32, u32)>);

impl Precision {
    pub fn of(state: &crate::protocol::trading::TradingState) -> Self {
        Self(
            state
                .instruments
                .iter()
                .map(|i| (i.symbol.clone(), i.id, i.price_decimals()))
                .collect(),
        )
    }

    /// The markets' precisions, or none when they cannot be read (a table is still printed).
    pub async fn read(http: &crate::client::ExchangeHttp) -> Self {
        http.trading_state()
            .await
            .map(|s| Self::of(&s))
            .unwrap_or_default()
    }

    /// A display-float price of market `symbol` (or `#id`) as every table shows it.
    pub fn price(&self, symbol: &str, id: Option<u32>, x: f64) -> String {
        let found = self
            .0
            .iter()
            .find(|(s, i, _)| s == symbol || Some(*i) == id);
        match found {
            Some((_, _, d)) => price_shown(&x.to_string(), *d),
            None => quantity_shown(&x.to_string()),
        }
    }
}

/// A quantity (not money, not a price), grouped, its digits kept: `1,213.0961`.
pub fn quantity_shown(text: &str) -> String {
    let t = crate::text::sanitize_line(text.trim(), 32);
    if t.parse::<f64>().is_ok() {
        group_thousands(&t)
    } else {
        t
    }
}

use crate::protocol::units::group_thousands;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A plain-text table with a header rule; columns sized to their widest cell. On a terminal
/// narrower than the table (or `COLUMNS` when stdout is not one), the least important columns
/// are left out whole, as the UI's tables do, and a last line names them; a number is never cut.
pub struct Table {
    columns: Vec<(String, Align, u8)>,
    rows: Vec<Vec<String>>,
}

/// How wide a human table may be: the terminal's width, else `COLUMNS`, else unlimited (a
/// pipe or a file gets every column).
fn output_width() -> Option<usize> {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal()
        && let Ok((w, _)) = crossterm::terminal::size()
        && w > 0
    {
        return Some(usize::from(w));
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w > 0)
}

impl Table {
    /// Every column stays whatever the width, until [`Table::keep`] says how much each matters.
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Self {
            columns: columns
                .iter()
                .map(|(h, a)| (h.to_string(), *a, 10))
                .collect(),
            rows: Vec::new(),
        }
    }

    /// How much each column matters on a narrow terminal, in order: lower goes first; 10 and
    /// above always stay.
    pub fn keep(mut self, keep: &[u8]) -> Self {
        debug_assert_eq!(keep.len(), self.columns.len());
        for (c, k) in self.columns.iter_mut().zip(keep) {
            c.2 = *k;
        }
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        self.render_within(output_width())
    }

    /// The table in at most `width` columns when given (see [`Table`]).
    pub fn render_within(&self, width: Option<usize>) -> String {
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, (h, _, _))| {
                self.rows
                    .iter()
                    .map(|r| r[i].chars().count())
                    .chain([h.chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let shown = match width {
            Some(w) => {
                let sized: Vec<(usize, u8)> = widths
                    .iter()
                    .zip(&self.columns)
                    .map(|(w, c)| (*w, c.2))
                    .collect();
                crate::ui::columns::fit_widths(&sized, w, 2)
            }
            None => vec![true; widths.len()],
        };
        let line = |cells: Vec<&str>| -> String {
            let parts: Vec<String> = cells
                .iter()
                .zip(&self.columns)
                .zip(&widths)
                .zip(&shown)
                .filter(|(_, keep)| **keep)
                .map(|(((cell, (_, align, _)), w), _)| match align {
                    Align::Left => format!("{cell:<w$}"),
                    Align::Right => format!("{cell:>w$}"),
                })
                .collect();
            parts.join("  ").trim_end().to_string()
        };
        let mut out = line(self.columns.iter().map(|(h, _, _)| h.as_str()).collect());
        out.push('\n');
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        out.push_str(&line(rule.iter().map(String::as_str).collect()));
        for row in &self.rows {
            out.push('\n');
            out.push_str(&line(row.iter().map(String::as_str).collect()));
        }
        let dropped: Vec<&str> = self
            .columns
            .iter()
            .zip(&shown)
            .filter(|(_, keep)| !**keep)
            .map(|((h, _, _), _)| h.as_str())
            .collect();
        if !dropped.is_empty() {
            out.push_str(&format!(
                "\n(left out at {} columns: {})",
                width.unwrap_or(0),
                dropped.join(", ")
            ));
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
                [1u8, 2, 3, 4, 5, 6]
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
        // A close batch the relayer refused because the market or intake was paused: the
        // exchange's state, as for a single open, unless another refusal is about the intent.
        assert_eq!(status(&["succeeded", REFUSED_STATE]), EXIT_STATE);
        assert_eq!(status(&[REFUSED_STATE, "refused"]), EXIT_REFUSED);
        assert!(expect_outcomes("cancelled", ["cancelled"]).is_ok());
    }

    #[test]
    fn a_state_refusal_is_not_a_refusal_of_the_intent() {
        let paused = CliError::refused("intake_paused", "Paused".into());
        assert_eq!(paused.code(), "exchange_state");
        assert_eq!(paused.exit_code(), ExitCode::from(EXIT_STATE));
        let nonce = CliError::refused("nonce_used", "used".into());
        assert_eq!(nonce.code(), "refused");
        assert_eq!(nonce.exit_code(), ExitCode::from(EXIT_REFUSED));
    }

    #[test]
    fn one_way_to_show_money_prices_and_times() {
        assert_eq!(usd_shown(202_903_911.0), "$202,903,911.00");
        assert_eq!(usd_shown(-1.005), "-$1.00");
        assert_eq!(usd_shown(-0.001), "$0.00");
        assert_eq!(usd_signed_shown(39.45), "+$39.45");
        assert_eq!(usd_signed_shown(-1.1), "-$1.10");
        assert_eq!(price_shown("82332", 1), "82,332.0");
        assert_eq!(price_shown("2460", 2), "2,460.00");
        assert_eq!(price_shown("x\u{1b}[2J", 1), "x");
        assert_eq!(quantity_shown("1213.0961"), "1,213.0961");
        assert_eq!(time_utc(1_791_862_860_000), "2026-10-13 03:41");
    }

    #[test]
    fn a_narrow_table_leaves_out_the_least_important_columns_whole() {
        let mut t = Table::new(&[
            ("TIME", Align::Left),
            ("PRICE", Align::Right),
            ("WALLET", Align::Left),
        ])
        .keep(&[10, 8, 2]);
        t.row(vec![
            "2026-10-13 03:41".into(),
            "82,332.0".into(),
            "0x".repeat(21),
        ]);
        let wide = t.render_within(None);
        assert!(wide.contains("WALLET"));
        let narrow = t.render_within(Some(30));
        assert!(
            narrow.lines().take(3).all(|l| l.chars().count() <= 30),
            "{narrow}"
        );
        assert_eq!(
            narrow.lines().count(),
            4,
            "header, rule, row, what was left out"
        );
        assert!(
            narrow.contains("82,332.0") && !narrow.contains("0x0x"),
            "{narrow}"
        );
        assert!(
            narrow.ends_with("(left out at 30 columns: WALLET)"),
            "{narrow}"
        );
        // Columns that always stay stay, even past the width.
        assert!(t.render_within(Some(5)).contains("2026-10-13 03:41"));
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
