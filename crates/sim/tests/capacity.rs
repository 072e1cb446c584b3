//! Capacity (docs/behaviour.md, "Capacity, disruption budgets, spreading"): the scheduler places
//! a pod only where the requests bound there plus its own fit the Node's allocatable; a pod that
//! fits nowhere is Pending with kube-scheduler's reason, and is placed when room appears.

use sim::record::EventKind;
use sim::report::Report;
use sim::run_scenario;

/// A master and a client outside, two workers of 4 cores in each of three zones; `web` asks
/// `replicas` pods of one core each. Zone c is cut off at 1:00 and healed at `heal`.
fn zones(replicas: u32, heal: &str) -> String {
    let mut hosts = vec![
        r#"{"name": "m1", "zone": "core", "roles": ["control-plane", "etcd"]}"#.to_string(),
        r#"{"name": "lb", "zone": "core", "roles": ["load-balancer"]}"#.to_string(),
        r#"{"name": "users", "zone": "core", "roles": ["client"]}"#.to_string(),
    ];
    for z in ["a", "b", "c"] {
        for i in 1..=2 {
            hosts.push(format!(
                r#"{{"name": "{z}{i}", "zone": "zone-{z}", "roles": ["worker"], "cpu": "4", "memory": "16Gi"}}"#
            ));
        }
    }
    format!(
        r#"{{"version": 1, "name": "capacity", "seed": 3, "duration": "15m",
        "zones": ["core", "zone-a", "zone-b", "zone-c"], "hosts": [{}],
        "workloads": [{{"kind": "Deployment", "name": "web", "replicas": {replicas}, "service": true, "requests": {{"cpu": "1", "memory": "1Gi"}}}}],
        "events": [
          {{"at": "1m", "action": "partition", "groups": [["core", "zone-a", "zone-b"], ["zone-c"]]}},
          {{"at": "{heal}", "action": "heal"}}
        ]}}"#,
        hosts.join(",")
    )
}

fn run(json: &str) -> Report {
    run_scenario(json).unwrap_or_else(|e| panic!("{e}"))
}

fn pending_events(r: &Report) -> Vec<&sim::record::Event> {
    r.events
        .iter()
        .filter(|e| e.kind == EventKind::PodPending)
        .collect()
}

/// 18 pods of one core on 24 cores (three per worker, CoreDNS's 100m beside two of them): the
/// two workers left in zones a and b have room for 4 of zone c's 6 pods (one core each, less
/// where CoreDNS runs), so the rest stays Pending until zone c is back.
#[test]
fn a_zone_lost_at_75_percent_leaves_pods_pending_until_room_appears() {
    let r = run(&zones(18, "12m"));
    let pending = pending_events(&r);
    assert!(!pending.is_empty(), "no pod.pending");
    for e in &pending {
        assert_eq!(e.workload.as_deref(), Some("web"));
        // After the 300 s eviction of zone c's pods (the cut at 1:00, NotReady ≈ 40–55 s later).
        assert!(e.t > 60.0 + 340.0 && e.t < 60.0 + 400.0, "{e:?}");
        let why = e.reason.as_deref().unwrap();
        assert!(why.starts_with("0/7 nodes are available: "), "{why}");
        assert!(why.contains("Insufficient cpu"), "{why}");
        assert!(
            why.contains("node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"),
            "{why}"
        );
        assert!(
            why.contains("2 node(s) had untolerated taint {node.kubernetes.io/unreachable: }"),
            "{why}"
        );
    }
    let w = &r.summary.workloads["web"];
    let stuck = w.pending_max.unwrap();
    assert!((2..=6).contains(&stuck), "{stuck} Pending at most");
    assert_eq!(pending.len() as u32, stuck, "one pod.pending per pod");
    // Pending from its eviction until the heal lets zone c's Nodes take them back.
    let pending_s = w.pending_s.unwrap();
    assert!(
        pending_s > 300.0 && pending_s < 400.0,
        "{pending_s} s Pending"
    );
    let series = &r.series.pending_pods["web"];
    assert_eq!(*series.last().unwrap(), 0, "placed once room appeared");
    assert_eq!(w.final_running, 18);
}

/// 12 pods of one core on 24: the four workers left have room for all of zone c's.
#[test]
fn a_zone_lost_at_50_percent_is_rescheduled_in_full() {
    let r = run(&zones(12, "14m"));
    assert!(pending_events(&r).is_empty(), "{:?}", pending_events(&r));
    let w = &r.summary.workloads["web"];
    assert_eq!((w.pending_max, w.pending_s), (Some(0), Some(0.0)));
    // Zone c's four pods were replaced in zones a and b while it was cut off.
    let running = &r.series.running_pods["web"];
    let at = |t: usize| running[t];
    assert_eq!(
        at(13 * 60),
        12 + 4,
        "replacements plus zone c's own, still running there"
    );
}

/// Without capacity in the document, nothing about Pending is reported (the base format).
#[test]
fn a_document_without_capacity_reports_as_before() {
    let json = zones(18, "12m")
        .replace(r#", "cpu": "4", "memory": "16Gi""#, "")
        .replace(r#", "requests": {"cpu": "1", "memory": "1Gi"}"#, "");
    assert!(!json.contains("cpu"), "{json}");
    let r = run(&json);
    assert!(r.series.pending_pods.is_empty());
    assert_eq!(r.summary.workloads["web"].pending_max, None);
    assert_eq!(r.summary.workloads["web"].final_running, 18);
}
