//! The control plane on top of etcd, asserted against docs/behaviour.md: leader election
//! failover timing, a leader that cannot renew, the apiserver's liveness kill, and the
//! load balancer's health check.

use sim::record::Event;
use sim::report::Report;
use sim::run_scenario;

fn run(json: &str) -> Report {
    run_scenario(json).unwrap_or_else(|e| panic!("scenario refused: {e}"))
}

fn masters(seed: u64, check: &str, events: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "t", "seed": {seed}, "duration": "5m",
        "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "m2", "roles": ["control-plane", "etcd"]}},
                  {{"name": "m3", "roles": ["control-plane", "etcd"]}}, {{"name": "m4", "roles": ["control-plane", "etcd"], "standby": true}},
                  {{"name": "lb", "roles": ["load-balancer"]}}],
        "settings": {{"lb_health_check": "{check}"}}, "events": [{events}]}}"#
    )
}

fn holder_at_start(r: &Report, lease: &str) -> String {
    let e = r
        .events
        .iter()
        .find(|e| e.kind == "lease.acquired" && e.lease == Some(lease))
        .expect("a lease at t = 0");
    assert_eq!(e.t, 0.0);
    e.host.clone().unwrap()
}

/// Three masters (seed `seed`) where `event` (given the controller-manager's holder at 0:00)
/// happens at 60 s: the run, and the first acquisition of that lease after it.
fn kcm_after(seed: u64, event: impl Fn(&str) -> String) -> (Report, Event) {
    let holder = holder_at_start(
        &run(&masters(seed, "readyz", "")),
        "kube-controller-manager",
    );
    let r = run(&masters(seed, "readyz", &event(&holder)));
    let next = r
        .events
        .iter()
        .find(|e| {
            e.kind == "lease.acquired" && e.lease == Some("kube-controller-manager") && e.t > 60.0
        })
        .expect("someone leads again")
        .clone();
    (r, next)
}

/// Facts sheet, leader election: a controller-manager that restarts is `hostname_UUID` with a new
/// UUID, so it finds the lease held by its former self as held by another and waits for it to go
/// unrenewed for leaseDuration like any standby: no one leads for ≈ 13–24 s. Before, the restarted
/// copy had its host's name as identity and took the lease straight back.
#[test]
fn a_restarted_leading_controller_manager_waits_like_a_standby() {
    for seed in 1..=10 {
        let (r, next) = kcm_after(seed, |holder| {
            format!(
                r#"{{"at": "60s", "action": "restart_component", "host": "{holder}", "component": "kube-controller-manager"}}"#
            )
        });
        let delay = next.t - 60.0;
        assert!(
            (12.5..24.5).contains(&delay),
            "seed {seed}: a controller-manager leads again after {delay} s"
        );
        let leaders = &r.series.controller_manager_leader;
        assert!(
            (62..72).all(|i| leaders.get(i) == Some(None)),
            "seed {seed}: nobody leads meanwhile"
        );
    }
}

