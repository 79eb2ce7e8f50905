//! A JSON number exactly as it was written (`10.0`, `1e-07`, `2.5E1`): compared and rewritten in
//! decimal, never through a binary float, so the MCP argument checker, the amount parsers behind
//! the tools and the typed-data encoder read the same value. serde_json keeps a number's text
//! (`arbitrary_precision`).

use std::cmp::Ordering;

use serde_json::Number;

/// Longest plain decimal text an argument may expand to: beyond every amount the contract holds
/// (a uint256 has 78 digits, a wad amount 18 decimals), short enough that `1e999999999` cannot
/// make the server write a gigabyte.
const MAX_PLAIN_CHARS: usize = 120;

/// ±digits × 10^exponent, with no leading or trailing zero in `digits` (empty for zero).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exact {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

impl Exact {
    pub fn of(n: &Number) -> Option<Exact> {
        Self::parse(&n.to_string())
    }

    /// JSON's number grammar: `-? int (. frac)? ([eE] [+-]? exp)?`.
    pub fn parse(text: &str) -> Option<Exact> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text),
        };
        let (mantissa, exp_text) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(int) || (mantissa.contains('.') && !all_digits(frac)) {
            return None;
        }
        let mut exponent: i64 = match exp_text {
            None => 0,
            Some(e) => {
                let (sign, body) = match e.as_bytes().first() {
                    Some(b'-') => (-1, &e[1..]),
                    Some(b'+') => (1, &e[1..]),
                    _ => (1, e),
                };
                if !all_digits(body) {
                    return None;
                }
                // Past 18 digits the exponent is beyond any bound; saturate rather than wrap.
                sign * body
                    .parse::<i64>()
                    .unwrap_or(i64::MAX / 4)
                    .min(i64::MAX / 4)
            }
        };
        exponent -= frac.len() as i64;
        let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
        let lead = digits.iter().take_while(|&&b| b == b'0').count();
        digits.drain(..lead);
        while digits.last() == Some(&b'0') {
            digits.pop();
            exponent += 1;
        }
        if digits.is_empty() {
            exponent = 0;
        }
        Some(Exact {
            negative: negative && !digits.is_empty(),
            digits,
            exponent,
        })
    }

    pub fn is_whole(&self) -> bool {
        self.exponent >= 0
    }

    /// The plain decimal text (`0.0000001`, `25`, `-3.5`), or `None` past `MAX_PLAIN_CHARS`.
    pub fn plain(&self) -> Option<String> {
        if self.digits.is_empty() {
            return Some("0".into());
        }
        let sign = if self.negative { "-" } else { "" };
        let digits = std::str::from_utf8(&self.digits).expect("ASCII digits");
        let len = self.digits.len() as i64;
        let width = len + self.exponent.abs();
        if width > MAX_PLAIN_CHARS as i64 {
            return None;
        }
        let point = len + self.exponent;
        Some(if self.exponent >= 0 {
            format!("{sign}{digits}{}", "0".repeat(self.exponent as usize))
        } else if point > 0 {
            let (i, f) = digits.split_at(point as usize);
            format!("{sign}{i}.{f}")
        } else {
            format!("{sign}0.{}{digits}", "0".repeat((-point) as usize))
        })
    }

    /// The plain text as a JSON number (what the tools' parsers then read).
    pub fn to_number(&self) -> Option<Number> {
        self.plain()?.parse().ok()
    }
}

impl Ord for Exact {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |x: &Exact| match (x.digits.is_empty(), x.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        let by_sign = sign(self).cmp(&sign(other));
        if by_sign != Ordering::Equal || sign(self) == 0 {
            return by_sign;
        }
        // Same sign, both non-zero: the place of the leading digit, then the digits.
        let place = |x: &Exact| x.digits.len() as i64 + x.exponent;
        let magnitude = place(self)
            .cmp(&place(other))
            .then_with(|| self.digits.cmp(&other.digits));
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> String {
        Exact::parse(text).unwrap().plain().unwrap()
    }

    #[test]
    fn every_spelling_of_a_number_reads_as_its_decimal_value() {
        for (text, expect) in [
            ("10", "10"),
            ("10.0", "10"),
            ("10.000", "10"),
            ("1e1", "10"),
            ("1E+1", "10"),
            ("2.5e1", "25"),
            ("1e-07", "0.0000001"),
            ("1.5e-3", "0.0015"),
            ("0.1", "0.1"),
            ("-0.0", "0"),
            ("-0", "0"),
            ("0e5", "0"),
            ("-3.50", "-3.5"),
            ("100e-2", "1"),
            ("0.0012345e4", "12.345"),
            (
                "340282366920938463463374607431768211455",
                "340282366920938463463374607431768211455",
            ),
        ] {
            assert_eq!(plain(text), expect, "{text}");
        }
        assert!(Exact::parse("10.0").unwrap().is_whole());
        assert!(Exact::parse("2.5e1").unwrap().is_whole());
        assert!(!Exact::parse("2.5").unwrap().is_whole());
        assert!(!Exact::parse("1e-07").unwrap().is_whole());
        for bad in ["", "-", "1.", ".5", "1e", "1e+", "0x10", "1,5", "+1", "NaN"] {
            assert_eq!(Exact::parse(bad), None, "{bad}");
        }
        // Too many places to write out: refused, not expanded.
        assert_eq!(Exact::parse("1e999999999").unwrap().plain(), None);
        assert_eq!(
            Exact::parse("1e-999999999999999999999").unwrap().plain(),
            None
        );
    }

    #[test]
    fn comparison_is_exact_where_a_float_is_not() {
        let x = |t: &str| Exact::parse(t).unwrap();
        assert!(x("10000000.000000000000000001") > x("10000000"));
        assert!(x("1e7") == x("10000000.0"));
        assert!(x("0.0099999999999999999999") < x("0.01"));
        assert!(x("-100") < x("-99.99"));
        assert!(x("-100.0000000000000000001") < x("-100"));
        assert!(x("0") > x("-1e-300"));
        assert!(x("1e-300") > x("0"));
        assert!(x("1e300") > x("999"));
        assert!(x("-0.0") == x("0"));
        assert!(x("9.5") < x("10"));
        assert!(x("10.5") > x("10.25"));
    }
}
