//! The Leaders tab: the exchange's leaderboard, any window, sort and search.

use std::time::{Duration, SystemTime};

use super::super::action::Action;
use super::super::explore::{Fetch, LEADERBOARD_REFRESH};
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::App;
use crate::config::keys::Command;

pub(super) struct Leaders;

impl Pane for Leaders {
    /// The board at its window, sort, search and page.
    fn read(&self, app: &App) -> Option<(Fetch, Duration)> {
        let request = app.explore.leaders.request();
        Some((Fetch::Leaderboard(request), LEADERBOARD_REFRESH))
    }

    fn update(&self, app: &mut App, action: &Action) -> Handled {
        Handled::taken(app.explore_action(action))
    }

    fn takes_text(&self, app: &App) -> bool {
        app.explore.leaders.search.typing
    }

    /// The margin key searches here.
    fn command(&self, _app: &App, command: Command) -> Action {
        match command {
            Command::Margin => Action::Search,
            _ => command.action(),
        }
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        if app.explore.leaders.search.typing {
            return vec![
                Hint::fixed("Enter", "search"),
                Hint::fixed("Esc", "stop typing"),
            ];
        }
        let mut out = vec![
            Hint::fixed("⏎", "open"),
            Hint::command(app, Command::Margin, "search"),
            Hint::command(app, Command::Window, "window"),
            Hint::command(app, Command::Sort, "sort"),
            Hint::command(app, Command::Reverse, "reverse"),
            Hint::fixed("PgDn/Up", "page"),
        ];
        if app.explore.leaders.query.is_some() {
            out.push(Hint::fixed("Esc", "clear search"));
        }
        out
    }
}
