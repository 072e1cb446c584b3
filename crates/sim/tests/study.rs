//! Availability studies against what is known without the simulation: n independent members,
//! each down a fraction p = MTTR / (MTBF + MTTR) of the time, lose quorum while more than
//! n − ⌊n/2⌋ − 1 of them are down. Release builds only (`cargo xtask test` runs them so): a
//! study of hundreds of simulated hours takes minutes unoptimised.
#![cfg(not(debug_assertions))]

use sim::scenario::{parse, Scenario};
use sim::study::{run_trial, shard_trials, StudyReport, Trial};
use sim::time::Duration;

fn etcd_cluster(n: usize, mtbf: &str, mttr: &str) -> Scenario {
    let hosts: Vec<String> = (1..=n)
        .map(|i| format!(r#"{{"name":"etcd-{i}","roles":["etcd"]}}"#))
        .collect();
    parse(&format!(
        r#"{{"version":1,"name":"etcd {n}","seed":11,"duration":"1h","hosts":[{}],
            "faults":[{{"hosts":"all","mtbf":"{mtbf}","mttr":"{mttr}"}}]}}"#,
        hosts.join(",")
    ))
    .unwrap()
}

/// P(more than n − ⌊n/2⌋ − 1 of n members down), each down with probability p.
fn closed_form(n: u32, p: f64) -> f64 {
    let binom =
        |n: u32, k: u32| -> f64 { (1..=k).map(|i| (n - k + i) as f64 / i as f64).product() };
    let majority = n / 2 + 1;
    // Quorum is lost when fewer than a majority are up: more than n − majority down.
    (n - majority + 1..=n)
        .map(|k| binom(n, k) * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32))
        .sum()
}

fn study(s: &Scenario, trials: u64, horizon: Duration) -> StudyReport {
    let results: Vec<Trial> = (0..trials).map(|i| run_trial(s, 5, i, horizon)).collect();
    StudyReport::new(&s.name, trials, horizon, 5, "1/1".into(), results)
}

#[test]
fn quorum_unavailability_matches_the_closed_form_for_3_and_5_members() {
    // MTBF 5 min, MTTR 1 min: p = 1/6, many failures per simulated hour.
    let p = 1.0 / 6.0;
    assert!((closed_form(3, p) - (3.0 * p * p - 2.0 * p * p * p)).abs() < 1e-12);
    for n in [3, 5] {
        let s = etcd_cluster(n, "5m", "1m");
        let r = study(&s, 48, Duration::from_secs(3 * 3600));
        let e = &r.etcd.quorum_unavailability;
        let expected = closed_form(n as u32, p);
        assert!(
            e.contains(expected),
            "{n} members: {e:?}, closed form {expected}"
        );
        // And the interval says something: narrower than the value itself.
        assert!(e.ci95[1] - e.ci95[0] < expected, "{n} members: {e:?}");
    }
}

#[test]
fn merged_shards_are_exactly_the_unsharded_study() {
    let s = etcd_cluster(3, "10m", "2m");
    let horizon = Duration::from_secs(1800);
    let whole = study(&s, 7, horizon);
    let shards: Vec<StudyReport> = (1..=3)
        .map(|k| {
            let results = shard_trials(7, k, 3)
                .map(|i| run_trial(&s, 5, i, horizon))
                .collect();
            StudyReport::new(&s.name, 7, horizon, 5, format!("{k}/3"), results)
        })
        .collect();
    assert_eq!(shards.iter().map(|r| r.per_trial.len()).sum::<usize>(), 7);
    // Through their JSON, in any order, as `clustersim study merge` reads them.
    let read = |r: &StudyReport| serde_json::from_str::<StudyReport>(&r.to_json()).unwrap();
    let merged =
        StudyReport::merge(vec![read(&shards[2]), read(&shards[0]), read(&shards[1])]).unwrap();
    assert_eq!(merged, whole);
    assert_eq!(merged.to_json(), whole.to_json());
    // A missing shard is refused, naming what is missing.
    let e = StudyReport::merge(vec![shards[0].clone(), shards[1].clone()]).unwrap_err();
    assert!(
        e.message
            .starts_with("2 of 7 trials are missing (the first is trial 2)"),
        "{e:?}"
    );
    // The worst trial replays as a plain run of its seed over the horizon.
    let w = &whole.worst[0];
    let mut replay = s.clone();
    replay.seed = w.seed;
    replay.duration = horizon;
    let report = sim::run_scenario(&replay.to_json()).unwrap();
    assert_eq!(report.summary.etcd.quorum_lost_s, w.etcd_quorum_lost_s);
    assert!(w.etcd_quorum_lost_s > 0.0, "{:?}", whole.worst);
}

