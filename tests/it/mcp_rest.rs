//! The risk seed's four paid tools, served free: each answers its HTTP route's full answer in
//! `result` with `status` saying no payment is needed, and `mcp --http` serves those routes with
//! the same answers, under the same Host/Origin, content-type, body-size and rate rules as /mcp.

use std::time::Duration;

use papertrade_tui::mcp::{HttpServer, Reads, Seed};
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};

use crate::mcp::{Client, call, reads, sim_at_seed_price, structured};

async fn start(reads: Reads, only: &[Seed], rate_per_minute: u32) -> HttpServer {
    HttpServer::start(reads, only, "127.0.0.1:0".parse().unwrap(), rate_per_minute)
        .await
        .unwrap()
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// Status, one header and the JSON body.
async fn send(request: reqwest::RequestBuilder) -> (u16, Option<String>, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let header = |n: &str| {
        response
            .headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let extra = header("retry-after").or_else(|| header("allow"));
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, extra, body)
}

/// A result without what differs between two reads of the same state (the scan's duration).
fn steady(mut v: Value) -> Value {
    if let Some(scan) = v.get_mut("scan").and_then(Value::as_object_mut) {
        scan.remove("tookMs");
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paid_tools_answer_in_full_and_the_routes_give_the_same_answers() {
    let sim = sim_at_seed_price().await;
    let mut trader = sim.trader(1_000).await;
    let (body, _) = trader.open(sim.now_s(), 0, true, 50, 20);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    let w = trader.wallet_hex();

    let server = start(reads(&sim), &[], 1_000).await;
    let base = format!("http://{}", server.addr);
    let client = Client {
        version: ProtocolVersion::V_2025_06_18,
    }
    .serve(StreamableHttpClientTransport::from_uri(server.url()))
    .await
    .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let http = http();

    let cases = [
        ("wallet_risk", json!({"address": w}), "preview_wallet_risk"),
        (
            "liquidations_nearby",
            json!({"market": "BTC", "pct": 5}),
            "preview_liquidations_nearby",
        ),
        (
            "estimate_position",
            json!({"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 500, "exitMovePct": 0.1}),
            "preview_estimate_position",
        ),
        (
            "top_traders",
            json!({"window": "all", "limit": 2}),
            "preview_top_traders",
        ),
    ];
    for (name, args, preview) in cases {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let paid = structured(tool, &call(&client, name, args.clone()).await);
        assert_eq!(paid["status"], "no_payment_needed", "{name}: {paid}");
        assert_eq!(paid["accepts"], json!([]), "{name}");
        assert!(
            paid["note"].as_str().unwrap().contains("charges nothing"),
            "{name}"
        );
        // The free preview's figures, with the full answer's defaults.
        let preview_tool = tools.iter().find(|t| t.name == preview).unwrap();
        let mut preview_args = args.clone();
        if name == "liquidations_nearby" {
            preview_args["accounts"] = json!(25);
        }
        let free = structured(preview_tool, &call(&client, preview, preview_args).await);
        assert_eq!(
            steady(paid["result"].clone()),
            steady(free),
            "{name} against {preview}"
        );
        // The request it names is the route, and the route answers exactly `result`.
        let r = &paid["request"];
        let url = format!("{base}{}", r["path"].as_str().unwrap());
        let request = match r["method"].as_str().unwrap() {
            "GET" => http.get(&url),
            "POST" => http
                .post(&url)
                .header("content-type", "application/json")
                .body(r["body"].to_string()),
            other => panic!("{other}"),
        };
        let (status, _, answer) = send(request).await;
        assert_eq!(status, 200, "{name}: {url} {answer}");
        assert_eq!(
            steady(answer),
            steady(paid["result"].clone()),
            "{name}: {url}"
        );
    }
    // The routes' paths as the seed names them.
    let nearby = structured(
        tools
            .iter()
            .find(|t| t.name == "liquidations_nearby")
            .unwrap(),
        &call(
            &client,
            "liquidations_nearby",
            json!({"market": "ETH", "pct": 2.5, "accounts": 3}),
        )
        .await,
    );
    assert_eq!(
        nearby["request"]["path"],
        "/api/v1/liquidations/nearby?market=ETH&pct=2.5&accounts=3"
    );
    assert_eq!(nearby["result"]["scan"]["walletsRequested"], 3);
    let (status, _, risk) = send(http.get(format!("{base}/api/v1/wallet/{w}/risk"))).await;
    assert_eq!(status, 200);
    assert_eq!(risk["totals"]["notionalUsd"], 1000.0, "{risk}");
    let (status, _, top) = send(http.get(format!("{base}/api/v1/traders/top"))).await;
    assert_eq!(status, 200, "{top}");
    assert_eq!(top["window"], "24h", "{top}");

    // Refused as /mcp refuses, or as the tool's schema does: nothing is answered.
    let top_url = format!("{base}/api/v1/traders/top");
    let estimate_url = format!("{base}/api/v1/estimate");
    let cases: Vec<(reqwest::RequestBuilder, u16, &str)> = vec![
        (
            http.get(&top_url).header("host", "attacker.example:80"),
            403,
            "Host",
        ),
        (
            http.get(&top_url)
                .header("origin", "https://attacker.example"),
            403,
            "Origin",
        ),
        (
            http.get(format!("{top_url}?window=all&limit=2&extra=1")),
            400,
            "not an argument",
        ),
        (http.get(format!("{top_url}?limit=two")), 400, "must be"),
        (http.get(format!("{top_url}?limit=1&limit=2")), 400, "twice"),
        (
            http.get(format!("{base}/api/v1/liquidations/nearby?market=DOGE")),
            400,
            "market",
        ),
        (
            http.get(format!("{base}/api/v1/wallet/0x12/risk")),
            400,
            "address",
        ),
        (http.post(&top_url), 405, "GET"),
        (http.get(&estimate_url), 405, "POST"),
        (
            http.post(&estimate_url)
                .header("content-type", "text/plain")
                .body("{}"),
            415,
            "Content-Type",
        ),
        (
            http.post(&estimate_url)
                .header("content-type", "application/json")
                .body(format!("{{\"pad\":\"{}\"}}", "x".repeat(70_000))),
            413,
            "65536 bytes",
        ),
        (
            http.post(&estimate_url)
                .header("content-type", "application/json")
                .body("[1]"),
            400,
            "JSON object",
        ),
        (
            http.post(&estimate_url)
                .header("content-type", "application/json")
                .body(r#"{"market":"BTC","side":"long","marginUsd":100,"leverage":0}"#),
            400,
            "leverage",
        ),
    ];
    for (request, expected, says) in cases {
        let (status, _, body) = send(request).await;
        assert_eq!(status, expected, "{says}: {body}");
        assert!(body.to_string().contains(says), "{says}: {body}");
    }
    // A browser page from this machine may ask: CORS as /mcp.
    let preflight = http
        .request(reqwest::Method::OPTIONS, &estimate_url)
        .header("origin", "http://localhost:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    assert_eq!(preflight.headers()["access-control-allow-origin"], "*");
    client.cancel().await.unwrap();
    server.stop().await;

    // Rate: the routes and tools/call share the per-client allowance.
    let server = start(reads(&sim), &[], 2).await;
    let url = format!("http://{}/api/v1/traders/top", server.addr);
    for _ in 0..2 {
        assert_eq!(send(http.get(&url)).await.0, 200);
    }
    let (status, retry, body) = send(http.get(&url)).await;
    assert_eq!(status, 429, "{body}");
    assert!(retry.unwrap().parse::<u64>().unwrap() >= 1);
    server.stop().await;

    // Not the risk seed's server: no routes.
    let server = start(reads(&sim), &[Seed::Liquidations], 1_000).await;
    let (status, _, _) = send(http.get(format!("http://{}/api/v1/traders/top", server.addr))).await;
    assert_eq!(status, 404);
    server.stop().await;
}
