//! Validation of what a person typed (a flag) or an assistant sent (a tool argument, as its
//! decimal text). Every failure names the field and changes nothing.

use crate::protocol::trading::{Instrument, TradingState};
use crate::protocol::units::{DecimalError, WAD, parse_scaled};
use crate::protocol::wire::parse_address;

use super::AnswerError;

/// The largest margin a quote accepts (the seed tools' bound): $10,000,000.
pub const MAX_MARGIN_USD: u128 = 10_000_000;
pub use crate::protocol::trading::MAX_LEVERAGE;

pub fn side(text: &str) -> Result<bool, AnswerError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "long" | "buy" | "b" => Ok(true),
        "short" | "sell" | "s" => Ok(false),
        _ => Err(AnswerError::input(
            "side",
            format!("must be long or short, got {text:?}"),
        )),
    }
}

pub fn side_label(is_long: bool) -> &'static str {
    if is_long { "long" } else { "short" }
}

/// Margin in USD → wad: positive, at most $10,000,000, at most 6 decimals (USDC precision).
pub fn margin(text: &str) -> Result<u128, AnswerError> {
    let field = "margin";
    if text.trim_start().starts_with('-') {
        return Err(AnswerError::input(
            field,
            format!("must be a positive USD amount, got {text:?}"),
        ));
    }
    let micro = parse_scaled(text, 6).map_err(|e| decimal_error(field, text, e, "a USD amount"))?;
    if micro == 0 {
        return Err(AnswerError::input(field, "must be more than $0"));
    }
    if micro > MAX_MARGIN_USD * 1_000_000 {
        return Err(AnswerError::input(field, "must be at most $10,000,000"));
    }
    Ok(micro * (WAD / 1_000_000))
}

/// Leverage: a whole number 1..=1000.
pub fn leverage(text: &str) -> Result<u32, AnswerError> {
    let t = text.trim().trim_end_matches(['x', 'X']);
    match t.parse::<u32>() {
        Ok(l) if (1..=MAX_LEVERAGE).contains(&l) => Ok(l),
        _ => Err(AnswerError::input(
            "leverage",
            format!("must be a whole number from 1 to {MAX_LEVERAGE}, got {text:?}"),
        )),
    }
}

/// A market by symbol or id, with the live list in the message when unknown.
pub fn market<'a>(state: &'a TradingState, text: &str) -> Result<&'a Instrument, AnswerError> {
    state.market(text).ok_or_else(|| {
        let known: Vec<String> = state.instruments.iter().map(|i| i.symbol.clone()).collect();
        AnswerError::input(
            "market",
            format!(
                "unknown market {:?}; markets: {}",
                crate::text::sanitize_line(text, 24),
                known.join(", ")
            ),
        )
    })
}

/// A USD price → raw at the market's scale; more decimals than the market quotes is an error.
pub fn price(field: &str, text: &str, market: &Instrument) -> Result<u64, AnswerError> {
    if text.trim_start().starts_with('-') {
        return Err(AnswerError::input(
            field,
            format!("must be a positive price, got {text:?}"),
        ));
    }
    let decimals = market.price_decimals();
    let raw = parse_scaled(text, decimals)
        .map_err(|e| decimal_error(field, text, e, &format!("a {} price", market.symbol)))?;
    if raw == 0 {
        return Err(AnswerError::input(field, "must be more than 0"));
    }
    // Prices live in the contract's uint64; a quarter of it leaves room for every intermediate
    // (entry + entry/L, entry + deadband) without saturating.
    u64::try_from(raw)
        .ok()
        .filter(|r| *r <= u64::MAX / 4)
        .ok_or_else(|| AnswerError::input(field, "is beyond the contract's price range"))
}

/// JSON a person typed (`typed-data --message`), refused when an object gives a key twice:
/// a parser would silently keep one of the two, and which one is a guess about money.
pub fn json_text(field: &str, text: &str) -> Result<serde_json::Value, AnswerError> {
    let bad = |e: serde_json::Error| AnswerError::input(field, format!("is not JSON: {e}"));
    serde_json::from_str::<NoDuplicateKeys>(text).map_err(bad)?;
    serde_json::from_str(text).map_err(bad)
}

