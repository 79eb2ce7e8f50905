//! When `positions --follow` prints its table again: only when a figure it shows has changed,
//! and at most once a second, so marks moving every poll neither flood a terminal nor leave it
//! showing figures its own ALERT lines contradict. A change inside the second is not dropped: it
//! is printed when the second is up, as it stands then.

use std::time::Duration;

use tokio::time::Instant;

/// The least time between two prints of the table.
pub(crate) const EVERY: Duration = Duration::from_secs(1);

/// What was last printed (as the figures it showed) and when; whether a change waits.
#[derive(Debug)]
pub(crate) struct Reprint {
    shown: String,
    at: Instant,
    waiting: bool,
}

impl Reprint {
    /// `shown`, the figures of the table just printed, at `at`.
    pub(crate) fn new(shown: String, at: Instant) -> Self {
        Self {
            shown,
            at,
            waiting: false,
        }
    }

    /// The figures the table would show now: whether to print it now. A change inside the
    /// second after the last print waits for [`due`](Self::due); the same figures never print.
    pub(crate) fn offer(&mut self, figures: String, now: Instant) -> bool {
        if figures == self.shown {
            self.waiting = false;
            return false;
        }
        if now < self.at + EVERY {
            self.waiting = true;
            return false;
        }
        self.shown = figures;
        self.at = now;
        self.waiting = false;
        true
    }

    /// When a change that had to wait may be printed, if one waits.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.waiting.then_some(self.at + EVERY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On tokio's paused clock: time passes only when the test says so, so "nothing printed in
    /// ten minutes" is ten minutes of the gate's time, not a sleep hoping to be long enough.
    #[tokio::test(start_paused = true)]
    async fn the_table_prints_again_only_when_a_figure_changed_and_at_most_once_a_second() {
        let start = Instant::now();
        let mut gate = Reprint::new("mark 82,800.3".into(), start);

        // Polls every 250 ms for ten minutes with nothing changed: never printed again.
        for _ in 0..2400 {
            tokio::time::advance(Duration::from_millis(250)).await;
            assert!(!gate.offer("mark 82,800.3".into(), Instant::now()));
            assert_eq!(gate.due(), None, "nothing waits");
        }
        assert_eq!(Instant::now() - start, Duration::from_secs(600));

        // A change: printed at once, a second after the last print.
        assert!(gate.offer("mark 82,883.1".into(), Instant::now()));
        let printed = Instant::now();
        // Two more changes inside that second: held back, the latest printed when it is up.
        tokio::time::advance(Duration::from_millis(300)).await;
        assert!(!gate.offer("mark 82,900.0".into(), Instant::now()));
        tokio::time::advance(Duration::from_millis(300)).await;
        assert!(!gate.offer("mark 82,950.0".into(), Instant::now()));
        assert_eq!(gate.due(), Some(printed + EVERY));
        tokio::time::sleep_until(gate.due().unwrap()).await;
        assert_eq!(
            Instant::now(),
            printed + EVERY,
            "the clock moved to the due time"
        );
        assert!(gate.offer("mark 82,950.0".into(), Instant::now()));
        assert_eq!(gate.due(), None);

        // A change that goes back before the second is up leaves nothing to print.
        tokio::time::advance(Duration::from_millis(100)).await;
        assert!(!gate.offer("mark 83,000.0".into(), Instant::now()));
        assert!(gate.due().is_some());
        assert!(!gate.offer("mark 82,950.0".into(), Instant::now()));
        assert_eq!(gate.due(), None, "back to what is shown: nothing waits");
        tokio::time::advance(Duration::from_secs(5)).await;
        assert!(!gate.offer("mark 82,950.0".into(), Instant::now()));
    }
}
