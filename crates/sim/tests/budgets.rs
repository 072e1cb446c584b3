//! PodDisruptionBudgets and the Eviction API (docs/behaviour.md, "Capacity, disruption budgets,
//! spreading"): a drain evicts through the Eviction API, which refuses (429) an eviction that
//! would break the budget; the drain retries every 5 s; node death and taint-based eviction do
//! not consult budgets; a spot notice drains the same way and the host goes at 2 minutes.

use sim::record::{Event, EventKind};
use sim::report::Report;
use sim::run_scenario;

/// A master, a load balancer, a client, and `workers` workers in one zone; `web` with
/// `replicas` pods and the budget `pdb`, then `events`.
fn cluster(workers: u32, replicas: u32, pdb: &str, events: &str, spot: bool) -> String {
    let mut hosts = vec![
        r#"{"name": "m1", "zone": "core", "roles": ["control-plane", "etcd"]}"#.to_string(),
        r#"{"name": "lb", "zone": "core", "roles": ["load-balancer"]}"#.to_string(),
        r#"{"name": "users", "zone": "core", "roles": ["client"]}"#.to_string(),
    ];
    for i in 1..=workers {
        hosts.push(format!(
            r#"{{"name": "w{i}", "zone": "zone-a", "roles": ["worker"], "spot": {spot}}}"#
        ));
    }
    format!(
        r#"{{"version": 1, "name": "budgets", "seed": 5, "duration": "8m",
        "zones": ["core", "zone-a"], "hosts": [{}],
        "workloads": [{{"kind": "Deployment", "name": "web", "replicas": {replicas}, "service": true, "pdb": {pdb}}}],
        "events": [{events}]}}"#,
        hosts.join(",")
    )
}

fn run(json: &str) -> Report {
    run_scenario(json).unwrap_or_else(|e| panic!("{e}"))
}

fn of(r: &Report, kind: EventKind) -> Vec<&Event> {
    r.events
        .iter()
        .filter(|e| e.kind == kind && e.workload.as_deref() == Some("web"))
        .collect()
}

/// The web pods bound to `node` at the start (their `pod.started` events before t = 0 are not
/// reported; the pods evicted from it name it).
fn evicted_from<'a>(r: &'a Report, node: &str, by: &str) -> Vec<&'a Event> {
    of(r, EventKind::PodEvicted)
        .into_iter()
        .filter(|e| e.node.as_deref() == Some(node) && e.by == Some(by))
        .collect()
}

/// `minAvailable` equal to the replicas: every eviction is refused with kubectl's message, the
/// pods stay where they are, and the drain never ends (kubectl drain has no timeout).
#[test]
fn a_budget_with_no_room_refuses_every_eviction_and_the_drain_waits() {
    let r = run(&cluster(
        2,
        2,
        r#"{"min_available": 2}"#,
        r#"{"at": "1m", "action": "drain", "host": "w1"}"#,
        false,
    ));
    let refused = of(&r, EventKind::EvictionRefused);
    assert!(!refused.is_empty(), "no eviction.refused");
    for e in &refused {
        let why = e.reason.as_deref().unwrap();
        assert!(
            why.starts_with("Cannot evict pod as it would violate the pod's disruption budget.")
                && why
                    .contains("The disruption budget web needs 2 healthy pods and has 2 currently"),
            "{why}"
        );
        assert!(e.t >= 60.0 && e.t < 61.0, "refused at once: {e:?}");
    }
    // Retried every 5 s with the same answer: one event per pod, not one per retry.
    let mut pods: Vec<_> = refused.iter().map(|e| e.pod.clone()).collect();
    pods.dedup();
    assert_eq!(pods.len(), refused.len(), "{refused:?}");
    assert!(evicted_from(&r, "w1", "eviction-api").is_empty());
    assert!(r.summary.operations.iter().all(|o| o.action != "drain"));
    assert_eq!(r.summary.workloads["web"].final_running, 2);
}

