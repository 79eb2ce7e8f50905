//! Carrying out a confirmed order as a task, so the UI never waits on the network: the one money
//! path (`client::orders`) signs and sends it once; outcomes arrive through the account stream.

use std::path::Path;

use alloy_primitives::Address;
use serde_json::json;
use tokio::sync::mpsc;

use crate::app::{SendFate, SubmitReport, Unanswered};
use crate::client::ExchangeHttp;
use crate::client::intents::Submission;
use crate::client::orders::Trader;
use crate::protocol::eip712::SessionSigner;
use crate::protocol::order::{Deadlines, Order};

/// Sends confirmed orders as tasks; `None` inside when there is no owner to trade for.
pub struct Submitter {
    trader: Option<Trader>,
}

impl Submitter {
    pub fn new(
        http: ExchangeHttp,
        key: SessionSigner,
        owner: Option<Address>,
        data_dir: &Path,
        deadlines: Deadlines,
    ) -> Self {
        Self {
            trader: owner.map(|o| Trader::new(http, data_dir, key, o, deadlines)),
        }
    }

    pub fn spawn(&self, order: Order, what: String, reports: mpsc::Sender<SubmitReport>) {
        let trader = self.trader.clone();
        tokio::spawn(async move {
            let report = match trader {
                Some(trader) => carry_out(&trader, &order, &what).await,
                None => SubmitReport {
                    toasts: vec![("no owner: nothing was signed".into(), true)],
                    ..SubmitReport::default()
                },
            };
            let _ = reports.send(report).await;
        });
    }
}

async fn carry_out(trader: &Trader, order: &Order, what: &str) -> SubmitReport {
    let mut report = SubmitReport::default();
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
    report: &mut SubmitReport,
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
