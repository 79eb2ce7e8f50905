//! An open position valued at a mark: what closing it there pays, how far the bust is. One
//! computation for every place that shows a position (the terminal's positions table and
//! header, the explorer's wallet figures): the settlement's own numbers (`quote::Scenario`:
//! deadband, impact haircut, 2% win fee, liquidation, §5.3), so what a screen says a close
//! returns is what the contract would pay at that mark.

use crate::protocol::account::Position;
use crate::protocol::math::{risk_bps, room_to_bust};
use crate::protocol::trading::Instrument;

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

impl CloseValue {
    /// `p` (in `market`) closed at the raw `mark` under the win fee rate `fee` (1e18).
    pub fn at(market: &Instrument, p: &Position, fee: u128, mark: u64) -> Self {
        let s = crate::protocol::pretrade::Position::held(market, p).scenario(fee, mark);
        let net = s.net_pnl(p.margin);
        CloseValue {
            net,
            returns: (p.margin as i128).saturating_add(net).max(0),
            liquidated: s.liquidated,
            room: room_to_bust(mark, p.bust_price, p.is_long),
            risk_bps: risk_bps(p.entry_price, p.bust_price, mark, p.is_long),
        }
    }
}