#[test]
fn the_controller_manager_moves_13_to_24_s_after_its_host_dies() {
    let mut delays = Vec::new();
    for seed in 1..=30 {
        let (r, next) = kcm_after(seed, |holder| {
            format!(r#"{{"at": "60s", "action": "crash", "host": "{holder}"}}"#)
        });
        let delay = next.t - 60.0;
        // leaseDuration 15 s counted from when the standby saw the last renewal (0–2 s before the crash,
        // seen up to one poll later), polls every 2–4.4 s: ≈ 13–24 s.
        assert!(
            (12.5..24.5).contains(&delay),
            "seed {seed}: new controller-manager leader after {delay} s"
        );
        delays.push(delay);
        assert!(
            r.summary.violations.is_empty(),
            "{:?}",
            r.summary.violations
        );
        let kcm = &r.summary.leaders["kube-controller-manager"];
        assert_eq!(kcm.changes, 2, "the boot holder and the standby");
        assert_eq!(kcm.final_holder.as_deref(), next.host.as_deref());
    }
    delays.sort_by(f64::total_cmp);
    let median = delays[delays.len() / 2];
    assert!(
        (15.0..19.0).contains(&median),
        "typically 16–17 s, median {median} s"
    );
}

#[test]
fn two_of_three_masters_down_the_survivor_gives_up_its_leases_and_its_apiserver_is_killed() {
    for seed in 1..=5 {
        let first = run(&masters(seed, "readyz", ""));
        let holder = holder_at_start(&first, "kube-controller-manager");
        let others: Vec<&str> = ["m1", "m2", "m3"]
            .into_iter()
            .filter(|h| *h != holder)
            .collect();
        let events = format!(
            r#"{{"at": "30s", "action": "crash", "host": "{}"}}, {{"at": "30s", "action": "crash", "host": "{}"}},
               {{"at": "3m", "action": "join", "host": "m4"}}, {{"at": "200s", "action": "etcd_force_new_cluster", "host": "{holder}"}}"#,
            others[0], others[1]
        );
        let r = run(&masters(seed, "readyz", &events));
        let lost = r
            .events
            .iter()
            .find(|e| e.kind == "lease.lost" && e.lease == Some("kube-controller-manager"))
            .expect("lease lost");
        // docs/behaviour.md, leader election: it gives up ≈ 12 s after its last renewal (the failing
        // renew poll begins retryPeriod 2 s after it, with renewDeadline 10 s); it last renewed 0–2 s
        // before the crash.
        assert!(
            (10.0..12.1).contains(&(lost.t - 30.0)),
            "seed {seed}: gave up {} s after the crash",
            lost.t - 30.0
        );
        let killed = r
            .events
            .iter()
            .find(|e| e.kind == "apiserver.killed")
            .expect("liveness kill");
        // 8 failed probes 10 s apart: the first fails within a period of etcd losing quorum.
        assert!(
            (68.0..92.0).contains(&(killed.t - 30.0)),
            "seed {seed}: killed {} s after",
            killed.t - 30.0
        );
        // No API write succeeds between ≈ 40 s and the force-new-cluster at 200 s.
        let api = &r.series.api_writable;
        assert!(
            api[40..200].iter().all(|w| *w == Some(false)),
            "seed {seed}"
        );
        let ops = &r.summary.operations;
        assert_eq!(
            (ops[0].action.as_str(), ops[0].ok),
            ("join", false),
            "seed {seed}: no quorum to add a member"
        );
        assert_eq!(
            (ops[1].action.as_str(), ops[1].ok),
            ("etcd_force_new_cluster", true)
        );
        // After the recovery, writes through the load balancer succeed again and the leases are retaken.
        assert!(
            api[240..].iter().all(|w| *w == Some(true)),
            "seed {seed}: API writes back after recovery"
        );
        assert_eq!(
            r.summary.leaders["kube-controller-manager"]
                .final_holder
                .as_deref(),
            Some(holder.as_str())
        );
        assert!(r.summary.violations.is_empty());
    }
}

/// m1's etcd member is cut from the other two (both directions) while the load balancer still
/// reaches every apiserver: with `tcp` checks it keeps sending a third of the requests to m1,
/// which cannot commit them; with `readyz` it takes m1 out after 3 failed checks.
#[test]
fn a_tcp_health_check_keeps_routing_to_an_apiserver_without_quorum() {
    let cut = r#"{"at": "60s", "action": "partition_oneway", "from": "m1", "to": ["m2", "m3"]},
                 {"at": "60s", "action": "partition_oneway", "from": ["m2", "m3"], "to": "m1"}"#;
    let tcp = run(&masters(3, "tcp", cut));
    let readyz = run(&masters(3, "readyz", cut));
    let failures = |r: &Report| {
        r.series.api_writable[70..]
            .iter()
            .filter(|w| **w == Some(false))
            .count()
    };
    // Round-robin over three backends: about a third of the writes land on m1 and time out.
    let tcp_failed = failures(&tcp);
    assert!(
        (50..110).contains(&tcp_failed),
        "tcp: {tcp_failed} of 230 writes failed"
    );
    // The TCP check passes as long as the process accepts connections: m1 is taken out only while
    // its liveness probe has it killed and restarting (≈ 70–90 s later), then put back.
    let first_down = tcp
        .events
        .iter()
        .find(|e| e.kind == "lb.backend_down")
        .map_or(f64::MAX, |e| e.t);
    let killed = tcp
        .events
        .iter()
        .find(|e| e.kind == "apiserver.killed")
        .expect("m1's apiserver is killed")
        .t;
    assert!(
        first_down > killed,
        "tcp: m1 taken out at {first_down} s, before its apiserver died at {killed} s"
    );
    // readyz: m1 goes unready once its etcd check fails, and is out after 3 × 2 s.
    assert_eq!(failures(&readyz), 0);
    let down = readyz
        .events
        .iter()
        .find(|e| e.kind == "lb.backend_down")
        .expect("m1 taken out");
    assert_eq!(down.host.as_deref(), Some("m1"));
    assert!(down.t - 60.0 < 12.0, "taken out after {} s", down.t - 60.0);
    assert!(
        readyz.summary.api.as_ref().unwrap().write_availability
            > tcp.summary.api.as_ref().unwrap().write_availability
    );
}

/// docs/behaviour.md, "kube-apiserver and the load balancer": the liveness probe (8 × 10 s) kills
/// an apiserver ≈ 72–84 s after etcd becomes unusable; the kubelet restarts it at once the first
/// time; the startup probe (24 × 10 s, liveness off until it passes) kills a restarted apiserver
/// that never sees etcd after ≈ 240 s; the back-off between later restarts is 10 s, 20 s, …
/// And "Timelines": after recovery the API returns within seconds or one back-off.
#[test]
fn an_apiserver_without_etcd_is_killed_by_liveness_then_by_its_startup_probe() {
    let cut = r#"{"at": "60s", "action": "crash", "host": "m1"}, {"at": "60s", "action": "crash", "host": "m2"},
                 {"at": "15m", "action": "restart", "host": "m1"}"#;
    let json = masters(5, "readyz", cut).replace(r#""duration": "5m""#, r#""duration": "20m""#);
    let r = run(&json);
    let kills: Vec<f64> = r
        .events
        .iter()
        .filter(|e| e.kind == "apiserver.killed" && e.host.as_deref() == Some("m3"))
        .map(|e| e.t)
        .collect();
    assert!(kills.len() >= 4, "kills of m3's apiserver: {kills:?}");
    // The first failing probe falls within one period of the loss, then 7 more, each ≤ 2 s.
    assert!(
        (132.0..=146.0).contains(&kills[0]),
        "liveness kill at {}",
        kills[0]
    );
    assert!(r
        .events
        .iter()
        .any(|e| e.t == kills[0] && e.text.contains("liveness probe")));
    // Restarted at once, then 24 startup probes 10 s apart (the last one's 2 s timeout included).
    let gaps: Vec<f64> = kills.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        (240.0..=244.0).contains(&gaps[0]),
        "first restart at once: {gaps:?}"
    );
    assert!(
        (250.0..=254.0).contains(&gaps[1]),
        "then a 10 s back-off: {gaps:?}"
    );
    assert!((260.0..=264.0).contains(&gaps[2]), "then 20 s: {gaps:?}");
    assert!(r
        .events
        .iter()
        .any(|e| e.t == kills[1] && e.text.contains("startup probe")));
    // m1 back at 15:00 gives etcd a quorum again: the API takes writes within one probe period
    // and the back-off the apiserver may be waiting out (at most 40 s here).
    let back = (900..r.series.t.len())
        .find(|&i| r.series.api_writable[i] == Some(true))
        .expect("writes return");
    assert!(back <= 900 + 10 + 40 + 10, "API writable again at {back} s");
}

/// docs/behaviour.md, "Nodes, taints, eviction": pods are evicted 300 s after the taint-eviction
/// controller *observes* the taint, and a controller-manager failover restarts that clock.
#[test]
fn a_controller_manager_failover_restarts_the_eviction_clock() {
    let cluster = |events: &str| {
        format!(
            r#"{{"version": 1, "name": "t", "seed": 4, "duration": "12m",
            "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "m2", "roles": ["control-plane", "etcd"]}},
                      {{"name": "m3", "roles": ["control-plane", "etcd"]}}, {{"name": "lb", "roles": ["load-balancer"]}},
                      {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}}],
            "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 2}}],
            "events": [{events}]}}"#
        )
    };
    let evicted = |r: &Report| {
        r.events
            .iter()
            .find(|e| e.kind == "pod.evicted" && e.node.as_deref() == Some("w1"))
            .map(|e| e.t)
            .expect("w1's pod is evicted")
    };
    let holder = holder_at_start(&run(&cluster("")), "kube-controller-manager");
    // w1 dies at 60 s: tainted ≈ 40–60 s later, its pod evicted 300 s after the controller saw it.
    let plain = run(&cluster(
        r#"{"at": "60s", "action": "crash", "host": "w1"}"#,
    ));
    let tainted = plain
        .events
        .iter()
        .find(|e| e.kind == "node.not_ready" && e.node.as_deref() == Some("w1"))
        .expect("w1 goes NotReady")
        .t;
    assert!((100.0..=121.0).contains(&tainted), "NotReady at {tainted}");
    let gap = evicted(&plain) - tainted;
    assert!(
        (300.0..=302.0).contains(&gap),
        "evicted {gap} s after the taint"
    );
    // The controller-manager's leader dies at 200 s, while w1 is tainted: the new leader's first
    // node-monitor pass (a monitor period, 5 s, after it starts) sees w1 for the first time,
    // removes its taint and adds it again (`markNodeAsReachable`, then the rate limiter), and
    // the pod goes 300 s after that.
    let failover = run(&cluster(&format!(
        r#"{{"at": "60s", "action": "crash", "host": "w1"}}, {{"at": "200s", "action": "crash", "host": "{holder}"}}"#
    )));
    let new_leader = failover
        .events
        .iter()
        .find(|e| {
            e.kind == "lease.acquired" && e.lease == Some("kube-controller-manager") && e.t > 200.0
        })
        .expect("a new controller-manager leader")
        .t;
    let gap = evicted(&failover) - new_leader;
    assert!(
        (305.0..=307.0).contains(&gap),
        "evicted {gap} s after the new leader took over at {new_leader}"
    );
}

