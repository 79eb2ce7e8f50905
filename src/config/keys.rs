//! The remappable commands and the keymap that puts them on keys: the defaults, with the config
//! file's `[ui.keys]` applied and checked when the file is read. What a command does in the app
//! (`Command::action`) is the app's: `app::action` adds it, so this file needs nothing above it.

use serde::{Deserialize, Serialize};

/// A command that lives on one remappable key. Its serde name is its name in the config file's
/// `[ui.keys]`, so the two can never disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Command {
    Long,
    Short,
    Margin,
    /// Take the ticket's margin from the queued balance (debt), or not.
    UseDebt,
    Market,
    LeverageDown,
    LeverageUp,
    #[serde(rename = "leverage_down_10")]
    LeverageDown10,
    #[serde(rename = "leverage_up_10")]
    LeverageUp10,
    /// Type the leverage.
    Leverage,
    PickMarket,
    Chart,
    Mark,
    Close,
    Help,
    Messages,
    SessionKey,
    Window,
    Sort,
    Reverse,
    CascadeUp,
    CascadeDown,
    Quit,
}

impl Command {
    /// Every command, in the order the help lists them.
    pub(crate) const ALL: [Command; 23] = [
        Command::Long,
        Command::Short,
        Command::Margin,
        Command::UseDebt,
        Command::Market,
        Command::PickMarket,
        Command::LeverageDown,
        Command::LeverageUp,
        Command::LeverageDown10,
        Command::LeverageUp10,
        Command::Leverage,
        Command::Chart,
        Command::Mark,
        Command::Close,
        Command::Help,
        Command::Messages,
        Command::SessionKey,
        Command::Window,
        Command::Sort,
        Command::Reverse,
        Command::CascadeUp,
        Command::CascadeDown,
        Command::Quit,
    ];

    /// The config file's name for it (its serde name).
    pub fn name(self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(s)) => s,
            _ => unreachable!("a unit variant serializes as its name"),
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
    }

    pub(crate) fn default_key(self) -> char {
        match self {
            Command::Long => 'b',
            Command::Short => 's',
            Command::Margin => '/',
            Command::UseDebt => 'd',
            Command::Market => 'm',
            Command::LeverageDown => '[',
            Command::LeverageUp => ']',
            Command::LeverageDown10 => '{',
            Command::LeverageUp10 => '}',
            Command::Leverage => '=',
            Command::PickMarket => 'f',
            Command::Chart => 'c',
            Command::Mark => ' ',
            Command::Close => 'x',
            Command::Help => '?',
            Command::Messages => 'e',
            Command::SessionKey => 'g',
            Command::Window => 'w',
            Command::Sort => 'o',
            Command::Reverse => 'r',
            Command::CascadeUp => '+',
            Command::CascadeDown => '-',
            Command::Quit => 'q',
        }
    }

    pub fn help(self) -> &'static str {
        match self {
            Command::Long => "side: long",
            Command::Short => "side: short",
            Command::Margin => "edit the margin (Esc leaves); Leaders, Explorer: search",
            Command::UseDebt => "ticket: margin from the queued balance (debt), on / off",
            Command::Market => "next market",
            Command::LeverageDown => "leverage −1",
            Command::LeverageUp => "leverage +1",
            Command::LeverageDown10 => "leverage −10",
            Command::LeverageUp10 => "leverage +10",
            Command::Leverage => "type the leverage (Enter sets it, Esc leaves)",
            Command::PickMarket => "pick a market by name (Enter picks it, Esc leaves)",
            Command::Chart => "chart interval: 1m 5m 15m 1h 4h 1d",
            Command::Mark => "mark a position",
            Command::Close => "close marked/highlighted positions; cancel a pending intent",
            Command::Help => "this help",
            Command::Messages => "the message log: every outcome, refusal and note, with its time",
            Command::SessionKey => "session key: generate, register with the owner, renew, clear",
            Command::Window => "leaderboard window: 24h 7d 30d all",
            Command::Sort => "leaderboard sort key (next of nine)",
            Command::Reverse => "leaderboard sort direction",
            Command::CascadeUp => "liquidations: cascade move +1%",
            Command::CascadeDown => "liquidations: cascade move −1%",
            Command::Quit => "quit",
        }
    }
}

