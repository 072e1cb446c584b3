//! Seed sweep of voluntary disruptions and of the API's virtual IP: random drains, cordons and
//! uncordons of the workers, and crashes, restarts and short splits of the control-plane hosts
//! (the VIP's holders, kube-vip's or keepalived's by seed), for 6 minutes; then everything is
//! healed and restarted, and a minute later uncordoned. Workers are never crashed or cut off, so every pod that
//! stops is stopped by an eviction. Asserts, second by second:
//! - a budget is never broken by a voluntary eviction: the web pods running never fall below
//!   what the budget keeps (minAvailable 3, or 4 replicas with maxUnavailable 1);
//! - at most one VIP holder per network side (a second one on the same side lasts less than a
//!   VRRP advert interval: the next advert makes it step down);
//!
//! and at the end: one VIP holder, API writes, web back at 4.
//!
//! `DRAIN_SWEEP_COUNT` (default 200 in release, 6 in debug); `DRAIN_SWEEP_SEED=N` replays one.

mod common;

use sim::kernel::rng::Rng;
use sim::world::World;

const MASTERS: [&str; 3] = ["m1", "m2", "m3"];
const WORKERS: [&str; 4] = ["w1", "w2", "w3", "w4"];
const END: u64 = 360;

fn schedule(seed: u64) -> String {
    let mut r = Rng::new(seed).fork("drain-sweep");
    let mut up = [true; 3];
    let mut events = Vec::new();
    let mut t = 0u64;
    loop {
        t += 5 + r.below(30);
        if t >= END {
            break;
        }
        let ev = match r.below(6) {
            0 | 1 => format!(
                r#""action": "drain", "host": "{}""#,
                WORKERS[r.below(4) as usize]
            ),
            2 => format!(
                r#""action": "{}", "host": "{}""#,
                ["cordon", "uncordon"][r.below(2) as usize],
                WORKERS[r.below(4) as usize]
            ),
            3 => {
                let m = r.below(3) as usize;
                up[m] = !up[m];
                let action = if up[m] { "restart" } else { "crash" };
                format!(r#""action": "{action}", "host": "{}""#, MASTERS[m])
            }
            // A short split of the masters (the workers stay with the unnamed ones): the heal
            // comes before any Node could be tainted for long.
            4 => {
                let side: Vec<String> = MASTERS
                    .iter()
                    .filter(|_| r.below(2) == 0)
                    .map(|m| format!("\"{m}\""))
                    .collect();
                if side.is_empty() {
                    continue;
                }
                let heal = (t + 10 + r.below(30)).min(END);
                events.push(format!(r#"{{"at": "{heal}s", "action": "heal"}}"#));
                format!(
                    r#""action": "partition", "groups": [[{}]]"#,
                    side.join(", ")
                )
            }
            _ => r#""action": "heal""#.to_string(),
        };
        events.push(format!(r#"{{"at": "{t}s", {ev}}}"#));
    }
    events.push(format!(r#"{{"at": "{END}s", "action": "heal"}}"#));
    for (i, u) in up.iter().enumerate() {
        if !u {
            events.push(format!(
                r#"{{"at": "{END}s", "action": "restart", "host": "{}"}}"#,
                MASTERS[i]
            ));
        }
    }
    for w in WORKERS {
        events.push(format!(
            r#"{{"at": "{}s", "action": "uncordon", "host": "{w}"}}"#,
            END + 60
        ));
    }
    let endpoint = ["kube-vip", "keepalived"][(seed % 2) as usize];
    let pdb = ["{\"min_available\": 3}", "{\"max_unavailable\": 1}"][(seed / 2 % 2) as usize];
    format!(
        r#"{{"version": 1, "name": "drain sweep {seed}", "seed": {seed}, "duration": "9m",
  "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "m2", "roles": ["control-plane", "etcd"]}},
            {{"name": "m3", "roles": ["control-plane", "etcd"]}},
            {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}},
            {{"name": "w3", "roles": ["worker"]}}, {{"name": "w4", "roles": ["worker"]}},
            {{"name": "users", "roles": ["client"]}}],
  "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 4, "service": true, "pdb": {pdb}}}],
  "settings": {{"api_endpoint": "{endpoint}"}},
  "events": [{}]}}"#,
        events.join(",\n    ")
    )
}

fn check(seed: u64) -> Option<String> {
    let json = schedule(seed);
    let scenario = match sim::scenario::parse(&json) {
        Ok(s) => s,
        Err(e) => return Some(format!("generated scenario refused: {e}")),
    };
    let mut world = World::new(scenario);
    let mut doubled = None;
    for second in 0..=540u64 {
        world.run_until(world.at_report_secs(second as f64), u64::MAX);
        let s = world.snapshot();
        let web: usize = s
            .hosts
            .iter()
            .map(|h| h.pods.iter().filter(|p| p.workload == "web").count())
            .sum();
        if web < 3 {
            return Some(format!(
                "{second} s: {web} web pods run, the budget keeps 3"
            ));
        }
        let holders: Vec<_> = s.hosts.iter().filter(|h| h.vip).collect();
        let same_side = holders
            .iter()
            .enumerate()
            .any(|(i, a)| holders[i + 1..].iter().any(|b| a.island == b.island));
        if same_side && doubled == Some(second - 1) {
            let names: Vec<_> = holders.iter().map(|h| h.name.as_str()).collect();
            return Some(format!(
                "{second} s: {names:?} hold the VIP on one network side for over a second"
            ));
        }
        doubled = same_side.then_some(second);
        if second == 540 && holders.len() != 1 {
            return Some(format!("{} VIP holders at the end", holders.len()));
        }
    }
    world.run_to_end();
    let report = sim::report(&world);
    if let Some(v) = report.summary.violations.first() {
        return Some(format!("violation at {} s: {} — {}", v.t, v.kind, v.text));
    }
    let s = &report.series;
    let last = s.t.len() - 1;
    if (last - 60..=last).any(|i| s.api_writable[i] != Some(true)) {
        return Some("API writes failing in the last minute".into());
    }
    let web = &report.summary.workloads["web"];
    if web.final_running != 4 {
        return Some(format!(
            "{} web pods at the end, 4 wanted",
            web.final_running
        ));
    }
    None
}

#[test]
fn voluntary_evictions_keep_the_budget_and_one_vip_holder_per_side() {
    // The generator must produce valid scenarios, or the sweep checks nothing.
    for seed in 0..4 {
        sim::scenario::parse(&schedule(seed)).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
    let sweep = common::Sweep {
        label: "drain sweep",
        test: "drain_sweep",
        count_var: "DRAIN_SWEEP_COUNT",
        seed_var: "DRAIN_SWEEP_SEED",
        debug_count: 6,
        release_count: 200,
    };
    common::run(&sweep, schedule, check);
}
