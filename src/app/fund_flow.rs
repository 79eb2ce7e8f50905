//! The Fund tab's keys and its jobs' outcomes: a move is typed, reviewed (a deposit's plan
//! read first), signed with the owner's keystore once, then followed until it has arrived.

use std::time::SystemTime;

use crate::protocol::funding::{
    CORE_WEI_PER_USDC_UNIT, MIN_DEPOSIT_USDC, parse_usdc, plan_withdraw, usdc_text,
};
use crate::protocol::units::USDC_TO_WAD;

use super::action::Action;
use super::field::{OwnerUnlock, TextField, Unlock};
use super::fund::{
    CoreSend, FOLLOW_FOR, Following, FundForm, FundJob, FundOutcome, FundReview, FundStep,
};
use super::message::Effect;
use super::state::App;

impl App {
    /// A key on the Fund tab; whether it was one for it.
    pub(crate) fn fund_action(&mut self, action: &Action) -> Option<Vec<Effect>> {
        let step = std::mem::take(&mut self.fund.step);
        let mut effects = Vec::new();
        self.fund.step = match (step, action) {
            (FundStep::Idle, Action::Up | Action::Down) => {
                self.fund.form = match self.fund.form {
                    FundForm::Deposit => FundForm::Withdraw,
                    FundForm::Withdraw => FundForm::Deposit,
                };
                FundStep::Idle
            }
            (FundStep::Idle, Action::FocusMargin) => self.fund_start_typing(),
            (FundStep::Idle, Action::Review) => self.fund_review(&mut effects),
            (FundStep::Idle, _) => return None,
            (FundStep::Amount, typed @ (Action::Type(_) | Action::Backspace)) => {
                TextField::AMOUNT.edit(self.fund.text_mut(), typed);
                FundStep::Amount
            }
            (FundStep::Amount, Action::Escape) => FundStep::Idle,
            (FundStep::Amount, Action::Review | Action::Confirm) => self.fund_review(&mut effects),
            (FundStep::Review(review), Action::Type('y' | 'Y') | Action::Confirm) => {
                FundStep::Owner {
                    review,
                    unlock: OwnerUnlock::start(&self.owner_keystore_path),
                }
            }
            (FundStep::Review(_), Action::Type(_) | Action::Escape) => {
                self.fund.status = Some(("cancelled: nothing was signed".into(), false));
                FundStep::Idle
            }
            (FundStep::Owner { review, mut unlock }, action) => {
                match unlock.update(action, &mut self.owner_keystore_path) {
                    Unlock::Typing => FundStep::Owner { review, unlock },
                    Unlock::Refused(why) => {
                        self.fund.status = Some((why.into(), true));
                        FundStep::Owner { review, unlock }
                    }
                    // Esc drops the path or passphrase (the typed passphrase is wiped).
                    Unlock::Back => FundStep::Review(review),
                    Unlock::Done { path, passphrase } => {
                        self.fund.status = None;
                        effects.push(Effect::Fund(match review.plan {
                            Some(plan) => FundJob::Deposit {
                                plan,
                                path,
                                passphrase,
                            },
                            None => FundJob::Withdraw {
                                amount: review.amount,
                                path,
                                passphrase,
                            },
                        }));
                        FundStep::Sending(review)
                    }
                }
            }
            // Reads and sends run to their answer; a move on its way is followed to its end.
            (step @ (FundStep::Checking | FundStep::Sending(_)), _) => {
                self.fund.step = step;
                return Some(Vec::new());
            }
            (FundStep::Following(f), Action::Escape) => {
                self.fund.status = Some((
                    format!(
                        "no longer waiting on screen for the {} of {} USDC; the account stream and the balances still show it",
                        f.form.name(),
                        usdc_text(f.amount)
                    ),
                    false,
                ));
                FundStep::Idle
            }
            (step @ FundStep::Following(_), _) => {
                self.fund.step = step;
                return None;
            }
            (step, _) => step,
        };
        self.dirty = true;
        Some(effects)
    }

    fn fund_start_typing(&mut self) -> FundStep {
        if !self.mode.can_trade() {
            self.fund.status = Some((
                "watch mode is read-only: balances only, nothing can be signed".into(),
                true,
            ));
            return FundStep::Idle;
        }
        FundStep::Amount
    }

