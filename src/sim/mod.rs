//! The exchange simulator: a strict local Papertrade (§2–§6) for practice, demos and every
//! integration test. It shares the protocol layer with the client: one implementation of the
//! rules, not two.

pub(crate) mod chain;
mod controls;
mod crowd;
pub(crate) mod engine;
mod exchange;
mod http;
mod hypercore;
pub(crate) mod intake;
mod market;
mod reads;
mod rng;
mod settle;

pub use chain::SettlementTx;
pub use engine::{Engine, SimConfig};
pub use http::SimServer;
