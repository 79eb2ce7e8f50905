//! Strict decoding helpers for the exchange's JSON: amounts that arrive as decimal strings or as
//! JSON numbers, and positional tuples decoded field by field with a named error.
//!
//! Everything here returns a [`DecodeError`] naming the field; nothing panics on bad input.

use alloy_primitives::{Address, B256, U256};
use serde::{Deserialize, Deserializer, de::Error as _};
use serde_json::Value;

/// Malformed exchange data: which field, and what was wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {problem}")]
pub struct DecodeError {
    pub field: String,
    pub problem: String,
}

impl DecodeError {
    pub(crate) fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

/// Parse a JSON body into `T`, turning serde's message into a [`DecodeError`].
#[cfg(test)]
pub fn decode<T: serde::de::DeserializeOwned>(what: &str, body: &str) -> Result<T, DecodeError> {
    serde_json::from_str(body).map_err(|e| DecodeError::new(what, e.to_string()))
}

fn digits_u256(text: &str) -> Option<U256> {
    if text.is_empty() || text.len() > 78 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    U256::from_str_radix(text, 10).ok()
}

/// An unsigned integer given as a decimal string or a non-negative JSON integer.
pub fn value_u256(value: &Value) -> Result<U256, String> {
    match value {
        Value::String(s) => {
            digits_u256(s).ok_or_else(|| format!("expected an unsigned integer, got {s:?}"))
        }
        // With arbitrary precision the number keeps its digits, so big integers survive.
        Value::Number(n) => digits_u256(&n.to_string())
            .ok_or_else(|| format!("expected an unsigned integer, got {n}")),
        other => Err(format!("expected an unsigned integer, got {}", kind(other))),
    }
}

pub fn value_u128(value: &Value) -> Result<u128, String> {
    let v = value_u256(value)?;
    u128::try_from(v).map_err(|_| format!("{v} is out of range"))
}

pub fn value_u64(value: &Value) -> Result<u64, String> {
    let v = value_u256(value)?;
    u64::try_from(v).map_err(|_| format!("{v} is out of range"))
}

pub fn value_u32(value: &Value) -> Result<u32, String> {
    let v = value_u256(value)?;
    u32::try_from(v).map_err(|_| format!("{v} is out of range"))
}

/// A signed integer given as a decimal string (optional leading `-`) or a JSON integer.
pub fn value_i128(value: &Value) -> Result<i128, String> {
    match value {
        Value::String(s) => {
            let (neg, digits) = s
                .strip_prefix('-')
                .map_or((false, s.as_str()), |d| (true, d));
            let magnitude = digits_u256(digits)
                .ok_or_else(|| format!("expected a signed integer, got {s:?}"))?;
            let magnitude =
                i128::try_from(magnitude).map_err(|_| format!("{s} is out of range"))?;
            Ok(if neg { -magnitude } else { magnitude })
        }
        Value::Number(n) => value_i128(&Value::String(n.to_string()))
            .map_err(|_| format!("expected a signed integer, got {n}")),
        other => Err(format!("expected a signed integer, got {}", kind(other))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Parse `0x` + 40 hex (any case) into an address.
pub fn parse_address(text: &str) -> Result<Address, String> {
    let hex = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .ok_or_else(|| format!("expected 0x followed by 40 hex characters, got {text:?}"))?;
    if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "expected 0x followed by 40 hex characters, got {text:?}"
        ));
    }
    // Mixed case is an EIP-55 checksum, and a wrong one is a typo: refuse it. All-lowercase and
    // all-uppercase carry no checksum and are accepted as they are.
    let has_lower = hex.bytes().any(|b| b.is_ascii_lowercase());
    let has_upper = hex.bytes().any(|b| b.is_ascii_uppercase());
    let address = text.parse::<Address>().map_err(|e| e.to_string())?;
    if has_lower && has_upper && address.to_checksum(None)[2..] != *hex {
        // Not offering the "corrected" form: it would be the checksum of the typo.
        return Err(format!(
            "{text:?} has a wrong EIP-55 checksum: probably a typo; copy the address again"
        ));
    }
    Ok(address)
}

/// Parse `0x` + 64 hex into a 32-byte hash (intent ids).
pub fn parse_b256(text: &str) -> Result<B256, String> {
    let hex = text
        .strip_prefix("0x")
        .ok_or_else(|| format!("expected 0x followed by 64 hex characters, got {text:?}"))?;
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "expected 0x followed by 64 hex characters, got {text:?}"
        ));
    }
    text.parse::<B256>().map_err(|e| e.to_string())
}

