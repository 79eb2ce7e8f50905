//! What every pane of the UI is to the app: the actions it takes, the commands it offers (the
//! hint bar and the `?` overlay read exactly these), whether it takes text, and when time alone
//! changes it. `App::update` (in `panes`) decides once which pane has the keyboard, turns a key
//! into that pane's action, hands it the action, and applies what the pane leaves (quit, the
//! tabs, the commands that work anywhere).

use std::time::{Duration, SystemTime};

use super::action::{Action, Key};
use super::explore::Fetch;
use super::message::Effect;
use super::state::App;
use crate::config::keys::Command;

/// One entry of the hint bar or the help: the key as a person reads it, and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub key: String,
    pub what: &'static str,
}

impl Hint {
    pub(crate) fn fixed(key: &str, what: &'static str) -> Self {
        Self {
            key: key.to_string(),
            what,
        }
    }

    /// A remappable command on whatever key the keymap puts it.
    pub(crate) fn command(app: &App, command: Command, what: &'static str) -> Self {
        Self {
            key: app.keymap.key_of(command),
            what,
        }
    }
}

/// What a pane did with an action.
#[derive(Debug)]
pub(crate) enum Handled {
    /// Taken, with the effects the runtime must carry out.
    Consumed(Vec<Effect>),
    /// Not this pane's: the app applies it as a command that works anywhere.
    Ignored,
}

impl Handled {
    /// Consumed with no effects, or ignored.
    pub(crate) fn taken(taken: bool) -> Self {
        if taken {
            Handled::Consumed(Vec::new())
        } else {
            Handled::Ignored
        }
    }
}

/// A pane (or an overlay) of the UI. Stateless: its state lives in `App`, which it is given.
pub(crate) trait Pane: Sync {
    /// Apply an action meant for this pane.
    fn update(&self, _app: &mut App, _action: &Action) -> Handled {
        Handled::Ignored
    }

    /// The keys this pane answers to now (the hint bar shows them, then the ones that work
    /// anywhere unless the pane takes text).
    fn commands(&self, app: &App, now: SystemTime) -> Vec<Hint>;

    /// A field of this pane is being typed in: characters are text, not commands.
    fn takes_text(&self, _app: &App) -> bool {
        false
    }

    /// The first instant after `after` at which this pane's screen changes with time alone.
    fn wake(&self, _app: &App, _after: SystemTime) -> Option<SystemTime> {
        None
    }

    /// What this pane needs read from the exchange while its tab is shown (an overlay on top
    /// does not stop it), and how often: `App::reads` declares it, and the answer is the one
    /// the pane waits for. At most one: the read slot of its `Fetch` kind keeps its freshness.
    fn read(&self, _app: &App) -> Option<(Fetch, Duration)> {
        None
    }

    /// The action a remappable command is on this pane (most mean the same everywhere).
    fn command(&self, _app: &App, command: Command) -> Action {
        command.action()
    }

    /// The action `key` asks of this pane: text while it takes text, else the keymap's command
    /// on it, else the fixed keys.
    fn translate(&self, app: &App, key: Key) -> Option<Action> {
        if self.takes_text(app) {
            return text_key(key);
        }
        if let Key::Char(c) = key
            && let Some(command) = app.keymap.command_on(c)
        {
            return Some(self.command(app, command));
        }
        // Only the fixed keys listed in `ui::keymap::FIXED` from here on.
        Some(match key {
            Key::Char(c @ '1'..='9') => Action::Tab(super::Tab::of_digit(c)?),
            Key::PageUp => Action::Page(-1),
            Key::PageDown => Action::Page(1),
            Key::Tab | Key::Right | Key::Char('l') => Action::Tab(app.tab.next()),
            Key::BackTab | Key::Left | Key::Char('h') => Action::Tab(app.tab.previous()),
            Key::Esc => Action::Escape,
            Key::Up | Key::Char('k') => Action::Up,
            Key::Down | Key::Char('j') => Action::Down,
            Key::Enter => Action::Review,
            _ => return None,
        })
    }
}

/// A key in a text field: characters are typed, Enter submits, Esc leaves.
pub(crate) fn text_key(key: Key) -> Option<Action> {
    match key {
        Key::Esc => Some(Action::Escape),
        Key::Enter => Some(Action::Review),
        Key::Backspace => Some(Action::Backspace),
        Key::Char(c) => Some(Action::Type(c)),
        _ => None,
    }
}
