//! `papertrade-tui mcp`: the five seed documents' MCP servers in one local, read-only server —
//! the same tool names, argument names and ranges and result fields, answered by this binary's
//! own exact math and reads (`report`), with no hosted middleman.
//!
//! Over stdio (`stdio`) nothing but protocol is ever written to stdout (logs go to the log file,
//! errors to stderr) and the terminal's modes are never touched: an assistant launches it as a
//! child process. Over HTTP
//! (`http`) the same `Server` answers behind rmcp's Streamable HTTP service.

mod catalog;
mod http;
mod jsonrpc;
mod schema;
mod seeds;
mod server;
mod spec;
mod stdio;
mod tools;

pub use http::{DEFAULT_RATE_PER_MINUTE, HttpServer};
pub use server::{INSTRUCTIONS, Server, VERSIONS};
pub use spec::Seed;
pub use stdio::serve_stdio;
pub use tools::Reads;
