//! What the account stream reports after folding the exchange's frames (§3.2).

use std::time::Duration;

use crate::protocol::account::{AccountState, ClosedPosition, IntentOutcome};

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
