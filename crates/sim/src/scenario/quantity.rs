//! Kubernetes resource quantities as the scenario writes them: cpu in cores (`4`, `"0.5"`,
//! `"3500m"`) and memory in bytes with the binary or decimal suffixes (`"16Gi"`, `"512Mi"`,
//! `"1G"`), or with a decimal exponent (`"1e9"`, `"1.5E3"`). Kept as integers: millicores and
//! bytes, as the scheduler compares them.
//!
//! Left out: the suffixes below a byte or a millicore (`"500u"`).

use super::tree::J;
use crate::kernel::decimal::Short;

/// Most cores one host or one pod may have (a large machine has a few hundred).
pub const MAX_CPU_MILLI: u64 = 10_000 * 1000;
/// Most memory one host or one pod may have: 64 TiB.
pub const MAX_MEMORY: u64 = 64 << 40;

/// Millicores from text as a form takes it (`"3500m"`, `"4"`, `"0.5"`).
pub fn parse_cpu(text: &str) -> Result<u64, String> {
    cpu_from(&J::Str(text.trim().to_string()))
}

/// Bytes from text as a form takes it (`"16Gi"`, `"512Mi"`).
pub fn parse_memory(text: &str) -> Result<u64, String> {
    memory_from(&J::Str(text.trim().to_string()))
}

/// Millicores from `"3500m"`, `"4"`, `"0.5"` or a JSON number of cores.
pub(super) fn cpu_from(j: &J) -> Result<u64, String> {
    let milli = match j {
        J::U(n) => n.checked_mul(1000),
        J::F(f) if *f >= 0.0 => decimal_times(&Short(*f, 9).to_string(), 1000),
        J::Str(s) => match s.strip_suffix('m') {
            Some(m) => decimal_times(m, 1),
            None => decimal_times(s, 1000),
        },
        J::I(_) | J::F(_) => None,
        other => {
            return Err(format!(
                "expected a cpu quantity (\"4\", \"500m\"), found {}",
                other.found()
            ))
        }
    };
    match milli {
        Some(m) if m <= MAX_CPU_MILLI => Ok(m),
        Some(_) => Err(format!("at most {} cores", MAX_CPU_MILLI / 1000)),
        None => Err(format!(
            "{} is not a cpu quantity (\"4\", \"0.5\", \"500m\")",
            quoted(j)
        )),
    }
}

/// Bytes from `"16Gi"`, `"512Mi"`, `"1G"`, `"1000"` or a JSON number of bytes.
pub(super) fn memory_from(j: &J) -> Result<u64, String> {
    const SUFFIXES: [(&str, u64); 12] = [
        ("Ki", 1 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("Ti", 1 << 40),
        ("Pi", 1 << 50),
        ("Ei", 1 << 60),
        ("k", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
        ("P", 1_000_000_000_000_000),
        ("E", 1_000_000_000_000_000_000),
    ];
    let bytes = match j {
        J::U(n) => Some(*n),
        J::Str(s) => {
            let (digits, unit) = SUFFIXES
                .iter()
                .find_map(|&(suffix, unit)| s.strip_suffix(suffix).map(|d| (d, unit)))
                .unwrap_or((s.as_str(), 1));
            decimal_times(digits, unit)
        }
        J::F(_) | J::I(_) => None,
        other => {
            return Err(format!(
                "expected a memory quantity (\"16Gi\", \"512Mi\"), found {}",
                other.found()
            ))
        }
    };
    match bytes {
        Some(b) if b <= MAX_MEMORY => Ok(b),
        Some(_) => Err(format!("at most {} Ti", MAX_MEMORY >> 40)),
        None => Err(format!(
            "{} is not a memory quantity (\"16Gi\", \"512Mi\", \"1G\", bytes)",
            quoted(j)
        )),
    }
}

/// `digits` (a plain decimal, `"1.5"`, or one with an exponent, `"15e-1"`) times `unit`, when
/// that is a whole number.
fn decimal_times(digits: &str, unit: u64) -> Option<u64> {
    match digits.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => {
            plain_times(&shifted(mantissa, exponent.parse().ok()?)?, unit)
        }
        None => plain_times(digits, unit),
    }
}

/// `mantissa` with its decimal point moved `exponent` places (`"1.5"`, 3 → `"1500"`; -3 →
/// `"0.0015"`).
fn shifted(mantissa: &str, exponent: i32) -> Option<String> {
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if exponent.abs() > 36 || whole.is_empty() && frac.is_empty() {
        return None;
    }
    let digits = format!("{whole}{frac}");
    let point = whole.len() as i32 + exponent;
    Some(if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point as usize >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    })
}

