//! The Positions tab: the open positions (marked, closed) and below them the pending intents
//! (cancelled); the cursor moves from one list into the other.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::super::action::Action;
use super::super::pane::{Hint, Pane};
use super::super::state::App;
use crate::config::keys::Command;

pub(super) struct Positions;

impl Pane for Positions {
    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        if app.pending_focus {
            return vec![
                Hint::fixed("↑↓", "move"),
                Hint::command(app, Command::Close, "cancel the intent"),
            ];
        }
        vec![
            Hint::fixed("↑↓", "move"),
            Hint::command(app, Command::Mark, "mark"),
            Hint::command(app, Command::Close, "close"),
        ]
    }

    /// The close key cancels when the cursor is in the pending list.
    fn command(&self, app: &App, command: Command) -> Action {
        match command {
            Command::Close if app.pending_focus => Action::CancelPending,
            _ => command.action(),
        }
    }

    /// A pending intent's age and deadline count in seconds.
    fn wake(&self, app: &App, after: SystemTime) -> Option<SystemTime> {
        app.account
            .as_ref()
            .is_some_and(|a| !a.operations.is_empty())
            .then(|| UNIX_EPOCH + Duration::from_secs(crate::clock::unix_s(after) + 1))
    }
}
