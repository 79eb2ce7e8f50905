//! Fault injection (`POST /sim/faults`): failing or slow reads, dropped write answers, silenced
//! or dropped streams, markets left out of `/state/trading`.

use std::time::Duration;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::Value;

use crate::protocol::relayer::ErrorBody;
use crate::sim::controls::invalid_control;
use crate::sim::intake::Refusal;

use super::shared::Shared;

/// Injected faults (`POST /sim/faults`); `{}` clears them.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaultSpec {
    /// `"drop"` closes every open account stream now; `"stall"` silences them (no frames, no
    /// heartbeats) until the client gives up. New streams are not affected.
    pub sse: Option<String>,
    /// Answer exchange reads with this status (5xx or 429).
    pub read_status: Option<u16>,
    /// How many reads to fail; absent: until cleared.
    pub read_failures: Option<u32>,
    /// `Retry-After` seconds sent with `readStatus`.
    pub retry_after_s: Option<u64>,
    /// Delay every exchange answer by this long.
    pub delay_ms: Option<u64>,
    /// Queue the next N intents but drop their answers (the connection fails mid-answer).
    pub drop_intent_answers: Option<u32>,
    /// Leave these markets (symbols) out of `/state/trading`, as an exchange that stopped
    /// listing one would, while positions in them stay open.
    pub unlisted_markets: Option<Vec<String>>,
}

/// A day of Retry-After is far past any client's patience (it gives up instead), and a minute
/// of delay past any client's timeout: enough to test both, no hour-long hangs.
const MAX_RETRY_AFTER_S: u64 = 86_400;
const MAX_FAULT_DELAY_MS: u64 = 60_000;

/// The faults armed now.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    read_status: Option<u16>,
    read_failures: Option<u32>,
    retry_after_s: Option<u64>,
    delay_ms: u64,
    drop_intent_answers: u32,
    unlisted_markets: Vec<String>,
}

impl Shared {
    /// Check `spec` and arm it in place of the faults armed before.
    pub(super) fn arm_faults(&self, spec: FaultSpec) -> Result<(), Refusal> {
        if let Some(status) = spec.read_status
            && !(status == 429 || (500..600).contains(&status))
        {
            return Err(invalid_control("readStatus must be 429 or 5xx"));
        }
        if spec.retry_after_s.is_some_and(|s| s > MAX_RETRY_AFTER_S) {
            return Err(invalid_control(format!(
                "retryAfterS must be at most {MAX_RETRY_AFTER_S} seconds"
            )));
        }
        if spec.delay_ms.is_some_and(|ms| ms > MAX_FAULT_DELAY_MS) {
            return Err(invalid_control(format!(
                "delayMs must be at most {MAX_FAULT_DELAY_MS} milliseconds"
            )));
        }
        match spec.sse.as_deref() {
            None => {}
            Some("drop") => self.drop_streams.send_modify(|g| *g += 1),
            Some("stall") => self.stall_streams.send_modify(|g| *g += 1),
            Some(_) => return Err(invalid_control("sse must be drop or stall")),
        }
        *self.faults.lock().expect("faults lock") = Faults {
            read_status: spec.read_status,
            read_failures: spec.read_failures,
            retry_after_s: spec.retry_after_s,
            delay_ms: spec.delay_ms.unwrap_or(0),
            drop_intent_answers: spec.drop_intent_answers.unwrap_or(0),
            unlisted_markets: spec.unlisted_markets.unwrap_or_default(),
        };
        Ok(())
    }

    /// A read fault to answer with instead, if one is armed.
    pub(super) fn read_fault(&self) -> Option<Response> {
        let mut f = self.faults.lock().expect("faults lock");
        let status = f.read_status?;
        match f.read_failures {
            Some(0) => {
                f.read_status = None;
                return None;
            }
            Some(n) => f.read_failures = Some(n - 1),
            None => {}
        }
        let code = if status == 429 {
            "rate_limited"
        } else {
            "unavailable"
        };
        let mut response = (
            StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
            axum::Json(ErrorBody::new(code, "injected by /sim/faults")),
        )
            .into_response();
        if let Some(s) = f.retry_after_s {
            response.headers_mut().insert(header::RETRY_AFTER, s.into());
        }
        Some(response)
    }

    /// Wait as long as the armed delay says, before any exchange answer.
    pub(super) async fn delay(&self) {
        let ms = self.faults.lock().expect("faults lock").delay_ms;
        if ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }

    /// Whether to drop the answer of the intent just queued (and count it).
    pub(super) fn drop_intent_answer(&self) -> bool {
        let mut f = self.faults.lock().expect("faults lock");
        let drop = f.drop_intent_answers > 0;
        f.drop_intent_answers = f.drop_intent_answers.saturating_sub(1);
        drop
    }

    /// `/state/trading` without the markets the faults unlisted.
    pub(super) fn hide_unlisted(&self, wire: &mut Value) {
        let f = self.faults.lock().expect("faults lock");
        if f.unlisted_markets.is_empty() {
            return;
        }
        if let Some(list) = wire.get_mut("instruments").and_then(|v| v.as_array_mut()) {
            // Instruments are tuples; the symbol is the second field (§3.1).
            list.retain(|i| {
                i.get(1).and_then(|v| v.as_str()).is_none_or(|sym| {
                    !f.unlisted_markets
                        .iter()
                        .any(|u| u.eq_ignore_ascii_case(sym))
                })
            });
        }
    }
}