#[test]
fn fault_draws_are_prefix_stable_and_follow_their_rates() {
    let s = etcd_cluster(3, "10m", "1m");
    let crashes = |d: u64| -> Vec<(String, f64)> {
        let mut t = s.clone();
        t.duration = Duration::from_secs(d);
        let r = sim::run_scenario(&t.to_json()).unwrap();
        r.events
            .iter()
            .filter(|e| e.kind == "host.crashed")
            .map(|e| (e.host.clone().unwrap(), e.t))
            .collect()
    };
    let short = crashes(3600);
    let long = crashes(4 * 3600);
    assert_eq!(
        long[..short.len()],
        short[..],
        "the first hour does not depend on the duration"
    );
    // Each member fails about once per 11 minutes: ≈ 65 failures in 4 h of 3 members
    // (Poisson: ± 2 standard deviations ≈ 16).
    assert!((49..=81).contains(&long.len()), "{}", long.len());
}

/// The shortcut against plain runs. For etcd alone, quorum depends only on which members are up
/// and connected, so a trial's quorum loss is the same to the millisecond with and without it.
#[test]
fn the_shortcut_changes_no_quorum_loss_of_etcd_alone() {
    use sim::study::{run_trial_traced, Shortcut};
    let s = etcd_cluster(3, "20m", "4m");
    let mut lost = 0.0;
    for i in 0..6 {
        let h = Duration::from_secs(6 * 3600);
        let fast = run_trial_traced(&s, 9, i, h, Shortcut::On, &mut |_| {});
        let plain = run_trial_traced(&s, 9, i, h, Shortcut::Off, &mut |_| {});
        assert_eq!(fast.0, plain.0, "trial {i}");
        lost += plain.0.etcd_quorum_lost_s;
        // When quorum was first lost (where the page opens the trial): the per-second samples'.
        assert_eq!(plain.1.quorum.is_some(), plain.0.etcd_quorum_lost_s > 0.0);
        let (a, b) = (fast.1.quorum.unwrap_or(0.0), plain.1.quorum.unwrap_or(0.0));
        assert!(
            (a - b).abs() <= 1.0,
            "trial {i}: first lost at {a} with the shortcut, {b} without"
        );
    }
    assert!(lost > 0.0, "the trials lost quorum at times");
}

