//! The overlays, over whatever tab is on screen: the confirm dialog, the session-key panel, the
//! help and the message log. Each answers to its own keys only.

use std::time::SystemTime;

use super::super::action::{Action, Key};
use super::super::pane::{Handled, Hint, Pane};
use super::super::state::{App, Dialog as Restated};
use crate::config::keys::Command;

/// The confirm dialog: `y` signs exactly what it restates, `n`/Esc cancels; a close's list
/// scrolls.
pub(super) struct Dialog;

impl Pane for Dialog {
    fn translate(&self, _app: &App, key: Key) -> Option<Action> {
        match key {
            Key::Char('y' | 'Y') => Some(Action::Confirm),
            Key::Char('n' | 'N') | Key::Esc => Some(Action::Escape),
            Key::Up | Key::Char('k') => Some(Action::Up),
            Key::Down | Key::Char('j') => Some(Action::Down),
            _ => None,
        }
    }

    fn update(&self, app: &mut App, action: &Action) -> Handled {
        match action {
            Action::Escape => app.dialog = None,
            Action::Up | Action::Down => {
                let rows = match &app.dialog {
                    Some(Restated::Close { ids }) => ids.len(),
                    _ => 0,
                };
                app.dialog_scroll = if *action == Action::Up {
                    app.dialog_scroll.saturating_sub(1)
                } else {
                    (app.dialog_scroll + 1).min(rows.saturating_sub(1))
                };
            }
            Action::Confirm => return Handled::Consumed(app.confirm_dialog()),
            // A click on a tab does not leave a dialog unanswered.
            Action::Tab(_) => {}
            _ => return Handled::Ignored,
        }
        Handled::Consumed(Vec::new())
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        let mut hints = vec![
            Hint::fixed("Y", "sign and send"),
            Hint::fixed("N/Esc", "cancel"),
        ];
        if matches!(app.dialog, Some(Restated::Close { .. })) {
            hints.push(Hint::fixed("↑↓", "scroll"));
        }
        hints
    }
}

/// The session-key panel: its fields hold paths, passphrases and signatures, so it takes every
/// character.
pub(super) struct KeyPanel;

impl Pane for KeyPanel {
    fn translate(&self, _app: &App, key: Key) -> Option<Action> {
        match key {
            Key::Esc => Some(Action::Escape),
            Key::Enter => Some(Action::Confirm),
            Key::Backspace => Some(Action::Backspace),
            Key::Char(c) => Some(Action::Type(c)),
            _ => None,
        }
    }

    fn takes_text(&self, _app: &App) -> bool {
        true
    }

    fn update(&self, app: &mut App, action: &Action) -> Handled {
        Handled::Consumed(app.key_panel_action(action.clone()))
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        use super::super::key_setup::KeyStep;
        let Some(panel) = &app.key_panel else {
            return Vec::new();
        };
        match panel.step {
            KeyStep::Menu => vec![
                Hint::fixed("n", "new key"),
                Hint::fixed("r", "register: keystore"),
                Hint::fixed("e", "register: external"),
                Hint::fixed("c", "clear"),
                Hint::fixed("Esc", "close"),
            ],
            KeyStep::ConfirmClear => vec![Hint::fixed("y", "remove"), Hint::fixed("n", "keep")],
            KeyStep::Working(_) => vec![Hint::fixed("Esc", "close (it carries on)")],
            _ => vec![Hint::fixed("Enter", "next"), Hint::fixed("Esc", "back")],
        }
    }
}

/// An overlay that answers only to Esc, its own key and quit's key, all of which close it.
fn closes(app: &App, key: Key, own: Command) -> bool {
    match key {
        Key::Esc => true,
        Key::Char(c) => app
            .keymap
            .command_on(c)
            .is_some_and(|cmd| cmd == own || cmd == Command::Quit),
        _ => false,
    }
}

/// The `?` overlay: every key that does something.
pub(super) struct Help;

impl Pane for Help {
    fn translate(&self, app: &App, key: Key) -> Option<Action> {
        closes(app, key, Command::Help).then_some(Action::ToggleHelp)
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        vec![
            Hint::fixed("Esc", "close"),
            Hint::command(app, Command::Help, "close"),
        ]
    }
}

/// The message log: every message of the session with its time.
pub(super) struct Log;

impl Pane for Log {
    fn translate(&self, app: &App, key: Key) -> Option<Action> {
        closes(app, key, Command::Messages).then_some(Action::ToggleLog)
    }

    fn commands(&self, app: &App, _now: SystemTime) -> Vec<Hint> {
        vec![
            Hint::fixed("Esc", "close"),
            Hint::command(app, Command::Messages, "close"),
        ]
    }
}
