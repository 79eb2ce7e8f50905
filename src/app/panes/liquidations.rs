//! The Liquidations tab: the bust map and the positions closest to bust over a scan.

use std::time::{Duration, SystemTime};

use super::super::action::Action;
use super::super::explore::{Fetch, SCAN_REFRESH};
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::App;
use crate::config::keys::Command;

pub(super) struct Liquidations;

impl Pane for Liquidations {
    /// The scan of the largest wallets, as many as the seed says.
    fn read(&self, app: &App) -> Option<(Fetch, Duration)> {
        let wallets = app.explore.liquidations.wallets;
        Some((Fetch::Scan { wallets }, SCAN_REFRESH))
    }

    fn update(&self, app: &mut App, action: &Action) -> Handled {
        Handled::taken(app.explore_action(action))
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        vec![
            Hint::fixed("↑↓", "closest"),
            Hint::command(app, Command::Market, "market"),
            Hint::command(app, Command::CascadeUp, "cascade +1%"),
            Hint::command(app, Command::CascadeDown, "−1%"),
        ]
    }
}
