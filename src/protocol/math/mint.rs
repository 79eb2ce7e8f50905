//! PAPER mint rate and amount (§5.5).

use alloy_primitives::U256;

use crate::protocol::units::{WAD, u256_to_u128};

/// The launch mint curve (§5.5): 100 PAPER per $1 of loss basis, flat below a $2M cliff of
/// tracked LP, then decaying over $120M of tail. The exchange reports the same values in the
/// summary's `paper` block; a simulator or a test that needs the curve without a summary uses
/// these.
pub const MINT_RATE: u128 = 100 * WAD;
pub const MINT_CLIFF: u128 = 2_000_000 * WAD;
pub const MINT_DECAY: u128 = 120_000_000 * WAD;

/// `tailProgress` (§5.5): the high-water LP's gain past the cliff, zero below it.
pub fn tail_progress(lp_high_water: i128) -> u128 {
    // i128 holds every LP; below the cliff (or negative) there is no tail yet.
    lp_high_water.saturating_sub(MINT_CLIFF as i128).max(0) as u128
}

/// PAPER minted per $1 of loss basis (1e18): the flat `rate` while the tracked LP is below the
/// cliff (or negative); past it, `floor(floor(rate·decay/(decay+tail))·decay/(decay+tail))`.
pub fn mint_rate(
    rate: u128,
    cliff: u128,
    decay: u128,
    tracked_lp: i128,
    tail_progress: u128,
) -> u128 {
    if tracked_lp < 0 || (tracked_lp as u128) < cliff {
        return rate;
    }
    let decay = U256::from(decay);
    let denominator = decay + U256::from(tail_progress);
    if denominator.is_zero() {
        return rate;
    }
    let once = U256::from(rate) * decay / denominator;
    u256_to_u128(once * decay / denominator)
}

/// The loss basis a close mints PAPER on (§5.5), wad: the whole margin on a liquidation; on a
/// loss, the loss less the 2% LP-side fee while the payout queue is empty, the whole loss while
/// it is active; nothing on a win or a flat close. `net` is the close's net PnL (a loss is paid
/// 1:1, so its magnitude is the loss).
pub fn mint_basis(margin: u128, net: i128, liquidated: bool, queue_active: bool) -> u128 {
    if liquidated {
        return margin;
    }
    if net >= 0 {
        return 0;
    }
    let loss = net.unsigned_abs();
    if queue_active {
        loss
    } else {
        loss - super::valuation::loss_fee(loss)
    }
}

/// PAPER minted for a loss basis (wad) at `rate`: `floor(basis·rate/1e18)`.
pub fn mint_amount(basis: u128, rate: u128) -> u128 {
    u256_to_u128(U256::from(basis) * U256::from(rate) / U256::from(WAD))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_below_the_cliff() {
        let rate = 100 * WAD;
        assert_eq!(
            mint_rate(rate, 2_000_000 * WAD, 120_000_000 * WAD, -5, 10),
            rate
        );
        assert_eq!(
            mint_rate(
                rate,
                2_000_000 * WAD,
                120_000_000 * WAD,
                1_999_999 * WAD as i128,
                10
            ),
            rate
        );
        assert_eq!(mint_amount(2 * WAD, rate), 200 * WAD);
    }

    /// protocol.md §5.5's vector, on the launch constants.
    #[test]
    fn the_launch_curve_gives_the_published_rate() {
        let rate = mint_rate(
            MINT_RATE,
            MINT_CLIFF,
            MINT_DECAY,
            4_840_851_053_562_728_341_709_751,
            114_265_779_761_243_460_574_521_289,
        );
        assert_eq!(rate, 26_238_849_242_755_169_239);
    }

    /// §5.5's rule, and the recorded close 411276 (a $0.108141… loss, queue empty): its basis
    /// is 98% of the loss.
    #[test]
    fn the_basis_follows_the_close() {
        let loss: i128 = -108_141_232_449_579_150;
        assert_eq!(
            mint_basis(10 * WAD, loss, false, false),
            108_141_232_449_579_150 - 2_162_824_648_991_583
        );
        assert_eq!(
            mint_basis(10 * WAD, loss, false, true),
            108_141_232_449_579_150
        );
        assert_eq!(
            mint_basis(10 * WAD, -10 * WAD as i128, true, false),
            10 * WAD
        );
        assert_eq!(mint_basis(10 * WAD, 5, false, false), 0);
        assert_eq!(mint_basis(10 * WAD, 0, false, true), 0);
    }

    #[test]
    fn the_tail_starts_at_the_cliff() {
        assert_eq!(tail_progress(-5), 0);
        assert_eq!(tail_progress(MINT_CLIFF as i128), 0);
        assert_eq!(tail_progress(MINT_CLIFF as i128 + 7), 7);
    }
}
