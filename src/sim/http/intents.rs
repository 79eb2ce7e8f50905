//! The relayer's writes: `POST /intents` and `POST /intents/{id}/cancel`. Intake checks and
//! queues; this face adds the origin rule, the armed delay and dropped answers.

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, header};
use axum::response::Response;
use serde_json::Value;

use crate::protocol::relayer::Accepted;
use crate::protocol::wire::parse_b256;
use crate::sim::intake::{self, Refusal};

use super::gate::check_origin;
use super::shared::Shared;
use super::{S, answer, refusal};

/// The answer to a write, unless a fault says to drop it after the intent was queued.
fn write_answer(s: &Shared, result: Result<Accepted, Refusal>) -> Response {
    if result.is_ok() && s.drop_intent_answer() {
        // The intent is queued; the client gets a broken answer and must not resend.
        return dropped_answer();
    }
    answer(result)
}

/// An answer whose body breaks off: what a write that happened looks like with no answer.
pub(super) fn dropped_answer() -> Response {
    let failing = futures::stream::once(async {
        Err::<Bytes, std::io::Error>(std::io::Error::other("answer dropped by /sim/faults"))
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from_stream(failing))
        .expect("static response")
}

/// The signed body, read by intake (which knows each action's shape).
fn parse_body(body: &Bytes) -> Result<Value, Refusal> {
    serde_json::from_slice(body)
        .map_err(|e| Refusal::new(400, "invalid_body", format!("not JSON: {e}")))
}

pub(super) async fn submit(State(s): S, headers: HeaderMap, body: Bytes) -> Response {
    s.delay().await;
    if let Err(r) = check_origin(&headers) {
        return refusal(r);
    }
    let result = parse_body(&body).and_then(|v| s.with_engine(|e| intake::submit(e, &v)));
    write_answer(&s, result)
}

pub(super) async fn cancel(
    State(s): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    s.delay().await;
    if let Err(r) = check_origin(&headers) {
        return refusal(r);
    }
    let target = match parse_b256(&id) {
        Ok(t) if !id.bytes().any(|b| b.is_ascii_uppercase()) => t,
        _ => {
            return refusal(Refusal::new(
                400,
                "invalid_body",
                "the path needs a lowercase 0x intent id",
            ));
        }
    };
    let result = parse_body(&body).and_then(|v| s.with_engine(|e| intake::cancel(e, target, &v)));
    write_answer(&s, result)
}