/// `maxUnavailable: 1` over 4 pods on 2 workers: the drain of w1 evicts one web pod at once;
/// the other is refused until the first one's replacement runs Ready on w2, then goes at one
/// of the drain's 5 s retries; the drain ends, recorded as an operation, once w1 is empty.
#[test]
fn a_drain_goes_one_disruption_at_a_time_and_retries_every_5_seconds() {
    let r = run(&cluster(
        2,
        4,
        r#"{"max_unavailable": 1}"#,
        r#"{"at": "1m", "action": "drain", "host": "w1"}"#,
        false,
    ));
    let evicted = evicted_from(&r, "w1", "eviction-api");
    assert_eq!(evicted.len(), 2, "{evicted:?}");
    let (first, second) = (evicted[0].t, evicted[1].t);
    assert!((60.0..61.0).contains(&first), "{first}");
    let refused = of(&r, EventKind::EvictionRefused);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].pod, evicted[1].pod);
    let since = second - refused[0].t;
    let retries = (since / 5.0).round();
    assert!(
        retries >= 1.0 && (since - 5.0 * retries).abs() < 0.5,
        "{since} s after the refusal"
    );
    // Not before the first pod's replacement started.
    let replaced = of(&r, EventKind::PodStarted)
        .into_iter()
        .find(|e| e.t > first)
        .expect("a replacement");
    assert!(replaced.t <= second, "{} > {second}", replaced.t);
    let drain = r.summary.operations.iter().find(|o| o.action == "drain");
    let drain = drain.expect("the drain is recorded");
    assert!(drain.ok && drain.t > second && drain.host.as_deref() == Some("w1"));
    assert_eq!(r.summary.workloads["web"].final_running, 4);
}

/// A node that dies is not a voluntary disruption: its pods are evicted by the taint after
/// ≈ 340–355 s whatever the budget says.
#[test]
fn taint_based_eviction_ignores_budgets() {
    let r = run(&cluster(
        2,
        2,
        r#"{"min_available": 2}"#,
        r#"{"at": "30s", "action": "crash", "host": "w1"}"#,
        false,
    ));
    let evicted = evicted_from(&r, "w1", "taint");
    assert!(!evicted.is_empty(), "no taint-based eviction");
    for e in evicted {
        assert!(e.t - 30.0 > 330.0 && e.t - 30.0 < 360.0, "{e:?}");
    }
    assert!(of(&r, EventKind::EvictionRefused).is_empty());
}

/// A spot notice drains through the Eviction API; what the budget holds back dies with the
/// host at the end of the 2-minute notice.
#[test]
fn a_spot_notice_drains_within_the_budget_and_the_rest_dies_at_two_minutes() {
    let r = run(&cluster(
        2,
        2,
        r#"{"min_available": 2}"#,
        r#"{"at": "1m", "action": "spot_interrupt", "host": "w1"}"#,
        true,
    ));
    assert!(!of(&r, EventKind::EvictionRefused).is_empty());
    assert!(evicted_from(&r, "w1", "eviction-api").is_empty());
    let running = &r.series.running_pods["web"];
    let at = |s: usize| running[s];
    assert_eq!(at(170), 2, "held by the budget through the notice");
    assert_eq!(at(185), 1, "gone with the host at 3:00");
    // Not an operation: a spot notice is not the operator's.
    assert!(r.summary.operations.is_empty());
}

