//! The trading client end to end: the real binary's key, positions, open, close, cancel and
//! withdraw commands and the terminal UI against the in-process simulator, and the client's
//! reads and account stream riding out what the exchange does wrong. One file a topic; the
//! user's machine they all start from is `user`.

mod close;
mod data_dir;
mod drawing;
mod faults;
mod keyboard;
mod keys;
mod life;
mod open;
mod owner_keystore;
mod reads;
mod user;
mod watch;

pub(crate) use keyboard::ticket;
pub(crate) use user::{OWNER_PASS, SESSION_PASS, User, live_sim, ready_user};
