//! The tools' JSON Schemas, written out as the seed documents give them, and the check of a
//! call's arguments against the same schema the tool advertises (one source for both: what
//! `tools/list` promises is what `tools/call` enforces).
//!
//! The checker knows the keywords these schemas use: `type`, `enum`, `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength`, `items`, `required`,
//! `properties`, `additionalProperties`. `pattern` is advertised for clients; the address and
//! hash parsers behind the tools enforce it with a message of their own.
//!
//! Numbers are read as written, in decimal (`exact`): `10.0` is the whole number 10, `1e-07` is
//! 0.0000001, and bounds compare exactly. A number that passes is handed on in its plain decimal
//! form, so the amount parsers behind the tools never meet a spelling the schema allowed and
//! they do not read (one set of rules: the schema's).

use serde_json::{Map, Value, json};

use crate::protocol::exact::Exact;

/// An object schema: `properties` in order, the `required` ones, no other field.
pub fn object(properties: &[(&str, Value)], required: &[&str]) -> Map<String, Value> {
    let props: Map<String, Value> = properties
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone()))
        .collect();
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        out.insert("required".into(), json!(required));
    }
    out.insert("additionalProperties".into(), json!(false));
    out
}

/// An output schema: an object root, the `required` fields typed, anything more allowed.
pub fn output(fields: &[(&str, Value)], required: &[&str]) -> Map<String, Value> {
    let mut out = object(fields, required);
    out.insert("required".into(), json!(required));
    out.insert("additionalProperties".into(), json!(true));
    out
}

pub fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub fn one_of(description: &str, values: &[&str]) -> Value {
    json!({"type": "string", "description": description, "enum": values})
}

pub fn number(description: &str, min: Option<f64>, max: Option<f64>) -> Value {
    let mut v = json!({"type": "number", "description": description});
    bound(&mut v, min, max);
    v
}

/// A number strictly above `above` (a price, a bucket, a move that must leave a price), up to
/// `max`: what the parsers behind the tools accept, so the schema says it too.
pub fn number_above(description: &str, above: f64, max: Option<f64>) -> Value {
    let mut v = json!({"type": "number", "description": description});
    bound(&mut v, None, max);
    v["exclusiveMinimum"] = json!(above as i64);
    v
}

pub fn integer(description: &str, min: Option<i64>, max: Option<i64>) -> Value {
    let mut v = json!({"type": "integer", "description": description});
    if let Some(m) = min {
        v["minimum"] = json!(m);
    }
    if let Some(m) = max {
        v["maximum"] = json!(m);
    }
    v
}

fn bound(v: &mut Value, min: Option<f64>, max: Option<f64>) {
    // Whole bounds print as integers (`10000000`, not `10000000.0`), as the seeds write them.
    let num = |x: f64| {
        if x.fract() == 0.0 && x.abs() < 1e15 {
            json!(x as i64)
        } else {
            json!(x)
        }
    };
    if let Some(m) = min {
        v["minimum"] = num(m);
    }
    if let Some(m) = max {
        v["maximum"] = num(m);
    }
}

pub const ADDRESS_PATTERN: &str = "^0x[0-9a-fA-F]{40}$";
pub const HASH_PATTERN: &str = "^0x[0-9a-fA-F]{64}$";

pub fn address(description: &str) -> Value {
    json!({"type": "string", "description": description, "pattern": ADDRESS_PATTERN})
}

pub fn hash(description: &str) -> Value {
    json!({"type": "string", "description": description, "pattern": HASH_PATTERN})
}

/// A typed field of an output schema (`"number"`, `"string"`, `["string", "null"]`, …).
pub fn of(kind: Value) -> Value {
    json!({"type": kind})
}

/// Where `value` breaks `schema`: the first problem, with the argument's path, worded so a
/// model can fix its call. When it passes, every number in it is rewritten in plain decimal
/// (`10.0` → `10`, `2.5e1` → `25`, `1e-07` → `0.0000001`): what the tools then parse.
pub fn admit(schema: &Map<String, Value>, value: &mut Value) -> Result<(), String> {
    admit_at("arguments", schema, value)
}

