//! Property tests of the settlement invariants and of signing.

use alloy_primitives::{Address, U256};
use papertrade_tui::protocol::eip712::{OpenPosition, SessionSigner, Signed};
use papertrade_tui::protocol::math::{
    bust_price, deadband, is_liquidated, value_close, zero_equity_price,
};
use papertrade_tui::protocol::trading::{Instrument, TradingState};
use proptest::prelude::*;

const WAD: u128 = 1_000_000_000_000_000_000;
const FEE: u128 = 20_000_000_000_000_000;

fn market(symbol: &str) -> Instrument {
    TradingState::decode(include_str!("../../assets/trading_mainnet.json"))
        .unwrap()
        .market(symbol)
        .unwrap()
        .clone()
}

fn any_market() -> impl Strategy<Value = Instrument> {
    prop_oneof![Just(market("BTC")), Just(market("ETH"))]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// A long's bust lies between its zero-equity price and entry; a short's mirrored.
    #[test]
    fn bust_lies_between_zero_equity_and_entry(
        entry in 1u64..=u64::MAX / 2,
        leverage in 1u32..=1000,
        // Up to 5 bps: both markets' recorded buffers are under 4.9 bps. At 1000x a buffer of
        // 10 bps (1/L) would put a short's bust below its entry, an instant liquidation.
        buffer in 0u128..=500_000_000_000_000,
    ) {
        let long = bust_price(entry, leverage, true, buffer);
        let long_zero = zero_equity_price(entry, leverage, true);
        prop_assert!(long_zero <= long && long <= entry, "long {long_zero} <= {long} <= {entry}");
        let short = bust_price(entry, leverage, false, buffer);
        let short_zero = zero_equity_price(entry, leverage, false);
        prop_assert!(entry <= short && short <= short_zero, "short {entry} <= {short} <= {short_zero}");
    }

    /// A loss never exceeds the margin, whatever the mark.
    #[test]
    fn a_loss_never_exceeds_the_margin(
        m in any_market(),
        entry in 1_000u64..=10_000_000_000,
        mark in 1u64..=20_000_000_000,
        margin in 1u128..=10_000_000 * WAD,
        leverage in 1u32..=1000,
        is_long: bool,
    ) {
        let v = value_close(&m, FEE, entry, margin, leverage, is_long, mark);
        prop_assert!(v.net_pnl >= -(margin as i128));
        prop_assert!(v.adjusted_pnl >= -(margin as i128));
    }

    /// On a win, the kept share never exceeds 1 − baseRate, and net ≤ adjusted ≤ raw.
    #[test]
    fn the_kept_share_never_exceeds_one_minus_base_rate(
        m in any_market(),
        entry in 1_000u64..=10_000_000_000,
        move_bps in 1u64..=5_000,
        margin in WAD..=10_000_000 * WAD,
        leverage in 1u32..=1000,
        is_long: bool,
    ) {
        let step = entry / 10_000 * move_bps + 1;
        let mark = if is_long { entry + step } else { entry.saturating_sub(step).max(1) };
        let v = value_close(&m, FEE, entry, margin, leverage, is_long, mark);
        prop_assert!(v.raw_pnl >= 0);
        if let Some(keep) = v.keep {
            prop_assert!(keep <= WAD - m.base_rate);
        }
        let ceiling = U256::from(v.raw_pnl as u128) * U256::from(WAD - m.base_rate) / U256::from(WAD);
        prop_assert!(U256::from(v.adjusted_pnl as u128) <= ceiling);
        prop_assert!(v.net_pnl <= v.adjusted_pnl && v.adjusted_pnl <= v.raw_pnl);
        prop_assert_eq!(U256::from(v.win_fee), U256::from(v.adjusted_pnl as u128) * U256::from(FEE) / U256::from(WAD));
    }

    /// A favourable move inside the deadband pays nothing.
    #[test]
    fn a_move_inside_the_deadband_pays_nothing(
        m in any_market(),
        entry in 1_000u64..=10_000_000_000,
        fraction in 0u64..=1000,
        margin in 1u128..=10_000_000 * WAD,
        leverage in 1u32..=1000,
        is_long: bool,
    ) {
        let inside = deadband(entry) * fraction / 1000;
        let mark = if is_long { entry + inside } else { entry - inside };
        let v = value_close(&m, FEE, entry, margin, leverage, is_long, mark);
        prop_assert_eq!(v.net_pnl, 0);
        prop_assert_eq!(v.raw_pnl, 0);
    }

    /// At or beyond the bust price the position is liquidated; just inside it is not.
    #[test]
    fn liquidation_test_agrees_with_the_bust_price(
        entry in 1_000u64..=10_000_000_000,
        leverage in 1u32..=1000,
        is_long: bool,
    ) {
        let m = market("BTC");
        let bust = bust_price(entry, leverage, is_long, m.bust_buffer);
        prop_assert!(is_liquidated(bust, bust, is_long));
        let inside = if is_long { bust + 1 } else { bust - 1 };
        prop_assert!(!is_liquidated(inside, bust, is_long) || inside == entry);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Local signatures are low-S, recover to the signer, and the wire form reads back to the
    /// same intent id.
    #[test]
    fn signatures_recover_and_round_trip(
        secret in prop::array::uniform32(1u8..),
        margin in 1u128..=u128::MAX,
        leverage in 1u32..=1000,
        nonce in any::<u64>(),
        is_long: bool,
    ) {
        let Ok(key) = SessionSigner::from_bytes(&secret.into()) else { return Ok(()) };
        let open = OpenPosition {
            user: Address::repeat_byte(0x11),
            instrumentId: 1,
            isLong: is_long,
            size: margin,
            leverage,
            useDebt: false,
            nonce: U256::from(nonce),
            deadline: 1_791_864_000,
        };
        let signed = key.sign(open.clone()).unwrap();
        prop_assert_eq!(signed.signer(), key.address());
        let again = Signed::from_signature(open, *signed.signature(), key.address()).unwrap();
        prop_assert_eq!(again.intent_id(), signed.intent_id());
        let post = signed.post().unwrap();
        let back = Signed::<OpenPosition>::from_wire(post.body["signed"].as_object().unwrap()).unwrap();
        prop_assert_eq!(back.intent_id(), signed.intent_id());
        prop_assert_eq!(back.signer(), key.address());
    }
}
