//! What an assistant waits for a pure-math tool: the latency of one `tools/call` of the quote,
//! leverage ladder, close quote and typed-data tools, in process (an MCP client on a duplex
//! pipe, the way tests drive it), over stdio (the real binary as an assistant launches it) and
//! over Streamable HTTP on loopback (`mcp --http`, the SDK's HTTP client).
//! The quote tools read the market (trading state and mark) from the simulator on loopback on
//! every call, as they read the exchange live, so their figures include two loopback HTTP reads;
//! typed data reads nothing. The hosted seed servers need an internet round trip for each call.
//!
//! `cargo bench --bench mcp` measures (release); `cargo test --bench mcp`, as CI runs it, makes
//! every call once so the bench keeps working.

use std::net::SocketAddr;

use criterion::{Criterion, criterion_group, criterion_main};
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::mcp::{HttpServer, Reads, Server};
use papertrade_tui::protocol::order::Deadlines;
use papertrade_tui::sim::{SimConfig, SimServer};
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::default()
    }
}

type Connected = RunningService<RoleClient, Client>;

/// The calls measured: the seeds' pure-math tools with realistic arguments.
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        (
            "quote_open_position",
            json!({"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 500}),
        ),
        (
            "quote_leverage_ladder",
            json!({"market": "BTC", "side": "long", "marginUsd": 100}),
        ),
        (
            "quote_close_position",
            json!({"market": "BTC", "side": "long", "entryPrice": 82800.3, "exitPrice": 82883.1, "marginUsd": 100, "leverage": 500}),
        ),
        (
            "papertrade_build_typed_data",
            json!({"type": "Close", "message": {"user": "0x14791697260e4c9a71f18484c9f997b308e59325", "positionIds": ["1"], "nonce": "7", "deadline": "1791864000"}}),
        ),
    ]
}

async fn call(client: &Connected, name: &'static str, args: &Value) {
    let Value::Object(args) = args.clone() else {
        unreachable!("the arguments are objects")
    };
    let r = client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args as Map<String, Value>))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_ne!(r.is_error, Some(true), "{name}: {r:?}");
    assert!(r.structured_content.is_some(), "{name}");
}

fn mcp(c: &mut Criterion) {
    let rt = Runtime::new().expect("a tokio runtime");
    let sim = rt
        .block_on(SimServer::start(
            SimConfig {
                crowd: 0,
                manual_clock: true,
                ..SimConfig::default()
            },
            SocketAddr::from(([127, 0, 0, 1], 0)),
        ))
        .expect("the simulator starts");
    let data = tempfile::tempdir().expect("a data dir");

    let reads = Reads {
        http: ExchangeHttp::new(&sim.base_url(), &sim.info_url(), HttpConfig::default()),
        data_dir: data.path().to_path_buf(),
        deadlines: Deadlines::default(),
    };
    let in_process: Connected = rt.block_on(async {
        let server = Server::new(reads.clone(), &[]);
        let (server_side, client_side) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_side).await {
                let _ = running.waiting().await;
            }
        });
        Client
            .serve(client_side)
            .await
            .expect("in-process handshake")
    });
    let over_stdio: Connected = rt.block_on(async {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
        command
            .args([
                "mcp",
                "--api",
                &sim.base_url(),
                "--info-url",
                &sim.info_url(),
            ])
            .arg("--data-dir")
            .arg(data.path())
            .env_remove("PAPERTRADE_API_URL")
            .env_remove("PAPERTRADE_INFO_URL");
        let transport =
            rmcp::transport::TokioChildProcess::new(command).expect("the binary starts");
        Client.serve(transport).await.expect("stdio handshake")
    });

    // No rate limit worth the name: the bench calls thousands of times a minute.
    let http_server = rt
        .block_on(HttpServer::start(
            reads,
            &[],
            SocketAddr::from(([127, 0, 0, 1], 0)),
            u32::MAX,
        ))
        .expect("the HTTP server starts");
    let over_http: Connected = rt.block_on(async {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(http_server.url());
        Client.serve(transport).await.expect("HTTP handshake")
    });

    for (how, client) in [
        ("in-process", &in_process),
        ("stdio", &over_stdio),
        ("http", &over_http),
    ] {
        let mut group = c.benchmark_group(format!("mcp {how}"));
        for (name, args) in calls() {
            group.bench_function(name, |b| b.iter(|| rt.block_on(call(client, name, &args))));
        }
        group.finish();
    }
    rt.block_on(async {
        let _ = in_process.cancel().await;
        let _ = over_stdio.cancel().await;
        let _ = over_http.cancel().await;
        http_server.stop().await;
    });
}

criterion_group!(benches, mcp);
criterion_main!(benches);
