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

/// A remappable command: its config name, default key, what it does, and its action.
struct Binding {
    name: &'static str,
    key: char,
    help: &'static str,
    action: Action,
}

fn bindings() -> Vec<Binding> {
    let b = |name, key, help, action| Binding {
        name,
        key,
        help,
        action,
    };
    vec![
        b("long", 'b', "side: long", Action::Side(true)),
        b("short", 's', "side: short", Action::Side(false)),
        b(
            "margin",
            '/',
            "edit the margin (Esc leaves the field)",
            Action::FocusMargin,
        ),
        b("market", 'm', "next market", Action::NextMarket),
        b("leverage_down", '[', "leverage −1", Action::Leverage(-1)),
        b("leverage_up", ']', "leverage +1", Action::Leverage(1)),
        b(
            "leverage_down_10",
            '{',
            "leverage −10 (Shift+[)",
            Action::Leverage(-10),
        ),
        b(
            "leverage_up_10",
            '}',
            "leverage +10 (Shift+])",
            Action::Leverage(10),
        ),
        b(
            "chart",
            'c',
            "chart interval: 1m 5m 15m 1h 4h 1d",
            Action::ChartInterval,
        ),
        b("mark", ' ', "mark a position", Action::ToggleMark),
        b(
            "close",
            'x',
            "close marked/highlighted positions; cancel a pending intent",
            Action::CloseSelected,
        ),
        b("help", '?', "this help", Action::ToggleHelp),
        b("quit", 'q', "quit", Action::Quit),
    ]
}

/// Fixed keys (navigation and dialogs), listed after the remappable ones.
const FIXED: [(&str, &str); 6] = [
    ("Enter", "review the order (a dialog restates it)"),
    ("y / n", "in a dialog: sign and send / cancel"),
    (
        "1 2 3 4",
        "Trade, Positions, History, Protocol (Tab ← → h l: cycle)",
    ),
    ("↑ ↓ j k", "move in a table"),
    ("Esc", "close a dialog or leave a field"),
    ("Ctrl-C", "quit"),
];

/// The live key bindings: defaults, overridden by the config file's `[keys]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    keys: Vec<(char, &'static str, &'static str, Action)>,
}

impl Default for Keymap {
    fn default() -> Self {
        Self {
            keys: bindings()
                .into_iter()
                .map(|b| (b.key, b.name, b.help, b.action))
                .collect(),
        }
    }
}

fn key_name(c: char) -> String {
    match c {
        ' ' => "Space".into(),
        c => c.to_ascii_uppercase().to_string(),
    }
}

impl Keymap {
    /// Apply `[keys]` overrides (`name = "k"`, one character or `space`). Unknown names, keys that
    /// clash with another command or with the fixed keys are errors naming the entry.
    pub fn with_overrides(
        overrides: &std::collections::BTreeMap<String, String>,
    ) -> Result<Self, String> {
        let mut map = Self::default();
        for (name, key) in overrides {
            let c = match key.as_str() {
                "space" | "Space" => ' ',
                k if k.chars().count() == 1 => k.chars().next().expect("one char"),
                _ => {
                    return Err(format!(
                        "keys.{name}: use one character or \"space\", got {key:?}"
                    ));
                }
            };
            if matches!(c, '1'..='4' | 'y' | 'n' | 'h' | 'j' | 'k' | 'l') || c.is_control() {
                return Err(format!("keys.{name}: {key:?} is a fixed key"));
            }
            let entry = map
                .keys
                .iter_mut()
                .find(|(_, n, _, _)| *n == name)
                .ok_or_else(|| format!("keys.{name}: no such command"))?;
            entry.0 = c.to_ascii_lowercase();
        }
        let mut seen = std::collections::BTreeMap::new();
        for (c, name, _, _) in &map.keys {
            if let Some(other) = seen.insert(*c, *name) {
                return Err(format!(
                    "keys: {other} and {name} are both on {:?}",
                    key_name(*c)
                ));
            }
        }
        Ok(map)
    }

    fn lookup(&self, c: char) -> Option<Action> {
        let c = c.to_ascii_lowercase();
        self.keys
            .iter()
            .find(|(k, ..)| *k == c)
            .map(|(.., a)| a.clone())
    }

    fn key_of(&self, name: &str) -> String {
        self.keys
            .iter()
            .find(|(_, n, ..)| *n == name)
            .map(|(c, ..)| key_name(*c))
            .unwrap_or_default()
    }

    /// Every command with its current key, for the help overlay.
    pub fn commands(&self) -> Vec<(String, &'static str)> {
        let mut out: Vec<(String, &'static str)> = self
            .keys
            .iter()
            .map(|(c, _, help, _)| (key_name(*c), *help))
            .collect();
        out.extend(FIXED.iter().map(|(k, h)| (k.to_string(), *h)));
        out
    }

    /// The hint bar, from the same bindings.
    pub fn hints(&self) -> String {
        format!(
            "{}/{} side · {} margin · {} mkt · {} {} lev · ⏎ review · 1-4 tabs · {} help · {} quit",
            self.key_of("long"),
            self.key_of("short"),
            self.key_of("margin"),
            self.key_of("market"),
            self.key_of("leverage_down"),
            self.key_of("leverage_up"),
            self.key_of("help"),
            self.key_of("quit"),
        )
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
    if let KeyCode::Char(c) = key.code
        && let Some(a) = app.keymap.lookup(c)
    {
        // The close key cancels when the cursor is in the pending list.
        return Some(
            if a == Action::CloseSelected && app.tab == Tab::Positions && app.pending_focus {
                Action::CancelPending
            } else {
                a
            },
        );
    }
    Some(match key.code {
        KeyCode::Char('1') => Action::Tab(Tab::Trade),
        KeyCode::Char('2') => Action::Tab(Tab::Positions),
        KeyCode::Char('3') => Action::Tab(Tab::History),
        KeyCode::Char('4') => Action::Tab(Tab::Protocol),
        KeyCode::Tab | KeyCode::Right | KeyCode::Char('l') => Action::Tab(app.tab.next()),
        KeyCode::BackTab | KeyCode::Left | KeyCode::Char('h') => Action::Tab(app.tab.previous()),
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
