//! Pre-trade quotes composed from the protocol math: what an open would look like, where it
//! busts, whether the relayer would take it, and what a close pays at a set of exits. Pure: the
//! scriptable commands and the order ticket share it, so both show the same numbers.

use crate::protocol::math::{
    OpenCheck, OpenFunds, OpenRejection, Valuation, bust_price, check_open, is_liquidated,
    move_pnl, value_close,
};
use crate::protocol::trading::{Instrument, TradingState};
use serde_json::Value;

use crate::protocol::units::{json_number, parse_signed_scaled, round_scaled, trim_zeros};

/// Leverage steps of the ladder (seed `quote_leverage_ladder`); the market maximum is added.
pub(crate) const LADDER_LEVERAGES: [u32; 11] = [1, 2, 3, 5, 10, 25, 50, 100, 250, 500, 1000];

/// Price moves (percent, signed in the position's favour) of the default scenario ladder.
pub(crate) const DEFAULT_MOVES_PCT: [&str; 6] = ["0.1", "0.5", "1", "2", "5", "10"];

/// The browser terminal's six-step close ladder (`quote_open_position`'s `ladder`), in quarters
/// of the move that takes the whole margin at leverage L (100/L percent), adverse to favourable
/// for a long: −100/L % is at or past the bust, so the first (long) or last (short) step is
/// always the liquidation, and the others show what the same stake earns or loses on the way.
pub(crate) const CLOSE_LADDER_QUARTERS: [i64; 6] = [-4, -2, -1, 1, 2, 4];

/// One exit scenario of a position. Amounts are wads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// The exit mark (raw).
    pub exit: u64,
    /// `floor(M·L·|exit − entry|/entry)` before the deadband, signed: what the move alone gives.
    pub gross_pnl: i128,
    /// The contract's settlement of a close at `exit` (deadband, haircut, fee).
    pub valuation: Valuation,
    /// The mark is at or beyond the bust price: the whole margin is forfeited.
    pub liquidated: bool,
}

impl Scenario {
    pub(crate) fn adjusted_pnl(&self, margin: u128) -> i128 {
        if self.liquidated {
            -(margin as i128)
        } else {
            self.valuation.adjusted_pnl
        }
    }
    pub(crate) fn win_fee(&self) -> u128 {
        if self.liquidated {
            0
        } else {
            self.valuation.win_fee
        }
    }
    pub(crate) fn net_pnl(&self, margin: u128) -> i128 {
        if self.liquidated {
            -(margin as i128)
        } else {
            self.valuation.net_pnl
        }
    }
}

/// A position as it would be opened.
#[derive(Debug, Clone)]
pub struct Position<'a> {
    pub market: &'a Instrument,
    pub is_long: bool,
    /// wad
    pub margin: u128,
    pub leverage: u32,
    /// raw
    pub entry: u64,
}

impl<'a> Position<'a> {
    /// A position the account already holds, to value at a mark.
    pub(crate) fn held(market: &'a Instrument, p: &crate::protocol::account::Position) -> Self {
        Self {
            market,
            is_long: p.is_long,
            margin: p.margin,
            leverage: p.leverage,
            entry: p.entry_price,
        }
    }

    pub(crate) fn notional(&self) -> u128 {
        self.margin.saturating_mul(u128::from(self.leverage))
    }

    pub(crate) fn bust(&self) -> u64 {
        bust_price(
            self.entry,
            self.leverage,
            self.is_long,
            self.market.bust_buffer,
        )
    }

    /// What closing at `exit` pays, including the liquidation case.
    pub fn scenario(&self, win_fee_rate: u128, exit: u64) -> Scenario {
        Scenario {
            exit,
            gross_pnl: move_pnl(self.entry, exit, self.margin, self.leverage, self.is_long),
            valuation: value_close(
                self.market,
                win_fee_rate,
                self.entry,
                self.margin,
                self.leverage,
                self.is_long,
                exit,
            ),
            liquidated: is_liquidated(exit, self.bust(), self.is_long),
        }
    }

    /// The §5.4 checks against `state`, with the mark for the open-interest cap and the account's
    /// funds when known.
    pub(crate) fn validate(
        &self,
        state: &TradingState,
        mark: Option<u64>,
        funds: Option<OpenFunds>,
    ) -> Result<(), OpenRejection> {
        check_open(&self.open_check(state, mark, funds))
    }

