//! `papertrade-tui mcp --http`: the same server as Streamable HTTP, in process and as the real
//! binary, against the simulator. The SDK's client side over streamable HTTP calls the tools
//! (every one, through `mcp::every_tool_is_exact`); raw requests check the transport behaviour
//! the hosted seed servers document (versions, batches, errors, 202/405, CORS, limits, the
//! Host and Origin rules).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;

use papertrade_tui::mcp::{HttpServer, Reads};
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::mcp::{Client, call, every_tool_is_exact, reads, sim_at_seed_price, structured};
use crate::support;

const LOOPBACK_ANY_PORT: &str = "127.0.0.1:0";

async fn start(reads: Reads, rate_per_minute: u32) -> HttpServer {
    HttpServer::start(
        reads,
        &[],
        LOOPBACK_ANY_PORT.parse().unwrap(),
        rate_per_minute,
    )
    .await
    .unwrap()
}

/// The SDK's client over streamable HTTP.
async fn sdk_client(
    url: &str,
    version: ProtocolVersion,
) -> RunningService<rmcp::RoleClient, Client> {
    Client { version }
        .serve(StreamableHttpClientTransport::from_uri(url.to_string()))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_over_http_within_its_output_schema_and_the_figures_are_exact() {
    every_tool_is_exact(async |reads| {
        let server = start(reads, 1_000).await;
        let client = sdk_client(&server.url(), ProtocolVersion::V_2025_06_18).await;
        (client, server)
    })
    .await;
}

/// A raw POST: status, headers and body text.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.text))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

struct Raw {
    http: reqwest::Client,
    url: String,
}

impl Raw {
    fn new(server: &HttpServer) -> Self {
        Self {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .unwrap(),
            url: server.url(),
        }
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.unwrap();
        // Stateless: no answer ever opens a session.
        assert!(headers.get("mcp-session-id").is_none(), "{headers:?}");
        Answer {
            status,
            headers,
            text,
        }
    }

    fn post(&self) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
    }

    async fn rpc(&self, body: Value) -> Answer {
        self.send(self.post().body(body.to_string())).await
    }
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn initialize(id: i64, version: &str) -> Value {
    request(
        id,
        "initialize",
        json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transport_behaves_as_the_hosted_servers_document() {
    let sim = sim_at_seed_price().await;
    let server = start(reads(&sim), 1_000).await;
    let raw = Raw::new(&server);

    // The versions with a handshake are echoed; another gets 2025-06-18.
    for (asked, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2025-11-25", "2025-11-25"),
        // 2026-07-28 has no handshake: asked over `initialize`, the seeds' default answers.
        ("2026-07-28", "2025-06-18"),
        ("2024-01-01", "2025-06-18"),
    ] {
        let a = raw.rpc(initialize(1, asked)).await;
        assert_eq!(a.status, 200, "{}", a.text);
        assert!(
            a.header("content-type")
                .unwrap()
                .starts_with("application/json"),
            "{:?}",
            a.headers
        );
        let v = a.json();
        assert_eq!(v["id"], 1);
        assert_eq!(v["result"]["protocolVersion"], answered, "{v}");
        assert_eq!(v["result"]["serverInfo"]["name"], "papertrade-tui");
        assert_eq!(
            v["result"]["capabilities"],
            json!({"tools": {"listChanged": false}})
        );
        assert_eq!(a.header("access-control-allow-origin"), Some("*"));
    }

    // A notification alone: 202, no body.
    let a = raw
        .rpc(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!((a.status, a.text.as_str()), (202, ""));

    // ping, and the three lists the seeds answer empty.
    let a = raw.rpc(request(2, "ping", json!({}))).await;
    assert_eq!(a.json()["result"], json!({}), "{}", a.text);
    for (method, field) in [
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
        ("prompts/list", "prompts"),
    ] {
        let v = raw.rpc(request(3, method, json!({}))).await.json();
        assert_eq!(v["result"][field], json!([]), "{method}: {v}");
    }

    // Errors: unknown method, unknown tool, parse error, an invalid request, wrong params.
    let v = raw.rpc(request(4, "tools/destroy", json!({}))).await.json();
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(4), json!(-32601)),
        "{v}"
    );
    let v = raw
        .rpc(request(
            5,
            "tools/call",
            json!({"name": "place_order", "arguments": {}}),
        ))
        .await
        .json();
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("place_order"),
        "{v}"
    );
    let a = raw.send(raw.post().body("{\"jsonrpc\": \"2.0\", ")).await;
    assert_eq!(a.status, 400);
    assert_eq!(a.json()["error"]["code"], -32700, "{}", a.text);
    assert_eq!(a.json()["id"], Value::Null);
    let a = raw
        .rpc(json!({"jsonrpc": "1.0", "id": 6, "method": "ping"}))
        .await;
    assert_eq!(
        (a.status, a.json()["error"]["code"].clone()),
        (400, json!(-32600)),
        "{}",
        a.text
    );
    let a = raw
        .rpc(request(7, "tools/call", json!({"arguments": {}})))
        .await;
    assert_eq!(a.json()["error"]["code"], -32602, "{}", a.text);
    assert_eq!(a.json()["id"], 7);

    // A batch: answers in order, notifications without an entry, errors in place.
    let tool_list = raw.rpc(request(8, "tools/list", json!({}))).await.json();
    let tools = tool_list["result"]["tools"].as_array().unwrap().clone();
    let batch = json!([
        request(10, "tools/call", json!({"name": "quote_leverage_ladder", "arguments": {"market": "BTC", "side": "long", "marginUsd": 100}})),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        request(11, "ping", json!({})),
        request(12, "no/such", json!({})),
        "not a message",
        {"jsonrpc": "2.0", "id": "thirteen", "method": "tools/list"},
    ]);
    let a = raw.rpc(batch).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let answers = a.json();
    let ids: Vec<Value> = answers
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [
            json!(10),
            json!(11),
            json!(12),
            Value::Null,
            json!("thirteen")
        ]
    );
    let at_500 = answers[0]["result"]["structuredContent"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["leverage"] == 500)
        .unwrap()
        .clone();
    assert_eq!(at_500["bustPrice"], 82674.0);
    assert_eq!(answers[2]["error"]["code"], -32601);
    assert_eq!(answers[3]["error"]["code"], -32600);
    assert_eq!(
        answers[4]["result"]["tools"].as_array().unwrap().len(),
        tools.len()
    );
    // Only notifications: 202. Over 20: 400.
    let notes = json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}]);
    let a = raw.rpc(notes).await;
    assert_eq!((a.status, a.text.as_str()), (202, ""));
    let many: Vec<Value> = (0..21).map(|i| request(i, "ping", json!({}))).collect();
    let a = raw.rpc(Value::Array(many)).await;
    assert_eq!(
        (a.status, a.json()["error"]["code"].clone()),
        (400, json!(-32600)),
        "{}",
        a.text
    );
    let twenty: Vec<Value> = (0..20).map(|i| request(i, "ping", json!({}))).collect();
    let a = raw.rpc(Value::Array(twenty)).await;
    assert_eq!(a.json().as_array().unwrap().len(), 20, "{}", a.text);

    // Accept: text/event-stream alone gets one SSE `message` event.
    let a = raw
        .send(
            raw.http
                .post(&raw.url)
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .body(request(20, "ping", json!({})).to_string()),
        )
        .await;
    assert_eq!(a.status, 200);
    assert!(
        a.header("content-type")
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events: Vec<&str> = a
        .text
        .split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .collect();
    assert_eq!(events.len(), 1, "{:?}", a.text);
    let mut lines = events[0].lines();
    assert_eq!(lines.next(), Some("event: message"));
    let data: Value =
        serde_json::from_str(lines.next().unwrap().strip_prefix("data: ").unwrap()).unwrap();
    assert_eq!(
        (data["id"].clone(), data["result"].clone()),
        (json!(20), json!({}))
    );
    // Without a JSON content type: 415; an unknown MCP-Protocol-Version header: 400.
    let a = raw
        .send(
            raw.http
                .post(&raw.url)
                .header("content-type", "text/plain")
                .body("{}"),
        )
        .await;
    assert_eq!(a.status, 415, "{}", a.text);
    let a = raw
        .send(
            raw.post()
                .header("mcp-protocol-version", "1999-01-01")
                .body(request(21, "ping", json!({})).to_string()),
        )
        .await;
    // Refused with 2026-07-28's code for it, naming the versions served.
    assert_eq!(
        (a.status, a.json()["error"]["code"].clone()),
        (400, json!(-32022)),
        "{}",
        a.text
    );
    let a = raw
        .send(
            raw.post()
                .header("mcp-protocol-version", "2025-03-26")
                .body(request(22, "ping", json!({})).to_string()),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.text);

    // GET: a description; with Accept: text/event-stream, 405 Allow: POST. DELETE: 405.
    let a = raw.send(raw.http.get(&raw.url)).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let d = a.json();
    assert_eq!(d["name"], "papertrade-tui");
    assert_eq!(d["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(d["transport"], "streamable-http");
    assert_eq!(d["endpoint"], server.url());
    assert_eq!(d["tools"], tools.len());
    assert!(
        d["access"].as_str().unwrap().starts_with("Read-only"),
        "{d}"
    );
    assert_eq!(d["limits"]["requestsPerMinute"], 1000);
    let a = raw
        .send(raw.http.get(&raw.url).header("accept", "text/event-stream"))
        .await;
    assert_eq!((a.status, a.header("allow")), (405, Some("POST")));
    let a = raw.send(raw.http.delete(&raw.url)).await;
    assert_eq!((a.status, a.header("allow")), (405, Some("POST")));

    // CORS preflight from a loopback page: 204 with the headers a browser needs.
    let a = raw
        .send(
            raw.http
                .request(reqwest::Method::OPTIONS, &raw.url)
                .header("origin", "http://localhost:5173")
                .header("access-control-request-method", "POST")
                .header("access-control-request-headers", "content-type"),
        )
        .await;
    assert_eq!(a.status, 204, "{}", a.text);
    assert_eq!(a.header("access-control-allow-origin"), Some("*"));
    assert!(
        a.header("access-control-allow-methods")
            .unwrap()
            .contains("POST")
    );
    // The headers the seeds allow, and 2026-07-28's routing headers.
    let allowed = a
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase();
    for header in [
        "authorization",
        "mcp-session-id",
        "mcp-protocol-version",
        "content-type",
        "accept",
        "mcp-method",
        "mcp-name",
    ] {
        assert!(
            allowed.split(',').any(|h| h.trim() == header),
            "{header} not in {allowed}"
        );
    }
    // The loopback rule stays: a preflight from another site is refused.
    let a = raw
        .send(
            raw.http
                .request(reqwest::Method::OPTIONS, &raw.url)
                .header("origin", "https://evil.example")
                .header("access-control-request-method", "POST"),
        )
        .await;
    assert_eq!(a.status, 403, "{}", a.text);

    // The body cap: 65 KB is refused, whether declared or streamed without a length.
    let big = format!(
        "{{\"jsonrpc\": \"2.0\", \"id\": 30, \"method\": \"ping\", \"pad\": \"{}\"}}",
        "x".repeat(65 * 1024)
    );
    let a = raw.send(raw.post().body(big.clone())).await;
    assert_eq!(
        (a.status, a.json()["error"]["code"].clone()),
        (413, json!(-32600)),
        "{}",
        a.text
    );
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = big
        .into_bytes()
        .chunks(8 * 1024)
        .map(|c| Ok(c.to_vec()))
        .collect();
    let a = raw
        .send(
            raw.post()
                .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks))),
        )
        .await;
    assert_eq!(a.status, 413, "{}", a.text);

    // Host (DNS rebinding) and Origin: refused unless loopback.
    let port = server.addr.port();
    for host in [format!("localhost:{port}"), format!("[::1]:{port}")] {
        let a = raw
            .send(
                raw.post()
                    .header("host", host.clone())
                    .body(request(40, "ping", json!({})).to_string()),
            )
            .await;
        assert_eq!(a.status, 200, "{host}: {}", a.text);
    }
    for host in [format!("evil.example:{port}"), "127.0.0.1:1".to_string()] {
        let a = raw
            .send(
                raw.post()
                    .header("host", host.clone())
                    .body(request(41, "ping", json!({})).to_string()),
            )
            .await;
        assert_eq!(a.status, 403, "{host}: {}", a.text);
        let a = raw
            .send(raw.http.get(&raw.url).header("host", host.clone()))
            .await;
        assert_eq!(a.status, 403, "{host}: {}", a.text);
    }
    for origin in ["https://evil.example", "null"] {
        let a = raw
            .send(
                raw.post()
                    .header("origin", origin)
                    .body(request(42, "ping", json!({})).to_string()),
            )
            .await;
        assert_eq!(a.status, 403, "{origin}: {}", a.text);
        assert!(
            a.json()["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Origin")
        );
        let a = raw
            .send(
                raw.http
                    .request(reqwest::Method::OPTIONS, &raw.url)
                    .header("origin", origin),
            )
            .await;
        assert_eq!(a.status, 403, "{origin}: {}", a.text);
    }
    let a = raw
        .send(
            raw.post()
                .header("origin", "http://127.0.0.1:8080")
                .body(request(43, "ping", json!({})).to_string()),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_counts_each_call_and_answers_429_with_retry_after() {
    let sim = sim_at_seed_price().await;
    let server = start(reads(&sim), 4).await;
    let raw = Raw::new(&server);
    // A batch of two, then two single calls: the four of the minute.
    let batch = json!([request(1, "ping", json!({})), request(2, "ping", json!({}))]);
    assert_eq!(raw.rpc(batch).await.status, 200);
    for id in 3..5 {
        assert_eq!(raw.rpc(request(id, "ping", json!({}))).await.status, 200);
    }
    let a = raw.rpc(request(5, "ping", json!({}))).await;
    assert_eq!(a.status, 429, "{}", a.text);
    let retry: u64 = a.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let v = a.json();
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (json!(5), json!(-32029)),
        "{v}"
    );
    // GET describes the server whatever the count: it calls nothing.
    assert_eq!(raw.send(raw.http.get(&raw.url)).await.status, 200);
    // A batch larger than the whole allowance says so.
    let five: Vec<Value> = (0..5).map(|i| request(i, "ping", json!({}))).collect();
    let a = raw.rpc(Value::Array(five)).await;
    assert_eq!(a.status, 429);
    assert!(
        a.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("split it"),
        "{}",
        a.text
    );
    server.stop().await;
}

