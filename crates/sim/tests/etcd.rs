//! etcd behaviour at the level of whole runs, asserted against docs/behaviour.md:
//! failover in one to two election timeouts, CheckQuorum step-down, PreVote,
//! quorum loss and recovery, strict reconfiguration checks.

use sim::record::Event;
use sim::report::Report;
use sim::run_scenario;
use sim::view::HostState;

fn run(json: &str) -> Report {
    run_scenario(json).unwrap_or_else(|e| panic!("scenario refused: {e}"))
}

fn three(seed: u64, settings: &str, events: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "t", "seed": {seed}, "duration": "2m",
        "hosts": [{{"name": "etcd-1", "roles": ["etcd"]}}, {{"name": "etcd-2", "roles": ["etcd"]}},
                  {{"name": "etcd-3", "roles": ["etcd"]}}, {{"name": "etcd-4", "roles": ["etcd"], "standby": true}}],
        "settings": {{{settings}}}, "events": [{events}]}}"#
    )
}

fn leader_at_start(r: &Report) -> String {
    let e = &r.events[0];
    assert_eq!(
        (e.kind.as_str(), e.t),
        ("etcd.leader_elected", 0.0),
        "t = 0 reports the boot's leader"
    );
    e.host.clone().unwrap()
}

fn events<'a>(r: &'a Report, kind: &str) -> Vec<&'a Event> {
    r.events.iter().filter(|e| e.kind == kind).collect()
}

/// Seeds of a 3-member cluster, and the name of its boot leader (found by a first run).
fn leader_of(seed: u64) -> String {
    leader_at_start(&run(&three(seed, "", "")))
}

