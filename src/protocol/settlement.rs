//! HyperEVM settlement transactions as the JSON-RPC node answers them (§1 addresses, §10.8):
//! which contract a transaction called, with what calldata, and how its receipt ended. The
//! BatchExecutor's ABI is unpublished, so its calldata is described (length, selector), never
//! decoded: a guessed layout would show intents that were not signed.

use alloy_primitives::{Address, B256, address};
use serde_json::Value;

use super::wire::{DecodeError, parse_address, parse_b256};

/// "Executes batches of signed intents, callable only by the relayer" (protocol.md §1).
pub const BATCH_EXECUTOR: Address = address!("0x233ff29b239abc1d7748605da9b205c3e008626e");

/// Why a batch's intents are not listed (protocol.md §10 item 8).
pub const BATCH_ABI_UNPUBLISHED: &str = "the BatchExecutor's ABI (its function and the intent layout in its calldata) is unpublished (protocol.md §10 item 8), so its calldata is not decoded into intents: a guessed layout could show intents that were never signed";

/// One transaction from `eth_getTransactionByHash`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvmTransaction {
    pub hash: B256,
    pub from: Address,
    /// None: a contract creation.
    pub to: Option<Address>,
    pub input: Vec<u8>,
    /// None while it is pending.
    pub block_number: Option<u64>,
}

/// One receipt from `eth_getTransactionReceipt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvmReceipt {
    pub hash: B256,
    pub block_number: u64,
    pub succeeded: bool,
}

impl EvmTransaction {
    pub fn is_batch(&self) -> bool {
        self.to == Some(BATCH_EXECUTOR)
    }

    /// The calldata's 4-byte function selector, when it has one.
    pub fn selector(&self) -> Option<[u8; 4]> {
        self.input.get(..4).map(|s| s.try_into().expect("4 bytes"))
    }

    /// The node's transaction object (`result` of `eth_getTransactionByHash`).
    pub fn from_rpc(v: &Value) -> Result<Self, DecodeError> {
        let bad = |field: &str, problem: String| DecodeError::new(field, problem);
        let hash = hash_field(v, "hash")?;
        let from =
            parse_address(&text(v, "from")?.to_ascii_lowercase()).map_err(|e| bad("from", e))?;
        let to = match &v["to"] {
            Value::Null => None,
            Value::String(t) => {
                Some(parse_address(&t.to_ascii_lowercase()).map_err(|e| bad("to", e))?)
            }
            _ => return Err(bad("to", "expected an address or null".into())),
        };
        let input_text = v["input"]
            .as_str()
            .or_else(|| v["data"].as_str())
            .ok_or_else(|| bad("input", "expected 0x hex".into()))?;
        let input = alloy_primitives::hex::decode(input_text)
            .map_err(|_| bad("input", "expected 0x hex".into()))?;
        let block_number = match &v["blockNumber"] {
            Value::Null => None,
            _ => Some(quantity(v, "blockNumber")?),
        };
        Ok(Self {
            hash,
            from,
            to,
            input,
            block_number,
        })
    }
}

impl EvmReceipt {
    /// The node's receipt (`result` of `eth_getTransactionReceipt`).
    pub fn from_rpc(v: &Value) -> Result<Self, DecodeError> {
        let succeeded = match quantity(v, "status")? {
            1 => true,
            0 => false,
            n => {
                return Err(DecodeError::new(
                    "status",
                    format!("expected 0x1 or 0x0, got {n}"),
                ));
            }
        };
        Ok(Self {
            hash: hash_field(v, "transactionHash")?,
            block_number: quantity(v, "blockNumber")?,
            succeeded,
        })
    }
}

fn text<'a>(v: &'a Value, field: &str) -> Result<&'a str, DecodeError> {
    v[field]
        .as_str()
        .ok_or_else(|| DecodeError::new(field, "expected a string"))
}

fn hash_field(v: &Value, field: &str) -> Result<B256, DecodeError> {
    parse_b256(&text(v, field)?.to_ascii_lowercase()).map_err(|e| DecodeError::new(field, e))
}

/// A JSON-RPC quantity: `0x` and at most 16 hex digits, no leading zeros required.
fn quantity(v: &Value, field: &str) -> Result<u64, DecodeError> {
    let t = text(v, field)?;
    t.strip_prefix("0x")
        .filter(|h| !h.is_empty() && h.len() <= 16)
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| {
            DecodeError::new(
                field,
                format!(
                    "expected a 0x quantity, got {:?}",
                    crate::text::sanitize_line(t, 40)
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HASH: &str = "0x57c85e286520d205709f1fce287fce8944322e0e43155062efeac931fcb01a1a";

    #[test]
    fn a_batch_call_is_read_with_its_selector_and_block() {
        let tx = EvmTransaction::from_rpc(&json!({
            "hash": HASH, "from": "0x00000000000000000000000000000000000000AA",
            "to": "0x233FF29B239ABC1D7748605DA9B205C3E008626E", "input": "0xdeadbeef00",
            "blockNumber": "0x2dd7f0c"
        }))
        .unwrap();
        assert!(tx.is_batch());
        assert_eq!(tx.selector(), Some([0xde, 0xad, 0xbe, 0xef]));
        assert_eq!(tx.block_number, Some(48_070_412));
        assert_eq!(format!("{:#x}", tx.hash), HASH);
    }

    #[test]
    fn a_pending_creation_has_no_block_and_no_target() {
        let tx = EvmTransaction::from_rpc(&json!({
            "hash": HASH, "from": "0x00000000000000000000000000000000000000aa",
            "to": null, "input": "0x", "blockNumber": null
        }))
        .unwrap();
        assert!(!tx.is_batch());
        assert_eq!((tx.to, tx.block_number, tx.selector()), (None, None, None));
    }

    #[test]
    fn receipts_say_success_or_reverted_and_refuse_anything_else() {
        let r = |status: &str| {
            EvmReceipt::from_rpc(
                &json!({"transactionHash": HASH, "blockNumber": "0x10", "status": status}),
            )
        };
        assert!(r("0x1").unwrap().succeeded);
        assert!(!r("0x0").unwrap().succeeded);
        assert_eq!(r("0x1").unwrap().block_number, 16);
        assert!(r("0x2").is_err());
        assert!(r("1").is_err());
        assert!(r("0x").is_err());
    }
}