/// With Kubernetes on top, the shortcut keeps the distribution: the same trials with and
/// without it agree within their confidence intervals (API writes, the users' Service), and
/// trial by trial. Masters and workers fail, and a spot worker is reclaimed and replaced (its
/// termination is the world's own timer, which a skip must not cross).
#[test]
fn the_shortcut_keeps_the_figures_of_plain_runs_of_a_cluster() {
    use sim::study::{run_trial_with, Shortcut};
    let s = parse(
        r#"{"version":1,"name":"small","seed":2,"duration":"1h",
        "hosts":[{"name":"m1","roles":["control-plane","etcd"]},{"name":"m2","roles":["control-plane","etcd"]},
                 {"name":"m3","roles":["control-plane","etcd"]},{"name":"lb","roles":["load-balancer"]},
                 {"name":"users","roles":["client"]},{"name":"w1","roles":["worker"]},
                 {"name":"w2","roles":["worker"]},{"name":"w3","roles":["worker"],"spot":true}],
        "workloads":[{"kind":"Deployment","name":"web","replicas":2,"service":true}],
        "faults":[{"hosts":"role:control-plane","mtbf":"2h","mttr":"20m"},
                  {"hosts":"role:worker","mtbf":"3h","mttr":"10m"},
                  {"hosts":"spot","spot_interruptions_every":"90m","replace_after":"5m"}]}"#,
    )
    .unwrap();
    let h = Duration::from_secs(6 * 3600);
    let both = |shortcut| {
        let results = (0..12)
            .map(|i| run_trial_with(&s, 4, i, h, shortcut))
            .collect();
        StudyReport::new(&s.name, 12, h, 4, "1/1".into(), results)
    };
    let (fast, plain) = (both(Shortcut::On), both(Shortcut::Off));
    let api = |r: &StudyReport| r.api.clone().unwrap().write_unavailability;
    let web = |r: &StudyReport| r.services["web"].unavailability.clone();
    for (what, a, b) in [
        (
            "quorum",
            fast.etcd.quorum_unavailability.clone(),
            plain.etcd.quorum_unavailability.clone(),
        ),
        ("api", api(&fast), api(&plain)),
        ("web", web(&fast), web(&plain)),
    ] {
        assert!(
            a.contains(b.mean) && b.contains(a.mean),
            "{what}: shortcut {a:?}, plain {b:?}"
        );
    }
    assert!(
        api(&plain).mean > 0.0,
        "the faults cost API writes: {:?}",
        api(&plain)
    );
    // Trial by trial: the same quorum loss, and the same API and Service losses but for the
    // phase of the periodic steps (a few seconds of a few hundred).
    for (a, b) in fast.per_trial.iter().zip(&plain.per_trial) {
        assert_eq!(
            a.etcd_quorum_lost_s, b.etcd_quorum_lost_s,
            "trial {}",
            a.trial
        );
        let close = |x: f64, y: f64| (x - y).abs() <= 0.004 + 0.25 * y;
        let (aa, ba) = (
            a.api_write_unavailability.unwrap(),
            b.api_write_unavailability.unwrap(),
        );
        assert!(
            close(aa, ba),
            "trial {}: API {aa} with the shortcut, {ba} without",
            a.trial
        );
        let (aw, bw) = (a.services["web"], b.services["web"]);
        assert!(
            close(aw, bw),
            "trial {}: web {aw} with the shortcut, {bw} without",
            a.trial
        );
    }
}

/// Years in seconds: 3 members, MTBF 100 h, MTTR 10 h (the format's example, 2.33 %).
#[test]
fn years_of_three_members_match_the_closed_form() {
    let s = etcd_cluster(3, "100h", "10h");
    let r = study(&s, 48, Duration::from_secs(10 * 365 * 86400));
    let e = &r.etcd.quorum_unavailability;
    let expected = closed_form(3, 10.0 / 110.0);
    assert!((expected - 0.02329).abs() < 1e-4);
    assert!(e.contains(expected), "{e:?}, closed form {expected}");
    assert!(e.ci95[1] - e.ci95[0] < expected / 2.0, "{e:?}");
}

/// Spot workers with replacements: every reclaimed worker is followed, `replace_after` later,
/// by a machine that joins (kubeadm join succeeds while the API answers) and takes pods again.
#[test]
fn reclaimed_spot_workers_are_replaced_and_take_pods_again() {
    let s = parse(
        r#"{"version":1,"name":"spot","seed":3,"duration":"12h",
        "hosts":[{"name":"m1","roles":["control-plane","etcd"]},{"name":"lb","roles":["load-balancer"]},
                 {"name":"users","roles":["client"]},{"name":"w1","roles":["worker"],"spot":true},
                 {"name":"w2","roles":["worker"],"spot":true}],
        "workloads":[{"kind":"Deployment","name":"web","replicas":2,"service":true}],
        "faults":[{"hosts":"spot","spot_interruptions_every":"2h","replace_after":"5m"}]}"#,
    )
    .unwrap();
    let r = sim::run_scenario(&s.to_json()).unwrap();
    let at = |kind: &str| -> Vec<(f64, String)> {
        r.events
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| (e.t, e.host.clone().or(e.node.clone()).unwrap_or_default()))
            .collect()
    };
    let notices = at("host.spot_notice");
    assert!(notices.len() >= 3, "{notices:?}");
    let joins: Vec<_> = r
        .summary
        .operations
        .iter()
        .filter(|o| o.action == "join")
        .collect();
    // Each notice is followed by its replacement 2 min + 5 min later (the last may fall after the end).
    for (t, host) in &notices {
        let replaced = joins
            .iter()
            .any(|o| o.ok && o.host.as_deref() == Some(host) && (o.t - (t + 420.0)).abs() < 0.01);
        assert!(
            replaced || t + 420.0 > 12.0 * 3600.0,
            "{host} at {t}: {joins:?}"
        );
    }
    // And the replacements serve: both pods run at the end, the users barely noticed.
    assert_eq!(r.summary.workloads["web"].final_running, 2);
    assert!(
        r.summary.services["web"].availability > 0.99,
        "{:?}",
        r.summary.services
    );
    let uncordons = r
        .summary
        .operations
        .iter()
        .filter(|o| o.action == "uncordon" && o.ok)
        .count();
    assert_eq!(
        uncordons,
        joins.len(),
        "every replacement's Node is schedulable again"
    );
}

