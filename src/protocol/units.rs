//! Fixed-point units of the contract and exact decimal conversion.
//!
//! Collateral and USD amounts are "wads" (18 decimals), fractions and rates are 1e18 fixed point,
//! prices are raw integers at a market's `priceScale`. Parsing a person's decimal text into these
//! units is exact (no float ever touches it); floats appear only in [`to_f64_rounded`] when a
//! number is formatted for a person or a JSON reader.

use alloy_primitives::U256;

/// 1e18: one USD as a wad, and one as a 1e18 fraction.
pub const WAD: u128 = 1_000_000_000_000_000_000;
/// USDC on HyperEVM has 6 decimals; a wad has 18.
pub const USDC_TO_WAD: u128 = 1_000_000_000_000;

/// Why a decimal text could not be turned into an exact integer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    #[error("is empty")]
    Empty,
    #[error("is not a decimal number: {0:?}")]
    NotANumber(String),
    #[error("has more than {0} decimal places")]
    TooPrecise(u32),
    #[error("must not be negative")]
    Negative,
    #[error("is too large")]
    Overflow,
    /// A comma (or `_`) that does not group thousands: `10,5` is not read as `105`, nor as a
    /// decimal comma, since either reading could move money the person did not mean.
    #[error(
        "has a comma that does not separate thousands: commas only group whole digits in threes \
         (1,500.25); a decimal takes a point (10.5)"
    )]
    Grouping,
}

/// Parse a non-negative decimal (`"82800.3"`, `"1,000"`, `"10"`) into an integer scaled by
/// `10^decimals`, exactly. More fractional digits than `decimals` is an error (never silently
/// rounded), except trailing zeros. Commas are accepted only as thousands separators
/// ([`DecimalError::Grouping`] otherwise).
pub fn parse_scaled(text: &str, decimals: u32) -> Result<u128, DecimalError> {
    let (negative, magnitude) = parse_signed_scaled(text, decimals)?;
    if negative && magnitude != 0 {
        return Err(DecimalError::Negative);
    }
    Ok(magnitude)
}

/// Parse a decimal with an optional sign into (is_negative, magnitude × 10^decimals).
pub fn parse_signed_scaled(text: &str, decimals: u32) -> Result<(bool, u128), DecimalError> {
    let cleaned = ungroup(text.trim())?;
    if cleaned.is_empty() {
        return Err(DecimalError::Empty);
    }
    let (negative, body) = match cleaned.as_bytes()[0] {
        b'-' => (true, &cleaned[1..]),
        b'+' => (false, &cleaned[1..]),
        _ => (false, cleaned.as_str()),
    };
    let (int_part, frac_part) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int_part.is_empty() && frac_part.is_empty())
        || !digits_ok(int_part)
        || !digits_ok(frac_part)
    {
        return Err(DecimalError::NotANumber(text.to_string()));
    }
    let frac_trimmed = frac_part.trim_end_matches('0');
    if frac_trimmed.len() > decimals as usize {
        return Err(DecimalError::TooPrecise(decimals));
    }
    let scale = 10u128.checked_pow(decimals).ok_or(DecimalError::Overflow)?;
    let int_value: u128 = if int_part.is_empty() {
        0
    } else {
        int_part.parse().map_err(|_| DecimalError::Overflow)?
    };
    let mut frac_value: u128 = 0;
    for (i, b) in frac_trimmed.bytes().enumerate() {
        let digit = u128::from(b - b'0');
        frac_value += digit * 10u128.pow(decimals - 1 - i as u32);
    }
    let magnitude = int_value
        .checked_mul(scale)
        .and_then(|v| v.checked_add(frac_value))
        .ok_or(DecimalError::Overflow)?;
    Ok((negative, magnitude))
}

