//! Terminal keys to actions. Shortcuts are ignored while typing in a field or while a dialog is
//! open. The help overlay and the hint bar are built from the same live keymap and the same
//! list of fixed keys, so a key the help does not show does nothing.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use crate::app::{Action, App, Command, Keymap, Tab};

/// Fixed keys (navigation and dialogs): the only keys besides the keymap's that do anything.
pub const FIXED: [(&str, &str); 7] = [
    ("Enter", "review the order or a Fund move (restated first)"),
    ("y / n", "in a dialog: sign and send / cancel"),
    ("1 … 8", "the tabs in the bar's order (Tab ← → h l: cycle)"),
    ("PgUp PgDn", "Leaders: the page before / after"),
    ("↑ ↓ j k", "move in a table; Fund: deposit or withdraw"),
    ("Esc", "close a dialog or leave a field"),
    ("Ctrl-C", "quit"),
];

/// Commands the help lists on one line (so every key fits on an 80x24 screen), with what the
/// line says; the keys are the live keymap's, in this order.
const GROUPS: [(&[Command], &str); 5] = [
    (&[Command::Long, Command::Short], "side: long / short"),
    (
        &[Command::Market, Command::PickMarket],
        "market: the next one / type a name, ⏎ picks it",
    ),
    (
        &[
            Command::LeverageDown,
            Command::LeverageUp,
            Command::LeverageDown10,
            Command::LeverageUp10,
            Command::Leverage,
        ],
        "leverage −1 / +1 / −10 / +10 / type it, ⏎ sets it",
    ),
    (
        &[Command::Window, Command::Sort, Command::Reverse],
        "leaderboard: window 24h…all / sort key / direction",
    ),
    (
        &[Command::CascadeUp, Command::CascadeDown],
        "liquidations: cascade move +1% / −1%",
    ),
];

/// Every key that does something, with what it does: the help overlay's lines.
pub(crate) fn help_lines(keymap: &Keymap) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for (key, command) in keymap.bindings() {
        match GROUPS.iter().find(|(group, _)| group.contains(&command)) {
            Some((group, what)) if group[0] == command => {
                let keys: Vec<String> = group.iter().map(|c| keymap.key_of(*c)).collect();
                out.push((keys.join(" "), *what));
            }
            Some(_) => {}
            None => out.push((key, command.help())),
        }
    }
    out.extend(FIXED.iter().map(|(k, h)| (k.to_string(), *h)));
    out
}

/// Translate a mouse event (captured only with `[ui] mouse`): the wheel moves the cursor, a
/// click on the tab bar drawn `width` wide switches tabs.
pub fn mouse_action(app: &App, event: MouseEvent, width: u16) -> Option<Action> {
    match event.kind {
        MouseEventKind::ScrollUp => Some(Action::Up),
        MouseEventKind::ScrollDown => Some(Action::Down),
        MouseEventKind::Down(MouseButton::Left)
            if event.row == super::TAB_ROW && app.dialog.is_none() =>
        {
            super::tab_at(event.column, width, app.tab).map(Action::Tab)
        }
        _ => None,
    }
}

/// Translate a key in the current state.
pub fn action(app: &App, key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    if app.dialog.is_some() {
        return match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => Some(Action::Confirm),
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Some(Action::Escape),
            // A close dialog's list scrolls.
            KeyCode::Up | KeyCode::Char('k') => Some(Action::Up),
            KeyCode::Down | KeyCode::Char('j') => Some(Action::Down),
            _ => None,
        };
    }
    // The key panel takes every character: its fields hold paths, passphrases, signatures.
    if app.key_panel.is_some() {
        return match key.code {
            KeyCode::Esc => Some(Action::Escape),
            KeyCode::Enter => Some(Action::Confirm),
            KeyCode::Backspace => Some(Action::Backspace),
            KeyCode::Char(c) => Some(Action::Type(c)),
            _ => None,
        };
    }
    // An overlay answers only to Esc, its own key and quit's key, all of which close it.
    let closes = |own: Command| match key.code {
        KeyCode::Esc => true,
        KeyCode::Char(c) => app
            .keymap
            .command_on(c)
            .is_some_and(|cmd| cmd == own || cmd == Command::Quit),
        _ => false,
    };
    if app.help {
        return closes(Command::Help).then_some(Action::ToggleHelp);
    }
    if app.show_log {
        return closes(Command::Messages).then_some(Action::ToggleLog);
    }
    if app.ticket.editing_margin
        || app.ticket.typing.is_some()
        || app.explore_field().is_some()
        || (app.tab == Tab::Fund && app.fund.takes_text())
    {
        return match key.code {
            KeyCode::Esc => Some(Action::Escape),
            KeyCode::Enter => Some(Action::Review),
            KeyCode::Backspace => Some(Action::Backspace),
            KeyCode::Char(c) => Some(Action::Type(c)),
            _ => None,
        };
    }
    // A command key with Ctrl or Alt held is not that command (Ctrl-S is not "short"). Both at
    // once is AltGr on some keyboards, which is how `[`, `{` or `/` are typed there: let it be.
    let held = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
    if held == KeyModifiers::CONTROL || held == KeyModifiers::ALT {
        return None;
    }
    if let KeyCode::Char(c) = key.code
        && let Some(command) = app.keymap.command_on(c)
    {
        // The close key cancels when the cursor is in the pending list; the margin key searches
        // on the panes that have a search.
        return Some(match command {
            Command::Close if app.tab == Tab::Positions && app.pending_focus => {
                Action::CancelPending
            }
            Command::Margin if matches!(app.tab, Tab::Leaders | Tab::Explorer) => Action::Search,
            _ => command.action(),
        });
    }
    // Only the fixed keys listed in `FIXED` from here on.
    Some(match key.code {
        KeyCode::Char(c @ '1'..='8') => Action::Tab(Tab::of_digit(c)?),
        KeyCode::PageUp => Action::Page(-1),
        KeyCode::PageDown => Action::Page(1),
        KeyCode::Tab | KeyCode::Right | KeyCode::Char('l') => Action::Tab(app.tab.next()),
        KeyCode::BackTab | KeyCode::Left | KeyCode::Char('h') => Action::Tab(app.tab.previous()),
        KeyCode::Esc => Action::Escape,
        KeyCode::Up | KeyCode::Char('k') => Action::Up,
        KeyCode::Down | KeyCode::Char('j') => Action::Down,
        KeyCode::Enter => Action::Review,
        _ => return None,
    })
}
