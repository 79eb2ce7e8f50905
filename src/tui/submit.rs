//! Carrying out a confirmed dialog: sign with the session key, send once, report back. Runs as
//! a task so the UI never waits on the network; outcomes arrive through the account stream.

use std::path::Path;

use alloy_primitives::{Address, B256, U256};
use serde_json::json;
use tokio::sync::mpsc;

use crate::app::Dialog;
use crate::client::ExchangeHttp;
use crate::client::intents::{Submission, submit};
use crate::client::ledger::{AuditLog, NonceStore, now_unix_s};
use crate::protocol::eip712::{
    CancelIntent, Close, Intent, MAX_CLOSE_IDS, NonceLane, OpenPosition, SessionSigner, Signed,
};

/// What a submission produced: ids to track and lines to show.
#[derive(Debug, Default)]
pub struct SubmitReport {
    pub tracked: Vec<B256>,
    /// Close intents and the positions each closes (evidence after a resync).
    pub closes: Vec<(B256, Vec<U256>)>,
    pub toasts: Vec<(String, bool)>,
}

const INTENT_TTL_SECS: u64 = 3600;

pub struct Submitter {
    http: ExchangeHttp,
    key: SessionSigner,
    owner: Option<Address>,
    nonces: std::sync::Arc<NonceStore>,
    audit: std::sync::Arc<AuditLog>,
}

impl Submitter {
    pub fn new(
        http: ExchangeHttp,
        key: SessionSigner,
        owner: Option<Address>,
        data_dir: &Path,
    ) -> Self {
        Self {
            http,
            key,
            owner,
            nonces: std::sync::Arc::new(NonceStore::new(data_dir)),
            audit: std::sync::Arc::new(AuditLog::new(data_dir)),
        }
    }

    pub fn spawn(&self, dialog: Dialog, reports: mpsc::Sender<SubmitReport>) {
        let http = self.http.clone();
        let key = self.key.clone();
        let owner = self.owner;
        let nonces = self.nonces.clone();
        let audit = self.audit.clone();
        tokio::spawn(async move {
            let report = match owner {
                Some(owner) => carry_out(&http, &key, owner, &nonces, &audit, dialog).await,
                None => SubmitReport {
                    toasts: vec![("no owner: nothing was signed".into(), true)],
                    ..SubmitReport::default()
                },
            };
            let _ = reports.send(report).await;
        });
    }
}

async fn send_one<I: Intent>(
    http: &ExchangeHttp,
    audit: &AuditLog,
    signed: Signed<I>,
    what: &str,
    report: &mut SubmitReport,
) {
    let id = signed.intent_id();
    match submit(http, audit, &signed, json!({"via": "tui"})).await {
        Ok(Submission::Accepted(_)) => {
            report.tracked.push(id);
            report
                .toasts
                .push((format!("{what}: queued ({:#x})", id), false));
        }
        Ok(Submission::Unknown { reason }) => {
            report.tracked.push(id);
            report.toasts.push((
                format!("{what}: no answer ({reason}); watching the stream, not resending"),
                true,
            ));
        }
        Ok(Submission::Refused { code, message, .. }) => {
            let hint = crate::protocol::relayer::refusal_hint(&code)
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            report
                .toasts
                .push((format!("{what} refused ({code}): {message}{hint}"), true))
        }
        Err(e) => report.toasts.push((format!("{what}: {e}"), true)),
    }
}

async fn carry_out(
    http: &ExchangeHttp,
    key: &SessionSigner,
    owner: Address,
    nonces: &NonceStore,
    audit: &AuditLog,
    dialog: Dialog,
) -> SubmitReport {
    let mut report = SubmitReport::default();
    let deadline = now_unix_s() + INTENT_TTL_SECS;
    let nonce = |report: &mut SubmitReport| match nonces.next(owner, NonceLane::Exchange) {
        Ok(n) => Some(n),
        Err(e) => {
            report
                .toasts
                .push((format!("nonce store: {e}; nothing was signed"), true));
            None
        }
    };
    match dialog {
        Dialog::Open {
            instrument_id,
            symbol,
            is_long,
            margin,
            leverage,
            use_debt,
            ..
        } => {
            let Some(nonce) = nonce(&mut report) else {
                return report;
            };
            let intent = OpenPosition {
                user: owner,
                instrumentId: instrument_id,
                isLong: is_long,
                size: margin,
                leverage,
                useDebt: use_debt,
                nonce,
                deadline,
            };
            match key.sign(intent) {
                Ok(s) => {
                    send_one(
                        http,
                        audit,
                        s,
                        &format!("open {symbol} {leverage}x"),
                        &mut report,
                    )
                    .await
                }
                Err(e) => report.toasts.push((format!("signing failed: {e}"), true)),
            }
        }
        Dialog::Close { ids } => {
            for batch in ids.chunks(MAX_CLOSE_IDS) {
                let Some(nonce) = nonce(&mut report) else {
                    return report;
                };
                let intent = Close {
                    user: owner,
                    positionIds: batch.to_vec(),
                    nonce,
                    deadline,
                };
                match key.sign(intent) {
                    Ok(s) => {
                        let id = s.intent_id();
                        send_one(
                            http,
                            audit,
                            s,
                            &format!("close {} position(s)", batch.len()),
                            &mut report,
                        )
                        .await;
                        if report.tracked.contains(&id) {
                            report.closes.push((id, batch.to_vec()));
                        }
                    }
                    Err(e) => report.toasts.push((format!("signing failed: {e}"), true)),
                }
            }
        }
        Dialog::Cancel { intent_id, .. } => {
            let intent = CancelIntent {
                user: owner,
                intentId: intent_id,
                deadline: U256::from(deadline),
            };
            match key.sign(intent) {
                Ok(s) => {
                    // A cancel's outcome is the target's `cancelled`.
                    send_one(http, audit, s, "cancel", &mut report).await;
                    if !report.tracked.is_empty() {
                        report.tracked = vec![intent_id];
                    }
                }
                Err(e) => report.toasts.push((format!("signing failed: {e}"), true)),
            }
        }
    }
    report
}