    /// Check the amount of the chosen form; a deposit's plan needs reads, a withdrawal's
    /// review is made from the account the stream holds.
    fn fund_review(&mut self, effects: &mut Vec<Effect>) -> FundStep {
        if !self.mode.can_trade() {
            return self.fund_start_typing();
        }
        let form = self.fund.form;
        let amount = match parse_usdc(self.fund.text(form)) {
            Ok(a) => a,
            Err(why) => {
                self.fund.status = Some((format!("amount {why}"), true));
                return FundStep::Amount;
            }
        };
        match form {
            FundForm::Deposit => {
                if amount < MIN_DEPOSIT_USDC {
                    self.fund.status = Some((
                        format!(
                            "the minimum deposit is {} USDC",
                            usdc_text(MIN_DEPOSIT_USDC)
                        ),
                        true,
                    ));
                    return FundStep::Amount;
                }
                self.fund.status = None;
                effects.push(Effect::Fund(FundJob::CheckDeposit { amount }));
                FundStep::Checking
            }
            FundForm::Withdraw => {
                let Some(account) = &self.account else {
                    self.fund.status = Some((
                        "the account is not read yet: wait for the stream".into(),
                        true,
                    ));
                    return FundStep::Amount;
                };
                let plan = match plan_withdraw(account, amount) {
                    Ok(plan) => plan,
                    Err(why) => {
                        self.fund.status = Some((why.to_string(), true));
                        return FundStep::Amount;
                    }
                };
                let lines = plan.lines(self.wallet.unwrap_or_default());
                self.fund.status = None;
                FundStep::Review(FundReview {
                    form,
                    amount,
                    plan: None,
                    lines,
                })
            }
        }
    }

    /// What a fund job came to.
    pub(crate) fn on_fund_outcome(&mut self, outcome: FundOutcome) -> Vec<Effect> {
        self.dirty = true;
        let owner = self.wallet.unwrap_or_default();
        let step = std::mem::take(&mut self.fund.step);
        let mut effects = Vec::new();
        self.fund.step = match (step, outcome) {
            (FundStep::Checking, FundOutcome::Planned(Ok(plan))) => {
                let lines = plan.lines(owner);
                FundStep::Review(FundReview {
                    form: FundForm::Deposit,
                    amount: plan.amount,
                    plan: Some(plan),
                    lines,
                })
            }
            (FundStep::Checking, FundOutcome::Planned(Err(why)))
            | (FundStep::Checking, FundOutcome::Failed(why)) => {
                self.fund.status = Some((format!("{why}; nothing was signed"), true));
                FundStep::Amount
            }
            (FundStep::Sending(review), FundOutcome::Failed(why)) => {
                self.fund.status = Some((why, true));
                FundStep::Review(review)
            }
            (FundStep::Sending(review), FundOutcome::Deposit(sent)) => {
                // The spotSend moved (or may have moved) HyperCore USDC: show it now.
                self.fund.core.read_again();
                let (text, error, next) = self.deposit_sent(review, sent);
                self.toast(text.clone(), error);
                self.fund.status = Some((text, error));
                next
            }
            (FundStep::Sending(review), FundOutcome::Withdrawal(report, core_before)) => {
                let (text, queued, fates) = self.on_owner_sent(report);
                effects.extend(fates);
                self.fund.status = Some((text, !queued));
                if let Some(core) = core_before {
                    self.fund.core.store(Ok(core), self.clock);
                }
                match (queued, core_before) {
                    (true, Some(core)) => FundStep::Following(Following {
                        form: FundForm::Withdraw,
                        amount: review.amount,
                        since: self.clock,
                        target: core.total_wei + u128::from(review.amount) * CORE_WEI_PER_USDC_UNIT,
                    }),
                    _ => FundStep::Idle,
                }
            }
            // An answer for a step since left (it cannot be: steps with a job in flight stay).
            (step, _) => step,
        };
        effects
    }

    fn deposit_sent(&self, review: FundReview, sent: CoreSend) -> (String, bool, FundStep) {
        let amount = usdc_text(review.amount);
        match sent {
            CoreSend::Accepted => {
                let before = self.account.as_ref().map_or(0, |a| a.lifetime.deposited);
                (
                    format!(
                        "HyperCore accepted the spotSend: waiting for the sweeper to credit {amount} USDC (about a minute)"
                    ),
                    false,
                    FundStep::Following(Following {
                        form: FundForm::Deposit,
                        amount: review.amount,
                        since: self.clock,
                        target: before + u128::from(review.amount) * USDC_TO_WAD,
                    }),
                )
            }
            CoreSend::Refused(why) => (
                format!("HyperCore refused the spotSend of {amount} USDC: {why}; nothing moved"),
                true,
                FundStep::Idle,
            ),
            CoreSend::Unknown(why) => (
                format!(
                    "no answer from Hyperliquid ({why}): the spotSend of {amount} USDC may or may not have moved. \
                     It is NOT sent again: watch the HyperCore spot USDC above and the Papertrade balance"
                ),
                true,
                FundStep::Idle,
            ),
        }
    }

