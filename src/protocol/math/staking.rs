//! PAPER staking rewards (§5.5): a reward accumulator per staked PAPER, scaled by 1e27
//! (`accRewardPerShareRaw`, §3.1), and each account's `pendingBase` and `rewardDebt`. One formula
//! for the client's "reward pending" and the simulator's stake, unstake and claim.

use alloy_primitives::U256;

/// The accumulator's scale.
pub const ACC_SCALE: u128 = 1_000_000_000_000_000_000_000_000_000;

/// What `staked` PAPER has accrued at accumulator `acc` (wad): `floor(staked·acc/1e27)`,
/// saturating at `u128::MAX`.
pub fn staking_accrued(staked: u128, acc: U256) -> u128 {
    let accrued = U256::from(staked).saturating_mul(acc) / U256::from(ACC_SCALE);
    u128::try_from(accrued).unwrap_or(u128::MAX)
}

/// The USDC reward owed now (wad): `pendingBase + accrued − rewardDebt`, saturating at zero.
pub fn staking_reward(pending_base: u128, staked: u128, reward_debt: u128, acc: U256) -> u128 {
    pending_base
        .saturating_add(staking_accrued(staked, acc))
        .saturating_sub(reward_debt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewards_accrue_per_staked_paper_and_floor() {
        // 0.5 USDC per PAPER: 3 PAPER staked accrue 1.5 USDC.
        let wad = 1_000_000_000_000_000_000u128;
        let acc = U256::from(ACC_SCALE / 2);
        assert_eq!(staking_accrued(3 * wad, acc), 3 * wad / 2);
        // Floored: one wei of PAPER at less than a whole unit per share accrues nothing.
        assert_eq!(staking_accrued(1, acc), 0);
        // pendingBase + accrued − rewardDebt, never below zero.
        assert_eq!(staking_reward(7, 3 * wad, wad, acc), 7 + wad / 2);
        assert_eq!(staking_reward(0, 0, 5, acc), 0);
        assert_eq!(staking_accrued(u128::MAX, U256::MAX), u128::MAX);
    }
}