#[test]
fn a_new_leader_within_one_to_two_election_timeouts_after_the_leader_dies() {
    // Election timeout 1 s randomised in [10, 20) ticks of 100 ms; a follower's count started at its
    // last heartbeat (≤ 100 ms before the crash) and its first tick may follow at once, so the
    // earliest is ≈ 0.8 s; PreVote and the vote add two round trips to the latest (2 s).
    let mut delays = Vec::new();
    for seed in 1..=30 {
        let leader = leader_of(seed);
        let r = run(&three(
            seed,
            "",
            &format!(r#"{{"at": "30s", "action": "crash", "host": "{leader}"}}"#),
        ));
        let elected = events(&r, "etcd.leader_elected");
        let next = elected
            .iter()
            .find(|e| e.t > 30.0)
            .expect("a new leader is elected");
        assert_ne!(next.host.as_deref(), Some(leader.as_str()));
        let delay = next.t - 30.0;
        assert!(
            (0.8..2.1).contains(&delay),
            "seed {seed}: new leader after {delay} s"
        );
        assert_eq!(
            r.summary.etcd.quorum_lost_s, 0.0,
            "2 of 3 remain: electing is not quorum loss"
        );
        delays.push(delay);
    }
    let mean = delays.iter().sum::<f64>() / delays.len() as f64;
    // Roughly uniform over [0.85, 2.0) s: a mean ≈ 1.4 s.
    assert!((1.2..1.75).contains(&mean), "mean failover {mean} s");
}

#[test]
fn a_leader_cut_off_from_the_majority_steps_down_by_check_quorum() {
    for seed in 1..=10 {
        let leader = leader_of(seed);
        let others: Vec<String> = ["etcd-1", "etcd-2", "etcd-3"]
            .iter()
            .filter(|h| **h != leader)
            .map(|h| h.to_string())
            .collect();
        let crash = others
            .iter()
            .map(|h| format!(r#"{{"at": "20s", "action": "crash", "host": "{h}"}}"#))
            .collect::<Vec<_>>();
        let r = run(&three(seed, "", &crash.join(",")));
        let lost = events(&r, "etcd.leader_lost");
        let down = lost.first().expect("the lone leader steps down");
        assert_eq!(down.host.as_deref(), Some(leader.as_str()));
        assert!(down.text.contains("CheckQuorum"), "{}", down.text);
        // Checked every election timeout: within 1–2 timeouts of losing its followers.
        let after = down.t - 20.0;
        assert!(
            (0.9..2.15).contains(&after),
            "seed {seed}: stepped down after {after} s"
        );
        // No majority from 20 s to the end (100 s) and no write succeeds after the step-down.
        assert!(
            (r.summary.etcd.quorum_lost_s - 100.0).abs() < 1e-6,
            "{}",
            r.summary.etcd.quorum_lost_s
        );
        assert!(r.series.etcd_writable[21..]
            .iter()
            .all(|w| *w == Some(false)));
    }
}

/// A follower isolated for 30 s, then healed: with PreVote its failed elections never bump the
/// term, so the leader keeps leading; without PreVote its inflated term deposes the leader.
#[test]
fn pre_vote_stops_a_rejoining_member_from_disrupting_the_leader() {
    for seed in 1..=10 {
        let leader = leader_of(seed);
        let follower = ["etcd-1", "etcd-2", "etcd-3"]
            .into_iter()
            .find(|h| *h != leader)
            .unwrap();
        let events = format!(
            r#"{{"at": "10s", "action": "isolate", "host": "{follower}"}}, {{"at": "40s", "action": "heal"}}"#
        );
        let with = run(&three(seed, r#""etcd_pre_vote": true"#, &events));
        let term0 = with.series.etcd_term[0];
        assert_eq!(
            with.summary.etcd.leader_changes, 1,
            "seed {seed}: only the boot leader"
        );
        assert!(
            with.series.etcd_term.iter().all(|&t| t == term0),
            "seed {seed}: the term never moves"
        );
        assert!(with
            .series
            .etcd_leader
            .iter()
            .all(|l| l == Some(leader.as_str())));

        let without = run(&three(seed, r#""etcd_pre_vote": false"#, &events));
        let last = *without.series.etcd_term.last().unwrap();
        // ≈ one term per election timeout while isolated (30 s / 1–2 s): far past the start.
        assert!(
            last > term0 + 10,
            "seed {seed}: without PreVote the term jumps ({term0} -> {last})"
        );
        let lost = events_after(&without, "etcd.leader_lost", 40.0);
        assert!(
            lost.iter().any(|e| e.text.contains("higher term")),
            "seed {seed}: the leader is deposed"
        );
    }
}

fn events_after<'a>(r: &'a Report, kind: &str, t: f64) -> Vec<&'a Event> {
    r.events
        .iter()
        .filter(|e| e.kind == kind && e.t >= t)
        .collect()
}

#[test]
fn losing_two_of_three_stops_writes_until_force_new_cluster() {
    let json = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/scenarios/etcd-two-of-three-die.json"
    ))
    .unwrap();
    let r = run(&json);
    let s = &r.series;
    // 20 s: two members crash. No majority, so nothing commits.
    assert!(s.etcd_quorum[..20].iter().all(|&q| q));
    assert!(s.etcd_quorum[21..90].iter().all(|&q| !q));
    assert!(s.etcd_writable[21..90].iter().all(|w| *w == Some(false)));
    // Adding a master (join at 60 s) needs the quorum it would restore: refused.
    let ops = &r.summary.operations;
    assert_eq!((ops[0].action.as_str(), ops[0].ok), ("join", false));
    // 90 s: --force-new-cluster on the survivor: one member, a leader after an election timeout, writes again.
    assert_eq!(
        (ops[1].action.as_str(), ops[1].ok),
        ("etcd_force_new_cluster", true)
    );
    let elected = events_after(&r, "etcd.leader_elected", 90.0);
    assert!(
        elected[0].t - 90.0 < 2.1,
        "the lone member elects itself within an election timeout"
    );
    // The client then has to find the one live endpoint among four, with a 2 s timeout per dead one.
    let back = (90..s.t.len())
        .find(|&i| s.etcd_writable[i] == Some(true))
        .unwrap();
    assert!(back <= 98, "writes back at {back} s");
    // 120 s: a fresh member is added to the one-member cluster (allowed: 1 of 1 is connected).
    assert_eq!(
        (ops[2].action.as_str(), ops[2].ok),
        ("etcd_member_add", true)
    );
    assert!(s.etcd_quorum[121..].iter().all(|&q| q));
    assert!(s.etcd_writable[125..].iter().all(|w| *w == Some(true)));
    // Quorum lost from 20 s until the force-new-cluster at 90 s, plus the instant between the add
    // committing and the new member starting (a 2-member cluster with one member not yet running).
    assert!(
        (70.0..70.5).contains(&r.summary.etcd.quorum_lost_s),
        "{}",
        r.summary.etcd.quorum_lost_s
    );
    assert!(r.summary.violations.is_empty());
}

#[test]
fn a_member_cannot_be_added_while_another_is_dead_strict_reconfig_check() {
    for seed in 1..=5 {
        let leader = leader_of(seed);
        let dead = ["etcd-1", "etcd-2", "etcd-3"]
            .into_iter()
            .find(|h| *h != leader)
            .unwrap();
        let events = format!(
            r#"{{"at": "10s", "action": "crash", "host": "{dead}"}},
               {{"at": "30s", "action": "etcd_member_add", "host": "etcd-4"}},
               {{"at": "40s", "action": "etcd_member_remove", "host": "{dead}"}},
               {{"at": "60s", "action": "etcd_member_add", "host": "etcd-4"}}"#
        );
        let r = run(&three(seed, "", &events));
        let ops = &r.summary.operations;
        assert_eq!(ops.len(), 3);
        assert!(!ops[0].ok, "seed {seed}: add with a dead member is refused");
        assert_eq!(ops[0].reason.as_deref(), Some("unhealthy cluster"));
        assert!(
            ops[1].ok,
            "seed {seed}: the dead member can be removed (2 of 3 is a quorum)"
        );
        assert!(ops[2].ok, "seed {seed}: then the new member can be added");
        assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
        // The new member must be caught up and counted: writes keep succeeding with 3 voters.
        assert!(r.series.etcd_writable[65..]
            .iter()
            .all(|w| *w == Some(true)));
        assert!(r.summary.violations.is_empty());
    }
}

#[test]
fn a_rack_split_keeps_the_majority_side_writable() {
    let json = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/scenarios/etcd-rack-split.json"
    ))
    .unwrap();
    let r = run(&json);
    let boot_leader = leader_at_start(&r);
    // In this scenario the boot leader is in the minority rack, which makes the test meaningful.
    assert!(
        ["etcd-4", "etcd-5"].contains(&boot_leader.as_str()),
        "boot leader {boot_leader}"
    );
    let lost = events_after(&r, "etcd.leader_lost", 60.0);
    assert_eq!(lost[0].host.as_deref(), Some(boot_leader.as_str()));
    assert!(
        lost[0].t - 60.0 < 2.15,
        "CheckQuorum within two election timeouts"
    );
    let elected = events_after(&r, "etcd.leader_elected", 60.0);
    assert!(["etcd-1", "etcd-2", "etcd-3"].contains(&elected[0].host.as_deref().unwrap()));
    assert!(elected[0].t - 60.0 < 2.1);
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0, "3 of 5 stay connected");
    assert!(r.series.etcd_writable[63..]
        .iter()
        .all(|w| *w == Some(true)));
    assert!(r.summary.violations.is_empty());
}

