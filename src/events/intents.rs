//! Following intents to their fate from account-stream events: an outcome the stream reports, or,
//! across a resync, what the fresh snapshot proves (the position opened, the closed positions gone,
//! or the intent left the queue unseen).

use std::collections::HashMap;

use alloy_primitives::{B256, U256};

use crate::protocol::account::{AccountState, Outcome};

use super::account::StreamEvent;

/// How a tracked intent ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The outcome the stream reported.
    Outcome(Outcome),
    /// A resync showed its position open: it succeeded while the stream was down.
    SucceededWhileAway,
    /// It was queued, then left the queue while the stream was down; the outcome was not seen.
    LeftQueueWhileAway,
}

impl Resolution {
    pub fn label(&self) -> &'static str {
        match self {
            Resolution::Outcome(o) => o.label(),
            Resolution::SucceededWhileAway => "succeeded",
            Resolution::LeftQueueWhileAway => "unknown",
        }
    }
}

/// An intent awaiting its fate.
#[derive(Debug, Default, Clone)]
struct Tracked {
    /// Seen in the account's queue at least once.
    seen_queued: bool,
    /// For a close: the positions it closes (evidence after a resync).
    closes: Vec<U256>,
}

/// Intents awaiting their fate, resolved from account-stream events.
#[derive(Debug, Default)]
pub struct IntentWatch {
    pending: HashMap<B256, Tracked>,
    /// Outcomes of intents not (yet) tracked, newest last: a fast relayer can report an intent's
    /// fate before the task that sent it reports back, and that outcome must not be lost.
    early: std::collections::VecDeque<(B256, Outcome)>,
}

/// How many untracked outcomes are remembered for a late `track`.
const EARLY_OUTCOMES: usize = 256;

impl IntentWatch {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Track `id`, unless the stream already reported its fate: then that fate, at once.
    pub(crate) fn track_or_resolve(&mut self, id: B256, closes: Vec<U256>) -> Option<Resolution> {
        if let Some(i) = self.early.iter().position(|(e, _)| *e == id) {
            let (_, outcome) = self.early.remove(i).expect("index found");
            self.pending.remove(&id);
            return Some(Resolution::Outcome(outcome));
        }
        self.pending.entry(id).or_default().closes = closes;
        None
    }

    pub(crate) fn track(&mut self, id: B256) {
        self.pending.entry(id).or_default();
    }

    /// Track a close of `ids`: if a resync shows none of them open and the intent gone, it
    /// settled while the stream was away.
    pub(crate) fn track_close(&mut self, id: B256, ids: Vec<U256>) {
        self.pending.entry(id).or_default().closes = ids;
    }

    /// The intents still awaiting their fate.
    pub(crate) fn pending_ids(&self) -> Vec<B256> {
        self.pending.keys().copied().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Fold one stream event; returns the intents it resolved.
    pub(crate) fn on_event(&mut self, event: &StreamEvent) -> Vec<(B256, Resolution)> {
        let mut resolved = Vec::new();
        match event {
            StreamEvent::Patched {
                state, outcomes, ..
            } => {
                for o in outcomes {
                    if self.pending.remove(&o.intent_id).is_some() {
                        resolved.push((o.intent_id, Resolution::Outcome(o.outcome)));
                    } else {
                        if self.early.len() == EARLY_OUTCOMES {
                            self.early.pop_front();
                        }
                        self.early.push_back((o.intent_id, o.outcome));
                    }
                }
                self.mark_queued(state);
            }
            StreamEvent::Synced(state) => {
                let ids: Vec<B256> = self.pending.keys().copied().collect();
                for id in ids {
                    let tracked = &self.pending[&id];
                    let queued = state.operations.iter().any(|o| o.intent_id == id);
                    let opened = state.open_positions.iter().any(|p| p.intent_id == Some(id));
                    let closed_all = !tracked.closes.is_empty()
                        && tracked
                            .closes
                            .iter()
                            .all(|c| state.open_positions.iter().all(|p| p.id != *c));
                    if opened || (!queued && closed_all) {
                        self.pending.remove(&id);
                        resolved.push((id, Resolution::SucceededWhileAway));
                    } else if !queued && tracked.seen_queued {
                        self.pending.remove(&id);
                        resolved.push((id, Resolution::LeftQueueWhileAway));
                    }
                }
                self.mark_queued(state);
            }
            StreamEvent::Alive | StreamEvent::Disconnected { .. } => {}
        }
        resolved
    }

    fn mark_queued(&mut self, state: &AccountState) {
        for op in &state.operations {
            if let Some(t) = self.pending.get_mut(&op.intent_id) {
                t.seen_queued = true;
            }
        }
    }
}
