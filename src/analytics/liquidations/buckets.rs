//! Bust prices grouped into price buckets: the bust map around the mark (a window of buckets,
//! longs below and shorts above, with the cumulative notional a move to each bucket would bust),
//! the same grouping over the whole range (the protocol map regrouped onto a bucket size), the
//! largest buckets each side (the clusters), and the cascade of a percent move.

use std::collections::BTreeMap;

use alloy_primitives::U256;

use crate::protocol::math::is_liquidated;
use crate::protocol::units::{mul_div, u256_to_u128};

use super::book::AtRisk;

/// Positions and their notional (wads), per side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub long_notional: u128,
    pub short_notional: u128,
    pub long_positions: usize,
    pub short_positions: usize,
}

impl Totals {
    fn add(&mut self, p: &AtRisk) {
        if p.is_long {
            self.long_notional = self.long_notional.saturating_add(p.notional);
            self.long_positions += 1;
        } else {
            self.short_notional = self.short_notional.saturating_add(p.notional);
            self.short_positions += 1;
        }
    }

    pub fn positions(&self) -> usize {
        self.long_positions + self.short_positions
    }
}

/// Bust prices in `[low, high)` (raw).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bucket {
    pub low: u64,
    pub high: u64,
    pub totals: Totals,
    /// Long notional busted by a fall to `low`: every standing long whose bust is at or above it.
    pub cumulative_long: u128,
    /// Short notional busted by a rise to `high − 1`: every standing short whose bust is below
    /// `high`.
    pub cumulative_short: u128,
}

/// The round bucket sizes, smallest first: 1, 2 and 5 × 10^k raw units, up to `u64::MAX`.
fn round_steps() -> impl Iterator<Item = u64> {
    (0..=19u32)
        .filter_map(|k| 10u64.checked_pow(k))
        .flat_map(|power| {
            [1u64, 2, 5]
                .into_iter()
                .filter_map(move |m| power.checked_mul(m))
        })
}

/// The default bucket for a market at `mark` (raw): about 0.25% of the mark, rounded down to
/// 1, 2 or 5 × 10^k raw units ($200 for BTC near $83,000, $5 for ETH near $2,500).
pub fn default_bucket(mark: u64) -> u64 {
    let target = (mark / 400).max(1);
    round_steps()
        .take_while(|s| *s <= target)
        .last()
        .unwrap_or(1)
}

/// The smallest round bucket (1, 2 or 5 × 10^k raw units) of which `buckets` cover `span` raw
/// price units: a ladder with `buckets` rows each side of the mark reaches at least `span`.
pub fn covering_bucket(span: u64, buckets: u64) -> u64 {
    let target = span.div_ceil(buckets.max(1)).max(1);
    round_steps().find(|s| *s >= target).unwrap_or(u64::MAX)
}

/// The standing positions (mark not yet at their bust) bucketed by bust price, keyed by
/// bucket index (`bust / bucket`).
fn grouped<'a>(positions: impl Iterator<Item = &'a AtRisk>, bucket: u64) -> BTreeMap<u64, Totals> {
    let mut out: BTreeMap<u64, Totals> = BTreeMap::new();
    for p in positions.filter(|p| !p.past_bust()) {
        out.entry(p.bust / bucket).or_default().add(p);
    }
    out
}

fn bucket_at(index: u64, bucket: u64, totals: Totals) -> Bucket {
    let low = index.saturating_mul(bucket);
    Bucket {
        low,
        high: low.saturating_add(bucket),
        totals,
        cumulative_long: 0,
        cumulative_short: 0,
    }
}