#[test]
fn the_snapshot_shows_quorum_plainly() {
    let json = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/scenarios/etcd-two-of-three-die.json"
    ))
    .unwrap();
    let mut w = sim::world::World::new(sim::scenario::parse(&json).unwrap());
    w.run_until(w.at_report_secs(10.0), u64::MAX);
    let s = w.snapshot();
    assert_eq!(s.t, 10.0);
    assert_eq!(s.etcd.label(), "etcd: 3 of 3 — quorum");
    assert_eq!(
        s.hosts
            .iter()
            .filter(|h| h.etcd.as_ref().is_some_and(|m| m.role == "leader"))
            .count(),
        1
    );
    assert_eq!(s.hosts[3].state, "standby");
    w.run_until(w.at_report_secs(30.0), u64::MAX);
    let s = w.snapshot();
    assert_eq!(s.etcd.label(), "etcd: 1 of 3 — NO QUORUM");
    assert_eq!(
        (s.hosts[0].state, s.hosts[1].state),
        (HostState::Down, HostState::Down)
    );
    assert_eq!(s.hosts[0].etcd.as_ref().unwrap().role, "stopped");
    assert_eq!(s.etcd.leader, None, "CheckQuorum demoted the lone leader");
}

/// Three stacked masters and 100 workers (≈ 14 writes a second: leases, node status, pods).
fn busy_cluster(events: &str) -> String {
    let workers: Vec<String> = (1..=100)
        .map(|i| format!(r#"{{"name": "w{i}", "roles": ["worker"]}}"#))
        .collect();
    format!(
        r#"{{"version": 1, "name": "t", "seed": 3, "duration": "20m",
        "hosts": [{{"name": "m1", "roles": ["control-plane", "etcd"]}}, {{"name": "m2", "roles": ["control-plane", "etcd"]}},
                  {{"name": "m3", "roles": ["control-plane", "etcd"]}}, {{"name": "lb", "roles": ["load-balancer"]}},
                  {}],
        "workloads": [{{"kind": "Deployment", "name": "web", "replicas": 300, "service": true}}],
        "events": [{events}]}}"#,
        workers.join(", ")
    )
}

