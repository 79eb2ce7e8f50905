//! The account stream task: opens `/state/user/live`, folds the snapshot and patches under the
//! §3.2 rules, and on any inconsistency, gap, foreign address, error or a stream quiet for several
//! heartbeat intervals, reopens and resyncs from a fresh snapshot with backoff. Typed events go out
//! on a channel; nothing the caller does waits on the network, and nothing this task awaits on the
//! network is unbounded: the request's headers, the first event and every later one each have the
//! heartbeat-based quiet timeout (bounds in `limits`).

use std::time::{Duration, SystemTime};

use alloy_primitives::Address;
use futures::StreamExt;
use rand::Rng;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::protocol::account::{AccountFold, Folded, Frame, Liveness};

use super::http::ExchangeHttp;
use super::limits;
use super::sse::{SseItem, SseParser};
use crate::events::account::StreamEvent;

#[derive(Debug, Clone)]
pub struct StreamConfig {
    /// Reopen when no event arrived for this many heartbeat intervals.
    pub quiet_intervals: u32,
    /// Assumed until the server's `liveness` says otherwise (that one is clamped; this is not).
    pub default_heartbeat: Duration,
    /// The stream request's response headers, at most (sooner once the heartbeat is known).
    pub open_timeout: Duration,
    /// Each connection's snapshot, at most this long after its headers.
    pub snapshot_timeout: Duration,
    pub backoff_base: Duration,
    pub backoff_max: Duration,
    /// Synced this long without a fault: the backoff starts again from the base.
    pub healthy_after: Duration,
}

impl Default for StreamConfig {
    fn default() -> Self {
        Self {
            quiet_intervals: limits::QUIET_INTERVALS,
            default_heartbeat: limits::HEARTBEAT_DEFAULT,
            open_timeout: limits::STREAM_OPEN_TIMEOUT,
            snapshot_timeout: limits::STREAM_SNAPSHOT_TIMEOUT,
            backoff_base: limits::STREAM_BACKOFF_BASE,
            backoff_max: limits::STREAM_BACKOFF_MAX,
            healthy_after: limits::STREAM_HEALTHY_AFTER,
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
    spawn_stamped_account_stream(http, wallet, config, events, |event, _| event)
}

/// Run the account stream of `wallet` until the receiver is dropped, each event handed to
/// `stamp` with the instant it was received, as the caller's own message.
pub fn spawn_stamped_account_stream<M: Send + 'static>(
    http: ExchangeHttp,
    wallet: Address,
    config: StreamConfig,
    events: mpsc::Sender<M>,
    stamp: impl FnMut(StreamEvent, SystemTime) -> M + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    let mut events = Sink {
        tx: events,
        stamp: Box::new(stamp),
    };
    tokio::spawn(async move {
        let mut backoff = Backoff::new(config.backoff_base, config.backoff_max);
        // Once the server has named its heartbeat, it bounds the next connections from the
        // request on: a server does not change its interval between two connections.
        let mut heartbeat = config.default_heartbeat;
        loop {
            let lost = match run_once(&http, wallet, &config, &mut events, &mut heartbeat).await {
                Ok(()) => return, // the receiver is gone
                Err(lost) => lost,
            };
            // A snapshot alone does not reset the backoff: a server that syncs and then sends
            // a patch that never applies would otherwise be reconnected to as fast as it
            // answers. Only a stream that stayed synced for a while has earned a quick retry.
            let healthy = lost.synced_for.is_some_and(|d| d >= config.healthy_after);
            let retry_in = backoff.next(healthy);
            let reason = lost.reason;
            tracing::info!(%wallet, reason, ?retry_in, "account stream reopening");
            if !events
                .send(StreamEvent::Disconnected { reason, retry_in })
                .await
            {
                return;
            }
            tokio::time::sleep(retry_in).await;
        }
    })
}

/// Where the events go: each stamped with when it was received, in the consumer's type.
struct Sink<M> {
    tx: mpsc::Sender<M>,
    stamp: Box<dyn FnMut(StreamEvent, SystemTime) -> M + Send>,
}

impl<M> Sink<M> {
    /// Send `event`; `false` when the consumer is gone.
    async fn send(&mut self, event: StreamEvent) -> bool {
        let message = (self.stamp)(event, SystemTime::now());
        self.tx.send(message).await.is_ok()
    }
}

/// Reconnect waits: steps doubling from `base` to `max`, each wait drawn from [½, 1] of its
/// step. The jitter spreads clients dropped together; the lower half keeps a floor under a storm.
#[derive(Debug)]
struct Backoff {
    base: Duration,
    max: Duration,
    failures: u32,
}

impl Backoff {
    fn new(base: Duration, max: Duration) -> Self {
        Self {
            base,
            max,
            failures: 0,
        }
    }