/// Fill in the cumulative columns from the standing positions: the busts of each side sorted
/// once with running sums, then one binary search per bucket (a bucket count times the book
/// would be quadratic over the regrouped map).
fn with_cumulative<'a>(
    mut buckets: Vec<Bucket>,
    positions: impl Iterator<Item = &'a AtRisk>,
) -> Vec<Bucket> {
    // (bust, notional) of each side.
    let mut longs: Vec<(u64, u128)> = Vec::new();
    let mut shorts: Vec<(u64, u128)> = Vec::new();
    for p in positions.filter(|p| !p.past_bust()) {
        let side = if p.is_long { &mut longs } else { &mut shorts };
        side.push((p.bust, p.notional));
    }
    longs.sort_unstable();
    shorts.sort_unstable();
    // below[i] = Σ notional of the first i busts (ascending).
    let running = |side: &[(u64, u128)]| -> Vec<u128> {
        let mut out = Vec::with_capacity(side.len() + 1);
        out.push(0u128);
        for (_, n) in side {
            out.push(out.last().expect("seeded").saturating_add(*n));
        }
        out
    };
    let (long_sums, short_sums) = (running(&longs), running(&shorts));
    for b in &mut buckets {
        // Longs at or above `low`: all minus those below it.
        let i = longs.partition_point(|(bust, _)| *bust < b.low);
        b.cumulative_long = long_sums[longs.len()] - long_sums[i];
        // Shorts below `high`.
        let j = shorts.partition_point(|(bust, _)| *bust < b.high);
        b.cumulative_short = short_sums[j];
    }
    buckets
}

/// What a move of `percent_e2` hundredths of a percent either way would bust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cascade {
    pub percent_e2: u32,
    /// The mark after the fall (raw): `mark − floor(mark·p)`.
    pub down_price: u64,
    /// The mark after the rise (raw): `mark + floor(mark·p)`.
    pub up_price: u64,
    /// Longs busted by the fall, shorts by the rise (those already past bust included).
    pub totals: Totals,
}

/// The cascade of a `percent_e2` move (hundredths of a percent) from `mark`: every position of
/// `positions` whose bust lies inside the move (the liquidation test at the moved mark).
pub fn cascade<'a>(
    positions: impl Iterator<Item = &'a AtRisk>,
    mark: u64,
    percent_e2: u32,
) -> Cascade {
    let step = u256_to_u128(mul_div(
        U256::from(mark),
        U256::from(percent_e2),
        U256::from(10_000u32),
    ));
    let step = u64::try_from(step).unwrap_or(u64::MAX);
    let down_price = mark.saturating_sub(step);
    let up_price = mark.saturating_add(step);
    let mut totals = Totals::default();
    for p in positions {
        let moved = if p.is_long { down_price } else { up_price };
        if is_liquidated(moved, p.bust, p.is_long) {
            totals.add(p);
        }
    }
    Cascade {
        percent_e2,
        down_price,
        up_price,
        totals,
    }
}

/// The bust map of one market around its mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BustMap {
    pub mark: u64,
    pub price_scale: u64,
    pub bucket: u64,
    /// A contiguous window of buckets, lowest price first, the mark's bucket in the middle.
    pub buckets: Vec<Bucket>,
    /// Standing positions whose bust falls outside the window.
    pub outside: Totals,
    /// Positions the mark has already reached the bust of (not in any bucket).
    pub past_bust: Totals,
    /// Every position of the market.
    pub all: Totals,
    pub cascade: Option<Cascade>,
}