/// An integer the exchange writes as a decimal string (and sometimes as a JSON number).
pub trait WireInt: Sized + std::fmt::Display {
    fn from_value(value: &Value) -> Result<Self, String>;
}

impl WireInt for u128 {
    fn from_value(value: &Value) -> Result<Self, String> {
        value_u128(value)
    }
}
impl WireInt for i128 {
    fn from_value(value: &Value) -> Result<Self, String> {
        value_i128(value)
    }
}
impl WireInt for u64 {
    fn from_value(value: &Value) -> Result<Self, String> {
        value_u64(value)
    }
}
impl WireInt for u32 {
    fn from_value(value: &Value) -> Result<Self, String> {
        value_u32(value)
    }
}
impl WireInt for U256 {
    fn from_value(value: &Value) -> Result<Self, String> {
        value_u256(value)
    }
}

/// `#[serde(with = "dec")]`: read a string-or-number integer, write a decimal string.
pub mod dec {
    use super::*;
    use serde::Serializer;

    pub fn serialize<T: WireInt, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }
    pub fn deserialize<'de, T: WireInt, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::from_value(&Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// `#[serde(with = "opt_dec")]`: as [`dec`], with `null` for `None`.
pub mod opt_dec {
    use super::*;
    use serde::Serializer;

    pub fn serialize<T: WireInt, S: Serializer>(v: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.collect_str(v),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, T: WireInt, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
        match Value::deserialize(d)? {
            Value::Null => Ok(None),
            v => T::from_value(&v).map(Some).map_err(D::Error::custom),
        }
    }
}

/// `#[serde(with = "hex")]`: addresses and 32-byte hashes as lowercase `0x` hex (read in any case).
pub mod hex {
    use super::*;
    use serde::Serializer;

    pub trait WireHex: Sized + std::fmt::LowerHex {
        fn parse(text: &str) -> Result<Self, String>;
    }
    impl WireHex for Address {
        fn parse(text: &str) -> Result<Self, String> {
            parse_address(text)
        }
    }
    impl WireHex for B256 {
        fn parse(text: &str) -> Result<Self, String> {
            parse_b256(text)
        }
    }

    pub fn serialize<T: WireHex, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{v:#x}"))
    }
    pub fn deserialize<'de, T: WireHex, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::parse(&String::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// Walks a positional JSON tuple, decoding each field with its name so an error says which one.
pub struct Tuple<'a> {
    what: &'a str,
    items: &'a [Value],
    index: usize,
}

impl<'a> Tuple<'a> {
    /// Start reading `value` as a tuple of exactly `len` fields.
    pub fn new(what: &'a str, value: &'a Value, len: usize) -> Result<Self, DecodeError> {
        let items = value.as_array().ok_or_else(|| {
            DecodeError::new(
                what,
                format!("expected a {len}-field array, got {}", kind(value)),
            )
        })?;
        if items.len() != len {
            return Err(DecodeError::new(
                what,
                format!("expected {len} fields, got {}", items.len()),
            ));
        }
        Ok(Self {
            what,
            items,
            index: 0,
        })
    }

    fn next(&mut self, name: &str) -> (&'a Value, String) {
        let value = &self.items[self.index];
        let field = format!("{}[{}] ({name})", self.what, self.index);
        self.index += 1;
        (value, field)
    }

