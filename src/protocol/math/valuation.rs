//! What a close pays at a mark (§5.3): deadband, raw PnL, impact haircut, win fee.

use alloy_primitives::U256;

use crate::protocol::trading::Instrument;
use crate::protocol::units::{WAD, mul_div, u256_to_u128};

/// The settled value of closing a position at a mark. All amounts are wads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Valuation {
    /// The exit the contract settles at, after the deadband (raw price).
    pub exit: u64,
    /// `floor(M·L·|exit − entry| / entry)`, signed by direction.
    pub raw_pnl: i128,
    /// After the impact haircut (wins) or the margin floor (losses).
    pub adjusted_pnl: i128,
    /// `floor(adjusted · winFeeRate / 1e18)` on wins, 0 on losses.
    pub win_fee: u128,
    /// What the close credits on top of the returned margin.
    pub net_pnl: i128,
    /// The impact factor kept on a win (1e18 fraction); `None` for losses and flat exits.
    pub keep: Option<u128>,
}

/// The LP-side fee on a loss or a liquidated margin (§5.5): 2%, as `lossFeeRate` and
/// `liquidationFeeRate` read on chain. Not part of a close's net PnL: the LP keeps it.
pub const LOSS_FEE_RATE: u128 = 20_000_000_000_000_000;

/// `floor(amount · lossFeeRate / 1e18)`, with a 256-bit product.
pub fn loss_fee(amount: u128) -> u128 {
    u256_to_u128(mul_div(
        U256::from(amount),
        U256::from(LOSS_FEE_RATE),
        U256::from(WAD),
    ))
}

/// The deadband: `floor(entry / 50000)` raw units (0.2 bp).
pub fn deadband(entry: u64) -> u64 {
    entry / 50_000
}

/// The exit price the contract settles at: a winning exit is moved toward entry by the
/// deadband, and a win smaller than the band settles flat at entry. Losses are untouched.
pub fn settlement_exit(entry: u64, mark: u64, is_long: bool) -> u64 {
    let band = deadband(entry);
    if is_long {
        if u128::from(mark) > u128::from(entry) + u128::from(band) {
            mark - band
        } else if mark > entry {
            entry
        } else {
            mark
        }
    } else if u128::from(mark) + u128::from(band) < u128::from(entry) {
        mark + band
    } else if mark < entry {
        entry
    } else {
        mark
    }
}

/// `floor(M·L·|exit − entry| / entry)`, positive when `exit` is in the position's favour.
/// At the settlement exit this is §5.3's raw PnL; at a plain mark it is the move's gross PnL.
pub fn move_pnl(entry: u64, exit: u64, margin: u128, leverage: u32, is_long: bool) -> i128 {
    if entry == 0 {
        return 0;
    }
    let notional = U256::from(margin) * U256::from(leverage);
    let magnitude = mul_div(
        notional,
        U256::from(exit.abs_diff(entry)),
        U256::from(entry),
    );
    let magnitude = i128::try_from(u256_to_u128(magnitude)).unwrap_or(i128::MAX);
    let favourable = if is_long { exit > entry } else { exit < entry };
    if favourable { magnitude } else { -magnitude }
}

/// Value a whole-position close at raw `mark` exactly as the contract settles it.
/// A position whose mark has crossed its bust price is liquidated instead; see
/// [`super::is_liquidated`] — this function values the close the trader would get otherwise.
pub fn value_close(
    market: &Instrument,
    win_fee_rate: u128,
    entry: u64,
    margin: u128,
    leverage: u32,
    is_long: bool,
    mark: u64,
) -> Valuation {
    let exit = settlement_exit(entry, mark, is_long);
    // A zero entry cannot exist on chain; value it flat rather than divide by zero.
    let wins = entry != 0 && if is_long { exit > entry } else { exit < entry };
    let magnitude = move_pnl(entry, exit, margin, leverage, is_long).abs();
    if !wins {
        let margin_i = i128::try_from(margin).unwrap_or(i128::MAX);
        let raw_pnl = -magnitude;
        let adjusted = raw_pnl.max(-margin_i);
        return Valuation {
            exit,
            raw_pnl,
            adjusted_pnl: adjusted,
            win_fee: 0,
            net_pnl: adjusted,
            keep: None,
        };
    }

    let keep = impact_keep(market, entry, exit);
    let adjusted = u256_to_u128(U256::from(magnitude as u128) * U256::from(keep) / U256::from(WAD));
    let fee = u256_to_u128(U256::from(adjusted) * U256::from(win_fee_rate) / U256::from(WAD));
    let adjusted_i = adjusted as i128;
    Valuation {
        exit,
        raw_pnl: magnitude,
        adjusted_pnl: adjusted_i,
        win_fee: fee,
        net_pnl: adjusted_i - fee as i128,
        keep: Some(keep),
    }
}

