//! `mcp`: the assistants' server (the seed MCP servers' read-only tools) over stdio or
//! Streamable HTTP.

use clap::Args;

use super::Context;
use super::output::CliError;
use super::signal::stop_signal;

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Expose only this seed server's tools, under exactly its names (repeatable; default: all).
    #[arg(long, value_name = "SEED",
          value_parser = clap::builder::PossibleValuesParser::new(crate::mcp::Seed::NAMES))]
    pub only: Vec<String>,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (IP:PORT; port 0 picks one).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: allow an address other machines can reach (anyone who can connect can use
    /// the tools).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// With --http: calls per minute per client (source) address, a batch counting each of its
    /// messages; all clients together get five times this.
    #[arg(long, value_name = "N", requires = "http", default_value_t = crate::mcp::DEFAULT_RATE_PER_MINUTE,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub rate_per_minute: u32,
}

/// `mcp`: the assistants' server on stdio until the client hangs up, or over either until
/// Ctrl-C or SIGTERM. Read-only by construction (no tool reaches a signer), so signing is locked for
/// the whole process too.
pub(crate) async fn run(ctx: &Context, a: McpArgs) -> Result<(), CliError> {
    crate::protocol::eip712::lock_read_only();
    let only: Vec<crate::mcp::Seed> = a
        .only
        .iter()
        .filter_map(|s| crate::mcp::Seed::parse(s))
        .collect();
    let reads = crate::mcp::Reads {
        http: ctx.http.clone(),
        data_dir: ctx.data_dir.clone(),
        deadlines: ctx.deadlines,
    };
    let Some(http) = a.http else {
        // Installed before the first message is read: Ctrl-C or SIGTERM ends the session
        // cleanly (exit 0) as the client hanging up does.
        let stop = stop_signal();
        return tokio::select! {
            served = crate::mcp::serve_stdio(reads, &only) => served.map_err(CliError::Local),
            () = stop => Ok(()),
        };
    };
    let addr: std::net::SocketAddr = http.trim().parse().map_err(|_| {
        CliError::input(
            "http",
            format!("must be IP:PORT such as 127.0.0.1:8765, got {http:?}"),
        )
    })?;
    crate::local_server::check_bind(
        addr,
        a.allow_remote,
        "use its tools (and read the exchange through this machine)",
        "127.0.0.1:PORT",
    )
    .map_err(|m| CliError::input("http", m))?;
    let server = crate::mcp::HttpServer::start(reads, &only, addr, a.rate_per_minute)
        .await
        .map_err(|e| CliError::input("http", format!("cannot listen on {addr}: {e}")))?;
    let stop = stop_signal();
    // The one line on stderr (stdout stays as clean as over stdio): where it serves.
    eprintln!(
        "papertrade-tui MCP server (read-only) at {}; Ctrl-C stops it.",
        server.url()
    );
    stop.await;
    server.stop().await;
    Ok(())
}