    /// The wait before the next attempt; `after_healthy` starts again from the base.
    fn next(&mut self, after_healthy: bool) -> Duration {
        if after_healthy {
            self.failures = 0;
        }
        self.failures = self.failures.saturating_add(1);
        let step = self.step();
        let half = step / 2;
        let spread = u64::try_from((step - half).as_micros()).unwrap_or(u64::MAX);
        half + Duration::from_micros(rand::thread_rng().gen_range(0..=spread))
    }

    /// base × 2^(failures−1), at most max.
    fn step(&self) -> Duration {
        let factor = 2u32.saturating_pow(self.failures.saturating_sub(1).min(16));
        self.base.saturating_mul(factor).min(self.max)
    }
}

/// The server's `heartbeatIntervalMs`, clamped to a sane range (see `limits`).
fn server_heartbeat(ms: u64) -> Duration {
    Duration::from_millis(ms).clamp(limits::HEARTBEAT_MIN, limits::HEARTBEAT_MAX)
}

fn seconds(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f32())
}

/// Why a connection ended, and how long it had been synced by then.
#[derive(Debug)]
struct Lost {
    reason: String,
    synced_for: Option<Duration>,
}

impl Lost {
    fn before_sync(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            synced_for: None,
        }
    }
}

/// One connection: `Ok` only when the consumer went away; `Err` to reconnect.
async fn run_once<M>(
    http: &ExchangeHttp,
    wallet: Address,
    config: &StreamConfig,
    events: &mut Sink<M>,
    heartbeat: &mut Duration,
) -> Result<(), Lost> {
    let open_within = config.open_timeout.min(*heartbeat * config.quiet_intervals);
    let response = match tokio::time::timeout(open_within, http.open_account_stream(wallet)).await {
        Err(_) => {
            return Err(Lost::before_sync(format!(
                "no answer to the stream request within {}",
                seconds(open_within)
            )));
        }
        Ok(Err(e)) => return Err(Lost::before_sync(e.to_string())),
        Ok(Ok(response)) => response,
    };
    follow(response.bytes_stream(), wallet, config, events, heartbeat).await
}

