//! What the user can ask of the app, apart from any terminal: the [`Key`]s the terminal sent and
//! the [`Action`]s `App::update` applies, with what each remappable command (`config::keys`)
//! asks for. Turning a terminal's key event into an action is the UI layer's job
//! (`ui::keymap`); what reaches the app besides keys is `message::Message`.

use super::tab::Tab;

/// A key as the terminal sent it, apart from what it means now (`ui::keymap::action` makes
/// one; `App::update` asks the focused pane what it means).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Esc,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    Tab,
    BackTab,
    PageUp,
    PageDown,
}

/// What a key (or a click) asks for. `App::update` applies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// A key not yet read: the focused pane says what it asks for.
    Key(Key),
    Quit,
    Side(bool),
    FocusMargin,
    NextMarket,
    Leverage(i64),
    /// The ticket's margin from the queued (owed) balance, or not (`--use-debt` in the CLI).
    ToggleDebt,
    /// Start typing the ticket's leverage (Enter sets it).
    TypeLeverage,
    /// Start typing a market's name for the ticket (Enter picks it).
    PickMarket,
    Tab(Tab),
    ToggleHelp,
    ToggleLog,
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
    /// Open the session-key panel (generate, register, renew, clear).
    KeySetup,
    /// Start typing the pane's search (Leaders) or wallet (Explorer).
    Search,
    /// Leaderboard: next window, next sort key, the other direction, a page on.
    Window,
    SortKey,
    SortDir,
    Page(i64),
    /// Liquidations: the cascade's move, whole percent.
    Cascade(i32),
}

use crate::config::keys::Command;

/// What each command asks of the app (the commands and their keymap are the config file's,
/// `[ui.keys]`, in `config::keys`).
impl Command {
    pub fn action(self) -> Action {
        match self {
            Command::Long => Action::Side(true),
            Command::Short => Action::Side(false),
            Command::Margin => Action::FocusMargin,
            Command::UseDebt => Action::ToggleDebt,
            Command::Market => Action::NextMarket,
            Command::LeverageDown => Action::Leverage(-1),
            Command::LeverageUp => Action::Leverage(1),
            Command::LeverageDown10 => Action::Leverage(-10),
            Command::LeverageUp10 => Action::Leverage(10),
            Command::Leverage => Action::TypeLeverage,
            Command::PickMarket => Action::PickMarket,
            Command::Chart => Action::ChartInterval,
            Command::Mark => Action::ToggleMark,
            Command::Close => Action::CloseSelected,
            Command::Help => Action::ToggleHelp,
            Command::Messages => Action::ToggleLog,
            Command::SessionKey => Action::KeySetup,
            Command::Window => Action::Window,
            Command::Sort => Action::SortKey,
            Command::Reverse => Action::SortDir,
            Command::CascadeUp => Action::Cascade(1),
            Command::CascadeDown => Action::Cascade(-1),
            Command::Quit => Action::Quit,
        }
    }
}
