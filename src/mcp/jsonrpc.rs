//! The JSON-RPC framing rmcp leaves out, over HTTP and over stdio alike: its Streamable HTTP
//! service takes exactly one message per POST (no batches) and answers a body it cannot read in
//! plain text, its stdio transport answers an unparseable line with nothing, and both read a
//! known method with params of the wrong shape as an unknown method; the seeds answer JSON-RPC
//! errors (-32700 parse, -32600 invalid request, -32602 invalid params). Each message that
//! passes here goes to rmcp whole, on its own.

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcRequest};
use serde_json::{Value, json};

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// The seeds' code for a rate-limited request (with HTTP 429 and `Retry-After`).
pub(crate) const RATE_LIMITED: i64 = -32029;

/// Messages per batch, as the seeds allow.
pub(crate) const MAX_BATCH: usize = 20;

/// A POST body: one message, or a batch of them.
#[derive(Debug)]
pub(crate) enum Messages {
    One(Value),
    Batch(Vec<Value>),
}

impl Messages {
    /// What the rate limit charges: each message is a call.
    pub(crate) fn cost(&self) -> u32 {
        match self {
            Messages::One(_) => 1,
            Messages::Batch(items) => items.len() as u32,
        }
    }
}

/// The body as messages, or the error response it gets as a whole (always id null).
pub(crate) fn parse(body: &[u8]) -> Result<Messages, Value> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| error(Value::Null, PARSE_ERROR, format!("Parse error: {e}")))?;
    match value {
        Value::Array(items) if items.is_empty() => Err(error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: an empty batch",
        )),
        Value::Array(items) if items.len() > MAX_BATCH => Err(error(
            Value::Null,
            INVALID_REQUEST,
            format!(
                "Invalid Request: a batch of {} messages; at most {MAX_BATCH} per request",
                items.len()
            ),
        )),
        Value::Array(items) => Ok(Messages::Batch(items)),
        other => Ok(Messages::One(other)),
    }
}

/// One message's id (`None` for a notification, which is answered with nothing), or the error
/// it is answered with instead of being served.
pub(crate) fn classify(message: &Value) -> Result<Option<Value>, Value> {
    let Value::Object(m) = message else {
        return Err(error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a message must be a JSON object",
        ));
    };
    let id = match m.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.as_i64().is_some() => Some(id.clone()),
        Some(_) => {
            return Err(error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: id must be a string or an integer",
            ));
        }
    };
    let invalid = |what: &str| error(id.clone().unwrap_or(Value::Null), INVALID_REQUEST, what);
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid("Invalid Request: jsonrpc must be \"2.0\""));
    }
    let Some(method) = m.get("method").and_then(Value::as_str) else {
        // A response or error from the client: a stateless server never asked it anything.
        return Err(invalid("Invalid Request: method must be a string"));
    };
    if !matches!(m.get("params"), None | Some(Value::Object(_))) {
        return Err(invalid("Invalid Request: params must be an object"));
    }
    // rmcp reads a message of a method it knows but whose params are not that method's shape as
    // a custom request and would answer "method not found": for the methods served here, that
    // is invalid params. A notification is never answered, even so.
    if let Some(id) = &id
        && SERVED.contains(&method)
        && is_custom(message)
    {
        return Err(error(
            id.clone(),
            INVALID_PARAMS,
            format!(
                "Invalid params for {method}: see the method's params in the MCP specification"
            ),
        ));
    }
    Ok(id)
}

/// The methods this server answers (the seeds' list, `initialize`'s notification aside, and
/// 2026-07-28's `server/discover`).
const SERVED: [&str; 8] = [
    "initialize",
    "server/discover",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
];

/// Whether rmcp reads `message` as a request of a method it has no type for.
fn is_custom(message: &Value) -> bool {
    matches!(
        serde_json::from_value::<ClientJsonRpcMessage>(message.clone()),
        Ok(ClientJsonRpcMessage::Request(JsonRpcRequest {
            request: ClientRequest::CustomRequest(_),
            ..
        })) | Err(_)
    )
}

/// A JSON-RPC error response.
pub(crate) fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: &Value) -> i64 {
        v["error"]["code"].as_i64().unwrap()
    }

    #[test]
    fn bodies_are_one_message_or_a_bounded_batch() {
        assert_eq!(code(&parse(b"{nope").unwrap_err()), PARSE_ERROR);
        assert_eq!(code(&parse(b"[]").unwrap_err()), INVALID_REQUEST);
        let many = serde_json::to_vec(&vec![json!({}); MAX_BATCH + 1]).unwrap();
        assert_eq!(code(&parse(&many).unwrap_err()), INVALID_REQUEST);
        let full = serde_json::to_vec(&vec![json!({}); MAX_BATCH]).unwrap();
        assert_eq!(parse(&full).unwrap().cost(), MAX_BATCH as u32);
        assert_eq!(parse(b"{}").unwrap().cost(), 1);
    }

    #[test]
    fn messages_are_requests_notifications_or_answered_errors() {
        let ping = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
        assert_eq!(classify(&ping).unwrap(), Some(json!(7)));
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(classify(&note).unwrap(), None);
        let unknown = json!({"jsonrpc": "2.0", "id": "a", "method": "no/such"});
        assert_eq!(classify(&unknown).unwrap(), Some(json!("a")));
        for (bad, id) in [
            (json!(3), Value::Null),
            (
                json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
                Value::Null,
            ),
            (
                json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
                Value::Null,
            ),
            (json!({"id": 1, "method": "ping"}), json!(1)),
            (json!({"jsonrpc": "2.0", "id": 2}), json!(2)),
            (json!({"jsonrpc": "2.0", "id": 3, "result": {}}), json!(3)),
            (
                json!({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": [1]}),
                json!(4),
            ),
        ] {
            let e = classify(&bad).unwrap_err();
            assert_eq!(code(&e), INVALID_REQUEST, "{bad}");
            assert_eq!(e["id"], id, "{bad}");
        }
        let shapeless = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {}});
        let e = classify(&shapeless).unwrap_err();
        assert_eq!(code(&e), INVALID_PARAMS);
        assert_eq!(e["id"], 5);
        let call =
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "x"}});
        assert_eq!(classify(&call).unwrap(), Some(json!(6)));
        let init = json!({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {"protocolVersion": 3}});
        assert_eq!(code(&classify(&init).unwrap_err()), INVALID_PARAMS);
    }
}
