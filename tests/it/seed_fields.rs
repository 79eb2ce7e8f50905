//! Field for field with the seeds: every tool of the five seed servers (`../shared/seeds/`), and
//! every result field each seed documents for it, as extracted into `seed_fields.json` (which
//! says where each came from and how its type is known), held against what this server answers.
//!
//! The simulator is seeded so every list the seeds describe has members (two wallets with open
//! positions on both sides, a closed trade, a queued open, an operator notice, a past to draw
//! candles from); every tool is called with arguments its seed documents as valid; each
//! documented field must be there with the documented type (null only where the seed allows
//! it). Every failure is collected, so one run lists them all.

use std::collections::BTreeSet;

use alloy_primitives::U256;
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::mcp::{Reads, Seed, Server};
use papertrade_tui::protocol::order::Deadlines;
use papertrade_tui::sim::SimConfig;
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use serde_json::{Map, Value, json};

use crate::mcp::{Client, reads, sim_at_seed_price};
use crate::simkit::Sim;

const SEED_FIELDS: &str = include_str!("seed_fields.json");

/// The documented fields, parsed once.
pub(crate) fn seed_fields() -> Value {
    serde_json::from_str(SEED_FIELDS).expect("seed_fields.json is JSON")
}

async fn connect(server: Server) -> RunningService<RoleClient, Client> {
    crate::mcp::connect(server, ProtocolVersion::V_2025_06_18).await
}

/// What the seeded exchange holds, for the calls' arguments.
struct World {
    /// Holds a BTC long, closed an ETH short, has an ETH short queued.
    wallet: String,
    /// Holds a BTC short and an ETH long.
    other: String,
    open_btc: String,
    closed_eth: String,
    queued: String,
}

/// Two wallets with positions on both sides of BTC, one closed trade, one queued open and an
/// operator notice, at the SDK seed's BTC price.
async fn seeded() -> (Sim, World) {
    let sim = sim_at_seed_price().await;
    let mut a = sim.trader(1_000).await;
    let mut b = sim.trader(1_000).await;
    let traders = [&mut a, &mut b];
    for (who, market, long, margin, leverage) in [
        (0, 0, true, 50, 20),
        (0, 1, false, 40, 30),
        (1, 0, false, 30, 100),
        (1, 1, true, 30, 100),
    ] {
        let (body, _) = traders[who].open(sim.now_s(), market, long, margin, leverage);
        assert_eq!(sim.post("/intents", &body).await.0, 200, "{body}");
    }
    sim.advance(1_000).await;
    let held = sim
        .server
        .shared
        .with_engine(|e| e.accounts[&a.address()].state.open_positions.clone());
    let id_in = |market: u32| {
        held.iter()
            .find(|p| p.instrument_id == market)
            .map(|p| p.id)
            .unwrap()
    };
    let (open_btc, closed_eth) = (id_in(0), id_in(1));
    let (body, _) = a.close(sim.now_s(), vec![closed_eth]);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.advance(1_000).await;
    let (body, queued) = a.open(sim.now_s(), 1, false, 30, 40);
    assert_eq!(sim.post("/intents", &body).await.0, 200);
    sim.control(
        "/sim/notice",
        json!({"title": "Maintenance at 12:00", "body": "Intents may queue longer.", "level": "info"}),
    )
    .await;
    let world = World {
        wallet: a.wallet_hex(),
        other: b.wallet_hex(),
        open_btc: open_btc.to_string(),
        closed_eth: closed_eth.to_string(),
        queued: format!("{queued:#x}"),
    };
    assert_ne!(open_btc, U256::ZERO);
    (sim, world)
}

/// A simulator with three hours of past on the wall clock, which candles are asked by (the
/// manual clock of the seeded one has none).
async fn with_past() -> Sim {
    Sim::start(SimConfig {
        seed: 21,
        crowd: 0,
        heartbeat_ms: 200,
        relayer_delay_ms: 500,
        warmup_ms: 3 * 3_600_000,
        ..SimConfig::default()
    })
    .await
}

/// One call of a tool: arguments its seed documents as valid, and the arrays this call may
/// answer empty (a narrowed lookup).
struct Call {
    args: Value,
    may_be_empty: &'static [&'static str],
}

fn call(args: Value) -> Call {
    Call {
        args,
        may_be_empty: &[],
    }
}

