//! Funding on the simulator's origin: Hyperliquid's `POST /exchange` (a signed `spotSend` only),
//! the relayer's `POST /funding/deposits/check`, a HyperEVM JSON-RPC subset at `POST /evm` (the
//! two reads a deposit verifies with, and the simulator's own settlement transactions), and the
//! `/sim/fund-core` practice control.

use alloy_primitives::Address;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::protocol::funding::{
    COMPUTE_PROXY_SELECTOR, CORE_USER_EXISTS_PRECOMPILE, CORE_WEI_PER_USDC_UNIT,
    DEPOSIT_PROXY_FACTORY, HYPEREVM_CHAIN_ID, decode_address_word,
};
use crate::protocol::hypercore_send::{CORE_USDC_DECIMALS, ExchangeAnswer, SignedSpotSend};
use crate::protocol::units::{format_scaled, parse_scaled};
use crate::protocol::wire::parse_address;
use crate::sim::controls::invalid_control;
use crate::sim::intake::Refusal;

use super::body::{Field, object};
use super::gate::check_origin;
use super::{S, answer, ok_json, refusal};

/// Hyperliquid's answer to a body it cannot read (as `/info` does).
fn unprocessable() -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        "Failed to deserialize the JSON body",
    )
        .into_response()
}

/// `POST /exchange`: a malformed body is 422; a readable one is answered 200 with Hyperliquid's
/// `status` ok or err (a refusal changes nothing).
pub(super) async fn exchange(State(s): S, body: Bytes) -> Response {
    s.delay().await;
    let Some(value) = serde_json::from_slice::<Value>(&body)
        .ok()
        .filter(|v| v["action"].is_object())
    else {
        return unprocessable();
    };
    if value["action"]["type"] != "spotSend" {
        return ok_json(
            ExchangeAnswer::Err("the simulator's /exchange takes spotSend only".into()).to_json(),
        );
    }
    let answer = match SignedSpotSend::from_exchange_body(&value) {
        Err(why) => ExchangeAnswer::Err(why),
        Ok(signed) => match s.with_engine(|e| {
            let (now, delay) = (e.now_ms(), e.cfg.sweep_delay_ms);
            e.core.spot_send(&signed, now, delay)
        }) {
            // Applied, and the client gets a broken answer: it must not send it again.
            Ok(()) if s.drop_intent_answer() => return super::intents::dropped_answer(),
            Ok(()) => ExchangeAnswer::Ok,
            Err(why) => ExchangeAnswer::Err(why),
        },
    };
    ok_json(answer.to_json())
}

#[derive(Deserialize)]
struct CheckBody {
    #[serde(default)]
    user: Field<String>,
}

/// `POST /funding/deposits/check {"user"}` → `{"proxy"}` (checksummed, as the SDK's test shows).
pub(super) async fn deposits_check(State(s): S, headers: HeaderMap, body: Bytes) -> Response {
    s.delay().await;
    if let Err(r) = check_origin(&headers) {
        return refusal(r);
    }
    let invalid = |m: &str| Refusal::new(400, "invalid_body", m);
    let result = serde_json::from_slice(&body)
        .ok()
        .and_then(object::<CheckBody>)
        .ok_or_else(|| invalid("the body must be a JSON object"))
        .and_then(|b| {
            b.user
                .given()
                .ok_or_else(|| invalid("user: expected a string"))
        })
        .and_then(|u| parse_address(&u).map_err(|e| invalid(&format!("user: {e}"))))
        .map(|user| {
            let proxy = s.with_engine(|e| {
                let (now, delay) = (e.now_ms(), e.cfg.sweep_delay_ms);
                e.core.register_proxy(user, now, delay)
            });
            json!({"proxy": proxy.to_checksum(None)})
        });
    answer(result)
}

/// The Hyperliquid spot row of `user` (`/info spotClearinghouseState`): `{"balances":[…]}`,
/// empty for an address HyperCore does not know.
pub(super) fn spot_clearinghouse_state(s: &super::Shared, user: Address) -> Value {
    let spot = s.with_engine(|e| e.core.spot_usdc(user));
    let balances: Vec<Value> = spot
        .into_iter()
        .map(|u| {
            json!({
                "coin": "USDC",
                "token": 0,
                "hold": core_text(u.hold_wei),
                "total": core_text(u.total_wei),
                "entryNtl": "0.0",
            })
        })
        .collect();
    json!({ "balances": balances })
}

/// Hyperliquid's decimal text: at least one decimal (`"25.0"`, `"14.625485"`).
fn core_text(wei: u128) -> String {
    let t = format_scaled(wei, CORE_USDC_DECIMALS);
    if t.contains('.') { t } else { format!("{t}.0") }
}

/// `POST /evm`: `eth_chainId`, `eth_call` to the proxy factory and the `coreUserExists`
/// precompile, and `eth_getTransactionByHash` / `eth_getTransactionReceipt` for the simulator's
/// own synthetic settlement transactions (INFERRED, `sim::chain`; any other hash is null, as a
/// node answers for a transaction it does not know); anything else is a JSON-RPC error.
pub(super) async fn evm(State(s): S, body: Bytes) -> Response {
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return ok_json(rpc_error(Value::Null, -32700, "parse error"));
    };
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let answer = match req["method"].as_str() {
        Some("eth_chainId") => Ok(json!(format!("{HYPEREVM_CHAIN_ID:#x}"))),
        // A revert is the node's -32000; a malformed hash is invalid params.
        Some("eth_call") => eth_call(&s, &req["params"])
            .map(Value::String)
            .map_err(|why| (-32000, why)),
        Some(m @ ("eth_getTransactionByHash" | "eth_getTransactionReceipt")) => {
            settlement(&s, m == "eth_getTransactionReceipt", &req["params"])
                .map_err(|why| (-32602, why))
        }
        _ => return ok_json(rpc_error(id, -32601, "the method does not exist")),
    };
    match answer {
        Ok(result) => ok_json(json!({"jsonrpc": "2.0", "id": id, "result": result})),
        Err((code, why)) => ok_json(rpc_error(id, code, &why)),
    }
}

