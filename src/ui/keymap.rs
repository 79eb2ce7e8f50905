//! Terminal keys to actions, apart from any state: the focused pane says what a key means
//! (`app::pane`), so shortcuts are text while typing in a field and nothing while a dialog is
//! open. The help overlay and the hint bar are built from the same live keymap and the same
//! list of fixed keys, so a key the help does not show does nothing.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use crate::app::{Action, Key, Tab};
use crate::config::keys::{Command, Keymap};

/// "1 … N": the digits that pick the tabs, N the last one's (`Tab::LAST_DIGIT`).
const TAB_DIGITS: &str = {
    const BYTES: [u8; 7] = {
        let mut b = *b"1 \xe2\x80\xa6 8"; // "1 … 8"
        b[6] = Tab::LAST_DIGIT as u8;
        b
    };
    match std::str::from_utf8(&BYTES) {
        Ok(s) => s,
        Err(_) => panic!("a digit is one byte"),
    }
};

/// Fixed keys (navigation and dialogs): the only keys besides the keymap's that do anything.
pub const FIXED: [(&str, &str); 7] = [
    ("Enter", "review the order or a Fund move (restated first)"),
    ("y / n", "in a dialog: sign and send / cancel"),
    (
        TAB_DIGITS,
        "the tabs in the bar's order (Tab ← → h l: cycle)",
    ),
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
/// click on the tab bar drawn `width` wide with `tab` current switches tabs (an open dialog
/// ignores the switch: the focused pane decides, as for keys).
pub fn mouse_action(event: MouseEvent, width: u16, tab: Tab) -> Option<Action> {
    match event.kind {
        // The wheel is the arrow keys: the focused pane says what they mean (an overlay on top
        // takes them, so the table under the help never scrolls).
        MouseEventKind::ScrollUp => Some(Action::Key(Key::Up)),
        MouseEventKind::ScrollDown => Some(Action::Key(Key::Down)),
        MouseEventKind::Down(MouseButton::Left) if event.row == super::TAB_ROW => {
            super::tab_at(event.column, width, tab).map(Action::Tab)
        }
        _ => None,
    }
}

/// Translate a terminal key, whatever the app is doing: what it means now is the focused
/// pane's to say (`App::update`). Ctrl-C quits everywhere.
pub fn action(key: KeyEvent) -> Option<Action> {
    if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
        return Some(Action::Quit);
    }
    // A character with Ctrl or Alt held is neither a command nor text (Ctrl-S is not "short").
    // Both at once is AltGr on some keyboards, which is how `[`, `{` or `/` are typed there:
    // let it be.
    let held = key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
    let key = match key.code {
        KeyCode::Char(_) if held == KeyModifiers::CONTROL || held == KeyModifiers::ALT => {
            return None;
        }
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        _ => return None,
    };
    Some(Action::Key(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help's digit line names the last tab a digit picks, whatever their number.
    #[test]
    fn the_help_names_the_digits_of_every_tab() {
        assert_eq!(TAB_DIGITS, format!("1 … {}", Tab::LAST_DIGIT));
        assert!(FIXED.iter().any(|(keys, _)| *keys == TAB_DIGITS));
    }
}