/// A new controller-manager leader removes the taints of every Node it sees for the first time
/// and taints the unhealthy ones again through the zone's rate limiter: in a partially
/// disrupted zone of 50 nodes or fewer that rate is 0, so Nodes the old leader had tainted stay
/// untainted, and their pods are never evicted.
#[test]
fn a_new_controller_manager_leader_untaints_a_partially_disrupted_small_zone_for_good() {
    let cluster = |events: &str| {
        let workers: Vec<String> = (1..=6)
            .map(|i| format!(r#"{{"name": "a{i}", "zone": "a", "roles": ["worker"]}}"#))
            .collect();
        format!(
            r#"{{"version": 1, "name": "t", "seed": 4, "duration": "12m", "zones": ["a", "m"],
            "hosts": [{{"name": "m1", "zone": "m", "roles": ["control-plane", "etcd"]}},
                      {{"name": "m2", "zone": "m", "roles": ["control-plane", "etcd"]}},
                      {{"name": "m3", "zone": "m", "roles": ["control-plane", "etcd"]}},
                      {{"name": "lb", "zone": "m", "roles": ["load-balancer"]}}, {}],
            "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 6}}],
            "events": [{{"at": "60s", "action": "crash", "host": "a1"}}, {{"at": "60s", "action": "crash", "host": "a2"}},
                       {{"at": "150s", "action": "crash", "host": "a3"}}, {{"at": "150s", "action": "crash", "host": "a4"}}
                       {events}]}}"#,
            workers.join(", ")
        )
    };
    let evicted = |r: &Report| -> Vec<String> {
        let mut nodes: Vec<String> = (r.events.iter())
            .filter(|e| e.kind == "pod.evicted" && e.workload.as_deref() == Some("web"))
            .filter_map(|e| e.node.clone())
            .collect();
        nodes.sort();
        nodes
    };
    // a1 and a2 go NotReady while zone a is normal (2 of 6): tainted, their pods evicted 300 s
    // later. a3 and a4 make the zone partially disrupted (4 of 6): the one the controller sees
    // first may still be tainted (3 of 6 is under the 55 %), the last one is not.
    let holder = holder_at_start(&run(&cluster("")), "kube-controller-manager");
    let plain = evicted(&run(&cluster("")));
    assert!(
        plain.starts_with(&["a1".to_string(), "a2".to_string()]) && plain.len() <= 3,
        "{plain:?}"
    );
    // The leader dies at 250 s: the new one removes a1's and a2's taints and, at rate 0, never
    // taints them again.
    let failover = run(&cluster(&format!(
        r#", {{"at": "250s", "action": "crash", "host": "{holder}"}}"#
    )));
    assert_eq!(evicted(&failover), Vec::<String>::new());
}