#[test]
fn a_member_down_longer_than_the_kept_log_comes_back_through_a_snapshot() {
    // etcd snapshots every 10,000 applied entries and keeps the last 5,000: after 14 minutes
    // away (≈ 12,000 writes) the leader no longer holds what m3 misses, so it sends a snapshot.
    let long = r#"{"at": "1m", "action": "crash", "host": "m3"}, {"at": "15m", "action": "restart", "host": "m3"}"#;
    let scenario = sim::scenario::parse(&busy_cluster(long)).expect("valid");
    let mut world = sim::world::World::new(scenario);
    world.run_to_end();
    let view = world.snapshot();
    let r = sim::report(&world);
    let installed = events(&r, "etcd.snapshot_installed");
    assert_eq!(installed.len(), 1, "one snapshot: {installed:?}");
    assert_eq!(installed[0].host.as_deref(), Some("m3"));
    assert!(
        (900.0..905.0).contains(&installed[0].t),
        "at {}",
        installed[0].t
    );
    // Back in step: m3 applies what the others apply, and its apiserver serves again.
    let member = |name: &str| {
        let h = view.hosts.iter().find(|h| h.name == name).expect("host");
        h.etcd.as_ref().expect("member").clone()
    };
    let top = ["m1", "m2"]
        .map(|m| member(m).applied)
        .into_iter()
        .max()
        .unwrap();
    assert!(
        member("m3").applied + 10 >= top,
        "m3 at {} of {top}",
        member("m3").applied
    );
    let back = r
        .events
        .iter()
        .any(|e| e.kind == "lb.backend_up" && e.host.as_deref() == Some("m3") && e.t > 900.0);
    assert!(back, "the load balancer takes m3's apiserver back");
    assert!(
        r.summary.violations.is_empty(),
        "{:?}",
        r.summary.violations
    );
    // Without the long absence nobody needs a snapshot: a 2-minute outage catches up from the log.
    let short = r#"{"at": "1m", "action": "crash", "host": "m3"}, {"at": "3m", "action": "restart", "host": "m3"}"#;
    let r = run(&busy_cluster(short));
    assert!(events(&r, "etcd.snapshot_installed").is_empty());
}

