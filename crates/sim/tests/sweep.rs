//! Seed sweep (in the manner of TigerBeetle's VOPR): thousands of random fault
//! schedules — crashes, restarts, reboots, partitions, isolations, one-way faults —
//! followed by a heal. Asserts that no safety invariant breaks in any of them and
//! that after the final heal the cluster elects a leader and takes writes again.
//!
//! `SWEEP_COUNT` (default 10,000 in release, 300 in debug) sets how many schedules; `SWEEP_SEED=N` replays one.
//! A failure prints the seed, the scenario, and the command that reproduces it.

mod common;

use sim::kernel::rng::Rng;

/// A random scenario: 3 or 5 etcd members over 2–3 zones, 60 s of chaos, then every host
/// restarted and the network healed, then 30 s to recover.
fn schedule(seed: u64) -> String {
    let mut r = Rng::new(seed).fork("sweep");
    let members = if r.below(2) == 0 { 3 } else { 5 };
    let zones = ["a", "b", "c"];
    let hosts: Vec<String> = (1..=members)
        .map(|i| {
            format!(
                r#"{{"name": "etcd-{i}", "zone": "{}", "roles": ["etcd"]}}"#,
                zones[(i - 1) % 3]
            )
        })
        .collect();
    let mut up = vec![true; members];
    let mut events = Vec::new();
    let mut t_ms = 0u64;
    let n_events = 3 + r.below(12);
    for _ in 0..n_events {
        t_ms += 200 + r.below(8_000);
        if t_ms >= 60_000 {
            break;
        }
        let h = r.below(members as u64) as usize;
        let host = format!("etcd-{}", h + 1);
        let ev = match r.below(8) {
            0 | 1 if up[h] => {
                up[h] = false;
                format!(r#""action": "crash", "host": "{host}""#)
            }
            0..=2 if !up[h] => {
                up[h] = true;
                format!(r#""action": "restart", "host": "{host}""#)
            }
            2 => format!(
                r#""action": "reboot", "host": "{host}", "downtime": "{}ms""#,
                100 + r.below(5_000)
            ),
            3 => {
                // Two non-empty groups: member h on one side, every other member on a random side.
                let mut groups: Vec<Vec<String>> = vec![vec![format!("\"{host}\"")], Vec::new()];
                for i in (0..members).filter(|&i| i != h) {
                    groups[r.below(2) as usize].push(format!("\"etcd-{}\"", i + 1));
                }
                groups.retain(|g| !g.is_empty());
                let g: Vec<String> = groups
                    .iter()
                    .map(|g| format!("[{}]", g.join(", ")))
                    .collect();
                format!(r#""action": "partition", "groups": [{}]"#, g.join(", "))
            }
            4 => r#""action": "partition", "groups": [["a"], ["b"]]"#.to_string(),
            5 => format!(r#""action": "isolate", "host": "{host}""#),
            6 => {
                let to = format!(
                    "etcd-{}",
                    (h + 1 + r.below(members as u64 - 1) as usize) % members + 1
                );
                format!(r#""action": "partition_oneway", "from": "{host}", "to": "{to}""#)
            }
            _ => r#""action": "heal""#.to_string(),
        };
        if ev.contains("\"reboot\"") && !up[h] {
            continue;
        }
        events.push(format!(r#"{{"at": "{t_ms}ms", {ev}}}"#));
    }
    events.push(r#"{"at": "60s", "action": "heal"}"#.to_string());
    for (i, u) in up.iter().enumerate() {
        if !u {
            events.push(format!(
                r#"{{"at": "60s", "action": "restart", "host": "etcd-{}"}}"#,
                i + 1
            ));
        }
    }
    let pre_vote = r.below(2) == 0;
    format!(
        r#"{{"version": 1, "name": "sweep {seed}", "seed": {seed}, "duration": "90s", "zones": ["a", "b", "c"],
  "hosts": [{}],
  "settings": {{"etcd_pre_vote": {pre_vote}}},
  "events": [{}]}}"#,
        hosts.join(", "),
        events.join(", ")
    )
}

/// None if the run is safe and live; otherwise what went wrong.
fn check(seed: u64) -> Option<String> {
    let report = match common::run_checked(&schedule(seed)) {
        Ok(r) => r,
        Err(problem) => return Some(problem),
    };
    // Liveness: healed and restarted at 60 s; within a few election timeouts (1 s each, PreVote adds one
    // round, CheckQuorum may have to depose a stale leader first) a leader must exist and writes commit.
    let s = &report.series;
    let from = s.t.iter().position(|&t| t >= 70.0).unwrap_or(s.t.len());
    if let Some(i) = (from..s.t.len()).find(|&i| s.etcd_leader[i].is_none() || !s.etcd_quorum[i]) {
        return Some(format!(
            "no leader or no quorum at t = {} s, 10 s after the final heal",
            s.t[i]
        ));
    }
    if let Some(i) = (from..s.t.len()).find(|&i| s.etcd_writable[i] != Some(true)) {
        return Some(format!(
            "probe write at t = {} s failed, 10 s after the final heal",
            s.t[i]
        ));
    }
    None
}

#[test]
fn random_fault_schedules_keep_raft_safe_and_live() {
    let sweep = common::Sweep {
        label: "sweep",
        test: "sweep",
        count_var: "SWEEP_COUNT",
        seed_var: "SWEEP_SEED",
        debug_count: 300,
        release_count: 10_000,
    };
    common::run(&sweep, schedule, check);
}