/// `text` without its thousands separators, when every one of them separates thousands: the
/// whole part's digits in groups of three after a first group of one to three (`1,500.25`,
/// `12_000`), one kind of separator per number, none in the fraction. Anything else (`10,5`,
/// `0,5`, `1,50`, `1.000,5`) is refused rather than guessed at: the one parser every amount
/// goes through (flags, links, assistants' tool inputs, the UI's fields).
fn ungroup(text: &str) -> Result<String, DecimalError> {
    let separators: Vec<char> = text.chars().filter(|c| matches!(c, ',' | '_')).collect();
    let Some(&separator) = separators.first() else {
        return Ok(text.to_string());
    };
    let body = text.trim_start_matches(['-', '+']);
    let whole = body.split_once('.').map_or(body, |(w, _)| w);
    let mut groups = whole.split(separator);
    let first_ok = groups
        .next()
        .is_some_and(|g| (1..=3).contains(&g.len()) && g.bytes().all(|b| b.is_ascii_digit()));
    let rest_ok = groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
    let in_whole = whole.chars().filter(|c| *c == separator).count();
    if !first_ok || !rest_ok || in_whole != separators.len() {
        return Err(DecimalError::Grouping);
    }
    Ok(text.chars().filter(|c| *c != separator).collect())
}

/// Number of decimal digits in a power-of-ten scale (`10` → 1, `100` → 2, `1` → 0).
/// `None` when `scale` is not a power of ten.
pub fn scale_decimals(scale: u64) -> Option<u32> {
    if scale == 0 {
        return None;
    }
    let mut s = scale;
    let mut d = 0;
    while s.is_multiple_of(10) {
        s /= 10;
        d += 1;
    }
    (s == 1).then_some(d)
}

/// Exact decimal text of `value / 10^decimals` with every digit kept, trailing zeros trimmed.
pub fn format_scaled(value: u128, decimals: u32) -> String {
    format_scaled_signed(false, value, decimals)
}

/// As [`format_scaled`] with a sign.
pub fn format_scaled_signed(negative: bool, magnitude: u128, decimals: u32) -> String {
    let scale = 10u128.pow(decimals);
    let int = magnitude / scale;
    let frac = magnitude % scale;
    let sign = if negative && magnitude != 0 { "-" } else { "" };
    if decimals == 0 || frac == 0 {
        return format!("{sign}{int}");
    }
    let frac_text = format!("{frac:0width$}", width = decimals as usize);
    format!("{sign}{int}.{}", frac_text.trim_end_matches('0'))
}

/// `magnitude / 10^decimals` rounded half away from zero to `places` decimals, as exact decimal
/// text with exactly `places` digits after the point. This is how every displayed number is
/// rounded, so a table and a JSON reader see the same figure.
pub fn round_scaled(negative: bool, magnitude: u128, decimals: u32, places: u32) -> String {
    let (rounded, places) = round_magnitude(magnitude, decimals, places);
    let scale = 10u128.pow(places);
    let sign = if negative && rounded != 0 { "-" } else { "" };
    if places == 0 {
        return format!("{sign}{rounded}");
    }
    format!(
        "{sign}{}.{:0width$}",
        rounded / scale,
        rounded % scale,
        width = places as usize
    )
}

fn round_magnitude(magnitude: u128, decimals: u32, places: u32) -> (u128, u32) {
    if places >= decimals {
        return (magnitude * 10u128.pow(places - decimals), places);
    }
    let divisor = 10u128.pow(decimals - places);
    let q = magnitude / divisor;
    let r = magnitude % divisor;
    (if r * 2 >= divisor { q + 1 } else { q }, places)
}

/// The float a JSON reader should see for `magnitude / 10^decimals` rounded to `places`.
/// Built from the exact rounded decimal text, so `36.986…` becomes exactly `36.99`.
pub fn to_f64_rounded(negative: bool, magnitude: u128, decimals: u32, places: u32) -> f64 {
    round_scaled(negative, magnitude, decimals, places)
        .parse()
        .expect("round_scaled always yields a valid decimal")
}

