//! One wallet's account stream, followed: opened until its first snapshot, then each event
//! folded into the state held. The commands and the assistant tools read wallets through it.

use std::time::Duration;

use alloy_primitives::Address;
use tokio::sync::mpsc;

use crate::feed::account::StreamEvent;
use crate::protocol::account::AccountState;

use super::stream::{StreamConfig, spawn_account_stream};
use super::{ExchangeHttp, FetchError};

/// The account stream of one wallet, kept open while a command runs.
pub struct LiveAccount {
    rx: mpsc::Receiver<StreamEvent>,
    task: tokio::task::JoinHandle<()>,
    pub state: AccountState,
}

impl Drop for LiveAccount {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl LiveAccount {
    /// Open the stream and wait for the first snapshot.
    pub async fn open(http: &ExchangeHttp, wallet: Address) -> Result<Self, FetchError> {
        let (tx, mut rx) = mpsc::channel(256);
        let task = spawn_account_stream(http.clone(), wallet, StreamConfig::default(), tx);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        let mut last_error = String::from("no answer");
        loop {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(StreamEvent::Synced(state))) => {
                    return Ok(Self {
                        rx,
                        task,
                        state: *state,
                    });
                }
                Ok(Some(StreamEvent::Disconnected { reason, .. })) => last_error = reason,
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => {
                    task.abort();
                    return Err(FetchError::Unreachable {
                        url: format!("account stream of {wallet:#x}"),
                        reason: last_error,
                    });
                }
            }
        }
    }

    /// The next event (`None` when the task ended).
    pub async fn next(&mut self) -> Option<StreamEvent> {
        let event = self.rx.recv().await?;
        match &event {
            StreamEvent::Synced(s) | StreamEvent::Patched { state: s, .. } => {
                self.state = (**s).clone()
            }
            _ => {}
        }
        Some(event)
    }
}