/// With a cloud-controller-manager, the Node of the reclaimed instance is deleted once it is
/// NotReady (checked every 5 s); the pod garbage collector deletes its pods 40-60 s after that
/// (20 s passes, 40 s quarantine): replaced within about a minute, not 300 s later.
#[test]
fn a_cloud_controller_deletes_the_reclaimed_node_and_the_pod_gc_its_pods_a_minute_later() {
    let json = cluster(
        2,
        2,
        r#"{"min_available": 2}"#,
        r#"{"at": "1m", "action": "spot_interrupt", "host": "w1"}"#,
        true,
    );
    let with = json.replace(
        r#""events":"#,
        r#""settings": {"cloud_controller_manager": true}, "events":"#,
    );
    let r = run(&with);
    let not_ready = r
        .events
        .iter()
        .find(|e| e.kind == EventKind::NodeNotReady && e.node.as_deref() == Some("w1"))
        .expect("w1 NotReady")
        .t;
    let deleted = of(&r, EventKind::PodDeleted);
    assert_eq!(deleted.len(), 1, "{deleted:?}");
    // The Node goes within 5 s of NotReady; its pod 40 to 60 s after the Node.
    let after = deleted[0].t - not_ready;
    assert!(
        (40.0..=65.5).contains(&after),
        "{after} s after NotReady: {deleted:?}"
    );
    assert!(deleted[0].text.contains("garbage collector"));
    let running = &r.series.running_pods["web"];
    let back = deleted[0].t as usize + 10;
    assert_eq!(running[back], 2, "replaced within seconds");
    // Without it the pod object stays until the taint-based eviction, ≈ 300 s after NotReady:
    // past the end of this run.
    let r = run(&json);
    assert!(of(&r, EventKind::PodDeleted).is_empty());
    assert_eq!(*r.series.running_pods["web"].last().unwrap(), 1);
}

/// kubectl drain evicts the pods it listed after cordoning and waits for those only: pods that
/// land on the node later (here after an uncordon and a scale-up) stay, and the drain ends
/// once its own pods are gone.
#[test]
fn a_drain_evicts_only_the_pods_it_listed() {
    let r = run(&cluster(
        2,
        2,
        r#"{"min_available": 2}"#,
        r#"{"at": "1m", "action": "drain", "host": "w1"},
           {"at": "90s", "action": "uncordon", "host": "w1"},
           {"at": "2m", "action": "scale", "workload": "web", "replicas": 4}"#,
        false,
    ));
    let evicted = evicted_from(&r, "w1", "eviction-api");
    assert_eq!(evicted.len(), 1, "{evicted:?}");
    let landed: Vec<_> = of(&r, EventKind::PodStarted)
        .into_iter()
        .filter(|e| e.node.as_deref() == Some("w1") && e.t > 90.0)
        .collect();
    assert!(!landed.is_empty(), "the scale-up places pods on w1 again");
    let drain = r
        .summary
        .operations
        .iter()
        .find(|o| o.action == "drain")
        .unwrap();
    assert!(drain.ok, "{drain:?}");
    assert_eq!(r.summary.workloads["web"].final_running, 4);
}

/// An evicted pod leaves its Service's endpoints at once and gets SIGTERM. The simulated echo
/// server stops at once, so the requests kube-proxy still sends it before it hears of the
/// change fail (the drain's blips); an app that takes 5 s to stop serves them.
#[test]
fn an_app_that_stops_gracefully_serves_through_a_drain() {
    let path = format!(
        "{}/../../web/scenarios/13-drain-two-workers-with-a-budget.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut s = sim::scenario::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let web = |r: &Report| r.summary.services["web"].availability;
    let abrupt = run(&s.to_json());
    assert!(
        web(&abrupt) < 1.0,
        "the echo server stops at once: {}",
        web(&abrupt)
    );
    let w = s.workloads.iter_mut().find(|w| w.name == "web").unwrap();
    w.stop_takes = sim::time::Duration::from_secs(5);
    let graceful = run(&s.to_json());
    assert_eq!(web(&graceful), 1.0);
    // It stopped 5 s after its eviction, then the kubelet confirmed the deletion.
    let evicted = of(&graceful, EventKind::PodEvicted)[0];
    let pod = evicted.pod.clone().unwrap();
    let killed = (graceful.events.iter())
        .find(|e| e.kind == EventKind::PodKilled && e.pod.as_deref() == Some(&*pod))
        .expect("its container stopped");
    assert!((5.0..5.5).contains(&(killed.t - evicted.t)), "{killed:?}");
    // Longer than the grace period is refused, naming the field.
    let w = s.workloads.iter_mut().find(|w| w.name == "web").unwrap();
    w.stop_takes = sim::time::Duration::from_secs(31);
    let e = sim::scenario::parse(&s.to_json()).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "workloads[0].stop_takes: 31s is longer than the termination grace period (30s)"
        ),
        "{e}"
    );
}