/// A server process, killed if the test fails before it stops it.
struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The real binary: `--http 127.0.0.1:0` prints its address (and nothing else) on stderr,
/// nothing on stdout; the SDK's client uses it; SIGTERM stops it cleanly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_http_prints_only_its_address_and_stops_on_sigterm() {
    let sim = sim_at_seed_price().await;
    let (mut command, _home) = support::command(&[
        "mcp",
        "--http",
        LOOPBACK_ANY_PORT,
        "--only",
        "terminal",
        "--api",
        &sim.server.base_url(),
        "--info-url",
        &sim.server.info_url(),
    ]);
    let mut served = Served(
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let child = &mut served.0;
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let line = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the address line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim_end_matches([';', '.', ','])
        .to_string();
    assert!(url.ends_with("/mcp"), "{line}");
    let addr: SocketAddr = url["http://".len()..url.len() - "/mcp".len()]
        .parse()
        .unwrap();
    assert_ne!(addr.port(), 0);

    let client = sdk_client(&url, ProtocolVersion::V_2025_03_26).await;
    assert_eq!(
        client.peer_info().unwrap().protocol_version,
        ProtocolVersion::V_2025_03_26
    );
    let tools = client.list_all_tools().await.unwrap();
    assert!(
        tools.iter().all(|t| !t.name.starts_with("papertrade_")),
        "--only terminal"
    );
    for (name, a) in [
        (
            "quote_leverage_ladder",
            json!({"market": "BTC", "side": "long", "marginUsd": 100}),
        ),
        ("list_markets", json!({})),
        ("get_protocol_status", json!({})),
        (
            "quote_close_position",
            json!({"market": "BTC", "side": "long", "entryPrice": 82800.3, "exitPrice": 82883.1, "marginUsd": 100, "leverage": 500}),
        ),
    ] {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let v = structured(tool, &call(&client, name, a).await);
        if name == "quote_close_position" {
            assert_eq!(v["netPnlUsd"], 36.25, "{v}");
        }
    }
    client.cancel().await.unwrap();

    let pid = child.id().to_string();
    let sent = std::process::Command::new("sh")
        .args(["-c", "kill -TERM \"$1\"", "sh", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    assert_eq!(out, "", "stdout stays clean");
    let rest: Vec<String> = rx.try_iter().collect();
    assert!(rest.is_empty(), "stderr beyond the address line: {rest:?}");
    // The port is released.
    assert!(std::net::TcpStream::connect(addr).is_err());
}

#[test]
fn a_non_loopback_address_is_refused_without_allow_remote() {
    // Each must exit at once; one that serves instead is stopped and fails the test.
    let run = |args: &[&str]| {
        let (mut command, _home) = support::command(args);
        let mut served = Served(
            command
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = served.0.try_wait().unwrap() {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{args:?} did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let (mut out, mut err) = (String::new(), String::new());
        std::io::Read::read_to_string(&mut served.0.stdout.take().unwrap(), &mut out).unwrap();
        std::io::Read::read_to_string(&mut served.0.stderr.take().unwrap(), &mut err).unwrap();
        (status.code(), out, err)
    };
    let (code, out, err) = run(&["mcp", "--http", "0.0.0.0:0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("not a loopback address") && err.contains("--allow-remote"),
        "{err}"
    );
    assert_eq!(out, "");
    let (code, _, err) = run(&["mcp", "--http", "localhost"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("IP:PORT"), "{err}");
    let (code, _, err) = run(&["mcp", "--allow-remote"]);
    assert_eq!(code, Some(2), "--allow-remote needs --http: {err}");
}

/// A client that stalls is cut off: one that never finishes its request head has its
/// connection closed, one that never finishes its body is answered 408, and one whose body
/// goes past the cap is answered 413 then, not when (if ever) the body ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_client_is_cut_off() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let sim = sim_at_seed_price().await;
    let server = start(reads(&sim), 1_000).await;
    let addr = server.addr;
    let stall = async |sent: String| {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(sent.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        // Bounded here too: without the server's timeouts this would wait forever.
        tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer))
            .await
            .expect("the server ends a stalled request")
            .unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: appl");
    let body = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\""
    );
    // 70 KB in chunks, and the last chunk never sent.
    let chunk = format!("{:x}\r\n{}\r\n", 10 * 1024, "x".repeat(10 * 1024));
    let endless = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{}",
        chunk.repeat(7)
    );
    let (head, body, endless) = tokio::join!(stall(head), stall(body), stall(endless));
    assert!(endless.starts_with("HTTP/1.1 413"), "{endless}");
    assert!(!head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(body.starts_with("HTTP/1.1 408"), "{body}");
    assert!(body.contains("-32600"), "{body}");
    server.stop().await;
}

/// A 2026-07-28 request: its version, client info and capabilities in `_meta`, the version and
/// method (and name) in headers, as the revision has clients send them.
fn modern(raw: &Raw, id: i64, method: &str, mut params: Value) -> reqwest::RequestBuilder {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut r = raw
        .post()
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        r = r.header("mcp-name", name);
    }
    r.body(request(id, method, params).to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stateless_2026_revision_is_served_over_http() {
    let sim = sim_at_seed_price().await;
    let server = start(reads(&sim), 1_000).await;
    let raw = Raw::new(&server);

    // Discovery: every version offered, the seeds' capabilities, who answers.
    let a = raw
        .send(modern(&raw, 1, "server/discover", json!({})))
        .await;
    assert_eq!(a.status, 200, "{}", a.text);
    let v = a.json()["result"].clone();
    assert_eq!(
        v["supportedVersions"],
        json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ]),
        "{v}"
    );
    assert_eq!(v["capabilities"], json!({"tools": {"listChanged": false}}));
    assert_eq!(
        v["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "papertrade-tui",
        "{v}"
    );

    // Without a handshake: list and call.
    let a = raw.send(modern(&raw, 2, "tools/list", json!({}))).await;
    assert_eq!(a.status, 200, "{}", a.text);
    assert!(a.json()["result"]["tools"].as_array().unwrap().len() > 10);
    let call = json!({"name": "get_markets", "arguments": {}});
    let a = raw.send(modern(&raw, 3, "tools/call", call.clone())).await;
    assert_eq!(a.status, 200, "{}", a.text);
    let v = a.json();
    assert_eq!(v["result"]["isError"], false, "{v}");
    assert!(v["result"]["structuredContent"].is_object(), "{v}");

    // The revision's rules and codes, each refused with 400: headers that contradict the body,
    // a request without the required `_meta`, a version not served (its code names the ones
    // that are), and no batches.
    let versioned = |version: &str| raw.post().header("mcp-protocol-version", version);
    let list = |id: i64| request(id, "tools/list", json!({})).to_string();
    let refused = [
        (
            "headers that contradict the body",
            modern(&raw, 4, "tools/call", call.clone())
                .header("mcp-name", "get_wallet")
                .header("mcp-method", "tools/list"),
            -32020,
        ),
        (
            "no _meta",
            versioned("2026-07-28")
                .header("mcp-method", "tools/list")
                .body(list(5)),
            -32602,
        ),
        (
            "a version not served",
            versioned("2099-01-01")
                .header("mcp-method", "tools/list")
                .body(list(6)),
            -32022,
        ),
        (
            "a batch",
            versioned("2026-07-28").body(json!([request(7, "tools/list", json!({}))]).to_string()),
            -32600,
        ),
    ];
    for (what, sent, code) in refused {
        let a = raw.send(sent).await;
        let v = a.json();
        assert_eq!(
            (a.status, v["error"]["code"].clone()),
            (400, json!(code)),
            "{what}: {}",
            a.text
        );
        if code == -32022 {
            assert_eq!(v["error"]["data"]["supported"][4], "2026-07-28", "{v}");
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_card_is_published_where_the_seeds_publish_theirs() {
    let sim = sim_at_seed_price().await;
    let server = start(reads(&sim), 1_000).await;
    let raw = Raw::new(&server);
    let base = format!("http://{}", server.addr);
    let mut cards = Vec::new();
    for path in ["/.well-known/mcp/server-card.json", "/.well-known/mcp.json"] {
        let a = raw.send(raw.http.get(format!("{base}{path}"))).await;
        assert_eq!(a.status, 200, "{path}: {}", a.text);
        assert_eq!(a.header("access-control-allow-origin"), Some("*"));
        assert!(
            a.header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
        cards.push(a.json());
    }
    assert_eq!(cards[0], cards[1]);
    let card = &cards[0];
    assert_eq!(card["serverInfo"]["name"], "papertrade-tui");
    assert_eq!(card["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        card["capabilities"],
        json!({"tools": {"listChanged": false}})
    );
    assert_eq!(card["transport"]["type"], "streamable-http");
    assert_eq!(card["transport"]["url"], server.url());
    assert_eq!(card["remotes"][0]["url"], server.url());
    assert!(
        card["protocolVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    // The same tools, with the same schemas, as tools/list.
    let listed =
        raw.rpc(request(1, "tools/list", json!({}))).await.json()["result"]["tools"].clone();
    assert_eq!(card["tools"], listed);
    // The plain GET of /mcp points at it.
    let d = raw.send(raw.http.get(&raw.url)).await.json();
    assert_eq!(
        d["serverCard"],
        format!("{base}/.well-known/mcp/server-card.json")
    );
    // Read-only, and behind the same Host and Origin rules as /mcp.
    let a = raw
        .send(raw.http.post(format!("{base}/.well-known/mcp.json")))
        .await;
    assert_eq!(a.status, 405, "{}", a.text);
    let a = raw
        .send(
            raw.http
                .get(format!("{base}/.well-known/mcp.json"))
                .header("host", "evil.example"),
        )
        .await;
    assert_eq!(a.status, 403, "{}", a.text);
    let a = raw
        .send(
            raw.http
                .get(format!("{base}/.well-known/mcp.json"))
                .header("origin", "https://evil.example"),
        )
        .await;
    assert_eq!(a.status, 403, "{}", a.text);
    server.stop().await;
}
