//! Fault injection (`POST /sim/faults`): failing or slow reads, dropped write answers, silenced
//! or dropped streams, markets left out of `/state/trading`.

use std::time::Duration;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::relayer::ErrorBody;
use crate::sim::controls::invalid_control;
use crate::sim::intake::Refusal;

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
    /// Queue the next N intents (or apply the next N spotSends at `/exchange`) but drop their
    /// answers (the connection fails mid-answer).
    pub drop_intent_answers: Option<u32>,
    /// Leave these markets (symbols) out of `/state/trading`, as an exchange that stopped
    /// listing one would, while positions in them stay open.
    pub unlisted_markets: Option<Vec<String>>,
}

/// A day of Retry-After is far past any client's patience (it gives up instead), and a minute
/// of delay past any client's timeout: enough to test both, no hour-long hangs.
const MAX_RETRY_AFTER_S: u64 = 86_400;
const MAX_FAULT_DELAY_MS: u64 = 60_000;

/// How often the armed faults fired: answered by `POST /sim/faults` for the faults it replaces,
/// so a test that injects one can check it fired (a fault that never fires proves nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Fired {
    /// Reads answered with `readStatus` instead.
    pub read_failures: u32,
    /// Intent (or spotSend) answers dropped.
    pub dropped_answers: u32,
}

/// The faults armed now.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    fired: Fired,
    read_status: Option<u16>,
    read_failures: Option<u32>,
    retry_after_s: Option<u64>,
    delay_ms: u64,
    drop_intent_answers: u32,
    unlisted_markets: Vec<String>,
}

/// What a fault does to the account streams open now.
pub(super) enum StreamFault {
    Drop,
    Stall,
}

impl Faults {
    /// Check `spec`: the faults to arm in place of those armed before, and what to do to the
    /// open streams.
    pub(super) fn from_spec(spec: FaultSpec) -> Result<(Faults, Option<StreamFault>), Refusal> {
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
        let stream = match spec.sse.as_deref() {
            None => None,
            Some("drop") => Some(StreamFault::Drop),
            Some("stall") => Some(StreamFault::Stall),
            Some(_) => return Err(invalid_control("sse must be drop or stall")),
        };
        let faults = Faults {
            fired: Fired::default(),
            read_status: spec.read_status,
            read_failures: spec.read_failures,
            retry_after_s: spec.retry_after_s,
            delay_ms: spec.delay_ms.unwrap_or(0),
            drop_intent_answers: spec.drop_intent_answers.unwrap_or(0),
            unlisted_markets: spec.unlisted_markets.unwrap_or_default(),
        };
        Ok((faults, stream))
    }

    /// A read fault to answer with instead, if one is armed (and count it).
    pub(super) fn read_fault(&mut self) -> Option<Response> {
        let status = self.read_status?;
        match self.read_failures {
            Some(0) => {
                self.read_status = None;
                return None;
            }
            Some(n) => self.read_failures = Some(n - 1),
            None => {}
        }
        self.fired.read_failures += 1;
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
        if let Some(s) = self.retry_after_s {
            response.headers_mut().insert(header::RETRY_AFTER, s.into());
        }
        Some(response)
    }

    /// How often these faults fired since they were armed.
    pub(super) fn fired(&self) -> Fired {
        self.fired
    }

    /// How long to wait before any exchange answer.
    pub(super) fn delay(&self) -> Duration {
        Duration::from_millis(self.delay_ms)
    }

    /// Whether to drop the answer of the intent just queued (and count it).
    pub(super) fn drop_intent_answer(&mut self) -> bool {
        let drop = self.drop_intent_answers > 0;
        self.drop_intent_answers = self.drop_intent_answers.saturating_sub(1);
        self.fired.dropped_answers += u32::from(drop);
        drop
    }

    /// `/state/trading` without the markets the faults unlisted.
    pub(super) fn hide_unlisted(&self, wire: &mut Value) {
        if self.unlisted_markets.is_empty() {
            return;
        }
        if let Some(list) = wire.get_mut("instruments").and_then(|v| v.as_array_mut()) {
            // Instruments are tuples; the symbol is the second field (§3.1).
            list.retain(|i| {
                i.get(1).and_then(|v| v.as_str()).is_none_or(|sym| {
                    !self
                        .unlisted_markets
                        .iter()
                        .any(|u| u.eq_ignore_ascii_case(sym))
                })
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armed(spec: serde_json::Value) -> Faults {
        Faults::from_spec(serde_json::from_value(spec).unwrap())
            .map(|(f, _)| f)
            .unwrap_or_else(|_| panic!("refused"))
    }

    #[test]
    fn each_fault_that_fires_is_counted_and_only_then() {
        let mut f = armed(serde_json::json!({"readStatus": 503, "readFailures": 2}));
        let answered: Vec<bool> = (0..4).map(|_| f.read_fault().is_some()).collect();
        assert_eq!(answered, [true, true, false, false]);
        assert_eq!(f.fired().read_failures, 2);

        let mut f = armed(serde_json::json!({"dropIntentAnswers": 1}));
        assert!(f.drop_intent_answer());
        assert!(!f.drop_intent_answer());
        assert_eq!(
            f.fired(),
            Fired {
                read_failures: 0,
                dropped_answers: 1
            }
        );
        // Armed again: counted afresh.
        assert_eq!(armed(serde_json::json!({})).fired(), Fired::default());
    }
}
