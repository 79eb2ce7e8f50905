//! The Protocol tab: the exchange's overview, markets, relayer and notices, and its history
//! series (the chart key cycles their interval here).

use std::time::{Duration, SystemTime};

use super::super::action::Action;
use super::super::explore::{Fetch, SERIES_REFRESH};
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::App;
use crate::config::keys::Command;

pub(super) struct Protocol;

impl Pane for Protocol {
    /// The protocol's history at the chart's interval.
    fn read(&self, app: &App) -> Option<(Fetch, Duration)> {
        let interval = app.explore.series.interval;
        Some((Fetch::ProtocolHistory { interval }, SERIES_REFRESH))
    }

    fn update(&self, app: &mut App, action: &Action) -> Handled {
        Handled::taken(app.explore_action(action))
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        vec![Hint::command(app, Command::Chart, "history interval")]
    }
}