/// `digits` (a plain decimal, `"1.5"`) times `unit`, when that is a whole number.
fn plain_times(digits: &str, unit: u64) -> Option<u64> {
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && frac.is_empty()
        || !all_digits(whole)
        || !all_digits(frac)
        || whole.len() > 19
        || frac.len() > 18
    {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let scale = 10u64.pow(frac.len() as u32);
    let frac: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    // In u64 (no 128-bit division in the bundle): absurd precision or size is refused.
    let part = frac.checked_mul(unit)?;
    (part % scale == 0)
        .then(|| whole.checked_mul(unit)?.checked_add(part / scale))
        .flatten()
}

fn quoted(j: &J) -> String {
    match j {
        J::Str(s) => format!("\"{}\"", s.chars().take(40).collect::<String>()),
        J::F(f) => Short(*f, 9).to_string(),
        _ => j.found().to_string(),
    }
}

/// The canonical spelling: whole cores as `"4"`, else millicores `"3500m"`.
pub fn fmt_cpu(milli: u64) -> String {
    if milli.is_multiple_of(1000) {
        (milli / 1000).to_string()
    } else {
        format!("{milli}m")
    }
}

/// The canonical spelling: the largest binary suffix that divides exactly, else bytes.
pub fn fmt_memory(bytes: u64) -> String {
    for (suffix, shift) in [("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)] {
        if bytes != 0 && bytes.is_multiple_of(1u64 << shift) {
            return format!("{}{suffix}", bytes >> shift);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> J {
        J::Str(x.into())
    }

    /// Kubernetes' decimal exponent, in every direction, whole results only.
    #[test]
    fn exponents_are_read_as_kubernetes_reads_them() {
        assert_eq!(parse_memory("1e9"), Ok(1_000_000_000));
        assert_eq!(parse_memory("1.5E3"), Ok(1500));
        assert_eq!(
            parse_memory("15e-1"),
            Err("\"15e-1\" is not a memory quantity (\"16Gi\", \"512Mi\", \"1G\", bytes)".into())
        );
        assert_eq!(
            parse_memory("1E"),
            Err("at most 64 Ti".into()),
            "E alone is exa"
        );
        assert_eq!(parse_cpu("1500e-3"), Ok(1500));
        assert_eq!(parse_cpu("2e0"), Ok(2000));
        assert!(parse_cpu("1e").is_err());
        assert!(parse_cpu("e3").is_err());
        assert!(parse_memory("1e99").is_err());
    }

    #[test]
    fn cpu_quantities_as_kubernetes_writes_them() {
        assert_eq!(cpu_from(&s("4")), Ok(4000));
        assert_eq!(cpu_from(&s("3500m")), Ok(3500));
        assert_eq!(cpu_from(&s("0.5")), Ok(500));
        assert_eq!(cpu_from(&s(".25")), Ok(250));
        assert_eq!(cpu_from(&J::U(2)), Ok(2000));
        assert_eq!(cpu_from(&J::F(1.5)), Ok(1500));
        assert!(cpu_from(&s("0.0005")).is_err(), "below a millicore");
        assert!(cpu_from(&s("4 cores"))
            .unwrap_err()
            .contains("\"4 cores\" is not a cpu quantity"));
        assert!(cpu_from(&s("-1")).is_err());
        assert!(cpu_from(&J::I(-1)).is_err());
        assert!(cpu_from(&s("")).is_err());
        assert!(cpu_from(&s("m")).is_err());
        assert!(cpu_from(&s("20000"))
            .unwrap_err()
            .contains("at most 10000 cores"));
        assert!(cpu_from(&J::Bool(true)).is_err());
    }

    #[test]
    fn memory_quantities_as_kubernetes_writes_them() {
        assert_eq!(memory_from(&s("16Gi")), Ok(16 << 30));
        assert_eq!(memory_from(&s("512Mi")), Ok(512 << 20));
        assert_eq!(memory_from(&s("70Mi")), Ok(70 << 20));
        assert_eq!(memory_from(&s("1.5Gi")), Ok(3 << 29));
        assert_eq!(memory_from(&s("1G")), Ok(1_000_000_000));
        assert_eq!(memory_from(&s("128974848")), Ok(128_974_848));
        assert_eq!(memory_from(&J::U(1024)), Ok(1024));
        assert!(memory_from(&s("16GB"))
            .unwrap_err()
            .contains("\"16GB\" is not a memory quantity"));
        assert!(memory_from(&s("1Ei"))
            .unwrap_err()
            .contains("at most 64 Ti"));
        assert!(memory_from(&J::F(1.5)).is_err());
    }

    #[test]
    fn canonical_spellings_read_back_the_same() {
        for milli in [0, 1, 500, 1000, 3500, 4000, 64_000] {
            assert_eq!(cpu_from(&s(&fmt_cpu(milli))), Ok(milli));
        }
        for bytes in [0, 1, 1000, 1024, 70 << 20, 3 << 29, 16 << 30, 2 << 40] {
            assert_eq!(memory_from(&s(&fmt_memory(bytes))), Ok(bytes));
        }
        assert_eq!(fmt_cpu(3500), "3500m");
        assert_eq!(fmt_memory(16 << 30), "16Gi");
    }
}
