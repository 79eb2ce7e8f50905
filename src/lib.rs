//! papertrade-tui: trade Papertrade perps from a terminal. See README.md.
//!
//! The layers (which module holds what and may use which), the message/effect loop and where a
//! change goes are in ARCHITECTURE.md at the repository's root, which `tests/it/layers.rs`
//! enforces.
//!
//! The public API is what `tests/` and `benches/` use (and `main.rs`, which calls `cli::main`):
//! the `pub` modules below and, inside them, the items they name or that those items' public
//! signatures expose. It is wide on purpose: the tests drive the real code through it (the
//! simulator, the HTTP and stream clients, `App::handle`, the UI loop over a `TestBackend`), not
//! a facade. Everything else is `pub(crate)`, so the compiler reports what nothing uses.

pub mod analytics;
pub(crate) mod answers;
pub mod app;
pub mod cli;
pub mod client;
pub mod clock;
pub mod config;
pub mod events;
pub mod keys;
pub(crate) mod local_server;
pub(crate) mod logging;
pub mod mcp;
pub mod protocol;
pub mod sim;
pub mod store;
pub(crate) mod text;
pub mod tui;
pub mod ui;
