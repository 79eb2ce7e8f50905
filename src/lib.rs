//! papertrade-tui: trade Papertrade perps from a terminal. See README.md.
//!
//! Layers depend downward only:
//!
//! ```text
//! cli        commands; opens the UI
//! mcp        the assistants' server: the seeds' tools over report (no UI, no terminal)
//! tui        the event loop: terminal and network -> App; effects -> tasks
//! ui         panes (one file each), key translation, theme
//! app        App state and its folds: no I/O, no clock, no terminal, no client
//! client     HTTP, the account stream, orders -> signed intents -> sent once, nonces, audit
//! report     what a read-only command answers (gather + compute), shared by cli and mcp
//! analytics  explorer and liquidation figures: pure functions over fetched data
//! feed       what network tasks report and how intents' fates are read from it (pure)
//! keys       session key and owner keystore
//! analytics  the explorer's functions over reads: leaderboard, wallet, history, overview (pure)
//! quote      pre-trade composition over the protocol math
//! protocol   wire types, integer math, EIP-712, orders -> intents (no I/O)
//! sim        the exchange simulator, on protocol
//! ```
//!
//! The public API is what `tests/` and `benches/` use (and `main.rs`, which calls `cli::main`):
//! the `pub` modules below and, inside them, the items they name or that those items' public
//! signatures expose. It is wide on purpose: the tests drive the real code through it (the
//! simulator, the HTTP and stream clients, `App::handle`, the UI loop over a `TestBackend`), not
//! a facade. Everything else is `pub(crate)`, so the compiler reports what nothing uses.

pub mod analytics;
pub mod app;
pub mod cli;
pub mod client;
pub mod clock;
pub mod config;
pub mod feed;
pub mod keys;
pub(crate) mod local_server;
pub(crate) mod logging;
pub mod mcp;
pub(crate) mod private_files;
pub mod protocol;
pub mod quote;
pub(crate) mod report;
pub mod sim;
pub(crate) mod text;
pub mod tui;
pub mod ui;
