//! The UI's state and its rules, apart from any terminal: `App` folds network messages and keys;
//! the ticket computes the pre-trade panel. Everything here is pure and unit-tested.

pub(crate) mod action;
pub mod alerts;
pub mod explore;
pub(crate) mod explore_flow;
pub mod field;
pub(crate) mod freshness;
pub mod fund;
pub(crate) mod fund_flow;
pub(crate) mod gate;
pub(crate) mod history;
pub(crate) mod key_flow;
pub mod key_setup;
pub(crate) mod messages;
pub(crate) mod notices;
pub(crate) mod pane;
pub(crate) mod panes;
pub(crate) mod prefill;
pub(crate) mod report;
pub(crate) mod settlement;
pub(crate) mod side;
pub(crate) mod state;
pub(crate) mod tab;
pub(crate) mod ticket;
pub(crate) mod valuation;
pub(crate) mod wake;

pub(crate) use action::Command;
pub use action::{Action, Effect, Key, Keymap, Message};
pub use freshness::Freshness;
pub(crate) use gate::KeyState;
pub use key_setup::KeyStatus;
pub use pane::Hint;
pub use report::{SendFate, SubmitReport, Unanswered};
pub use state::{App, Dialog, Mode};
pub use tab::Tab;
pub use ticket::{PendingPrefill, Prefilled};
