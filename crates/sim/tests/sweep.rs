//! Seed sweep (in the manner of TigerBeetle's VOPR): thousands of random fault
//! schedules — crashes, restarts, clean reboots and etcd restarts (a leader hands over),
//! partitions, isolations, one-way faults, a learner added and promoted, and a disaster
//! recovery (all members but one crash, force-new-cluster on the survivor, the old members
//! restarted) — followed by a heal. Asserts that no safety invariant breaks in any of them
//! (among them: no member of a replaced cluster is ever elected again) and that after the
//! final heal the cluster elects a leader and takes writes again.
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
    // A learner on a spare host, added and later promoted, in a third of the schedules.
    let learner = r.below(3) == 0;
    let mut hosts = hosts;
    if learner {
        hosts.push(r#"{"name": "spare", "zone": "c", "roles": ["etcd"], "standby": true}"#.into());
        let add = 1_000 + r.below(30_000);
        let promote = add + 200 + r.below(15_000);
        events.push(format!(
            r#"{{"at": "{add}ms", "action": "etcd_member_add", "host": "spare", "learner": true}}"#
        ));
        events.push(format!(
            r#"{{"at": "{promote}ms", "action": "etcd_member_promote", "host": "spare"}}"#
        ));
    }
    // A disaster recovery at 45 s in a fifth: chaos stops before it.
    let recovery = r.below(5) == 0;
    let chaos_end = if recovery { 44_000 } else { 60_000 };
    let mut t_ms = 0u64;
    let n_events = 3 + r.below(12);
    for _ in 0..n_events {
        t_ms += 200 + r.below(8_000);
        if t_ms >= chaos_end {
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
            5 if r.below(2) == 0 && up[h] => {
                format!(r#""action": "restart_component", "host": "{host}", "component": "etcd""#)
            }
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
    if recovery {
        // Every member but one crashes (those already down stay down); the operator forces a new
        // cluster on the survivor, then brings the old members back: they must stop as removed.
        let survivor = (0..members).find(|&i| up[i]).unwrap_or(0);
        if !up[survivor] {
            events.push(format!(
                r#"{{"at": "44500ms", "action": "restart", "host": "etcd-{}"}}"#,
                survivor + 1
            ));
            up[survivor] = true;
        }
        for i in (0..members).filter(|&i| i != survivor) {
            // A member the schedule crashed may be running anyway (a crash during a reboot's
            // downtime is undone by the boot): bring every one up, then cut them all, so that the
            // force-new-cluster happens, as an operator would do it, with the others really down.
            if !up[i] {
                events.push(format!(
                    r#"{{"at": "44500ms", "action": "restart", "host": "etcd-{}"}}"#,
                    i + 1
                ));
            }
            events.push(format!(
                r#"{{"at": "45s", "action": "crash", "host": "etcd-{}"}}"#,
                i + 1
            ));
            events.push(format!(
                r#"{{"at": "{}ms", "action": "restart", "host": "etcd-{}"}}"#,
                50_000 + r.below(8_000),
                i + 1
            ));
            up[i] = true;
        }
        events.push(r#"{"at": "45s", "action": "heal"}"#.to_string());
        events.push(format!(
            r#"{{"at": "47s", "action": "etcd_force_new_cluster", "host": "etcd-{}"}}"#,
            survivor + 1
        ));
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
    // Without PreVote, members that restart with stale logs campaign at ever higher terms and
    // depose each new leader (the disruption PreVote exists to prevent): give them 20 s.
    let settle = if schedule(seed).contains(r#""etcd_pre_vote": false"#) {
        80.0
    } else {
        70.0
    };
    let from = s.t.iter().position(|&t| t >= settle).unwrap_or(s.t.len());
    if let Some(i) =
        (from..s.t.len()).find(|&i| s.etcd_leader.get(i) == Some(None) || !s.etcd_quorum[i])
    {
        return Some(format!(
            "no leader or no quorum at t = {} s, {} s after the final heal",
            s.t[i],
            settle - 60.0
        ));
    }
    // After a disaster recovery the probe's endpoints include the removed members, which answer
    // every write with an error (as they would a client that lists them): its writes are not a
    // measure of the cluster there.
    let recovered = schedule(seed).contains("etcd_force_new_cluster");
    if let Some(i) = (from..s.t.len()).find(|&i| !recovered && s.etcd_writable[i] != Some(true)) {
        return Some(format!(
            "probe write at t = {} s failed, {} s after the final heal",
            s.t[i],
            settle - 60.0
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
