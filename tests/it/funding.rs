//! Funding through HyperCore (§7) against the simulator: its `/exchange` takes only a correctly
//! signed `spotSend` and each refusal changes nothing; the sweeper credits after its delay with
//! the activation fee on top; and the real binary's `deposit` → open → close → `withdraw`, with
//! the owner's keystore or an external signature, refusing a proxy HyperEVM does not confirm.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use alloy_primitives::Address;
use papertrade_tui::protocol::eip712::WalletSigner;
use papertrade_tui::protocol::hypercore_send::{HyperliquidChain, SpotSend};
use papertrade_tui::sim::SimConfig;
use serde_json::{Value, json};

use crate::simkit::{Sim, live_config};
use crate::support::open_args;
use crate::trading::User;

const WAD: u128 = 1_000_000_000_000_000_000;

async fn manual_sim() -> Sim {
    Sim::start(SimConfig {
        seed: 5,
        crowd: 0,
        manual_clock: true,
        heartbeat_ms: 200,
        relayer_delay_ms: 1_000,
        sweep_delay_ms: 2_000,
        ..SimConfig::default()
    })
    .await
}

/// The HyperCore spot USDC total of `user` as the simulator's `/info` says it (None: no row).
async fn spot(sim: &Sim, user: Address) -> Option<String> {
    let (status, v) = sim
        .post(
            "/info",
            &json!({"type": "spotClearinghouseState", "user": format!("{user:#x}")}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let rows = v["balances"].as_array().unwrap();
    rows.first().map(|r| {
        assert_eq!(
            (r["coin"].as_str(), r["token"].as_u64()),
            (Some("USDC"), Some(0))
        );
        r["total"].as_str().unwrap().to_string()
    })
}

async fn proxy_of(sim: &Sim, owner: Address) -> Address {
    let (status, v) = sim
        .post(
            "/funding/deposits/check",
            &json!({"user": format!("{owner:#x}")}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    v["proxy"]
        .as_str()
        .unwrap()
        .to_ascii_lowercase()
        .parse()
        .unwrap()
}

async fn evm(sim: &Sim, method: &str, params: Value) -> Value {
    let (status, v) = sim
        .post(
            "/evm",
            &json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(v["id"], 7);
    v
}

fn now_ms(sim: &Sim) -> u64 {
    sim.server.shared.with_engine(|e| e.now_ms())
}

fn balance(sim: &Sim, wallet: Address) -> u128 {
    sim.server
        .shared
        .with_engine(|e| e.account(wallet).map_or(0, |a| a.state.balance))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulators_hypercore_is_as_strict_as_its_intents() {
    let sim = manual_sim().await;
    let owner = WalletSigner::random();
    let stranger = WalletSigner::random();
    assert_eq!(spot(&sim, owner.address()).await, None);
    sim.control(
        "/sim/fund-core",
        json!({"wallet": format!("{:#x}", owner.address()), "amountUsd": "100"}),
    )
    .await;
    assert_eq!(spot(&sim, owner.address()).await.as_deref(), Some("100.0"));
    let proxy = proxy_of(&sim, owner.address()).await;

    // HyperEVM: the chain, the factory's answer = the relayer's proxy, and no account yet.
    assert_eq!(evm(&sim, "eth_chainId", json!([])).await["result"], "0x3e7");
    let call = |to: &str, data: String| json!([{"to": to, "data": data}, "latest"]);
    let word = |a: Address| format!("{:0>64}", format!("{a:x}").trim_start_matches("0x"));
    let computed = evm(
        &sim,
        "eth_call",
        call(
            "0x1629b7d46bef6e13ff754174fc9f32dea309b38f",
            format!("0xd600539a{}", word(owner.address())),
        ),
    )
    .await;
    assert_eq!(computed["result"], format!("0x{}", word(proxy)));
    let exists = |a: Address| {
        evm(
            &sim,
            "eth_call",
            call(
                "0x0000000000000000000000000000000000000810",
                format!("0x{}", word(a)),
            ),
        )
    };
    assert_eq!(exists(proxy).await["result"], format!("0x{:064x}", 0));
    assert_eq!(
        exists(owner.address()).await["result"],
        format!("0x{:064x}", 1)
    );

    let post = |body: Value| {
        let sim = &sim;
        async move {
            let (status, v) = sim.post("/exchange", &body).await;
            assert_eq!(status, 200, "{v}");
            v
        }
    };
    let t = now_ms(&sim);
    let send = |usdc: u64, time: u64| SpotSend::usdc(proxy, usdc, time);
    let refused = |v: &Value, says: &str| {
        assert_eq!(v["status"], "err", "{v}");
        assert!(v["response"].as_str().unwrap().contains(says), "{v}");
    };

    // Signed by another key: that key is the sender, and HyperCore does not know it.
    let v = post(
        stranger
            .sign_spot_send(send(25_000_000, t))
            .unwrap()
            .exchange_body(),
    )
    .await;
    refused(&v, "does not exist");
    // For Testnet.
    let mut testnet = send(25_000_000, t + 1);
    testnet.chain = HyperliquidChain::Testnet;
    refused(
        &post(owner.sign_spot_send(testnet).unwrap().exchange_body()).await,
        "Testnet",
    );
    // Signed on one chain id, posted as another: it recovers to a stranger.
    let mut body = owner
        .sign_spot_send(send(25_000_000, t + 2))
        .unwrap()
        .exchange_body();
    body["action"]["signatureChainId"] = json!("0xa4b1");
    refused(&post(body).await, "does not exist");
    // Another token.
    let mut other = send(25_000_000, t + 3);
    other.token = "HYPE:0x0d01dc56dcaaca66ad901c959b4011ec".into();
    refused(
        &post(owner.sign_spot_send(other).unwrap().exchange_body()).await,
        "Unknown token",
    );
    // More than the balance: 100 with the 1 USDC activation fee on top.
    refused(
        &post(
            owner
                .sign_spot_send(send(100_000_000, t + 4))
                .unwrap()
                .exchange_body(),
        )
        .await,
        "Insufficient balance",
    );
    // A nonce from three days ago.
    refused(
        &post(
            owner
                .sign_spot_send(send(25_000_000, t - 3 * 86_400_000))
                .unwrap()
                .exchange_body(),
        )
        .await,
        "nonce",
    );
    // Nothing moved.
    assert_eq!(spot(&sim, owner.address()).await.as_deref(), Some("100.0"));
    assert_eq!(spot(&sim, proxy).await, None);

    // A good one: debited amount + 1, the proxy exists now and holds the amount.
    let good = owner
        .sign_spot_send(send(25_000_000, t + 5))
        .unwrap()
        .exchange_body();
    let v = post(good.clone()).await;
    assert_eq!(v, json!({"status": "ok", "response": {"type": "default"}}));
    assert_eq!(spot(&sim, owner.address()).await.as_deref(), Some("74.0"));
    assert_eq!(spot(&sim, proxy).await.as_deref(), Some("25.0"));
    assert_eq!(exists(proxy).await["result"], format!("0x{:064x}", 1));
    // The same signed send again: the nonce is spent.
    refused(&post(good).await, "duplicate nonce");
    assert_eq!(spot(&sim, owner.address()).await.as_deref(), Some("74.0"));

    // The sweeper credits after its delay, not before.
    sim.advance(1_000).await;
    assert_eq!(balance(&sim, owner.address()), 0);
    sim.advance(1_500).await;
    assert_eq!(balance(&sim, owner.address()), 25 * WAD);
    assert_eq!(spot(&sim, proxy).await.as_deref(), Some("0.0"));

    // Below the minimum: HyperCore moves it (it knows no Papertrade minimum), the sweeper does
    // not credit it; no activation fee the second time.
    let t = now_ms(&sim);
    let v = post(
        owner
            .sign_spot_send(send(5_000_000, t))
            .unwrap()
            .exchange_body(),
    )
    .await;
    assert_eq!(v["status"], "ok");
    assert_eq!(spot(&sim, owner.address()).await.as_deref(), Some("69.0"));
    sim.advance(3_000).await;
    assert_eq!(balance(&sim, owner.address()), 25 * WAD);
    assert_eq!(spot(&sim, proxy).await.as_deref(), Some("5.0"));

    // Malformed bodies are Hyperliquid's 422; the control refuses nonsense.
    let (status, _) = sim.post("/exchange", &json!("spotSend")).await;
    assert_eq!(status, 422);
    let (status, _) = sim
        .post(
            "/sim/fund-core",
            &json!({"wallet": "0x12", "amountUsd": "1"}),
        )
        .await;
    assert_eq!(status, 400);
}

fn write_signature(child: &mut std::process::Child, sig: &alloy_primitives::Signature) {
    let hex: String = sig.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
    writeln!(child.stdin.take().unwrap(), "0x{hex}").unwrap();
}

/// Run `deposit --external --json`, sign what it shows with `signer`, and collect the output.
async fn external_deposit(
    user: &User,
    amount: &str,
    signer: WalletSigner,
) -> (std::process::Output, Value) {
    let mut c = user.command(&[
        "deposit",
        "--amount",
        amount,
        "--external",
        "--json",
        "--wait",
        "30",
    ]);
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    tokio::task::spawn_blocking(move || {
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut shown = String::new();
        let request = (&mut stderr)
            .lines()
            .map_while(Result::ok)
            .inspect(|l| {
                shown.push_str(l);
                shown.push('\n');
            })
            .find_map(|l| serde_json::from_str::<Value>(&l).ok())
            .unwrap_or_else(|| panic!("the request on stderr: {shown}"));
        assert!(
            shown.contains("DEPOSIT"),
            "the plan is restated first: {shown}"
        );
        let typed = &request["typedData"];
        assert_eq!(typed["primaryType"], "HyperliquidTransaction:SpotSend");
        assert_eq!(typed["domain"]["name"], "HyperliquidSignTransaction");
        let m = &typed["message"];
        // The wallet signs exactly what it was shown.
        let send = SpotSend {
            chain: HyperliquidChain::parse(m["hyperliquidChain"].as_str().unwrap()).unwrap(),
            signature_chain_id: typed["domain"]["chainId"].as_u64().unwrap(),
            destination: m["destination"].as_str().unwrap().into(),
            token: m["token"].as_str().unwrap().into(),
            amount: m["amount"].as_str().unwrap().into(),
            time: m["time"].as_u64().unwrap(),
        };
        write_signature(&mut child, signer.sign_spot_send(send).unwrap().signature());
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        let mut out = child.wait_with_output().unwrap();
        out.stderr = rest.into_bytes();
        let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out, doc)
    })
    .await
    .unwrap()
}

async fn live_sim() -> Sim {
    Sim::start(SimConfig {
        sweep_delay_ms: 400,
        ..live_config(23, 300)
    })
    .await
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deposit_open_close_withdraw_through_the_cli() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    let owner = user.owner();
    let ks = user.owner_keystore.to_str().unwrap().to_string();
    sim.control(
        "/sim/fund-core",
        json!({"wallet": format!("{owner:#x}"), "amountUsd": "60"}),
    )
    .await;

    // Refused before anything is signed: below the minimum, more than HyperCore holds (with the
    // fee), too many decimals. Exit 2, nothing moved.
    for (amount, says) in [
        ("9.99", "minimum deposit is 10 USDC"),
        ("60", "takes 61 (60 + 1 activation fee)"),
        ("10.0000001", "at most 6 decimals"),
    ] {
        let out = user
            .run(&[
                "deposit",
                "--amount",
                amount,
                "--owner-keystore",
                &ks,
                "--yes",
            ])
            .await;
        assert_eq!(
            out.status.code(),
            Some(2),
            "{amount}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(says),
            "{amount}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(spot(&sim, owner).await.as_deref(), Some("60.0"));

    let d = user
        .json(&[
            "deposit",
            "--amount",
            "25",
            "--owner-keystore",
            &ks,
            "--yes",
        ])
        .await;
    assert_eq!(d["outcome"], "credited", "{d}");
    assert_eq!(d["activationFeeUsdc"], "1");
    assert_eq!(d["debitedUsdc"], "26");
    assert_eq!(d["balanceRaw"], (25 * WAD).to_string());
    assert_eq!(spot(&sim, owner).await.as_deref(), Some("34.0"));

    // The second deposit: the proxy exists now, no fee; signed externally.
    let (out, doc) = external_deposit(
        &user,
        "12.5",
        WalletSigner::from_bytes(&user.owner_key.to_bytes()).unwrap(),
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(doc["outcome"], "credited", "{doc}");
    assert_eq!(doc["activationFeeUsdc"], "0");
    assert_eq!(spot(&sim, owner).await.as_deref(), Some("21.5"));

    // Trade with it.
    user.json(&["key", "new"]).await;
    user.json(&["key", "register", "--owner-keystore", &ks, "--yes"])
        .await;
    sim.pin("BTC", "82800.3").await;
    let opened = user.json(&open_args("BTC", "long", "20", "100", &[])).await;
    assert_eq!(opened["outcome"], "succeeded", "{opened}");
    let id = opened["position"]["positionId"]
        .as_str()
        .unwrap()
        .to_string();
    let closed = user.json(&["close", &id, "--yes"]).await;
    assert_eq!(closed["intents"][0]["outcome"], "succeeded");

    // Withdraw: followed until it is on HyperCore.
    let w = user
        .json(&[
            "withdraw",
            "--amount",
            "30",
            "--owner-keystore",
            &ks,
            "--yes",
        ])
        .await;
    assert_eq!(w["outcome"], "succeeded", "{w}");
    assert_eq!(w["hypercore"]["credited"], true, "{w}");
    assert_eq!(spot(&sim, owner).await.as_deref(), Some("51.5"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_signature_by_another_key_is_refused_and_nothing_moves() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    sim.control(
        "/sim/fund-core",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": "50"}),
    )
    .await;
    let (out, doc) = external_deposit(&user, "20", WalletSigner::random()).await;
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(doc["error"]["field"], "signature", "{doc}");
    assert_eq!(spot(&sim, user.owner()).await.as_deref(), Some("50.0"));
}

/// A HyperEVM endpoint that computes another proxy than the relayer's.
async fn lying_rpc() -> String {
    use axum::routing::post;
    let app = axum::Router::new().route(
        "/evm",
        post(|axum::Json(req): axum::Json<Value>| async move {
            axum::Json(
                json!({"jsonrpc": "2.0", "id": req["id"], "result": format!("0x{:0>64}", "beef")}),
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/evm")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_hyperevm_does_not_confirm_is_refused() {
    let sim = live_sim().await;
    let mut user = User::new(&sim);
    user.rpc = lying_rpc().await;
    sim.control(
        "/sim/fund-core",
        json!({"wallet": format!("{:#x}", user.owner()), "amountUsd": "50"}),
    )
    .await;
    let ks = user.owner_keystore.to_str().unwrap().to_string();
    let out = user
        .run(&[
            "deposit",
            "--amount",
            "20",
            "--owner-keystore",
            &ks,
            "--yes",
        ])
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("is not DepositProxyFactory.computeProxyAddress"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(spot(&sim, user.owner()).await.as_deref(), Some("50.0"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spot_send_with_no_answer_is_never_resent_and_says_how_to_check() {
    let sim = live_sim().await;
    let user = User::new(&sim);
    let owner = user.owner();
    sim.control(
        "/sim/fund-core",
        json!({"wallet": format!("{owner:#x}"), "amountUsd": "50"}),
    )
    .await;
    sim.control("/sim/faults", json!({"dropIntentAnswers": 1}))
        .await;
    let ks = user.owner_keystore.to_str().unwrap().to_string();
    let out = user
        .run(&[
            "deposit",
            "--amount",
            "20",
            "--owner-keystore",
            &ks,
            "--yes",
        ])
        .await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert!(err.contains("Do NOT send it again"), "{err}");
    assert!(err.contains("spotClearinghouseState"), "{err}");
    // It was applied once, and only once: 20 + the 1 USDC fee left, and the sweeper credits it.
    assert_eq!(spot(&sim, owner).await.as_deref(), Some("29.0"));
    let mut stream = sim.stream(owner).await;
    stream
        .until("the deposit credited", |s| s.balance == 20 * WAD)
        .await;
}

/// A deposit while the sweeper has not yet taken the previous one is the exchange's state, not
/// the amount's fault: exit 6 with `previous_deposit_unswept`, nothing signed or moved (the same
/// command passing once the sweeper has credited the first is the round trip above).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deposit_before_the_previous_one_is_swept_exits_6_and_moves_nothing() {
    // A sweeper slower than the test: the first deposit stays on the proxy throughout.
    let sim = Sim::start(SimConfig {
        sweep_delay_ms: 600_000,
        ..live_config(24, 300)
    })
    .await;
    let user = User::new(&sim);
    let owner = user.owner();
    sim.control(
        "/sim/fund-core",
        json!({"wallet": format!("{owner:#x}"), "amountUsd": "100"}),
    )
    .await;
    let ks = user.owner_keystore.to_str().unwrap().to_string();
    let deposit = |amount: &'static str| {
        let ks = ks.clone();
        let user = &user;
        async move {
            user.run(&[
                "deposit",
                "--amount",
                amount,
                "--owner-keystore",
                &ks,
                "--yes",
                "--json",
                "--wait",
                "0",
            ])
            .await
        }
    };
    let first = deposit("20").await;
    assert_eq!(first.status.code(), Some(5), "{}", text(&first.stderr));
    assert_eq!(spot(&sim, owner).await.as_deref(), Some("79.0"));

    let second = deposit("10").await;
    assert_eq!(second.status.code(), Some(6), "{}", text(&second.stderr));
    let v: Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(v["error"]["code"], "exchange_state", "{v}");
    assert_eq!(v["error"]["reason"], "previous_deposit_unswept", "{v}");
    assert_eq!(
        spot(&sim, owner).await.as_deref(),
        Some("79.0"),
        "nothing moved"
    );
}
