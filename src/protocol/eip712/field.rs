//! One struct field's value in the two JSON forms the exchange uses: the relayer body (every
//! uint a decimal string) and the wallet typed data (uint ≤ 64 bits as a JSON number).

use alloy_primitives::{Address, B256, U256};
use serde_json::Value;

use crate::protocol::wire::{parse_address, parse_b256};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    Address(Address),
    Bytes32(B256),
    Bool(bool),
    Uint { bits: u16, value: U256 },
    UintArray(Vec<U256>),
}

/// How forgiving to be when reading a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// The relayer body: uints only as decimal strings, addresses and hashes lowercase.
    Wire,
    /// A person's input: uints as decimal strings or JSON integers, hex in any case.
    Lenient,
}

impl FieldValue {
    /// The relayer body form (§3.10).
    pub(crate) fn wire_json(&self) -> Value {
        match self {
            FieldValue::Address(a) => Value::String(format!("{a:#x}")),
            FieldValue::Bytes32(b) => Value::String(format!("{b:#x}")),
            FieldValue::Bool(b) => Value::Bool(*b),
            FieldValue::Uint { value, .. } => Value::String(value.to_string()),
            FieldValue::UintArray(v) => {
                Value::Array(v.iter().map(|x| Value::String(x.to_string())).collect())
            }
        }
    }

    /// The `eth_signTypedData_v4` message form (§4.5).
    pub(crate) fn wallet_json(&self) -> Value {
        match self {
            FieldValue::Uint { bits, value } if *bits <= 64 => {
                Value::Number(u64::try_from(*value).expect("fits its bit width").into())
            }
            other => other.wire_json(),
        }
    }
}

/// A Rust type that `sol!` generates for a field, convertible to and from the JSON forms.
pub trait Field: Sized {
    fn to_field(&self) -> FieldValue;
    fn from_json(value: &Value, strictness: Strictness) -> Result<Self, String>;
}

fn uint_from_json(value: &Value, strictness: Strictness, bits: u16) -> Result<U256, String> {
    let parsed = match (value, strictness) {
        (Value::String(s), _) => {
            if s.is_empty() || s.len() > 78 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("expected a decimal uint{bits} string, got {s:?}"));
            }
            U256::from_str_radix(s, 10).map_err(|_| format!("{s} does not fit uint{bits}"))?
        }
        (Value::Number(n), Strictness::Lenient) => {
            // `10.0` and `1e3` are the whole numbers they denote; `1.5` and `-1` stay refused.
            let text = crate::protocol::exact::Exact::of(n)
                .filter(crate::protocol::exact::Exact::is_whole)
                .and_then(|x| x.plain())
                .unwrap_or_else(|| n.to_string());
            if text.is_empty() || text.len() > 78 || !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!(
                    "expected a non-negative integer for uint{bits}, got {n}"
                ));
            }
            U256::from_str_radix(&text, 10)
                .map_err(|_| format!("{text} does not fit uint{bits}"))?
        }
        (Value::Number(n), Strictness::Wire) => {
            return Err(format!(
                "expected uint{bits} as a decimal string, got the number {n}"
            ));
        }
        (other, _) => return Err(format!("expected uint{bits}, got {other}")),
    };
    if bits < 256 && parsed >= (U256::from(1u8) << bits) {
        return Err(format!("{parsed} does not fit uint{bits}"));
    }
    Ok(parsed)
}

fn hex_text(value: &Value, strictness: Strictness) -> Result<&str, String> {
    let s = value
        .as_str()
        .ok_or_else(|| format!("expected a 0x hex string, got {value}"))?;
    if strictness == Strictness::Wire && s.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(format!("expected lowercase hex, got {s:?}"));
    }
    Ok(s)
}

impl Field for Address {
    fn to_field(&self) -> FieldValue {
        FieldValue::Address(*self)
    }
    fn from_json(value: &Value, strictness: Strictness) -> Result<Self, String> {
        parse_address(hex_text(value, strictness)?)
    }
}

impl Field for B256 {
    fn to_field(&self) -> FieldValue {
        FieldValue::Bytes32(*self)
    }
    fn from_json(value: &Value, strictness: Strictness) -> Result<Self, String> {
        parse_b256(hex_text(value, strictness)?)
    }
}

impl Field for bool {
    fn to_field(&self) -> FieldValue {
        FieldValue::Bool(*self)
    }
    fn from_json(value: &Value, _: Strictness) -> Result<Self, String> {
        value
            .as_bool()
            .ok_or_else(|| format!("expected true or false, got {value}"))
    }
}

macro_rules! uint_field {
    ($($t:ty => $bits:expr),*) => {$(
        impl Field for $t {
            fn to_field(&self) -> FieldValue {
                FieldValue::Uint { bits: $bits, value: U256::from(*self) }
            }
            fn from_json(value: &Value, strictness: Strictness) -> Result<Self, String> {
                let v = uint_from_json(value, strictness, $bits)?;
                <$t>::try_from(v).map_err(|_| format!("{v} does not fit uint{}", $bits))
            }
        }
    )*};
}
uint_field!(u32 => 32, u64 => 64, u128 => 128);

impl Field for U256 {
    fn to_field(&self) -> FieldValue {
        FieldValue::Uint {
            bits: 256,
            value: *self,
        }
    }
    fn from_json(value: &Value, strictness: Strictness) -> Result<Self, String> {
        uint_from_json(value, strictness, 256)
    }
}

impl Field for Vec<U256> {
    fn to_field(&self) -> FieldValue {
        FieldValue::UintArray(self.clone())
    }
    fn from_json(value: &Value, strictness: Strictness) -> Result<Self, String> {
        value
            .as_array()
            .ok_or_else(|| format!("expected an array of uint256, got {value}"))?
            .iter()
            .map(|v| uint_from_json(v, strictness, 256))
            .collect()
    }
}