/// Spot etcd hosts replaced by their fault process (the reclaimed member removed, a new one
/// joined as a learner and promoted): the shortcut, which may skip after 3 quiet seconds for etcd
/// alone, never skips over a replacement in progress, so every trial loses exactly the quorum
/// its plain run loses.
#[test]
fn the_shortcut_waits_for_replacements_of_spot_etcd_members() {
    use sim::study::{run_trial_with, Shortcut};
    let s = parse(
        r#"{"version":1,"name":"spot etcd","seed":5,"duration":"1h",
        "hosts":[{"name":"e1","roles":["etcd"],"spot":true},{"name":"e2","roles":["etcd"],"spot":true},
                 {"name":"e3","roles":["etcd"],"spot":true}],
        "faults":[{"hosts":"spot","spot_interruptions_every":"2h","replace_after":"5m"}]}"#,
    )
    .unwrap();
    let h = Duration::from_secs(8 * 3600);
    let mut lost = 0;
    for i in 0..10 {
        let (a, b) = (
            run_trial_with(&s, 9, i, h, Shortcut::On),
            run_trial_with(&s, 9, i, h, Shortcut::Off),
        );
        assert_eq!(a.etcd_quorum_lost_s, b.etcd_quorum_lost_s, "trial {i}");
        lost += usize::from(b.etcd_quorum_lost_s > 0.0);
    }
    // Reclaims every 2 h per master over 8 h: some trials have two close together, most not.
    assert!((1..10).contains(&lost), "{lost} of 10 trials lost quorum");
}

/// Spot etcd members removed on their notice keep the quorum through interruptions close
/// together, where members the replacement removes after the termination lose it (the facts
/// sheet: two reclaims close together in a 3-member cluster lose quorum, since removing a
/// member and adding one both need a quorum).
#[test]
fn members_removed_on_their_notice_keep_the_quorum() {
    let design = |remove: bool| {
        parse(&format!(
            r#"{{"version":1,"name":"spot etcd","seed":5,"duration":"1h",
            "hosts":[{{"name":"e1","roles":["etcd"],"spot":true}},{{"name":"e2","roles":["etcd"],"spot":true}},
                     {{"name":"e3","roles":["etcd"],"spot":true}}],
            "faults":[{{"hosts":"spot","spot_interruptions_every":"2h","replace_after":"5m","remove_on_notice":{remove}}}]}}"#
        ))
        .unwrap()
    };
    let h = Duration::from_secs(8 * 3600);
    let (mut after, mut on_notice) = (0, 0);
    for i in 0..20 {
        after += usize::from(run_trial(&design(false), 9, i, h).etcd_quorum_lost_s > 0.0);
        on_notice += usize::from(run_trial(&design(true), 9, i, h).etcd_quorum_lost_s > 0.0);
    }
    eprintln!("quorum lost in {after} of 20 trials (after termination), {on_notice} (on notice)");
    assert!(
        after >= 2,
        "{after} of 20 trials lost quorum replacing after the termination"
    );
    assert!(
        on_notice * 4 <= after,
        "removed on the notice: {on_notice} of 20 trials lost quorum, against {after}"
    );
}

