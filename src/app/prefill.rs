//! A ticket prefilled from outside — a deep link (`--link`, `open-link`) or the prefill flags —
//! meets the exchange's markets: the market it names is looked up (a symbol, case-insensitive,
//! or a market id) and the leverage clamped to that market's maximum, each with a note, as the
//! browser terminal does when its ticket renders. Nothing here signs: the ticket stays under
//! its review banner until the trader confirms.

use crate::protocol::trading::TradingState;

use super::state::App;
use super::ticket::PendingPrefill;

impl App {
    pub(super) fn resolve_prefill(&mut self, p: PendingPrefill, state: &TradingState) {
        if let Some(wanted) = p.market {
            let wanted = wanted.trim();
            let by_symbol = state
                .instruments
                .iter()
                .position(|i| i.symbol.eq_ignore_ascii_case(wanted));
            let by_id = || {
                let id: u32 = wanted.parse().ok()?;
                state.instruments.iter().position(|i| i.id == id)
            };
            match by_symbol.or_else(by_id) {
                Some(i) => self.ticket.market = i,
                None => self.note(format!(
                    "market {:?} dropped: not a listed market",
                    crate::text::sanitize_line(wanted, 16)
                )),
            }
        }
        let Some(market) = state.instruments.get(self.ticket.market) else {
            return;
        };
        let ceiling = state.leverage_ceiling(market);
        if self.ticket.leverage > ceiling {
            self.ticket.leverage = ceiling.max(1);
            self.note(format!(
                "leverage clamped to {}x: {}'s maximum",
                self.ticket.leverage,
                crate::text::sanitize_line(&market.symbol, 12)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::app::{App, Mode, PendingPrefill};
    use crate::events::market::MarketEvent;
    use crate::protocol::trading::TradingState;

    fn state(edit: impl FnOnce(&mut serde_json::Value)) -> TradingState {
        let mut v: serde_json::Value =
            serde_json::from_str(include_str!("../../assets/trading_mainnet.json")).unwrap();
        edit(&mut v);
        TradingState::decode(&v.to_string()).unwrap()
    }

    fn arrive(app: &mut App, s: TradingState) {
        app.on_market(MarketEvent::Trading(
            Box::new(s),
            std::time::SystemTime::UNIX_EPOCH,
        ));
    }

    fn notes(app: &App) -> Vec<String> {
        app.toasts.iter().map(|t| t.text.clone()).collect()
    }

    #[test]
    fn a_market_id_is_as_good_as_its_symbol() {
        let mut app = App::new(Mode::Demo, None);
        app.prefill = Some(PendingPrefill {
            market: Some("1".into()),
        });
        arrive(&mut app, state(|_| {}));
        assert_eq!(app.ticket.market, 1, "id 1 is ETH");
        assert!(notes(&app).is_empty(), "{:?}", notes(&app));
    }

    #[test]
    fn an_unlisted_market_is_dropped_with_a_note_and_the_rest_stays() {
        let mut app = App::new(Mode::Demo, None);
        app.ticket.leverage = 25;
        app.prefill = Some(PendingPrefill {
            market: Some("DOGE".into()),
        });
        arrive(&mut app, state(|_| {}));
        assert_eq!(app.ticket.market, 0);
        assert_eq!(app.ticket.leverage, 25);
        assert_eq!(
            notes(&app),
            ["market \"DOGE\" dropped: not a listed market"]
        );
        assert!(app.prefill.is_none(), "resolved once");
    }

    #[test]
    fn leverage_above_the_market_maximum_is_clamped_to_it_with_a_note() {
        let mut app = App::new(Mode::Demo, None);
        app.ticket.leverage = 1000;
        app.prefill = Some(PendingPrefill {
            market: Some("eth".into()),
        });
        arrive(&mut app, state(|v| v["instruments"][1][14] = 200.into()));
        assert_eq!(app.ticket.market, 1);
        assert_eq!(app.ticket.leverage, 200);
        assert_eq!(notes(&app), ["leverage clamped to 200x: ETH's maximum"]);
    }

    #[test]
    fn without_a_prefill_the_leverage_is_left_alone() {
        let mut app = App::new(Mode::Demo, None);
        app.ticket.leverage = 1000;
        arrive(&mut app, state(|v| v["instruments"][0][14] = 200.into()));
        assert_eq!(
            app.ticket.leverage, 1000,
            "the panel clamps; nothing is noted"
        );
        assert!(notes(&app).is_empty());
    }
}