    /// After the account or the HyperCore balance changed, or time passed: whether the move
    /// being followed has arrived, or is given up on screen.
    pub(crate) fn fund_follow(&mut self) {
        let FundStep::Following(f) = &self.fund.step else {
            return;
        };
        let arrived = match f.form {
            FundForm::Deposit => self
                .account
                .as_ref()
                .is_some_and(|a| a.lifetime.deposited >= f.target),
            FundForm::Withdraw => self
                .fund
                .core
                .value
                .is_some_and(|c| c.total_wei >= f.target),
        };
        let amount = usdc_text(f.amount);
        let text = if arrived {
            match f.form {
                FundForm::Deposit => format!("deposit credited: {amount} USDC"),
                FundForm::Withdraw => {
                    format!("withdrawal arrived: {amount} USDC on the HyperCore spot account")
                }
            }
        } else if self
            .clock
            .duration_since(f.since)
            .is_ok_and(|waited| waited >= FOLLOW_FOR)
        {
            match f.form {
                FundForm::Deposit => format!(
                    "not credited within {} min: the {amount} USDC is on the deposit proxy, where the sweeper credits it; do not deposit again until it is",
                    FOLLOW_FOR.as_secs() / 60
                ),
                FundForm::Withdraw => format!(
                    "the {amount} USDC has not reached HyperCore within {} min: the intent's outcome is in the message log (e)",
                    FOLLOW_FOR.as_secs() / 60
                ),
            }
        } else {
            return;
        };
        self.toast(text.clone(), !arrived);
        self.fund.status = Some((text, !arrived));
        self.fund.step = FundStep::Idle;
        self.fund.core.read_again();
        self.dirty = true;
    }

