//! An operator's Node labels (`kubectl label`, the scenario's `label` and `unlabel` events): the
//! operator writes the Node (what the API then holds is in the console's transcript
//! `kubectl-label.txt`); the labels the playground derives from a host (hostname, zone, role,
//! architecture, OS) are refused, naming the field.

use sim::run_scenario;

fn cluster(events: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "labels", "seed": 3, "duration": "3m",
        "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}},
                  {{"name": "w1", "roles": ["worker"]}}, {{"name": "users", "roles": ["client"]}}],
        "events": [{events}]}}"#
    )
}

#[test]
fn label_and_unlabel_events_are_operations_the_cluster_carries_out() {
    let json = cluster(
        r#"{"at": "30s", "action": "label", "host": "w1", "label": "disk=ssd"},
           {"at": "90s", "action": "unlabel", "host": "w1", "label": "disk"}"#,
    );
    let r = run_scenario(&json).unwrap();
    let ops: Vec<_> = r
        .summary
        .operations
        .iter()
        .map(|o| (o.action.as_str(), o.ok))
        .collect();
    assert_eq!(ops, [("label", true), ("unlabel", true)]);
}

#[test]
fn a_label_event_names_what_is_wrong_with_it() {
    let with = |host: &str, action: &str, label: &str| {
        let json = cluster(&format!(
            r#"{{"at": "60s", "action": "{action}", "host": "{host}", "label": "{label}"}}"#
        ));
        sim::scenario::parse(&json).unwrap_err().to_string()
    };
    assert_eq!(
        with("w1", "label", "disk"),
        "events[0].label: invalid label spec: disk"
    );
    assert_eq!(
        with("w1", "unlabel", "disk=ssd"),
        "events[0].label: invalid label key: disk=ssd"
    );
    assert!(with("w1", "label", "disk=-x")
        .starts_with("events[0].label: invalid label value: \"disk=-x\""));
    assert!(
        with("w1", "label", "-disk=x").starts_with("events[0].label: invalid label key \"-disk\"")
    );
    assert_eq!(
        with("w1", "label", "topology.kubernetes.io/zone=b"),
        "events[0].label: topology.kubernetes.io/zone is a label this playground derives from the scenario's hosts (their name, zone and roles)"
    );
    assert_eq!(
        with("users", "label", "a=b"),
        "events[0].host: \"users\" is not a Node: only worker and control-plane hosts can be labelled"
    );
    let json = cluster(r#"{"at": "60s", "action": "label", "host": "w1", "label": "rack=r7"}"#);
    let s = sim::scenario::parse(&json).unwrap();
    assert_eq!(sim::scenario::parse(&s.to_json()).unwrap(), s);
}
