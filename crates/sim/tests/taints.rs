//! An operator's taints (`kubectl taint`, the scenario's `taint` and `untaint` events): no pod
//! here tolerates them, DaemonSet pods included. NoSchedule keeps new pods off the Node and
//! leaves the running ones; NoExecute also evicts every pod on it at the taint controller's
//! next pass; taking the taint away lets the DaemonSet's pod back.

use sim::record::{Event, EventKind};
use sim::report::Report;
use sim::run_scenario;

/// A master, a client, three workers; `web` with three pods behind a Service and the DaemonSet
/// `agent`; then `events`.
fn cluster(events: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "taints", "seed": 3, "duration": "4m",
        "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}},
                  {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}},
                  {{"name": "w3", "roles": ["worker"]}}, {{"name": "users", "roles": ["client"]}}],
        "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 3, "service": true}},
                      {{"kind": "DaemonSet", "name": "agent"}}],
        "events": [{events}]}}"#
    )
}

fn run(json: &str) -> Report {
    run_scenario(json).unwrap_or_else(|e| panic!("{e}"))
}

fn on<'a>(r: &'a Report, kind: EventKind, node: &str) -> Vec<&'a Event> {
    r.events
        .iter()
        .filter(|e| e.kind == kind && e.node.as_deref() == Some(node))
        .collect()
}

fn refusal(json: &str) -> String {
    sim::scenario::parse(json).unwrap_err().to_string()
}

#[test]
fn a_no_execute_taint_evicts_every_pod_on_the_node_at_once_and_keeps_new_ones_off() {
    let r = run(&cluster(
        r#"{"at": "60s", "action": "taint", "host": "w1", "taint": "dedicated=db:NoExecute"},
           {"at": "150s", "action": "untaint", "host": "w1", "taint": "dedicated"}"#,
    ));
    let evicted = on(&r, EventKind::PodEvicted, "w1");
    let workloads: Vec<_> = evicted
        .iter()
        .filter_map(|e| e.workload.as_deref())
        .collect();
    assert!(
        workloads.contains(&"agent"),
        "the DaemonSet's pod too: {workloads:?}"
    );
    assert!(workloads.contains(&"web"), "{workloads:?}");
    assert!(
        !workloads.contains(&"kube-proxy"),
        "kube-proxy's pod tolerates every taint: {workloads:?}"
    );
    for e in &evicted {
        // The taint controller's next pass after its informer sees the Node change.
        assert!((60.0..62.5).contains(&e.t), "{e:?}");
        assert!(e.text.contains("dedicated=db:NoExecute"), "{}", e.text);
        assert_eq!(e.by, Some("taint"));
    }
    let started = on(&r, EventKind::PodStarted, "w1");
    assert!(
        started.iter().all(|e| !(60.0..150.0).contains(&e.t)),
        "nothing lands on the tainted Node: {started:?}"
    );
    let agent_back = started
        .iter()
        .find(|e| e.workload.as_deref() == Some("agent") && e.t > 150.0)
        .expect("the DaemonSet's pod comes back once the taint is gone");
    assert!(agent_back.t < 155.0, "{agent_back:?}");
    // web was replaced elsewhere and ends whole.
    assert_eq!(r.summary.workloads["web"].final_running, 3);
    let ops: Vec<_> = r
        .summary
        .operations
        .iter()
        .map(|o| (o.action.as_str(), o.ok))
        .collect();
    assert_eq!(ops, [("taint", true), ("untaint", true)]);
}

#[test]
fn a_no_schedule_taint_keeps_the_running_pods_and_new_ones_off() {
    let r = run(&cluster(
        r#"{"at": "60s", "action": "taint", "host": "w1", "taint": "gpu:NoSchedule"},
           {"at": "70s", "action": "scale", "workload": "web", "replicas": 9}"#,
    ));
    assert!(on(&r, EventKind::PodEvicted, "w1").is_empty());
    let landed = on(&r, EventKind::PodStarted, "w1");
    assert!(landed.iter().all(|e| e.t < 60.0), "{landed:?}");
    let elsewhere = ["w2", "w3"]
        .iter()
        .flat_map(|w| on(&r, EventKind::PodStarted, w))
        .filter(|e| e.t > 70.0 && e.workload.as_deref() == Some("web"))
        .count();
    assert_eq!(elsewhere, 6, "the six new pods go to the untainted workers");
    assert_eq!(r.summary.workloads["web"].final_running, 9);
}

#[test]
fn taking_away_a_taint_the_node_lacks_is_refused_as_kubectl_refuses_it() {
    let r = run(&cluster(
        r#"{"at": "60s", "action": "untaint", "host": "w1", "taint": "dedicated:NoSchedule"}"#,
    ));
    let op = &r.summary.operations[0];
    assert!(!op.ok);
    assert_eq!(
        op.reason.as_deref(),
        Some("taint \"dedicated:NoSchedule\" not found")
    );
}

#[test]
fn a_taint_event_names_what_is_wrong_with_it() {
    let with = |host: &str, action: &str, taint: &str| {
        refusal(&cluster(&format!(
            r#"{{"at": "60s", "action": "{action}", "host": "{host}", "taint": "{taint}"}}"#
        )))
    };
    assert_eq!(
        with("w1", "taint", "dedicated"),
        "events[0].taint: \"dedicated\" has no effect: write key=value:NoSchedule or key=value:NoExecute"
    );
    assert_eq!(
        with("w1", "taint", "dedicated=db"),
        "events[0].taint: invalid taint spec: dedicated=db"
    );
    assert_eq!(
        with("w1", "taint", "a:Sometimes"),
        "events[0].taint: invalid taint effect: Sometimes, unsupported taint effect"
    );
    assert!(
        with("w1", "taint", "a:PreferNoSchedule").contains("PreferNoSchedule is not modelled"),
        "{}",
        with("w1", "taint", "a:PreferNoSchedule")
    );
    assert!(with("w1", "taint", "-a:NoSchedule").starts_with(
        "events[0].taint: invalid taint spec: -a:NoSchedule, name part must consist of alphanumeric characters"
    ));
    assert!(with(
        "m1",
        "untaint",
        "node-role.kubernetes.io/control-plane:NoSchedule"
    )
    .contains("is a taint Kubernetes manages itself"));
    assert_eq!(
        with("users", "taint", "a:NoSchedule"),
        "events[0].host: \"users\" is not a Node: only worker and control-plane hosts can be tainted"
    );
    // What is read is written back.
    let json =
        cluster(r#"{"at": "60s", "action": "taint", "host": "w1", "taint": "a=b:NoExecute"}"#);
    let s = sim::scenario::parse(&json).unwrap();
    assert_eq!(sim::scenario::parse(&s.to_json()).unwrap(), s);
}
