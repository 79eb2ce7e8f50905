//! One wallet's account stream, followed: opened until its first snapshot, then each event
//! folded into the state held. The commands and the assistant tools read wallets through it.
//!
//! With a data dir, what the stream shows goes into the wallet's local history as it arrives
//! (`client::history`): every close it reports, with the entry of the position held, and a mark
//! at each snapshot and after each change of the open positions, so a close made by any command is in the History tab
//! and `history ADDR`, and the history can say how far back it is complete. The fates of this
//! wallet's intents that earlier commands stopped waiting for go into the audit log when seen.

use std::path::Path;
use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use tokio::sync::mpsc;

use crate::events::account::StreamEvent;
use crate::protocol::account::{AccountState, ClosedPosition};
use crate::protocol::coverage::{Mark, positions_changed};
use crate::protocol::history::{ClosedHere, ClosedTrade, HistoryLine};
use crate::protocol::trading::TradingState;

use super::intents::record_late_fate;
use super::stream::{StreamConfig, spawn_account_stream};
use super::{ExchangeHttp, FetchError};
use crate::events::intents::IntentWatch;
use crate::store::history::HistoryFile;
use crate::store::ledger::AuditLog;

/// The account stream of one wallet, kept open while a command runs.
pub struct LiveAccount {
    rx: mpsc::Receiver<StreamEvent>,
    task: tokio::task::JoinHandle<()>,
    pub state: AccountState,
    history: Option<Recorder>,
    late: Option<LateFates>,
}

impl Drop for LiveAccount {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Appends to the audit log the fates of this wallet's intents that earlier commands sent but
/// stopped waiting for (their own are followed by the command itself). The terminal UI keeps one
/// beside its own stream too: the intents it sends are followed by the UI itself.
///
/// A close among them that succeeded while nothing here followed the account also goes into the
/// wallet's history file: the stream reported its figures to no one here, so the record says
/// which intent closed which position (`ClosedHere`), and the history's gap names it.
pub(crate) struct LateFates {
    audit: AuditLog,
    watch: IntentWatch,
    history: HistoryFile,
    /// The positions each tracked close intent closes.
    closes: Vec<(B256, Vec<U256>)>,
}

impl LateFates {
    pub(crate) fn new(data_dir: &Path, wallet: Address) -> Self {
        let audit = AuditLog::new(data_dir);
        let mut watch = IntentWatch::new();
        let closes = audit.unsettled(wallet);
        for (id, ids) in &closes {
            watch.track_close(*id, ids.clone());
        }
        Self {
            audit,
            watch,
            history: HistoryFile::new(data_dir, wallet),
            closes,
        }
    }

    pub(crate) fn see(&mut self, event: &StreamEvent) {
        if self.watch.is_empty() {
            return;
        }
        for (id, r) in self.watch.on_event(event) {
            record_late_fate(&self.audit, id, &r);
            use crate::events::intents::Resolution;
            use crate::protocol::account::Outcome;
            if !matches!(
                r,
                Resolution::Outcome(Outcome::Succeeded) | Resolution::SucceededWhileAway
            ) {
                continue;
            }
            let learnt_at_ms = crate::clock::now_unix_ms();
            let closed = self.closes.iter().find(|(i, _)| *i == id);
            for position_id in closed.map(|(_, ids)| ids.as_slice()).unwrap_or_default() {
                let line = HistoryLine::ClosedHere(ClosedHere {
                    position_id: *position_id,
                    intent_id: id,
                    learnt_at_ms,
                });
                // The close already happened: a history that cannot be written is logged.
                if let Err(e) = self.history.append(&line) {
                    tracing::warn!(error = %e, "history not saved");
                }
            }
        }
    }
}

/// Writes what the stream shows into the wallet's history file.
struct Recorder {
    file: HistoryFile,
    http: ExchangeHttp,
    /// The markets, read once, at the first close (its symbol and price scale).
    markets: Option<TradingState>,
}

impl Recorder {
    fn write(&mut self, line: &HistoryLine) {
        // The trade already happened: a history that cannot be written is logged, not fatal.
        if let Err(e) = self.file.append(line) {
            tracing::warn!(error = %e, "history not saved");
        }
    }

    fn mark(&mut self, state: &AccountState, start: bool) {
        let at = crate::clock::now_unix_ms();
        self.write(&HistoryLine::Mark(Mark::of(state, at, start)));
    }

    /// Record `closed`, reported now; `held` is the account before the patch (the entries).
    async fn closes(&mut self, closed: &[ClosedPosition], held: &AccountState) {
        if self.markets.is_none() {
            self.markets = self.http.trading_state().await.ok();
        }
        let seen_at_ms = crate::clock::now_unix_ms();
        for c in closed {
            let position = held.open_positions.iter().find(|p| p.id == c.id);
            let market = self
                .markets
                .as_ref()
                .and_then(|m| m.market_by_id(c.instrument_id));
            let trade = ClosedTrade::new(c.clone(), position, market, seen_at_ms);
            self.write(&HistoryLine::Trade(trade));
        }
    }
}

impl LiveAccount {
    /// Open the stream and wait for the first snapshot. With `data_dir`, the wallet's closes
    /// and marks go into its history file there (`None`: nothing is written).
    pub async fn open(
        http: &ExchangeHttp,
        wallet: Address,
        data_dir: Option<&Path>,
    ) -> Result<Self, FetchError> {
        let (tx, mut rx) = mpsc::channel(256);
        let task = spawn_account_stream(http.clone(), wallet, StreamConfig::default(), tx);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        let mut last_error = String::from("no answer");
        loop {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(StreamEvent::Synced(state))) => {
                    let mut history = data_dir.map(|dir| Recorder {
                        file: HistoryFile::new(dir, wallet),
                        http: http.clone(),
                        markets: None,
                    });
                    if let Some(h) = &mut history {
                        h.mark(&state, true);
                    }
                    // Read before this command signs anything: only earlier commands' intents.
                    let mut late = data_dir.map(|dir| LateFates::new(dir, wallet));
                    if let Some(l) = &mut late {
                        l.see(&StreamEvent::Synced(state.clone()));
                    }
                    return Ok(Self {
                        rx,
                        task,
                        state: *state,
                        history,
                        late,
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
        if let Some(l) = &mut self.late {
            l.see(&event);
        }
        match &event {
            StreamEvent::Synced(s) => {
                if let Some(h) = &mut self.history {
                    h.mark(s, true);
                }
                self.state = (**s).clone();
            }
            StreamEvent::Patched { state, closed, .. } => {
                // Before the new state replaces the old: the entries are on the positions held.
                if let Some(h) = &mut self.history {
                    if !closed.is_empty() {
                        h.closes(closed, &self.state).await;
                    }
                    // What this view saw open is the evidence a later one checks against.
                    if !closed.is_empty() || positions_changed(&self.state, state) {
                        h.mark(state, false);
                    }
                }
                self.state = (**state).clone();
            }
            _ => {}
        }
        Some(event)
    }
}
