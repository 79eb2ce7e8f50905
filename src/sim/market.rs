//! One simulated market: a seeded random walk of the mid with realistic volatility, a bid/ask
//! book around it, candles from the first second (backfilled), and the guardian switches.
//!
//! Floats appear only in the walk's random step; every price the exchange acts on is a raw
//! integer at the market's scale, as on the real venue.

use crate::protocol::hyperliquid::{Candle, L2Book, Level, interval_ms};
use crate::protocol::units::price_text;

use super::rng::Rng;

/// Base candle tiers: 1-minute candles for the recent week, hourly before that.
const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 3_600_000;
const MINUTE_BACKFILL: u64 = 7 * 24 * 60;
const HOUR_BACKFILL: u64 = 365 * 24;
/// Hyperliquid keeps the most recent 5000 candles per request.
pub const MAX_CANDLES: usize = 5000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ohlc {
    pub t: u64,
    pub o: u64,
    pub h: u64,
    pub l: u64,
    pub c: u64,
    /// base-asset volume, 1e-4 units
    pub v: u64,
    pub n: u64,
}

impl Ohlc {
    fn open(t: u64, price: u64) -> Self {
        Self {
            t,
            o: price,
            h: price,
            l: price,
            c: price,
            v: 0,
            n: 0,
        }
    }

    fn update(&mut self, price: u64) {
        self.h = self.h.max(price);
        self.l = self.l.min(price);
        self.c = price;
    }

    fn merge(&mut self, later: &Ohlc) {
        self.h = self.h.max(later.h);
        self.l = self.l.min(later.l);
        self.c = later.c;
        self.v += later.v;
        self.n += later.n;
    }
}

#[derive(Debug, Clone)]
pub struct MarketSim {
    pub symbol: String,
    pub price_scale: u64,
    /// Current mid, raw.
    mid: u64,
    /// Pinned by `/sim/price`: the walk is suspended while set.
    pub pinned: Option<u64>,
    /// Half-spread in raw units.
    half_spread: u64,
    /// Volatility per square-root second.
    sigma_per_sqrt_s: f64,
    rng: Rng,
    hourly: Vec<Ohlc>,
    minutes: Vec<Ohlc>,
}

impl MarketSim {
    /// A market starting at `start_mid` at `now_ms`, with `annual_vol` (0.5 = 50%) and history
    /// walked backwards so charts are full from the first second.
    pub(crate) fn new(
        symbol: &str,
        price_scale: u64,
        start_mid: u64,
        annual_vol: f64,
        now_ms: u64,
        mut rng: Rng,
    ) -> Self {
        let sigma = annual_vol / (365.0f64 * 24.0 * 3600.0).sqrt();
        let half_spread = (start_mid / 200_000).max(1);
        let mut m = Self {
            symbol: symbol.to_string(),
            price_scale,
            mid: start_mid,
            pinned: None,
            half_spread,
            sigma_per_sqrt_s: sigma,
            rng: rng.fork(1),
            hourly: Vec::new(),
            minutes: Vec::new(),
        };
        m.backfill(now_ms, &mut rng);
        m
    }

    /// Walk backwards from the start price, then lay the candles out oldest first, so the last
    /// backfilled close is exactly the starting mid.
    fn backfill(&mut self, now_ms: u64, rng: &mut Rng) {
        let minute_start = now_ms / MINUTE_MS * MINUTE_MS;
        let mut price = self.mid as f64;
        let mut minutes = Vec::with_capacity(MINUTE_BACKFILL as usize);
        for i in 1..=MINUTE_BACKFILL {
            let c = price;
            let o = c * (self.sigma_per_sqrt_s * 60f64.sqrt() * rng.gaussian()).exp();
            let wick = self.sigma_per_sqrt_s * 60f64.sqrt() * 0.6;
            let h = o.max(c) * (1.0 + wick * rng.unit());
            let l = o.min(c) * (1.0 - wick * rng.unit());
            minutes.push(self.candle(minute_start - i * MINUTE_MS, o, h, l, c, rng));
            price = o;
        }
        minutes.reverse();
        let hour_start = minutes[0].t / HOUR_MS * HOUR_MS;
        let mut hourly = Vec::with_capacity(HOUR_BACKFILL as usize);
        for i in 1..=HOUR_BACKFILL {
            let c = price;
            let o = c * (self.sigma_per_sqrt_s * 3600f64.sqrt() * rng.gaussian()).exp();
            let wick = self.sigma_per_sqrt_s * 3600f64.sqrt() * 0.6;
            let h = o.max(c) * (1.0 + wick * rng.unit());
            let l = o.min(c) * (1.0 - wick * rng.unit());
            let mut candle = self.candle(hour_start - i * HOUR_MS, o, h, l, c, rng);
            candle.v *= 60;
            candle.n *= 60;
            hourly.push(candle);
            price = o;
        }
        hourly.reverse();
        self.minutes = minutes;
        self.hourly = hourly;
        self.minutes.push(Ohlc::open(minute_start, self.mid));
    }

