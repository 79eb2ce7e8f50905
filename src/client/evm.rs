//! HyperEVM JSON-RPC reads (the endpoint deposits verify with): one bounded call, and the two
//! reads a settlement transaction is looked up with. Every read is bounded in time (the read
//! deadline, retried like any read) and in bytes.

use alloy_primitives::B256;
use serde_json::{Value, json};

use crate::protocol::settlement::{EvmReceipt, EvmTransaction};
use crate::protocol::wire::DecodeError;

use super::limits::QUERY_CAP;
use super::{ExchangeHttp, FetchError};

fn malformed(url: &str, what: &str, problem: impl Into<String>) -> FetchError {
    FetchError::Malformed {
        url: url.to_string(),
        error: DecodeError::new(what, problem),
    }
}

impl ExchangeHttp {
    /// One JSON-RPC call on HyperEVM: its `result` (which may be null), or the node's error.
    pub(crate) async fn evm_rpc(
        &self,
        method: &str,
        params: Value,
        what: &str,
    ) -> Result<Value, FetchError> {
        let url = self.rpc_endpoint()?.to_string();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let text = self
            .post_read_text(&url, &format!("{method} {what}"), QUERY_CAP, &body)
            .await?;
        let mut value: Value =
            serde_json::from_str(&text).map_err(|e| malformed(&url, what, e.to_string()))?;
        if let Some(error) = value.get("error") {
            let message = error["message"].as_str().unwrap_or("an error");
            return Err(malformed(
                &url,
                what,
                format!(
                    "the node answered {}",
                    crate::text::sanitize_line(message, 120)
                ),
            ));
        }
        match value.get_mut("result") {
            Some(result) => Ok(result.take()),
            None => Err(malformed(&url, what, "no result and no error")),
        }
    }

    /// `eth_getTransactionByHash`: None when the node knows no such transaction. An answer for
    /// another hash than the one asked is refused.
    pub async fn evm_transaction(&self, hash: B256) -> Result<Option<EvmTransaction>, FetchError> {
        let what = "eth_getTransactionByHash";
        let result = self
            .evm_rpc(what, json!([format!("{hash:#x}")]), "transaction")
            .await?;
        if result.is_null() {
            return Ok(None);
        }
        let tx = EvmTransaction::from_rpc(&result)
            .map_err(|e| malformed(self.rpc_url(), what, e.to_string()))?;
        if tx.hash != hash {
            return Err(malformed(
                self.rpc_url(),
                what,
                "the node answered another transaction than the one asked",
            ));
        }
        Ok(Some(tx))
    }

    /// `eth_getTransactionReceipt`: None while the transaction is pending (or unknown).
    pub async fn evm_receipt(&self, hash: B256) -> Result<Option<EvmReceipt>, FetchError> {
        let what = "eth_getTransactionReceipt";
        let result = self
            .evm_rpc(what, json!([format!("{hash:#x}")]), "receipt")
            .await?;
        if result.is_null() {
            return Ok(None);
        }
        let receipt = EvmReceipt::from_rpc(&result)
            .map_err(|e| malformed(self.rpc_url(), what, e.to_string()))?;
        if receipt.hash != hash {
            return Err(malformed(
                self.rpc_url(),
                what,
                "the node answered the receipt of another transaction than the one asked",
            ));
        }
        Ok(Some(receipt))
    }
}
