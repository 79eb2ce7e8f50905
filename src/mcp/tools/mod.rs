//! The tools' implementations, one per thing they do: where two seeds' tools do the same thing
//! (three quote an open, three list markets) they share one, and only the arguments' names and a
//! few result names differ. Each answers from `report`, the code behind the `--json` commands.

mod explorer;
mod liquidations;
mod markets;
mod paid;
mod quote;
mod status;
mod transaction;
mod typed_data;

use serde_json::{Map, Value};

use crate::answers::AnswerError;
use crate::client::ExchangeHttp;
use crate::protocol::order::Deadlines;

pub use explorer::{PositionsView, TERMINAL_POSITIONS_LIMIT};
pub use liquidations::BustMapView;
pub use markets::MarketsView;
pub use paid::{FREE, NO_PAYMENT, Paid, X402_VERSION};
pub use quote::QuoteView;
pub use status::StatusView;

/// What every tool reads with.
#[derive(Clone)]
pub struct Reads {
    pub http: ExchangeHttp,
    /// Where the wallets' local history files are (`get_trade_history` reads them).
    pub data_dir: std::path::PathBuf,
    /// `elsewhere_s`: how long a payload built for another wallet to sign stays valid when the
    /// caller gives no deadline.
    pub deadlines: Deadlines,
}

/// What a tool does; the catalog names it per seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    Markets(MarketsView),
    Quote(QuoteView),
    Ladder,
    CloseQuote,
    PrepareOpen,
    TradePlan,
    TypedData,
    PaperMint,
    Positions(PositionsView),
    RecentTrades,
    Candles,
    Search,
    Wallet,
    Intents,
    LookupIntent,
    DecodeTransaction,
    Leaderboard,
    TradeHistory,
    Overview,
    TopTraders,
    BustMap(BustMapView),
    ClosestToBust,
    BustClusters,
    /// One wallet's distance to bust; the argument is named `field` (`wallet` or `address`).
    WalletRisk(&'static str),
    LiquidationMap,
    Status(StatusView),
    /// One of the risk service's paid routes: its full answer, free here.
    Paid(Paid),
}

/// A tool's result: a short text for the model and the structured data for programs.
#[derive(Debug)]
pub struct Answer {
    pub text: String,
    pub value: Value,
}

/// Why a tool could not answer, worded for the model that called it.
#[derive(Debug)]
pub struct Failure(pub String);

impl Implementation {
    pub async fn call(self, reads: &Reads, args: &Map<String, Value>) -> Result<Answer, Failure> {
        let a = Args(args);
        match self {
            Implementation::Markets(view) => markets::markets(reads, view, &a).await,
            Implementation::Quote(view) => quote::quote(reads, view, &a).await,
            Implementation::Ladder => quote::ladder(reads, &a).await,
            Implementation::CloseQuote => quote::close_quote(reads, &a).await,
            Implementation::PrepareOpen => quote::prepare_open(reads, &a).await,
            Implementation::TradePlan => quote::trade_plan(reads, &a).await,
            Implementation::TypedData => typed_data::typed_data(reads, &a).await,
            Implementation::PaperMint => explorer::paper_mint(reads, &a).await,
            Implementation::Positions(view) => explorer::positions(reads, view, &a).await,
            Implementation::RecentTrades => explorer::recent_trades(reads, &a).await,
            Implementation::Candles => explorer::candles(reads, &a).await,
            Implementation::Search => explorer::search(reads, &a).await,
            Implementation::Wallet => explorer::wallet(reads, &a).await,
            Implementation::Intents => explorer::intents(reads, &a).await,
            Implementation::LookupIntent => explorer::lookup(reads, &a).await,
            Implementation::DecodeTransaction => transaction::decode(reads, &a).await,
            Implementation::Leaderboard => explorer::leaderboard(reads, &a).await,
            Implementation::TradeHistory => explorer::history(reads, &a).await,
            Implementation::Overview => explorer::overview(reads, &a).await,
            Implementation::TopTraders => explorer::top_traders(reads, &a).await,
            Implementation::Status(view) => status::status(reads, view, &a).await,
            Implementation::Paid(p) => paid::call(p, reads, args).await,
            Implementation::BustMap(_)
            | Implementation::ClosestToBust
            | Implementation::BustClusters
            | Implementation::WalletRisk(_)
            | Implementation::LiquidationMap => {
                // The scan's future is not provably `Send` (rustc cannot show it for the
                // closure `client::scan` hands to its stream), and a served tool call must be.
                // `block_on` on a blocking thread needs no `Send` for what it runs.
                let (reads, args, handle) = (
                    reads.clone(),
                    args.clone(),
                    tokio::runtime::Handle::current(),
                );
                tokio::task::spawn_blocking(move || {
                    handle.block_on(liquidations::call(self, &reads, &Args(&args)))
                })
                .await
                .unwrap_or_else(|e| Err(Failure(format!("the tool stopped unexpectedly: {e}"))))
            }
        }
    }
}

/// A call's arguments, already checked against the tool's input schema.
struct Args<'a>(&'a Map<String, Value>);

impl Args<'_> {
    /// A string argument, or a number's exact decimal text (JSON numbers keep their digits here,
    /// so `0.1` reaches the decimal parsers as `0.1`, never as a binary float).
    fn text(&self, name: &str) -> Option<String> {
        match self.0.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }
}

impl Failure {
    /// A report's failure in the tool's own words: `renames` maps the commands' field names
    /// (`margin`) to this tool's argument names (`marginUsd`).
    fn from_report(e: AnswerError, renames: &[(&str, &str)]) -> Self {
        match e {
            AnswerError::Input { field, message } => {
                let name = renames
                    .iter()
                    .find(|(from, _)| *from == field)
                    .map_or(field.as_str(), |(_, to)| to);
                Failure(format!(
                    "Invalid argument {name}: {message}. Fix it and call the tool again; nothing was done."
                ))
            }
            AnswerError::Network(m) | AnswerError::Malformed(m) => Failure(format!(
                "The exchange could not be read: {}. It may be down or slow: try again in a minute. Nothing was done.",
                crate::text::sanitize_line(&m, 300)
            )),
        }
    }
}

/// The commands' field names as the quote tools spell them.
const QUOTE_RENAMES: &[(&str, &str)] = &[
    ("margin", "marginUsd"),
    ("entry", "entryPrice"),
    ("exit", "exitPrice"),
];
