//! The practice controls (`/sim/*`, never part of the real API) as engine operations. The HTTP
//! face only decodes a body, calls one of these and encodes the answer; every rule of a control
//! (bounds, vocabulary, what else reacts) lives here.

use alloy_primitives::Address;

use crate::protocol::units::{WAD, parse_scaled};

use super::engine::{Engine, Notice};
use super::exchange::Exchange;
use super::intake::Refusal;

/// A trillion dollars per deposit keeps every sum far inside u128.
const MAX_DEPOSIT_USD: u128 = 1_000_000_000_000;
/// At most 30 days per clock step: a step is ticked through, so a year would hang the server.
const MAX_CLOCK_STEP_MS: u64 = 30 * 86_400_000;
/// The refusal of a clock step that is not a whole number of milliseconds within bounds.
pub(crate) const CLOCK_STEP_RULE: &str =
    "advanceMs must be a whole number of milliseconds up to 30 days";

/// INVENTED code for the practice controls.
pub(crate) fn invalid_control(message: impl Into<String>) -> Refusal {
    Refusal::new(400, "invalid_control", message)
}

/// What `/sim/price` left behind.
pub(crate) struct Pinned {
    pub symbol: String,
    pub mid: u64,
    pub pinned: bool,
}

/// A market's listing as `/sim/market` names it.
#[derive(Debug, Clone, Copy)]
enum Listing {
    Active,
    Paused,
    CloseOnly,
    Terminal,
}

impl Listing {
    fn parse(text: &str) -> Result<Self, Refusal> {
        match text {
            "active" => Ok(Self::Active),
            "paused" => Ok(Self::Paused),
            "closeOnly" => Ok(Self::CloseOnly),
            "terminal" => Ok(Self::Terminal),
            _ => Err(invalid_control(
                "status must be active, paused, closeOnly or terminal",
            )),
        }
    }
}

impl Engine {
    /// `/sim/fund`: credit a deposit of `amount` (wad); answers the new balance.
    pub(crate) fn deposit(&mut self, wallet: Address, amount: u128) -> Result<u128, Refusal> {
        if amount == 0 {
            return Err(invalid_control("amountUsd must be more than 0"));
        }
        if amount > MAX_DEPOSIT_USD * WAD {
            return Err(invalid_control(format!(
                "amountUsd must be at most {MAX_DEPOSIT_USD}"
            )));
        }
        self.fund(wallet, amount);
        Ok(self.account(wallet).map_or(0, |a| a.state.balance))
    }

    /// The index of the market a control names (symbol or id).
    pub(crate) fn control_market(&self, name: &str) -> Result<usize, Refusal> {
        self.trading
            .market(name)
            .map(|x| x.id)
            .and_then(|id| self.market_index(id))
            .ok_or_else(|| invalid_control(format!("unknown market {name:?}")))
    }

    /// `/sim/price`: pin market `i` at the decimal `price` (its own decimals), or let it walk
    /// again with `None`.
    pub(crate) fn pin_price(&mut self, i: usize, price: Option<&str>) -> Result<Pinned, Refusal> {
        let decimals = self.trading.instruments[i].price_decimals();
        let raw = match price {
            None => None,
            // Inside the contract's uint64 with room for the spread and every intermediate.
            Some(p) => match parse_scaled(p, decimals)
                .ok()
                .and_then(|r| u64::try_from(r).ok())
            {
                Some(r) if r > 0 && r <= u64::MAX / 4 => Some(r),
                _ => {
                    return Err(invalid_control(format!(
                        "price must be a positive decimal with at most {decimals} decimals"
                    )));
                }
            },
        };
        let now = self.now_ms();
        self.markets[i].pin(raw, now);
        // Liquidations react to the new mark at once, as they would at the next block.
        self.liquidate_crossed();
        Ok(Pinned {
            symbol: self.markets[i].symbol.clone(),
            mid: self.markets[i].mid(),
            pinned: raw.is_some(),
        })
    }

    /// `/sim/market`: list market `i` as `status`; answers its symbol and status label.
    pub(crate) fn set_listing(
        &mut self,
        i: usize,
        status: &str,
    ) -> Result<(String, &'static str), Refusal> {
        let listing = Listing::parse(status)?;
        let (bid, ask) = self.markets[i].bid_ask();
        let now = self.now_ms();
        let inst = &mut self.trading.instruments[i];
        let (paused, close_only, terminal) = match listing {
            Listing::Active => (false, false, false),
            Listing::Paused => (true, false, false),
            Listing::CloseOnly => (false, true, false),
            Listing::Terminal => (true, true, true),
        };
        inst.paused = paused;
        inst.close_only = close_only;
        inst.terminal = terminal;
        inst.frozen_bid = terminal.then_some(bid);
        inst.frozen_ask = terminal.then_some(ask);
        inst.paused_at_ms = (paused || terminal).then_some(now);
        let label = inst.status(self.trading.trading_paused).label();
        let symbol = inst.symbol.clone();
        // A terminal market marks at its frozen mid from now on.
        self.liquidate_crossed();
        Ok((symbol, label))
    }

    /// `/sim/trading`: the exchange-wide trading switch.
    pub(crate) fn set_trading_paused(&mut self, paused: bool) {
        self.trading.trading_paused = paused;
    }

    /// `/sim/intake`: close all intake, or only these actions; a new intake revision.
    pub(crate) fn set_intake(&mut self, all: bool, paused_actions: Vec<String>) {
        self.intake_all_paused = all;
        self.trading.intake.paused_actions = paused_actions;
        self.trading.intake.revision += 1;
    }

    /// `/sim/notice`: add an operator notice; answers how many are shown.
    pub(crate) fn post_notice(&mut self, notice: Notice) -> usize {
        self.notices.push(notice);
        self.notices.len()
    }

    /// `/sim/notice` with `clear`.
    pub(crate) fn clear_notices(&mut self) -> usize {
        self.notices.clear();
        self.notices.len()
    }
}

impl Exchange {
    /// `/sim/clock` is refused unless the simulator runs on the manual clock.
    pub(crate) fn check_manual_clock(&self) -> Result<(), Refusal> {
        if self.cfg.manual_clock {
            return Ok(());
        }
        Err(Refusal::new(
            409,
            "clock_not_manual",
            "start the simulator with --manual-clock",
        ))
    }

    /// `/sim/clock`: move the manual clock `step_ms` on, the crowd trading on the way; answers
    /// the new time.
    pub(crate) fn advance_clock(&mut self, step_ms: u64) -> Result<u64, Refusal> {
        self.check_manual_clock()?;
        if step_ms > MAX_CLOCK_STEP_MS {
            return Err(invalid_control(CLOCK_STEP_RULE));
        }
        let to = self.now_ms().saturating_add(step_ms);
        self.advance(to);
        Ok(self.now_ms())
    }
}
