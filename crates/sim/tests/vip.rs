//! The API endpoint without an external load balancer (docs/behaviour.md, "Control-plane
//! endpoint without a load balancer"): kube-vip's holder of the `plndr-cp-lock` Lease (5 s, 3 s,
//! 1 s) answers for the virtual IP; an external load balancer on one host is a single point of
//! failure.

use sim::record::{Event, EventKind};
use sim::report::Report;
use sim::run_scenario;

/// Three stacked masters, two workers, a client; `endpoint` is the `settings` (or none) and
/// `extra` more hosts; `events` at the end.
fn cluster(settings: &str, extra: &str, events: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "vip", "seed": 4, "duration": "5m",
        "hosts": [
          {{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "m2", "roles": ["control-plane", "etcd"]}},
          {{"name": "m3", "roles": ["control-plane", "etcd"]}},
          {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}},
          {{"name": "users", "roles": ["client"]}}{extra}
        ],
        "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 2, "service": true}}],
        {settings}
        "events": [{events}]}}"#
    )
}

const KUBE_VIP: &str = r#""settings": {"api_endpoint": "kube-vip"},"#;

fn run(json: &str) -> Report {
    run_scenario(json).unwrap_or_else(|e| panic!("{e}"))
}

fn of(r: &Report, kind: EventKind) -> Vec<&Event> {
    r.events.iter().filter(|e| e.kind == kind).collect()
}

/// Seconds in `[from, to)` whose API write probe failed.
fn api_down(r: &Report, from: usize, to: usize) -> usize {
    r.series.api_writable[from..to]
        .iter()
        .filter(|w| **w == Some(false))
        .count()
}

/// The holder dies: the VIP goes with it and a standby takes kube-vip's lease ≈ 4–9.5 s later
/// (it polls every 1–2.2 s and waits 5 s from the last change it saw); API writes fail only
/// meanwhile, and the workers' Nodes stay Ready (their renewals wait within the 50 s grace).
#[test]
fn the_vip_moves_when_its_holder_dies() {
    let r = run(&cluster(
        KUBE_VIP,
        "",
        r#"{"at": "1m", "action": "crash", "host": "m1"}"#,
    ));
    let moved = of(&r, EventKind::VipMoved);
    assert_eq!(moved[0].t, 0.0, "the holder at t = 0 is reported");
    let holder = moved[0].host.clone().unwrap();
    assert_eq!(holder, "m1", "{moved:?}");
    let lost = of(&r, EventKind::VipLost);
    assert_eq!(lost.len(), 1);
    assert!(lost[0].t == 60.0 && lost[0].host.as_deref() == Some("m1"));
    let next = moved.iter().find(|e| e.t > 60.0).expect("a new holder");
    assert!(next.host.as_deref() != Some("m1"));
    assert!((4.0..9.6).contains(&(next.t - 60.0)), "{next:?}");
    let down = api_down(&r, 55, 300);
    assert!((3..=11).contains(&down), "{down} s of failed API writes");
    assert_eq!(api_down(&r, 75, 300), 0);
    let not_ready: Vec<_> = of(&r, EventKind::NodeNotReady);
    assert!(
        not_ready.iter().all(|e| e.node.as_deref() == Some("m1")),
        "{not_ready:?}"
    );
}

/// Without etcd quorum no apiserver can write kube-vip's lease: the holder gives the VIP up
/// after the renew deadline (3 s) and nobody takes it.
#[test]
fn without_quorum_the_vip_is_dropped_and_nobody_takes_it() {
    let events = r#"{"at": "1m", "action": "crash", "host": "m2"}, {"at": "1m", "action": "crash", "host": "m3"}"#;
    let r = run(&cluster(KUBE_VIP, "", events));
    let lost = of(&r, EventKind::VipLost);
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(lost[0].host.as_deref(), Some("m1"));
    // Its last renewal up to 1 s (a retry period) before the crash, then the 3 s deadline.
    assert!((3.0..4.5).contains(&(lost[0].t - 60.0)), "{lost:?}");
    assert!(
        lost[0].text.contains("renewDeadline (3 s)"),
        "{}",
        lost[0].text
    );
    assert!(of(&r, EventKind::VipMoved).iter().all(|e| e.t == 0.0));
}

/// An external load balancer on one host is a single point of failure: when it dies the API is
/// gone for everyone to the end, while kube-vip's VIP moves to a surviving master.
#[test]
fn an_external_load_balancer_is_a_single_point_of_failure() {
    let lb = r#", {"name": "lb", "roles": ["load-balancer"]}"#;
    let r = run(&cluster(
        "",
        lb,
        r#"{"at": "1m", "action": "crash", "host": "lb"}"#,
    ));
    assert!(api_down(&r, 61, 300) >= 235, "the API stays gone");
    assert!(of(&r, EventKind::VipMoved).is_empty());
    // The same cluster with kube-vip (the lb host idle) loses nothing when lb dies.
    let r = run(&cluster(
        KUBE_VIP,
        lb,
        r#"{"at": "1m", "action": "crash", "host": "lb"}"#,
    ));
    assert_eq!(api_down(&r, 30, 300), 0);
}

#[test]
fn the_api_endpoint_is_checked_when_loaded() {
    let bad = |settings: &str| {
        sim::scenario::parse(&cluster(settings, "", ""))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad(r#""settings": {"api_endpoint": "haproxy"},"#),
        r#"settings.api_endpoint: unknown endpoint "haproxy" (known: load-balancer, kube-vip, keepalived)"#
    );
    assert_eq!(
        bad(r#""settings": {"api_endpoint": "keepalived"},"#),
        "settings.api_endpoint: keepalived is not implemented in this version (load-balancer or kube-vip)"
    );
    let s = sim::scenario::parse(&cluster(KUBE_VIP, "", "")).unwrap();
    assert!(s.to_json().contains(r#""api_endpoint": "kube-vip""#));
}
