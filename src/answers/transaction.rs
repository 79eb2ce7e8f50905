//! One HyperEVM transaction, classified: found or not, how its receipt ended, whether it called
//! the BatchExecutor. Its intents are not decoded: the BatchExecutor's ABI is unpublished
//! (protocol.md §10 item 8), so the answer gives the calldata's length and selector as facts and
//! says why it stops there. Read over the HyperEVM JSON-RPC deposits verify with.

use alloy_primitives::B256;
use serde_json::{Map, Value, json};

use crate::client::ExchangeHttp;
use crate::protocol::settlement::{BATCH_ABI_UNPUBLISHED, BATCH_EXECUTOR};
use crate::protocol::wire::parse_b256;

use super::AnswerError;

/// A transaction hash as typed: `0x` and 64 hex characters, any case.
pub fn tx_hash(field: &str, text: &str) -> Result<B256, AnswerError> {
    parse_b256(&text.trim().to_ascii_lowercase()).map_err(|_| {
        AnswerError::input(
            field,
            format!(
                "must be a 32-byte transaction hash: 0x followed by 64 hex characters, got {:?}",
                crate::text::sanitize_line(text, 80)
            ),
        )
    })
}

/// The transaction `hash` and its receipt, in the explorer seed's snake_case.
pub async fn decode(http: &ExchangeHttp, hash: B256) -> Result<Value, AnswerError> {
    let (tx, receipt) = tokio::try_join!(http.evm_transaction(hash), http.evm_receipt(hash))?;
    let mut out = Map::new();
    out.insert("tx_hash".into(), json!(format!("{hash:#x}")));
    let Some(tx) = tx else {
        out.insert("found".into(), json!(false));
        out.insert(
            "note".into(),
            json!("HyperEVM has no transaction with this hash (the node answered null). If it is a Papertrade intent id rather than a transaction, use lookup_intent (`papertrade-tui lookup ID`)."),
        );
        return Ok(Value::Object(out));
    };
    out.insert("found".into(), json!(true));
    let status = match receipt {
        Some(r) if r.succeeded => "success",
        Some(_) => "reverted",
        None => "pending",
    };
    out.insert("status".into(), json!(status));
    if let Some(block) = receipt.map(|r| r.block_number).or(tx.block_number) {
        out.insert("block_number".into(), json!(block));
    }
    out.insert("is_batch".into(), json!(tx.is_batch()));
    out.insert("from".into(), json!(format!("{:#x}", tx.from)));
    if let Some(to) = tx.to {
        out.insert("to".into(), json!(format!("{to:#x}")));
    }
    out.insert("calldata_bytes".into(), json!(tx.input.len()));
    let selector = tx
        .selector()
        .map(|s| format!("0x{}", alloy_primitives::hex::encode(s)));
    if let Some(s) = &selector {
        out.insert("selector".into(), json!(s));
    }
    let note = if tx.is_batch() {
        format!(
            "A Papertrade settlement batch (a call to the BatchExecutor {BATCH_EXECUTOR:#x}) with {} bytes of calldata{}. Its intents are not listed: {BATCH_ABI_UNPUBLISHED}.",
            tx.input.len(),
            selector
                .as_deref()
                .map(|s| format!(", selector {s}"))
                .unwrap_or_default(),
        )
    } else {
        let target = tx.to.map_or_else(
            || "a contract creation".to_string(),
            |to| format!("a call to {to:#x}"),
        );
        format!(
            "Not a Papertrade batch: {target}, not to the BatchExecutor {BATCH_EXECUTOR:#x}, so it carries no Papertrade intents."
        )
    };
    out.insert("intents_note".into(), json!(note));
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_must_be_32_bytes_of_hex() {
        let ok = tx_hash(
            "tx_hash",
            " 0xAB57c85e286520d205709f1fce287fce8944322e0e43155062efeac931fcb01a ",
        );
        assert!(ok.is_ok());
        for bad in [
            "",
            "0x12",
            "57c85e286520d205709f1fce287fce8944322e0e43155062efeac931fcb01a1a",
            &format!("0x{}", "g".repeat(64)),
        ] {
            let e = tx_hash("tx_hash", bad).unwrap_err().to_string();
            assert!(e.contains("0x followed by 64 hex characters"), "{e}");
        }
    }
}
