//! Bust (liquidation) price, the liquidation test and risk (§5.2).

use alloy_primitives::U256;

use crate::protocol::units::WAD;

/// The price at which the position's equity is zero before the buffer:
/// long `entry − floor(entry/L)`, short `entry + floor(entry/L)`.
pub fn zero_equity_price(entry: u64, leverage: u32, is_long: bool) -> u64 {
    let step = entry / u64::from(leverage.max(1));
    if is_long {
        entry - step
    } else {
        entry.saturating_add(step)
    }
}

/// Bust price exactly as the contract stores it at open:
/// long `zero + floor(zero·buffer/1e18)`, short `zero − floor(zero·buffer/1e18)`.
pub fn bust_price(entry: u64, leverage: u32, is_long: bool, bust_buffer: u128) -> u64 {
    let zero = zero_equity_price(entry, leverage, is_long);
    let cushion = U256::from(zero) * U256::from(bust_buffer) / U256::from(WAD);
    let cushion = u64::try_from(cushion).unwrap_or(u64::MAX);
    if is_long {
        zero.saturating_add(cushion)
    } else {
        zero.saturating_sub(cushion)
    }
}

/// Liquidated when the mark reaches the bust price: long `mark <= bust`, short `mark >= bust`.
pub fn is_liquidated(mark: u64, bust: u64, is_long: bool) -> bool {
    if is_long { mark <= bust } else { mark >= bust }
}

/// How far the mark may still move against the position before it busts, in raw price units:
/// positive while it stands, zero or negative once the mark has reached bust. Divided by the
/// mark it is the "TO BUST" distance every screen and the alerts show.
pub fn room_to_bust(mark: u64, bust: u64, is_long: bool) -> i128 {
    let room = i128::from(mark) - i128::from(bust);
    if is_long { room } else { -room }
}

/// How far the mark has travelled from entry toward bust, in basis points, clamped 0..=10000
/// (`(entry − mark)/(entry − bust)` for a long; mirrored for a short).
pub fn risk_bps(entry: u64, bust: u64, mark: u64, is_long: bool) -> u32 {
    let (adverse, room) = if is_long {
        (
            i128::from(entry) - i128::from(mark),
            i128::from(entry) - i128::from(bust),
        )
    } else {
        (
            i128::from(mark) - i128::from(entry),
            i128::from(bust) - i128::from(entry),
        )
    };
    if room <= 0 {
        return 10_000;
    }
    (adverse.max(0) * 10_000 / room).clamp(0, 10_000) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    const BTC_BUFFER: u128 = 476_041_580_087_574;

    #[test]
    fn seed_example() {
        assert_eq!(bust_price(828003, 500, true, BTC_BUFFER), 826740);
    }

    #[test]
    fn risk_moves_from_zero_to_full() {
        assert_eq!(risk_bps(1000, 900, 1000, true), 0);
        assert_eq!(risk_bps(1000, 900, 950, true), 5000);
        assert_eq!(risk_bps(1000, 900, 800, true), 10_000);
        assert_eq!(risk_bps(1000, 900, 1100, true), 0);
        assert_eq!(risk_bps(1000, 1100, 1050, false), 5000);
    }

    #[test]
    fn room_is_positive_on_the_safe_side_for_both_sides() {
        assert_eq!(room_to_bust(1000, 900, true), 100);
        assert_eq!(room_to_bust(880, 900, true), -20);
        assert_eq!(room_to_bust(1000, 1100, false), 100);
        assert_eq!(room_to_bust(1120, 1100, false), -20);
    }

    #[test]
    fn liquidation_includes_the_bust_price_itself() {
        assert!(is_liquidated(900, 900, true));
        assert!(!is_liquidated(901, 900, true));
        assert!(is_liquidated(1100, 1100, false));
        assert!(!is_liquidated(1099, 1100, false));
    }
}