/// docs/behaviour.md, "Nodes, taints, eviction", zone disruption: while every zone is fully
/// disrupted nothing is tainted ("master disruption mode"); on leaving that mode every node's
/// probe time is reset to now, so a node that is still silent gets a fresh grace period.
#[test]
fn leaving_master_disruption_mode_gives_every_node_a_fresh_grace_period() {
    // Every kubelet reaches the API through the load balancer: isolating it silences every node
    // (the control-plane hosts' own controller-manager still sees the leases stop).
    let json = r#"{"version": 1, "name": "t", "seed": 2, "duration": "12m",
        "hosts": [{"name": "m1", "roles": ["control-plane", "etcd"]}, {"name": "lb", "roles": ["load-balancer"]},
                  {"name": "w1", "roles": ["worker"]}, {"name": "w2", "roles": ["worker"]}],
        "workloads": [{"kind": "Deployment", "name": "web", "replicas": 2}],
        "events": [{"at": "60s", "action": "isolate", "host": "lb"}, {"at": "150s", "action": "crash", "host": "w2"},
                   {"at": "200s", "action": "heal"}]}"#;
    let r = run(json);
    // In the mode no node is tainted: no eviction 300 s after the nodes went NotReady (≈ 110 s).
    let evictions: Vec<f64> = r
        .events
        .iter()
        .filter(|e| e.kind == "pod.evicted")
        .map(|e| e.t)
        .collect();
    assert!(!evictions.is_empty(), "w2's pod is evicted in the end");
    // w2, dead since 150 s, is tainted only a fresh grace period (50 s) after the heal ended the
    // mode, then evicted 300 s after that: not before 200 + 50 + 300 s.
    assert!(
        evictions.iter().all(|&t| t >= 550.0),
        "evicted at {evictions:?}: w2 was tainted before its fresh grace period ran out"
    );
    // The mode ends when the monitor (every 5 s) sees the healed kubelets renew (every 10 s); w2 is
    // tainted at the first monitor pass past its grace period, seen within a second, then 300 s.
    assert!(
        evictions[0] <= 200.0 + 10.0 + 5.0 + 50.0 + 5.0 + 1.0 + 300.0 + 1.0,
        "evicted at {evictions:?}"
    );
}

