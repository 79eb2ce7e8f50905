//! What reaches the app and what it asks for: every [`Message`] `App::handle` folds (keys as
//! actions, what the workers report, each stamped with when it arrived) and every [`Effect`] it
//! hands back to the runtime (`tui::effects`), as data.

use std::time::SystemTime;

use super::action::Action;
use crate::events::account::StreamEvent;
use crate::events::intents::Resolution;
use crate::events::market::MarketEvent;
use crate::protocol::order::Order;

/// Everything that reaches the app: keys (as actions), network events (stamped when they
/// arrived), what a submission produced, and the timer. `App::handle` folds each one.
#[derive(Debug, Clone)]
pub enum Message {
    Action(Action),
    Market(MarketEvent),
    /// An account-stream event and when the loop received it.
    Stream(StreamEvent, SystemTime),
    Submitted(super::submission::SubmitOutcome),
    /// What the wallet's history file held at start (the runtime reads it; the app folds it).
    HistoryLoaded(crate::protocol::history::LoadedHistory),
    /// The timer, with the time now.
    Tick(SystemTime),
    /// What a session-key job came to.
    KeyDone(super::key_setup::KeyOutcome),
    /// What an exploring pane's read came back with, and when.
    Fetched(super::explore::Fetched, SystemTime),
    /// What a deposit's or a withdrawal's job came to.
    FundDone(super::fund::FundOutcome),
}

/// What the runtime must do after a message (the app itself does no I/O). Not `Clone`: a key
/// job may carry a typed passphrase, and there is to be exactly one copy of it.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Append an intent's fate to the audit log.
    RecordFate(alloy_primitives::B256, Resolution),
    /// Sign and send the order the confirmed dialog restated (`Dialog::order`); `what` names it
    /// in the toasts that follow.
    Submit {
        order: Order,
        what: String,
    },
    /// Ring the bell and raise a desktop notification (a distance-to-bust alert).
    Notify(super::alerts::Notice),
    /// Generate, register, renew or clear the session key.
    Key(super::key_setup::KeyJob),
    /// Append a closed trade (new, or with what was learnt since), or a mark of the account seen
    /// whole, to the wallet's history file.
    RecordHistory(crate::protocol::history::HistoryLine),
    /// Plan, sign or send a deposit or a withdrawal with the owner's wallet.
    Fund(super::fund::FundJob),
}
