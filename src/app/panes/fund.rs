//! The Fund tab: HyperCore and Papertrade balances; deposit and withdraw with the owner's
//! wallet, each restated before the owner's keystore signs it.

use std::time::{Duration, SystemTime};

use super::super::action::Action;
use super::super::explore::{CORE_FOLLOW_REFRESH, CORE_REFRESH, Fetch};
use super::super::fund::FundStep;
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::App;
use crate::config::keys::Command;

pub(super) struct Fund;

impl Pane for Fund {
    /// The session wallet's HyperCore balance; often while a move is followed there.
    fn read(&self, app: &App) -> Option<(Fetch, Duration)> {
        let wallet = app.wallet?;
        let every = if app.fund.following_core() {
            CORE_FOLLOW_REFRESH
        } else {
            CORE_REFRESH
        };
        Some((Fetch::CoreBalance(wallet), every))
    }

    fn update(&self, app: &mut App, action: &Action) -> Handled {
        match app.fund_action(action) {
            Some(effects) => Handled::Consumed(effects),
            None => Handled::Ignored,
        }
    }

    fn takes_text(&self, app: &App) -> bool {
        app.fund.takes_text()
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        match &app.fund.step {
            FundStep::Amount => vec![
                Hint::fixed("Enter", "review"),
                Hint::fixed("Esc", "leave the field"),
            ],
            FundStep::Review(_) => vec![Hint::fixed("y", "sign"), Hint::fixed("n", "cancel")],
            FundStep::Owner { .. } => {
                vec![Hint::fixed("Enter", "next"), Hint::fixed("Esc", "back")]
            }
            FundStep::Following(_) => vec![Hint::fixed("Esc", "stop waiting here")],
            FundStep::Checking | FundStep::Sending(_) => Vec::new(),
            FundStep::Idle if !app.mode.can_trade() => Vec::new(),
            FundStep::Idle => vec![
                Hint::fixed("↑↓", "deposit/withdraw"),
                Hint::command(app, Command::Margin, "amount"),
                Hint::fixed("Enter", "review"),
            ],
        }
    }
}
