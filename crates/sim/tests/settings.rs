//! Each setting changes what it names: a ready scenario run with the setting changed differs
//! where the flag says it should, by the amount the flag gives.

use sim::record::Event;
use sim::report::Report;
use sim::scenario::{self, SettingKey};

fn load(name: &str) -> scenario::Scenario {
    let path = format!(
        "{}/../../web/scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    scenario::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `name` run with each `(setting, words)` of `changes`.
fn run_with(name: &str, changes: &[(&str, &str)]) -> Report {
    let mut s = load(name);
    for (key, words) in changes {
        let key = SettingKey::from_name(key).unwrap();
        let value = s.settings.get(key).parse_like(words).unwrap();
        assert!(s.settings.set(key, value));
    }
    // Through the document, as a share link would carry it.
    sim::run_scenario(&s.to_json()).unwrap()
}

fn first<'a>(r: &'a Report, kind: &str) -> &'a Event {
    r.events
        .iter()
        .find(|e| e.kind == kind)
        .unwrap_or_else(|| panic!("no {kind}"))
}

#[test]
fn lb_fall_and_check_interval_set_how_soon_a_cut_off_apiserver_leaves_the_balancer() {
    // m1's etcd is cut off at 1:00; its /readyz fails from then on (its etcd check times out).
    let default = first(
        &run_with("8-lb-health-check-readyz", &[]),
        "lb.backend_down",
    )
    .t;
    let one = first(
        &run_with("8-lb-health-check-readyz", &[("lb_fall", "1")]),
        "lb.backend_down",
    )
    .t;
    let slow = run_with(
        "8-lb-health-check-readyz",
        &[("lb_fall", "1"), ("lb_check_interval", "10s")],
    );
    let slow = first(&slow, "lb.backend_down").t;
    // Three failed checks 2 s apart against one: 4 s sooner.
    assert!(
        (3.5..4.5).contains(&(default - one)),
        "fall 3 at {default}, fall 1 at {one}"
    );
    // One failed check, every 10 s instead of every 2 s: at most 8 s later.
    assert!(
        slow >= one && slow - one <= 8.5,
        "every 2 s at {one}, every 10 s at {slow}"
    );
}

#[test]
fn the_apiserver_liveness_threshold_sets_when_the_kubelet_kills_it() {
    // Two of three masters die at 1:00: the last apiserver's /livez fails every 10 s.
    let killed = |n: &str| {
        let r = run_with(
            "3-three-masters-two-die",
            &[("apiserver_liveness_failure_threshold", n)],
        );
        first(&r, "apiserver.killed").t
    };
    let (eight, three) = (killed("8"), killed("3"));
    // Five probes fewer, ten seconds apart.
    assert!(
        (49.0..51.0).contains(&(eight - three)),
        "8 failures at {eight}, 3 at {three}"
    );
}

#[test]
fn spot_notice_sets_when_the_interrupted_host_goes() {
    let crashed = |notice: &str| {
        let r = run_with("6-spot-two-interruptions", &[("spot_notice", notice)]);
        let m1 = |e: &&Event| e.host.as_deref() == Some("m1");
        let notice_at = r
            .events
            .iter()
            .filter(|e| e.kind == "host.spot_notice")
            .find(m1)
            .unwrap()
            .t;
        let gone_at = r
            .events
            .iter()
            .filter(|e| e.kind == "host.crashed")
            .find(m1)
            .unwrap()
            .t;
        gone_at - notice_at
    };
    assert_eq!(crashed("2m"), 120.0);
    assert_eq!(crashed("30s"), 30.0);
}

