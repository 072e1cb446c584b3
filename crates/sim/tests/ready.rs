//! The ready scenarios of the playground (`web/scenarios/`), each answering one question,
//! with the outcome asserted against docs/behaviour.md (tolerances from the facts, not from
//! the output).

use sim::record::Event;
use sim::report::Report;
use sim::run_scenario;
use sim::view::LeaderRole;
use sim::world::World;

fn load(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../web/scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn run(name: &str) -> Report {
    run_scenario(&load(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn events<'a>(r: &'a Report, kind: &str) -> Vec<&'a Event> {
    r.events.iter().filter(|e| e.kind == kind).collect()
}

/// The operator actions of the run, in order, with whether each succeeded.
fn ops(r: &Report) -> Vec<(&str, bool)> {
    r.summary
        .operations
        .iter()
        .map(|o| (o.action.as_str(), o.ok))
        .collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn all(xs: &[Option<bool>], v: bool) -> bool {
    xs.iter().all(|x| *x == Some(v))
}

#[test]
fn every_ready_scenario_is_valid_described_and_safe() {
    let dir = format!("{}/../../web/scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let s = sim::scenario::parse(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
        assert!(
            s.description.as_ref().is_some_and(|d| d.len() > 40),
            "{}: needs a description",
            s.name
        );
        n += 1;
    }
    assert!(n >= 14);
}

#[test]
fn the_only_master_dies_apps_keep_serving_but_nothing_heals() {
    let r = run("1-only-master-dies");
    let web = &r.series.service_availability["web"];
    // The API is gone from 60 s: no write succeeds; the apps keep serving from kube-proxy's last rules.
    assert!(all(&r.series.api_writable[62..], false));
    assert!(
        mean(&web[60..180]) > 0.999,
        "availability with the master down: {}",
        mean(&web[60..180])
    );
    // Nothing starts after the master died: the rebooted worker gets no pod back.
    assert!(events(&r, "pod.started").iter().all(|e| e.t < 60.0));
    assert!(
        r.series.running_pods["web"][215..].iter().all(|&n| n == 2),
        "worker-3's web pod stays gone"
    );
    assert_eq!(r.summary.workloads["web"].final_running, 2);
    // The rebooted worker's pod is still in every kube-proxy's rules, and the rebooted worker has
    // no rules at all: a request succeeds when it lands on another worker (2 of 3) and is sent to
    // a pod that still runs (2 of 3): 4/9 ≈ 44 %.
    let after = mean(&web[215..300]);
    assert!(
        (0.38..0.51).contains(&after),
        "availability after the reboot: {after}"
    );
    // Name lookups (the DNS row: an uncached lookup every round) enter by a worker with a
    // kube-proxy, which sends them to a CoreDNS pod (on worker-1 and worker-2). While worker-3 is
    // down (3:00-3:30) it is no entry: all answered. Back up, it has no rules (1 entry in 3
    // fails): about 2/3. From 5:00 worker-1's restarted CoreDNS cannot answer: 2/3 × 1/2 = 1/3.
    let dns = |a: usize, b: usize| -> f64 {
        let v: Vec<f64> = r.series.dns_lookups[a..b]
            .iter()
            .flatten()
            .copied()
            .collect();
        assert_eq!(v.len(), b - a, "a lookup every second");
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert_eq!(dns(0, 210), 1.0);
    let rebooted = dns(212, 300);
    assert!(
        (0.58..0.75).contains(&rebooted),
        "lookups after the reboot: {rebooted}"
    );
    let restarted = dns(302, 480);
    assert!(
        (0.26..0.41).contains(&restarted),
        "lookups after the CoreDNS restart: {restarted}"
    );
    // A CoreDNS pod restarted without the API never syncs and cannot answer.
    let mut w = World::new(sim::scenario::parse(&load("1-only-master-dies")).unwrap());
    w.run_until(w.at_report_secs(310.0), u64::MAX);
    let servers = w.coredns_servers();
    let restarted: Vec<_> = servers.iter().filter(|(h, _, _)| h == "worker-1").collect();
    assert!(
        !restarted.is_empty() && restarted.iter().all(|(_, _, synced)| !synced),
        "{servers:?}"
    );
    assert!(
        servers
            .iter()
            .any(|(h, _, synced)| h != "worker-1" && *synced),
        "the other CoreDNS keeps its cache"
    );
    assert!(r.summary.violations.is_empty());
}

#[test]
fn three_masters_one_dies_quorum_holds_and_the_controller_manager_moves() {
    // Before the crash: all three apiservers serve (in the balancer's service), and etcd, the
    // controller-manager and the scheduler each have one leader.
    let mut w = World::new(sim::scenario::parse(&load("2-three-masters-one-dies")).unwrap());
    w.run_until(w.at_report_secs(30.0), u64::MAX);
    let snap = w.snapshot();
    let lb = snap
        .hosts
        .iter()
        .find(|h| !h.lb_backends.is_empty())
        .expect("a load balancer");
    assert_eq!(lb.lb_backends.iter().filter(|b| b.in_service).count(), 3);
    let masters = || snap.hosts.iter().filter(|h| h.apiserver.is_some());
    assert!(masters().all(|h| h.apiserver.as_ref().is_some_and(|a| a.running && a.ready)));
    let leaders =
        |role: &dyn Fn(&sim::view::HostView) -> bool| masters().filter(|h| role(h)).count();
    assert_eq!(
        leaders(&|h| h
            .etcd
            .as_ref()
            .is_some_and(|m| m.role == sim::view::MemberRole::Leader)),
        1
    );
    assert_eq!(
        leaders(&|h| h.controller_manager == Some(LeaderRole::Leader)),
        1
    );
    assert_eq!(leaders(&|h| h.scheduler == Some(LeaderRole::Leader)), 1);
    assert_eq!(
        leaders(&|h| h.controller_manager == Some(LeaderRole::Standby)),
        2
    );
    let r = run("2-three-masters-one-dies");
    let first = events(&r, "lease.acquired");
    let kcm0 = first
        .iter()
        .find(|e| e.lease == Some("kube-controller-manager") && e.t == 0.0)
        .unwrap();
    assert_eq!(
        kcm0.host.as_deref(),
        Some("m2"),
        "the scenario crashes the lease holder"
    );
    let next = first
        .iter()
        .find(|e| e.lease == Some("kube-controller-manager") && e.t > 60.0)
        .expect("failover");
    assert!(
        (13.0..24.5).contains(&(next.t - 60.0)),
        "moved after {} s",
        next.t - 60.0
    );
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert!(r.summary.services["web"].availability > 0.999);
    assert!(r.summary.api.as_ref().unwrap().write_availability > 0.97);
    assert!(r.summary.violations.is_empty());
}

/// The failed master comes back: while away m1 leads etcd and takes both leases; back, m2's
/// member catches up from the leader's log (no snapshot), its apiserver returns to the load
/// balancer, its Node is Ready about 12 s after the boot, and nothing moves back.
#[test]
fn a_failed_master_comes_back_and_nothing_moves_back() {
    let name = "2-three-masters-failed-one-comes-back";
    let r = run(name);
    let at0 = |lease: &str| {
        events(&r, "lease.acquired")
            .into_iter()
            .find(|e| e.lease == Some(lease) && e.t == 0.0)
            .and_then(|e| e.host.clone())
    };
    assert_eq!(at0("kube-controller-manager").as_deref(), Some("m2"));
    assert_eq!(at0("kube-scheduler").as_deref(), Some("m2"));
    let elected = events(&r, "etcd.leader_elected");
    assert_eq!(
        elected[0].host.as_deref(),
        Some("m2"),
        "m2 leads etcd first"
    );
    // While away: m1 leads etcd and takes both leases; nothing changes hands after it returns.
    assert!(elected
        .iter()
        .filter(|e| e.t > 60.0)
        .all(|e| e.host.as_deref() == Some("m1") && e.t < 180.0));
    for lease in ["kube-controller-manager", "kube-scheduler"] {
        let moved: Vec<_> = events(&r, "lease.acquired")
            .into_iter()
            .filter(|e| e.lease == Some(lease) && e.t > 0.0)
            .collect();
        assert_eq!(moved.len(), 1, "{lease}: {moved:?}");
        assert!(moved[0].host.as_deref() == Some("m1") && moved[0].t < 180.0);
        assert_eq!(r.summary.leaders[lease].final_holder.as_deref(), Some("m1"));
    }
    // No snapshot: the leader's log still holds what m2 missed.
    assert!(!r
        .events
        .iter()
        .any(|e| e.text.contains("installed a snapshot")));
    let mut w = World::new(sim::scenario::parse(&load(name)).unwrap());
    w.run_until(w.at_report_secs(186.0), u64::MAX);
    let snap = w.snapshot();
    let member = |h: &str| {
        snap.hosts
            .iter()
            .find(|x| x.name == h)
            .unwrap()
            .etcd
            .clone()
            .unwrap()
    };
    let (m1, m2) = (member("m1"), member("m2"));
    assert_eq!(m1.role, sim::view::MemberRole::Leader);
    assert!(
        m2.applied + 5 >= m1.commit,
        "m2 caught up: applied {} of {}",
        m2.applied,
        m1.commit
    );
    // Its apiserver back in service, its Node Ready about 12 s after the boot.
    let back = events(&r, "lb.backend_up");
    assert!(back.iter().any(|e| e.t > 180.0 && e.t < 190.0), "{back:?}");
    let ready = events(&r, "node.ready");
    assert!(
        ready
            .iter()
            .any(|e| e.node.as_deref() == Some("m2") && (190.0..=195.0).contains(&e.t)),
        "{ready:?}"
    );
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert!(r.summary.violations.is_empty());
}

#[test]
fn three_masters_two_die_no_quorum_until_force_new_cluster() {
    let r = run("3-three-masters-two-die");
    let s = &r.series;
    assert!(s.etcd_quorum[61..240].iter().all(|q| !q));
    assert!(
        all(&s.api_writable[62..240], false),
        "no API write without quorum"
    );
    assert!(
        r.summary.services["web"].availability > 0.999,
        "running apps keep serving"
    );
    let ops = ops(&r);
    assert_eq!(
        ops,
        [
            ("join", false),
            ("etcd_force_new_cluster", true),
            ("join", true)
        ]
    );
    // The survivor gives up its leases ≈ 12 s after its last renewal; its apiserver is killed ≈ 72–84 s in.
    let lost = events(&r, "lease.lost");
    assert!(
        lost.iter()
            .any(|e| e.host.as_deref() == Some("m3") && (70.0..72.1).contains(&e.t)),
        "{lost:?}"
    );
    let killed = events(&r, "apiserver.killed");
    assert!(
        (128.0..152.0).contains(&killed[0].t),
        "liveness kill at {}",
        killed[0].t
    );
    // After force-new-cluster, writes return (once the apiserver is back from its restart back-off).
    let back = (240..s.t.len())
        .find(|&i| s.api_writable[i] == Some(true))
        .expect("writes return");
    assert!(back < 300, "API writable again at {back} s");
    assert!(s.etcd_quorum[301..].iter().all(|&q| q));
    // After the fresh master's join: two members, which tolerate no failure.
    let mut w = World::new(sim::scenario::parse(&load("3-three-masters-two-die")).unwrap());
    w.run_until(w.at_report_secs(340.0), u64::MAX);
    let etcd = w.snapshot().etcd;
    assert_eq!((etcd.voters, etcd.connected, etcd.has_quorum), (2, 2, true));
    assert_eq!(etcd.tolerates(), 0);
    // The old masters come back at 6 min: their etcd members are answered "removed member" by
    // the survivor as they connect and stop; no second cluster, no second leader of anything.
    let removed = events(&r, "etcd.member_removed");
    let hosts: Vec<&str> = removed.iter().filter_map(|e| e.host.as_deref()).collect();
    assert_eq!(hosts.len(), 2, "{removed:?}");
    assert!(hosts.contains(&"m1") && hosts.contains(&"m2"));
    assert!(
        removed.iter().all(|e| (360.0..360.5).contains(&e.t)),
        "{removed:?}"
    );
    assert!(
        events(&r, "etcd.leader_elected")
            .iter()
            .filter(|e| e.t > 240.0)
            .all(|e| e.host.as_deref() == Some("m3")),
        "only the survivor leads etcd after the force-new-cluster"
    );
    assert_eq!(
        r.summary.leaders["kube-controller-manager"]
            .final_holder
            .as_deref(),
        Some("m3")
    );
    assert!(r.summary.violations.is_empty());
}

#[test]
fn a_rack_split_duplicates_deployment_pods_but_not_statefulset_pods() {
    let r = run("4-rack-split");
    // Rack A keeps 2 of 3 etcd members: leadership ends there.
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert_eq!(
        r.summary.leaders["kube-controller-manager"]
            .final_holder
            .as_deref(),
        Some("m1")
    );
    assert_eq!(
        r.summary.leaders["kube-scheduler"].final_holder.as_deref(),
        Some("m1")
    );
    // Rack B's pods are evicted ≈ grace (50 s) + 300 s after the kubelet's last renewal, which
    // was up to one stretched period (10.4 s) before the cut; later by the 0.1 node/s taint rate
    // and, where the controller-manager led from rack B, by its failover (its new leader starts
    // its node probes at "now").
    let evicted = events(&r, "pod.evicted");
    let web = evicted
        .iter()
        .find(|e| e.workload.as_deref() == Some("web"))
        .expect("web pod evicted");
    assert_eq!(web.node.as_deref(), Some("w2"));
    assert!(
        (120.0 + 50.0 - 10.4 + 300.0..120.0 + 420.0).contains(&web.t),
        "evicted at {}",
        web.t
    );
    // The replacement runs while the original still runs on the cut-off rack: duplicates.
    assert_eq!(r.summary.workloads["web"].replicas, 2);
    assert_eq!(r.summary.workloads["web"].max_running, 3);
    // The StatefulSet pod is evicted too, but never replaced while its old pod may run.
    assert!(evicted.iter().any(|e| e.pod.as_deref() == Some("db-0")));
    assert_eq!(r.summary.workloads["db"].max_running, 1);
    // "rack B's apiserver goes unready": cut off from etcd's majority, its watch cache is lost.
    let mut w = World::new(sim::scenario::parse(&load("4-rack-split")).unwrap());
    w.run_until(w.at_report_secs(200.0), u64::MAX);
    let snap = w.snapshot();
    let api = |h: &str| {
        snap.hosts
            .iter()
            .find(|x| x.name == h)
            .unwrap()
            .apiserver
            .clone()
            .unwrap()
    };
    assert!(api("m1").ready && api("m2").running && !api("m2").ready);
    // After the heal (720 s) the stale pods are killed and the counts converge.
    let killed = events(&r, "pod.killed");
    assert!(killed
        .iter()
        .any(|e| e.workload.as_deref() == Some("web") && e.t > 720.0));
    assert_eq!(r.summary.workloads["web"].final_running, 2);
    assert_eq!(r.summary.workloads["db"].final_running, 1);
    assert!(
        r.summary.violations.is_empty(),
        "{:?}",
        r.summary.violations
    );
}

#[test]
fn four_masters_tolerate_no_more_failures_than_three_five_tolerate_two() {
    let four = run("5-four-masters-lose-two");
    assert!(
        (four.summary.etcd.quorum_lost_s - 120.0).abs() < 1e-6,
        "2 of 4 is no majority"
    );
    assert!(all(&four.series.api_writable[62..], false));
    let five = run("5-five-masters-lose-two");
    assert_eq!(five.summary.etcd.quorum_lost_s, 0.0, "3 of 5 is a majority");
    assert!(all(&five.series.api_writable[70..], true));
}

#[test]
fn spot_interruptions_close_together_lose_quorum_unless_members_are_replaced() {
    let two = run("6-spot-two-interruptions");
    // m1 terminated at 180 s (2 of 3 survive), m2 at 210 s (1 of 3: no quorum).
    assert!(two.series.etcd_quorum[..210].iter().all(|&q| q));
    assert!(two.series.etcd_quorum[211..].iter().all(|&q| !q));
    assert!((two.summary.etcd.quorum_lost_s - 150.0).abs() < 1e-6);
    let replaced = run("6-spot-replaced-in-time");
    assert_eq!(replaced.summary.etcd.quorum_lost_s, 0.0);
    assert!(
        replaced.summary.operations.iter().all(|o| o.ok),
        "{:?}",
        replaced.summary.operations
    );
    assert!(
        all(&replaced.series.api_writable[250..], true),
        "the replaced control plane takes writes"
    );
}

/// The description's claims: automatic replacements (remove the reclaimed member, join a new
/// one) at notice + 2 min + 5 min keep quorum until two reclaims come 10 s apart; after that
/// neither step has a quorum (facts sheet, Spot instances), quorum never returns, API writes
/// stop, and the pods keep serving (the control plane down does not stop running apps).
#[test]
fn a_spot_control_plane_replaced_automatically_lasts_until_two_reclaims_meet() {
    let r = run("6-spot-replaced-automatically");
    let near = |t: f64, want: f64| (t - want).abs() < 1.0;
    let notices: Vec<(f64, &str)> = events(&r, "host.spot_notice")
        .iter()
        .map(|e| (e.t, e.host.as_deref().unwrap()))
        .collect();
    // 6:25 m1, 14:59 m3, 55:04 m3, 55:14 m1.
    let at = [(385.0, "m1"), (899.0, "m3"), (3304.0, "m3"), (3314.0, "m1")];
    assert_eq!(notices.len(), at.len(), "{notices:?}");
    for ((t, h), (want, host)) in notices.iter().zip(at) {
        assert!(near(*t, want) && *h == host, "{notices:?}");
    }
    let op = |action: &str, host: &str, after: f64| {
        r.summary
            .operations
            .iter()
            .find(|o| o.action == action && o.host.as_deref() == Some(host) && o.t >= after)
            .unwrap_or_else(|| panic!("no {action} on {host} after {after}"))
    };
    // Replaced 2 min (notice) + 5 min (replace_after) after each notice: 13:25 and 21:59 succeed.
    for (notice, host) in [(notices[0].0, "m1"), (notices[1].0, "m3")] {
        let removed = op("etcd_member_remove", host, notice + 420.0);
        let joined = op("join", host, notice + 420.0);
        assert!(
            removed.ok && joined.ok && near(removed.t, notice + 420.0),
            "{removed:?} {joined:?}"
        );
    }
    // 1 of 3 left from m1's termination at 57:14: quorum lost then, and for good.
    let lost = (notices[3].0 + 120.0).ceil() as usize;
    let q = &r.series.etcd_quorum;
    assert!(q[..lost - 1].iter().all(|&x| x), "quorum held until 57:14");
    assert!(q[lost..].iter().all(|&x| !x), "and never back");
    // 1:02:04 and 1:02:14: neither replacement can remove its member, so kubeadm's check fails.
    for (notice, host) in [(notices[2].0, "m3"), (notices[3].0, "m1")] {
        let removed = op("etcd_member_remove", host, notice + 420.0);
        assert!(
            !removed.ok && near(removed.t, notice + 420.0),
            "{removed:?}"
        );
        assert_eq!(removed.reason.as_deref(), Some("no etcd leader: no quorum"));
        let joined = op("join", host, notice + 420.0);
        let reason = joined.reason.as_deref().unwrap_or_default();
        assert!(
            !joined.ok && reason.starts_with("etcd cluster is not healthy"),
            "{joined:?}"
        );
    }
    assert!(
        all(&r.series.api_writable[lost + 10..], false),
        "API writes stop"
    );
    let web = &r.series.service_availability["web"];
    assert!(mean(&web[lost..]) > 0.999, "{}", mean(&web[lost..]));
}

#[test]
fn a_worker_dies_not_ready_then_evicted_statefulset_pod_waits_for_a_forced_delete() {
    let r = run("7-worker-dies");
    let not_ready = events(&r, "node.not_ready");
    assert_eq!(not_ready[0].node.as_deref(), Some("w3"));
    // Last lease renewal 0–10 s before the crash; NotReady at the monitor pass 50 s after the
    // controller-manager saw it.
    assert!(
        (40.0..55.5).contains(&(not_ready[0].t - 60.0)),
        "NotReady after {} s",
        not_ready[0].t - 60.0
    );
    let evicted = events(&r, "pod.evicted");
    for e in &evicted {
        assert!(
            (340.0..356.0).contains(&(e.t - 60.0)),
            "{} evicted after {} s",
            e.pod.as_deref().unwrap(),
            e.t - 60.0
        );
        assert_ne!(
            e.workload.as_deref(),
            Some("agent"),
            "DaemonSet pods tolerate the taint forever"
        );
    }
    assert!(evicted.iter().any(|e| e.pod.as_deref() == Some("db-0")));
    let started = events(&r, "pod.started");
    let evicted_at = evicted[0].t;
    assert!(started
        .iter()
        .any(|e| e.workload.as_deref() == Some("web")
            && (evicted_at..evicted_at + 10.0).contains(&e.t)));
    // db-0 stays Terminating (not restarted) until the operator force-deletes it at 480 s.
    let db_started: Vec<_> = started
        .iter()
        .filter(|e| e.pod.as_deref() == Some("db-0"))
        .collect();
    assert_eq!(db_started.len(), 1, "{db_started:?}");
    assert!((480.0..490.0).contains(&db_started[0].t));
    assert!(r.series.running_pods["db"][420..480]
        .iter()
        .all(|&n| n == 0));
    assert_eq!(r.summary.workloads["db"].final_running, 1);
    assert!(r.summary.violations.is_empty());

    // What the API believes against what is true, as the page draws it.
    let mut w = World::new(sim::scenario::parse(&load("7-worker-dies")).unwrap());
    w.run_until(w.at_report_secs(80.0), u64::MAX);
    let snap = w.snapshot();
    let w3 = snap.hosts.iter().find(|h| h.name == "w3").unwrap();
    let node = w3.node.as_ref().unwrap();
    // Down for 20 s, but the API still says Ready: the lease is overdue, the controller watches.
    assert_eq!(node.ready, sim::view::NodeReadiness::Ready);
    assert!(node.watched);
    let at = node.stale_after.expect("an overdue lease");
    // facts, node-monitor-period: the controller's pass marks it within a monitor period (5 s)
    // of the grace period running out from when it saw the last renewal.
    assert!(
        not_ready[0].t >= at && not_ready[0].t <= at + 5.0,
        "NotReady at {} against the lease running out at {at}",
        not_ready[0].t
    );
    let w1 = snap.hosts.iter().find(|h| h.name == "w1").unwrap();
    assert_eq!(w1.node.as_ref().unwrap().stale_after, None, "w1 renews");
    // After the eviction db-0 is Terminating on w3 (no kubelet confirms), and shown there.
    w.run_until(w.at_report_secs(450.0), u64::MAX);
    let snap = w.snapshot();
    let w3 = snap.hosts.iter().find(|h| h.name == "w3").unwrap();
    let names: Vec<_> = w3.terminating.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"db-0"), "{names:?}");
    assert!(snap
        .hosts
        .iter()
        .filter(|h| h.name != "w3")
        .all(|h| h.terminating.is_empty()));
}

#[test]
fn a_tcp_check_keeps_routing_to_the_minority_apiserver_readyz_does_not() {
    let tcp = run("8-lb-health-check-tcp");
    let readyz = run("8-lb-health-check-readyz");
    let failed = |r: &Report| {
        r.series.api_writable[70..130]
            .iter()
            .filter(|w| **w == Some(false))
            .count()
    };
    assert!(
        (10..35).contains(&failed(&tcp)),
        "tcp: {} of 60 failed (≈ a third)",
        failed(&tcp)
    );
    assert_eq!(failed(&readyz), 0);
    let down = events(&readyz, "lb.backend_down");
    assert_eq!(down[0].host.as_deref(), Some("m1"));
    assert!(down[0].t - 60.0 < 12.0);
    // The balancer balances connections: the kubelet on m3 had been given m1 and stays there
    // until two lease updates failed (each at etcd's 7 s request timeout on m1, whose member
    // knows no leader; the first renewal ≤ 10.4 s after the cut); then it dials again and
    // reaches a healthy apiserver ("about 20 s after the cut"), so no Node goes NotReady and
    // nothing closes on m1 again. Both descriptions say so.
    for r in [&tcp, &readyz] {
        let closed = events(r, "kubelet.connections_closed");
        let on_m1: Vec<_> = closed
            .iter()
            .filter(|e| e.text.contains("apiserver on m1"))
            .collect();
        assert_eq!(on_m1.len(), 1, "{closed:?}");
        assert_eq!(on_m1[0].host.as_deref(), Some("m3"));
        assert!((60.0..=90.4).contains(&on_m1[0].t), "{}", on_m1[0].t);
        assert!(events(r, "node.not_ready").is_empty());
    }
    let t = events(&readyz, "kubelet.connections_closed")[0].t - 60.0;
    assert!((14.0..=25.0).contains(&t), "about 20 s after the cut: {t}");
    for (name, says) in [
        (
            "8-lb-health-check-tcp",
            "closes it after two failed lease updates",
        ),
        ("8-lb-health-check-readyz", "about 20 s after the cut"),
    ] {
        assert!(load(name).contains(says), "{name}");
    }
}

fn with_events(name: &str, events: &str) -> Report {
    let mut v: serde_json::Value = serde_json::from_str(&load(name)).unwrap();
    v["events"] = serde_json::from_str(events).unwrap();
    run_scenario(&v.to_string()).unwrap()
}

/// Facts sheet, "Timelines": a dead worker is Unknown and tainted ≈ 40–55 s after its death
/// (its last renewal 0–10 s before, seen at a monitor pass within 5 s, then the 50 s grace).
/// Crashes at every second of a renewal period land across that whole window and never after it.
#[test]
fn a_dead_worker_is_not_ready_40_to_55_s_after_its_death() {
    let delays: Vec<f64> = (0..10)
        .map(|k| {
            let at = 60 + k;
            let r = with_events(
                "7-worker-dies",
                &format!(r#"[{{"at": "{at}s", "action": "crash", "host": "w3"}}]"#),
            );
            events(&r, "node.not_ready")[0].t - at as f64
        })
        .collect();
    assert!(
        delays.iter().all(|d| (40.0..=55.0).contains(d)),
        "{delays:?}"
    );
    let (min, max) = (
        delays.iter().copied().fold(f64::MAX, f64::min),
        delays.iter().copied().fold(0.0, f64::max),
    );
    assert!(min < 45.0 && max > 50.0, "{delays:?}");
}

/// Force-deleting a StatefulSet pod whose node is only cut off (not dead) lets a second copy
/// start elsewhere: Kubernetes really runs the ordinal twice, and the report says so.
#[test]
fn force_deleting_a_pod_on_a_cut_off_node_runs_the_ordinal_twice() {
    let r = with_events(
        "7-worker-dies",
        r#"[{"at": "1m", "action": "isolate", "host": "w3"}, {"at": "8m", "action": "delete_pod", "pod": "db-0", "force": true}]"#,
    );
    let v = &r.summary.violations;
    assert!(
        v.iter()
            .any(|v| v.kind == "statefulset.two_pods" && v.text.contains("db-0")),
        "{v:?}"
    );
    assert_eq!(r.summary.workloads["db"].max_running, 2);
    // Without the forced delete, the ordinal never runs twice.
    let safe = with_events(
        "7-worker-dies",
        r#"[{"at": "1m", "action": "isolate", "host": "w3"}]"#,
    );
    assert!(safe.summary.violations.is_empty());
    assert_eq!(safe.summary.workloads["db"].max_running, 1);
}

/// When the controller-manager hears from no node at all (every zone fully disrupted), it taints
/// nothing and evicts nothing: "master disruption mode".
#[test]
fn no_eviction_when_every_zone_is_disrupted() {
    // Cut the load balancer (the kubelets' way to the API) off from every node: all leases stop.
    let r = with_events(
        "7-worker-dies",
        r#"[{"at": "1m", "action": "isolate", "host": "lb"}]"#,
    );
    let not_ready = events(&r, "node.not_ready");
    assert_eq!(
        not_ready.len(),
        4,
        "every node goes NotReady: {not_ready:?}"
    );
    assert!(
        events(&r, "pod.evicted").is_empty(),
        "no eviction in master disruption mode"
    );
    // A single dead worker in the same cluster is evicted as usual (the control: see the 7th scenario).
    let one = run("7-worker-dies");
    assert!(!events(&one, "pod.evicted").is_empty());
}

#[test]
fn the_snapshot_shows_components_nodes_and_pods() {
    let mut w = World::new(sim::scenario::parse(&load("7-worker-dies")).unwrap());
    w.run_until(w.at_report_secs(30.0), u64::MAX);
    let s = w.snapshot();
    let host =
        |s: &sim::view::Snapshot, n: &str| s.hosts.iter().find(|h| h.name == n).unwrap().clone();
    let m1 = host(&s, "m1");
    assert_eq!(
        (m1.controller_manager, m1.scheduler),
        (Some(LeaderRole::Leader), Some(LeaderRole::Leader))
    );
    assert!(m1.apiserver.as_ref().is_some_and(|a| a.running && a.ready));
    assert!(m1
        .node
        .as_ref()
        .unwrap()
        .taints
        .iter()
        .any(|t| t == "node-role.kubernetes.io/control-plane"));
    let w3 = host(&s, "w3");
    assert_eq!(w3.node.as_ref().unwrap().ready, "Ready");
    assert!(w3.pods.iter().any(|p| p.name == "db-0"), "{:?}", w3.pods);
    let backends = &host(&s, "lb").lb_backends;
    assert_eq!(
        (
            backends.len(),
            backends[0].name.as_str(),
            backends[0].in_service
        ),
        (1, "m1", true)
    );
    // 2 minutes after w3 died: NotReady (Unknown) and tainted; its pods are no longer reported running.
    w.run_until(w.at_report_secs(180.0), u64::MAX);
    let w3 = host(&w.snapshot(), "w3");
    assert_eq!(w3.state, "down");
    assert_eq!(w3.node.as_ref().unwrap().ready, "Unknown");
    assert!(w3
        .node
        .as_ref()
        .unwrap()
        .taints
        .iter()
        .any(|t| t == "node.kubernetes.io/unreachable"));
    assert!(w3.pods.is_empty());
}

#[test]
fn a_single_master_grows_to_three_through_learners_without_an_outage() {
    let r = run("9-grow-one-master-to-three");
    let s = &r.series;
    let ops = ops(&r);
    assert_eq!(ops, [("join", true), ("join", true)]);
    // Learners never count for quorum: the majority holds while each new member catches up.
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert!(
        all(&s.etcd_writable[..240], true),
        "no write fails while growing"
    );
    // m1 crashes at 4:00: two of three voters remain; a new etcd leader within 1–2 s.
    let next = events(&r, "etcd.leader_elected")
        .into_iter()
        .find(|e| e.t > 240.0)
        .expect("a new etcd leader");
    assert!(
        next.t - 240.0 < 2.1,
        "new leader after {} s",
        next.t - 240.0
    );
    assert!(
        all(&s.api_writable[250..], true),
        "the API moves to the survivors"
    );
    let kcm = r.summary.leaders["kube-controller-manager"]
        .final_holder
        .as_deref();
    assert!(matches!(kcm, Some("m2" | "m3")), "{kcm:?}");
    assert_eq!(r.summary.services["web"].availability, 1.0);
    assert!(r.summary.violations.is_empty());
}

#[test]
fn a_graceful_etcd_restart_costs_no_election_a_crash_does() {
    let r = run("10-etcd-graceful-restart-vs-crash");
    let s = &r.series;
    // The apiserver on m1 watched its local member: the clean restart closes the stream and
    // clientv3 opens it again from its last revision; its cache sees no gap, its clients'
    // watches stay open and it stays ready (no apiserver.cache_lost, m1 never leaves the LB).
    assert!(events(&r, "apiserver.cache_lost").is_empty());
    assert!(events(&r, "lb.backend_down")
        .iter()
        .all(|e| e.host.as_deref() != Some("m1")));
    let elected = events(&r, "etcd.leader_elected");
    // 1:00.5: m1 hands over to m2, which leads within milliseconds; no write fails.
    let handed = elected.iter().find(|e| e.t > 60.0).expect("m2 leads");
    assert_eq!(handed.host.as_deref(), Some("m2"));
    assert!(
        handed.t - 60.5 < 0.05,
        "handed over after {} s",
        handed.t - 60.5
    );
    assert!(all(&s.etcd_writable[55..180], true));
    // m1's process exits about a second after handing over (etcd 3.5 measured), then restarts.
    let restarted = events(&r, "component.restarted");
    assert_eq!(restarted.len(), 1);
    let exit = restarted[0].t - handed.t;
    assert!(
        (0.99..1.05).contains(&exit),
        "exited {exit} s after the hand-over"
    );
    // 3:00.5: m2 crashes; m3 leads after an election timeout (1–2 s), writes fail meanwhile.
    let elected_after_crash = elected.iter().find(|e| e.t > 180.0).expect("m3 leads");
    assert_eq!(elected_after_crash.host.as_deref(), Some("m3"));
    let gap = elected_after_crash.t - 180.5;
    assert!((0.8..2.1).contains(&gap), "new leader after {gap} s");
    assert!(s.etcd_writable[180..186].contains(&Some(false)));
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert!(r.summary.violations.is_empty());
}

#[test]
fn without_the_api_a_kube_proxy_restart_is_harmless_a_reboot_is_not() {
    let r = run("11-kube-proxy-restart-vs-reboot");
    let web = &r.series.service_availability["web"];
    // The master is gone from 1:00: running pods keep serving from the last rules.
    assert!(all(&r.series.api_writable[62..], false));
    // 2:00: kube-proxy restarted on w1 keeps the node's rules: nothing fails.
    assert!(web[..180].iter().all(|&a| a == 1.0), "{:?}", &web[115..130]);
    // 3:00: w2 reboots: its rules and its pod are gone for good without the API.
    let after = mean(&web[200..]);
    assert!(
        (0.3..0.7).contains(&after),
        "availability after the reboot: {after}"
    );
    assert!(r.summary.violations.is_empty());
}

#[test]
fn the_sandboxes_break_nothing_by_themselves() {
    // "Nothing is scheduled" / "nothing breaks until you break it".
    for name in ["k8s-three-zones", "three-zones"] {
        let r = run(name);
        assert!(r
            .events
            .iter()
            .all(|e| e.kind != "host.crashed" && e.kind != "net.partition"));
        assert_eq!(r.summary.etcd.quorum_lost_s, 0.0, "{name}");
        assert_eq!(r.summary.etcd.writes_failed, 0, "{name}");
        assert!(r.summary.violations.is_empty(), "{name}");
    }
    let r = run("k8s-three-zones");
    assert!(all(&r.series.api_writable[2..], true));
    assert_eq!(r.summary.services["web"].availability, 1.0);
    assert!(r.series.dns_lookups.iter().flatten().all(|&a| a == 1.0));
    assert_eq!(r.summary.workloads["web"].final_running, 3);
    assert_eq!(r.summary.workloads["db"].final_running, 1);
}

#[test]
fn etcd_only_scenarios_do_what_their_texts_say() {
    // "At 0:30 the leader (etcd-3) crashes. Quorum holds (2 of 3): a new leader is elected within
    // about a second and writes fail only briefly. At 1:30 etcd-3 comes back as a follower."
    let r = run("etcd-leader-dies");
    let first = events(&r, "etcd.leader_elected");
    assert_eq!(first[0].host.as_deref(), Some("etcd-3"));
    let next = first.iter().find(|e| e.t > 30.0).expect("a new leader");
    // facts: election timeout 1 s, randomised to [1, 2) s, counted from the last heartbeat,
    // which came up to one heartbeat interval (100 ms) before the crash.
    assert!((0.89..2.1).contains(&(next.t - 30.0)), "{}", next.t);
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert!(
        r.summary.etcd.writes_failed <= 3,
        "{}",
        r.summary.etcd.writes_failed
    );
    assert!(first
        .iter()
        .filter(|e| e.t > 90.0)
        .all(|e| e.host.as_deref() != Some("etcd-3")));
    assert!(all(&r.series.etcd_writable[95..], true));

    // "At 0:20 two members crash: 1 of 3, NO QUORUM, every write fails. The join at 1:00 fails
    // too. At 1:30 --force-new-cluster on etcd-3 restores writes; at 2:00 etcd-4 is added back."
    let r = run("etcd-two-of-three-die");
    assert!(r.series.etcd_quorum[21..90].iter().all(|q| !q));
    assert!(all(&r.series.etcd_writable[22..90], false));
    let ops = ops(&r);
    assert_eq!(
        ops,
        [
            ("join", false),
            ("etcd_force_new_cluster", true),
            ("etcd_member_add", true)
        ]
    );
    // The probe finds etcd-3 again after a failed write to each dead member (2 s each).
    assert!(all(&r.series.etcd_writable[97..120], true));
    assert!(all(&r.series.etcd_writable[125..], true));

    // "At 1:00 rack-b, holding the leader, is cut off. Rack-a's three members elect a new leader
    // and keep taking writes; the old leader steps down (CheckQuorum). At 3:00 the racks rejoin."
    let r = run("etcd-rack-split");
    let s = sim::scenario::parse(&load("etcd-rack-split")).unwrap();
    let zone = |h: &str| s.host(h).unwrap().1.zone.clone();
    let first = events(&r, "etcd.leader_elected");
    assert_eq!(zone(first[0].host.as_deref().unwrap()), "rack-b");
    let new = first.iter().find(|e| e.t > 60.0).unwrap();
    assert_eq!(zone(new.host.as_deref().unwrap()), "rack-a");
    let lost = events(&r, "etcd.leader_lost");
    assert!(lost
        .iter()
        .any(|e| e.host == first[0].host && (60.0..63.0).contains(&e.t)));
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert!(events(&r, "net.heal").iter().any(|e| e.t == 180.0));
}

/// The zone's web pods, and the whole cores left on the other zones' workers just before the
/// zone dies (each web pod requests one core; CoreDNS 100m where it runs).
fn zone_c_pods_and_room(name: &str) -> (usize, usize) {
    let mut w = World::new(sim::scenario::parse(&load(name)).unwrap());
    w.run_until(w.at_report_secs(55.0), u64::MAX);
    let snap = w.snapshot();
    let (mut lost, mut room) = (0, 0);
    for h in snap.hosts.iter().filter(|h| h.name.starts_with('w')) {
        let web = h.pods.iter().filter(|p| p.workload == "web").count();
        let dns = h.pods.iter().filter(|p| p.workload == "coredns").count();
        if h.zone == "zone-c" {
            lost += web;
        } else {
            // 4000m of allocatable; 1000m per web pod, 100m per CoreDNS pod.
            room += (4000 - 1000 * web - 100 * dns) / 1000;
        }
    }
    (lost, room)
}

#[test]
fn a_zone_lost_at_79_percent_leaves_what_does_not_fit_pending() {
    let name = "12-zone-lost-at-80-percent";
    let (lost, room) = zone_c_pods_and_room(name);
    // As its description says: six of zone c's pods lost, room for one.
    assert_eq!((lost, room), (6, 1));
    let r = run(name);
    let takeover = events(&r, "lease.acquired")
        .into_iter()
        .find(|e| e.t > 60.0 && e.lease == Some("kube-controller-manager"))
        .unwrap();
    assert_eq!(takeover.host.as_deref(), Some("m1"));
    assert!((13.0..24.0).contains(&(takeover.t - 60.0)), "{takeover:?}");
    let pending = events(&r, "pod.pending");
    assert_eq!(
        pending.len(),
        lost - room,
        "one pod.pending per pod that does not fit"
    );
    // m3 led the controller-manager: m1 takes over 13–24 s after the crash, marks the Nodes
    // NotReady once their leases are 50 s old by its own watch (≤ 10 s of renewal phase, a 5 s
    // check), and evicts 300 s later (paced within seconds): 363–400 s after the crash.
    let evicted = events(&r, "pod.evicted");
    for e in &evicted {
        assert!((363.0..400.0).contains(&(e.t - 60.0)), "{e:?}");
    }
    for e in &pending {
        // Pending as the scheduler meets the replacement, within seconds of the eviction.
        assert!(
            evicted.iter().any(|v| (0.0..5.0).contains(&(e.t - v.t))),
            "{e:?}"
        );
        let why = e.reason.as_deref().unwrap();
        assert!(why.starts_with("0/9 nodes are available: "), "{why}");
        assert!(why.contains("Insufficient cpu"), "{why}");
    }
    let web = &r.summary.workloads["web"];
    assert_eq!(web.pending_max, Some((lost - room) as u32));
    assert_eq!(
        web.final_running,
        19 - (lost - room) as u32,
        "the zone stays gone"
    );
    // Quorum held: two of three stacked masters.
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
}

#[test]
fn a_zone_lost_at_50_percent_is_rescheduled_in_full() {
    let name = "12-zone-lost-at-50-percent";
    let (lost, room) = zone_c_pods_and_room(name);
    assert!(
        lost > 0 && lost <= room,
        "{lost} pods lost, room for {room}"
    );
    let r = run(name);
    assert!(events(&r, "pod.pending").is_empty());
    let web = &r.summary.workloads["web"];
    assert_eq!((web.pending_max, web.final_running), (Some(0), 12));
    let evicted = events(&r, "pod.evicted");
    assert_eq!(
        evicted
            .iter()
            .filter(|e| e.workload.as_deref() == Some("web"))
            .count(),
        lost
    );
    for e in &evicted {
        assert!((363.0..400.0).contains(&(e.t - 60.0)), "{e:?}");
    }
}

/// `kind` events about workload `w`.
fn of<'a>(r: &'a Report, kind: &str, w: &str) -> Vec<&'a Event> {
    events(r, kind)
        .into_iter()
        .filter(|e| e.workload.as_deref() == Some(w))
        .collect()
}

/// Seconds in `[from, to)` where none of `w`'s requests succeeded.
fn dark_seconds(r: &Report, w: &str, from: usize, to: usize) -> usize {
    r.series.service_availability[w][from..to]
        .iter()
        .filter(|a| **a == 0.0)
        .count()
}

#[test]
fn two_drains_at_once_without_a_budget_leave_the_service_dark_for_seconds() {
    let r = run("13-drain-two-workers-without-a-budget");
    let evicted = of(&r, "pod.evicted", "web");
    let mut nodes: Vec<_> = evicted.iter().map(|e| e.node.as_deref().unwrap()).collect();
    nodes.sort();
    assert_eq!(nodes, ["w1", "w3"], "web ran on w1 and w3");
    for e in &evicted {
        assert!(
            (60.0..61.0).contains(&e.t) && e.by == Some("eviction-api"),
            "{e:?}"
        );
    }
    // Replacements on w2 (the only schedulable worker) about 3 s later (the kubelet's start).
    let started = of(&r, "pod.started", "web");
    assert_eq!(started.len(), 2);
    for e in &started {
        assert!(
            e.node.as_deref() == Some("w2") && (62.0..65.0).contains(&e.t),
            "{e:?}"
        );
    }
    let dark = dark_seconds(&r, "web", 60, 70);
    assert!((2..=5).contains(&dark), "{dark} s without a serving pod");
    let drains: Vec<_> = r
        .summary
        .operations
        .iter()
        .filter(|o| o.action == "drain")
        .collect();
    assert_eq!(drains.len(), 2);
    assert!(drains.iter().all(|o| o.ok && o.t < 62.0), "{drains:?}");
}

#[test]
fn a_budget_holds_the_second_eviction_until_the_first_pod_is_replaced() {
    let r = run("13-drain-two-workers-with-a-budget");
    let refused = of(&r, "eviction.refused", "web");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!((60.0..61.0).contains(&refused[0].t));
    let reason = refused[0].reason.as_deref().unwrap();
    assert!(
        reason.starts_with("Cannot evict pod as it would violate the pod's disruption budget."),
        "{reason}"
    );
    let evicted = of(&r, "pod.evicted", "web");
    assert_eq!(evicted.len(), 2);
    assert!((60.0..61.0).contains(&evicted[0].t));
    // At 1:05: the drain's first retry, 5 s after the refusal.
    assert_eq!(evicted[1].pod, refused[0].pod);
    assert!(
        (4.5..5.5).contains(&(evicted[1].t - refused[0].t)),
        "{evicted:?}"
    );
    let first_replaced = of(&r, "pod.started", "web")[0].t;
    assert!(first_replaced < evicted[1].t);
    // Never dark; a few requests fail at each eviction.
    assert_eq!(dark_seconds(&r, "web", 0, 240), 0);
    assert!(r.series.service_availability["web"][60] < 1.0);
    let drains: Vec<f64> = r
        .summary
        .operations
        .iter()
        .filter(|o| o.action == "drain" && o.ok)
        .map(|o| o.t)
        .collect();
    assert_eq!(drains.len(), 2);
    assert!((4.0..6.5).contains(&(drains[1] - drains[0])), "{drains:?}");
}

#[test]
fn at_a_spot_notice_a_budget_moves_pods_gracefully_or_loses_them_with_the_host() {
    let name = "14-spot-workers-and-budgets";
    let r = run(name);
    // web (maxUnavailable 1): evicted at the notice and running again elsewhere about 3 s later.
    let web = of(&r, "pod.evicted", "web");
    assert_eq!(web.len(), 1);
    assert!(web[0].node.as_deref() == Some("w1") && (60.0..61.0).contains(&web[0].t));
    let again = of(&r, "pod.started", "web");
    assert!(again[0].node.as_deref() != Some("w1") && (62.0..65.0).contains(&again[0].t));
    // api (minAvailable 3): refused, never evicted by the drain; its pod dies with w1 at 3:00.
    let refused = of(&r, "eviction.refused", "api");
    assert_eq!(refused.len(), 1);
    assert!((60.0..61.0).contains(&refused[0].t));
    assert!(of(&r, "pod.evicted", "api").is_empty());
    assert!(events(&r, "host.crashed").iter().any(|e| e.t == 180.0));
    let not_ready = events(&r, "node.not_ready")
        .into_iter()
        .find(|e| e.node.as_deref() == Some("w1"))
        .unwrap()
        .t;
    // Its last renewal 0–10 s before the crash, then the 50 s grace, seen at a 5 s check.
    assert!((40.0..56.0).contains(&(not_ready - 180.0)), "{not_ready}");
    // About a third of api's requests fail while the dead pod is still an endpoint.
    let a = &r.series.service_availability["api"];
    let lost = mean(&a[181..not_ready as usize]);
    assert!((0.45..0.85).contains(&lost), "{lost}");
    assert!(mean(&r.series.service_availability["web"][62..]) > 0.99);
    // The cloud controller deletes the Node within 5 s; the pod garbage collector its pod 40 to
    // 60 s after that (20 s passes, 40 s quarantine); the replacement starts at once.
    let deleted = of(&r, "pod.deleted", "api");
    assert_eq!(deleted.len(), 1);
    let after = deleted[0].t - not_ready;
    assert!((40.0..=65.5).contains(&after), "{after}");
    let replaced = of(&r, "pod.started", "api")[0].t;
    assert!(
        (0.0..5.0).contains(&(replaced - deleted[0].t)),
        "{replaced}"
    );
    assert_eq!(r.summary.workloads["api"].final_running, 3);
    // Without a cloud-controller-manager the pod waits for the taint-based eviction, 300 s after
    // the controller saw the taint: "5 minutes later".
    let mut s = sim::scenario::parse(&load(name)).unwrap();
    s.settings.cloud_controller_manager = false;
    s.duration = sim::time::Duration::from_secs(600);
    let r = run_scenario(&s.to_json()).unwrap();
    assert!(of(&r, "pod.deleted", "api").is_empty());
    let taint = of(&r, "pod.evicted", "api");
    assert_eq!(taint.len(), 1, "{taint:?}");
    assert!(taint[0].by == Some("taint") && (300.0..310.0).contains(&(taint[0].t - not_ready)));
}

#[test]
fn an_external_load_balancer_dies_the_api_is_gone_but_nothing_is_evicted() {
    let r = run("15-external-load-balancer-dies");
    // API writes fail from 1:00 to the end (the probe's first failure within its 1 s period).
    let w = &r.series.api_writable;
    assert!(
        all(&w[..60], true) && all(&w[61..], false),
        "{:?}",
        &w[55..70]
    );
    // Every Node, masters included, NotReady once its lease is 50 s old by the controller's
    // watch (last renewal 0–10 s before the crash, a 5 s check): 40–55 s after it.
    let not_ready = events(&r, "node.not_ready");
    assert_eq!(not_ready.len(), 6, "{not_ready:?}");
    for e in &not_ready {
        assert!((40.0..56.0).contains(&(e.t - 60.0)), "{e:?}");
    }
    // Master disruption mode: no taint-based eviction, the Service serves throughout.
    assert!(events(&r, "pod.evicted").is_empty());
    assert_eq!(r.summary.services["web"].availability, 1.0);
}

#[test]
fn keepalived_moves_the_vip_on_missed_adverts_and_splits_it_in_two() {
    let r = run("15-keepalived-who-holds-the-vip");
    let moved = events(&r, "vip.moved");
    let at = |e: &&Event| (e.t, e.host.clone().unwrap_or_default());
    assert_eq!(at(&moved[0]), (0.0, "m1".into()));
    let lost = events(&r, "vip.lost");
    assert_eq!(
        lost.iter().map(at).collect::<Vec<_>>(),
        [(60.0, "m1".into())]
    );
    // "m2 and m3 both take it 2.6 to 3.6 s later, after three missed adverts, and m3 … keeps it":
    // 3 × 1 s + (256 - 100)/256 s from m1's last advert, 0-1 s before the crash; at equal
    // priority the higher address (m3) wins and m2 steps down.
    let mut takers: Vec<_> = moved[1..3]
        .iter()
        .map(|e| e.host.clone().unwrap())
        .collect();
    // In either order: whichever backup's timer runs out first.
    takers.sort();
    assert_eq!(takers, ["m2", "m3"]);
    for e in &moved[1..3] {
        assert!((2.6..3.61).contains(&(e.t - 60.0)), "{e:?}");
    }
    let json = load("15-keepalived-who-holds-the-vip");
    let mut world = World::new(sim::scenario::parse(&json).unwrap());
    world.run_until(world.at_report_secs(90.0), u64::MAX);
    let holders: Vec<_> = world
        .snapshot()
        .hosts
        .into_iter()
        .filter(|h| h.vip)
        .map(|h| h.name)
        .collect();
    assert_eq!(holders, ["m3"]);
    // "At 2:00 m1 boots and takes the VIP back at once … API writes fail for a moment."
    let moved = [&moved[..2], &moved[3..]].concat();
    assert_eq!(at(&moved[2]), (120.0, "m1".into()));
    // Right after its boot m1 holds the VIP while its apiserver is not ready yet: what is sent
    // through the VIP then fails (the write probe, once a second, may or may not fall in it).
    world.run_until(world.at_report_secs(120.1), u64::MAX);
    let snap = world.snapshot();
    let m1 = snap.hosts.iter().find(|h| h.name == "m1").unwrap();
    assert!(
        m1.vip && m1.apiserver.as_ref().is_some_and(|a| !a.ready),
        "{m1:?}"
    );
    let w = &r.series.api_writable;
    // "At 3:00 … m3 becomes a second master": no vip.lost, m1 keeps it.
    assert_eq!(moved[3].host.as_deref(), Some("m3"));
    assert!(
        (2.6..3.61).contains(&(moved[3].t - 180.0)),
        "{:?}",
        moved[3]
    );
    assert_eq!(moved.len(), 4);
    // "API writes keep working through m1."
    assert!(w[125..].iter().all(|x| *x != Some(false)));
    // "w3 and m3 go NotReady 40 to 55 s later": the node lifecycle's clock (facts, timelines).
    let not_ready: Vec<_> = events(&r, "node.not_ready")
        .into_iter()
        .filter(|e| e.t > 180.0)
        .collect();
    let mut names: Vec<_> = not_ready.iter().map(|e| e.node.clone().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["m3", "w3"]);
    assert!(
        not_ready
            .iter()
            .all(|e| (40.0..=55.0).contains(&(e.t - 180.0))),
        "{not_ready:?}"
    );
    // "m3 … steps down, one holder again."
    let json = load("15-keepalived-who-holds-the-vip");
    let mut world = World::new(sim::scenario::parse(&json).unwrap());
    let holders = |world: &mut World, secs: f64| {
        world.run_until(world.at_report_secs(secs), u64::MAX);
        world
            .snapshot()
            .hosts
            .into_iter()
            .filter(|h| h.vip)
            .map(|h| h.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(holders(&mut world, 240.0), ["m1", "m3"]);
    assert_eq!(holders(&mut world, 305.0), ["m1"]);
}

#[test]
fn kube_vip_moves_the_api_within_seconds_when_its_holder_dies() {
    let r = run("15-kube-vip-holder-dies");
    let moved = events(&r, "vip.moved");
    assert_eq!((moved[0].t, moved[0].host.as_deref()), (0.0, Some("m1")));
    let lost = events(&r, "vip.lost");
    assert_eq!(lost.len(), 1);
    assert_eq!((lost[0].t, lost[0].host.as_deref()), (60.0, Some("m1")));
    assert_eq!(moved.len(), 2);
    assert_eq!(moved[1].host.as_deref(), Some("m2"));
    // "about 5 s later; 4 to 9.5 s by client-go's timings" (docs/behaviour.md).
    assert!((4.0..9.6).contains(&(moved[1].t - 60.0)), "{:?}", moved[1]);
    let failed = r
        .series
        .api_writable
        .iter()
        .filter(|w| **w == Some(false))
        .count();
    assert!((3..=10).contains(&failed), "{failed} s");
    let not_ready = events(&r, "node.not_ready");
    assert_eq!(not_ready.len(), 1);
    assert_eq!(not_ready[0].node.as_deref(), Some("m1"));
    // With kube-vip's own manifests (15 s, 10 s, 2 s: the settings' defaults) a crash of the
    // holder leaves the VIP down until its lease expires: 15 s after its last renewal (at most
    // 2 s before the crash), plus up to a retry period of 2.4 s (client-go's jitter): 13-17.4 s.
    let mut s = sim::scenario::parse(&load("15-kube-vip-holder-dies")).unwrap();
    for key in [
        "kube_vip_lease_duration",
        "kube_vip_renew_deadline",
        "kube_vip_retry_period",
    ] {
        let key = sim::scenario::SettingKey::from_name(key).unwrap();
        let default = sim::scenario::Settings::default().get(key);
        s.settings.set(key, default);
    }
    let booted = sim::run_scenario(&s.to_json()).unwrap();
    let holder = events(&booted, "vip.moved")[0].host.clone().unwrap();
    for e in &mut s.events {
        e.action = sim::scenario::Action::Crash {
            host: holder.clone(),
        };
    }
    let r = sim::run_scenario(&s.to_json()).unwrap();
    let moved = events(&r, "vip.moved");
    assert_eq!(moved.len(), 2, "{holder}");
    let delay = moved[1].t - 60.0;
    assert!(
        (13.0..=17.4).contains(&delay),
        "today's manifests: moved {delay} s after the crash"
    );
}

/// Every ready scenario: its file name and text.
fn ready_scenarios() -> Vec<(String, String)> {
    let dir = format!("{}/../../web/scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

/// The page's prediction of when an overdue Node goes NotReady ("NotReady ≈ 1:40–1:50") is the
/// controller's own: in every ready scenario, at every 5 s, each node predicted goes NotReady
/// within the window the page shows, unless it renews first (also after a controller-manager
/// failover, when the new leader counts from its own first look).
#[test]
fn the_pages_not_ready_predictions_hold() {
    let mut checked = 0;
    for (name, json) in ready_scenarios() {
        let mut w = World::new(sim::scenario::parse(&json).unwrap());
        let end = w.end();
        // (host, predicted at, seen at)
        let mut open: Vec<(String, f64, f64)> = Vec::new();
        let mut t = 0.0;
        while w.now() < end {
            t += 5.0;
            w.run_until(w.at_report_secs(t).min(end), u64::MAX);
            let snap = w.snapshot();
            for h in &snap.hosts {
                let Some(n) = &h.node else { continue };
                let predicted = n
                    .stale_after
                    .filter(|_| n.watched && n.ready == sim::view::NodeReadiness::Ready);
                match (predicted, open.iter().position(|(x, ..)| *x == h.name)) {
                    (Some(at), None) => open.push((h.name.clone(), at, t)),
                    (Some(at), Some(i)) => open[i].1 = at,
                    (None, Some(i)) => {
                        let (host, at, seen) = open.swap_remove(i);
                        if n.ready != sim::view::NodeReadiness::Ready {
                            // It went NotReady (or Unknown) since the last look: within the window?
                            let report = sim::report(&w);
                            let when = report.events.iter().rev().find(|e| {
                                e.kind == "node.not_ready"
                                    && e.node.as_deref() == Some(host.as_str())
                            });
                            if let Some(e) = when {
                                assert!(
                                    e.t >= at - 0.5 && e.t <= at + 10.0,
                                    "{name}: {host} predicted (at {seen}) NotReady at {at}–{}, went at {}",
                                    at + 10.0,
                                    e.t
                                );
                                checked += 1;
                            }
                        }
                    }
                    (None, None) => {}
                }
            }
        }
    }
    eprintln!("{checked} predictions met their NotReady");
    assert!(checked >= 5, "only {checked} predictions met a NotReady");
}
