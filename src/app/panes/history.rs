//! The History tab: every close of this wallet this machine has seen, a cursor over them.

use std::time::SystemTime;

use super::super::action::Action;
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::App;

pub(super) struct History;

impl Pane for History {
    fn update(&self, app: &mut App, action: &Action) -> Handled {
        match action {
            Action::Up => app.move_history_cursor(-1),
            Action::Down => app.move_history_cursor(1),
            _ => return Handled::Ignored,
        }
        Handled::Consumed(Vec::new())
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        if app.history.is_empty() {
            Vec::new()
        } else {
            vec![Hint::fixed("↑↓", "scroll")]
        }
    }
}