/// The bust map of `positions` (one market's, at `mark`): `max_buckets` buckets of `bucket`
/// raw price units centred on the mark's bucket, and the cascade of `cascade_e2` if asked.
pub fn bust_map(
    positions: &[&AtRisk],
    mark: u64,
    price_scale: u64,
    bucket: u64,
    max_buckets: usize,
    cascade_e2: Option<u32>,
) -> BustMap {
    let bucket = bucket.max(1);
    let count = max_buckets.max(1) as u64;
    let centre = mark / bucket;
    let first = centre.saturating_sub((count - 1) / 2);
    let last = first.saturating_add(count - 1);
    let groups = grouped(positions.iter().copied(), bucket);
    let mut outside = Totals::default();
    for p in positions.iter().filter(|p| !p.past_bust()) {
        let index = p.bust / bucket;
        if index < first || index > last {
            outside.add(p);
        }
    }
    let mut past_bust = Totals::default();
    let mut all = Totals::default();
    for p in positions {
        all.add(p);
        if p.past_bust() {
            past_bust.add(p);
        }
    }
    let buckets: Vec<Bucket> = (first..=last)
        .map(|i| bucket_at(i, bucket, groups.get(&i).copied().unwrap_or_default()))
        .collect();
    BustMap {
        mark,
        price_scale,
        bucket,
        buckets: with_cumulative(buckets, positions.iter().copied()),
        outside,
        past_bust,
        all,
        cascade: cascade_e2.map(|p| cascade(positions.iter().copied(), mark, p)),
    }
}

/// The whole market's bust prices regrouped onto `bucket`: every non-empty bucket, lowest price
/// first (the shape of the protocol-wide map the exchange does not serve; see the command).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiquidationMap {
    pub mark: u64,
    pub price_scale: u64,
    pub bucket: u64,
    pub buckets: Vec<Bucket>,
    pub past_bust: Totals,
    pub all: Totals,
}

pub fn liquidation_map(
    positions: &[&AtRisk],
    mark: u64,
    price_scale: u64,
    bucket: u64,
) -> LiquidationMap {
    let bucket = bucket.max(1);
    let buckets: Vec<Bucket> = grouped(positions.iter().copied(), bucket)
        .into_iter()
        .map(|(i, t)| bucket_at(i, bucket, t))
        .collect();
    let mut past_bust = Totals::default();
    let mut all = Totals::default();
    for p in positions {
        all.add(p);
        if p.past_bust() {
            past_bust.add(p);
        }
    }
    LiquidationMap {
        mark,
        price_scale,
        bucket,
        buckets: with_cumulative(buckets, positions.iter().copied()),
        past_bust,
        all,
    }
}

/// One cluster: a bucket of bust prices on one side of the mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cluster {
    pub low: u64,
    pub high: u64,
    pub notional: u128,
    pub positions: usize,
    /// Notional-weighted mean bust price (raw, floored).
    pub weighted_bust: u64,
}

/// The largest clusters each side, largest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSummary {
    pub mark: u64,
    pub price_scale: u64,
    pub bucket: u64,
    /// Below the mark.
    pub longs: Vec<Cluster>,
    /// Above the mark.
    pub shorts: Vec<Cluster>,
    pub all: Totals,
}