    fn with<T>(
        &mut self,
        name: &str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Result<T, DecodeError> {
        let (value, field) = self.next(name);
        f(value).map_err(|problem| DecodeError::new(field, problem))
    }

    pub fn u256(&mut self, name: &str) -> Result<U256, DecodeError> {
        self.with(name, value_u256)
    }
    pub fn u128(&mut self, name: &str) -> Result<u128, DecodeError> {
        self.with(name, value_u128)
    }
    pub fn i128(&mut self, name: &str) -> Result<i128, DecodeError> {
        self.with(name, value_i128)
    }
    pub fn u64(&mut self, name: &str) -> Result<u64, DecodeError> {
        self.with(name, value_u64)
    }
    pub fn u32(&mut self, name: &str) -> Result<u32, DecodeError> {
        self.with(name, value_u32)
    }
    /// A string field parsed by `f`.
    pub fn with_str<T>(
        &mut self,
        name: &str,
        f: impl FnOnce(&str) -> Result<T, String>,
    ) -> Result<T, DecodeError> {
        self.with(name, |v| {
            f(v.as_str()
                .ok_or_else(|| format!("expected a string, got {}", kind(v)))?)
        })
    }
    pub fn bool(&mut self, name: &str) -> Result<bool, DecodeError> {
        self.with(name, |v| {
            v.as_bool()
                .ok_or_else(|| format!("expected a boolean, got {}", kind(v)))
        })
    }
    pub fn string(&mut self, name: &str) -> Result<String, DecodeError> {
        self.with(name, |v| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("expected a string, got {}", kind(v)))
        })
    }
    pub fn b256(&mut self, name: &str) -> Result<B256, DecodeError> {
        self.with(name, |v| {
            parse_b256(
                v.as_str()
                    .ok_or_else(|| format!("expected a hex string, got {}", kind(v)))?,
            )
        })
    }
    pub fn opt<T>(
        &mut self,
        name: &str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Result<Option<T>, DecodeError> {
        self.with(name, |v| {
            if v.is_null() {
                Ok(None)
            } else {
                f(v).map(Some)
            }
        })
    }
    pub fn raw(&mut self, name: &str) -> (&'a Value, String) {
        self.next(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mixed_case_addresses_must_carry_a_valid_checksum() {
        // EIP-55's own example.
        let good = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
        let a = parse_address(good).unwrap();
        assert_eq!(parse_address(&good.to_lowercase()).unwrap(), a);
        assert_eq!(
            parse_address(&format!("0x{}", good[2..].to_uppercase())).unwrap(),
            a
        );
        // One letter's case flipped: a typo, refused.
        let typo = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD";
        let e = parse_address(typo).unwrap_err();
        assert!(e.contains("wrong EIP-55 checksum"), "{e}");
        assert!(
            !e.contains(&a.to_checksum(None)),
            "no 'corrected' form is offered"
        );
    }

    #[test]
    fn amounts_come_as_strings_or_numbers() {
        assert_eq!(
            value_u128(&json!("10000000000000000000")),
            Ok(10_000_000_000_000_000_000)
        );
        assert_eq!(value_u128(&json!(1000)), Ok(1000));
        assert!(value_u128(&json!(-1)).is_err());
        assert!(value_u128(&json!(1.5)).is_err());
        assert!(value_u128(&json!("0x10")).is_err());
        assert!(value_u128(&json!("")).is_err());
        assert_eq!(
            value_i128(&json!("-108141232449579150")),
            Ok(-108_141_232_449_579_150)
        );
        assert!(value_i128(&json!("--1")).is_err());
        assert!(value_u64(&json!("18446744073709551616")).is_err());
        // Amounts above u64 may come as bare JSON numbers (§2).
        let big: Value = serde_json::from_str("2007843665405887498352").unwrap();
        assert_eq!(value_u128(&big), Ok(2_007_843_665_405_887_498_352));
        let neg: Value = serde_json::from_str("-108141232449579150").unwrap();
        assert_eq!(value_i128(&neg), Ok(-108_141_232_449_579_150));
        assert!(value_u128(&serde_json::from_str::<Value>("1e3").unwrap()).is_err());
    }

    #[test]
    fn tuples_name_the_bad_field() {
        let v = json!([1, "x"]);
        let mut t = Tuple::new("row", &v, 2).unwrap();
        assert_eq!(t.u64("id").unwrap(), 1);
        let err = t.u64("count").unwrap_err();
        assert_eq!(err.field, "row[1] (count)");
        assert!(Tuple::new("row", &v, 3).is_err());
        assert!(Tuple::new("row", &json!({}), 3).is_err());
    }

    #[test]
    fn addresses_are_strict() {
        assert!(parse_address("0x14791697260e4c9a71f18484c9f997b308e59325").is_ok());
        assert!(parse_address("0x14791697260E4C9A71F18484C9F997B308E59325").is_ok());
        assert!(parse_address("14791697260e4c9a71f18484c9f997b308e59325").is_err());
        assert!(parse_address("0x1479").is_err());
        assert!(parse_address("0x14791697260e4c9a71f18484c9f997b308e5932g").is_err());
    }
}
