//! The example document of the contract page, and ways to edit it, for the tests of every
//! module of the scenario format.

use super::parse;

/// The example of the contract page, verbatim.
pub(super) const EXAMPLE: &str = r#"{
  "version": 1,
  "name": "Rack split with external etcd",
  "description": "Two racks, etcd 2+1 ...",
  "seed": 7,
  "duration": "15m",
  "zones": ["rack-a", "rack-b", "outside"],
  "hosts": [
    {"name": "etcd-1", "zone": "rack-a", "roles": ["etcd"]},
    {"name": "etcd-2", "zone": "rack-a", "roles": ["etcd"]},
    {"name": "etcd-3", "zone": "rack-b", "roles": ["etcd"]},
    {"name": "m1", "zone": "rack-a", "roles": ["control-plane"]},
    {"name": "m2", "zone": "rack-b", "roles": ["control-plane"]},
    {"name": "w1", "zone": "rack-a", "roles": ["worker"]},
    {"name": "w2", "zone": "rack-b", "roles": ["worker"], "spot": true},
    {"name": "lb", "zone": "outside", "roles": ["load-balancer"]},
    {"name": "users", "zone": "outside", "roles": ["client"]}
  ],
  "workloads": [
    {"kind": "Deployment", "name": "web", "replicas": 2, "service": true},
    {"kind": "StatefulSet", "name": "db", "replicas": 1},
    {"kind": "DaemonSet", "name": "agent"}
  ],
  "settings": {"node_monitor_grace_period": "40s"},
  "events": [
    {"at": "2m", "action": "partition", "groups": [["rack-a", "outside"], ["rack-b"]]},
    {"at": "10m", "action": "heal"}
  ]
}"#;

pub(super) fn example_value() -> serde_json::Value {
    serde_json::from_str(EXAMPLE).unwrap()
}

/// The example with one edit applied to its JSON value.
pub(super) fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = example_value();
    edit(&mut v);
    serde_json::to_string(&v).unwrap()
}

fn err_of(doc: &str) -> String {
    match parse(doc) {
        Ok(_) => panic!("accepted: {doc}"),
        Err(e) => e.to_string(),
    }
}

pub(super) fn with_events(events: serde_json::Value) -> String {
    edited(|v| v["events"] = events)
}

/// Every mismatch is reported, not just the first, so one run shows all messages that changed.
pub(super) fn assert_errors(cases: Vec<(String, &str)>) {
    let mut wrong = Vec::new();
    for (doc, want) in cases {
        let got = err_of(&doc);
        if got != want {
            wrong.push(format!("want {want}\n got {got}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
