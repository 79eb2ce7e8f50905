//! PAPER mint rate and amount (§5.5).

use alloy_primitives::U256;

use crate::protocol::units::{WAD, u256_to_u128};

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
}
