//! Relayer answers to `POST /intents` and `/intents/{id}/cancel`, and the error body (§2, §3.10).

use alloy_primitives::B256;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::wire::{parse_b256, value_u64};

/// A relayer's acceptance answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Accepted {
    #[serde(serialize_with = "super::wire::hex::serialize")]
    pub intent_id: B256,
    pub action: String,
    pub state: IntentState,
    #[serde(
        serialize_with = "super::wire::opt_dec::serialize",
        skip_serializing_if = "Option::is_none"
    )]
    pub queue_revision: Option<u64>,
}

/// `queued | prepared | confirmed` mean kept; `cancelled | rejected | expired` mean not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IntentState {
    Queued,
    Prepared,
    Confirmed,
    Cancelled,
    Rejected,
    Expired,
}

impl IntentState {
    pub(crate) fn kept(self) -> bool {
        matches!(
            self,
            IntentState::Queued | IntentState::Prepared | IntentState::Confirmed
        )
    }
}

/// A refusal: `{"ok":false,"error":"<code>","message":"<text>"}` (or `code` instead of `error`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorBody {
    pub ok: bool,
    pub error: String,
    pub message: String,
}

impl ErrorBody {
    pub(crate) fn new(code: &str, message: &str) -> Self {
        Self {
            ok: false,
            error: code.into(),
            message: message.into(),
        }
    }
}

/// What a relayer answer means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelayerAnswer {
    Accepted(Accepted),
    Refused {
        status: u16,
        code: String,
        message: String,
    },
}

/// Refusal codes about the exchange's state at the moment, not about the intent: trading or
/// the intake paused, the market not taking opens. Nothing was done, and the same request may
/// pass once the state changes, so a script may retry it (exit 6) where it must not retry a bad
/// input (exit 2). The pre-trade checks use the relayer's own codes for these.
pub(crate) const STATE_REFUSALS: [&str; 4] = [
    "trading_paused",
    "market_not_openable",
    "intake_paused",
    "intake_action_paused",
];

/// Whether a refusal code is about the exchange's state ([`STATE_REFUSALS`]).
pub(crate) fn is_state_refusal(code: &str) -> bool {
    STATE_REFUSALS.contains(&code)
}

/// What the user should know about a refusal beyond the relayer's own words, if anything.
/// `nonce_used` is nearly always the local nonce store falling behind the exchange (the
/// relayer counts every nonce ever used; this client only remembers the ones it handed out).
pub(crate) fn refusal_hint(code: &str) -> Option<&'static str> {
    match code {
        // Short enough to survive the 400-character error line and a toast.
        "nonce_used" => Some(
            "the nonce store in <data dir>/nonces/ is behind the exchange (data dir copied or \
             restored, or another client signing for this owner); nothing was queued. Delete \
             <data dir>/nonces/<owner>.json here so the lane restarts at a random value, then retry",
        ),
        _ => None,
    }
}

/// A refusal's message, followed by what to do about it where the code has a known remedy.
pub(crate) fn explain_refusal(code: &str, message: &str) -> String {
    match refusal_hint(code) {
        Some(hint) => format!("{message}; {hint}"),
        None => message.to_string(),
    }
}

/// Read the error code and message from any answer body, if it is a refusal. A 2xx can still be
/// a refusal: `ok:false` or a non-null `error` field (§2).
pub(crate) fn refusal(status: u16, body: &Value) -> Option<(String, String)> {
    let obj = body.as_object();
    let code = obj.and_then(|o| match o.get("error") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => o.get("code").and_then(Value::as_str).map(str::to_string),
    });
    let says_not_ok = obj.and_then(|o| o.get("ok")).and_then(Value::as_bool) == Some(false);
    let has_error = obj.is_some_and(|o| o.get("error").is_some_and(|e| !e.is_null()));
    if !(200..300).contains(&status) || says_not_ok || has_error {
        let message = obj
            .and_then(|o| o.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        return Some((code.unwrap_or_else(|| format!("http_{status}")), message));
    }
    None
}

/// Decode a relayer answer strictly.
pub fn decode_answer(status: u16, body: &str) -> Result<RelayerAnswer, String> {
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    if let Some((code, message)) = refusal(status, &value) {
        return Ok(RelayerAnswer::Refused {
            status,
            code,
            message,
        });
    }
    let obj = value
        .as_object()
        .ok_or("relayer answer is not a JSON object")?;
    let intent_id = obj
        .get("intentId")
        .and_then(Value::as_str)
        .ok_or("relayer answer has no intentId")
        .and_then(|s| {
            parse_b256(s).map_err(|_| "relayer answer's intentId is not a 32-byte hex")
        })?;
    let action = obj
        .get("action")
        .and_then(Value::as_str)
        .ok_or("relayer answer has no action")?
        .to_string();
    let state: IntentState = obj
        .get("state")
        .cloned()
        .ok_or("relayer answer has no state".to_string())
        .and_then(|s| {
            serde_json::from_value(s).map_err(|_| "relayer answer has an unknown state".to_string())
        })?;
    let queue_revision = match obj.get("queueRevision") {
        None | Some(Value::Null) => None,
        Some(v) => Some(value_u64(v).map_err(|e| format!("queueRevision: {e}"))?),
    };
    Ok(RelayerAnswer::Accepted(Accepted {
        intent_id,
        action,
        state,
        queue_revision,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_and_refused() {
        let ok = decode_answer(
            200,
            r#"{"intentId":"0xc2bc1984b6b08b26186b7579d4a279f24937865b82683d9ed4199f40012cb959","action":"openPosition","state":"queued","queueRevision":"882"}"#,
        )
        .unwrap();
        let RelayerAnswer::Accepted(a) = ok else {
            panic!()
        };
        assert!(a.state.kept());
        assert_eq!(a.queue_revision, Some(882));

        let paused = decode_answer(
            200,
            r#"{"ok":false,"error":"intake_paused","message":"Paused"}"#,
        )
        .unwrap();
        assert!(matches!(paused, RelayerAnswer::Refused { code, .. } if code == "intake_paused"));
        let coded = decode_answer(409, r#"{"ok":false,"code":"nonce_used"}"#).unwrap();
        assert!(
            matches!(coded, RelayerAnswer::Refused { status: 409, code, .. } if code == "nonce_used")
        );
        assert!(refusal_hint("nonce_used").is_some_and(|h| h.contains("<data dir>/nonces/")));
        assert_eq!(refusal_hint("intake_paused"), None);
        let html = decode_answer(502, "<html>").unwrap();
        assert!(matches!(html, RelayerAnswer::Refused { code, .. } if code == "http_502"));
        assert!(
            decode_answer(200, r#"{"intentId":"0x12","action":"x","state":"queued"}"#).is_err()
        );
        assert!(decode_answer(200, r#"{"intentId":"0xc2bc1984b6b08b26186b7579d4a279f24937865b82683d9ed4199f40012cb959","action":"x","state":"teleported"}"#).is_err());
    }
}
