//! The arguments a tool advertises are the arguments it takes: for every listed tool and every
//! property of its `inputSchema`, boundary values (the minimum and maximum, one past each, the
//! same values written as whole floats and in exponent form, a fraction where a whole number is
//! asked, each enum value and one outside, the wrong JSON type) are judged by an independent
//! JSON Schema validator and then called. What the schema accepts must answer; what it refuses
//! must be refused as an invalid argument, and nothing else.

use papertrade_tui::mcp::Server;
use rmcp::model::ProtocolVersion;
use serde_json::{Map, Value, json};

use crate::mcp::{call, calls, connect, reads, sim_at_seed_price};

/// `text` (a plain decimal) in scientific notation: `0.01` → `1e-2`, `82800.3` → `8.28003e4`.
fn exponent_form(text: &str) -> String {
    let (sign, body) = match text.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", text),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let all = format!("{int}{frac}");
    let lead = all.bytes().take_while(|&b| b == b'0').count();
    let digits = all[lead..].trim_end_matches('0');
    if digits.is_empty() {
        return "0e0".into();
    }
    // all = digits × 10^k, with k the place of the last significant digit.
    let trailing = all[lead..].len() - digits.len();
    let k = trailing as i64 - frac.len() as i64;
    let exp = k + digits.len() as i64 - 1;
    let (first, rest) = digits.split_at(1);
    if rest.is_empty() {
        format!("{sign}{first}e{exp}")
    } else {
        format!("{sign}{first}.{rest}e{exp}")
    }
}

/// `text` written as a float with a zero fraction when it is whole (`10` → `10.0`).
fn float_form(text: &str) -> Option<String> {
    (!text.contains('.')).then(|| format!("{text}.0"))
}

fn shifted(text: &str, by: f64) -> String {
    format!("{}", text.parse::<f64>().unwrap() + by)
}

/// The boundary values of one property, as JSON texts (so `10.0` stays `10.0`).
fn candidates(p: &Map<String, Value>) -> Vec<String> {
    let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
    let mut out: Vec<String> = Vec::new();
    match kind {
        "integer" | "number" => {
            let bound = |k: &str| p.get(k).map(|v| v.to_string());
            let mut valid: Vec<String> = Vec::new();
            if let Some(min) = bound("minimum") {
                valid.push(min.clone());
                out.push(shifted(&min, -1.0));
            }
            if let Some(max) = bound("maximum") {
                valid.push(max.clone());
                out.push(shifted(&max, 1.0));
            }
            if let Some(x) = bound("exclusiveMinimum") {
                out.push(x.clone());
                out.push(shifted(&x, -1.0));
                valid.push(shifted(&x, 1.0));
            }
            if valid.is_empty() {
                valid.push("1".into());
            }
            for v in &valid {
                out.push(v.clone());
                out.extend(float_form(v));
                out.push(exponent_form(v));
                if kind == "integer" {
                    out.push(shifted(v, 0.5));
                }
            }
            out.push("\"5\"".into());
            out.push("true".into());
        }
        "string" => {
            for v in p
                .get("enum")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.push(v.to_string());
            }
            if p.contains_key("enum") {
                out.push("\"NOT-ONE-OF-THEM\"".into());
            }
            if p.contains_key("pattern") {
                out.push("\"0x12\"".into());
            }
            if p.contains_key("minLength") {
                out.push("\"\"".into());
            }
            out.push("1".into());
            out.push("null".into());
        }
        "boolean" => out.extend(["true", "false", "\"true\"", "1"].map(String::from)),
        "object" => out.extend(["[]", "\"{}\""].map(String::from)),
        _ => out.push("null".into()),
    }
    out.dedup();
    out
}

/// A message each intent type takes (its arguments depend on `type`).
fn intent_message(kind: &str, w: &str) -> Value {
    let other = "0x14791697260e4c9a71f18484c9f997b308e59325";
    match kind {
        "RegisterSessionKey" => json!({"user": w, "key": other, "expiry": "99999999999"}),
        "WithdrawToCore" => json!({"user": w, "amount": "10000000"}),
        "Stake" | "Unstake" => json!({"user": w, "amount": "1"}),
        "Claim" => json!({"user": w}),
        "OpenPosition" => json!({"user": w, "instrumentId": 0, "isLong": true,
            "size": "100000000000000000000", "leverage": 10, "useDebt": false}),
        "Close" => json!({"user": w, "positionIds": ["400013"]}),
        "CancelIntent" => json!({"user": w, "intentId": format!("0x{}", "ab".repeat(32))}),
        other => panic!("an intent type this test does not know: {other}"),
    }
}

/// A call the schema accepts may still be answered with the market's own refusal (the live
/// minimum margin, the notional bounds): that is the exchange's state, which no schema states,
/// and it must not be worded as an invalid argument.
const MARKET_ANSWERS: [&str; 1] = ["The relayer would refuse this open"];

