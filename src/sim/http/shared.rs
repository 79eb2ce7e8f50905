//! The state every request shares: the exchange behind one lock, the account-stream fan-out,
//! and the injected faults.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use alloy_primitives::Address;
use tokio::sync::{broadcast, watch};

use crate::protocol::account::Frame;
use crate::sim::engine::{Engine, SimConfig};
use crate::sim::exchange::Exchange;

use axum::response::Response;
use serde_json::Value;

use super::faults::{FaultSpec, Faults, Fired, StreamFault};
use crate::sim::intake::Refusal;

/// State shared by every request.
pub struct Shared {
    exchange: Mutex<Exchange>,
    pub(super) cfg: SimConfig,
    wallets: Mutex<HashMap<Address, broadcast::Sender<Arc<String>>>>,
    pub(super) faults: Mutex<Faults>,
    /// Bumped to end every open account stream (`sse: drop`, shutdown).
    pub(super) drop_streams: watch::Sender<u64>,
    /// Bumped to silence every open account stream (`sse: stall`).
    pub(super) stall_streams: watch::Sender<u64>,
}

fn wall_ms() -> u64 {
    crate::clock::now_unix_ms()
}

impl Shared {
    pub(super) fn new(cfg: SimConfig) -> Self {
        let start_ms = if cfg.manual_clock {
            crate::sim::engine::MANUAL_START_MS
        } else {
            wall_ms()
        };
        Self {
            exchange: Mutex::new(Exchange::new(cfg.clone(), start_ms)),
            cfg,
            wallets: Mutex::new(HashMap::new()),
            faults: Mutex::new(Faults::default()),
            drop_streams: watch::channel(0).0,
            stall_streams: watch::channel(0).0,
        }
    }

    /// Run `f` on the exchange at the current time and broadcast the patches it produced, under
    /// one lock: a stream that subscribed under the same lock sees every patch exactly once.
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut Exchange) -> R) -> R {
        let mut exchange = self.lock_now();
        let result = f(&mut exchange);
        self.publish(&mut exchange);
        result
    }

    /// The exchange, moved to the current time (on the real clock), locked.
    pub(super) fn lock_now(&self) -> MutexGuard<'_, Exchange> {
        // Even after a panic in another request: serving on beats dying, and every commit
        // re-derives the account figures it publishes.
        let mut exchange = self.exchange.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.cfg.manual_clock {
            exchange.advance(wall_ms());
        }
        exchange
    }

    /// Send the patches the engine left in its outbox to the wallets' streams.
    pub(super) fn publish(&self, engine: &mut Engine) {
        let patches = engine.drain_outbox();
        if patches.is_empty() {
            return;
        }
        let wallets = self.wallets.lock().expect("wallets lock");
        for (wallet, patch) in patches {
            if let Some(tx) = wallets.get(&wallet) {
                let text = Frame::Patch(Box::new(patch)).to_json();
                // No receiver is fine: nobody is watching this wallet right now.
                let _ = tx.send(Arc::new(text));
            }
        }
    }

    pub(super) fn subscribe(&self, wallet: Address) -> broadcast::Receiver<Arc<String>> {
        let mut wallets = self.wallets.lock().expect("wallets lock");
        wallets
            .entry(wallet)
            .or_insert_with(|| broadcast::channel(4096).0)
            .subscribe()
    }

    fn faults(&self) -> MutexGuard<'_, Faults> {
        self.faults.lock().expect("faults lock")
    }

    /// Check `spec` and arm it in place of the faults armed before; how often those fired.
    pub(super) fn arm_faults(&self, spec: FaultSpec) -> Result<Fired, Refusal> {
        let (faults, stream) = Faults::from_spec(spec)?;
        match stream {
            Some(StreamFault::Drop) => self.drop_streams.send_modify(|g| *g += 1),
            Some(StreamFault::Stall) => self.stall_streams.send_modify(|g| *g += 1),
            None => {}
        }
        Ok(std::mem::replace(&mut *self.faults(), faults).fired())
    }

    /// A read fault to answer with instead, if one is armed.
    pub(super) fn read_fault(&self) -> Option<Response> {
        self.faults().read_fault()
    }

    /// Wait as long as the armed delay says, before any exchange answer.
    pub(super) async fn delay(&self) {
        let delay = self.faults().delay();
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
    }

    /// Whether to drop the answer of the intent just queued (and count it).
    pub(super) fn drop_intent_answer(&self) -> bool {
        self.faults().drop_intent_answer()
    }

    /// `/state/trading` without the markets the faults unlisted.
    pub(super) fn hide_unlisted(&self, wire: &mut Value) {
        self.faults().hide_unlisted(wire)
    }
}