    fn candle(&self, t: u64, o: f64, h: f64, l: f64, c: f64, rng: &mut Rng) -> Ohlc {
        let raw = |p: f64| (p.round() as u64).max(1);
        Ohlc {
            t,
            o: raw(o),
            h: raw(h),
            l: raw(l),
            c: raw(c),
            v: rng.range(5_000, 400_000),
            n: rng.range(50, 3_000),
        }
    }

    /// Set the mid to the price the charts show at `t_ms` in the backfilled past: the close of
    /// the last candle ended by then (a minute's within the recent week, an hour's before; each
    /// close is the next candle's open, so this is one path). A warm-up replays the past along
    /// it, so every settlement and liquidation lies on the chart, and at the present it gives
    /// back the starting mid exactly. Candles are left as they are: they already hold that path.
    pub(crate) fn replay_at(&mut self, t_ms: u64) {
        let ended = |tier: &[Ohlc], width: u64| {
            let n = tier.partition_point(|c| c.t + width <= t_ms);
            n.checked_sub(1).map(|i| tier[i].c)
        };
        if let Some(price) =
            ended(&self.minutes, MINUTE_MS).or_else(|| ended(&self.hourly, HOUR_MS))
        {
            self.mid = price;
        }
    }

    /// The mid the exchange settles at now.
    pub(crate) fn mid(&self) -> u64 {
        self.pinned.unwrap_or(self.mid)
    }

    pub(crate) fn bid_ask(&self) -> (u64, u64) {
        let mid = self.mid();
        (
            mid.saturating_sub(self.half_spread).max(1),
            mid + self.half_spread,
        )
    }

    /// Pin the mid (or release it to walk on from the pinned value).
    pub(crate) fn pin(&mut self, price: Option<u64>, now_ms: u64) {
        if let Some(p) = self.pinned.take() {
            self.mid = p;
        }
        self.pinned = price;
        self.record(now_ms, 0);
    }

    /// Advance the walk by `dt_ms` of simulated time.
    pub(crate) fn step(&mut self, now_ms: u64, dt_ms: u64) {
        if self.pinned.is_none() && dt_ms > 0 {
            let dt = dt_ms as f64 / 1000.0;
            let shock = self.sigma_per_sqrt_s * dt.sqrt() * self.rng.gaussian();
            let next = (self.mid as f64 * shock.exp()).round() as u64;
            self.mid = next.max(self.half_spread * 4 + 1);
        }
        self.record(now_ms, 0);
    }

    /// Put the current mid into the live candle; `volume` is added (1e-4 base units).
    pub(crate) fn record(&mut self, now_ms: u64, volume: u64) {
        let price = self.mid();
        let minute = now_ms / MINUTE_MS * MINUTE_MS;
        match self.minutes.last_mut() {
            Some(last) if last.t == minute => last.update(price),
            Some(last) if last.t > minute => last.update(price),
            _ => self.minutes.push(Ohlc::open(minute, price)),
        }
        if let Some(last) = self.minutes.last_mut() {
            last.v += volume;
            if volume > 0 {
                last.n += 1;
            }
        }
    }

    /// The book as Hyperliquid's `l2Book` shows it: 20 levels a side, best first.
    pub(crate) fn l2_book(&self, now_ms: u64) -> L2Book {
        let (bid, ask) = self.bid_ask();
        let step = (self.half_spread * 2).max(1);
        let level = |px: u64, i: u64| Level {
            px: price_text(px, self.price_scale),
            sz: format!("{}.{:04}", 1 + (i * 7 + px) % 13, (px * 31 + i) % 10_000),
            n: 1 + (i * 3 + px) % 17,
        };
        let bids = (0..20u64)
            .filter_map(|i| {
                bid.checked_sub(i * step)
                    .filter(|p| *p > 0)
                    .map(|p| level(p, i))
            })
            .collect();
        let asks = (0..20u64).map(|i| level(ask + i * step, i)).collect();
        L2Book {
            coin: self.symbol.clone(),
            time: now_ms,
            levels: (bids, asks),
        }
    }

