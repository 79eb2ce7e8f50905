//! `papertrade-tui mcp` over stdio: a thin line filter in front of rmcp's stdio transport
//! (rmcp is pinned at 3.11), as `http/front.rs` is in front of its HTTP service. rmcp reads one
//! JSON-RPC message per line but answers a line that is not JSON with nothing and a known method
//! with params of the wrong shape with -32601; here every line is checked first
//! ([`jsonrpc::parse`] and [`jsonrpc::classify`], the HTTP side's rules), answered with the
//! JSON-RPC error it deserves when it cannot be served, and passed to rmcp unchanged when it
//! can. Both writers, rmcp and this filter, go through one lock, a whole line at a time, so
//! stdout carries nothing but protocol messages.

use std::sync::Arc;

use rmcp::ServiceExt;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::jsonrpc::{self, INVALID_REQUEST, Messages};
use super::{Reads, Seed, Server};

/// One message per line, at most this long (rmcp's own limit is 16 MiB; a tool call is a few
/// hundred bytes).
pub(crate) const MAX_LINE: usize = 4 * 1024 * 1024;
/// Between the filter and rmcp, in memory.
const PIPE: usize = 64 * 1024;

/// Serve MCP on stdin/stdout until the client closes its side.
pub async fn serve_stdio(reads: Reads, only: &[Seed]) -> Result<(), String> {
    serve(reads, only, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serve MCP on `input`/`output` (stdin and stdout, or a test's pipes).
pub(crate) async fn serve<R, W>(
    reads: Reads,
    only: &[Seed],
    input: R,
    output: W,
) -> Result<(), String>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let server = Server::new(reads, only);
    tracing::info!(?only, "mcp over stdio");
    let out = Arc::new(Mutex::new(output));
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE);
    let forward = tokio::spawn(forward(from_rmcp, out.clone()));
    let filter = tokio::spawn(filter(BufReader::new(input), to_rmcp, out));
    let served = async {
        let running = server
            .serve((rmcp_in, rmcp_out))
            .await
            .map_err(|e| format!("the MCP handshake failed: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| format!("the MCP server stopped: {e}"))?;
        Ok(())
    }
    .await;
    // rmcp's side is closed now: what it wrote is forwarded to the end, then nothing is read.
    let _ = forward.await;
    filter.abort();
    if served.is_ok() {
        tracing::info!("mcp client closed stdio");
    }
    served
}

/// Every line rmcp writes, whole, to the shared output.
async fn forward<W: AsyncWrite + Unpin>(from_rmcp: tokio::io::DuplexStream, out: Arc<Mutex<W>>) {
    let mut lines = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if write_line(&out, &line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Each input line checked: passed to rmcp as it came, or answered here. Returning closes
/// rmcp's input, which ends the session as the client's EOF would.
async fn filter<R, W>(mut input: R, mut to_rmcp: tokio::io::DuplexStream, out: Arc<Mutex<W>>)
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    loop {
        let read = read_line_capped(&mut input, &mut line, MAX_LINE).await;
        let verdict = match read {
            Ok(Line::Eof) | Err(_) => return,
            Ok(Line::TooLong) => Verdict::Answer(jsonrpc::error(
                Value::Null,
                INVALID_REQUEST,
                format!("Invalid Request: a message over {MAX_LINE} bytes"),
            )),
            Ok(Line::Whole) => verdict(&line),
        };
        let written = match verdict {
            Verdict::Skip => Ok(()),
            Verdict::Pass => {
                let mut message = trimmed(&line).to_vec();
                message.push(b'\n');
                to_rmcp.write_all(&message).await
            }
            Verdict::Answer(error) => write_line(&out, format!("{error}\n").as_bytes()).await,
        };
        if written.is_err() {
            return;
        }
    }
}

enum Verdict {
    /// A blank line: nothing to answer.
    Skip,
    /// rmcp serves it.
    Pass,
    /// Answered here with this error.
    Answer(Value),
}

fn verdict(line: &[u8]) -> Verdict {
    let line = trimmed(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let message = match jsonrpc::parse(line) {
        Err(error) => return Verdict::Answer(error),
        Ok(Messages::Batch(_)) => {
            // MCP has had no batches since 2025-06-18, and rmcp's stdio transport none at all.
            return Verdict::Answer(jsonrpc::error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: no batches over stdio; send one message per line",
            ));
        }
        Ok(Messages::One(message)) => message,
    };
    // A client's answer to something the server asked (rmcp's to route).
    let is_response = message.get("method").is_none()
        && message.get("id").is_some()
        && (message.get("result").is_some() || message.get("error").is_some());
    if is_response {
        return Verdict::Pass;
    }
    match jsonrpc::classify(&message) {
        Ok(_) => Verdict::Pass,
        Err(error) => Verdict::Answer(error),
    }
}

/// The line without its `\n` or `\r\n`.
fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

async fn write_line<W: AsyncWrite + Unpin>(out: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut out = out.lock().await;
    out.write_all(line).await?;
    out.flush().await
}

enum Line {
    Whole,
    /// Over the cap: dropped up to its end.
    TooLong,
    Eof,
}

/// The next line into `line` (cleared first), never holding more than `cap` bytes of it. A last
/// line without its newline still counts.
async fn read_line_capped<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Line> {
    line.clear();
    let mut over = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (over, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::Eof,
                (false, false) => Line::Whole,
            });
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (&available[..=at], true),
            None => (available, false),
        };
        let used = chunk.len();
        if !over && line.len() + used > cap {
            over = true;
            line.clear();
        }
        if !over {
            line.extend_from_slice(chunk);
        }
        input.consume(used);
        if done {
            return Ok(if over { Line::TooLong } else { Line::Whole });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_capped_and_the_rest_of_a_long_one_dropped() {
        let mut input = BufReader::with_capacity(4, &b"abc\n0123456789\nxy"[..]);
        let mut line = Vec::new();
        let mut read = Vec::new();
        loop {
            match read_line_capped(&mut input, &mut line, 8).await.unwrap() {
                Line::Eof => break,
                Line::TooLong => read.push("too long".to_string()),
                Line::Whole => read.push(String::from_utf8(line.clone()).unwrap()),
            }
        }
        assert_eq!(read, ["abc\n", "too long", "xy"]);
    }

    #[test]
    fn each_line_is_passed_answered_or_skipped() {
        let code = |line: &str| match verdict(line.as_bytes()) {
            Verdict::Answer(e) => Some((e["error"]["code"].as_i64().unwrap(), e["id"].clone())),
            Verdict::Pass => None,
            Verdict::Skip => Some((0, Value::Null)),
        };
        assert_eq!(code("{not json\n"), Some((-32700, Value::Null)));
        assert_eq!(code("  \r\n"), Some((0, Value::Null)));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Some((-32600, Value::Null))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":"no"}}"#
            ),
            Some((-32602, 7.into()))
        );
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
    }
}