fn admit_at(path: &str, schema: &Map<String, Value>, value: &mut Value) -> Result<(), String> {
    let exact = match value {
        Value::Number(n) => Some(Exact::of(n).ok_or_else(|| format!("{path} is not a number"))?),
        _ => None,
    };
    if let Some(kind) = schema.get("type") {
        let kinds: Vec<&str> = match kind {
            Value::String(k) => vec![k.as_str()],
            Value::Array(ks) => ks.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !kinds.iter().any(|k| is_kind(k, value, exact.as_ref())) {
            let words: Vec<&str> = kinds.iter().map(|k| kind_word(k)).collect();
            return Err(format!("{path} must be {}", words.join(" or ")));
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.iter().any(|a| same(a, value))
    {
        let names: Vec<String> = allowed
            .iter()
            .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string))
            .collect();
        return Err(format!("{path} must be one of {}", names.join(", ")));
    }
    if let Some(x) = &exact {
        bounds(path, schema, x)?;
        let plain = x.to_number().ok_or_else(|| {
            format!("{path} has too many digits to be read exactly; write it in plain decimal")
        })?;
        *value = Value::Number(plain);
    }
    if let Some(text) = value.as_str() {
        let chars = text.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
            && chars < min
        {
            return Err(format!("{path} must have at least {min} character(s)"));
        }
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
            && chars > max
        {
            return Err(format!("{path} must have at most {max} characters"));
        }
    }
    if let (Value::Array(items), Some(Value::Object(each))) = (&mut *value, schema.get("items")) {
        for (i, item) in items.iter_mut().enumerate() {
            admit_at(&format!("{path}[{i}]"), each, item)?;
        }
    }
    if let Value::Object(fields) = value {
        let props = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !fields.contains_key(name) {
                return Err(format!("{path}.{name} is required"));
            }
        }
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (name, v) in fields.iter_mut() {
            match props.and_then(|p| p.get(name)).and_then(Value::as_object) {
                Some(sub) => admit_at(&format!("{path}.{name}"), sub, v)?,
                None if closed => {
                    let known: Vec<&String> = props.into_iter().flat_map(Map::keys).collect();
                    return Err(format!(
                        "{path}.{} is not an argument of this tool (it takes {})",
                        crate::text::sanitize_line(name, 40),
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known
                                .iter()
                                .map(|k| k.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    ));
                }
                None => {}
            }
        }
    }
    Ok(())
}

/// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, compared in decimal.
fn bounds(path: &str, schema: &Map<String, Value>, x: &Exact) -> Result<(), String> {
    let bound = |key: &str| match schema.get(key) {
        Some(Value::Number(n)) => Exact::of(n),
        _ => None,
    };
    use std::cmp::Ordering::{Greater, Less};
    let rules: [(&str, &[std::cmp::Ordering], &str); 4] = [
        ("minimum", &[Less], "at least"),
        ("maximum", &[Greater], "at most"),
        (
            "exclusiveMinimum",
            &[Less, std::cmp::Ordering::Equal],
            "more than",
        ),
        (
            "exclusiveMaximum",
            &[Greater, std::cmp::Ordering::Equal],
            "less than",
        ),
    ];
    for (key, refused, words) in rules {
        if let Some(b) = bound(key)
            && refused.contains(&x.cmp(&b))
        {
            return Err(format!("{path} must be {words} {}", schema[key]));
        }
    }
    Ok(())
}

/// JSON equality, with numbers compared by value (`1.0` is the enum's `1`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            Exact::of(x).is_some() && Exact::of(x) == Exact::of(y)
        }
        _ => a == b,
    }
}

fn kind_word(kind: &str) -> &str {
    match kind {
        "object" => "an object",
        "array" => "an array",
        "string" => "a string",
        "boolean" => "true or false",
        "number" => "a number",
        "integer" => "a whole number",
        other => other,
    }
}

fn is_kind(kind: &str, v: &Value, exact: Option<&Exact>) -> bool {
    match kind {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        // 5, 5.0 and 5e0 are the same whole number, as JSON Schema says (and the seeds' clients
        // write them all).
        "integer" => exact.is_some_and(Exact::is_whole),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked_against_the_advertised_schema() {
        let s = object(
            &[
                ("market", one_of("m", &["BTC", "ETH"])),
                ("marginUsd", number("m", Some(0.01), Some(10_000_000.0))),
                ("leverage", integer("l", Some(1), Some(1000))),
            ],
            &["market", "leverage"],
        );
        let check = |mut v: Value| admit(&s, &mut v).map(|()| v);
        assert!(check(json!({"market": "BTC", "leverage": 5})).is_ok());
        let e = |v: Value| check(v).unwrap_err();
        assert_eq!(
            e(json!({"market": "BTC"})),
            "arguments.leverage is required"
        );
        assert_eq!(
            e(json!({"market": "SOL", "leverage": 5})),
            "arguments.market must be one of BTC, ETH"
        );
        assert_eq!(
            e(json!({"market": "BTC", "leverage": 1001})),
            "arguments.leverage must be at most 1000"
        );
        assert_eq!(
            e(json!({"market": "BTC", "leverage": 2.5})),
            "arguments.leverage must be a whole number"
        );
        assert_eq!(
            e(json!({"market": "BTC", "leverage": 5, "marginUsd": 0.001})),
            "arguments.marginUsd must be at least 0.01"
        );
        assert!(
            e(json!({"market": "BTC", "leverage": 5, "sign": true}))
                .starts_with("arguments.sign is not an argument of this tool")
        );
        assert_eq!(e(json!([1])), "arguments must be an object");
        assert_eq!(s["properties"]["marginUsd"]["maximum"], json!(10_000_000));
        // Whole numbers as floats, amounts in exponent form: read as the values they denote,
        // and handed on in plain decimal.
        let admitted = |text: &str| {
            check(serde_json::from_str(text).unwrap())
                .unwrap()
                .to_string()
        };
        assert_eq!(
            admitted(r#"{"market":"BTC","leverage":10.0,"marginUsd":2.5e1}"#),
            r#"{"market":"BTC","leverage":10,"marginUsd":25}"#
        );
        assert_eq!(
            admitted(r#"{"market":"BTC","leverage":1E3,"marginUsd":1e-2}"#),
            r#"{"market":"BTC","leverage":1000,"marginUsd":0.01}"#
        );
        let refused = |text: &str| check(serde_json::from_str(text).unwrap()).unwrap_err();
        assert_eq!(
            refused(r#"{"market":"BTC","leverage":1.0001e3}"#),
            "arguments.leverage must be a whole number"
        );
        assert_eq!(
            refused(r#"{"market":"BTC","leverage":1.001e3}"#),
            "arguments.leverage must be at most 1000"
        );
        // Exact where a float is not: a hair above the maximum is above it.
        assert_eq!(
            refused(r#"{"market":"BTC","leverage":5,"marginUsd":10000000.000000000000000001}"#),
            "arguments.marginUsd must be at most 10000000"
        );
        assert_eq!(
            refused(r#"{"market":"BTC","leverage":5,"marginUsd":0.0099999999999999999999}"#),
            "arguments.marginUsd must be at least 0.01"
        );
    }
}
