//! Open positions ranked by distance to their bust price (`get_closest_to_bust`).

use std::cmp::Ordering;

use alloy_primitives::U256;

use super::book::{AtRisk, Book};

/// Which positions to rank, and how many to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClosestQuery {
    /// One market, or every market.
    pub instrument_id: Option<u32>,
    /// Longs only (`Some(true)`), shorts only, or both.
    pub is_long: Option<bool>,
    /// At most this distance, in hundred-thousandths of a percent (1e-5 %), when set.
    pub max_distance_e5: Option<u128>,
    pub limit: usize,
}

/// `a.room / a.mark` against `b.room / b.mark`, exactly (cross-multiplied in 256 bits).
fn by_distance(a: &AtRisk, b: &AtRisk) -> Ordering {
    let side = |p: &AtRisk, other: &AtRisk| {
        let magnitude = U256::from(p.room().unsigned_abs()) * U256::from(other.mark);
        (p.room() < 0, magnitude)
    };
    match (side(a, b), side(b, a)) {
        ((true, x), (true, y)) => y.cmp(&x),
        ((true, _), (false, _)) => Ordering::Less,
        ((false, _), (true, _)) => Ordering::Greater,
        ((false, x), (false, y)) => x.cmp(&y),
    }
}

/// Within the limit: `room / mark × 100 ≤ max / 1e5` ⇔ `room · 1e7 ≤ max · mark`.
fn within(p: &AtRisk, max_e5: u128) -> bool {
    p.room() <= 0
        || U256::from(p.room().unsigned_abs()) * U256::from(10_000_000u64)
            <= U256::from(max_e5) * U256::from(p.mark)
}

/// The positions of `book` that match `q`, nearest to bust first (past bust first of all); ties
/// go to the larger notional, then the lower position id, so the order is total and repeatable.
pub fn closest<'a>(book: &'a Book, q: &ClosestQuery) -> Vec<&'a AtRisk> {
    let mut out: Vec<&AtRisk> = book
        .in_market(q.instrument_id)
        .filter(|p| q.is_long.is_none_or(|l| p.is_long == l))
        .filter(|p| q.max_distance_e5.is_none_or(|m| within(p, m)))
        .collect();
    out.sort_by(|a, b| {
        by_distance(a, b)
            .then_with(|| b.notional.cmp(&a.notional))
            .then_with(|| a.position_id.cmp(&b.position_id))
    });
    out.truncate(q.limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::Address;

    fn at(id: u64, is_long: bool, mark: u64, bust: u64) -> AtRisk {
        AtRisk {
            wallet: Address::ZERO,
            position_id: U256::from(id),
            instrument_id: 0,
            symbol: "BTC".into(),
            price_scale: 10,
            is_long,
            leverage: 10,
            margin: 1,
            notional: 10,
            entry: mark,
            bust,
            mark,
        }
    }

    #[test]
    fn ranks_across_markets_by_relative_distance() {
        let book = Book {
            positions: vec![
                at(1, true, 1_000, 900),      // 10%
                at(2, false, 100, 101),       // 1%
                at(3, true, 1_000, 1_001),    // past bust
                at(4, false, 10_000, 10_500), // 5%
            ],
            unvalued: 0,
        };
        let q = ClosestQuery {
            instrument_id: None,
            is_long: None,
            max_distance_e5: None,
            limit: 50,
        };
        let ids: Vec<u64> = closest(&book, &q)
            .iter()
            .map(|p| p.position_id.to::<u64>())
            .collect();
        assert_eq!(ids, vec![3, 2, 4, 1]);
        let five = ClosestQuery {
            max_distance_e5: Some(500_000),
            is_long: Some(false),
            ..q
        };
        let ids: Vec<u64> = closest(&book, &five)
            .iter()
            .map(|p| p.position_id.to::<u64>())
            .collect();
        assert_eq!(ids, vec![2, 4]);
    }
}
