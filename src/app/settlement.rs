//! What a settlement batch says: a liquidation reads like one ("LIQUIDATED BTC ▲ 200x: margin
//! $50.00 lost"), never as a line of arithmetic with a count at its end.

use crate::protocol::account::ClosedPosition;
use crate::protocol::units::{signed, usd_signed_text, usd_text};

/// Liquidations named one by one up to this many; the rest are counted.
const NAMED: usize = 3;

/// The toast for the positions one settlement closed (`symbol` names a market id) and whether it
/// is bad news: liquidations first, each named with side and leverage and the margin lost; the
/// ordinary closes after them as their net.
pub fn summary(closed: &[ClosedPosition], symbol: impl Fn(u32) -> String) -> (String, bool) {
    let (liquidated, ordinary): (Vec<&ClosedPosition>, Vec<&ClosedPosition>) =
        closed.iter().partition(|c| c.liquidated);
    let mut parts = Vec::new();
    if !liquidated.is_empty() {
        let mut names: Vec<String> = liquidated
            .iter()
            .take(NAMED)
            .map(|c| {
                format!(
                    "{} {} {}x",
                    symbol(c.instrument_id),
                    super::side::arrow(c.is_long),
                    c.leverage
                )
            })
            .collect();
        if liquidated.len() > NAMED {
            names.push(format!("+{} more", liquidated.len() - NAMED));
        }
        let lost: u128 = liquidated.iter().map(|c| c.margin).sum();
        parts.push(format!(
            "LIQUIDATED {}: margin {} lost",
            names.join(", "),
            usd_text(signed(lost))
        ));
    }
    let net: i128 = ordinary.iter().map(|c| c.net_pnl).sum();
    if !ordinary.is_empty() {
        parts.push(format!(
            "closed {} position(s): net {}",
            ordinary.len(),
            usd_signed_text(net)
        ));
    }
    (parts.join(" · "), !liquidated.is_empty() || net < 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::U256;

    const USD: u128 = 1_000_000_000_000_000_000;

    fn closed(id: u64, liquidated: bool, margin_usd: u128, net: i128) -> ClosedPosition {
        ClosedPosition {
            id: U256::from(id),
            instrument_id: (id % 2) as u32,
            is_long: id.is_multiple_of(2),
            margin: margin_usd * USD,
            leverage: 200,
            liquidated,
            net_pnl: net,
            paper_minted: 0,
        }
    }

    fn name(id: u32) -> String {
        ["BTC", "ETH"][id as usize].to_string()
    }

    #[test]
    fn a_liquidation_reads_like_one() {
        let (text, bad) = summary(&[closed(2, true, 50, -50 * USD as i128)], name);
        assert_eq!(text, "LIQUIDATED BTC ▲ 200x: margin $50.00 lost");
        assert!(bad);
    }

    #[test]
    fn a_mixed_batch_says_both() {
        let batch = [
            closed(4, false, 10, 189 * USD as i128 / 100),
            closed(3, true, 25, -25 * USD as i128),
        ];
        let (text, bad) = summary(&batch, name);
        assert_eq!(
            text,
            "LIQUIDATED ETH ▼ 200x: margin $25.00 lost · closed 1 position(s): net +$1.89"
        );
        assert!(bad);
        let many: Vec<ClosedPosition> = (0..5).map(|i| closed(i, true, 10, 0)).collect();
        assert_eq!(
            summary(&many, name).0,
            "LIQUIDATED BTC ▲ 200x, ETH ▼ 200x, BTC ▲ 200x, +2 more: margin $50.00 lost"
        );
    }

    #[test]
    fn ordinary_closes_keep_their_net() {
        let (text, bad) = summary(&[closed(4, false, 10, 189 * USD as i128 / 100)], name);
        assert_eq!(text, "closed 1 position(s): net +$1.89");
        assert!(!bad);
    }
}
