//! Hyperliquid info API shapes used for marks and charts (§6).

use serde::{Deserialize, Serialize};

use super::price::{MathError, mid, price_raw_from_text};

/// `{"type":"l2Book","coin":"BTC"}` → levels `[[bids…],[asks…]]`, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct L2Book {
    pub coin: String,
    pub time: u64,
    pub levels: (Vec<Level>, Vec<Level>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    pub px: String,
    pub sz: String,
    pub n: u64,
}

impl L2Book {
    /// Best bid and ask as raw prices at `price_scale`.
    pub(crate) fn best_raw(&self, price_scale: u64) -> Result<(u64, u64), MathError> {
        let bid = self.levels.0.first().ok_or(MathError::EmptyBook)?;
        let ask = self.levels.1.first().ok_or(MathError::EmptyBook)?;
        Ok((
            price_raw_from_text(&bid.px, price_scale)?,
            price_raw_from_text(&ask.px, price_scale)?,
        ))
    }

    /// The mark: `floor((bid + ask)/2)` on raw prices (§5.1).
    pub fn mid_raw(&self, price_scale: u64) -> Result<u64, MathError> {
        let (bid, ask) = self.best_raw(price_scale)?;
        mid(bid, ask)
    }
}

/// One `candleSnapshot` row (prices and volume as strings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candle {
    /// open time, ms
    pub t: u64,
    /// last ms inside
    #[serde(rename = "T")]
    pub close_time: u64,
    pub s: String,
    pub i: String,
    pub o: String,
    pub c: String,
    pub h: String,
    pub l: String,
    pub v: String,
    pub n: u64,
}

/// Every interval the real API has, with its length in ms (1M is nominal: 30 days).
pub const CANDLE_INTERVALS: [(&str, u64); 14] = [
    ("1m", 60_000),
    ("3m", 180_000),
    ("5m", 300_000),
    ("15m", 900_000),
    ("30m", 1_800_000),
    ("1h", 3_600_000),
    ("2h", 7_200_000),
    ("4h", 14_400_000),
    ("8h", 28_800_000),
    ("12h", 43_200_000),
    ("1d", 86_400_000),
    ("3d", 259_200_000),
    ("1w", 604_800_000),
    ("1M", 2_592_000_000),
];

pub(crate) fn interval_ms(interval: &str) -> Option<u64> {
    CANDLE_INTERVALS
        .iter()
        .find(|(name, _)| *name == interval)
        .map(|(_, ms)| *ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mid_from_the_book() {
        let book: L2Book = serde_json::from_str(
            r#"{"coin":"BTC","time":1,"levels":[[{"px":"80858.0","sz":"23.7926","n":61}],[{"px":"80859.0","sz":"1.0","n":2}]]}"#,
        )
        .unwrap();
        assert_eq!(book.mid_raw(10), Ok(808585));
        let empty: L2Book =
            serde_json::from_str(r#"{"coin":"BTC","time":1,"levels":[[],[]]}"#).unwrap();
        assert_eq!(empty.mid_raw(10), Err(MathError::EmptyBook));
        assert_eq!(interval_ms("4h"), Some(14_400_000));
        assert_eq!(interval_ms("2d"), None);
    }
}