#[test]
fn the_unhealthy_zone_threshold_decides_whether_a_half_lost_zone_is_evicted() {
    // Three of zone a's six workers crash at 1:00. At 50 % NotReady the zone is normal under the
    // default 0.55 threshold: its NotReady nodes are tainted and their pods evicted 300 s later.
    // At 0.4 it is partially disrupted once three are NotReady (a zone's state needs more than
    // two), and a zone of 50 nodes or fewer is then not tainted: only the node the controller
    // saw NotReady first, while the zone still counted as normal, loses its pod (one a node).
    let evicted = |threshold: &str| {
        let settings = format!(r#""unhealthy_zone_threshold": "{threshold}""#);
        let web = |e: &&Event| e.kind == "pod.evicted" && e.workload.as_deref() == Some("web");
        half_zone_lost(&settings).events.iter().filter(web).count()
    };
    assert_eq!(evicted("0.55"), 3);
    assert_eq!(evicted("0.4"), 1);
}

#[test]
fn the_node_eviction_rate_spaces_the_taints_of_a_zone() {
    // The three NotReady nodes of zone a are tainted one token at a time: at 0.1 node/s ten
    // seconds apart (the first at once); at 1 node/s as soon as the controller sees each one
    // NotReady (their leases went stale at different passes), sooner than the tokens allow.
    let spread = |rate: &str| {
        let r = half_zone_lost(&format!(r#""node_eviction_rate": "{rate}""#));
        let t: Vec<f64> = (r.events.iter())
            .filter(|e| e.kind == "pod.evicted" && e.workload.as_deref() == Some("web"))
            .map(|e| e.t)
            .collect();
        assert_eq!(t.len(), 3, "{rate}: {t:?}");
        t[2] - t[0]
    };
    let (slow, fast) = (spread("0.1"), spread("1"));
    assert!((19.0..=21.0).contains(&slow), "0.1 node/s: {slow} s");
    assert!(
        fast < slow - 4.0,
        "1 node/s: {fast} s, 0.1 node/s: {slow} s"
    );
}

/// Three of zone a's six workers crash at 1:00 (one web pod a worker), with `settings` (JSON
/// members) for the controller-manager's flags.
fn half_zone_lost(settings: &str) -> Report {
    let doc = || {
        let workers: Vec<String> = (1..=6)
            .map(|i| format!(r#"{{"name": "a{i}", "zone": "a", "roles": ["worker"]}}"#))
            .collect();
        format!(
            r#"{{"version": 1, "name": "half a zone", "seed": 1, "duration": "10m",
              "zones": ["a", "b"],
              "settings": {{{settings}}},
              "hosts": [{{"name": "m1", "zone": "b", "roles": ["control-plane", "etcd"]}},
                        {{"name": "b1", "zone": "b", "roles": ["worker"]}}, {}],
              "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 7}}],
              "events": [{{"at": "1m", "action": "crash", "host": "a1"}},
                         {{"at": "1m", "action": "crash", "host": "a2"}},
                         {{"at": "1m", "action": "crash", "host": "a3"}}]}}"#,
            workers.join(", ")
        )
    };
    sim::run_scenario(&doc()).unwrap()
}

#[test]
fn lb_rise_sets_how_many_passed_checks_put_an_apiserver_back() {
    // m3's apiserver passes /readyz again once --force-new-cluster at 4:00 restored a quorum.
    let back = |rise: &str| {
        let r = run_with("3-three-masters-two-die", &[("lb_rise", rise)]);
        let m3 = |e: &&Event| e.kind == "lb.backend_up" && e.host.as_deref() == Some("m3");
        r.events.iter().find(m3).expect("m3 back in service").t
    };
    let (two, five) = (back("2"), back("5"));
    // Three more passed checks, 2 s apart.
    assert!(
        (5.5..6.5).contains(&(five - two)),
        "rise 2 at {two}, rise 5 at {five}"
    );
}

#[test]
fn the_apiserver_startup_threshold_sets_when_a_restarted_apiserver_that_never_starts_is_killed() {
    // m3's apiserver is killed by its liveness probe at 2:12 (no quorum) and restarted; its
    // startup probe then fails every 10 s until the quorum returns at 4:00.
    let killed = |n: &str| {
        let r = run_with(
            "3-three-masters-two-die",
            &[("apiserver_startup_failure_threshold", n)],
        );
        let startup = |e: &&Event| e.kind == "apiserver.killed" && e.text.contains("startup probe");
        r.events.iter().find(startup).map(|e| e.t)
    };
    // kubeadm's 24 failures take 240 s: the quorum is back first.
    assert_eq!(killed("24"), None);
    let three = killed("3").expect("killed by its startup probe");
    let liveness = first(
        &run_with("3-three-masters-two-die", &[]),
        "apiserver.killed",
    )
    .t;
    // Restarted at once the first time (the kubelet's back-off starts at the second), then
    // three failed probes ten seconds apart.
    assert!(
        (liveness + 25.0..liveness + 45.0).contains(&three),
        "killed by liveness at {liveness}, by a startup threshold of 3 at {three}"
    );
}

#[test]
fn a_large_zones_partial_disruption_is_tainted_at_the_secondary_rate() {
    // Zone a (6 workers) is partially disrupted at a 0.4 threshold once three are NotReady. A
    // zone of at most `large_cluster_size_threshold` Nodes is then not tainted (one pod lost:
    // see above); above it, at `secondary_node_eviction_rate`.
    let evicted = |settings: &str| {
        let settings = format!(r#""unhealthy_zone_threshold": "0.4", {settings}"#);
        let web = |e: &&Event| e.kind == "pod.evicted" && e.workload.as_deref() == Some("web");
        half_zone_lost(&settings).events.iter().filter(web).count()
    };
    assert_eq!(evicted(r#""large_cluster_size_threshold": 50"#), 1);
    assert_eq!(
        evicted(r#""large_cluster_size_threshold": 5, "secondary_node_eviction_rate": "1""#),
        3
    );
    // At the default 0.01 node/s the next taint comes 100 s after the first: fewer evicted by the
    // end (10 min) than at 1 node/s.
    let slow = evicted(r#""large_cluster_size_threshold": 5"#);
    assert!((1..3).contains(&slow), "{slow}");
}
