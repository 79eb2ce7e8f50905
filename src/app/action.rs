//! What the user can ask of the app, apart from any terminal: the [`Action`]s `App::update`
//! applies, the [`Effect`]s it hands back to the runtime, and the remappable [`Command`]s with
//! the [`Keymap`] that puts them on keys. Turning a terminal's key event into an action is the
//! UI layer's job (`ui::keymap`).

use std::time::SystemTime;

use super::tab::Tab;
use crate::events::account::StreamEvent;
use crate::events::intents::Resolution;
use crate::events::market::MarketEvent;
use crate::protocol::order::Order;

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

/// Everything that reaches the app: keys (as actions), network events (stamped when they
/// arrived), what a submission produced, and the timer. `App::handle` folds each one.
#[derive(Debug, Clone)]
pub enum Message {
    Action(Action),
    Market(MarketEvent),
    /// An account-stream event and when the loop received it.
    Stream(StreamEvent, SystemTime),
    Submitted(super::submission::SubmitOutcome),
    /// What the wallet's history file held at start (the runtime reads it; the app folds it).
    HistoryLoaded(crate::protocol::history::LoadedHistory),
    /// The timer, with the time now.
    Tick(SystemTime),
    /// What a session-key job came to.
    KeyDone(super::key_setup::KeyOutcome),
    /// What an exploring pane's read came back with, and when.
    Fetched(super::explore::Fetched, SystemTime),
    /// What a deposit's or a withdrawal's job came to.
    FundDone(super::fund::FundOutcome),
}

/// What the runtime must do after a message (the app itself does no I/O). Not `Clone`: a key
/// job may carry a typed passphrase, and there is to be exactly one copy of it.
#[derive(Debug, PartialEq, Eq)]
pub enum Effect {
    Quit,
    /// Append an intent's fate to the audit log.
    RecordFate(alloy_primitives::B256, Resolution),
    /// Sign and send the order the confirmed dialog restated (`Dialog::order`); `what` names it
    /// in the toasts that follow.
    Submit {
        order: Order,
        what: String,
    },
    /// Ring the bell and raise a desktop notification (a distance-to-bust alert).
    Notify(super::alerts::Notice),
    /// Generate, register, renew or clear the session key.
    Key(super::key_setup::KeyJob),
    /// Append a closed trade (new, or with what was learnt since), or a mark of the account seen
    /// whole, to the wallet's history file.
    RecordHistory(crate::protocol::history::HistoryLine),
    /// Plan, sign or send a deposit or a withdrawal with the owner's wallet.
    Fund(super::fund::FundJob),
}

/// The remappable commands and their keymap are the config file's (`[ui.keys]`); they live in
/// `config::keys` and keep their old paths here.
pub use crate::config::keys::{Command, Keymap};

/// What each command asks of the app.
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
