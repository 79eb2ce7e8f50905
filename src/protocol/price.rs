//! Marks: the best-bid/best-ask mid on raw integers (§5.1).

use crate::protocol::units::{DecimalError, parse_scaled, scale_decimals};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MathError {
    #[error("the book is empty")]
    EmptyBook,
    #[error("the book is crossed (bid {bid} above ask {ask})")]
    CrossedBook { bid: u64, ask: u64 },
    #[error("price {0} does not fit the contract's uint64 price range")]
    PriceOutOfRange(String),
    #[error("price {text:?} {problem}")]
    BadPrice { text: String, problem: DecimalError },
}

/// `floor((bid + ask) / 2)`; an empty (zero) or crossed book is refused.
pub fn mid(bid: u64, ask: u64) -> Result<u64, MathError> {
    if bid == 0 || ask == 0 {
        return Err(MathError::EmptyBook);
    }
    if bid > ask {
        return Err(MathError::CrossedBook { bid, ask });
    }
    Ok(((u128::from(bid) + u128::from(ask)) / 2) as u64)
}

/// A Hyperliquid price string (`"80858.0"`) → raw at `price_scale`, rounded half up when the
/// book quotes finer than the market's scale (§6: raw = round(px × priceScale)).
pub fn price_raw_from_text(text: &str, price_scale: u64) -> Result<u64, MathError> {
    let decimals = scale_decimals(price_scale).expect("validated price scale");
    // Parse with spare precision, then round to the market's scale.
    let spare = 12;
    let fine = parse_scaled(text, decimals + spare).map_err(|problem| MathError::BadPrice {
        text: text.to_string(),
        problem,
    })?;
    let unit = 10u128.pow(spare);
    let rounded = fine
        .checked_add(unit / 2)
        .ok_or_else(|| MathError::PriceOutOfRange(text.to_string()))?
        / unit;
    u64::try_from(rounded).map_err(|_| MathError::PriceOutOfRange(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mid_of_the_precompile_example() {
        assert_eq!(mid(813000, 813010), Ok(813005));
        assert_eq!(mid(813000, 813001), Ok(813000));
        assert_eq!(mid(5, 4), Err(MathError::CrossedBook { bid: 5, ask: 4 }));
        assert_eq!(mid(0, 4), Err(MathError::EmptyBook));
        assert_eq!(mid(u64::MAX, u64::MAX), Ok(u64::MAX));
    }

    #[test]
    fn book_prices_to_raw() {
        assert_eq!(price_raw_from_text("80858.0", 10), Ok(808580));
        assert_eq!(price_raw_from_text("2422.75", 100), Ok(242275));
        assert_eq!(price_raw_from_text("2422.755", 100), Ok(242276));
        assert!(price_raw_from_text("abc", 10).is_err());
        // Hostile book text is an error, never an overflow.
        assert!(price_raw_from_text("34028236692093846346337460.7431768211455", 10).is_err());
        assert!(price_raw_from_text("99999999999999999999", 10).is_err());
    }
}
