//! Settlement math of §5, in integers at the contract's scales. Every rounding is the
//! contract's (toward zero); nothing here touches a float.

mod bust;
mod limits;
mod mint;
mod staking;
mod valuation;

pub use bust::{bust_price, is_liquidated, zero_equity_price};
pub(crate) use bust::{risk_bps, room_to_bust};
pub(crate) use limits::{Capacity, OpenCheck, OpenFunds, OpenRejection, check_open, open_capacity};
pub(crate) use mint::tail_progress;
pub use mint::{MINT_CLIFF, MINT_DECAY, MINT_RATE, mint_amount, mint_basis, mint_rate};
pub use staking::{ACC_SCALE, staking_accrued, staking_reward};
// Price conversions live beside the wire types that use them; re-exported for the math.
pub use super::price::price_raw_from_text;
pub use valuation::{LOSS_FEE_RATE, deadband, value_close};
pub(crate) use valuation::{Valuation, loss_fee, move_pnl};
