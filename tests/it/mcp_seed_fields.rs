//! The SDK's (`000_…`) and the browser terminal's (`001_…`) tools, field for field with what
//! their seeds document: the fields they name, the caps they state, the ladder and plan they
//! describe, and no `null` where a seed types a number. Against the simulator, in process.

use rmcp::model::ProtocolVersion;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use papertrade_tui::mcp::Server;

use crate::mcp::{Client, call, reads, sim_at_seed_price, structured};
use crate::simkit::Sim;

async fn connect(sim: &Sim) -> RunningService<RoleClient, Client> {
    let server = Server::new(reads(sim), &[]);
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    Client {
        version: ProtocolVersion::V_2025_06_18,
    }
    .serve(client_side)
    .await
    .unwrap()
}

/// Call `name` and return its structured result, checked against its advertised outputSchema.
async fn answer(client: &RunningService<RoleClient, Client>, name: &str, a: Value) -> Value {
    let tools = client.list_all_tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name == name).unwrap();
    let r = call(client, name, a).await;
    structured(tool, &r)
}

async fn text(client: &RunningService<RoleClient, Client>, name: &str, a: Value) -> String {
    let r = call(client, name, a).await;
    r.content[0].as_text().unwrap().text.clone()
}

/// `get_wallet_positions` (001): `tradingEnabled` says whether an unexpired session key is
/// registered, and the positions list stops at the documented 50, saying it did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wallet_positions_say_whether_trading_is_enabled_and_stop_at_fifty() {
    let sim = sim_at_seed_price().await;
    let mut trader = sim.trader(2_000).await;
    for _ in 0..51 {
        let (body, _) = trader.open(sim.now_s(), 0, true, 10, 100);
        assert_eq!(sim.post("/intents", &body).await.0, 200);
    }
    sim.advance(1_000).await;
    let held = sim
        .server
        .shared
        .with_engine(|e| e.accounts[&trader.address()].state.open_positions.len());
    assert_eq!(held, 51);
    // Funded, but no session key ever registered.
    let keyless = crate::simkit::Trader::new();
    sim.control(
        "/sim/fund",
        json!({"wallet": keyless.wallet_hex(), "amountUsd": "100"}),
    )
    .await;
    let client = connect(&sim).await;

    let w = trader.wallet_hex();
    let v = answer(&client, "get_wallet_positions", json!({"address": w})).await;
    assert_eq!(v["tradingEnabled"], true, "{v}");
    assert_eq!(v["sessionKey"]["status"], "active");
    assert_eq!(v["positions"].as_array().unwrap().len(), 50);
    assert_eq!(v["totalPositions"], 51);
    assert_eq!(v["truncated"], true);
    let said = text(&client, "get_wallet_positions", json!({"address": w})).await;
    assert!(
        said.contains("51 open position(s) (the first 50 listed"),
        "{said}"
    );
    // The SDK's tool documents no cap: it lists them all.
    let all = answer(&client, "papertrade_wallet_positions", json!({"address": w})).await;
    assert_eq!(all["positions"].as_array().unwrap().len(), 51);
    assert_eq!(all["tradingEnabled"], true);

    let k = keyless.wallet_hex();
    let v = answer(&client, "get_wallet_positions", json!({"address": k})).await;
    assert_eq!(v["tradingEnabled"], false, "{v}");
    assert_eq!(v["sessionKey"], json!({"status": "none", "active": 0}));
    assert_eq!(v["totalPositions"], 0);
    assert_eq!(v["truncated"], false);
    client.cancel().await.unwrap();
}
