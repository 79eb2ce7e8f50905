//! Papertrade's wire formats, settlement math and EIP-712 intents. No I/O, no async: every
//! other layer (client, simulator, UI) stands on this one, so a rule is written once.

pub mod account;
pub mod coverage;
pub mod eip712;
pub mod exact;
pub mod failure;
pub mod funding;
pub mod history;
pub mod hypercore_send;
pub mod hyperliquid;
pub mod leaderboard;
pub mod math;
pub mod order;
pub mod pretrade;
pub(crate) mod price;
pub mod reads;
pub mod relayer;
pub(crate) mod rules;
pub mod settlement;
pub mod trading;
pub(crate) mod units;
pub(crate) mod wire;