/// A skip through a settled stretch moves on the clocks of what the cluster will do of its own
/// accord: a lost worker's Node becomes NotReady at the end of its grace period, and its pods are
/// evicted when their tolerations run out, as soon after the skip as the controller-manager's
/// next pass, where the same world without the skip still waits; a spot notice's termination
/// comes as much earlier as the skip.
#[test]
fn a_skip_moves_the_clusters_own_clocks_on() {
    use sim::record::EventKind;
    use sim::world::{Quiet, World};
    let json = |events: &str| {
        format!(
            r#"{{"version":1,"name":"clocks","seed":3,"duration":"2h",
            "hosts":[{{"name":"m1","roles":["control-plane","etcd"]}},{{"name":"w1","roles":["worker"],"spot":true}},
                     {{"name":"w2","roles":["worker"]}},{{"name":"w3","roles":["worker"]}},{{"name":"w4","roles":["worker"]}}],
            "workloads":[{{"kind":"Deployment","name":"batch","replicas":4}}],
            "events":[{events}]}}"#
        )
    };
    // A worker without a CoreDNS pod, so that no route of the cluster's DNS ends at it.
    let mut probe = World::new(parse(&json("")).unwrap());
    probe.run_until(probe.at_report_secs(20.0), u64::MAX);
    let dns: Vec<String> = probe.coredns_servers().into_iter().map(|d| d.0).collect();
    let lost = ["w2", "w3", "w4"]
        .into_iter()
        .find(|w| !dns.iter().any(|h| h == w))
        .unwrap();
    let s = parse(&json(&format!(
        r#"{{"at":"20s","action":"spot_interrupt","host":"w1"}},{{"at":"30s","action":"crash","host":"{lost}"}}"#
    )))
    .unwrap();
    let happened = |w: &World, kind: EventKind, host: &str| {
        (w.record().recorder.events.iter())
            .find(|e| {
                e.kind == kind
                    && (e.host.as_deref() == Some(host) || e.node.as_deref() == Some(host))
            })
            .map(|e| e.t)
    };
    let mut w = World::new(s);
    // The notice's drain is over, the lost worker's grace period is not.
    w.run_until(w.at_report_secs(55.0), u64::MAX);
    let Quiet::Until(grace_end) = w.quiet() else {
        panic!("quiet until the grace period ends: {:?}", w.quiet())
    };
    let terminated = w
        .next_change_at()
        .expect("the spot termination is scheduled");
    assert!(
        grace_end < terminated,
        "the grace period (50 s) ends before the notice's 2 minutes"
    );
    let d = grace_end - w.now();
    // Its last lease renewal came at most 10 s before the crash.
    assert!(d.as_secs_f64() >= 15.0 && d.as_secs_f64() <= 25.0, "{d}");
    let plain = w.clone();
    w.skip(d);
    assert_eq!(w.next_change_at(), Some(terminated - d));
    let step = |w: &mut World, s: f64| w.run_until(w.at_report_secs(w.elapsed_s() + s), u64::MAX);
    let (mut plain, now) = (plain, w.elapsed_s());
    step(&mut w, 6.0);
    step(&mut plain, 6.0);
    let not_ready = happened(&w, EventKind::NodeNotReady, lost).expect("NotReady after the skip");
    assert!(not_ready > now && not_ready <= now + 6.0, "{not_ready}");
    assert_eq!(happened(&plain, EventKind::NodeNotReady, lost), None);
    // Tainted and seen: quiet until the pods' tolerations (300 s) run out.
    step(&mut w, 10.0);
    let Quiet::Until(evicted_at) = w.quiet() else {
        panic!("quiet until the eviction: {:?}", w.quiet())
    };
    assert!(
        (evicted_at - w.now()).as_secs_f64() > 280.0,
        "{evicted_at:?}"
    );
    let to = w.next_change_at().unwrap().min(evicted_at);
    let plain = w.clone();
    let d = to - w.now();
    w.skip(d);
    let (mut plain, now) = (plain, w.elapsed_s());
    step(&mut w, 2.0);
    step(&mut plain, 2.0);
    // The termination came first (the notice's 2 minutes end before the tolerations).
    let gone = happened(&w, EventKind::HostCrashed, "w1").expect("w1 terminated after the skip");
    assert!(gone >= now && gone <= now + 0.001, "{gone}");
    assert_eq!(happened(&plain, EventKind::HostCrashed, "w1"), None);
    assert_eq!(happened(&w, EventKind::PodEvicted, lost), None);
}