/// docs/behaviour.md, "Service data path and DNS": a restarted kube-proxy does not touch the
/// kernel's rules until its informers have synced, so restarting it while the API is down
/// changes nothing; a node reboot (rules gone, kube-proxy unable to list) breaks that node.
#[test]
fn a_kube_proxy_restart_without_the_api_keeps_the_rules_a_reboot_does_not() {
    let cluster = |events: &str| {
        format!(
            r#"{{"version": 1, "name": "t", "seed": 3, "duration": "5m",
            "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "lb", "roles": ["load-balancer"]}},
                      {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}}, {{"name": "w3", "roles": ["worker"]}},
                      {{"name": "users", "roles": ["client"]}}],
            "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 3, "service": true}}],
            "events": [{{"at": "60s", "action": "crash", "host": "m1"}}, {events}]}}"#
        )
    };
    let availability = |r: &Report, from: usize| {
        let s = &r.series.service_availability["web"];
        s[from..].iter().sum::<f64>() / (s.len() - from) as f64
    };
    let restart = run(&cluster(
        r#"{"at": "120s", "action": "restart_component", "host": "w1", "component": "kube-proxy"}"#,
    ));
    assert_eq!(
        availability(&restart, 120),
        1.0,
        "the rules stay: nothing fails"
    );
    let reboot = run(&cluster(
        r#"{"at": "120s", "action": "reboot", "host": "w1"}"#,
    ));
    // w1's pod is gone and w1 has no rules: requests landing on w1 (a third) or sent to its pod
    // (a third of the rest) fail.
    let after = availability(&reboot, 160);
    assert!(
        (0.3..0.6).contains(&after),
        "availability after the reboot: {after}"
    );
}

