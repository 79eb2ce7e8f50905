//! Logs go to a daily file in the data directory, never to the terminal, and never carry a
//! secret (keys and signatures have no `Display` that reveals them).

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;

/// Start file logging under `<data_dir>/logs/`. Returns the guard that flushes on drop, or
/// `None` when the directory cannot be created (logging is best effort: it never stops a command).
pub fn init(data_dir: &Path) -> Option<WorkerGuard> {
    let dir = data_dir.join("logs");
    crate::store::private_files::ensure_private_dir(&dir).ok()?;
    let appender = tracing_appender::rolling::daily(&dir, "papertrade-tui.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = tracing_subscriber::EnvFilter::try_from_env("PAPERTRADE_TUI_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}
