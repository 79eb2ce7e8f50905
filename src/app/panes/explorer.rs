//! The Explorer tab: any wallet, read-only, or a lookup of an intent or a position.

use std::time::{Duration, SystemTime};

use super::super::action::Action;
use super::super::explore::{Fetch, WALLET_REFRESH};
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::App;
use crate::config::keys::Command;

pub(super) struct Explorer;

impl Pane for Explorer {
    /// The wallet shown, once there is one.
    fn read(&self, app: &App) -> Option<(Fetch, Duration)> {
        let wallet = app.explore.explorer.wallet?;
        Some((Fetch::Wallet(wallet), WALLET_REFRESH))
    }

    fn update(&self, app: &mut App, action: &Action) -> Handled {
        Handled::taken(app.explore_action(action))
    }

    fn takes_text(&self, app: &App) -> bool {
        app.explore.explorer.input.typing
    }

    /// The margin key types a wallet (or a lookup) here.
    fn command(&self, _app: &App, command: Command) -> Action {
        match command {
            Command::Margin => Action::Search,
            _ => command.action(),
        }
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        if app.explore.explorer.input.typing {
            return vec![
                Hint::fixed("Enter", "open"),
                Hint::fixed("Esc", "stop typing"),
            ];
        }
        if app.explore.explorer.found.is_some() {
            return vec![
                Hint::fixed("⏎", "open its wallet"),
                Hint::fixed("Esc", "back"),
                Hint::command(app, Command::Margin, "look up"),
            ];
        }
        let x = &app.explore.explorer;
        let mut out = Vec::new();
        if x.wallet.is_some() {
            out.push(Hint::fixed("↑↓", "move"));
        } else if !app.recent_trades.is_empty() {
            out.extend([Hint::fixed("↑↓", "move"), Hint::fixed("⏎", "open")]);
        }
        out.push(Hint::command(app, Command::Margin, "wallet"));
        out
    }
}
