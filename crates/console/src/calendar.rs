//! The simulated cluster's calendar: its clock reads Wed, 01 Jan 2025 00:00:00 UTC when the
//! world starts, so the tools can print dates (`describe`'s RFC 1123, the API's RFC 3339).

use sim::kernel::time::SimTime;

/// Go's RFC 1123 with a numeric zone, as `describe` prints times: `Wed, 01 Jan 2025 00:01:05 +0000`.
pub fn date(t: SimTime) -> String {
    let s = t.0 / 1_000_000;
    let days = s / 86_400;
    // 2025-01-01 was a Wednesday; civil date from days (H. Hinnant's algorithm).
    let weekday = ["Wed", "Thu", "Fri", "Sat", "Sun", "Mon", "Tue"][(days % 7) as usize];
    let z = days as i64 + 20_089 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{weekday}, {day:02} {} {year} {:02}:{:02}:{:02} +0000",
        months[month as usize - 1],
        s / 3600 % 24,
        s / 60 % 60,
        s % 60
    )
}

/// `2025-01-01T00:01:05Z`; with `micros`, a MicroTime (`…05.250000Z`) as Leases carry.
pub fn rfc3339(t: SimTime, micros: bool) -> String {
    // "Wed, 01 Jan 2025 00:01:05 +0000" → its parts.
    let d = date(t);
    let p: Vec<&str> = d.split([' ', ',']).filter(|x| !x.is_empty()).collect();
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = months.iter().position(|m| *m == p[2]).unwrap_or(0) + 1;
    let frac = if micros {
        format!(".{:06}", t.0 % 1_000_000)
    } else {
        String::new()
    };
    format!("{}-{month:02}-{}T{}{frac}Z", p[3], p[1], p[4])
}

/// Nanoseconds since 1970 (2025-01-01T00:00:00Z is 1,735,689,600 s).
pub fn unix_nanos(t: SimTime) -> u64 {
    1_735_689_600_000_000_000 + t.0 * 1_000
}

/// The time in klog's line header: `MMDD hh:mm:ss.uuuuuu` (`0101 00:01:05.250000`).
pub fn klog_time(t: SimTime) -> String {
    let full = rfc3339(t, true);
    // "2025-01-01T00:01:05.250000Z"
    format!("{}{} {}", &full[5..7], &full[8..10], &full[11..26])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_print_as_go_prints_rfc1123z_and_the_api_rfc3339() {
        assert_eq!(
            rfc3339(SimTime(65_250_000), true),
            "2025-01-01T00:01:05.250000Z"
        );
        assert_eq!(rfc3339(SimTime(65_250_000), false), "2025-01-01T00:01:05Z");
        assert_eq!(klog_time(SimTime(65_250_000)), "0101 00:01:05.250000");
        assert_eq!(date(SimTime(0)), "Wed, 01 Jan 2025 00:00:00 +0000");
        assert_eq!(date(SimTime(65_000_000)), "Wed, 01 Jan 2025 00:01:05 +0000");
        // Seven days and an hour on: the next Wednesday.
        assert_eq!(
            date(SimTime((7 * 86_400 + 3_600) * 1_000_000)),
            "Wed, 08 Jan 2025 01:00:00 +0000"
        );
        assert_eq!(
            date(SimTime(31 * 86_400 * 1_000_000)),
            "Sat, 01 Feb 2025 00:00:00 +0000"
        );
    }
}
