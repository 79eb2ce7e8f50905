//! The explorer's and the analytics services' functions, as pure computations over what the
//! client already reads (§3): the leaderboard, any wallet's balance sheet, intents, trade
//! history, the protocol overview, recent trades and candles, search, top traders, the PAPER
//! mint estimate and the liquidation figures (bust maps, closest to bust, clusters, wallet risk). No I/O, no clock, no terminal: callers pass the data and the time, and get
//! typed results with a `json()` in the seed tool's field names (the CLI prints them; the
//! assistant tools of the next issue serve the same values).
//!
//! JSON conventions: dollar figures are numbers rounded for reading, each beside its exact raw
//! integer as a decimal string (`…_raw` / `…Raw`); untrusted text (names) is sanitised here.

pub mod history;
pub mod intents;
pub mod leaderboard;
pub mod liquidations;
pub mod mint;
pub mod overview;
pub mod positions;
pub mod search;
pub mod status;
pub mod trades;
pub mod wallet;

use serde_json::Value;

use crate::protocol::units::{signed, wad_json};

/// A signed wad as dollars for a reader (cents).
pub(crate) fn usd(value: i128) -> Value {
    wad_json(value, 2)
}

/// An unsigned wad as dollars for a reader (cents).
pub(crate) fn usd_u(value: u128) -> Value {
    wad_json(signed(value), 2)
}

/// An exact integer as a decimal string.
pub(crate) fn raw(value: impl std::fmt::Display) -> Value {
    Value::String(value.to_string())
}

/// The longest leaderboard name shown (a name is untrusted text).
pub const NAME_CHARS: usize = 48;

/// A leaderboard name as it may be shown: sanitised, cut, `None` when nothing printable is left.
pub fn clean_name(name: Option<&str>) -> Option<String> {
    name.map(|n| crate::text::sanitize_line(n, NAME_CHARS))
        .filter(|n| !n.is_empty())
}
