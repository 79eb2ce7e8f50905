//! The flag groups several commands share (`--wait`, a market ticket), and the validation of
//! what a person typed: shared with the assistant tools, so it lives in `report::input`; every
//! failure names the flag and changes nothing.

use clap::Args;

pub use crate::answers::input::*;

/// How long a writing command follows the account stream for its intents' fate.
#[derive(Debug, Args, Clone, Copy)]
pub(crate) struct WaitArgs {
    /// Seconds to follow the account stream for the outcome before exiting 5 (still pending);
    /// 0 returns right after sending. Nothing is ever resent.
    #[arg(long = "wait", value_name = "SECS", default_value_t = 90,
          value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub secs: u64,
}

impl WaitArgs {
    pub(crate) fn duration(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.secs)
    }
}

#[derive(Debug, Args)]
pub(crate) struct MarketArgs {
    /// Market symbol or id (BTC, ETH, 0, 1).
    #[arg(long)]
    pub market: String,
    /// long or short.
    #[arg(long)]
    pub side: String,
    /// Margin in USD (at most 6 decimals).
    #[arg(long, allow_hyphen_values = true)]
    pub margin: String,
}
