//! The explorer's `search`: classify a string and name where it leads. A `0x` address is a
//! wallet, a `0x` 32-byte hash an intent id (this client looks it up as an intent; a settlement
//! transaction's hash is read by `decode_transaction` / `decode-tx`, which cannot list the
//! batch's intents: the BatchExecutor ABI is unpublished, §10.8), a bare number a position id,
//! anything else part of a leaderboard name.

use alloy_primitives::{Address, B256, U256};
use serde_json::{Value, json};

/// What a query is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    Wallet(Address),
    Hash(B256),
    Position(U256),
    Name(String),
}

impl Query {
    /// The result's `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Query::Wallet(_) => "wallet",
            Query::Hash(_) => "intent",
            Query::Position(_) => "position",
            Query::Name(_) => "name",
        }
    }

    /// The explorer tool to call next [S2] and this client's command for it.
    pub fn next(&self) -> (&'static str, &'static str) {
        match self {
            Query::Wallet(_) => ("get_wallet", "wallet"),
            Query::Hash(_) => ("lookup_intent", "lookup"),
            Query::Position(_) => ("get_positions", "positions --watch"),
            Query::Name(_) => ("get_leaderboard", "leaderboard --query"),
        }
    }
}

/// Classify `text` (trimmed). Hex is case-insensitive; a number has only digits and fits 256
/// bits; a `0x` string of another length is searched as a name (an address fragment matches
/// in the leaderboard search too).
pub fn classify(text: &str) -> Query {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        match hex.len() {
            40 => {
                if let Ok(a) = hex.parse::<Address>() {
                    return Query::Wallet(a);
                }
            }
            64 => {
                if let Ok(h) = hex.parse::<B256>() {
                    return Query::Hash(h);
                }
            }
            _ => {}
        }
    }
    if !t.is_empty()
        && t.bytes().all(|b| b.is_ascii_digit())
        && let Ok(id) = U256::from_str_radix(t, 10)
    {
        return Query::Position(id);
    }
    Query::Name(t.to_string())
}

/// The structured result: `kind`, `value` (the query as typed, sanitised), `next_tool`,
/// `result`.
pub fn search_json(query: &Query, typed: &str, result: Value) -> Value {
    let (tool, command) = query.next();
    json!({
        "kind": query.kind(),
        "value": crate::text::sanitize_line(typed, 200),
        "next_tool": tool,
        "next_command": command,
        "result": result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shape_is_classified() {
        let a = "0x67891C4B5D4474FFCAB2E09B8DFA3D4C4236828C";
        assert!(matches!(classify(a), Query::Wallet(_)));
        let h = format!("0x{}", "ab".repeat(32));
        assert!(matches!(classify(&h), Query::Hash(_)));
        assert_eq!(
            classify(" 411276 "),
            Query::Position(U256::from(411_276u64))
        );
        assert_eq!(classify("0xBEEF"), Query::Name("0xBEEF".into()));
        assert_eq!(classify("whale"), Query::Name("whale".into()));
        assert_eq!(classify("12a"), Query::Name("12a".into()));
        // Too big for 256 bits: not a position id.
        assert!(matches!(classify(&"9".repeat(80)), Query::Name(_)));
        assert_eq!(classify(&h).kind(), "intent");
    }
}