/// docs/behaviour.md, etcd: a leader that is stopped (not crashed) first transfers its leadership
/// (`TryTransferLeadershipOnShutdown`, MsgTimeoutNow), so restarting or rebooting it costs about a
/// round trip, not an election timeout; a crash costs one to two election timeouts (above).
#[test]
fn a_clean_stop_of_the_leader_hands_over_without_an_election() {
    for (seed, action) in (1..=10).flat_map(|s| [(s, "restart_component"), (s, "reboot")]) {
        let leader = leader_of(seed);
        let event = if action == "reboot" {
            format!(r#"{{"at": "30s", "action": "reboot", "host": "{leader}"}}"#)
        } else {
            format!(
                r#"{{"at": "30s", "action": "restart_component", "host": "{leader}", "component": "etcd"}}"#
            )
        };
        let r = run(&three(seed, "", &event));
        let next = events(&r, "etcd.leader_elected")
            .into_iter()
            .find(|e| e.t > 30.0)
            .expect("a new leader");
        assert_ne!(next.host.as_deref(), Some(leader.as_str()));
        // TimeoutNow, the vote and its answer: a few 1 ms hops.
        let delay = next.t - 30.0;
        assert!(
            delay < 0.05,
            "seed {seed}, {action}: new leader after {delay} s"
        );
        let lost = events(&r, "etcd.leader_lost");
        assert!(
            lost.iter()
                .any(|e| e.host.as_deref() == Some(leader.as_str())
                    && e.text.contains("handed its leadership")),
            "seed {seed}, {action}: {lost:?}"
        );
        // At most the write sent during the handover (a few ms; the probe writes once a second,
        // and a leader refuses proposals while it hands over) fails: a crash costs 1–2.
        // (After a reboot's stop, the probe's own endpoint may be the host that is down.)
        let window = if action == "reboot" { 25..31 } else { 25..40 };
        let failed = r.series.etcd_writable[window]
            .iter()
            .filter(|w| **w == Some(false))
            .count();
        assert!(failed <= 1, "seed {seed}, {action}: {failed} writes failed");
    }
}

/// docs/behaviour.md, etcd disaster recovery: after `--force-new-cluster` on the survivor, the
/// old members restarted later are answered "removed member" (410) by it and stop; they never
/// form a cluster of their own, even though together they are a majority of the old one.
#[test]
fn old_members_restarted_after_force_new_cluster_stop_as_removed() {
    for seed in 1..=10 {
        let leader = leader_of(seed);
        let others: Vec<&str> = ["etcd-1", "etcd-2", "etcd-3"]
            .into_iter()
            .filter(|h| *h != leader)
            .collect();
        let r = run(&three(
            seed,
            "",
            &format!(
                r#"{{"at": "20s", "action": "crash", "host": "{a}"}}, {{"at": "20s", "action": "crash", "host": "{b}"}},
                   {{"at": "40s", "action": "etcd_force_new_cluster", "host": "{leader}"}},
                   {{"at": "60s", "action": "restart", "host": "{a}"}}, {{"at": "60s", "action": "restart", "host": "{b}"}}"#,
                a = others[0],
                b = others[1]
            ),
        ));
        let removed = events(&r, "etcd.member_removed");
        let stopped: Vec<&str> = removed.iter().filter_map(|e| e.host.as_deref()).collect();
        assert_eq!(stopped.len(), 2, "seed {seed}: {removed:?}");
        for old in &others {
            assert!(stopped.contains(old), "seed {seed}: {old} not stopped");
        }
        // They learn it when they connect, long before an election timeout (≥ 1 s).
        assert!(
            removed.iter().all(|e| (60.0..60.2).contains(&e.t)),
            "seed {seed}: {removed:?}"
        );
        // Nobody else ever leads: the survivor alone, writes succeed throughout.
        let later_leaders: Vec<&str> = events(&r, "etcd.leader_elected")
            .iter()
            .filter(|e| e.t > 40.0)
            .filter_map(|e| e.host.as_deref())
            .collect();
        assert!(
            later_leaders.iter().all(|h| *h == leader),
            "seed {seed}: leaders after the force-new-cluster: {later_leaders:?}"
        );
        assert!(r
            .series
            .etcd_leader
            .iter()
            .skip(45)
            .all(|l| l == Some(leader.as_str())));
        assert!(
            r.summary.violations.is_empty(),
            "seed {seed}: {:?}",
            r.summary.violations
        );
    }
}

/// docs/behaviour.md, etcd learners: kubeadm joins a control-plane host's etcd member as a
/// learner and promotes it once it has caught up, so a one-member cluster grows to three without
/// ever losing quorum (a learner does not count for it).
#[test]
fn kubeadm_join_grows_a_single_member_through_learners_without_losing_quorum() {
    let json = r#"{"version": 1, "name": "t", "seed": 3, "duration": "2m",
        "hosts": [{"name": "m1", "roles": ["control-plane", "etcd"]},
                  {"name": "m2", "roles": ["control-plane", "etcd"], "standby": true},
                  {"name": "m3", "roles": ["control-plane", "etcd"], "standby": true},
                  {"name": "lb", "roles": ["load-balancer"]}, {"name": "w1", "roles": ["worker"]}],
        "events": [{"at": "30s", "action": "join", "host": "m2"}, {"at": "60s", "action": "join", "host": "m3"}]}"#;
    let r = run(json);
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
    assert!(r.series.etcd_quorum.iter().all(|&q| q));
    let ops: Vec<(&str, bool, f64)> = r
        .summary
        .operations
        .iter()
        .map(|o| (o.action.as_str(), o.ok, o.t))
        .collect();
    assert_eq!(ops.len(), 2, "{ops:?}");
    // Added as a learner (one commit), caught up and promoted (another): within a second or two.
    for (op, at) in ops.iter().zip([30.0, 60.0]) {
        assert!(op.0 == "join" && op.1, "{ops:?}");
        assert!(op.2 - at < 2.0, "join done {} s after it began", op.2 - at);
    }
    // Three voters at the end: losing one keeps a majority.
    let crash = json.replace(
        r#"{"at": "60s", "action": "join", "host": "m3"}]"#,
        r#"{"at": "60s", "action": "join", "host": "m3"}, {"at": "90s", "action": "crash", "host": "m1"}]"#,
    );
    let after = run(&crash);
    assert!(after.series.etcd_quorum[91..].iter().all(|&q| q));
}