/// docs/behaviour.md, "Service data path and DNS": clients cache a Service's answer for 30 s by
/// default (kubeadm's Corefile, `ttl 30`); CoreDNS pods restarted while the API is down cannot
/// answer, so lookups fail once the cached answers expire.
#[test]
fn clients_keep_a_service_answer_for_its_30_s_ttl() {
    let cluster = |settings: &str| {
        format!(
            r#"{{"version": 1, "name": "t", "seed": 6, "duration": "4m",
            "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "lb", "roles": ["load-balancer"]}},
                      {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}},
                      {{"name": "users", "roles": ["client"]}}],
            "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 2, "service": true}}],
            "settings": {{{settings}}},
            "events": [{{"at": "60s", "action": "crash", "host": "m1"}},
                       {{"at": "125s", "action": "restart_component", "host": "w1", "component": "coredns"}},
                       {{"at": "125s", "action": "restart_component", "host": "w2", "component": "coredns"}}]}}"#
        )
    };
    let first_failure = |r: &Report| {
        let s = &r.series.service_availability["web"];
        (0..s.len())
            .find(|&i| s[i] < 1.0)
            .expect("lookups fail in the end") as f64
    };
    // The client looks the name up when its cached answer expires: every 30 s from its first
    // request at 0 s, so the first lookup after the restart at 125 s is at 150 s.
    let default = first_failure(&run(&cluster("")));
    assert!(
        (126.0..=155.0).contains(&default),
        "first failed request at {default} s"
    );
    assert!(
        default > 130.0,
        "answers are cached longer than 5 s: {default}"
    );
    let short = first_failure(&run(&cluster(r#""dns_cache_ttl": "5s""#)));
    assert!(
        (125.0..=130.0).contains(&short),
        "with a 5 s TTL: {short} s"
    );
}

/// docs/behaviour.md: `kubeadm join` starts with discovery through the API endpoint, from the
/// joining host; a spot node's termination handler drains through the API from the node. Cut off
/// from the endpoint, the join fails with kubeadm's error and the node is not drained.
#[test]
fn join_and_spot_drain_need_the_api_from_the_host_itself() {
    let cluster = |events: &str| {
        format!(
            r#"{{"version": 1, "name": "t", "seed": 2, "duration": "3m",
            "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "lb", "roles": ["load-balancer"]}},
                      {{"name": "w1", "roles": ["worker"], "spot": true}}, {{"name": "w2", "roles": ["worker"]}},
                      {{"name": "w3", "roles": ["worker"], "standby": true}}],
            "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 2}}],
            "events": [{events}]}}"#
        )
    };
    let r = run(&cluster(
        r#"{"at": "30s", "action": "partition", "groups": [["w3", "w1"]]},
           {"at": "40s", "action": "join", "host": "w3"},
           {"at": "50s", "action": "spot_interrupt", "host": "w1"},
           {"at": "60s", "action": "heal"}, {"at": "70s", "action": "join", "host": "w3"}"#,
    ));
    let ops: Vec<(&str, bool, f64)> = r
        .summary
        .operations
        .iter()
        .map(|o| (o.action.as_str(), o.ok, o.t))
        .collect();
    assert_eq!(ops, [("join", false, 40.0), ("join", true, 70.0)]);
    let reason = r.summary.operations[0].reason.as_deref().unwrap_or("");
    assert!(
        reason.contains("couldn't validate the identity of the API server"),
        "{reason}"
    );
    let notice = r
        .events
        .iter()
        .find(|e| e.kind == "host.spot_notice")
        .expect("a spot notice");
    assert!(notice.text.contains("cannot be drained"), "{}", notice.text);
    // Nothing on w1 was evicted by a drain: its pod dies with the host at 2:50.
    assert!(!r
        .events
        .iter()
        .any(|e| e.kind == "pod.evicted" && e.t < 170.0));
}

/// A worker cut off long enough to go NotReady, then healed at every phase of its lease cycle
/// (renewed every 30 s here, so its 10 s status update often comes first, as it does for real
/// kubelets whose jittered renewals drift): its kubelet posts Ready, and the node lifecycle
/// controller counts that status as a heartbeat (its probeTimestamp moves), so the Node is not
/// marked Unknown again while the lease waits for its next renewal (facts: "Node monitor
/// period", kube-controller-manager `tryUpdateNodeHealth`).
#[test]
fn a_reconnected_kubelet_that_reports_ready_is_not_marked_unknown_again() {
    for offset in (0..30).step_by(3) {
        let heal = 160 + offset;
        let json = format!(
            r#"{{"version": 1, "name": "t", "seed": 3, "duration": "4m",
            "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "m2", "roles": ["control-plane", "etcd"]}},
                      {{"name": "m3", "roles": ["control-plane", "etcd"]}}, {{"name": "lb", "roles": ["load-balancer"]}},
                      {{"name": "w1", "roles": ["worker"]}}, {{"name": "w2", "roles": ["worker"]}}],
            "settings": {{"node_lease_renew_interval": "30s"}},
            "events": [{{"at": "60s", "action": "isolate", "host": "w1"}}, {{"at": "{heal}s", "action": "heal"}}]}}"#
        );
        let r = run(&json);
        let of = |kind: &str| -> Vec<f64> {
            r.events
                .iter()
                .filter(|e| e.kind == kind && e.node.as_deref() == Some("w1"))
                .map(|e| e.t)
                .collect()
        };
        let not_ready = of("node.not_ready");
        assert_eq!(not_ready.len(), 1, "heal at {heal} s: {not_ready:?}");
        let ready = of("node.ready");
        assert_eq!(ready.len(), 1, "heal at {heal} s: {ready:?}");
        // The next status post (every 10 s), then a monitor pass (5 s).
        assert!(
            ready[0] - heal as f64 <= 16.0,
            "heal at {heal} s: Ready at {}",
            ready[0]
        );
    }
}

