//! Network access: the exchange's HTTP API and Hyperliquid's info endpoint. Live and simulated
//! exchanges go through the same code; only the base URL differs. Also the files of the data
//! directory the trading path keeps (nonces, audit log, the wallet's trade history).

pub mod evm;
pub mod explorer;
pub mod funding;
pub(crate) mod http;
pub mod intents;
pub mod limits;
pub mod live_account;
pub mod market;
pub mod market_data;
pub(crate) mod orders;
pub mod scan;
pub(crate) mod session_key;
pub mod sse;
pub mod stream;

pub use http::{ExchangeHttp, FetchError, HttpConfig};