/// Lost workers cost the users' requests until their Nodes are NotReady (endpoints removed), 40 to
/// 50 s after the crash depending on when the kubelet last renewed its lease. A skip must not tie
/// that phase to its own rhythm: summed over many failures, the failed requests are the plain
/// runs'. (Skips that ended on the study's grid of checks met the crashes at one phase of the
/// renewals: 7 % fewer failed requests here.) Four studies of 16 trials: one alone differs from
/// its plain runs by up to ±3.5 % by chance (which phases its skips drew).
#[test]
fn skips_meet_faults_at_any_phase_of_the_lease_renewals() {
    use sim::study::{run_trial_with, Shortcut};
    let s = parse(
        r#"{"version":1,"name":"phase","seed":2,"duration":"1h",
        "hosts":[{"name":"m1","roles":["control-plane","etcd"]},{"name":"users","roles":["client"]},
                 {"name":"w1","roles":["worker"]},{"name":"w2","roles":["worker"]},{"name":"w3","roles":["worker"]},
                 {"name":"w4","roles":["worker"]}],
        "workloads":[{"kind":"Deployment","name":"web","replicas":4,"service":true}],
        "faults":[{"hosts":"role:worker","mtbf":"2h","mttr":"2m"}]}"#,
    )
    .unwrap();
    let h = Duration::from_secs(12 * 3600);
    let failed = |shortcut| -> f64 {
        (7..=10)
            .flat_map(|seed| (0..16).map(move |i| (seed, i)))
            .map(|(seed, i)| run_trial_with(&s, seed, i, h, shortcut).services["web"])
            .sum()
    };
    let (fast, plain) = (failed(Shortcut::On), failed(Shortcut::Off));
    assert!(plain > 0.0);
    assert!(
        (fast - plain).abs() <= 0.03 * plain,
        "shortcut {fast}, plain {plain}"
    );
}

/// Kubelets cut off from the API (its load balancer down) renew nothing, though their hosts run:
/// the cluster is quiet only until their grace periods end, and a skip brings that end earlier.
#[test]
fn kubelets_cut_off_from_the_api_are_silent() {
    use sim::record::EventKind;
    use sim::world::{Quiet, World};
    let s = parse(
        r#"{"version":1,"name":"cut off","seed":3,"duration":"1h",
        "hosts":[{"name":"m1","roles":["control-plane","etcd"]},{"name":"lb","roles":["load-balancer"]},
                 {"name":"w1","roles":["worker"]},{"name":"w2","roles":["worker"]}],
        "events":[{"at":"30s","action":"crash","host":"lb"}]}"#,
    )
    .unwrap();
    let mut w = World::new(s);
    w.run_until(w.at_report_secs(45.0), u64::MAX);
    let Quiet::Until(grace_end) = w.quiet() else {
        panic!("quiet until the grace periods end: {:?}", w.quiet())
    };
    // The last lease change the controller saw came at most a renewal and a monitor period
    // before the balancer went.
    let d = grace_end - w.now();
    assert!(d.as_secs_f64() >= 20.0 && d.as_secs_f64() <= 35.0, "{d}");
    w.skip(d);
    let not_ready = |w: &World| {
        (w.record().recorder.events.iter())
            .filter(|e| e.kind == EventKind::NodeNotReady)
            .count()
    };
    w.run_until(w.at_report_secs(51.0), u64::MAX);
    assert!(
        not_ready(&w) >= 1,
        "no Node NotReady 21 s after the balancer went"
    );
    // The kubelets renew apart, so the other Nodes' grace may end up to a stretched period
    // (10.4 s) and a monitor period later, and a NotReady Node on a running host keeps the
    // cluster unquiet until then. All three (m1 is a Node too) are marked by 67 s: a plain run
    // marks none before 69.6 s (a renewal at most 10.4 s before the balancer went at 30 s, then
    // 50 s of grace).
    w.run_until(w.at_report_secs(67.0), u64::MAX);
    assert_eq!(not_ready(&w), 3, "m1, w1 and w2 NotReady by 67 s");
}