/// etcd's `member promote` is refused until the learner has caught up with the leader
/// ("can only promote a learner member which is in sync with leader").
#[test]
fn a_learner_is_promoted_only_once_it_has_caught_up() {
    let json = three(
        5,
        "",
        r#"{"at": "20s", "action": "isolate", "host": "etcd-4"},
           {"at": "30s", "action": "etcd_member_add", "host": "etcd-4", "learner": true},
           {"at": "35s", "action": "etcd_member_promote", "host": "etcd-4"},
           {"at": "40s", "action": "heal"},
           {"at": "45s", "action": "etcd_member_promote", "host": "etcd-4"}"#,
    );
    let r = run(&json);
    let ops: Vec<(&str, bool, Option<&str>)> = r
        .summary
        .operations
        .iter()
        .map(|o| (o.action.as_str(), o.ok, o.reason.as_deref()))
        .collect();
    assert_eq!(
        ops,
        [
            // Every voter connected: the strict check passes for the learner.
            ("etcd_member_add", true, None),
            (
                "etcd_member_promote",
                false,
                Some("can only promote a learner member which is in sync with leader")
            ),
            ("etcd_member_promote", true, None),
        ]
    );
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
}

/// docs/behaviour.md, member add: etcd 3.5.30 / 3.6.11 accept an add when the leader has been
/// connected for 5 s to a quorum of the grown cluster, so a 5-member cluster with one dead member
/// may add (4 connected ≥ quorum 4 of 6), while a 3-member one may not (2 < 3, above).
#[test]
fn a_five_member_cluster_with_one_dead_member_may_add() {
    let json = r#"{"version": 1, "name": "t", "seed": 2, "duration": "1m",
        "hosts": [{"name": "e1", "roles": ["etcd"]}, {"name": "e2", "roles": ["etcd"]}, {"name": "e3", "roles": ["etcd"]},
                  {"name": "e4", "roles": ["etcd"]}, {"name": "e5", "roles": ["etcd"]},
                  {"name": "e6", "roles": ["etcd"], "standby": true}],
        "events": [{"at": "10s", "action": "crash", "host": "DEAD"},
                   {"at": "30s", "action": "etcd_member_add", "host": "e6"}]}"#;
    let leader = leader_at_start(&run(
        &json.replace(r#"{"at": "10s", "action": "crash", "host": "DEAD"},"#, "")
    ));
    let dead = ["e1", "e2", "e3", "e4", "e5"]
        .into_iter()
        .find(|h| *h != leader)
        .unwrap();
    let r = run(&json.replace("DEAD", dead));
    let op = &r.summary.operations[0];
    assert!(op.ok, "{op:?}");
    assert_eq!(r.summary.etcd.quorum_lost_s, 0.0);
}

/// A membership request reaches the leader only through a member its sender can reach: a host
/// joining on the minority side of a split reaches e3 alone, which has no leader there (it lost
/// its leader's heartbeats), so kubeadm's member add fails at once instead of being committed by
/// a leader the joining host cannot reach (docs/behaviour.md, "etcd membership").
#[test]
/// kubeadm's join checks every listed etcd member before it adds one: from the minority side
/// e1 and e2 do not answer, so the join fails there, and succeeds after the heal.
fn a_join_on_the_minority_side_fails_kubeadms_etcd_check() {
    let json = r#"{"version": 1, "name": "t", "seed": 2, "duration": "2m", "zones": ["a", "b"],
      "hosts": [{"name": "e1", "zone": "a", "roles": ["etcd"]}, {"name": "e2", "zone": "a", "roles": ["etcd"]},
                {"name": "e3", "zone": "b", "roles": ["etcd"]}, {"name": "e4", "zone": "b", "roles": ["etcd"], "standby": true}],
      "events": [{"at": "10s", "action": "partition", "groups": [["a"], ["b"]]},
                 {"at": "20s", "action": "join", "host": "e4"},
                 {"at": "40s", "action": "heal"},
                 {"at": "50s", "action": "join", "host": "e4"}]}"#;
    let r = sim::run_scenario(json).unwrap();
    let joins: Vec<_> = r
        .summary
        .operations
        .iter()
        .filter(|o| o.action == "join")
        .collect();
    assert_eq!(joins.len(), 2, "{joins:?}");
    assert!(!joins[0].ok);
    assert_eq!(joins[0].t, 20.0);
    assert_eq!(
        joins[0].reason.as_deref(),
        Some("etcd cluster is not healthy: its member e1 does not answer (kubeadm join checks every listed member)")
    );
    assert!(joins[1].ok, "after the heal it joins: {:?}", joins[1]);
}