/// The exact value a display float from the exchange shows (its shortest decimal text, which is
/// the text the exchange sent), at `decimals` places: `83215.5` at 1 → `(false, 832155)`.
/// `None` when it is not finite or has more places than `decimals` (never rounded into one).
pub fn scaled_of_display_f64(x: f64, decimals: u32) -> Option<(bool, u128)> {
    if !x.is_finite() {
        return None;
    }
    // `{}` prints the shortest text that reads back as `x`, never in exponent form.
    parse_signed_scaled(&format!("{x}"), decimals).ok()
}

/// Exact decimal text as a JSON number (the JSON carries these digits, not a float's).
pub fn json_number(text: &str) -> serde_json::Value {
    serde_json::Value::Number(text.parse().expect("decimal text is a JSON number"))
}

/// Remove `keys` from the object `v` where they are `null`: a figure that cannot be given is left
/// out rather than written as `null` (the seeds type these fields as numbers), and a sibling
/// field says why (`markError`, `haircutNote`, …).
pub fn omit_nulls(v: &mut serde_json::Value, keys: &[&str]) {
    if let Some(o) = v.as_object_mut() {
        for k in keys {
            if o.get(*k).is_some_and(serde_json::Value::is_null) {
                o.remove(*k);
            }
        }
    }
}

/// A signed wad rounded to `places` as a JSON number (`36.99`, `50`).
pub fn wad_json(value: i128, places: u32) -> serde_json::Value {
    let text = wad_text(value, places);
    json_number(trim_zeros(&text))
}

/// A raw price as an exact JSON number (`82674`, `82800.3`).
pub fn price_json(raw: u64, price_scale: u64) -> serde_json::Value {
    json_number(&price_text(raw, price_scale))
}

/// `1.50` → `1.5`, `2.00` → `2`, `-0.00` → `0`.
pub fn trim_zeros(text: &str) -> &str {
    if !text.contains('.') {
        return if text == "-0" { "0" } else { text };
    }
    let t = text.trim_end_matches('0').trim_end_matches('.');
    if t == "-0" { "0" } else { t }
}

/// A `u128` amount as `i128` for signed display helpers, saturating.
pub fn signed(value: u128) -> i128 {
    i128::try_from(value).unwrap_or(i128::MAX)
}

/// Signed wad helper: `i128` wad → rounded float for display.
pub fn wad_to_f64(value: i128, places: u32) -> f64 {
    to_f64_rounded(value < 0, value.unsigned_abs(), 18, places)
}

/// Signed wad helper: `i128` wad → rounded decimal text for display.
pub fn wad_text(value: i128, places: u32) -> String {
    round_scaled(value < 0, value.unsigned_abs(), 18, places)
}