/// Three control-plane hosts with etcd on spot instances, replaced `replace_after` after each
/// reclaim (`every` between interruptions per host).
fn spot_control_plane(seed: u64, duration: &str, every: &str) -> String {
    format!(
        r#"{{"version":1,"name":"cp on spot","seed":{seed},"duration":"{duration}",
        "hosts":[{{"name":"m1","roles":["control-plane","etcd"],"spot":true}},
                 {{"name":"m2","roles":["control-plane","etcd"],"spot":true}},
                 {{"name":"m3","roles":["control-plane","etcd"],"spot":true}},
                 {{"name":"lb","roles":["load-balancer"]}},{{"name":"users","roles":["client"]}},
                 {{"name":"w1","roles":["worker"]}}],
        "workloads":[{{"kind":"Deployment","name":"web","replicas":2,"service":true}}],
        "faults":[{{"hosts":"spot","spot_interruptions_every":"{every}","replace_after":"5m"}}]}}"#
    )
}

/// The facts sheet (Spot instances): every reclaimed etcd member must be removed and a new one
/// added. A replacement removes the reclaimed machine's member from itself, then kubeadm joins a
/// new member (a learner, promoted once caught up): the cluster is back to three voters, and with
/// reclaims far apart it never loses quorum.
#[test]
fn a_reclaimed_control_plane_host_is_replaced_by_a_new_etcd_member() {
    let json = spot_control_plane(3, "5h", "3h");
    let r = sim::run_scenario(&json).unwrap();
    let notices: Vec<(f64, String)> = (r.events.iter())
        .filter(|e| e.kind == "host.spot_notice")
        .map(|e| (e.t, e.host.clone().unwrap()))
        .collect();
    assert!(notices.len() >= 2, "{notices:?}");
    // This seed's reclaims are far apart: each replacement has joined before the next notice.
    for w in notices.windows(2) {
        assert!(w[1].0 - w[0].0 > 600.0, "{notices:?}");
    }
    let ops = &r.summary.operations;
    for (t, host) in &notices {
        let replaced_at = t + 120.0 + 300.0;
        if replaced_at > 5.0 * 3600.0 - 60.0 {
            continue;
        }
        let on = |action: &str| {
            ops.iter()
                .find(|o| {
                    o.action == action && o.host.as_deref() == Some(host) && o.t >= replaced_at
                })
                .unwrap_or_else(|| panic!("no {action} on {host} after {replaced_at}: {ops:?}"))
        };
        let removed = on("etcd_member_remove");
        assert!(removed.ok && removed.t - replaced_at < 1.0, "{removed:?}");
        let joined = on("join");
        // kubeadm's promotion back-off: 50 ms doubling, at most ≈ 25 s.
        assert!(joined.ok && joined.t - removed.t < 30.0, "{joined:?}");
        // The reclaimed machine's drain cordoned the Node; the new machine's is schedulable.
        let uncordoned = on("uncordon");
        assert!(
            uncordoned.ok && uncordoned.t - joined.t < 1.0,
            "{uncordoned:?}"
        );
    }
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    // At the end three voters, all up and started.
    let s = sim::scenario::parse(&json).unwrap();
    let mut w = sim::world::World::new(s);
    w.run_until(
        sim::time::SimTime::ZERO + sim::time::Duration::from_secs(5 * 3600),
        u64::MAX,
    );
    let snap = w.snapshot();
    let voters = snap
        .hosts
        .iter()
        .filter_map(|h| h.etcd.as_ref())
        .filter(|m| m.voter)
        .count();
    assert_eq!(voters, 3);
}

