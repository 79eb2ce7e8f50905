//! Open positions valued at the live mark, once for every place that shows them: the positions
//! table, the close dialog and the header's totals. Each value is
//! [`CloseValue::at`](crate::analytics::positions::CloseValue::at), the explorer's too.

pub use crate::analytics::positions::CloseValue;
use crate::protocol::account::Position;
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
                    (Some(m), Some(mark), Some(fee)) => Some(CloseValue::at(m, p, fee, mark)),
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
