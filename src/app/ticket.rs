//! The order ticket: market, side, margin (typed), leverage, and the pre-trade panel recomputed
//! from it on every keystroke. Pure: the numbers are the quote module's, the checks the protocol's.

use crate::protocol::account::AccountState;
use crate::protocol::math::{
    Capacity, OpenCheck, OpenFunds, OpenRejection, check_open, open_capacity,
};
use crate::protocol::pretrade::{Position, Scenario, exit_from_move};
use crate::protocol::trading::{Instrument, TradingState};
use crate::protocol::units::{DecimalError, WAD, parse_scaled};

/// The largest margin the ticket accepts: $10,000,000 (6 decimals, USDC precision).
const MAX_MARGIN_MICRO: u128 = 10_000_000 * 1_000_000;
/// Moves shown in the pre-trade panel, in the position's favour and against it.
pub const PANEL_MOVES: [&str; 3] = ["0.1", "1", "5"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ticket {
    /// Index into the trading state's instruments.
    pub market: usize,
    pub is_long: bool,
    /// Exactly what was typed.
    pub margin_text: String,
    pub leverage: u32,
    pub use_debt: bool,
    /// Typing into the margin field.
    pub editing_margin: bool,
    /// Typing a leverage or a market's name (nothing changes until Enter).
    pub typing: Option<Typing>,
    /// The margin is still the built-in default (nobody typed or prefilled one), so it is
    /// fitted to the live minimums at the ticket's leverage when the markets arrive.
    pub defaults: bool,
    /// Filled from outside (a deep link or the prefill flags): the ticket shows a review banner
    /// and the confirm dialog says so, until the trader confirms or hides it (Esc).
    pub review: Option<Prefilled>,
}

/// A ticket value being typed: exactly what was typed so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typing {
    Leverage(String),
    Market(String),
}

/// The most characters a typed leverage or market name takes.
const TYPED_CHARS: usize = 12;

impl Typing {
    /// Accept a typed character: digits for a leverage, letters and digits for a market.
    pub(crate) fn push(&mut self, c: char) {
        let (text, ok) = match self {
            Typing::Leverage(t) => (t, c.is_ascii_digit()),
            Typing::Market(t) => (t, c.is_ascii_alphanumeric()),
        };
        if ok && text.len() < TYPED_CHARS {
            text.push(c);
        }
    }

    pub(crate) fn pop(&mut self) {
        match self {
            Typing::Leverage(t) | Typing::Market(t) => t.pop(),
        };
    }
}

/// The leverage typed, checked against the market's ceiling: the leverage, or why not.
pub(crate) fn typed_leverage(text: &str, ceiling: u32, symbol: &str) -> Result<u32, String> {
    let bad = || format!("leverage: a whole number from 1 to {ceiling} on {symbol}, got {text:?}");
    match text.parse::<u32>() {
        Ok(l) if (1..=ceiling).contains(&l) => Ok(l),
        _ if text.is_empty() => Err(format!("leverage: type 1 to {ceiling}")),
        _ => Err(bad()),
    }
}

/// The market a typed name picks: a symbol or id exactly, else the only symbol it begins (any
/// case); an index into the instruments, or why none.
pub(crate) fn typed_market(state: &TradingState, text: &str) -> Result<usize, String> {
    let index = |id: u32| state.instruments.iter().position(|m| m.id == id);
    if let Some(i) = state.market(text).and_then(|m| index(m.id)) {
        return Ok(i);
    }
    let upper = text.to_ascii_uppercase();
    let matches: Vec<usize> = (0..state.instruments.len())
        .filter(|i| {
            state.instruments[*i]
                .symbol
                .to_ascii_uppercase()
                .starts_with(&upper)
        })
        .collect();
    let names = |ids: &[usize]| {
        ids.iter()
            .map(|i| crate::text::sanitize_line(&state.instruments[*i].symbol, 12))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match matches.as_slice() {
        _ if text.is_empty() => Err("market: type a name".into()),
        [one] => Ok(*one),
        [] => Err(format!(
            "market: none is called {text:?} (markets: {})",
            names(&(0..state.instruments.len()).collect::<Vec<_>>())
        )),
        many => Err(format!(
            "market: {text:?} could be {}; type more",
            names(many)
        )),
    }
}

/// Where a prefilled ticket's values came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefilled {
    /// `--link URL` / `open-link URL`: someone else wrote these values.
    Link,
    /// `--market/--side/--margin/--leverage`.
    Flags,
}

impl Prefilled {
    pub fn words(self) -> &'static str {
        match self {
            Prefilled::Link => "from a link",
            Prefilled::Flags => "prefilled",
        }
    }
}

/// A prefill waiting for the first list of markets: the market it names (a symbol or an id) is
/// looked up there and the leverage clamped to that market's maximum, as the browser terminal
/// does when its ticket renders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PendingPrefill {
    pub market: Option<String>,
}

