//! papertrade-tui: trade Papertrade perps from a terminal. See README.md.
//!
//! Layers depend downward only: `cli` → `client` → `quote` → `protocol`.

pub mod app;
pub mod cli;
pub mod client;
pub mod config;
pub mod keys;
pub mod logging;
pub mod private_files;
pub mod protocol;
pub mod quote;
pub mod sim;
pub mod text;
pub mod tui;
pub mod ui;