    /// When a followed move is given up on by time alone.
    pub(crate) fn fund_deadline(&self) -> Option<SystemTime> {
        match &self.fund.step {
            FundStep::Following(f) => Some(f.since + FOLLOW_FOR),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Address;

    use std::time::Duration;

    use super::*;
    use crate::app::submission::SubmitOutcome;
    use crate::app::{Message, Mode};
    use crate::events::account::StreamEvent;
    use crate::protocol::account::{AccountState, Frame};
    use crate::protocol::funding::{DepositPlan, SpotUsdc};

    const WAD: u128 = 1_000_000_000_000_000_000;

    /// An account holding `balance` USD, all of it available, that has deposited `deposited`.
    fn account(balance: u128, deposited: u128) -> AccountState {
        let snapshot = format!(
            r#"{{"address":"0x0101010101010101010101010101010101010101","indexedThroughBlock":1,"indexedThroughTimestamp":1,"sessionKeys":[],"walletRevision":1,"queueRevision":"1","balance":"{b}","queued":"0","locked":"0","funds":{{"reservedBalance":"0","reservedQueued":"0","availableBalance":"{b}","availableQueued":"0"}},"queueNodeCount":0,"consumableDebt":"0","paper":{{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"}},"lifetime":{{"depositedRaw":"{d}","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"}},"openPositions":[],"operations":[],"accountRevision":1}}"#,
            b = balance * WAD,
            d = deposited * WAD,
        );
        match Frame::decode(&snapshot).unwrap() {
            Frame::Snapshot(s) => *s,
            Frame::Patch(_) => unreachable!("a snapshot"),
        }
    }

    fn app() -> App {
        let mut app = App::new(Mode::Live, Some(Address::repeat_byte(1)));
        app.clock = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        app.tab = crate::app::Tab::Fund;
        app.handle(Message::Stream(
            StreamEvent::Synced(Box::new(account(100, 100))),
            app.clock,
        ));
        app
    }

    fn press(app: &mut App, a: Action) -> Vec<Effect> {
        app.handle(Message::Action(a))
    }

    fn type_text(app: &mut App, text: &str) {
        for c in text.chars() {
            press(app, Action::Type(c));
        }
    }

    fn plan(amount: u64, fee: u64) -> DepositPlan {
        DepositPlan {
            proxy: Address::repeat_byte(9),
            amount,
            fee,
            debit: amount + fee,
            source_before: 50_000_000,
            source_after: 50_000_000 - amount - fee,
        }
    }

    /// Through the review and the owner's keystore to the one signing job.
    fn to_signing(app: &mut App) -> Vec<Effect> {
        type_text(app, "y");
        type_text(app, "/tmp/owner.json");
        press(app, Action::Confirm);
        type_text(app, "pass");
        press(app, Action::Confirm)
    }

    #[test]
    fn a_deposit_is_planned_reviewed_signed_once_and_followed_until_credited() {
        let mut app = app();
        press(&mut app, Action::FocusMargin);
        type_text(&mut app, "25");
        let asked = press(&mut app, Action::Review);
        assert_eq!(
            asked,
            vec![Effect::Fund(FundJob::CheckDeposit { amount: 25_000_000 })]
        );
        assert!(
            press(&mut app, Action::Type('y')).is_empty(),
            "nothing to confirm while the plan is read"
        );
        app.handle(Message::FundDone(FundOutcome::Planned(Ok(plan(
            25_000_000, 1_000_000,
        )))));
        let FundStep::Review(review) = &app.fund.step else {
            panic!("{:?}", app.fund.step)
        };
        assert!(
            review.lines[1].contains("activation fee 1 USDC"),
            "{review:?}"
        );
        assert!(
            review
                .lines
                .iter()
                .any(|l| l.contains("signed by the owner's wallet")),
            "{review:?}"
        );
        let sent = to_signing(&mut app);
        let [Effect::Fund(FundJob::Deposit { plan: p, path, .. })] = sent.as_slice() else {
            panic!("{sent:?}")
        };
        assert_eq!((p.amount, path.as_str()), (25_000_000, "/tmp/owner.json"));
        assert!(
            press(&mut app, Action::Confirm).is_empty(),
            "a send in flight is not sent again"
        );
        app.handle(Message::FundDone(FundOutcome::Deposit(CoreSend::Accepted)));
        assert!(matches!(app.fund.step, FundStep::Following(_)));
        // The stream moves without the credit: still waiting; with it: credited.
        app.handle(Message::Stream(
            StreamEvent::Synced(Box::new(account(100, 100))),
            app.clock,
        ));
        assert!(matches!(app.fund.step, FundStep::Following(_)));
        let before = app.reads();
        app.handle(Message::Stream(
            StreamEvent::Synced(Box::new(account(125, 125))),
            app.clock,
        ));
        assert!(matches!(app.fund.step, FundStep::Idle));
        assert_eq!(
            app.fund.status,
            Some(("deposit credited: 25 USDC".into(), false))
        );
        // What the HyperCore balance shows moved: it is read again at once.
        let now = app.reads();
        assert!(
            now.iter().any(|r| !before.contains(r)
                && matches!(
                    &r.0,
                    crate::app::reads::Read::Pane {
                        fetch: crate::app::explore::Fetch::CoreBalance(_),
                        ..
                    }
                )),
            "{now:?}"
        );
    }

    #[test]
    fn a_deposit_without_an_answer_is_never_sent_again_and_says_how_to_check() {
        let mut app = app();
        press(&mut app, Action::FocusMargin);
        type_text(&mut app, "10");
        press(&mut app, Action::Review);
        app.handle(Message::FundDone(FundOutcome::Planned(Ok(plan(
            10_000_000, 0,
        )))));
        to_signing(&mut app);
        let after = app.handle(Message::FundDone(FundOutcome::Deposit(CoreSend::Unknown(
            "timed out".into(),
        ))));
        assert!(
            !after.iter().any(|e| matches!(e, Effect::Fund(_))),
            "never sent again: {after:?}"
        );
        assert!(matches!(app.fund.step, FundStep::Idle));
        let (text, error) = app.fund.status.clone().unwrap();
        assert!(error && text.contains("NOT sent again"), "{text}");
        // A follow stops waiting on screen after FOLLOW_FOR, saying where the money is.
        let mut app = self::app();
        app.fund.step = FundStep::Following(Following {
            form: FundForm::Deposit,
            amount: 10_000_000,
            since: app.clock,
            target: u128::MAX,
        });
        assert_eq!(app.fund_deadline(), Some(app.clock + FOLLOW_FOR));
        app.handle(Message::Tick(app.clock + FOLLOW_FOR));
        let (text, _) = app.fund.status.clone().unwrap();
        assert!(text.contains("do not deposit again"), "{text}");
    }

    #[test]
    fn what_would_fail_is_refused_before_anything_is_asked() {
        let mut app = app();
        press(&mut app, Action::FocusMargin);
        type_text(&mut app, "9.99");
        assert!(press(&mut app, Action::Review).is_empty());
        assert!(
            app.fund
                .status
                .as_ref()
                .unwrap()
                .0
                .contains("minimum deposit is 10")
        );
        assert!(
            matches!(app.fund.step, FundStep::Amount),
            "back to the field"
        );
        press(&mut app, Action::Escape);
        press(&mut app, Action::Down);
        press(&mut app, Action::FocusMargin);
        type_text(&mut app, "100.5");
        assert!(press(&mut app, Action::Review).is_empty());
        let (text, error) = app.fund.status.clone().unwrap();
        assert!(error && text.contains("available"), "{text}");
        // A planning read that fails, and a refused plan, say why; nothing is signed.
        press(&mut app, Action::Escape);
        press(&mut app, Action::Up);
        press(&mut app, Action::FocusMargin);
        for _ in 0..4 {
            press(&mut app, Action::Backspace);
        }
        type_text(&mut app, "20");
        press(&mut app, Action::Review);
        app.handle(Message::FundDone(FundOutcome::Planned(Err(
            "the relayer's deposit proxy 0x… is not DepositProxyFactory.computeProxyAddress".into(),
        ))));
        assert!(matches!(app.fund.step, FundStep::Amount));
        assert!(
            app.fund
                .status
                .as_ref()
                .unwrap()
                .0
                .contains("nothing was signed")
        );
    }

    #[test]
    fn a_withdrawal_signs_only_after_the_passphrase_and_follows_hypercore() {
        let mut app = app();
        app.fund.core.value = Some(SpotUsdc {
            total_wei: 5 * 100_000_000,
            hold_wei: 0,
        });
        press(&mut app, Action::Down);
        press(&mut app, Action::FocusMargin);
        type_text(&mut app, "40");
        assert!(press(&mut app, Action::Review).is_empty());
        type_text(&mut app, "y");
        type_text(&mut app, "/tmp/owner.json");
        press(&mut app, Action::Confirm);
        type_text(&mut app, "wrong");
        // Esc drops the typed passphrase and goes back to the review.
        press(&mut app, Action::Escape);
        assert!(matches!(app.fund.step, FundStep::Review(_)));
        let sent = to_signing(&mut app);
        assert!(
            matches!(
                sent.as_slice(),
                [Effect::Fund(FundJob::Withdraw {
                    amount: 40_000_000,
                    ..
                })]
            ),
            "{sent:?}"
        );
        // A wrong passphrase comes back as a failure: to the review, nothing sent.
        app.handle(Message::FundDone(FundOutcome::Failed(
            "owner keystore: wrong passphrase".into(),
        )));
        assert!(matches!(app.fund.step, FundStep::Review(_)));
        to_signing(&mut app);
        let id = alloy_primitives::B256::repeat_byte(4);
        app.handle(Message::FundDone(FundOutcome::Withdrawal(
            SubmitOutcome {
                tracked: vec![id],
                toasts: vec![("withdraw 40 USDC: queued".into(), false)],
                ..SubmitOutcome::default()
            },
            Some(SpotUsdc {
                total_wei: 5 * 100_000_000,
                hold_wei: 0,
            }),
        )));
        let FundStep::Following(f) = &app.fund.step else {
            panic!("{:?}", app.fund.step)
        };
        assert_eq!(f.target, 45 * 100_000_000, "5 + 40 USDC in HyperCore wei");
        assert!(app.fund.following_core());
        app.fund.core.value = Some(SpotUsdc {
            total_wei: 45 * 100_000_000,
            hold_wei: 0,
        });
        app.handle(Message::Tick(app.clock));
        assert!(matches!(app.fund.step, FundStep::Idle));
        assert!(
            app.fund
                .status
                .as_ref()
                .unwrap()
                .0
                .contains("withdrawal arrived")
        );
    }

    #[test]
    fn watch_mode_shows_balances_and_signs_nothing() {
        let mut app = App::new(Mode::Watch, Some(Address::repeat_byte(1)));
        app.tab = crate::app::Tab::Fund;
        press(&mut app, Action::FocusMargin);
        assert!(press(&mut app, Action::Review).is_empty());
        assert!(matches!(app.fund.step, FundStep::Idle));
        assert!(app.fund.status.as_ref().unwrap().0.contains("read-only"));
    }
}
