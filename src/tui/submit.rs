//! Carrying out a confirmed order as a task, so the UI never waits on the network: the one money
//! path (`client::orders`) signs and sends it once; outcomes arrive through the account stream.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use alloy_primitives::Address;
use serde_json::json;
use tokio::sync::mpsc;

use crate::app::{Message, SendFate, SubmitOutcome, Unanswered};
use crate::client::ExchangeHttp;
use crate::client::intents::Submission;
use crate::client::orders::Trader;
use crate::protocol::eip712::SessionSigner;
use crate::protocol::order::{Deadlines, Order};

/// Sends confirmed orders as tasks, signed with the session key this session has now: the key
/// panel's worker swaps it (a new key, a cleared one) before the app hears of the change, so
/// the next order is signed with what the screen says.
#[derive(Clone)]
pub struct Submitter {
    http: ExchangeHttp,
    data_dir: PathBuf,
    owner: Option<Address>,
    deadlines: Deadlines,
    signing: Arc<Mutex<Signing>>,
}

enum Signing {
    NoKey,
    NoOwner,
    Ready(Box<Trader>),
}

impl Submitter {
    pub fn new(
        http: ExchangeHttp,
        key: Option<SessionSigner>,
        owner: Option<Address>,
        data_dir: &Path,
        deadlines: Deadlines,
    ) -> Self {
        let submitter = Self {
            http,
            data_dir: data_dir.to_path_buf(),
            owner,
            deadlines,
            signing: Arc::new(Mutex::new(Signing::NoKey)),
        };
        submitter.use_key(key);
        submitter
    }

    /// Sign from now on with `key` (`None`: nothing can be signed).
    pub fn use_key(&self, key: Option<SessionSigner>) {
        let signing = match (key, self.owner) {
            (None, _) => Signing::NoKey,
            (Some(_), None) => Signing::NoOwner,
            (Some(key), Some(owner)) => Signing::Ready(Box::new(Trader::new(
                self.http.clone(),
                &self.data_dir,
                key,
                owner,
                self.deadlines,
            ))),
        };
        *self.signing.lock().expect("signing lock") = signing;
    }

    /// Carry `order` out as a task; what it came to arrives as `Message::Submitted`.
    pub fn spawn(&self, order: Order, what: String, inbox: mpsc::Sender<Message>) {
        let trader = match &*self.signing.lock().expect("signing lock") {
            Signing::NoKey => Err("no session key in this session: nothing was signed"),
            Signing::NoOwner => Err("no owner: nothing was signed"),
            Signing::Ready(trader) => Ok(Trader::clone(trader)),
        };
        let trader = match trader {
            Ok(trader) => trader,
            Err(why) => {
                let report = SubmitOutcome {
                    toasts: vec![(why.into(), true)],
                    ..SubmitOutcome::default()
                };
                let _ = inbox.try_send(Message::Submitted(report));
                return;
            }
        };
        tokio::spawn(async move {
            let report = carry_out(&trader, &order, &what).await;
            let _ = inbox.send(Message::Submitted(report)).await;
        });
    }
}

async fn carry_out(trader: &Trader, order: &Order, what: &str) -> SubmitOutcome {
    let mut report = SubmitOutcome::default();
    let sent = match trader.send(order, json!({"via": "tui"})).await {
        Ok(sent) => sent,
        Err(e) => {
            report.toasts.push((e.to_string(), true));
            report.unanswered.push(Unanswered {
                intent_id: None,
                what: what.to_string(),
                fate: SendFate::NotSent,
            });
            return report;
        }
    };
    let batches = sent.len();
    for one in sent {
        let what = if batches > 1 {
            format!("{what} (batch of {})", one.closes.len())
        } else {
            what.to_string()
        };
        if one.may_be_queued() {
            report.tracked.push(one.watch);
            if !one.closes.is_empty() {
                report.closes.push((one.intent_id, one.closes.clone()));
            }
        }
        record_send(&mut report, what, one.intent_id, &one.result);
    }
    report
}

/// One send's lines: the message log's (queued, refused with the exchange's reason, no answer:
/// watched on the stream and never resent, or not sent), and a Pending row unless it was queued.
pub(super) fn record_send<E: std::fmt::Display>(
    report: &mut SubmitOutcome,
    what: String,
    id: alloy_primitives::B256,
    result: &Result<Submission, E>,
) {
    let (toast, fate) = match result {
        Ok(Submission::Accepted(_)) => ((format!("{what}: queued ({id:#x})"), false), None),
        Ok(Submission::Unknown { reason }) => (
            (
                format!("{what}: no answer ({reason}); watching the stream, not resending"),
                true,
            ),
            Some(SendFate::NoAnswer),
        ),
        Ok(Submission::Refused { code, message, .. }) => {
            let text = crate::protocol::relayer::explain_refusal(code, message);
            (
                (format!("{what} refused ({code}): {text}"), true),
                Some(SendFate::Refused(code.clone())),
            )
        }
        Err(e) => ((format!("{what}: {e}"), true), Some(SendFate::NotSent)),
    };
    report.toasts.push(toast);
    if let Some(fate) = fate {
        report.unanswered.push(Unanswered {
            intent_id: Some(id),
            what,
            fate,
        });
    }
}
