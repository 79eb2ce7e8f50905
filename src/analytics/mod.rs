//! Read-only analytics over data the client already fetched: pure functions (no network, no
//! terminal, no clock) that the commands print, the panes draw and the assistant server returns.

pub mod liquidations;
