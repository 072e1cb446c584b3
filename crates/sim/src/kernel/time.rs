//! Simulated time: microseconds since the start of a run, as a newtype.
//!
//! Nothing in the core reads the wall clock; time only moves when the event
//! queue jumps to the next event.

use super::decimal::parse_decimal;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const fn from_micros(us: u64) -> Self {
        Duration(us)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * 1_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * 1_000_000)
    }
    pub fn as_micros(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// Seconds for a text: "300", "2.5", "0.000001" (what `{}` of [`Self::as_secs_f64`] writes).
    pub fn secs(self) -> super::decimal::Short {
        super::decimal::Short(self.as_secs_f64(), 6)
    }
    /// Scales by a factor, rounding down (used for jittered periods).
    pub fn mul_f64(self, f: f64) -> Duration {
        Duration((self.0 as f64 * f) as u64)
    }
}

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    pub fn saturating_sub(self, other: SimTime) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
}

impl Add<Duration> for SimTime {
    type Output = SimTime;
    fn add(self, d: Duration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

/// `d` earlier, at the earliest the start of time.
impl Sub<Duration> for SimTime {
    type Output = SimTime;
    fn sub(self, d: Duration) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
}

impl AddAssign<Duration> for SimTime {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Sub for SimTime {
    type Output = Duration;
    fn sub(self, other: SimTime) -> Duration {
        self.saturating_sub(other)
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}

impl fmt::Display for Duration {
    /// Go/Kubernetes form: "1h30m", "40s", "250ms", "0s".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut us = self.0;
        if us == 0 {
            return f.write_str("0s");
        }
        let units: [(&str, u64); 6] = [
            ("h", 3_600_000_000),
            ("m", 60_000_000),
            ("s", 1_000_000),
            ("ms", 1_000),
            ("us", 1),
            ("", 0),
        ];
        for (name, size) in units {
            if size == 0 {
                break;
            }
            if us >= size {
                write!(f, "{}{}", us / size, name)?;
                us %= size;
            }
        }
        Ok(())
    }
}

/// Parses a Go/Kubernetes duration string: a sequence of `<number><unit>` with units
/// `h`, `m`, `s`, `ms`, `us`/`µs`; decimals allowed (`"1.5s"`). Negative values are refused.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty duration".into());
    }
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    if s.starts_with('-') {
        return Err(format!("negative duration \"{s}\""));
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut total: f64 = 0.0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        if start == i {
            return Err(format!("invalid duration \"{s}\": expected a number"));
        }
        let num = parse_decimal(&s[start..i])
            .ok_or_else(|| format!("invalid duration \"{s}\": bad number"))?;
        let ustart = i;
        while i < bytes.len() && !(bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let unit = &s[ustart..i];
        let scale: f64 = match unit {
            "h" => 3_600e6,
            "m" => 60e6,
            "s" => 1e6,
            "ms" => 1e3,
            "us" | "µs" => 1.0,
            "" => {
                return Err(format!(
                    "invalid duration \"{s}\": missing unit (h, m, s, ms)"
                ))
            }
            other => {
                return Err(format!(
                    "invalid duration \"{s}\": unknown unit \"{other}\""
                ))
            }
        };
        total += num * scale;
        if total > 1e18 {
            return Err(format!("duration \"{s}\" is absurdly large"));
        }
    }
    Ok(Duration(total.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_durations() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("40s"), Ok(Duration::from_secs(40)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_duration("-5s").is_err());
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("99999999999h").is_err());
    }

    #[test]
    fn displays_in_go_form() {
        assert_eq!(Duration::from_secs(5400).to_string(), "1h30m");
        assert_eq!(Duration::from_millis(250).to_string(), "250ms");
        assert_eq!(Duration::ZERO.to_string(), "0s");
        for s in ["1h30m", "40s", "250ms", "2m5s"] {
            assert_eq!(parse_duration(s).unwrap().to_string(), s);
        }
    }
}
