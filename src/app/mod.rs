//! The UI's state and its rules, apart from any terminal: `App` folds network messages and keys;
//! the ticket computes the pre-trade panel. Everything here is pure and unit-tested.

pub mod action;
pub mod alerts;
pub mod freshness;
pub mod gate;
pub mod messages;
pub mod settlement;
pub mod state;
pub mod tab;
pub mod ticket;
pub mod valuation;

pub use action::{Action, Command, Effect, Keymap, Message, SubmitReport};
pub use freshness::Freshness;
pub use gate::{Connection, KeyState};
pub use messages::{MessageLog, Toast};
pub use state::{App, Dialog, KeyStatus, Mode};
pub use tab::Tab;
pub use ticket::{PreTrade, Ticket};