/// The calls of each seed tool, by name (a documented tool missing here fails the test).
fn calls(name: &str, w: &World) -> Vec<Call> {
    let (wallet, other) = (w.wallet.as_str(), w.other.as_str());
    match name {
        "papertrade_markets" | "list_markets" | "get_markets" => vec![call(json!({}))],
        "papertrade_estimate_position" => vec![
            // The seed's own example, then a ladder (no exit): losing and winning scenarios.
            call(
                json!({"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 500, "priceMovePct": 0.1}),
            ),
            call(json!({"market": "ETH", "side": "short", "marginUsd": 20, "leverage": 50})),
        ],
        "papertrade_paper_mint" => vec![call(json!({"lossBasisUsd": 250}))],
        "papertrade_wallet_positions"
        | "get_wallet_positions"
        | "get_wallet"
        | "get_intents"
        | "get_trade_history"
        | "preview_wallet_risk"
        | "wallet_risk" => {
            vec![call(json!({"address": wallet}))]
        }
        "papertrade_protocol_health" | "get_protocol_status" | "get_service_status" => {
            vec![call(json!({}))]
        }
        "papertrade_prepare_open" => vec![call(
            json!({"user": other, "market": "ETH", "side": "long", "marginUsd": 100, "leverage": 50}),
        )],
        "papertrade_build_typed_data" => vec![call(
            json!({"type": "Close", "message": {"user": wallet, "positionIds": [w.open_btc]}}),
        )],
        "quote_open_position" => vec![call(
            json!({"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 20}),
        )],
        "quote_leverage_ladder" => {
            vec![call(
                json!({"market": "ETH", "side": "short", "marginUsd": 25}),
            )]
        }
        "quote_close_position" => vec![
            // A win (the SDK seed's example), then a loss.
            call(
                json!({"market": "BTC", "side": "long", "entryPrice": 82800.3, "exitPrice": 82883.1, "marginUsd": 100, "leverage": 500}),
            ),
            call(
                json!({"market": "BTC", "side": "long", "entryPrice": 82800.3, "exitPrice": 82000, "marginUsd": 100, "leverage": 5}),
            ),
        ],
        "get_recent_trades" => vec![call(json!({}))],
        "get_candles" => vec![call(
            json!({"market": "BTC", "interval": "1h", "limit": 48}),
        )],
        "build_trade_plan" => vec![
            call(
                json!({"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 20, "address": wallet}),
            ),
            call(json!({"market": "ETH", "side": "short", "marginUsd": 25, "leverage": 50})),
        ],
        "search" => vec![call(json!({"query": wallet}))],
        "get_positions" => vec![
            call(json!({"address": wallet})),
            // A closed position: the seed answers its closed-trade record.
            Call {
                args: json!({"address": wallet, "position_id": w.closed_eth}),
                may_be_empty: &["positions"],
            },
        ],
        "lookup_intent" => vec![call(json!({"intent_id": w.queued, "wallet": wallet}))],
        // The seed's own example hash: no such transaction here.
        "decode_transaction" => vec![call(
            json!({"tx_hash": "0x57c85e286520d205709f1fce287fce8944322e0e43155062efeac931fcb01a1a"}),
        )],
        "get_leaderboard" => vec![call(json!({"window": "24h", "page": 0}))],
        "get_protocol_overview" => vec![call(json!({"recent_trades": 3}))],
        "preview_liquidations_nearby" => vec![call(json!({"market": "BTC"}))],
        "liquidations_nearby" => vec![call(json!({"market": "BTC", "pct": 5, "accounts": 5}))],
        "preview_estimate_position" => vec![call(
            json!({"market": "ETH", "side": "short", "marginUsd": 20, "leverage": 50, "exitMovePct": -1}),
        )],
        "estimate_position" => vec![call(
            json!({"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 500}),
        )],
        "preview_top_traders" => vec![call(json!({}))],
        "top_traders" => vec![call(json!({"window": "24h", "limit": 3}))],
        "get_bust_map" => vec![call(json!({"market": "BTC"}))],
        "get_closest_to_bust" => vec![call(json!({}))],
        // `market` is optional in the seed (both markets when absent).
        "get_bust_cluster_summary" | "get_protocol_liquidation_map" => {
            vec![call(json!({})), call(json!({"market": "BTC"}))]
        }
        "get_wallet_distance_to_bust" => vec![call(json!({"wallet": wallet}))],
        _ => Vec::new(),
    }
}

/// Whether `v` is of the seed's type `ty` (see `about` in seed_fields.json).
fn is(v: &Value, ty: &str) -> bool {
    match ty {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        "any" => !v.is_null(),
        other => panic!("seed_fields.json: unknown type {other:?}"),
    }
}

/// A field's spec: its types, and the other constraints an object form may add.
struct Spec<'a> {
    types: Vec<&'a str>,
    optional: Option<&'a str>,
    raw: &'a Value,
}

fn spec(v: &Value) -> Spec<'_> {
    match v {
        Value::Object(o) => Spec {
            types: type_list(&o["type"]),
            optional: o.get("optional").and_then(Value::as_str),
            raw: v,
        },
        _ => Spec {
            types: type_list(v),
            optional: None,
            raw: v,
        },
    }
}

fn type_list(t: &Value) -> Vec<&str> {
    match t {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().map(|x| x.as_str().unwrap()).collect(),
        other => panic!("seed_fields.json: bad type {other}"),
    }
}

/// The values at `path` (`a.b`, `a[].b`), each with its concrete path; `None` where the last
/// member is absent. A missing or mistyped parent yields nothing: the parent's own entry says so.
/// An array on the way that is empty is put in `empty`, unless this call may answer it empty.
fn resolve<'a>(
    root: &'a Value,
    path: &str,
    may_be_empty: &[&str],
    empty: &mut BTreeSet<String>,
) -> Vec<(String, Option<&'a Value>)> {
    let join = |p: &str, name: &str| {
        if p.is_empty() {
            name.to_string()
        } else {
            format!("{p}.{name}")
        }
    };
    let segments: Vec<&str> = path.split('.').collect();
    let (last, parents) = segments.split_last().expect("a path");
    let mut at: Vec<(String, &'a Value)> = vec![(String::new(), root)];
    for seg in parents {
        let (name, fan) = match seg.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (*seg, false),
        };
        let mut next = Vec::new();
        for (p, v) in at {
            let here = join(&p, name);
            let Some(member) = v.get(name) else { continue };
            if !fan {
                next.push((here, member));
                continue;
            }
            let Some(items) = member.as_array() else {
                continue;
            };
            if items.is_empty() && !may_be_empty.contains(&name) {
                empty.insert(here.clone());
            }
            next.extend(
                items
                    .iter()
                    .enumerate()
                    .map(|(k, x)| (format!("{here}[{k}]"), x)),
            );
        }
        at = next;
    }
    at.into_iter()
        .map(|(p, v)| (join(&p, last), v.get(*last)))
        .collect()
}

/// The documented fields of one answer: present (unless optional), of the documented type,
/// within the documented counts.
fn check_fields(
    fields: &Map<String, Value>,
    answer: &Value,
    may_be_empty: &[&str],
    out: &mut Vec<String>,
) {
    let mut empty = BTreeSet::new();
    for (path, raw) in fields {
        let s = spec(raw);
        for (at, v) in resolve(answer, path, may_be_empty, &mut empty) {
            let Some(v) = v else {
                if s.optional.is_none() {
                    out.push(format!(
                        "{at}: missing (documented as {})",
                        s.types.join(" or ")
                    ));
                }
                continue;
            };
            if !s.types.iter().any(|t| is(v, t)) {
                out.push(format!(
                    "{at}: documented as {}, answered {}",
                    s.types.join(" or "),
                    short(v)
                ));
                continue;
            }
            if let Some(want) = s.raw.get("equals")
                && v != want
            {
                out.push(format!(
                    "{at}: documented as always {want}, answered {}",
                    short(v)
                ));
            }
            let len = v.as_array().map(Vec::len);
            let bound = |key: &str| s.raw.get(key).and_then(Value::as_u64).map(|n| n as usize);
            if let (Some(len), Some(n)) = (len, bound("items"))
                && len != n
            {
                out.push(format!("{at}: documented with {n} items, answered {len}"));
            }
            if let (Some(len), Some(n)) = (len, bound("max_items"))
                && len > n
            {
                out.push(format!(
                    "{at}: documented as at most {n} items, answered {len}"
                ));
            }
            if let (Some(len), Some(n)) = (len, bound("min_items"))
                && len < n
            {
                out.push(format!(
                    "{at}: documented as at least {n} items, answered {len}"
                ));
            }
        }
    }
    for at in empty {
        out.push(format!(
            "{at}: empty, so its documented members could not be held (the scenario should fill it)"
        ));
    }
}

/// Values a seed describes without a field name: some member of every element whose name
/// contains one of the words has the type.
fn check_concepts(
    concepts: &[Value],
    answer: &Value,
    may_be_empty: &[&str],
    out: &mut Vec<String>,
) {
    for c in concepts {
        let within = c["in"].as_str().unwrap();
        let words: Vec<String> = c["words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_lowercase())
            .collect();
        let ty = c["type"].as_str().unwrap();
        let means = c["means"].as_str().unwrap();
        let path = within.strip_suffix("[]").unwrap_or(within);
        let mut empty = BTreeSet::new();
        let holders: Vec<(String, &Value)> = resolve(answer, path, may_be_empty, &mut empty)
            .into_iter()
            .filter_map(|(p, v)| v.map(|v| (p, v)))
            .flat_map(|(p, v)| match (within.ends_with("[]"), v) {
                (true, Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(k, x)| (format!("{p}[{k}]"), x))
                    .collect::<Vec<_>>(),
                (false, v) => vec![(p, v)],
                _ => Vec::new(),
            })
            .collect();
        if holders.is_empty() && !may_be_empty.contains(&path) {
            out.push(format!(
                "{within}: empty or missing, so its {means} could not be held"
            ));
        }
        for (p, v) in holders {
            let found = v.as_object().is_some_and(|o| {
                o.iter().any(|(k, x)| {
                    let k = k.to_lowercase().replace('_', "");
                    words.iter().any(|w| k.contains(w.as_str())) && is(x, ty)
                })
            });
            if !found {
                out.push(format!(
                    "{p}: no {ty} member for {means}, which the seed describes (a name containing {})",
                    words.join(" or ")
                ));
            }
        }
    }
}

/// Every member name in `v` is snake_case (a market symbol used as a key is data).
fn check_snake_case(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    let snake = |k: &str| {
        !k.is_empty()
            && k.split('_').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            })
    };
    let symbol = |k: &str| {
        k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    };
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let here = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                if !snake(k) && !symbol(k) {
                    out.insert(here.clone());
                }
                check_snake_case(x, &here, out);
            }
        }
        Value::Array(items) => {
            for x in items {
                check_snake_case(x, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

/// The same finding in many elements of an array, once: `a[3].b` and `a[4].b` read `a[].b`,
/// with how many there were.
fn collapse(found: Vec<String>) -> Vec<String> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for f in found {
        let mut generic = String::with_capacity(f.len());
        let mut digits = false;
        for c in f.chars() {
            match c {
                '[' => {
                    digits = true;
                    generic.push(c);
                }
                ']' => {
                    digits = false;
                    generic.push(c);
                }
                c if digits && c.is_ascii_digit() => {}
                c => {
                    digits = false;
                    generic.push(c);
                }
            }
        }
        match out.iter_mut().find(|(g, _)| *g == generic) {
            Some((_, n)) => *n += 1,
            None => out.push((generic, 1)),
        }
    }
    out.into_iter()
        .map(|(g, n)| {
            if n > 1 {
                format!("{g} (in {n} elements)")
            } else {
                g
            }
        })
        .collect()
}

fn short(v: &Value) -> String {
    let mut s = v.to_string();
    if s.len() > 80 {
        s.truncate(77);
        s.push_str("...");
    }
    s
}

/// When no mark can be read, a market tool still answers `markPrice` as the seed types it,
/// a number, or leaves it out and says why in `markError` (issue 21 item 4): never null.
async fn marks_unreadable(sim: &Sim, failures: &mut Vec<String>) {
    // A loopback port nobody listens on: every mark read is refused at once.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let reads = Reads {
        http: ExchangeHttp::new(
            &sim.server.base_url(),
            &format!("http://{dead}/info"),
            HttpConfig::default(),
        ),
        data_dir: std::env::temp_dir().join("papertrade-tui-mcp-test-no-history"),
        deadlines: Deadlines::default(),
    };
    let client = connect(Server::new(reads, &[])).await;
    for name in ["papertrade_markets", "list_markets", "get_markets"] {
        let what = format!("{name} with no mark readable");
        let r = client
            .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(Map::new()))
            .await
            .unwrap();
        let Some(answer) = r
            .structured_content
            .clone()
            .filter(|_| r.is_error != Some(true))
        else {
            failures.push(format!("{what}: answered isError: {}", text_of(&r)));
            continue;
        };
        for (k, m) in answer["markets"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            match m.get("markPrice") {
                Some(v) if v.is_number() => {}
                None if m["markError"].as_str().is_some_and(|e| !e.is_empty()) => {}
                None => failures.push(format!(
                    "{what}: markets[{k}].markPrice left out without a markError saying why"
                )),
                Some(v) => failures.push(format!(
                    "{what}: markets[{k}].markPrice: documented as number, answered {}",
                    short(v)
                )),
            }
        }
    }
}

fn text_of(r: &CallToolResult) -> String {
    r.content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

/// The seed names of the five sets, as `Seed::parse` reads them.
fn seed_of(name: &str) -> Seed {
    Seed::parse(name).unwrap_or_else(|| panic!("seed_fields.json: unknown seed {name}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seed_tool_answers_the_fields_its_seed_documents() {
    let doc = seed_fields();
    let (sim, world) = seeded().await;
    let past = with_past().await;
    let client = connect(Server::new(reads(&sim), &[])).await;
    // Candles are asked by the wall clock: the one simulator with a past on it answers them.
    let candles = connect(Server::new(reads(&past), &[Seed::Terminal])).await;
    let listed: BTreeSet<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    let mut failures: Vec<String> = Vec::new();
    let mut answers: Vec<(String, usize, Value)> = Vec::new();

    for seed in doc["seeds"].as_array().unwrap() {
        let seed_name = seed["seed"].as_str().unwrap();
        let tools = seed["tools"].as_array().unwrap();
        let documented: BTreeSet<String> = tools
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        // `--only SEED` exposes exactly the seed's tools, under its names.
        let only: BTreeSet<String> = Server::new(reads(&sim), &[seed_of(seed_name)])
            .tool_names()
            .into_iter()
            .map(str::to_string)
            .collect();
        for name in documented.difference(&only).filter(|n| listed.contains(*n)) {
            failures.push(format!(
                "{name} ({seed_name}): documented by the seed, not served under --only {seed_name}"
            ));
        }
        for name in only.difference(&documented) {
            failures.push(format!(
                "{name} ({seed_name}): served under --only {seed_name}, not a tool of that seed"
            ));
        }
        let snake = seed["keys"]["case"] == "snake_case";

        for tool in tools {
            let name = tool["name"].as_str().unwrap();
            let cs = calls(name, &world);
            assert!(!cs.is_empty(), "no call for {name}: add one to calls()");
            if !listed.contains(name) {
                failures.push(format!("{name} ({seed_name}): not listed by tools/list"));
                continue;
            }
            for (i, c) in cs.iter().enumerate() {
                let via = if name == "get_candles" {
                    &candles
                } else {
                    &client
                };
                let what = format!("{name} ({seed_name}) call {} {}", i + 1, c.args);
                let Value::Object(args) = c.args.clone() else {
                    unreachable!()
                };
                let r = match via
                    .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
                    .await
                {
                    Ok(r) => r,
                    Err(e) => {
                        failures.push(format!("{what}: protocol error {e}"));
                        continue;
                    }
                };
                if r.is_error == Some(true) {
                    failures.push(format!("{what}: answered isError: {}", text_of(&r)));
                    continue;
                }
                let Some(answer) = r.structured_content.clone() else {
                    failures.push(format!("{what}: no structuredContent"));
                    continue;
                };
                let mut found = Vec::new();
                for group in tool["documented"].as_array().unwrap() {
                    check_fields(
                        group["fields"].as_object().unwrap(),
                        &answer,
                        c.may_be_empty,
                        &mut found,
                    );
                }
                if let Some(concepts) = tool["concepts"].as_array() {
                    check_concepts(concepts, &answer, c.may_be_empty, &mut found);
                }
                for t in tool["text_contains"].as_array().into_iter().flatten() {
                    let want = t["text"].as_str().unwrap();
                    let text = text_of(&r);
                    if !text.contains(want) {
                        found.push(format!("text: no {want:?} in {text:?}"));
                    }
                }
                if snake {
                    let mut keys = BTreeSet::new();
                    check_snake_case(&answer, "", &mut keys);
                    if !keys.is_empty() {
                        let keys: Vec<String> = keys.into_iter().collect();
                        found.push(format!(
                            "{} member name(s) not snake_case: {}",
                            keys.len(),
                            keys.join(", ")
                        ));
                    }
                }
                failures.extend(collapse(found).into_iter().map(|f| format!("{what}: {f}")));
                answers.push((name.to_string(), i, answer));
            }
        }
    }

    // get_positions with a closed position_id: the closed-trade record get_trade_history has.
    let answer = |name: &str, i: usize| {
        answers
            .iter()
            .find(|(n, k, _)| n == name && *k == i)
            .map(|(_, _, v)| v)
    };
    if let (Some(narrowed), Some(history)) =
        (answer("get_positions", 1), answer("get_trade_history", 0))
    {
        let record = history["trades"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["position_id"] == world.closed_eth.as_str());
        match (record, &narrowed["closed"]) {
            (None, _) => failures.push(format!(
                "get_trade_history (explorer): the closed position {} is not among the trades",
                world.closed_eth
            )),
            (Some(record), Value::Object(closed)) => {
                let missing: Vec<&String> = record
                    .as_object()
                    .unwrap()
                    .keys()
                    .filter(|k| !closed.contains_key(*k))
                    .collect();
                if !missing.is_empty() {
                    failures.push(format!(
                        "get_positions (explorer) position_id {}: `closed` is not the closed-trade record (lacks {missing:?} that get_trade_history has): {}",
                        world.closed_eth,
                        short(&narrowed["closed"])
                    ));
                }
            }
            (Some(_), other) => failures.push(format!(
                "get_positions (explorer) position_id {}: `closed` is {}, not the closed-trade record",
                world.closed_eth,
                short(other)
            )),
        }
    }

    marks_unreadable(&sim, &mut failures).await;

    assert!(
        failures.is_empty(),
        "{} seed field assertion(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The checker itself: a field answered null where the seed types a number, a missing field, a
/// wrong count, an array left empty and a camelCase name are each reported; what matches is not.
#[test]
fn the_checker_reports_what_differs_from_the_seed() {
    let fields = json!({
        "price": "number",
        "reason": ["string", "null"],
        "gone": "boolean",
        "maybe": {"type": "number", "optional": "not always"},
        "steps": {"type": "array", "items": 4},
        "rows[].id": "string",
        "empty[].id": "string"
    });
    let answer = json!({
        "price": null, "reason": null, "maybe": null, "steps": [1, 2, 3],
        "rows": [{"id": "1"}, {"id": 2}], "empty": []
    });
    let mut found = Vec::new();
    check_fields(fields.as_object().unwrap(), &answer, &[], &mut found);
    found.sort();
    assert_eq!(
        found,
        [
            "empty: empty, so its documented members could not be held (the scenario should fill it)",
            "gone: missing (documented as boolean)",
            "maybe: documented as number, answered null",
            "price: documented as number, answered null",
            "rows[1].id: documented as string, answered 2",
            "steps: documented with 4 items, answered 3",
        ]
    );
    let mut keys = BTreeSet::new();
    check_snake_case(
        &json!({"ok_name": 1, "BTC": {"price": 1}, "badName": [{"alsoBad": 1}]}),
        "",
        &mut keys,
    );
    assert_eq!(
        keys.into_iter().collect::<Vec<_>>(),
        ["badName", "badName[].alsoBad"]
    );
    let mut concepts = Vec::new();
    check_concepts(
        &[json!({"in": "rows[]", "words": ["mint"], "type": "number", "means": "the mint basis"})],
        &json!({"rows": [{"paperMintBasisUsd": 1.5}, {"other": 1}]}),
        &[],
        &mut concepts,
    );
    assert_eq!(concepts.len(), 1, "{concepts:#?}");
    assert!(
        concepts[0].starts_with("rows[1]: no number member"),
        "{concepts:#?}"
    );
}
