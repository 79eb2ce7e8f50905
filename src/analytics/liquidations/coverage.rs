//! How much of the protocol a scan saw: the scanned positions' open interest against the
//! markets' (`/state/trading` `longOi + shortOi`), both valued at the mark. Every liquidation
//! figure is reported beside it: the small wallets the scan left out are not in the figures.

use std::collections::BTreeMap;

use alloy_primitives::U256;

use crate::protocol::trading::TradingState;
use crate::protocol::units::{mul_div, u256_to_u128};

use super::book::Book;

/// Scanned and total open interest in USD at the mark (wads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub scanned_usd: u128,
    pub total_usd: u128,
}

/// The base-asset quantity a position adds to open interest: `notional × priceScale / entry`
/// (18 dp). INFERRED: the exchange reports OI in base-asset quantity (§3.1 fields 19–20) and
/// the simulator books it this way; the contract's own rounding is not published.
pub fn oi_quantity(notional: u128, price_scale: u64, entry: u64) -> u128 {
    u256_to_u128(mul_div(
        U256::from(notional),
        U256::from(price_scale),
        U256::from(entry.max(1)),
    ))
}

/// A base-asset quantity (18 dp) in USD wads at `mark`.
fn at_mark(quantity: u128, mark: u64, price_scale: u64) -> u128 {
    u256_to_u128(mul_div(
        U256::from(quantity),
        U256::from(mark),
        U256::from(price_scale.max(1)),
    ))
}

/// Coverage of one market (every market with a mark when `None`).
pub fn coverage(
    book: &Book,
    state: &TradingState,
    marks: &BTreeMap<u32, u64>,
    instrument_id: Option<u32>,
) -> Coverage {
    let mut out = Coverage::default();
    for market in &state.instruments {
        if instrument_id.is_some_and(|id| id != market.id) {
            continue;
        }
        let Some(&mark) = marks.get(&market.id) else {
            continue;
        };
        let scanned: u128 = book
            .in_market(Some(market.id))
            .map(|p| oi_quantity(p.notional, p.price_scale, p.entry))
            .fold(0, u128::saturating_add);
        let total = market.long_oi.saturating_add(market.short_oi);
        out.scanned_usd =
            out.scanned_usd
                .saturating_add(at_mark(scanned, mark, market.price_scale));
        out.total_usd = out
            .total_usd
            .saturating_add(at_mark(total, mark, market.price_scale));
    }
    out
}
