//! How old an exploring pane's data is and whether its last read failed, said the same way on
//! every pane. The time is the clock time of the answer (it does not tick, so a quiet pane
//! draws nothing until the next read).

use crate::app::explore::Loaded;

use super::log::time_of_day;

/// `as of 19:20:03 UTC`, `reading…`, and the latest failure when a refresh did not come back.
pub(super) fn status<T>(loaded: &Loaded<T>) -> String {
    let mut out = match loaded.at {
        Some(at) => format!("as of {} UTC", time_of_day(at)),
        None if loaded.error.is_some() => "not read".to_string(),
        None => "reading…".to_string(),
    };
    if loaded.at.is_some() && loaded.loading() {
        out.push_str(" · reading…");
    }
    if let Some(e) = &loaded.error {
        out.push_str(&format!(" · last read failed: {e}"));
    }
    out
}