    /// This position as an open the relayer would check (from the balance, no account's
    /// positions known).
    pub(crate) fn open_check<'s>(
        &self,
        state: &'s TradingState,
        mark: Option<u64>,
        funds: Option<OpenFunds>,
    ) -> OpenCheck<'s>
    where
        'a: 's,
    {
        OpenCheck {
            state,
            market: self.market,
            is_long: self.is_long,
            margin: self.margin,
            leverage: self.leverage,
            use_debt: false,
            mark,
            funds,
            positions: None,
            queued: None,
        }
    }

    /// The default ladder: favourable and adverse moves of [`DEFAULT_MOVES_PCT`] plus the bust
    /// price itself, ordered by exit price, each exit once.
    /// The exits of the close ladder ([`CLOSE_LADDER_QUARTERS`]), lowest first:
    /// `round(entry·(4L + q)/(4L))` for each signed quarter q, half away from zero. Exact in
    /// integers, so the −100/L % step is `entry·(L−1)/L` (a long's liquidation, the seed's
    /// 10x example: entry 100,000 → exit 90,000) whatever L is.
    pub(crate) fn close_ladder_exits(&self) -> Vec<u64> {
        let quarters = 4 * i128::from(self.leverage);
        CLOSE_LADDER_QUARTERS
            .iter()
            .filter_map(|q| {
                let factor = u128::try_from(quarters + i128::from(*q)).ok()?;
                let den = quarters as u128;
                let exit = (u128::from(self.entry) * factor + den / 2) / den;
                u64::try_from(exit).ok()
            })
            .collect()
    }

    pub(crate) fn default_exits(&self) -> Vec<u64> {
        let mut exits = Vec::new();
        for pct in DEFAULT_MOVES_PCT {
            for favourable in [true, false] {
                let up = favourable == self.is_long;
                let signed = if up {
                    pct.to_string()
                } else {
                    format!("-{pct}")
                };
                if let Ok(exit) = exit_from_move(self.entry, &signed) {
                    exits.push(exit);
                }
            }
        }
        exits.push(self.bust());
        exits.sort_unstable();
        exits.dedup();
        exits
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MoveError {
    #[error("must be a percentage between -100 and 100 with at most 6 decimals, got {0:?}")]
    Invalid(String),
    #[error("moves the price to zero or below")]
    NoPrice,
    #[error("moves the price out of the contract's range")]
    OutOfRange,
}

/// The exit for a signed percent move: `round(entry × (100 + pct) / 100)`, half away from zero.
pub(crate) fn exit_from_move(entry: u64, pct: &str) -> Result<u64, MoveError> {
    let (negative, magnitude) =
        parse_signed_scaled(pct, 6).map_err(|_| MoveError::Invalid(pct.to_string()))?;
    const HUNDRED: u128 = 100_000_000; // 100 % at 1e6
    if magnitude > HUNDRED {
        return Err(MoveError::Invalid(pct.to_string()));
    }
    let factor = if negative {
        HUNDRED - magnitude
    } else {
        HUNDRED + magnitude
    };
    let scaled = u128::from(entry) * factor;
    let exit = (scaled + HUNDRED / 2) / HUNDRED;
    if exit == 0 {
        return Err(MoveError::NoPrice);
    }
    u64::try_from(exit).map_err(|_| MoveError::OutOfRange)
}

/// `numerator / denominator × multiplier` rounded half away from zero to `places`, as text.
fn ratio_text(numerator: i128, denominator: u128, multiplier: u128, places: u32) -> String {
    use alloy_primitives::U256;
    if denominator == 0 {
        return "0".into();
    }
    // One extra digit, then round it away exactly.
    let scale = U256::from(10u128.pow(places + 1)) * U256::from(multiplier);
    let extended = U256::from(numerator.unsigned_abs()) * scale / U256::from(denominator);
    round_scaled(
        numerator < 0,
        u128::try_from(extended).unwrap_or(u128::MAX),
        places + 1,
        places,
    )
}

/// `numerator / denominator × 100` rounded half away from zero to `places` decimals, as text.
pub(crate) fn percent_text(numerator: i128, denominator: u128, places: u32) -> String {
    ratio_text(numerator, denominator, 100, places)
}

/// As [`percent_text`], an exact JSON number.
pub(crate) fn percent_json(numerator: i128, denominator: u128, places: u32) -> Value {
    json_number(trim_zeros(&percent_text(numerator, denominator, places)))
}

/// `numerator / denominator` (a fraction, not ×100) rounded to `places`, as an exact JSON number.
pub(crate) fn fraction_json(numerator: i128, denominator: u128, places: u32) -> Value {
    json_number(trim_zeros(&ratio_text(numerator, denominator, 1, places)))
}

/// The leverages of a ladder for a market whose ceiling is `max`: the standard steps up to the
/// ceiling, then the ceiling itself.
pub(crate) fn ladder_leverages(max: u32) -> Vec<u32> {
    let mut steps: Vec<u32> = LADDER_LEVERAGES
        .iter()
        .copied()
        .filter(|l| *l < max)
        .collect();
    steps.push(max);
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::units::WAD;

    fn state() -> TradingState {
        TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap()
    }

    #[test]
    fn the_seed_estimate_reproduces() {
        let s = state();
        let p = Position {
            market: s.market("BTC").unwrap(),
            is_long: true,
            margin: 100 * WAD,
            leverage: 500,
            entry: 828003,
        };
        assert_eq!(p.bust(), 826740);
        let exit = exit_from_move(p.entry, "0.1").unwrap();
        assert_eq!(exit, 828831);
        let sc = p.scenario(s.win_fee_rate(), exit);
        assert_eq!(
            round_scaled(false, sc.adjusted_pnl(p.margin) as u128, 18, 2),
            "36.99"
        );
        assert_eq!(round_scaled(false, sc.win_fee(), 18, 2), "0.74");
        assert_eq!(
            round_scaled(false, sc.net_pnl(p.margin) as u128, 18, 2),
            "36.25"
        );
        assert_eq!(round_scaled(false, sc.gross_pnl as u128, 18, 2), "50.00");
        assert_eq!(
            percent_text(i128::from(p.entry - p.bust()), u128::from(p.entry), 4),
            "0.1525"
        );
        assert_eq!(
            fraction_json(sc.net_pnl(p.margin), sc.gross_pnl as u128, 4),
            0.7249
        );
        assert_eq!(
            percent_json(sc.net_pnl(p.margin), p.margin, 1).to_string(),
            "36.2"
        );
        assert!(p.validate(&s, Some(828003), None).is_ok());
    }

    #[test]
    fn ladders() {
        assert_eq!(ladder_leverages(1000), LADDER_LEVERAGES.to_vec());
        assert_eq!(ladder_leverages(40), vec![1, 2, 3, 5, 10, 25, 40]);
        let s = state();
        let p = Position {
            market: s.market("ETH").unwrap(),
            is_long: false,
            margin: 25 * WAD,
            leverage: 5,
            entry: 250000,
        };
        let exits = p.default_exits();
        assert_eq!(exits.len(), 13);
        assert!(exits.contains(&p.bust()));
        assert!(exits.windows(2).all(|w| w[0] < w[1]));
    }

    /// The terminal's six steps: the seed's 10x example starts at −10 % (100,000 → 90,000),
    /// liquidated; the adverse extreme is the liquidation at every leverage and side.
    #[test]
    fn the_close_ladder_has_six_steps_and_its_adverse_end_busts() {
        let s = state();
        let btc = s.market("BTC").unwrap();
        let p = Position {
            market: btc,
            is_long: true,
            margin: 50 * WAD,
            leverage: 10,
            entry: 1_000_000,
        };
        assert_eq!(
            p.close_ladder_exits(),
            [900_000, 950_000, 975_000, 1_025_000, 1_050_000, 1_100_000]
        );
        for leverage in [1, 2, 3, 7, 10, 333, 1000] {
            for is_long in [true, false] {
                let p = Position {
                    leverage,
                    is_long,
                    entry: 828_003,
                    ..p
                };
                let exits = p.close_ladder_exits();
                assert_eq!(exits.len(), 6, "{leverage}x");
                assert!(exits.windows(2).all(|w| w[0] < w[1]), "{leverage}x");
                let adverse = if is_long { exits[0] } else { exits[5] };
                let fee = s.win_fee_rate();
                assert!(p.scenario(fee, adverse).liquidated, "{leverage}x {is_long}");
                let favourable = if is_long { exits[5] } else { exits[0] };
                assert!(!p.scenario(fee, favourable).liquidated, "{leverage}x");
            }
        }
    }

    #[test]
    fn moves() {
        assert_eq!(exit_from_move(1000, "-100"), Err(MoveError::NoPrice));
        assert!(exit_from_move(1000, "101").is_err());
        assert!(exit_from_move(1000, "abc").is_err());
        assert_eq!(exit_from_move(1000, "-0.05"), Ok(1000)); // 999.5 rounds half up
        assert_eq!(exit_from_move(1000, "+10"), Ok(1100));
    }
}