/// The impact haircut's kept fraction (1e18) for a winning move from `entry` to `exit`:
/// `keep = floor((1e18 − baseRate)·1e18 / (1e18 + t1 + t2))`, 0 when the move is too small.
fn impact_keep(market: &Instrument, entry: u64, exit: u64) -> u128 {
    let wad = U256::from(WAD);
    let one_e36 = wad * wad;
    let mv = U256::from(exit.abs_diff(entry)) * wad / U256::from(entry);
    let rate_term = mv * U256::from(market.rate_multiplier) / wad;
    let size_term = mul_div(
        U256::from(1_000_000u64) * mv,
        U256::from(market.position_multiplier),
        wad,
    );
    if rate_term.is_zero() || size_term.is_zero() {
        return 0;
    }
    let t1 = one_e36 / rate_term;
    let t2 = U256::from(market.reference_notional) * wad / size_term;
    if t1 > one_e36 || t2 > one_e36 {
        return 0;
    }
    let keep = (wad - U256::from(market.base_rate)) * wad / (wad + t1 + t2);
    u256_to_u128(keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::trading::TradingState;

    fn btc() -> Instrument {
        TradingState::decode(include_str!("../../../assets/trading_mainnet.json"))
            .unwrap()
            .market("BTC")
            .unwrap()
            .clone()
    }

    const FEE: u128 = 20_000_000_000_000_000;

    #[test]
    fn seed_mcp_example() {
        // 82800.3 → 82883.1, $100, 500x: raw 49.0336, adjusted 36.986, fee 0.7397, net 36.246.
        let v = value_close(&btc(), FEE, 828003, 100 * WAD, 500, true, 828831);
        assert_eq!(v.exit, 828815);
        assert_eq!(v.raw_pnl / 10i128.pow(14), 490_336);
        assert_eq!(v.adjusted_pnl / 10i128.pow(15), 36_986);
        assert_eq!(v.win_fee / 10u128.pow(14), 7_397);
        assert_eq!(v.net_pnl / 10i128.pow(15), 36_246);
    }

    #[test]
    fn three_ws_anchors() {
        // $100 100x at 83065.5: +0.01% raw 0.806592 → paid 0.212458; +1% raw 99.800759 → paid 86.384648.
        let e = 830655;
        let up_small = value_close(&btc(), FEE, e, 100 * WAD, 100, true, e + 83);
        assert_eq!(up_small.raw_pnl / 10i128.pow(12), 806_592);
        assert_eq!(up_small.net_pnl / 10i128.pow(12), 212_458);
        let up_one = value_close(&btc(), FEE, e, 100 * WAD, 100, true, e + 8306);
        assert_eq!(up_one.raw_pnl / 10i128.pow(12), 99_800_759);
        assert_eq!(up_one.net_pnl / 10i128.pow(12), 86_384_648);
    }

    #[test]
    fn deadband_moves_and_flat_exits() {
        assert_eq!(settlement_exit(1_000_000, 1_000_020, true), 1_000_000);
        assert_eq!(settlement_exit(1_000_000, 1_000_021, true), 1_000_001);
        assert_eq!(settlement_exit(1_000_000, 999_990, true), 999_990);
        assert_eq!(settlement_exit(1_000_000, 999_980, false), 1_000_000);
        assert_eq!(settlement_exit(1_000_000, 999_979, false), 999_999);
        assert_eq!(settlement_exit(1_000_000, 1_000_010, false), 1_000_010);
        let flat = value_close(&btc(), FEE, 1_000_000, 10 * WAD, 100, true, 1_000_020);
        assert_eq!((flat.raw_pnl, flat.net_pnl), (0, 0));
    }

    #[test]
    fn losses_are_capped_at_the_margin_and_pay_no_fee() {
        let v = value_close(&btc(), FEE, 1_000_000, 10 * WAD, 100, true, 900_000);
        assert_eq!(v.raw_pnl, -100 * WAD as i128);
        assert_eq!(v.adjusted_pnl, -(10 * WAD as i128));
        assert_eq!(v.win_fee, 0);
    }
}
