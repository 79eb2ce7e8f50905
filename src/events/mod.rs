//! What the network tasks report and the app (and the commands) fold: market reads, the account
//! stream's events, the fate of intents as those events reveal it, and a liquidation scan. Each
//! market event is stamped with when it arrived. Pure data and pure folds: `client/` produces these, `app/` and
//! `cli/` consume them, and neither needs the other's internals.

pub mod account;
pub(crate) mod intents;
pub mod market;
pub mod scan;