    /// `candleSnapshot` for any Hyperliquid interval between `start` and `end` (inclusive), at
    /// most the latest 5000, oldest first.
    pub(crate) fn candles(
        &self,
        interval: &str,
        start_ms: u64,
        end_ms: u64,
    ) -> Option<Vec<Candle>> {
        let width = interval_ms(interval)?;
        let source: Vec<Ohlc> = if width < HOUR_MS {
            self.minutes.clone()
        } else {
            // Hours from the hourly tier, then hours aggregated from the minute tier.
            let mut hours = self.hourly.clone();
            hours.extend(aggregate(&self.minutes, HOUR_MS));
            hours
        };
        let mut out: Vec<Candle> = aggregate(&source, width)
            .into_iter()
            .filter(|c| c.t + width > start_ms && c.t <= end_ms)
            .map(|c| Candle {
                t: c.t,
                close_time: c.t + width - 1,
                s: self.symbol.clone(),
                i: interval.to_string(),
                o: price_text(c.o, self.price_scale),
                c: price_text(c.c, self.price_scale),
                h: price_text(c.h, self.price_scale),
                l: price_text(c.l, self.price_scale),
                v: format!("{}.{:04}", c.v / 10_000, c.v % 10_000),
                n: c.n,
            })
            .collect();
        if out.len() > MAX_CANDLES {
            out.drain(..out.len() - MAX_CANDLES);
        }
        Some(out)
    }
}

/// Group candles into buckets of `width` ms aligned to the epoch.
fn aggregate(candles: &[Ohlc], width: u64) -> Vec<Ohlc> {
    let mut out: Vec<Ohlc> = Vec::new();
    for c in candles {
        let t = c.t / width * width;
        match out.last_mut() {
            Some(last) if last.t == t => last.merge(c),
            _ => out.push(Ohlc { t, ..*c }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_791_862_800_000;

    #[test]
    fn backfill_ends_at_the_start_price_and_covers_every_interval() {
        let m = MarketSim::new("BTC", 10, 828_003, 0.5, NOW, Rng::new(1));
        assert_eq!(m.mid(), 828_003);
        for (interval, width) in crate::protocol::hyperliquid::CANDLE_INTERVALS {
            let c = m.candles(interval, NOW - 200 * width, NOW).unwrap();
            assert!(!c.is_empty(), "{interval}");
            assert!(c.windows(2).all(|w| w[0].t < w[1].t), "{interval}");
            let last = c.last().unwrap();
            assert!(
                last.t <= NOW && last.close_time >= NOW - width,
                "{interval}"
            );
        }
        let hours = m.candles("1h", NOW - 48 * HOUR_MS, NOW).unwrap();
        assert!((48..=50).contains(&hours.len()));
        assert!(m.candles("2d", 0, NOW).is_none());
    }

    /// The replayed past is the charted one and ends at the starting mid.
    #[test]
    fn replay_follows_the_charts_back_to_the_start_price() {
        let mut m = MarketSim::new("BTC", 10, 828_003, 0.5, NOW, Rng::new(3));
        // Inside a candle, the price is its open: the close of the one before.
        for (interval, age) in [("1m", 24 * HOUR_MS), ("1h", 30 * 24 * HOUR_MS)] {
            let candle = &m.candles(interval, NOW - age, NOW - age).unwrap()[0];
            let width = interval_ms(interval).unwrap();
            m.replay_at(candle.t + width / 2);
            assert_eq!(price_text(m.mid(), 10), candle.o, "{interval}");
            assert_ne!(m.mid(), 828_003, "{interval}");
        }
        m.replay_at(NOW);
        assert_eq!(m.mid(), 828_003);
    }

    #[test]
    fn same_seed_same_walk_and_pins_hold() {
        let mut a = MarketSim::new("BTC", 10, 828_003, 0.5, NOW, Rng::new(9));
        let mut b = MarketSim::new("BTC", 10, 828_003, 0.5, NOW, Rng::new(9));
        for i in 1..=100 {
            a.step(NOW + i * 250, 250);
            b.step(NOW + i * 250, 250);
        }
        assert_eq!(a.mid(), b.mid());
        a.pin(Some(840_005), NOW + 30_000);
        a.step(NOW + 31_000, 1000);
        assert_eq!(a.mid(), 840_005);
        let (bid, ask) = a.bid_ask();
        assert!(bid < 840_005 && ask > 840_005);
        let book = a.l2_book(NOW);
        assert_eq!(book.mid_raw(10).unwrap(), 840_005);
        assert_eq!(book.levels.0.len(), 20);
        a.pin(None, NOW + 32_000);
        assert_eq!(a.mid(), 840_005);
    }
}
