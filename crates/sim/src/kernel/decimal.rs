//! Decimal numbers read and written without core's float conversions.
//!
//! `str::parse::<f64>` carries correctly rounded tables (about 10 KB of the page) and `{}` of an
//! `f64` carries Grisu with a Dragon fallback (about 14 KB): the page reads and writes only
//! numbers of a few significant digits (times, coordinates, percentages), for which rounding a
//! scaled integer gives the same text. Nothing here is exact beyond 15 significant digits.

use std::fmt;

/// Reads a non-negative decimal number as durations, `sleep`, `curl -m` and a link's `t=` write
/// it: digits with at most one point and an optional exponent (`1.5`, `.5`, `2e3`).
pub fn parse_decimal(s: &str) -> Option<f64> {
    let (digits, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && frac.is_empty()
        || !(whole.bytes().chain(frac.bytes())).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut mantissa = 0.0;
    for b in whole.bytes().chain(frac.bytes()) {
        mantissa = mantissa * 10.0 + f64::from(b - b'0');
    }
    let exp = exp.checked_sub(i32::try_from(frac.len()).ok()?)?;
    if exp.abs() > 400 {
        return None;
    }
    Some(if exp < 0 {
        mantissa / 10f64.powi(-exp)
    } else {
        mantissa * 10f64.powi(exp)
    })
}

/// `x` with `places` decimals, as `format!("{x:.places$}")` writes it (halves round away from
/// zero here, to even there: 0.25 is "0.3", not "0.2").
#[derive(Clone, Copy, Debug)]
pub struct Fixed(pub f64, pub u8);

/// `x` with at most `places` decimals, trailing zeros dropped: "2", "0.5", "1.25". For a
/// number of at most `places` decimals, what `format!("{x}")` writes.
#[derive(Clone, Copy, Debug)]
pub struct Short(pub f64, pub u8);

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_decimal(f, self.0, self.1, false)
    }
}

impl fmt::Display for Short {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_decimal(f, self.0, self.1, true)
    }
}

fn write_decimal(f: &mut fmt::Formatter<'_>, x: f64, places: u8, trim: bool) -> fmt::Result {
    if !x.is_finite() {
        return f.write_str(if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        });
    }
    let places = places.min(9) as u32;
    let scale = 10u64.pow(places);
    // Saturates beyond 1.8e19 / scale: far past any number the page shows.
    let n = (x.abs() * scale as f64).round() as u64;
    let (whole, mut frac, mut digits) = (n / scale, n % scale, places);
    if trim {
        while digits > 0 && frac % 10 == 0 {
            frac /= 10;
            digits -= 1;
        }
    }
    let sign = if x < 0.0 && n != 0 { "-" } else { "" };
    let digits = digits as usize;
    // Written in place unless padded: the page writes thousands of SVG numbers a frame.
    if f.width().is_none() {
        return match digits {
            0 => write!(f, "{sign}{whole}"),
            _ => write!(f, "{sign}{whole}.{frac:0digits$}"),
        };
    }
    let text = match digits {
        0 => format!("{sign}{whole}"),
        _ => format!("{sign}{whole}.{frac:0digits$}"),
    };
    f.pad(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_decimal_numbers_as_std_does() {
        for text in [
            "0",
            "1",
            "1.5",
            ".5",
            "5.",
            "2e3",
            "1.25E-2",
            "86400",
            "0.1",
            "123456.789",
            "1e-6",
        ] {
            assert_eq!(parse_decimal(text), text.parse::<f64>().ok(), "{text}");
        }
        for text in [
            "", ".", "-1", "+1", "1.2.3", "1e", "e3", "1s", "inf", "NaN", "0x10", "1e999",
        ] {
            assert_eq!(parse_decimal(text), None, "{text}");
        }
    }

    #[test]
    fn writes_decimal_numbers_as_std_does() {
        for x in [
            0.0, 1.0, 2.5, -2.5, 0.1, 12.375, 1e-6, 86400.0, 123456.789, 0.000001,
        ] {
            assert_eq!(Short(x, 6).to_string(), format!("{x}"), "{x}");
        }
        for (x, places) in [
            (12.34567, 2),
            (2.0, 1),
            (0.05, 3),
            (-1.96, 1),
            (1e9, 0),
            (99.95, 0),
        ] {
            assert_eq!(
                Fixed(x, places).to_string(),
                format!("{x:.p$}", p = places as usize),
                "{x}"
            );
        }
        // Durations in seconds, as every microsecond count gives them.
        for us in [
            1u64,
            999_999,
            1_000_000,
            1_500_000,
            40_000_000,
            86_400_000_001,
        ] {
            let x = us as f64 / 1e6;
            assert_eq!(Short(x, 6).to_string(), format!("{x}"), "{us}");
        }
        assert_eq!(Short(1.0 / 3.0, 2).to_string(), "0.33");
        assert_eq!(Fixed(0.25, 1).to_string(), "0.3");
        assert_eq!(format!("{:>6}", Short(2.5, 1)), "   2.5");
        assert_eq!(Short(f64::NAN, 1).to_string(), "NaN");
    }
}

/// Against the standard library's conversions, within this module's contract: numbers of at
/// most 15 significant digits, halves rounded away from zero.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A decimal text of at most 15 significant digits: whole and fraction, and an exponent.
    fn number() -> impl Strategy<Value = String> {
        (0usize..=15, 0usize..=15, prop::option::of(-20i32..20)).prop_flat_map(|(w, f, e)| {
            let f = f.min(15 - w);
            ("[0-9]{0,15}", "[0-9]{0,15}").prop_map(move |(whole, frac)| {
                let mut t = whole[..w.min(whole.len())].to_string();
                if f > 0 {
                    t.push('.');
                    t.push_str(&frac[..f.min(frac.len())]);
                }
                if let Some(e) = e {
                    t.push_str(&format!("e{e}"));
                }
                t
            })
        })
    }

    proptest! {
        #[test]
        fn reads_what_std_reads(text in number()) {
            let std = text.parse::<f64>().ok();
            match (parse_decimal(&text), std) {
                (Some(x), Some(y)) => prop_assert!(x == y || (x - y).abs() <= y.abs() * 4e-16, "{}: {} against {}", text, x, y),
                (got, want) => prop_assert_eq!(got, want, "{}", text),
            }
        }

        #[test]
        fn any_text_is_read_as_std_reads_it_or_refused(text in "\\PC{0,20}") {
            if let Some(x) = parse_decimal(&text) {
                let y = text.parse::<f64>().expect("std reads what this reads");
                prop_assert!(x == y || (x - y).abs() <= y.abs() * 1e-15, "{}: {} against {}", text, x, y);
            }
        }

        #[test]
        fn writes_what_std_writes(micros in 0u64..1_000_000_000_000_000, places in 0u8..7, negative: bool) {
            let x = micros as f64 / 1e6 * if negative { -1.0 } else { 1.0 };
            prop_assert_eq!(Short(x, 6).to_string(), format!("{x}"));
            // Away from a half at the last place (where this rounds away from zero, std to even).
            let scaled = x.abs() * 10f64.powi(places as i32);
            if (scaled.fract() - 0.5).abs() > 1e-6 {
                prop_assert_eq!(Fixed(x, places).to_string(), format!("{x:.p$}", p = places as usize));
            }
        }
    }
}
