//! Open positions valued at the live mark, once for every place that shows them: the positions
//! table, the close dialog and the header's totals. The numbers are the settlement's own
//! (`quote::Scenario`: deadband, impact haircut, 2% win fee, liquidation), so what the screen says
//! a close returns is what the contract would pay at that mark.

use crate::protocol::account::Position;
use crate::protocol::math::{risk_bps, room_to_bust};
use crate::protocol::trading::Instrument;

use super::state::App;

/// One open position and, when its market is listed and marked, what closing it now gives.
#[derive(Debug, Clone)]
pub struct Valued<'a> {
    pub position: &'a Position,
    /// `None`: the trading state does not list its market.
    pub market: Option<&'a Instrument>,
    pub mark: Option<u64>,
    pub value: Option<CloseValue>,
}

/// A close at the mark now, in wad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloseValue {
    /// Net PnL after the deadband, the impact haircut and the win fee (−margin if liquidated).
    pub net: i128,
    /// What comes back to the account: margin + net (0 when liquidated). Profit the pool cannot
    /// pay at once waits in the payout queue (`queued`) but is returned all the same.
    pub returns: i128,
    /// The mark is at or past the bust price: the margin is forfeited.
    pub liquidated: bool,
    /// How far the mark may still move against it (raw price units; negative past the bust).
    pub room: i128,
    /// How far the mark has gone from entry toward bust, 0–10000 bps.
    pub risk_bps: u32,
}

/// The sum over positions that could all be valued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub net: i128,
    pub returns: i128,
}

impl<'a> Valued<'a> {
    /// The market's symbol, or the instrument id of an unlisted one.
    pub fn symbol(&self) -> String {
        self.market
            .map(|m| m.symbol.clone())
            .unwrap_or_else(|| format!("#{}", self.position.instrument_id))
    }
}

impl App {
    /// Every open position, in the table's order, valued at the mark where that is possible.
    pub fn valued(&self) -> Vec<Valued<'_>> {
        let fee = self.trading.as_ref().map(|s| s.win_fee_rate());
        self.positions()
            .iter()
            .map(|p| {
                let market = self
                    .trading
                    .as_ref()
                    .and_then(|s| s.market_by_id(p.instrument_id));
                let mark = market.and_then(|m| self.marks.get(&m.id).copied());
                let value = match (market, mark, fee) {
                    (Some(m), Some(mark), Some(fee)) => {
                        let s = crate::quote::Position::held(m, p).scenario(fee, mark);
                        let net = s.net_pnl(p.margin);
                        Some(CloseValue {
                            net,
                            returns: (p.margin as i128).saturating_add(net).max(0),
                            liquidated: s.liquidated,
                            room: room_to_bust(mark, p.bust_price, p.is_long),
                            risk_bps: risk_bps(p.entry_price, p.bust_price, mark, p.is_long),
                        })
                    }
                    _ => None,
                };
                Valued {
                    position: p,
                    market,
                    mark,
                    value,
                }
            })
            .collect()
    }

    /// Net PnL and returns over `ids` (every open position when `None`); `None` when any of them
    /// cannot be valued, so a total is never silently partial.
    pub fn totals(&self, ids: Option<&[alloy_primitives::U256]>) -> Option<Totals> {
        self.valued()
            .iter()
            .filter(|v| ids.is_none_or(|ids| ids.contains(&v.position.id)))
            .try_fold(Totals { net: 0, returns: 0 }, |t, v| {
                let value = v.value?;
                Some(Totals {
                    net: t.net.saturating_add(value.net),
                    returns: t.returns.saturating_add(value.returns),
                })
            })
    }
}
