//! The scanned wallets' open positions valued at their markets' marks: the one list every
//! liquidation figure is computed from.

use std::collections::BTreeMap;

use alloy_primitives::{Address, U256};

use crate::protocol::account::AccountState;
use crate::protocol::math::room_to_bust;
use crate::protocol::trading::TradingState;

/// Distance-to-bust bands (basis points of the mark) behind the danger labels. The seed names a
/// label but no thresholds; these are ours: under 1% a routine wick busts the position, under
/// 5% an ordinary day's move does, under 15% a bad day's.
const CRITICAL_BPS: i128 = 100;
const HIGH_BPS: i128 = 500;
const ELEVATED_BPS: i128 = 1_500;

/// How close a position is to its bust price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Danger {
    /// The mark has reached the bust price: the next liquidation pass takes the margin.
    Liquidatable,
    Critical,
    High,
    Elevated,
    Low,
}

impl Danger {
    pub const ALL: [Danger; 5] = [
        Danger::Liquidatable,
        Danger::Critical,
        Danger::High,
        Danger::Elevated,
        Danger::Low,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Danger::Liquidatable => "liquidatable",
            Danger::Critical => "critical",
            Danger::High => "high",
            Danger::Elevated => "elevated",
            Danger::Low => "low",
        }
    }

    /// The band of a distance `room / mark` (room in raw price units, `mark` > 0).
    pub fn of(room: i128, mark: u64) -> Self {
        if room <= 0 {
            return Danger::Liquidatable;
        }
        // room/mark < bps/10000  ⇔  room·10000 < bps·mark (no overflow: both under 2^64·2^14).
        let below = |bps: i128| room.saturating_mul(10_000) < bps * i128::from(mark);
        if below(CRITICAL_BPS) {
            Danger::Critical
        } else if below(HIGH_BPS) {
            Danger::High
        } else if below(ELEVATED_BPS) {
            Danger::Elevated
        } else {
            Danger::Low
        }
    }
}

/// One open position of a scanned wallet at its market's mark. Amounts are wads, prices raw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtRisk {
    pub wallet: Address,
    pub position_id: U256,
    pub instrument_id: u32,
    pub symbol: String,
    pub price_scale: u64,
    pub is_long: bool,
    pub leverage: u32,
    pub margin: u128,
    /// margin × leverage.
    pub notional: u128,
    pub entry: u64,
    /// As the contract stored it at open (§5.2), from the account stream.
    pub bust: u64,
    pub mark: u64,
}

impl AtRisk {
    /// How far the mark may still move against the position before it busts, raw: positive
    /// while it stands, zero or negative once the mark has reached its bust.
    pub fn room(&self) -> i128 {
        room_to_bust(self.mark, self.bust, self.is_long)
    }

    pub fn danger(&self) -> Danger {
        Danger::of(self.room(), self.mark)
    }

    /// The mark has reached the bust price.
    pub fn past_bust(&self) -> bool {
        self.room() <= 0
    }
}

/// The valued positions, and how many could not be valued (market unlisted or no mark).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Book {
    pub positions: Vec<AtRisk>,
    pub unvalued: usize,
}

impl Book {
    /// The positions of one market (every market when `None`).
    pub fn in_market(&self, instrument_id: Option<u32>) -> impl Iterator<Item = &AtRisk> {
        self.positions
            .iter()
            .filter(move |p| instrument_id.is_none_or(|id| p.instrument_id == id))
    }
}

/// Every open position of `accounts`, valued at `marks` (raw per instrument id). Positions are
/// listed wallet by wallet in the accounts' order, each account's in its snapshot order.
pub fn book(accounts: &[AccountState], state: &TradingState, marks: &BTreeMap<u32, u64>) -> Book {
    let mut out = Book::default();
    for account in accounts {
        for p in &account.open_positions {
            let (Some(market), Some(&mark)) = (
                state.market_by_id(p.instrument_id),
                marks.get(&p.instrument_id),
            ) else {
                out.unvalued += 1;
                continue;
            };
            if mark == 0 {
                out.unvalued += 1;
                continue;
            }
            out.positions.push(AtRisk {
                wallet: account.address,
                position_id: p.id,
                instrument_id: p.instrument_id,
                symbol: market.symbol.clone(),
                price_scale: market.price_scale,
                is_long: p.is_long,
                leverage: p.leverage,
                margin: p.margin,
                notional: p.margin.saturating_mul(u128::from(p.leverage)),
                entry: p.entry_price,
                bust: p.bust_price,
                mark,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn danger_bands_follow_the_distance() {
        let mark = 100_000;
        assert_eq!(Danger::of(0, mark), Danger::Liquidatable);
        assert_eq!(Danger::of(-5, mark), Danger::Liquidatable);
        assert_eq!(Danger::of(999, mark), Danger::Critical);
        assert_eq!(Danger::of(1_000, mark), Danger::High);
        assert_eq!(Danger::of(4_999, mark), Danger::High);
        assert_eq!(Danger::of(5_000, mark), Danger::Elevated);
        assert_eq!(Danger::of(15_000, mark), Danger::Low);
    }
}
