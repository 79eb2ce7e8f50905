//! An MCP client nobody on this project wrote: the official Python SDK (`mcp`, pinned in
//! tests/mcp_client/requirements.txt) drives the real binary over stdio and over HTTP, in the
//! 2025-06-18, 2025-11-25 and stateless 2026-07-28 modes (pinned, and found by the SDK's own
//! `server/discover` probe), against the simulator. It lists the tools, calls every one with
//! valid arguments and validates each `structuredContent` against its `outputSchema`
//! (tests/mcp_client/official_client.py). The virtualenv comes from tests/mcp_client/setup.sh;
//! without it this test fails and says so, rather than passing without having run.

use std::path::PathBuf;
use std::time::Duration;

use crate::mcp::sim_at_seed_price;

/// Where tests/mcp_client/setup.sh puts the SDK.
fn venv_python() -> PathBuf {
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/mcp-client-venv/bin/python");
    assert!(
        python.exists(),
        "the official MCP client is not set up: run tests/mcp_client/setup.sh \
         (a virtualenv under target/ with the pinned Python `mcp` SDK from PyPI; needs python3 >= 3.10), \
         then run the tests again"
    );
    python
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_calls_every_tool_over_stdio_and_http_in_every_protocol_mode() {
    let python = venv_python();
    let sim = sim_at_seed_price().await;
    // A wallet with one settled position and one open still queued, so the wallet tools have
    // something to show.
    let mut trader = sim.trader(1_000).await;
    let (body, _) = trader.open(sim.now_s(), 0, true, 50, 20);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    let (body, queued) = trader.open(sim.now_s(), 1, false, 30, 40);
    assert_eq!(sim.post("/intents", &body).await.0, 200);

    let home = tempfile::tempdir().unwrap();
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client/official_client.py");
    let run = tokio::process::Command::new(python)
        .arg(script)
        .args(["--binary", env!("CARGO_BIN_EXE_papertrade-tui")])
        .arg("--home")
        .arg(home.path())
        .args(["--api", &sim.server.base_url()])
        .args(["--info-url", &sim.server.info_url()])
        .args(["--rpc-url", &sim.server.rpc_url()])
        .args(["--wallet", &trader.wallet_hex()])
        .args(["--intent", &format!("{queued:#x}")])
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("the official client finished within 5 minutes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("stdio 2025-06-18") && stdout.contains("http 2026-07-28"),
        "{stdout}"
    );
    println!("{stdout}");
}