#[test]
fn boundary_values_are_written_in_every_form() {
    assert_eq!(exponent_form("0.01"), "1e-2");
    assert_eq!(exponent_form("82800.3"), "8.28003e4");
    assert_eq!(exponent_form("1000"), "1e3");
    assert_eq!(exponent_form("-100"), "-1e2");
    assert_eq!(exponent_form("1"), "1e0");
    assert_eq!(exponent_form("0"), "0e0");
    assert_eq!(exponent_form("10000000"), "1e7");
    assert_eq!(float_form("10").as_deref(), Some("10.0"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_advertised_argument_rule_is_the_rule_each_call_applies() {
    let sim = sim_at_seed_price().await;
    let trader = sim.trader(1_000).await;
    let w = trader.wallet_hex();
    let queued = format!("0x{}", "ab".repeat(32));
    let client = connect(Server::new(reads(&sim), &[]), ProtocolVersion::V_2025_06_18).await;
    let tools = client.list_all_tools().await.unwrap();
    let known = calls(&w, &queued);
    let mut disagreements = Vec::new();
    let mut tried = 0;
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        let validator = jsonschema::validator_for(&schema).unwrap();
        // A call known to answer, cut down to the required arguments.
        let (_, example) = known
            .iter()
            .find(|(name, _)| *name == tool.name)
            .unwrap_or_else(|| panic!("no example call of {}", tool.name));
        let required: Vec<&str> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let base: Map<String, Value> = example
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| required.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let props = schema["properties"].as_object().unwrap();
        for (name, p) in props {
            for text in candidates(p.as_object().unwrap()) {
                let mut args = base.clone();
                let value: Value = serde_json::from_str(&text).unwrap();
                if tool.name == "papertrade_build_typed_data"
                    && name == "type"
                    && let Some(kind) = value.as_str()
                    && !kind.starts_with("NOT")
                {
                    args.insert("message".into(), intent_message(kind, &w));
                }
                args.insert(name.clone(), value);
                let args = Value::Object(args);
                let schema_accepts = validator.is_valid(&args);
                let r = call(&client, &tool.name, args.clone()).await;
                tried += 1;
                let said = r
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.clone())
                    .unwrap_or_default();
                let refused_argument =
                    r.is_error == Some(true) && said.starts_with("Invalid argument");
                let agrees = if schema_accepts {
                    r.is_error != Some(true) || MARKET_ANSWERS.iter().any(|m| said.starts_with(m))
                } else {
                    refused_argument
                };
                if !agrees {
                    disagreements.push(format!(
                        "{} {name}={text}: schema {} but the call said {:?}",
                        tool.name,
                        if schema_accepts { "accepts" } else { "refuses" },
                        if r.is_error == Some(true) {
                            said
                        } else {
                            "(an answer)".into()
                        }
                    ));
                }
            }
        }
    }
    assert!(tried > 300, "{tried}");
    assert!(
        disagreements.is_empty(),
        "{} of {tried} calls disagree with the advertised schema:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_answers_as_the_value_it_denotes_however_it_is_written() {
    let sim = sim_at_seed_price().await;
    let client = connect(Server::new(reads(&sim), &[]), ProtocolVersion::V_2025_06_18).await;
    let raw = |text: &str| -> Value { serde_json::from_str(text).unwrap() };
    let answer = async |name: &str, args: &str| {
        let r = call(&client, name, raw(args)).await;
        let said = r.content[0].as_text().unwrap().text.clone();
        assert_ne!(r.is_error, Some(true), "{name} {args}: {said}");
        r.structured_content.unwrap()
    };
    // Whole numbers as floats and amounts in exponent form are the same call as plain ones.
    let plain = answer(
        "papertrade_estimate_position",
        r#"{"market":"BTC","side":"long","marginUsd":25,"leverage":10,"priceMovePct":0.000001}"#,
    )
    .await;
    for spelled in [
        r#"{"market":"BTC","side":"long","marginUsd":2.5e1,"leverage":10.0,"priceMovePct":1e-06}"#,
        r#"{"market":"BTC","side":"long","marginUsd":25.000,"leverage":1E1,"priceMovePct":0.1e-5}"#,
    ] {
        assert_eq!(
            answer("papertrade_estimate_position", spelled).await,
            plain,
            "{spelled}"
        );
    }
    // A whole number read by a count is that count, not the default.
    let two = answer(
        "get_candles",
        r#"{"market":"BTC","interval":"1m","limit":2}"#,
    )
    .await;
    for spelled in ["2.0", "2e0", "0.2e1"] {
        let args = format!(r#"{{"market":"BTC","interval":"1m","limit":{spelled}}}"#);
        assert_eq!(answer("get_candles", &args).await, two, "{spelled}");
    }
    // A wad amount as Python writes a small float: exact, to the last raw unit.
    let mint = answer("papertrade_paper_mint", r#"{"lossBasisUsd":1e-07}"#).await;
    let same = answer("papertrade_paper_mint", r#"{"lossBasisUsd":0.0000001}"#).await;
    assert_eq!(mint, same);
    // More places than the contract's scale is still refused, in its own words.
    let r = call(
        &client,
        "quote_open_position",
        raw(r#"{"market":"BTC","side":"long","marginUsd":1.00000001e1,"leverage":10}"#),
    )
    .await;
    let said = r.content[0].as_text().unwrap().text.clone();
    assert_eq!(r.is_error, Some(true));
    assert!(
        said.starts_with("Invalid argument marginUsd: has more than 6 decimal places"),
        "{said}"
    );
    assert!(said.contains("10.0000001"), "{said}");
}