/// Walks a JSON document only to refuse an object that gives a key twice.
struct NoDuplicateKeys;

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeys {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(self)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key {:?} is given twice",
                    crate::text::sanitize_line(&key, 40)
                )));
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(self)
    }
}

/// The positional arguments' names, as `--help` shows them (they are not flags).
pub const POSITION_ID: &str = "<POSITION_ID>";
pub const INTENT_ID: &str = "<INTENT_ID>";

/// A position id: decimal digits only (an empty or signed text is not id 0).
pub fn position_id(text: &str) -> Result<alloy_primitives::U256, AnswerError> {
    let t = text.trim();
    let bad = || {
        AnswerError::input(
            POSITION_ID,
            format!(
                "{:?} is not a position id (a whole number like 400013)",
                crate::text::sanitize_line(text, 40)
            ),
        )
    };
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    alloy_primitives::U256::from_str_radix(t, 10).map_err(|_| bad())
}

pub fn address(field: &str, text: &str) -> Result<alloy_primitives::Address, AnswerError> {
    parse_address(text.trim()).map_err(|e| AnswerError::input(field, e))
}

fn decimal_error(field: &str, text: &str, e: DecimalError, what: &str) -> AnswerError {
    let message = match e {
        DecimalError::TooPrecise(0) => format!("must be a whole number for {what}, got {text:?}"),
        DecimalError::TooPrecise(1) => {
            format!("has more than 1 decimal place for {what}, got {text:?}")
        }
        DecimalError::TooPrecise(d) => {
            format!("has more than {d} decimal places for {what}, got {text:?}")
        }
        DecimalError::Overflow => format!("is too large, got {text:?}"),
        DecimalError::Grouping => format!("{e}, got {text:?}"),
        _ => format!("must be {what} like 82800.5, got {text:?}"),
    };
    AnswerError::input(field, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs() {
        assert_eq!(margin("100").unwrap(), 100 * WAD);
        assert_eq!(margin("0.5").unwrap(), WAD / 2);
        assert!(
            margin("-5")
                .unwrap_err()
                .to_string()
                .starts_with("--margin: must be a positive")
        );
        assert!(margin("0").is_err());
        assert!(margin("10000000.01").is_err());
        assert!(margin("1.0000001").is_err());
        assert_eq!(margin("1,500.25").unwrap(), 1_500_250_000_000_000_000_000);
        let comma = margin("0,5").unwrap_err().to_string();
        assert!(
            comma.starts_with("--margin: has a comma that does not separate thousands"),
            "{comma}"
        );
        assert_eq!(leverage("500").unwrap(), 500);
        assert_eq!(leverage("10x").unwrap(), 10);
        assert!(
            leverage("0")
                .unwrap_err()
                .to_string()
                .contains("--leverage")
        );
        assert!(leverage("1001").is_err());
        assert!(leverage("2.5").is_err());
        assert!(side("Long").unwrap());
        assert_eq!(
            position_id(" 400013 ").unwrap(),
            alloy_primitives::U256::from(400_013)
        );
        for bad in ["", " ", "-1", "+5", "0x10", "1e3", "１２"] {
            let e = position_id(bad).unwrap_err().to_string();
            assert!(e.starts_with("<POSITION_ID>: "), "{bad:?}: {e}");
        }
        assert!(side("up").is_err());
    }

    #[test]
    fn json_with_a_key_given_twice_is_refused() {
        let v = json_text("message", r#"{"a":{"b":[1,{"c":2.5}]},"size":"10"}"#).unwrap();
        assert_eq!(v["a"]["b"][1]["c"], serde_json::json!(2.5));
        for twice in [r#"{"size":"10","size":"1000"}"#, r#"{"a":[{"x":1,"x":1}]}"#] {
            let e = json_text("message", twice).unwrap_err().to_string();
            assert!(e.starts_with("--message: is not JSON: the key"), "{e}");
            assert!(e.contains("is given twice"), "{e}");
        }
    }
}