impl Default for Ticket {
    fn default() -> Self {
        Self {
            market: 0,
            is_long: true,
            // $100 at 10x is the mainnet minimum notional ($1,000); refitted to the live
            // minimums when the markets arrive (`fit_minimums`).
            margin_text: "100".into(),
            leverage: 10,
            use_debt: false,
            editing_margin: false,
            typing: None,
            defaults: true,
            review: None,
        }
    }
}

/// The pre-trade panel: everything the confirm dialog will restate.
#[derive(Debug, Clone)]
pub struct PreTrade<'a> {
    pub position: Position<'a>,
    pub bust: u64,
    pub validation: Result<(), OpenRejection>,
    pub capacity: Capacity,
    /// (signed move text, scenario), adverse first, then the bust, then favourable.
    pub scenarios: Vec<(String, Scenario)>,
}

impl Ticket {
    /// The margin as a wad, or why it is not one.
    pub(crate) fn margin(&self) -> Result<u128, String> {
        let text = self.margin_text.trim();
        if text.is_empty() {
            return Err("enter a margin".into());
        }
        match parse_scaled(text, 6) {
            Ok(0) => Err("margin must be more than $0".into()),
            Ok(m) if m > MAX_MARGIN_MICRO => Err("margin must be at most $10,000,000".into()),
            Ok(m) => Ok(m * (WAD / 1_000_000)),
            Err(DecimalError::TooPrecise(_)) => Err("at most 6 decimals".into()),
            Err(e @ DecimalError::Grouping) => Err(format!("margin {e}")),
            Err(_) => Err("not a USD amount".into()),
        }
    }

    /// While the margin is the default: the smallest whole-dollar margin that, at the ticket's
    /// leverage, passes the exchange's minimum trade size and minimum open notional, so the
    /// first ticket a trader sees is one the relayer would take.
    pub fn fit_minimums(&mut self, state: &TradingState) {
        if !self.defaults {
            return;
        }
        let leverage = u128::from(self.leverage.max(1));
        let need = state
            .minimum_trade_size
            .max(state.minimum_open_notional.div_ceil(leverage));
        self.margin_text = need.div_ceil(WAD).max(1).to_string();
    }

    /// Accept a typed character into the margin field (digits, one point, commas ignored).
    pub(crate) fn type_char(&mut self, c: char) {
        self.defaults = false;
        let has_point = self.margin_text.contains('.');
        if (c.is_ascii_digit() || (c == '.' && !has_point)) && self.margin_text.len() < 16 {
            self.margin_text.push(c);
        }
    }

    pub(crate) fn backspace(&mut self) {
        self.defaults = false;
        self.margin_text.pop();
    }

    /// Leverage up or down by `delta`, kept within 1..=`ceiling`.
    pub(crate) fn nudge_leverage(&mut self, delta: i64, ceiling: u32) {
        let next = (i64::from(self.leverage) + delta).clamp(1, i64::from(ceiling.max(1)));
        self.leverage = next as u32;
    }

    pub(crate) fn next_market(&mut self, count: usize) {
        if count > 0 {
            self.market = (self.market + 1) % count;
        }
    }

