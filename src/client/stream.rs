//! The account stream task: opens `/state/user/live`, folds the snapshot and patches under the
//! §3.2 rules, and on any inconsistency, gap, foreign address, error or a stream quiet for several
//! heartbeat intervals, reopens and resyncs from a fresh snapshot with backoff. Typed events go out
//! on a channel; nothing the caller does waits on the network.

use std::time::Duration;

use alloy_primitives::Address;
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::protocol::account::{
    AccountFold, AccountState, ClosedPosition, Folded, Frame, IntentOutcome, Liveness,
};

use super::http::ExchangeHttp;
use super::sse::{SseItem, SseParser};

/// What the stream task reports.
#[derive(Debug, Clone)]
pub enum StreamEvent {
    /// A (re)synced account from a fresh snapshot.
    Synced(Box<AccountState>),
    /// A patch applied; the closed positions and outcomes it carried.
    Patched {
        state: Box<AccountState>,
        closed: Vec<ClosedPosition>,
        outcomes: Vec<IntentOutcome>,
    },
    /// The stream is alive (heartbeat or frame) at this instant.
    Alive,
    /// The stream broke; it reopens after `retry_in`.
    Disconnected { reason: String, retry_in: Duration },
}

#[derive(Debug, Clone)]
pub struct StreamConfig {
    /// Reopen when nothing arrived for this many heartbeat intervals.
    pub quiet_intervals: u32,
    /// Assumed until the server's `liveness` says otherwise.
    pub default_heartbeat: Duration,
    pub backoff_base: Duration,
    pub backoff_max: Duration,
}

impl Default for StreamConfig {
    fn default() -> Self {
        Self {
            quiet_intervals: 3,
            default_heartbeat: Duration::from_secs(10),
            backoff_base: Duration::from_millis(250),
            backoff_max: Duration::from_secs(30),
        }
    }
}

/// Run the account stream of `wallet` until the receiver is dropped.
pub fn spawn_account_stream(
    http: ExchangeHttp,
    wallet: Address,
    config: StreamConfig,
    events: mpsc::Sender<StreamEvent>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut failures: u32 = 0;
        loop {
            let reason = match run_once(&http, wallet, &config, &events, &mut failures).await {
                Ok(()) => return, // the receiver is gone
                Err(reason) => reason,
            };
            failures = failures.saturating_add(1);
            let retry_in = backoff(&config, failures);
            tracing::info!(%wallet, reason, ?retry_in, "account stream reopening");
            if events
                .send(StreamEvent::Disconnected { reason, retry_in })
                .await
                .is_err()
            {
                return;
            }
            tokio::time::sleep(retry_in).await;
        }
    })
}

/// Exponential backoff with a deterministic jitter-free cap: base × 2^(n−1), at most max.
fn backoff(config: &StreamConfig, failures: u32) -> Duration {
    let factor = 2u32.saturating_pow(failures.saturating_sub(1).min(16));
    config
        .backoff_base
        .saturating_mul(factor)
        .min(config.backoff_max)
}

/// One connection: `Ok` only when the consumer went away; `Err(reason)` to reconnect.
async fn run_once(
    http: &ExchangeHttp,
    wallet: Address,
    config: &StreamConfig,
    events: &mpsc::Sender<StreamEvent>,
    failures: &mut u32,
) -> Result<(), String> {
    let response = http
        .open_account_stream(wallet)
        .await
        .map_err(|e| e.to_string())?;
    let mut body = response.bytes_stream();
    let mut parser = SseParser::new();
    // A fresh fold per connection: the new snapshot replaces whatever was held.
    let mut fold = AccountFold::new(wallet);
    let mut heartbeat = config.default_heartbeat;
    loop {
        let quiet = heartbeat * config.quiet_intervals;
        let chunk = match tokio::time::timeout_at(Instant::now() + quiet, body.next()).await {
            Err(_) => {
                return Err(format!(
                    "no frame or heartbeat for {}s",
                    quiet.as_secs_f32()
                ));
            }
            Ok(None) => return Err("the stream ended".into()),
            Ok(Some(Err(e))) => return Err(format!("the stream broke: {e}")),
            Ok(Some(Ok(chunk))) => chunk,
        };
        for item in parser.feed(&chunk).map_err(|e| e.to_string())? {
            let SseItem::Event(event) = item else {
                continue;
            };
            let out = match event.event.as_str() {
                "liveness" => {
                    if let Ok(l) = serde_json::from_str::<Liveness>(&event.data) {
                        heartbeat =
                            Duration::from_millis(l.heartbeat_interval_ms.clamp(100, 600_000));
                    }
                    StreamEvent::Alive
                }
                "heartbeat" => StreamEvent::Alive,
                "wallet" => {
                    let frame =
                        Frame::decode(&event.data).map_err(|e| format!("malformed frame: {e}"))?;
                    match fold
                        .fold(&frame)
                        .map_err(|e| format!("resync needed: {e}"))?
                    {
                        Folded::Snapshot => {
                            *failures = 0;
                            StreamEvent::Synced(Box::new(
                                fold.state().expect("just synced").clone(),
                            ))
                        }
                        Folded::Patched { closed, outcomes } => StreamEvent::Patched {
                            state: Box::new(fold.state().expect("patched").clone()),
                            closed,
                            outcomes,
                        },
                        Folded::StaleSnapshot => StreamEvent::Alive,
                    }
                }
                _ => StreamEvent::Alive, // unknown events are ignored, as SSE clients do
            };
            if events.send(out).await.is_err() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_the_cap() {
        let c = StreamConfig::default();
        assert_eq!(backoff(&c, 1), Duration::from_millis(250));
        assert_eq!(backoff(&c, 3), Duration::from_millis(1000));
        assert_eq!(backoff(&c, 40), Duration::from_secs(30));
    }
}
