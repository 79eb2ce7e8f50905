//! `papertrade-tui mcp`: the five seed documents' MCP servers in one local, read-only server —
//! the same tool names, argument names and ranges and result fields, answered by this binary's
//! own exact math and reads (`report`), with no hosted middleman.
//!
//! Over stdio nothing but protocol is ever written to stdout (logs go to the log file) and the
//! terminal's modes are never touched: an assistant launches it as a child process. Over HTTP
//! (`http`) the same `Server` answers behind rmcp's Streamable HTTP service.

mod catalog;
mod http;
mod schema;
mod seeds;
mod server;
mod spec;
mod tools;

pub use http::{DEFAULT_RATE_PER_MINUTE, HttpServer};
pub use server::{INSTRUCTIONS, Server, VERSIONS};
pub use spec::Seed;
pub use tools::Reads;

use rmcp::ServiceExt;

/// Serve MCP on stdin/stdout until the client closes its side.
pub async fn serve_stdio(reads: Reads, only: &[Seed]) -> Result<(), String> {
    let server = Server::new(reads, only);
    tracing::info!(?only, "mcp over stdio");
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("the MCP handshake failed: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("the MCP server stopped: {e}"))?;
    tracing::info!("mcp client closed stdio");
    Ok(())
}