/// A synthetic settlement transaction or its receipt (always a success: the batch ran; each
/// intent's own outcome is the account stream's), or null for a hash the simulator never made.
fn settlement(s: &super::Shared, receipt: bool, params: &Value) -> Result<Value, String> {
    let hash = params[0]
        .as_str()
        .and_then(|h| crate::protocol::wire::parse_b256(&h.to_ascii_lowercase()).ok())
        .ok_or_else(|| "params[0]: expected a 32-byte transaction hash".to_string())?;
    let Some(tx) = s.with_engine(|e| e.chain.get(hash).cloned()) else {
        return Ok(Value::Null);
    };
    let hex = |n: u64| format!("{n:#x}");
    let common = json!({
        "blockHash": format!("{:#x}", crate::sim::chain::block_hash(tx.block)),
        "blockNumber": hex(tx.block),
        "from": format!("{:#x}", tx.from),
        "to": format!("{:#x}", tx.to),
        "transactionIndex": "0x0",
    });
    let mut out = common.as_object().expect("object").clone();
    let extra = if receipt {
        json!({
            "transactionHash": format!("{:#x}", tx.hash),
            "status": "0x1",
            "gasUsed": hex(60_000 + 40_000 * tx.intents.len() as u64),
            "cumulativeGasUsed": hex(60_000 + 40_000 * tx.intents.len() as u64),
            "effectiveGasPrice": "0x5f5e100",
            "contractAddress": null,
            "logs": [],
            "logsBloom": format!("0x{}", "0".repeat(512)),
            "type": "0x2",
        })
    } else {
        json!({
            "hash": format!("{:#x}", tx.hash),
            "nonce": hex(tx.nonce),
            "input": format!("0x{}", alloy_primitives::hex::encode(&tx.input)),
            "value": "0x0",
            "gas": hex(2_000_000),
            "type": "0x2",
            "chainId": format!("{HYPEREVM_CHAIN_ID:#x}"),
        })
    };
    out.extend(extra.as_object().expect("object").clone());
    Ok(Value::Object(out))
}

fn rpc_error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn eth_call(s: &super::Shared, params: &Value) -> Result<String, String> {
    let call = &params[0];
    let to = call["to"]
        .as_str()
        .ok_or("params[0].to: expected an address")
        .and_then(|t| parse_address(t).map_err(|_| "params[0].to: expected an address"))?;
    let data_text = call["data"]
        .as_str()
        .or_else(|| call["input"].as_str())
        .ok_or("params[0].data: expected 0x hex")?;
    let data = alloy_primitives::hex::decode(data_text).map_err(|_| "params[0].data: not hex")?;
    let word = |a: Address| format!("0x{}", alloy_primitives::hex::encode(a.into_word()));
    if to == DEPOSIT_PROXY_FACTORY {
        if data.len() != 36 || data[..4] != COMPUTE_PROXY_SELECTOR {
            return Err("execution reverted".into());
        }
        let owner = decode_address_word(&data[4..]).map_err(|_| "execution reverted")?;
        return Ok(word(super::super::hypercore::proxy_of(owner)));
    }
    if to == CORE_USER_EXISTS_PRECOMPILE {
        let user = decode_address_word(&data).map_err(|_| "execution reverted")?;
        let exists = s.with_engine(|e| e.core.user_exists(user));
        return Ok(format!("0x{:064x}", u8::from(exists)));
    }
    // Any other address has no code here: an empty return, as a call to an EOA gives.
    Ok("0x".into())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FundCoreBody {
    #[serde(default)]
    wallet: Field<String>,
    #[serde(default)]
    amount_usd: Field<String>,
}

/// A billion practice dollars of HyperCore USDC per call at most.
const MAX_FUND_CORE_USD: u128 = 1_000_000_000;

/// `POST /sim/fund-core {"wallet","amountUsd"}`: HyperCore spot USDC for practice.
pub(super) async fn fund_core(State(s): S, body: Bytes) -> Response {
    let result = serde_json::from_slice(&body)
        .ok()
        .and_then(object::<FundCoreBody>)
        .ok_or_else(|| invalid_control("the body must be a JSON object"))
        .and_then(|b| {
            let wallet = b
                .wallet
                .text("wallet")
                .and_then(|w| parse_address(w).map_err(invalid_control))?;
            let wei = b.amount_usd.text("amountUsd").and_then(|a| {
                parse_scaled(a, 6)
                    .map_err(|e| invalid_control(format!("amountUsd {e}")))
                    .map(|usdc| usdc * CORE_WEI_PER_USDC_UNIT)
            })?;
            if wei == 0 || wei > MAX_FUND_CORE_USD * 100_000_000 {
                return Err(invalid_control(format!(
                    "amountUsd must be more than 0 and at most {MAX_FUND_CORE_USD}"
                )));
            }
            let total = s.with_engine(|e| e.core.credit(wallet, wei));
            Ok(json!({"ok": true, "wallet": format!("{wallet:#x}"), "spotUsdc": core_text(total)}))
        });
    answer(result)
}
