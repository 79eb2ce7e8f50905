//! Carrying out the Fund tab's jobs off the UI loop: a deposit's reads and plan
//! (`client::funding`), and the owner-signed sends — the HyperCore `spotSend` posted once to
//! Hyperliquid's `/exchange`, the `WithdrawToCore` intent sent once to the relayer. The owner's
//! keystore is unlocked on a blocking thread and its passphrase dropped (wiped) with the job;
//! the session key is never used here.

use std::path::{Path, PathBuf};

use alloy_primitives::Address;
use tokio::sync::mpsc;

use crate::app::fund::{CoreSend, FundJob, FundOutcome};
use crate::app::{Message, SubmitOutcome};
use crate::client::ExchangeHttp;
use crate::client::funding::{
    DepositAudit, DepositCheckError, SpotSendResult, send_deposit, send_withdraw, withdraw_intent,
};
use crate::clock::now_unix_ms;
use crate::keys::Passphrase;
use crate::protocol::funding::{DepositPlan, SpotUsdc, plan_deposit};
use crate::protocol::hypercore_send::SpotSend;
use crate::protocol::order::Deadlines;

use super::key_setup::unlock_owner;
use super::submit::record_send;

#[derive(Clone)]
pub struct FundWorker {
    http: ExchangeHttp,
    data_dir: PathBuf,
    owner: Address,
    deadlines: Deadlines,
}

impl FundWorker {
    pub fn new(http: ExchangeHttp, data_dir: &Path, owner: Address, deadlines: Deadlines) -> Self {
        Self {
            http,
            data_dir: data_dir.to_path_buf(),
            owner,
            deadlines,
        }
    }

    /// Carry `job` out as a task; what it came to arrives as `Message::FundDone`.
    pub fn spawn(&self, job: FundJob, inbox: mpsc::Sender<Message>) {
        let worker = self.clone();
        tokio::spawn(async move {
            let outcome = worker.run(job).await;
            let _ = inbox.send(Message::FundDone(outcome)).await;
        });
    }

    async fn run(&self, job: FundJob) -> FundOutcome {
        match job {
            FundJob::CheckDeposit { amount } => FundOutcome::Planned(self.plan(amount).await),
            FundJob::Deposit {
                plan,
                path,
                passphrase,
            } => match self.deposit(plan, &path, passphrase).await {
                Ok(sent) => FundOutcome::Deposit(sent),
                Err(why) => FundOutcome::Failed(why),
            },
            FundJob::Withdraw {
                amount,
                path,
                passphrase,
            } => match self.withdraw(amount, &path, passphrase).await {
                Ok((report, core_before)) => FundOutcome::Withdrawal(report, core_before),
                Err(why) => FundOutcome::Failed(why),
            },
        }
    }

    /// The deposit proxy asked of the relayer and verified on HyperEVM, the balances read, the
    /// plan made (or the reason it would fail).
    async fn plan(&self, amount: u64) -> Result<DepositPlan, String> {
        self.http.exchange_url()?;
        let inputs = self
            .http
            .deposit_inputs(self.owner, amount)
            .await
            .map_err(|e| match e {
                DepositCheckError::Fetch(f) => format!("cannot plan the deposit: {f}"),
                mismatch @ DepositCheckError::ProxyMismatch { .. } => mismatch.to_string(),
            })?;
        plan_deposit(inputs).map_err(|r| r.to_string())
    }

    async fn deposit(
        &self,
        plan: DepositPlan,
        path: &str,
        passphrase: Passphrase,
    ) -> Result<CoreSend, String> {
        let wallet = unlock_owner(path, passphrase, self.owner).await?;
        let send = SpotSend::usdc(plan.proxy, plan.amount, now_unix_ms());
        let signed = wallet
            .sign_spot_send(send)
            .map_err(|e| format!("signing failed: {e}; nothing was sent"))?;
        let audit = DepositAudit::new(&self.data_dir, &plan, signed.send().time, "tui");
        let (result, logged) = send_deposit(&self.http, &audit, &signed).await;
        if let Err(e) = logged {
            tracing::warn!(error = %e, "the audit log could not be written");
        }
        Ok(match result {
            SpotSendResult::Accepted => CoreSend::Accepted,
            SpotSendResult::Refused(why) => CoreSend::Refused(why),
            SpotSendResult::Unknown(why) => CoreSend::Unknown(why),
        })
    }

    async fn withdraw(
        &self,
        amount: u64,
        path: &str,
        passphrase: Passphrase,
    ) -> Result<(SubmitOutcome, Option<SpotUsdc>), String> {
        let wallet = unlock_owner(path, passphrase, self.owner).await?;
        let intent = withdraw_intent(&self.data_dir, self.owner, amount, self.deadlines)
            .map_err(|e| format!("nonce store: {e}; nothing was signed"))?;
        let signed = wallet
            .sign(intent)
            .map_err(|e| format!("signing failed: {e}; nothing was sent"))?;
        // The arrival is measured from the balance just before the send.
        let (one, core_before) =
            send_withdraw(&self.http, &self.data_dir, &signed, Some("tui")).await;
        let mut report = SubmitOutcome::default();
        if one.may_be_queued() {
            report.tracked.push(one.watch);
        }
        let what = format!(
            "withdraw {} USDC",
            crate::protocol::funding::usdc_text(amount)
        );
        record_send(&mut report, what, one.intent_id, &one.result);
        Ok((report, core_before))
    }
}
