//! `decode_transaction` (explorer seed): `report::transaction`, read over HyperEVM JSON-RPC.

use serde_json::Value;

use crate::answers::{AnswerError, transaction};

use super::{Answer, Args, Failure, Reads};

pub(super) async fn decode(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let hash =
        transaction::tx_hash("tx_hash", &a.text("tx_hash").unwrap_or_default()).map_err(fail)?;
    let value = transaction::decode(&reads.http, hash).await.map_err(fail)?;
    let text = if value["found"] == Value::Bool(false) {
        format!("Transaction {hash:#x}: not found on HyperEVM.")
    } else {
        format!(
            "Transaction {hash:#x}: {}{}. {}",
            value["status"].as_str().unwrap_or("unknown"),
            value["block_number"]
                .as_u64()
                .map(|b| format!(" in block {b}"))
                .unwrap_or_default(),
            value["intents_note"].as_str().unwrap_or(""),
        )
    };
    Ok(Answer { text, value })
}

fn fail(e: AnswerError) -> Failure {
    match e {
        AnswerError::Network(m) | AnswerError::Malformed(m) => Failure(format!(
            "HyperEVM could not be read: {}. The node may be down or slow: try again in a minute. Nothing was done.",
            crate::text::sanitize_line(&m, 300)
        )),
        input => Failure::from_report(input, &[]),
    }
}