/// Read one connection's events. Every wait is bounded by the quiet timeout, counted from the
/// last complete event (or from the headers): bytes that never finish an event do not count as
/// life, so a trickle cannot hold the stream open.
async fn follow<S, B, E, M>(
    mut body: S,
    wallet: Address,
    config: &StreamConfig,
    events: &mut Sink<M>,
    heartbeat: &mut Duration,
) -> Result<(), Lost>
where
    S: futures::Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: std::fmt::Display,
{
    let mut parser = SseParser::new();
    // A fresh fold per connection: the new snapshot replaces whatever was held.
    let mut fold = AccountFold::new(wallet);
    let mut synced_at: Option<Instant> = None;
    let lost = |synced_at: Option<Instant>, reason: String| Lost {
        reason,
        synced_for: synced_at.map(|t| t.elapsed()),
    };
    let mut last_event = Instant::now();
    let snapshot_by = last_event + config.snapshot_timeout;
    loop {
        let quiet = *heartbeat * config.quiet_intervals;
        let waiting_for_snapshot = synced_at.is_none() && snapshot_by < last_event + quiet;
        let deadline = if waiting_for_snapshot {
            snapshot_by
        } else {
            last_event + quiet
        };
        let chunk = match tokio::time::timeout_at(deadline, body.next()).await {
            Err(_) if waiting_for_snapshot => {
                return Err(lost(
                    synced_at,
                    format!(
                        "connected but no snapshot within {}",
                        seconds(config.snapshot_timeout)
                    ),
                ));
            }
            Err(_) => {
                return Err(lost(
                    synced_at,
                    format!("no frame or heartbeat for {}", seconds(quiet)),
                ));
            }
            Ok(None) => return Err(lost(synced_at, "the stream ended".into())),
            Ok(Some(Err(e))) => return Err(lost(synced_at, format!("the stream broke: {e}"))),
            Ok(Some(Ok(chunk))) => chunk,
        };
        let items = parser
            .feed(chunk.as_ref())
            .map_err(|e| lost(synced_at, e.to_string()))?;
        for item in items {
            // Comments are not heartbeats: only events prove the server is still talking.
            let SseItem::Event(event) = item else {
                continue;
            };
            last_event = Instant::now();
            let out = match event.event.as_str() {
                "liveness" => {
                    if let Ok(l) = serde_json::from_str::<Liveness>(&event.data) {
                        *heartbeat = server_heartbeat(l.heartbeat_interval_ms);
                    }
                    StreamEvent::Alive
                }
                "heartbeat" => StreamEvent::Alive,
                "wallet" => {
                    let frame = Frame::decode(&event.data)
                        .map_err(|e| lost(synced_at, format!("malformed frame: {e}")))?;
                    match fold
                        .fold(&frame)
                        .map_err(|e| lost(synced_at, format!("resync needed: {e}")))?
                    {
                        Folded::Snapshot => {
                            synced_at.get_or_insert_with(Instant::now);
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
            if !events.send(out).await {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn within_step(wait: Duration, step: Duration) -> bool {
        step / 2 <= wait && wait <= step
    }

    #[test]
    fn backoff_doubles_with_jitter_to_the_cap() {
        let c = StreamConfig::default();
        let mut b = Backoff::new(c.backoff_base, c.backoff_max);
        let mut steps = Vec::new();
        for _ in 0..40 {
            let wait = b.next(false);
            assert!(within_step(wait, b.step()), "{wait:?} of {:?}", b.step());
            steps.push(b.step());
        }
        assert_eq!(steps[0], Duration::from_millis(250));
        assert_eq!(steps[2], Duration::from_millis(1000));
        assert_eq!(steps[39], Duration::from_secs(30));
        // Jitter: a hundred clients dropped together do not all come back at one instant.
        let waits: std::collections::BTreeSet<Duration> = (0..100)
            .map(|_| Backoff::new(c.backoff_base, c.backoff_max).next(false))
            .collect();
        assert!(waits.len() > 50, "{} distinct waits", waits.len());
    }

    #[test]
    fn only_a_healthy_stream_starts_the_backoff_again() {
        let c = StreamConfig::default();
        let mut b = Backoff::new(c.backoff_base, c.backoff_max);
        for _ in 0..5 {
            b.next(false);
        }
        assert_eq!(b.step(), Duration::from_secs(4));
        let wait = b.next(true);
        assert!(within_step(wait, Duration::from_millis(250)), "{wait:?}");
    }

    #[test]
    fn the_servers_heartbeat_is_clamped() {
        assert_eq!(server_heartbeat(10_000), Duration::from_secs(10));
        assert_eq!(server_heartbeat(600_000), limits::HEARTBEAT_MAX);
        assert_eq!(server_heartbeat(0), limits::HEARTBEAT_MIN);
    }

    fn sink(tx: mpsc::Sender<StreamEvent>) -> Sink<StreamEvent> {
        Sink {
            tx,
            stamp: Box::new(|event, _| event),
        }
    }

    /// `follow` over in-memory bytes, then silence; how long (in paused time) until it gives up.
    /// The snapshot deadline is out of the way: these are about the quiet timeout.
    async fn time_to_give_up(
        chunks: Vec<Vec<u8>>,
        trickle: Option<Duration>,
    ) -> (Duration, String) {
        let config = StreamConfig {
            snapshot_timeout: Duration::from_secs(86_400),
            ..StreamConfig::default()
        };
        give_up_with(chunks, trickle, &config).await
    }

    async fn give_up_with(
        chunks: Vec<Vec<u8>>,
        trickle: Option<Duration>,
        config: &StreamConfig,
    ) -> (Duration, String) {
        let (tx, mut rx) = mpsc::channel(64);
        tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let opening = futures::stream::iter(chunks.into_iter().map(Ok::<_, String>));
        // After the opening: nothing at all, or one byte of an unfinished line per `trickle`.
        let tail = futures::stream::unfold(trickle, |every| async move {
            match every {
                Some(d) => {
                    tokio::time::sleep(d).await;
                    Some((Ok(b"x".to_vec()), every))
                }
                None => None,
            }
        })
        .chain(futures::stream::pending());
        let body = opening.chain(tail).boxed();
        let start = Instant::now();
        let mut heartbeat = limits::HEARTBEAT_DEFAULT;
        let ended = tokio::time::timeout(
            Duration::from_secs(3600),
            follow(body, Address::ZERO, config, &mut sink(tx), &mut heartbeat),
        )
        .await
        .expect("the stream gave up within an hour");
        (start.elapsed(), ended.unwrap_err().reason)
    }

    fn liveness(ms: u64) -> Vec<u8> {
        format!(": connected\n\nevent: liveness\ndata: {{\"heartbeatIntervalMs\":{ms}}}\n\n")
            .into_bytes()
    }

    #[tokio::test(start_paused = true)]
    async fn a_huge_heartbeat_claim_cannot_delay_noticing_a_stall() {
        let (took, reason) = time_to_give_up(vec![liveness(600_000)], None).await;
        assert_eq!(
            took,
            limits::HEARTBEAT_MAX * limits::QUIET_INTERVALS,
            "{reason}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_tiny_heartbeat_claim_cannot_make_the_stream_drop_at_once() {
        let (took, _) = time_to_give_up(vec![liveness(1)], None).await;
        assert_eq!(took, limits::HEARTBEAT_MIN * limits::QUIET_INTERVALS);
    }

    #[tokio::test(start_paused = true)]
    async fn nothing_after_the_headers_is_given_up_on_the_default_heartbeat() {
        let (took, reason) = time_to_give_up(vec![], None).await;
        assert_eq!(took, limits::HEARTBEAT_DEFAULT * limits::QUIET_INTERVALS);
        assert!(reason.contains("no frame or heartbeat"), "{reason}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_trickle_of_bytes_is_not_a_sign_of_life() {
        let (took, _) =
            time_to_give_up(vec![liveness(1000)], Some(Duration::from_millis(500))).await;
        assert_eq!(took, Duration::from_secs(3));
    }

    /// Heartbeats on time but never a snapshot: nothing is in sync, so the connection is given
    /// up on the snapshot deadline, however lively it looks.
    #[tokio::test(start_paused = true)]
    async fn heartbeats_without_a_snapshot_are_given_up_on() {
        let (tx, mut rx) = mpsc::channel(64);
        tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let beats = futures::stream::unfold((), |()| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Some((
                Ok::<_, String>(b"event: heartbeat\ndata: {}\n\n".to_vec()),
                (),
            ))
        });
        let body = futures::stream::iter([Ok(liveness(1000))])
            .chain(beats)
            .boxed();
        let start = Instant::now();
        let mut heartbeat = limits::HEARTBEAT_DEFAULT;
        let config = StreamConfig::default();
        let lost = tokio::time::timeout(
            Duration::from_secs(3600),
            follow(body, Address::ZERO, &config, &mut sink(tx), &mut heartbeat),
        )
        .await
        .expect("given up within the hour")
        .unwrap_err();
        assert_eq!(start.elapsed(), limits::STREAM_SNAPSHOT_TIMEOUT);
        assert!(
            lost.reason.contains("no snapshot within 15.0s"),
            "{}",
            lost.reason
        );
    }
}
