//! What carrying out an order produced, as a message back to the app: intents to follow, lines
//! for the message log, and the sends Pending lists because they did not reach the queue.

/// What carrying out an order produced, as a message back to the app: ids to track and lines
/// to show.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SubmitOutcome {
    pub tracked: Vec<alloy_primitives::B256>,
    /// Close intents and the positions each closes (evidence after a resync).
    pub closes: Vec<(alloy_primitives::B256, Vec<alloy_primitives::U256>)>,
    pub toasts: Vec<(String, bool)>,
    /// Sends that did not reach the queue as far as this client knows (Pending shows them).
    pub unanswered: Vec<Unanswered>,
}

/// A send the relayer did not (knowingly) queue: Pending lists it beside the queue, until the
/// stream settles it (no answer) or for [`UNANSWERED_FOR`] (refused, not sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unanswered {
    /// `None` when nothing was signed (the order failed before any intent existed).
    pub intent_id: Option<alloy_primitives::B256>,
    /// The order, as the toasts name it.
    pub what: String,
    pub fate: SendFate,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendFate {
    /// Sent, no answer: it may be queued; only the stream can tell, and it is not resent.
    NoAnswer,
    /// The relayer refused it with this code; nothing was queued.
    Refused(String),
    /// It was never sent (signing, the nonce store or the network before sending failed).
    NotSent,
}

/// How long a refused or unsent order stays in Pending (the message log keeps it for good).
pub const UNANSWERED_FOR: std::time::Duration = std::time::Duration::from_secs(60);
