//! The load balancer balances connections (haproxy `mode tcp`, kubeadm's example), not requests:
//! what that means for the clients connected to an apiserver whose etcd is in the minority.

use serde_json::{json, Value};
use sim::report::Report;

fn load(name: &str) -> Value {
    let path = format!(
        "{}/../../web/scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn run(v: &Value) -> Report {
    sim::run_scenario(&v.to_string()).unwrap()
}

fn with(v: &Value, key: &str, value: Value) -> Value {
    let mut v = v.clone();
    v["settings"][key] = value;
    v
}

fn closed_on(r: &Report, apiserver: &str) -> Vec<f64> {
    let on = format!("apiserver on {apiserver}");
    (r.events.iter())
        .filter(|e| e.kind == "kubelet.connections_closed" && e.text.contains(&on))
        .map(|e| e.t)
        .collect()
}

/// Balancing requests, the kubelet's retries reach another apiserver at once and no connection
/// is ever closed; balancing connections, the kubelet given m1 fails there and redials. API
/// writes open a connection each, so they succeed either way once m1 is out.
#[test]
fn kubelets_redial_after_two_failed_renewals_only_when_the_balancer_keeps_connections() {
    let readyz = load("8-lb-health-check-readyz");
    let connection = run(&readyz);
    let request = run(&with(&readyz, "lb_balance", json!("request")));
    assert_eq!(closed_on(&connection, "m1").len(), 1);
    assert!(request
        .events
        .iter()
        .all(|e| e.kind != "kubelet.connections_closed"));
    // Once m1 is out (at 1:06), every write succeeds either way.
    for r in [&connection, &request] {
        assert!(r.series.api_writable[68..].iter().all(|w| *w == Some(true)));
    }
    let down = |r: &Report| {
        let e = r
            .events
            .iter()
            .find(|e| e.kind == "lb.backend_down")
            .unwrap();
        (e.t, e.text.clone())
    };
    assert_eq!(down(&connection).0, down(&request).0);
    assert!(down(&connection).1.contains("the ones it has stay"));
    assert!(down(&request).1.contains("stops sending to"));
}

/// w3 dies at 0:40 and m3's etcd member is cut off at 1:00. w3 is NotReady at 1:22 and its pods
/// leave the Service. The kube-proxy of w1 had been given m3 (the boot's round-robin, seed 1):
/// its watch there is closed when m3's cache is lost and every list fails, so its rules keep
/// w3's dead pod until m3's apiserver is killed by its liveness probe (2:12) and the
/// connection is reset. With `lb_shutdown_sessions` its connection is closed when m3 is taken
/// out (1:06), and with request balancing its lists reach m1 or m2: either way the Service is
/// whole again once w3's pods left the endpoints.
#[test]
fn a_watcher_connected_to_a_minority_apiserver_keeps_stale_rules_until_its_connection_ends() {
    let mut s = load("8-lb-health-check-readyz");
    let hosts = s["hosts"].as_array_mut().unwrap();
    hosts.insert(5, json!({"name": "w3", "roles": ["worker"]}));
    s["duration"] = json!("6m");
    s["events"] = json!([
        {"at": "40s", "action": "crash", "host": "w3"},
        {"at": "1m", "action": "partition_oneway", "from": "m3", "to": ["m1", "m2"]},
        {"at": "1m", "action": "partition_oneway", "from": ["m1", "m2"], "to": "m3"}
    ]);
    let whole = |r: &Report, from: usize, to: usize| {
        r.series.service_availability["web"][from..to]
            .iter()
            .all(|a| *a == 1.0)
    };
    let connection = run(&s);
    let not_ready = (connection.events.iter())
        .find(|e| e.kind == "node.not_ready")
        .unwrap();
    assert_eq!(not_ready.node.as_deref(), Some("w3"));
    assert!((80.0..=95.0).contains(&not_ready.t), "{}", not_ready.t);
    // Stale from then until the kill, whole a few seconds after it.
    assert!(!whole(&connection, 100, 130));
    assert!(whole(&connection, 140, 360));
    for (key, value) in [
        ("lb_shutdown_sessions", json!(true)),
        ("lb_balance", json!("request")),
    ] {
        let r = run(&with(&s, key, value));
        assert!(whole(&r, 100, 360), "{key}");
    }
}
