//! Settlement math of §5, in integers at the contract's scales. Every rounding is the
//! contract's (toward zero); nothing here touches a float.

mod bust;
mod limits;
mod mint;
mod valuation;

pub use bust::{bust_price, is_liquidated, risk_bps, room_to_bust, zero_equity_price};
pub use limits::{
    Capacity, CapacityLimit, OpenCheck, OpenFunds, OpenRejection, check_open, oi_headroom,
    open_capacity,
};
pub use mint::{MINT_CLIFF, MINT_DECAY, MINT_RATE, mint_amount, mint_rate, tail_progress};
// Price conversions live beside the wire types that use them; re-exported for the math.
pub use super::price::{MathError, mid, price_raw_from_text};
pub use valuation::{
    LOSS_FEE_RATE, Valuation, deadband, loss_fee, move_pnl, settlement_exit, value_close,
};
