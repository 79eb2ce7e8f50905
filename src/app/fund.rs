//! The Fund tab: the owner's HyperCore spot USDC beside the Papertrade balance, and the two
//! ways money moves between them (§7). A deposit is the owner's `spotSend` to their deposit
//! proxy, credited by the relayer's sweeper; a withdrawal the owner's `WithdrawToCore` intent,
//! paid to their own HyperCore spot account. Both are signed by the OWNER's wallet (its keystore
//! file), never by the session key, and only after a review that restates exactly what is
//! signed. Each is then followed to the end: the account stream for a deposit's credit, the
//! HyperCore balance for a withdrawal's arrival. Nothing is ever sent twice.
//!
//! Pure: the runtime does the reads and the signing (`tui::fund`) and answers with
//! [`FundOutcome`]. This file holds the state; `fund_flow` the keys and the outcomes.

use std::time::{Duration, SystemTime};

use crate::keys::Passphrase;
use crate::protocol::funding::{DepositPlan, SpotUsdc};

use super::explore::Loaded;
use super::submission::SubmitOutcome;

/// How long a deposit's credit or a withdrawal's arrival is waited for before the pane says
/// where the money is and how to check (the sweeper takes about a minute).
pub const FOLLOW_FOR: Duration = Duration::from_secs(300);

/// Which way the money goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FundForm {
    #[default]
    Deposit,
    Withdraw,
}

impl FundForm {
    pub fn name(self) -> &'static str {
        match self {
            FundForm::Deposit => "deposit",
            FundForm::Withdraw => "withdraw",
        }
    }
}

/// What the review restates, and what a confirmation will sign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FundReview {
    pub form: FundForm,
    /// USDC at 6 decimals.
    pub amount: u64,
    /// A deposit's plan (proxy verified, fee known); `None` for a withdrawal.
    pub plan: Option<DepositPlan>,
    pub lines: Vec<String>,
}

/// A move on its way: what arrives, where, and since when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Following {
    pub form: FundForm,
    pub amount: u64,
    pub since: SystemTime,
    /// Deposit: the lifetime deposits (wad) that mean credited; withdrawal: the HyperCore
    /// spot total (wei) that means arrived.
    pub target: u128,
}

/// Where the tab is.
#[derive(Debug, Default)]
pub enum FundStep {
    #[default]
    Idle,
    /// Typing the amount of the chosen form.
    Amount,
    /// A deposit's reads (proxy, its verification, balances) in flight.
    Checking,
    Review(FundReview),
    /// The owner's keystore: its path, then its passphrase.
    Owner {
        review: FundReview,
        unlock: super::key_setup::OwnerUnlock,
    },
    /// Signed and being sent, once.
    Sending(FundReview),
    Following(Following),
}

/// The tab's state.
#[derive(Debug, Default)]
pub struct FundPane {
    pub form: FundForm,
    pub deposit_text: String,
    pub withdraw_text: String,
    pub step: FundStep,
    /// The last result or refusal, and whether it is an error.
    pub status: Option<(String, bool)>,
    /// The owner's HyperCore spot USDC.
    pub core: Loaded<SpotUsdc>,
}

/// What the runtime is asked to do. Not `Clone`: it may carry the typed passphrase.
#[derive(Debug, PartialEq, Eq)]
pub enum FundJob {
    /// Ask for the deposit proxy, verify it on HyperEVM, read the balances, plan.
    CheckDeposit { amount: u64 },
    /// Sign the planned spotSend with the owner's keystore and post it once.
    Deposit {
        plan: DepositPlan,
        path: String,
        passphrase: Passphrase,
    },
    /// Sign a WithdrawToCore with the owner's keystore and send it once.
    Withdraw {
        amount: u64,
        path: String,
        passphrase: Passphrase,
    },
}

/// What became of a posted spotSend (the client's answer, for the app).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoreSend {
    Accepted,
    Refused(String),
    /// No readable answer: it may have been applied. Never resent.
    Unknown(String),
}

/// What a [`FundJob`] came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FundOutcome {
    Planned(Result<DepositPlan, String>),
    Deposit(CoreSend),
    /// The send's report, and the HyperCore balance read just before it was signed: the
    /// arrival is measured from that, not from an older reading.
    Withdrawal(SubmitOutcome, Option<SpotUsdc>),
    /// Nothing was signed or sent (a wrong passphrase, another wallet's keystore, a read
    /// that failed): back to the review.
    Failed(String),
}

impl FundPane {
    pub(super) fn text_mut(&mut self) -> &mut String {
        match self.form {
            FundForm::Deposit => &mut self.deposit_text,
            FundForm::Withdraw => &mut self.withdraw_text,
        }
    }

    pub fn text(&self, form: FundForm) -> &str {
        match form {
            FundForm::Deposit => &self.deposit_text,
            FundForm::Withdraw => &self.withdraw_text,
        }
    }

    /// Whether the tab takes every character now (an amount, a path, a passphrase, y/n).
    pub fn takes_text(&self) -> bool {
        matches!(
            self.step,
            FundStep::Amount | FundStep::Review(_) | FundStep::Owner { .. }
        )
    }

    /// A read the tab wants sooner than its usual refresh: a withdrawal's arrival.
    pub fn following_core(&self) -> bool {
        matches!(&self.step, FundStep::Following(f) if f.form == FundForm::Withdraw)
    }
}
