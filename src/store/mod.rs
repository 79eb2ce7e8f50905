//! The files this program keeps in its data directory: private files written whole or appended
//! (0600 in 0700 directories), the nonce lanes and the audit log of every signed intent
//! (`ledger`), and each wallet's closed trades as this machine saw them (`history`).

pub mod history;
pub mod ledger;
pub(crate) mod private_files;
