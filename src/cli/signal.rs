//! The one shutdown signal of the long-running commands (`sim`, `demo`, `mcp`,
//! `positions --follow`, the terminal UI).

/// Ctrl-C or (on Unix) SIGTERM. The handlers are installed when this is called, before a server
/// says it is ready, so a stop sent right after that line is a clean stop, never the default
/// abrupt one; the future ends at the first signal. A handler that cannot be installed is not
/// waited for (with neither, the server runs until killed).
pub(crate) fn stop_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        let mut terminate = signal(SignalKind::terminate()).ok();
        async move {
            async fn first(signal: Option<&mut Signal>) {
                match signal {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                _ = first(interrupt.as_mut()) => {}
                _ = first(terminate.as_mut()) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