/// A survivor that had been removed and then forced a new cluster adds itself back to its own
/// configuration (the same member id, the only one ever reused): a member added later replays
/// both entries, so it must not remember the survivor as removed and stop it.
#[test]
fn a_member_added_after_a_removed_survivor_forced_a_new_cluster_does_not_stop_it() {
    let r = run(&three(
        7,
        "",
        r#"{"at": "10s", "action": "etcd_member_remove", "host": "etcd-1"},
           {"at": "20s", "action": "crash", "host": "etcd-2"}, {"at": "20s", "action": "crash", "host": "etcd-3"},
           {"at": "30s", "action": "etcd_force_new_cluster", "host": "etcd-1"},
           {"at": "40s", "action": "etcd_member_add", "host": "etcd-2"},
           {"at": "45s", "action": "restart", "host": "etcd-2"}"#,
    ));
    let ops: Vec<_> = (r.summary.operations.iter())
        .map(|o| (o.action.as_str(), o.ok))
        .collect();
    assert_eq!(
        ops,
        [
            ("etcd_member_remove", true),
            ("etcd_force_new_cluster", true),
            ("etcd_member_add", true)
        ]
    );
    let stopped: Vec<_> = events(&r, "etcd.member_removed")
        .iter()
        .filter(|e| e.t > 30.0)
        .map(|e| e.host.clone())
        .collect();
    assert!(stopped.is_empty(), "{stopped:?}");
    // etcd-1 and the new etcd-2: 2 of 2 voters, writes succeed to the end.
    let w = &r.series.etcd_writable;
    assert!(
        w[60..118].iter().all(|&x| x == Some(true)),
        "{:?}",
        &w[40..]
    );
}

/// etcd's `adjustTicks` looks at the members it recovered from its data when it starts. A
/// restarted single-member cluster finds itself alone and lets an election timeout's worth of
/// ticks pass at once: it leads within one election timeout (1 s). A `--force-new-cluster`
/// survivor still finds the old members there (their removal is applied after the look), no
/// peer connected, and waits a whole randomized election timeout: 1–2 s, as `cargo xtask
/// reality` measures on etcd 3.5.1 (1.0–1.9 s from the process's start).
#[test]
fn a_lone_member_restarted_leads_within_a_timeout_a_forced_survivor_after_one_or_two() {
    let (mut alone, mut forced) = (Vec::new(), Vec::new());
    for seed in 1..=20 {
        let r = run(&format!(
            r#"{{"version": 1, "name": "t", "seed": {seed}, "duration": "1m",
            "hosts": [{{"name": "etcd-1", "roles": ["etcd"]}}],
            "events": [{{"at": "10s", "action": "crash", "host": "etcd-1"}},
                       {{"at": "{}ms", "action": "restart", "host": "etcd-1"}}]}}"#,
            20_000 + 37 * seed
        ));
        let restart = 20.0 + 0.037 * seed as f64;
        let e = events(&r, "etcd.leader_elected");
        alone.push(e.iter().find(|e| e.t > restart).expect("leads again").t - restart);
        let r = run(&three(
            seed,
            "",
            &format!(
                r#"{{"at": "20s", "action": "crash", "host": "etcd-1"}},
                   {{"at": "20s", "action": "crash", "host": "etcd-2"}},
                   {{"at": "{}ms", "action": "etcd_force_new_cluster", "host": "etcd-3"}}"#,
                30_000 + 37 * seed
            ),
        ));
        let at = 30.0 + 0.037 * seed as f64;
        let e = events(&r, "etcd.leader_elected");
        forced.push(e.iter().find(|e| e.t > at).expect("the survivor leads").t - at);
    }
    assert!(alone.iter().all(|&d| d > 0.0 && d <= 1.0), "{alone:?}");
    // The survivor's tick loop keeps its phase through the event: up to a tick less.
    assert!(
        forced.iter().all(|&d| (0.9..2.0).contains(&d)),
        "{forced:?}"
    );
    let mean = forced.iter().sum::<f64>() / forced.len() as f64;
    assert!(mean > 1.1, "{forced:?}");
}
