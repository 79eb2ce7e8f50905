//! When time alone changes what the app shows or needs. The runtime draws only when something
//! changed and otherwise sleeps until [`App::next_wake`], so a quiet market costs no frames and
//! no timer wake-ups: ages are shown only once stale, and each thing below that counts on the
//! screen says when it next changes. A pane that starts showing time must be added here.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::events::market::Source;

use super::freshness::{HEALTH_STALE_AFTER, STALE_AFTER};
use super::gate::KeyState;
use super::state::App;

impl App {
    /// The age past which the screen says how old `source` is (`None`: it never does): the
    /// panes' and the connection status's stale limits, and for the ticket's market's mark,
    /// where orders can be signed, the ticket's gate on its age.
    pub(crate) fn age_shown_after(&self, source: Source) -> Option<Duration> {
        let ticket_market = self.ticket_market().map(|(m, _)| m.id);
        match source {
            Source::Trading | Source::Account => Some(STALE_AFTER),
            Source::Mark(id) if Some(id) != ticket_market => None,
            Source::Mark(_) if self.mode.can_trade() => Some(self.max_mark_age.min(STALE_AFTER)),
            Source::Mark(_) => Some(STALE_AFTER),
            // The Protocol tab's title; the chart's title (candles are refetched every 20 s).
            Source::RelayerHealth | Source::Summary => Some(HEALTH_STALE_AFTER),
            Source::Candles => Some(super::state::CANDLE_REFRESH + STALE_AFTER),
            Source::QueueRank | Source::RecentTrades => None,
        }
    }

    /// The first instant after `after` at which the screen of this state changes with time
    /// alone: an age crossing its stale limit (and each step of it after), a message leaving
    /// the footer, a pending intent's age and deadline counting (on the tab that lists them),
    /// the session key's time left.
    pub(crate) fn next_screen_change(&self, after: SystemTime) -> Option<SystemTime> {
        let ages = self
            .freshness
            .next_change(|s| self.age_shown_after(s), after);
        let messages = self.toasts.next_change(after);
        // What the pane on screen counts (a pending intent's age on Positions).
        let pane = super::panes::of(self.tab).wake(self, after);
        // A refused or unsent order's row leaves Pending a minute after it came back.
        let unanswered = self
            .unanswered
            .iter()
            .filter(|(u, _)| u.fate != super::submission::SendFate::NoAnswer)
            .map(|(_, at)| *at + super::submission::UNANSWERED_FOR)
            .filter(|t| *t > after)
            .min();
        [
            ages,
            messages,
            pane,
            unanswered,
            self.key_changes_after(after),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// When the runtime must next send a `Tick` though nothing else arrives: the screen
    /// changes with time alone, or an alert's cooldown ends (reads keep their own time).
    /// `None`: nothing but a message or a key can change anything.
    pub fn next_wake(&self) -> Option<SystemTime> {
        let cooldown = self.alerts.as_ref().and_then(|a| a.next_cooldown_end());
        [
            self.next_screen_change(self.clock),
            self.fund_deadline(),
            cooldown,
        ]
        .into_iter()
        .flatten()
        // Only what is ahead of the clock: what it has passed, the message that moved it
        // handled, and waking for a past time would never sleep.
        .filter(|t| *t > self.clock)
        .min()
    }

    /// When the header's "key 29d" / "key 59m" next reads differently, or the key expires.
    fn key_changes_after(&self, after: SystemTime) -> Option<SystemTime> {
        let now_s = crate::clock::unix_s(after);
        let KeyState::Valid { until } = self.key_state(now_s) else {
            return None;
        };
        let left = until - now_s;
        let step = if left >= 86_400 { 86_400 } else { 60 };
        let shown = left / step;
        let at_s = if shown == 0 {
            until
        } else {
            until - shown * step + 1
        };
        Some(UNIX_EPOCH + Duration::from_secs(at_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Mode;
    use crate::app::alerts::{Alerts, Reading};
    use crate::config::alerts::Rules;
    use alloy_primitives::U256;

    /// A crossing held back by its threshold's cooldown is woken for when the cooldown ends (it
    /// fires then if the position is still inside), and only while that is ahead of the clock.
    #[test]
    fn a_cooldown_holding_an_alert_back_is_woken_for() {
        let t0 = UNIX_EPOCH + Duration::from_secs(1_000);
        let at = |s: u64| t0 + Duration::from_secs(s);
        let reading = |room_bps: i128| Reading {
            position_id: U256::from(1u64),
            market: "BTC".into(),
            is_long: true,
            leverage: 10,
            room: room_bps,
            mark: 10_000,
            bust: 0,
            price_scale: 10,
        };
        let mut alerts = Alerts::new(Rules::new(&[500], Duration::from_secs(60), 20));
        alerts.observe(&[reading(900)], at(0));
        assert_eq!(alerts.observe(&[reading(450)], at(10)).len(), 1);
        // Back above the re-arm band inside the cooldown: a new crossing would have to wait.
        alerts.observe(&[reading(700)], at(20));
        let mut app = App::new(Mode::Watch, None);
        app.alerts = Some(alerts);
        app.clock = at(20);
        assert_eq!(app.next_wake(), Some(at(70)));
        app.clock = at(70);
        assert_eq!(app.next_wake(), None, "nothing else is ahead");
    }
}
