//! Keys to actions. Shortcuts are ignored while typing in a field or while a dialog is open;
//! the command list feeds both the hint bar and the `?` overlay, so they cannot drift.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::state::{App, Dialog, Tab};

/// What a key asks for. `update` applies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    Side(bool),
    FocusMargin,
    NextMarket,
    Leverage(i64),
    Tab(Tab),
    ToggleHelp,
    Escape,
    Up,
    Down,
    ToggleMark,
    CloseSelected,
    CancelPending,
    Review,
    Confirm,
    Type(char),
    Backspace,
    ChartInterval,
}

/// One line of help: keys and what they do.
pub const COMMANDS: [(&str, &str); 16] = [
    ("B / S", "long / short"),
    ("/", "edit the margin (Esc leaves the field)"),
    ("M", "next market"),
    ("[ ]", "leverage −1 / +1"),
    ("{ }", "leverage −10 / +10 (Shift+[ ])"),
    ("Enter", "review the order (a dialog restates it)"),
    ("y / n", "in a dialog: sign and send / cancel"),
    ("1 2 3 4", "Trade, Positions, History, Protocol"),
    ("↑ ↓ j k", "move in a table"),
    ("Space", "mark a position"),
    (
        "x",
        "close marked (or highlighted) positions; cancel a pending intent",
    ),
    ("Tab", "next tab"),
    ("C", "chart interval: 1m 5m 15m 1h 4h 1d"),
    ("?", "this help"),
    ("Esc", "close a dialog or leave a field"),
    ("q", "quit"),
];

/// Translate a key in the current state.
pub fn action(app: &App, key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    if app.dialog.is_some() {
        return match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => Some(Action::Confirm),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Some(Action::Escape),
            _ => None,
        };
    }
    if app.help {
        return matches!(
            key.code,
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q')
        )
        .then_some(Action::ToggleHelp);
    }
    if app.ticket.editing_margin {
        return match key.code {
            KeyCode::Esc => Some(Action::Escape),
            KeyCode::Enter => Some(Action::Review),
            KeyCode::Backspace => Some(Action::Backspace),
            KeyCode::Char(c) => Some(Action::Type(c)),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('b') | KeyCode::Char('B') => Action::Side(true),
        KeyCode::Char('s') | KeyCode::Char('S') => Action::Side(false),
        KeyCode::Char('/') => Action::FocusMargin,
        KeyCode::Char('m') | KeyCode::Char('M') => Action::NextMarket,
        KeyCode::Char('[') => Action::Leverage(-1),
        KeyCode::Char(']') => Action::Leverage(1),
        KeyCode::Char('{') => Action::Leverage(-10),
        KeyCode::Char('}') => Action::Leverage(10),
        KeyCode::Char('1') => Action::Tab(Tab::Trade),
        KeyCode::Char('2') => Action::Tab(Tab::Positions),
        KeyCode::Char('3') => Action::Tab(Tab::History),
        KeyCode::Char('4') => Action::Tab(Tab::Protocol),
        KeyCode::Tab => Action::Tab(app.tab.next()),
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char('c') | KeyCode::Char('C') => Action::ChartInterval,
        KeyCode::Esc => Action::Escape,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::Char(' ') => Action::ToggleMark,
        KeyCode::Char('x') if app.tab == Tab::Positions && app.pending_focus => {
            Action::CancelPending
        }
        KeyCode::Char('x') => Action::CloseSelected,
        KeyCode::Enter => Action::Review,
        _ => return None,
    })
}

/// What the runtime must do after an action (the app itself does no I/O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Sign and send what the confirmed dialog restated.
    Submit(Dialog),
}
