//! Carrying out an order: its intents (built by `protocol::order`), signed, each sent once, in
//! order. The command line and the terminal UI both come through here, so they sign and send
//! exactly the same things and record the same audit trail.

use alloy_primitives::{Address, B256, U256};
use serde_json::Value;

use crate::protocol::eip712::{Intent, NonceLane, SessionSigner, SignError, Signed};
use crate::protocol::order::{Deadlines, Order, OrderIntent};

use super::http::ExchangeHttp;
use super::intents::{Submission, SubmitError, submit};
use crate::store::ledger::{AuditLog, NonceStore};

/// One intent of an order after its single send.
#[derive(Debug)]
pub struct Sent {
    pub intent_id: B256,
    /// The intent whose fate answers for this one: itself, or a cancel's target.
    pub watch: B256,
    /// For a close: the positions it closes (evidence of its fate after a resync).
    pub closes: Vec<U256>,
    pub result: Result<Submission, SubmitError>,
}

impl Sent {
    /// Whether it may be in the queue now (accepted, or no answer): only then is it tracked.
    pub fn may_be_queued(&self) -> bool {
        self.result.as_ref().is_ok_and(Submission::may_be_queued)
    }
}

/// Why nothing of an order was sent.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OrderError {
    #[error("nonce store: {0}; nothing was signed")]
    Nonce(std::io::Error),
    #[error("signing failed: {0}; nothing was sent")]
    Sign(SignError),
    #[error("a withdrawal is signed by the owner's wallet, not the session key")]
    NotSessionSigned,
}

/// Everything a session-signed order needs besides the order: who signs, for whom, where it
/// goes, where its nonces and audit trail live, and how long its intents live.
#[derive(Clone)]
pub struct Trader {
    pub http: ExchangeHttp,
    pub audit: std::sync::Arc<AuditLog>,
    pub nonces: std::sync::Arc<NonceStore>,
    pub key: SessionSigner,
    pub owner: Address,
    pub deadlines: Deadlines,
}

impl Trader {
    pub fn new(
        http: ExchangeHttp,
        data_dir: &std::path::Path,
        key: SessionSigner,
        owner: Address,
        deadlines: Deadlines,
    ) -> Self {
        Self {
            http,
            audit: std::sync::Arc::new(AuditLog::new(data_dir)),
            nonces: std::sync::Arc::new(NonceStore::new(data_dir)),
            key,
            owner,
            deadlines,
        }
    }

    /// Build, sign and send `order` now (see [`send_order`]).
    pub async fn send(&self, order: &Order, details: Value) -> Result<Vec<Sent>, OrderError> {
        let now_s = crate::clock::now_unix_s();
        send_order(self, order, now_s, details).await
    }
}

/// Build, sign (all before sending any) and send a session-signed order at `now_s`.
pub async fn send_order(
    trader: &Trader,
    order: &Order,
    now_s: u64,
    details: Value,
) -> Result<Vec<Sent>, OrderError> {
    let Trader {
        http,
        audit,
        nonces,
        key,
        owner,
        deadlines,
    } = trader;
    let (owner, deadlines) = (*owner, *deadlines);
    if !order.session_signed() {
        return Err(OrderError::NotSessionSigned);
    }
    let intents = order
        .intents(owner, now_s, deadlines, || {
            nonces.next(owner, NonceLane::Exchange)
        })
        .map_err(OrderError::Nonce)?;
    enum SignedOne {
        Open(Signed<crate::protocol::eip712::OpenPosition>),
        Close(Signed<crate::protocol::eip712::Close>),
        Cancel(Signed<crate::protocol::eip712::CancelIntent>),
    }
    let mut signed = Vec::with_capacity(intents.len());
    for intent in intents {
        signed.push(match intent {
            OrderIntent::Open(i) => SignedOne::Open(key.sign(i).map_err(OrderError::Sign)?),
            OrderIntent::Close(i) => SignedOne::Close(key.sign(i).map_err(OrderError::Sign)?),
            OrderIntent::Cancel(i) => SignedOne::Cancel(key.sign(i).map_err(OrderError::Sign)?),
            OrderIntent::Withdraw(_) => return Err(OrderError::NotSessionSigned),
        });
    }
    let mut sent = Vec::with_capacity(signed.len());
    for one in signed {
        sent.push(match one {
            SignedOne::Open(s) => send_signed(http, audit, &s, details.clone()).await,
            SignedOne::Close(s) => {
                let mut out = send_signed(http, audit, &s, details.clone()).await;
                out.closes = s.intent().positionIds.clone();
                out
            }
            SignedOne::Cancel(s) => {
                let mut out = send_signed(http, audit, &s, details.clone()).await;
                // A cancel's outcome is its target's `cancelled`.
                out.watch = s.intent().intentId;
                out
            }
        });
    }
    Ok(sent)
}

/// Send one signed intent once (the owner-signed withdrawal comes straight here).
pub async fn send_signed<I: Intent>(
    http: &ExchangeHttp,
    audit: &AuditLog,
    signed: &Signed<I>,
    details: Value,
) -> Sent {
    let id = signed.intent_id();
    Sent {
        intent_id: id,
        watch: id,
        closes: Vec::new(),
        result: submit(http, audit, signed, details).await,
    }
}