/// `1234567.891` → `1,234,567.891` (only the integer part is grouped).
pub fn group_thousands(text: &str) -> String {
    let (sign, body) = text.strip_prefix('-').map_or(("", text), |b| ("-", b));
    let (int, frac) = body
        .split_once('.')
        .map_or((body, None), |(i, f)| (i, Some(f)));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A signed wad as dollars for a person, rounded to cents and grouped: `-$1,234.57`.
pub fn usd_text(wad: i128) -> String {
    let text = wad_text(wad, 2);
    match text.strip_prefix('-') {
        Some(rest) => format!("-${}", group_thousands(rest)),
        None => format!("${}", group_thousands(&text)),
    }
}

/// A dollar amount (wad) in three significant digits for a narrow column: `$950`, `$12.3k`,
/// `$1.62M`, `$4.50B` (rounded as every display figure is; the exact figure is elsewhere).
pub fn usd_compact(wad: u128) -> String {
    const UNITS: [(u32, &str); 5] = [(18, ""), (21, "k"), (24, "M"), (27, "B"), (30, "T")];
    let mut text = String::new();
    for (decimals, unit) in UNITS {
        let whole = wad / 10u128.pow(decimals);
        let places = match (unit, whole) {
            ("", _) => 0,
            (_, 0..10) => 2,
            (_, 10..100) => 1,
            _ => 0,
        };
        text = format!("${}{unit}", round_scaled(false, wad, decimals, places));
        // Rounding may carry to 1,000 of a unit: the next unit says it in fewer digits.
        let int_digits = text[1..]
            .split(['.', 'k', 'M', 'B', 'T'])
            .next()
            .map_or(0, str::len);
        if int_digits <= 3 {
            break;
        }
    }
    text
}

/// As [`usd_text`] with an explicit `+` on gains: `+$36.25`.
pub fn usd_signed_text(wad: i128) -> String {
    let text = usd_text(wad);
    if wad > 0 && text != "$0.00" {
        format!("+{text}")
    } else {
        text
    }
}

/// A raw price for a person, padded to the market's precision and grouped (`82,674.0`).
pub fn price_display(raw: u64, price_scale: u64) -> String {
    let decimals = scale_decimals(price_scale).unwrap_or(0) as usize;
    let exact = price_text(raw, price_scale);
    let padded = match exact.split_once('.') {
        Some((i, f)) => format!("{i}.{f:0<decimals$}"),
        None if decimals > 0 => format!("{exact}.{}", "0".repeat(decimals)),
        None => exact,
    };
    group_thousands(&padded)
}

/// A raw price at `price_scale` → exact decimal text (`826740` at 10 → `"82674"`).
pub fn price_text(raw: u64, price_scale: u64) -> String {
    format_scaled(
        u128::from(raw),
        scale_decimals(price_scale).expect("price scale validated as a power of ten"),
    )
}

/// A raw price at `price_scale` → float for JSON (exact for every raw that fits 2^53).
pub fn price_f64(raw: u64, price_scale: u64) -> f64 {
    price_text(raw, price_scale)
        .parse()
        .expect("price_text always yields a valid decimal")
}

/// `a * b / c` with a 256-bit intermediate, rounded down. `c` must be non-zero.
pub fn mul_div(a: U256, b: U256, c: U256) -> U256 {
    a.checked_mul(b)
        .map(|p| p / c)
        .unwrap_or_else(|| wide_mul_div(a, b, c))
}

/// Fallback for products above 2^256: exact via 512-bit widening.
fn wide_mul_div(a: U256, b: U256, c: U256) -> U256 {
    let wide = alloy_primitives::ruint::Uint::<512, 8>::from(a)
        * alloy_primitives::ruint::Uint::<512, 8>::from(b);
    let q = wide / alloy_primitives::ruint::Uint::<512, 8>::from(c);
    U256::from(q)
}

/// `U256` → `u128`, saturating (used only where the value is bounded by a u128 input).
pub fn u256_to_u128(value: U256) -> u128 {
    u128::try_from(value).unwrap_or(u128::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exact_decimals() {
        assert_eq!(parse_scaled("82800.3", 1), Ok(828003));
        assert_eq!(parse_scaled("100", 18), Ok(100 * WAD));
        assert_eq!(parse_scaled("1,000.50", 6), Ok(1_000_500_000));
        assert_eq!(parse_scaled(".5", 2), Ok(50));
        assert_eq!(parse_scaled("2500.00", 2), Ok(250000));
        assert_eq!(parse_scaled("0.001", 2), Err(DecimalError::TooPrecise(2)));
        assert_eq!(parse_scaled("-1", 2), Err(DecimalError::Negative));
        assert_eq!(parse_scaled("-0", 2), Ok(0));
        assert!(matches!(
            parse_scaled("1e5", 2),
            Err(DecimalError::NotANumber(_))
        ));
        assert!(matches!(
            parse_scaled(".", 2),
            Err(DecimalError::NotANumber(_))
        ));
        assert_eq!(parse_scaled("", 2), Err(DecimalError::Empty));
        assert_eq!(
            parse_scaled("999999999999999999999999", 18),
            Err(DecimalError::Overflow)
        );
        assert_eq!(parse_signed_scaled("-0.1", 6), Ok((true, 100_000)));
    }

    #[test]
    fn commas_only_group_thousands() {
        assert_eq!(parse_scaled("1,500.25", 6), Ok(1_500_250_000));
        assert_eq!(parse_scaled("12,345,678", 0), Ok(12_345_678));
        assert_eq!(parse_scaled("12_000", 0), Ok(12_000));
        assert_eq!(parse_scaled("999", 0), Ok(999));
        assert_eq!(parse_signed_scaled("-1,000.5", 1), Ok((true, 10_005)));
        // A decimal comma is neither a thousands separator (105) nor a decimal (10.5).
        for bad in [
            "10,5",
            "0,5",
            "1,50",
            "1,5000",
            ",500",
            "1,",
            "1,,000",
            "1.000,5",
            "1,000.000,1",
            "1,000_000",
            "1234,567",
            "10,5.0",
        ] {
            assert_eq!(parse_scaled(bad, 6), Err(DecimalError::Grouping), "{bad}");
        }
        assert!(DecimalError::Grouping.to_string().contains("(10.5)"));
    }

    #[test]
    fn a_display_float_is_read_as_the_text_it_came_as() {
        assert_eq!(scaled_of_display_f64(83_215.5, 1), Some((false, 832_155)));
        assert_eq!(
            scaled_of_display_f64(-327.15, 18),
            Some((true, 327_150_000_000_000_000_000))
        );
        assert_eq!(
            scaled_of_display_f64(0.1 + 0.2, 1),
            None,
            "0.30000000000000004"
        );
        assert_eq!(scaled_of_display_f64(83_215.55, 1), None);
        assert_eq!(
            scaled_of_display_f64(1e21, 0),
            Some((false, 1_000_000_000_000_000_000_000))
        );
        assert_eq!(scaled_of_display_f64(f64::NAN, 2), None);
        assert_eq!(scaled_of_display_f64(f64::INFINITY, 2), None);
    }

    #[test]
    fn formats_and_rounds() {
        assert_eq!(format_scaled(826740, 1), "82674");
        assert_eq!(format_scaled(828003, 1), "82800.3");
        assert_eq!(
            round_scaled(false, 36_986_000_000_000_000_000, 18, 2),
            "36.99"
        );
        assert_eq!(round_scaled(true, 5_000_000_000_000_000, 18, 2), "-0.01");
        assert_eq!(round_scaled(true, 4_000_000_000_000_000, 18, 2), "0.00");
        assert_eq!(to_f64_rounded(false, 739_720_000_000_000_000, 18, 2), 0.74);
        assert_eq!(scale_decimals(100), Some(2));
        assert_eq!(group_thousands("1234567.891"), "1,234,567.891");
        assert_eq!(group_thousands("-999"), "-999");
        assert_eq!(usd_text(-1_000 * WAD as i128), "-$1,000.00");
        assert_eq!(wad_json(36_986_000_000_000_000_000, 2).to_string(), "36.99");
        assert_eq!(wad_json(50 * WAD as i128, 2).to_string(), "50");
        assert_eq!(wad_json(-4_000_000_000_000_000, 2).to_string(), "0");
        assert_eq!(price_json(826740, 10).to_string(), "82674");
        assert_eq!(scale_decimals(1), Some(0));
        assert_eq!(scale_decimals(30), None);
    }

    #[test]
    fn compact_dollars_keep_three_digits() {
        let usd = |d: u128, cents: u128| d * WAD + cents * WAD / 100;
        assert_eq!(usd_compact(0), "$0");
        assert_eq!(usd_compact(usd(950, 49)), "$950");
        assert_eq!(usd_compact(usd(999, 50)), "$1.00k");
        assert_eq!(usd_compact(usd(12_345, 0)), "$12.3k");
        assert_eq!(usd_compact(usd(1_624_300, 0)), "$1.62M");
        assert_eq!(usd_compact(usd(999_999, 0)), "$1.00M");
        assert_eq!(usd_compact(usd(4_500_000_000, 0)), "$4.50B");
        assert_eq!(usd_compact(u128::MAX), "$340282367T");
    }

    #[test]
    fn mul_div_survives_overflowing_products() {
        let big = U256::MAX / U256::from(2);
        assert_eq!(mul_div(big, U256::from(4), U256::from(4)), big);
    }
}