/// The facts sheet (Spot instances): two reclaims close together in a 3-member cluster lose
/// quorum, and then no replacement can remove the old members or join (both need quorum), so
/// quorum never returns by itself.
#[test]
fn two_reclaims_close_together_leave_the_replacements_without_quorum() {
    let r = sim::run_scenario(&spot_control_plane(1, "4h", "30m")).unwrap();
    let lost = r
        .series
        .etcd_quorum
        .iter()
        .position(|&q| !q)
        .expect("two members out at once");
    assert!(r.series.etcd_quorum[lost..].iter().all(|&q| !q));
    let after: Vec<_> = (r.summary.operations.iter())
        .filter(|o| o.t > lost as f64 + 1.0)
        .collect();
    for o in &after {
        assert!(!o.ok, "{o:?}");
    }
    // The first replacement after the loss cannot remove its reclaimed member, so kubeadm's
    // etcd check fails (later ones may not even reach an API to discover the cluster).
    let join = after
        .iter()
        .find(|o| o.action == "join")
        .expect("a replacement");
    let reason = join.reason.as_deref().unwrap();
    assert!(
        reason.starts_with("etcd cluster is not healthy"),
        "{reason}"
    );
}

/// A snapshot taken while the cluster boots is before the run's 0:00 (the page says "starting the
/// cluster…" then): its apiservers are not yet ready; at 0:00 the cluster has settled.
#[test]
fn a_snapshot_of_the_boot_is_before_zero() {
    let s = sim::scenario::parse(&masters(1, "readyz", "")).unwrap();
    let mut w = sim::world::World::new(s);
    let origin = w.at_report_secs(0.0);
    w.run_until(
        sim::time::SimTime::ZERO + sim::time::Duration::from_secs(1),
        u64::MAX,
    );
    let booting = w.snapshot();
    assert!(booting.t < 0.0, "{}", booting.t);
    assert!(booting
        .hosts
        .iter()
        .all(|h| h.apiserver.as_ref().is_none_or(|a| !a.ready)));
    w.run_until(origin, u64::MAX);
    let settled = w.snapshot();
    assert_eq!(settled.t, 0.0);
    assert!(settled.etcd.has_quorum);
    assert!(settled
        .hosts
        .iter()
        .any(|h| h.apiserver.as_ref().is_some_and(|a| a.ready)));
}

/// Facts sheet, node Lease renewal: each kubelet waits 10 s stretched by up to 4 % after each
/// sync, and the nodes of a running cluster joined at different times, so kubelets never renew
/// in lockstep. Twelve workers that crash in the same instant were last renewed up to 10.4 s
/// apart: the controller marks them NotReady over several seconds, each 39.6–55 s after the crash
/// (grace 50 s after its own last renewal, 0–10.4 s before the crash, seen at a 5 s monitor
/// pass; a few milliseconds of network latency on top).
#[test]
fn workers_that_die_together_are_marked_not_ready_over_seconds() {
    let workers: Vec<String> = (1..=12).map(|i| format!("w{i}")).collect();
    let hosts: Vec<String> = workers
        .iter()
        .map(|w| format!(r#"{{"name": "{w}", "roles": ["worker"]}}"#))
        .collect();
    let crashes: Vec<String> = workers
        .iter()
        .map(|w| format!(r#"{{"at": "60s", "action": "crash", "host": "{w}"}}"#))
        .collect();
    for seed in 1..=5 {
        let r = run(&format!(
            r#"{{"version": 1, "name": "t", "seed": {seed}, "duration": "3m",
            "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {}],
            "events": [{}]}}"#,
            hosts.join(", "),
            crashes.join(", ")
        ));
        let marked: Vec<f64> = r
            .events
            .iter()
            .filter(|e| e.kind == "node.not_ready")
            .map(|e| e.t - 60.0)
            .collect();
        assert_eq!(marked.len(), 12, "seed {seed}: {marked:?}");
        assert!(
            marked.iter().all(|t| (39.6..55.5).contains(t)),
            "seed {seed}: {marked:?}"
        );
        let first = marked.iter().cloned().fold(f64::INFINITY, f64::min);
        let last = marked.iter().cloned().fold(0.0, f64::max);
        assert!(
            last - first >= 5.0,
            "seed {seed}: all marked within {} s: {marked:?}",
            last - first
        );
    }
}
