//! The API endpoint without an external load balancer (docs/behaviour.md, "Control-plane
//! endpoint without a load balancer"): kube-vip's holder of the `plndr-cp-lock` Lease (here
//! kubeadm's example: 5 s, 3 s, 1 s) or keepalived's VRRP master (advert 1 s, master down after 3 × advert + skew, track
//! script every 3 s, fall 10, rise 2) answers for the virtual IP; an external load balancer on
//! one host is a single point of failure.

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

/// kube-vip with kubeadm's example timings (5 s, 3 s, 1 s; the settings' defaults are kube-vip's
/// own manifests' 15 s, 10 s, 2 s, checked by the ready scenario's test).
const KUBE_VIP: &str = r#""settings": {"api_endpoint": "kube-vip", "kube_vip_lease_duration": "5s",
    "kube_vip_renew_deadline": "3s", "kube_vip_retry_period": "1s"},"#;

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
    let s = sim::scenario::parse(&cluster(KUBE_VIP, "", "")).unwrap();
    assert!(s.to_json().contains(r#""api_endpoint": "kube-vip""#));
    let s = sim::scenario::parse(&cluster(KEEPALIVED, "", "")).unwrap();
    assert!(s.to_json().contains(r#""api_endpoint": "keepalived""#));
    let workers_only = r#"{"version": 1, "name": "x", "duration": "1m", "hosts": [{"name": "e", "roles": ["etcd"]}, {"name": "w", "roles": ["worker"]}],
        "settings": {"api_endpoint": "keepalived"}}"#;
    assert_eq!(
        sim::scenario::parse(workers_only).unwrap_err().to_string(),
        "settings.api_endpoint: keepalived runs beside an apiserver: no host runs one"
    );
}

const KEEPALIVED: &str = r#""settings": {"api_endpoint": "keepalived"},"#;

/// The hosts holding the VIP `secs` into the run of `json`.
fn vip_holders(json: &str, secs: f64) -> Vec<String> {
    let mut w = sim::world::World::new(sim::scenario::parse(json).unwrap());
    w.run_until(w.at_report_secs(secs), u64::MAX);
    w.snapshot()
        .hosts
        .into_iter()
        .filter(|h| h.vip)
        .map(|h| h.name)
        .collect()
}

/// keepalived with kubeadm's example priorities: m1 (101, `state MASTER`) is master from the
/// start. It dies: the VIP is gone until m2 and m3 (100) have heard no advert for 3 × 1 s +
/// 156/256 s, counted from m1's last advert (0-1 s before the crash); both claim it, and m3, the
/// higher address at the same priority, keeps it. Back up, m1 is master at once and m3 yields.
#[test]
fn keepalived_moves_the_vip_after_three_missed_adverts() {
    let events = r#"{"at": "1m", "action": "crash", "host": "m1"}, {"at": "3m", "action": "restart", "host": "m1"}"#;
    let json = cluster(KEEPALIVED, "", events);
    let r = run(&json);
    let moved = of(&r, EventKind::VipMoved);
    assert_eq!((moved[0].t, moved[0].host.as_deref()), (0.0, Some("m1")));
    let lost = of(&r, EventKind::VipLost);
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!((lost[0].t, lost[0].host.as_deref()), (60.0, Some("m1")));
    let takers: Vec<_> = moved.iter().filter(|e| e.t > 60.0 && e.t < 180.0).collect();
    let mut names: Vec<_> = takers.iter().map(|e| e.host.clone().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["m2", "m3"], "both backups at priority 100");
    for e in &takers {
        let after = e.t - 60.0;
        assert!((2.6..3.61).contains(&after), "{after} s after the crash");
        assert!(
            e.text.contains("3 × advert + skew at priority 100"),
            "{}",
            e.text
        );
    }
    assert_eq!(
        vip_holders(&json, 90.0),
        ["m3"],
        "the higher address keeps it"
    );
    assert!(api_down(&r, 55, 180) <= 4, "failover within seconds");
    assert_eq!(api_down(&r, 65, 180), 0);
    let back = moved
        .iter()
        .find(|e| e.t >= 180.0)
        .expect("m1 takes it back");
    assert_eq!((back.t, back.host.as_deref()), (180.0, Some("m1")));
    assert_eq!(
        vip_holders(&json, 182.0),
        ["m1"],
        "m3 heard m1's higher advert and yielded"
    );
}

/// A master that stops cleanly (a reboot) sends a priority-0 advert: the backups take over after
/// their skew time (156/256 s at priority 100), not after three missed adverts.
#[test]
fn a_rebooting_keepalived_master_hands_the_vip_on_within_its_skew_time() {
    let events = r#"{"at": "1m", "action": "reboot", "host": "m1", "downtime": "60s"}"#;
    let r = run(&cluster(KEEPALIVED, "", events));
    let first = of(&r, EventKind::VipMoved)
        .into_iter()
        .find(|e| e.t > 60.0)
        .expect("a takeover");
    let after = first.t - 60.0;
    assert!((0.6..0.7).contains(&after), "{after} s after the reboot");
    assert!(
        first.text.contains("m1 sent a priority-0 advert"),
        "{}",
        first.text
    );
    assert_eq!(api_down(&r, 62, 120), 0);
}

/// External etcd; m1's apiserver stops hearing etcd while its VRRP adverts still reach the
/// others. Its track script fails every 3 s; only after 10 failures (≈ 30 s) does its priority
/// drop below m2's, and m2 preempts one master-down interval later. Meanwhile API requests
/// through the VIP fail. When m1's checks pass twice again, it preempts back.
#[test]
fn a_failing_track_script_hands_the_vip_on_after_ten_checks() {
    let json = r#"{"version": 1, "name": "ka", "seed": 4, "duration": "4m",
      "hosts": [
        {"name": "m1", "roles": ["control-plane"]}, {"name": "m2", "roles": ["control-plane"]},
        {"name": "m3", "roles": ["control-plane"]},
        {"name": "e1", "roles": ["etcd"]}, {"name": "e2", "roles": ["etcd"]}, {"name": "e3", "roles": ["etcd"]},
        {"name": "w1", "roles": ["worker"]}, {"name": "users", "roles": ["client"]}],
      "settings": {"api_endpoint": "keepalived"},
      "events": [{"at": "1m", "action": "partition_oneway", "from": ["e1", "e2", "e3"], "to": "m1"},
                 {"at": "3m", "action": "heal"}]}"#;
    let r = run(json);
    let moved = of(&r, EventKind::VipMoved);
    // After 10 failed checks m1's priority is 101 - 2 = 99, below the backups' 100: both
    // preempt one master-down interval later, and m3, the higher address, keeps the VIP.
    let m2 = moved
        .iter()
        .find(|e| e.t > 60.0)
        .expect("the backups preempt");
    // Whichever backup's timer runs out first takes it first.
    assert!(matches!(m2.host.as_deref(), Some("m2" | "m3")), "{m2:?}");
    // 10 checks 3 s apart, the first up to 3 s after the cut, then ≤ 1 s to the next advert
    // and 3 s + skew.
    assert!(
        (60.0 + 27.0 + 3.0..60.0 + 30.0 + 3.0 + 4.7).contains(&m2.t),
        "{m2:?}"
    );
    assert!(
        m2.text
            .contains("m1's adverts carry priority 99, below its own 100"),
        "{}",
        m2.text
    );
    assert_eq!(vip_holders(json, m2.t + 5.0), ["m3"]);
    assert!(
        api_down(&r, 61, m2.t as usize - 3) >= 20,
        "the VIP still leads to m1's apiserver"
    );
    assert_eq!(api_down(&r, m2.t as usize + 2, 180), 0);
    let back = moved
        .iter()
        .find(|e| e.t > 180.0)
        .expect("m1 preempts back");
    assert_eq!(back.host.as_deref(), Some("m1"));
    assert!(back.t < 180.0 + 20.0, "{back:?}");
}

/// A split: each side's highest priority becomes master (two holders) and each side's clients
/// reach their own; after the heal the lower one hears the higher advert and steps down.
#[test]
fn a_split_gives_each_side_its_own_vip_holder() {
    let json = r#"{"version": 1, "name": "ka", "seed": 4, "duration": "4m", "zones": ["a", "b"],
      "hosts": [
        {"name": "m1", "roles": ["control-plane", "etcd"], "zone": "a"}, {"name": "m2", "roles": ["control-plane", "etcd"], "zone": "a"},
        {"name": "m3", "roles": ["control-plane", "etcd"], "zone": "b"}, {"name": "w1", "roles": ["worker"], "zone": "b"}],
      "settings": {"api_endpoint": "keepalived"},
      "events": [{"at": "1m", "action": "partition", "groups": [["a"], ["b"]]}, {"at": "3m", "action": "heal"}]}"#;
    let r = run(json);
    let moved = of(&r, EventKind::VipMoved);
    let m3 = moved
        .iter()
        .find(|e| e.t > 60.0)
        .expect("zone b elects its own");
    assert_eq!(m3.host.as_deref(), Some("m3"));
    assert!(of(&r, EventKind::VipLost).is_empty());
    let holders = |secs: f64| {
        let mut w = sim::world::World::new(sim::scenario::parse(json).unwrap());
        w.run_until(w.at_report_secs(secs), u64::MAX);
        let s = w.snapshot();
        s.hosts
            .into_iter()
            .filter(|h| h.vip)
            .map(|h| h.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(holders(120.0), ["m1", "m3"]);
    assert_eq!(holders(185.0), ["m1"]);
    // w1's kubelet, on m3's side, reaches the VIP there: its apiserver cannot write (no quorum
    // in zone b), so the Node goes NotReady, as with any apiserver cut off from etcd.
    assert!(of(&r, EventKind::NodeNotReady)
        .iter()
        .any(|e| e.node.as_deref() == Some("w1")));
}