    /// Recompute the panel at `mark` against `state` and the account (its funds and the
    /// positions it holds), when known.
    pub fn preview<'a>(
        &self,
        state: &'a TradingState,
        mark: u64,
        account: Option<&AccountState>,
    ) -> Result<PreTrade<'a>, String> {
        let market: &Instrument = state.instruments.get(self.market).ok_or("no such market")?;
        let margin = self.margin()?;
        let leverage = self.leverage.min(state.leverage_ceiling(market)).max(1);
        let position = Position {
            market,
            is_long: self.is_long,
            margin,
            leverage,
            entry: mark,
        };
        let bust = position.bust();
        let check = OpenCheck {
            state,
            market,
            is_long: self.is_long,
            margin,
            leverage,
            use_debt: self.use_debt,
            mark: Some(mark),
            funds: account.map(OpenFunds::of),
            positions: account.map(|a| &a.open_positions[..]),
            queued: account.map(|a| &a.operations[..]),
        };
        let validation = check_open(&check);
        let capacity = open_capacity(&check);
        let fee = state.win_fee_rate();
        let mut scenarios = Vec::new();
        for pct in PANEL_MOVES.iter().rev() {
            let adverse = if self.is_long {
                format!("-{pct}")
            } else {
                (*pct).to_string()
            };
            if let Ok(exit) = exit_from_move(mark, &adverse) {
                scenarios.push((format!("-{pct}%"), position.scenario(fee, exit)));
            }
        }
        scenarios.push(("bust".into(), position.scenario(fee, bust)));
        for pct in PANEL_MOVES {
            let favourable = if self.is_long {
                pct.to_string()
            } else {
                format!("-{pct}")
            };
            if let Ok(exit) = exit_from_move(mark, &favourable) {
                scenarios.push((format!("+{pct}%"), position.scenario(fee, exit)));
            }
        }
        // From the worst exit to the best, whatever the side.
        scenarios.sort_by_key(|(_, s)| {
            if self.is_long {
                i128::from(s.exit)
            } else {
                -i128::from(s.exit)
            }
        });
        Ok(PreTrade {
            position,
            bust,
            validation,
            capacity,
            scenarios,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> TradingState {
        TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap()
    }

    #[test]
    fn a_typed_leverage_and_market_are_checked() {
        assert_eq!(typed_leverage("500", 1000, "BTC"), Ok(500));
        assert_eq!(typed_leverage("1000", 1000, "BTC"), Ok(1000));
        for bad in ["0", "1001", "99999999999"] {
            assert_eq!(
                typed_leverage(bad, 1000, "BTC").unwrap_err(),
                format!("leverage: a whole number from 1 to 1000 on BTC, got {bad:?}")
            );
        }
        let mut t = Typing::Leverage(String::new());
        for c in "5x0.0".chars() {
            t.push(c);
        }
        assert_eq!(t, Typing::Leverage("500".into()));
        let s = state();
        assert_eq!(typed_market(&s, "eth"), Ok(1));
        assert_eq!(typed_market(&s, "E"), Ok(1), "the only symbol it begins");
        assert_eq!(typed_market(&s, "0"), Ok(0), "an id");
        assert!(
            typed_market(&s, "DOGE")
                .unwrap_err()
                .contains("none is called \"DOGE\" (markets: BTC, ETH)")
        );
    }

    #[test]
    fn typing_and_nudging() {
        let mut t = Ticket {
            margin_text: String::new(),
            ..Ticket::default()
        };
        for c in "1a2.5.0x".chars() {
            t.type_char(c);
        }
        assert_eq!(t.margin_text, "12.50");
        assert_eq!(t.margin().unwrap(), 12_500_000_000_000_000_000);
        t.backspace();
        t.backspace();
        t.backspace();
        assert_eq!(t.margin_text, "12");
        t.nudge_leverage(-100, 1000);
        assert_eq!(t.leverage, 1);
        t.nudge_leverage(5000, 1000);
        assert_eq!(t.leverage, 1000);
        t.margin_text = "0.0000001".into();
        assert_eq!(t.margin().unwrap_err(), "at most 6 decimals");
        t.margin_text.clear();
        assert!(t.margin().is_err());
    }

    /// The ticket counts the opens the account has queued in the one-side rule: a short of BTC
    /// while a BTC long is queued is refused naming the rule, and no margin would pass.
    #[test]
    fn a_queued_open_of_the_other_side_refuses_the_ticket() {
        use crate::protocol::account::Frame;
        const ACCOUNT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,
 "indexedThroughTimestamp":1791862827,"sessionKeys":[],"walletRevision":48399562,"queueRevision":"881",
 "balance":"1000000000000000000000","queued":"0","locked":"0",
 "funds":{"reservedBalance":"600000000000000000000","reservedQueued":"0","availableBalance":"400000000000000000000","availableQueued":"0"},
 "queueNodeCount":0,"consumableDebt":"0",
 "paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},
 "lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},
 "openPositions":[],
 "operations":[["0x71a9f6c0143e531d619cb9145175c02f37e030bf2d00695e32a635fa552f14d2","openPosition",0,true,false,"600000000000000000000",10,1791862851323,"1791862941",null]],
 "accountRevision":2}"#;
        let Frame::Snapshot(account) = Frame::decode(ACCOUNT).unwrap() else {
            unreachable!("a snapshot")
        };
        let s = state();
        let short = Ticket {
            margin_text: "100".into(),
            leverage: 20,
            is_long: false,
            ..Ticket::default()
        };
        let p = short.preview(&s, 828_003, Some(&account)).unwrap();
        let refused = p.validation.unwrap_err();
        assert_eq!(refused.code(), "opposite_side_open");
        assert!(
            refused.to_string().contains("long BTC position is queued"),
            "{refused}"
        );
        assert_eq!(p.capacity.max_margin, 0);
        // The queued side itself is fine.
        let long = Ticket {
            is_long: true,
            ..short
        };
        assert!(
            long.preview(&s, 828_003, Some(&account))
                .unwrap()
                .validation
                .is_ok()
        );
    }

    #[test]
    fn the_panel_is_the_quote() {
        let s = state();
        let t = Ticket {
            margin_text: "100".into(),
            leverage: 500,
            ..Ticket::default()
        };
        let p = t.preview(&s, 828_003, None).unwrap();
        assert_eq!(p.bust, 826_740);
        assert!(p.validation.is_ok());
        assert_eq!(p.scenarios.len(), 7);
        // Worst to best: at 500x the bust lies between -0.1% and -1%.
        let labels: Vec<&str> = p.scenarios.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            ["-5%", "-1%", "bust", "-0.1%", "+0.1%", "+1%", "+5%"]
        );
        assert!(p.scenarios[2].1.liquidated);
        assert!(p.scenarios[6].1.net_pnl(p.position.margin) > 0);
        let small = Ticket {
            margin_text: "5".into(),
            ..t
        };
        assert_eq!(
            small
                .preview(&s, 828_003, None)
                .unwrap()
                .validation
                .unwrap_err()
                .code(),
            "margin_below_minimum"
        );
    }
}