/// The `n` largest buckets (by notional; nearer the mark first on a tie) of standing longs and
/// of standing shorts.
pub fn clusters(
    positions: &[&AtRisk],
    mark: u64,
    price_scale: u64,
    bucket: u64,
    n: usize,
) -> ClusterSummary {
    let bucket = bucket.max(1);
    let side = |long: bool| -> Vec<Cluster> {
        let mut by_bucket: BTreeMap<u64, (u128, usize, U256)> = BTreeMap::new();
        for p in positions
            .iter()
            .filter(|p| p.is_long == long && !p.past_bust())
        {
            let e = by_bucket.entry(p.bust / bucket).or_default();
            e.0 = e.0.saturating_add(p.notional);
            e.1 += 1;
            e.2 += U256::from(p.bust) * U256::from(p.notional);
        }
        let mut out: Vec<Cluster> = by_bucket
            .into_iter()
            .map(|(i, (notional, count, weighted))| {
                let low = i.saturating_mul(bucket);
                let mean = weighted / U256::from(notional.max(1));
                Cluster {
                    low,
                    high: low.saturating_add(bucket),
                    notional,
                    positions: count,
                    weighted_bust: u64::try_from(mean).unwrap_or(u64::MAX),
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.notional.cmp(&a.notional).then_with(|| {
                a.weighted_bust
                    .abs_diff(mark)
                    .cmp(&b.weighted_bust.abs_diff(mark))
            })
        });
        out.truncate(n);
        out
    };
    let mut all = Totals::default();
    for p in positions {
        all.add(p);
    }
    ClusterSummary {
        mark,
        price_scale,
        bucket,
        longs: side(true),
        shorts: side(false),
        all,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, U256};

    fn at(is_long: bool, bust: u64, notional: u128) -> AtRisk {
        AtRisk {
            wallet: Address::ZERO,
            position_id: U256::from(bust),
            instrument_id: 0,
            symbol: "BTC".into(),
            price_scale: 10,
            is_long,
            leverage: 10,
            margin: notional / 10,
            notional,
            entry: 1_000,
            bust,
            mark: 1_000,
        }
    }

    #[test]
    fn default_buckets_are_round() {
        assert_eq!(default_bucket(828_003), 2_000);
        assert_eq!(default_bucket(250_001), 500);
        assert_eq!(default_bucket(1), 1);
        assert_eq!(default_bucket(4_000), 10);
        assert_eq!(default_bucket(u64::MAX), 20_000_000_000_000_000);
    }

    #[test]
    fn covering_buckets_are_round_and_reach_the_span() {
        // 5% of 83,010.5 (raw 830,105 at 10) is 41,505 raw: 6 rows need 6,918 each → 10,000.
        assert_eq!(covering_bucket(41_505, 6), 10_000);
        assert_eq!(covering_bucket(41_505, 14), 5_000);
        assert_eq!(covering_bucket(2_000, 10), 200);
        assert_eq!(covering_bucket(0, 0), 1);
        assert_eq!(covering_bucket(u64::MAX, 1), u64::MAX);
        for (span, rows) in [(41_505u64, 6u64), (7, 3), (999_999, 13)] {
            assert!(covering_bucket(span, rows) * rows >= span);
        }
    }

    #[test]
    fn the_map_centres_on_the_mark_and_accounts_for_everything() {
        let ps = [
            at(true, 990, 5),
            at(true, 905, 7),
            at(true, 500, 11),
            at(false, 1_010, 3),
            at(true, 1_000, 13), // at bust: past it
        ];
        let refs: Vec<&AtRisk> = ps.iter().collect();
        let m = bust_map(&refs, 1_000, 10, 10, 21, Some(1_000));
        assert_eq!(m.buckets.len(), 21);
        assert_eq!(m.buckets[10].low, 1_000);
        assert_eq!(m.buckets[0].low, 900);
        assert_eq!(m.buckets[9].totals.long_notional, 5);
        assert_eq!(m.buckets[0].totals.long_notional, 7);
        assert_eq!(m.buckets[11].totals.short_notional, 3);
        assert_eq!(m.outside.long_notional, 11);
        assert_eq!(m.past_bust.long_notional, 13);
        assert_eq!(m.buckets[0].cumulative_long, 12);
        assert_eq!(m.buckets[11].cumulative_short, 3);
        // A 10% move: 1000 → 900 busts every long at or above 900, and the one past bust.
        let c = m.cascade.unwrap();
        assert_eq!((c.down_price, c.up_price), (900, 1_100));
        assert_eq!(c.totals.long_notional, 5 + 7 + 13);
        assert_eq!(c.totals.short_notional, 3);
        assert_eq!(c.totals.positions(), 4);
        let zero = cascade(ps.iter(), 1_000, 0);
        assert_eq!(zero.totals.positions(), 1);
    }

    #[test]
    fn clusters_rank_by_notional() {
        let ps = [at(true, 990, 5), at(true, 991, 5), at(true, 905, 7)];
        let refs: Vec<&AtRisk> = ps.iter().collect();
        let c = clusters(&refs, 1_000, 10, 10, 1);
        assert_eq!(c.longs.len(), 1);
        assert_eq!(c.longs[0].notional, 10);
        assert_eq!(c.longs[0].weighted_bust, 990);
        assert!(c.shorts.is_empty());
    }
}