/// Characters the UI keeps for itself (tabs, dialogs, table movement); no command may take one.
/// Every digit but 0 is kept for the tabs, so a new tab takes its digit from no one.
pub const RESERVED_KEYS: [char; 15] = [
    '1', '2', '3', '4', '5', '6', '7', '8', '9', 'y', 'n', 'h', 'j', 'k', 'l',
];

/// Which character runs which command: the defaults, with the config file's `[ui.keys]` applied.
/// Only these characters run commands; there is no fallback binding behind them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    keys: Vec<(char, Command)>,
}

impl Default for Keymap {
    fn default() -> Self {
        Self {
            keys: Command::ALL.iter().map(|c| (c.default_key(), *c)).collect(),
        }
    }
}

/// How a key is written for a person.
pub fn key_name(c: char) -> String {
    match c {
        ' ' => "Space".into(),
        c => c.to_ascii_uppercase().to_string(),
    }
}

impl Keymap {
    /// Apply `[ui.keys]` overrides (`name = "k"`, one character or `space`). Unknown names, keys
    /// that clash with another command or with the UI's reserved keys are errors naming the entry.
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
            if RESERVED_KEYS.contains(&c.to_ascii_lowercase()) || c.is_control() {
                return Err(format!("keys.{name}: {key:?} is a fixed key"));
            }
            let command = Command::parse(name).ok_or_else(|| {
                let names: Vec<String> = Command::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "keys.{name}: no such command (commands: {})",
                    names.join(", ")
                )
            })?;
            let entry = map
                .keys
                .iter_mut()
                .find(|(_, c)| *c == command)
                .expect("every command has a key");
            entry.0 = c.to_ascii_lowercase();
        }
        let mut seen = std::collections::BTreeMap::new();
        for (c, command) in &map.keys {
            if let Some(other) = seen.insert(*c, *command) {
                return Err(format!(
                    "keys: {} and {} are both on {:?}",
                    other.name(),
                    command.name(),
                    key_name(*c)
                ));
            }
        }
        Ok(map)
    }

    /// The command on character `c` (letters either case), if any.
    pub(crate) fn command_on(&self, c: char) -> Option<Command> {
        let c = c.to_ascii_lowercase();
        self.keys.iter().find(|(k, _)| *k == c).map(|(_, cmd)| *cmd)
    }

    /// The key a command is on, as a person reads it.
    pub(crate) fn key_of(&self, command: Command) -> String {
        self.keys
            .iter()
            .find(|(_, c)| *c == command)
            .map(|(k, _)| key_name(*k))
            .unwrap_or_default()
    }

    /// Every command with its current key, in help order.
    pub(crate) fn bindings(&self) -> impl Iterator<Item = (String, Command)> + '_ {
        self.keys.iter().map(|(k, c)| (key_name(*k), *c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_names_are_the_serde_names() {
        let names: Vec<String> = Command::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(
            names,
            [
                "long",
                "short",
                "margin",
                "use_debt",
                "market",
                "pick_market",
                "leverage_down",
                "leverage_up",
                "leverage_down_10",
                "leverage_up_10",
                "leverage",
                "chart",
                "mark",
                "close",
                "help",
                "messages",
                "session_key",
                "window",
                "sort",
                "reverse",
                "cascade_up",
                "cascade_down",
                "quit"
            ]
        );
        for c in Command::ALL {
            assert_eq!(Command::parse(&c.name()), Some(c));
        }
    }

    #[test]
    fn a_remap_moves_the_command_and_frees_its_old_key() {
        let overrides = [("close".to_string(), "z".to_string())].into();
        let map = Keymap::with_overrides(&overrides).unwrap();
        assert_eq!(map.command_on('z'), Some(Command::Close));
        assert_eq!(map.command_on('x'), None);
        assert_eq!(map.key_of(Command::Close), "Z");
        let clash = [("close".to_string(), "b".to_string())].into();
        assert!(
            Keymap::with_overrides(&clash)
                .unwrap_err()
                .contains("long and close")
        );
        for key in ["j", "9"] {
            let fixed = [("close".to_string(), key.to_string())].into();
            assert!(
                Keymap::with_overrides(&fixed)
                    .unwrap_err()
                    .contains("fixed key")
            );
        }
        let unknown = [("explode".to_string(), "e".to_string())].into();
        assert!(
            Keymap::with_overrides(&unknown)
                .unwrap_err()
                .contains("no such command")
        );
    }
}
