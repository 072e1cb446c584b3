//! Topology spread (docs/behaviour.md, "Capacity, disruption budgets, spreading"): `spread`
//! is maxSkew 1, DoNotSchedule, over zones or hosts; every Node with the label is a domain,
//! tainted or not (nodeTaintsPolicy: Ignore), so control-plane Nodes and cut-off Nodes count;
//! pods being deleted do not.

use sim::record::EventKind;
use sim::report::Report;
use sim::run_scenario;

fn run(json: &str) -> Report {
    run_scenario(json).unwrap_or_else(|e| panic!("{e}"))
}

/// A master in zone a, two workers in each of zones a, b, c; `web` has 6 pods spread over
/// zones. Zone c is cut off at 1:00.
const ZONES: &str = r#"{"version": 1, "name": "spread", "seed": 3, "duration": "10m",
  "zones": ["zone-a", "zone-b", "zone-c"],
  "hosts": [
    {"name": "m1", "zone": "zone-a", "roles": ["control-plane", "etcd"]},
    {"name": "a1", "zone": "zone-a", "roles": ["worker"]}, {"name": "a2", "zone": "zone-a", "roles": ["worker"]},
    {"name": "b1", "zone": "zone-b", "roles": ["worker"]}, {"name": "b2", "zone": "zone-b", "roles": ["worker"]},
    {"name": "c1", "zone": "zone-c", "roles": ["worker"]}, {"name": "c2", "zone": "zone-c", "roles": ["worker"]},
    {"name": "lb", "zone": "zone-a", "roles": ["load-balancer"]}, {"name": "users", "zone": "zone-a", "roles": ["client"]}
  ],
  "workloads": [{"kind": "Deployment", "name": "web", "replicas": 6, "service": true, "spread": "zone"}],
  "events": [{"at": "1m", "action": "partition", "groups": [["zone-a", "zone-b"], ["zone-c"]]}]}"#;

/// Zone c's two pods are evicted ≈ 340–355 s after the cut, but its Nodes are still domains
/// (NotReady, tainted: taints are ignored) with no pod counted (the evicted ones terminate):
/// zones a and b already hold 2 each, so their replacements would make the skew 2 — Pending.
#[test]
fn a_lost_zone_leaves_its_share_pending_under_zone_spread() {
    let r = run(ZONES);
    let web = &r.summary.workloads["web"];
    assert_eq!(web.pending_max, Some(2), "{web:?}");
    assert_eq!(web.final_running, 6, "zone c's pods still run, cut off");
    let pending: Vec<_> = r
        .events
        .iter()
        .filter(|e| e.kind == EventKind::PodPending)
        .collect();
    assert_eq!(pending.len(), 2);
    for e in &pending {
        assert!(e.t > 60.0 + 330.0 && e.t < 60.0 + 400.0, "{e:?}");
        let why = e.reason.as_deref().unwrap();
        assert_eq!(
            why,
            "0/7 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, \
             2 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, \
             4 node(s) didn't match pod topology spread constraints."
        );
    }
    // The same cluster without spread replaces them in zones a and b.
    let r = run(&ZONES.replace(r#", "spread": "zone""#, ""));
    assert_eq!(r.summary.workloads["web"].pending_max, None);
    assert!(r.events.iter().all(|e| e.kind != EventKind::PodPending));
}

/// Host spread with a control-plane Node: the master is a domain with no pod of `web` (its
/// taint is ignored for domains), so each worker may hold one: the fourth pod is Pending.
#[test]
fn host_spread_counts_the_control_plane_node_as_an_empty_domain() {
    let cluster = |roles: &str| {
        format!(
            r#"{{"version": 1, "name": "hosts", "seed": 3, "duration": "2m",
            "hosts": [
              {{"name": "m1", "roles": {roles}}},
              {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}}, {{"name": "w3", "roles": ["worker"]}},
              {{"name": "users", "roles": ["client"]}}
            ],
            "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 4, "service": true, "spread": "host"}}]}}"#
        )
    };
    let r = run(&cluster(r#"["control-plane", "etcd"]"#));
    let web = &r.summary.workloads["web"];
    assert_eq!(
        (web.pending_max, web.final_running),
        (Some(1), 3),
        "{web:?}"
    );
    assert_eq!(*r.series.pending_pods["web"].last().unwrap(), 1);
    // An external control plane (no Node for the master): 2, 1, 1 keeps the skew at 1.
    let r = run(&cluster(
        r#"["etcd", "apiserver", "controller-manager", "scheduler"]"#,
    ));
    let web = &r.summary.workloads["web"];
    assert_eq!(
        (web.pending_max, web.final_running),
        (Some(0), 4),
        "{web:?}"
    );
}

#[test]
fn spread_is_checked_when_loaded() {
    let bad = ZONES.replace(r#""spread": "zone""#, r#""spread": "rack""#);
    let e = sim::scenario::parse(&bad).unwrap_err().to_string();
    assert_eq!(
        e,
        r#"workloads[0].spread: unknown topology "rack" (known: zone, host)"#
    );
    let ds = ZONES.replace(
        r#""kind": "Deployment", "name": "web", "replicas": 6"#,
        r#""kind": "DaemonSet", "name": "web""#,
    );
    let e = sim::scenario::parse(&ds).unwrap_err().to_string();
    assert!(
        e.starts_with("workloads[0].spread: a DaemonSet runs one pod on every node"),
        "{e}"
    );
    let s = sim::scenario::parse(ZONES).unwrap();
    assert_eq!(
        sim::scenario::parse(&s.to_json()).unwrap(),
        s,
        "written back"
    );
}
