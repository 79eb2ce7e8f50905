//! Sending signed intents and learning their fate. A submission is sent exactly once; an answer
//! whose intent id differs from the locally computed one is an error; no answer at all makes the
//! intent `unknown` until the account stream shows it queued or reports its outcome. Every step is
//! appended to the audit log.

use alloy_primitives::B256;
use serde_json::{Value, json};

use crate::protocol::eip712::{Intent, Signed};
use crate::protocol::relayer::{Accepted, RelayerAnswer, decode_answer};

use super::http::ExchangeHttp;
use crate::events::intents::Resolution;
use crate::store::ledger::AuditLog;

/// What a single send produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// Queued (or further along) with the id we computed.
    Accepted(Accepted),
    /// The relayer refused it; nothing was queued.
    Refused {
        status: u16,
        code: String,
        message: String,
    },
    /// No answer: it may be queued. Only the account stream can tell.
    Unknown { reason: String },
}

impl Submission {
    /// Whether the intent may be in the queue now (accepted, or no answer): only then is it
    /// tracked.
    pub fn may_be_queued(&self) -> bool {
        matches!(self, Submission::Accepted(_) | Submission::Unknown { .. })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    #[error("the relayer answered with intent id {got:#x}, but this intent's id is {expected:#x}")]
    IdMismatch { expected: B256, got: B256 },
    #[error("the intent has no relayer route")]
    NotPostable,
    #[error("this process is read-only (--watch): nothing is sent")]
    ReadOnly,
}

/// Send `signed` once and record every step in `audit` (with `details`, e.g. market and margin).
pub async fn submit<I: Intent>(
    http: &ExchangeHttp,
    audit: &AuditLog,
    signed: &Signed<I>,
    details: Value,
) -> Result<Submission, SubmitError> {
    // The last door: a read-only run never sends, whatever signed the intent.
    if crate::protocol::eip712::is_read_only() {
        return Err(SubmitError::ReadOnly);
    }
    let post = signed.post().ok_or(SubmitError::NotPostable)?;
    let id = signed.intent_id();
    let mut fields = json!({
        "action": I::ACTION.unwrap_or("cancelIntent"),
        "user": format!("{:#x}", signed.intent().user()),
        "signer": format!("{:#x}", signed.signer()),
        "path": post.path,
    });
    if let (Value::Object(f), Value::Object(d)) = (&mut fields, details) {
        f.extend(d);
    }
    for (name, value) in signed.intent().fields() {
        if matches!(name, "nonce" | "deadline") {
            fields[name] = value.wire_json();
        }
    }
    let log = |event: &str, extra: Value| {
        let mut entry = fields.clone();
        if let (Value::Object(e), Value::Object(x)) = (&mut entry, extra) {
            e.extend(x);
        }
        if let Err(e) = audit.record(event, Some(id), entry) {
            tracing::warn!(error = %e, "audit log write failed");
        }
    };
    log("signed", json!({}));
    let (status, body) = match http.post_intent(&post.path, &post.body_text()).await {
        Ok(answer) => answer,
        Err(no_answer) => {
            log("unknown", json!({"reason": no_answer.0}));
            return Ok(Submission::Unknown {
                reason: no_answer.0,
            });
        }
    };
    // A gateway error, a timeout status or a body that is not the relayer's JSON says nothing
    // about whether the intent was queued: only the stream can tell.
    let is_json_object = serde_json::from_str::<Value>(&body).is_ok_and(|v| v.is_object());
    if status >= 500 || status == 408 || !is_json_object {
        let reason = format!("HTTP {status} without a relayer verdict");
        log("unknown", json!({"reason": reason}));
        return Ok(Submission::Unknown { reason });
    }
    match decode_answer(status, &body) {
        Ok(RelayerAnswer::Refused {
            status,
            code,
            message,
        }) => {
            let message = crate::text::sanitize_line(&message, 300);
            log(
                "refused",
                json!({"status": status, "code": code, "message": message}),
            );
            Ok(Submission::Refused {
                status,
                code,
                message,
            })
        }
        Ok(RelayerAnswer::Accepted(accepted)) => {
            // A cancel answers with the cancelled intent's id, which is in the path.
            let is_cancel = post.path.ends_with("/cancel");
            let expected = if is_cancel {
                post.path
                    .trim_start_matches("/intents/")
                    .trim_end_matches("/cancel")
                    .parse()
                    .unwrap_or(id)
            } else {
                id
            };
            if accepted.intent_id != expected {
                log(
                    "id_mismatch",
                    json!({"answerIntentId": format!("{:#x}", accepted.intent_id)}),
                );
                return Err(SubmitError::IdMismatch {
                    expected,
                    got: accepted.intent_id,
                });
            }
            let state = serde_json::to_value(accepted.state).expect("JSON");
            // For a cancel, "cancelled" is the success; for anything else, a kept state.
            let succeeded = if is_cancel {
                accepted.state == crate::protocol::relayer::IntentState::Cancelled
            } else {
                accepted.state.kept()
            };
            if !succeeded {
                log("not_kept", json!({"state": state}));
                return Ok(Submission::Refused {
                    status,
                    code: format!("not_kept_{}", state.as_str().unwrap_or("")),
                    message: "the relayer did not keep the intent".into(),
                });
            }
            log("accepted", json!({"state": state}));
            Ok(Submission::Accepted(accepted))
        }
        Err(e) => {
            // An answer we cannot read is treated as no answer: the stream decides.
            log(
                "unknown",
                json!({"reason": format!("unreadable answer: {e}")}),
            );
            Ok(Submission::Unknown {
                reason: format!("unreadable answer (HTTP {status}): {e}"),
            })
        }
    }
}

/// Append an intent's fate to the audit log (failures to write are logged, not fatal).
pub(crate) fn record_fate(audit: &AuditLog, id: B256, resolution: &Resolution) {
    record_outcome(audit, id, resolution.label(), fate_detail(resolution));
}

/// The same, learnt by a later command than the one that sent it.
pub(crate) fn record_late_fate(audit: &AuditLog, id: B256, resolution: &Resolution) {
    let detail = format!(
        "{}; seen by a later command than the one that sent it",
        fate_detail(resolution)
    );
    record_outcome(audit, id, resolution.label(), &detail);
}

/// A command stops following `id` before its fate is known: what it learnt (queued or not), so
/// the log is never silent about a signed intent; a later command appends the fate.
pub(crate) fn record_stopped_waiting(audit: &AuditLog, id: B256, queued: bool) {
    let detail = if queued {
        "still queued when the command stopped waiting; a later command that sees its fate records it"
    } else {
        "not seen in the queue before the command stopped waiting; a later command that sees its fate records it"
    };
    record_outcome(audit, id, crate::store::ledger::PENDING, detail);
}

fn record_outcome(audit: &AuditLog, id: B256, outcome: &str, detail: &str) {
    if let Err(e) = audit.record(
        "outcome",
        Some(id),
        json!({"outcome": outcome, "detail": detail}),
    ) {
        tracing::warn!(error = %e, "audit log write failed");
    }
}

fn fate_detail(resolution: &Resolution) -> &'static str {
    match resolution {
        Resolution::Outcome(_) => "reported by the account stream",
        Resolution::SucceededWhileAway => "inferred from a resync: its effect is on the account",
        Resolution::LeftQueueWhileAway => {
            "left the queue while the stream was away; outcome not seen"
        }
    }
}
