//! The console: kubectl from a host at a moment, through the simulated network. Expected texts
//! are kubectl's (kubectl `pkg/cmd/util/helpers.go` StandardErrorMessage; kubernetes
//! `pkg/printers/internalversion/printers.go` for the columns); expected timings come from the
//! facts sheet (client-go's 30 s dial timeout, etcd's 7 s request timeout). Whole outputs are
//! transcripts (`tests/transcripts/`); these tests check what a transcript cannot show at a
//! glance: timings between two printed times, forks, the world a changing command leaves.

use console::{exec, Output};
use proptest::prelude::*;
use sim::world::World;

fn world_at(json: &str, t: f64) -> World {
    let mut w = World::new(sim::scenario::parse(json).unwrap());
    w.run_until(w.at_report_secs(t), u64::MAX);
    w
}

fn ready(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../web/scenarios/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The first row's `column` of `line`'s table, run from `users` at `t`.
fn cell(json: &str, t: f64, line: &str, column: usize) -> String {
    let w = world_at(json, t);
    let out = run(&w, "users", line);
    let row = out
        .stdout
        .lines()
        .nth(1)
        .unwrap_or_else(|| panic!("{line}: {out:?}"));
    row.split_whitespace().nth(column).unwrap().to_string()
}

fn run(w: &World, from: &str, line: &str) -> Output {
    let (h, _) = w.scenario().host(from).unwrap();
    exec(w, h as u32, line)
}

/// Three masters and no load balancer (kubeconfigs point at m1); w1 isolated at 0:30, m2 and m3
/// crashed at 1:00.
const NO_LB: &str = include_str!("no-lb.json");

#[test]
fn a_crashed_worker_is_ready_until_the_controller_notices_then_not_ready() {
    let json = ready("7-worker-dies");
    let status = |t: f64| cell(&json, t, "kubectl get nodes w3", 1);
    // Crashed at 60 s; the API only learns after the grace period (50 s, facts sheet).
    assert_eq!(status(80.0), "Ready");
    // Ready=Unknown prints NotReady (printers.go looks only at the Ready condition's status).
    assert_eq!(status(130.0), "NotReady");
}

#[test]
fn hostile_text_comes_back_cut_short_and_looking_changes_nothing() {
    // What the tools answer to what they do not know: tests/transcripts/kubectl-unknown.txt.
    let w = world_at(&ready("2-three-masters-one-dies"), 10.0);
    assert_eq!(run(&w, "users", "").status, 0);
    // Hostile text comes back as text, cut short, without control characters.
    let out = run(
        &w,
        "users",
        &format!("kubectl get <script>{}\u{1b}[2J", "x".repeat(500)),
    );
    assert!(
        out.stderr.len() < 200 && !out.stderr.contains('\u{1b}'),
        "{}",
        out.stderr
    );
    // Looking does not change the run: the world is as it was.
    let before = sim::report(&w).to_trace();
    let _ = run(&w, "users", "kubectl get nodes");
    assert_eq!(sim::report(&w).to_trace(), before);
}

/// A line of words drawn from `words`, and now and then any text.
fn line_of(words: &'static [&'static str], most: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        9 => prop::collection::vec(prop::sample::select(words), 0..most).prop_map(|w| w.join(" ")),
        1 => "\\PC{0,40}",
    ]
}

const COMMAND_WORDS: &[&str] = &[
    "kubectl",
    "etcdctl",
    "get",
    "describe",
    "nodes",
    "pods",
    "-o",
    "wide",
    "-n",
    "-A",
    "'",
    "\"",
    "\\",
    "x",
    "--namespace=",
    "-o=json",
    "po",
    "no",
    "member",
    "list",
    "-w",
    "table",
    "endpoint",
    "status",
    "--cluster",
    "-l",
    "app=web",
    "--raw",
    "/readyz",
    "scale",
    "--replicas",
    "3",
    "deploy/web",
    "cordon",
    "w1",
    "all",
    "cm",
    "rollout",
    "--show-labels",
    "--help",
    "-h",
    "sts/db",
    "--replicas=20001",
];

/// Lines of several commands, background jobs and their ports, in any order.
const JOB_WORDS: &[&str] = &[
    "kubectl",
    "port-forward",
    "proxy",
    "svc/web",
    "pod/x",
    "8080:80",
    ":80",
    "8080",
    "-p",
    "0",
    "&",
    ";",
    "&&",
    "curl",
    "localhost:8080",
    "localhost:8001/api/v1/namespaces/default/services/web/proxy/",
    "sleep",
    "1",
    "'",
    "-n",
    "kube-system",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A command line the console does not understand gets an answer and a failing status;
    /// one it runs succeeds with nothing on stderr but kubectl's "No resources" note.
    #[test]
    fn any_command_line_is_answered_never_a_panic(line in line_of(COMMAND_WORDS, 6)) {
        let out = FUZZ_WORLD.with(|w| run(w, "users", &line));
        prop_assert!(
            out.status >= 0
                && (out.status != 0
                    || out.stderr.is_empty()
                    || out.stderr.starts_with("No resources")),
            "{}: {:?}", line, out
        );
    }

    #[test]
    fn any_line_of_jobs_is_answered_in_bounded_time(line in line_of(JOB_WORDS, 9)) {
        let out = FUZZ_WORLD.with(|w| run(w, "users", &line));
        prop_assert!(out.status >= 0 && out.took_s < 200.0, "{}: {:?}", line, out);
    }
}

thread_local! {
    /// The three-master cluster 5 s in, built once for every fuzzed line.
    static FUZZ_WORLD: World = world_at(&ready("2-three-masters-one-dies"), 5.0);
}

/// A leader election identity `hostname_UUID`, split; the UUID checked for its shape (version 4).
fn host_and_uuid(identity: &str) -> (&str, &str) {
    let (host, uuid) = identity.rsplit_once('_').expect(identity);
    let groups: Vec<usize> = uuid.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12], "{identity}");
    assert!(uuid.chars().all(|c| c == '-' || c.is_ascii_hexdigit()) && uuid[14..15] == *"4");
    (host, uuid)
}

#[test]
fn kubectl_shows_who_holds_the_leases() {
    let json = ready("2-three-masters-one-dies");
    let holder = |t: f64| {
        cell(
            &json,
            t,
            "kubectl get leases -n kube-system kube-controller-manager",
            1,
        )
    };
    // m2 held the controller-manager lease and crashes at 60 s; another master takes over
    // after the lease ran out by its own clock (facts: 15 s lease, 2 s retry). A holder is
    // `hostname_UUID`, as kube-controller-manager names itself.
    let before = holder(30.0);
    assert!(host_and_uuid(&before).0 == "m2", "{before}");
    let after = holder(100.0);
    assert!(["m1", "m3"].contains(&host_and_uuid(&after).0), "{after}");
    let w = world_at(&json, 100.0);
    let all = run(&w, "users", "kubectl get leases -A");
    // Every node's lease in kube-node-lease, held by its own kubelet, and the two leader leases.
    assert_eq!(
        all.stdout
            .lines()
            .filter(|l| l.starts_with("kube-node-lease "))
            .count(),
        6
    );
    assert!(all
        .stdout
        .lines()
        .filter(|l| l.starts_with("kube-node-lease "))
        .all(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            c[1] == c[2]
        }));
    assert_eq!(
        all.stdout
            .lines()
            .filter(|l| l.starts_with("kube-system "))
            .count(),
        2
    );
    // The default namespace has none.
    let none = run(&w, "users", "kubectl get leases");
    assert_eq!(none.stderr, "No resources found in default namespace.\n");
}

#[test]
fn workloads_count_the_pods_the_api_holds() {
    let json = ready("7-worker-dies");
    let w = world_at(&json, 30.0);
    let out = run(&w, "users", "kubectl get deployments -A");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "NAMESPACE     NAME      READY   UP-TO-DATE   AVAILABLE   AGE"
    );
    assert!(
        lines[1].starts_with("default       web       3/3     3            3 "),
        "{}",
        out.stdout
    );
    assert!(
        lines[2].starts_with("kube-system   coredns   2/2     2            2 "),
        "{}",
        out.stdout
    );
    let ds = run(&w, "users", "kubectl get ds");
    // One agent pod per Node (three workers and the master).
    assert!(
        ds.stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("agent   4         4         4       4            4           <none>"),
        "{}",
        ds.stdout
    );
    // w3 died at 60 s; its pods were evicted at ≈ 408 s (300 s after the taint). The Deployment has
    // a replacement running; the StatefulSet's db-0 waits, Terminating, for a forced delete.
    let w = world_at(&json, 450.0);
    let sts = run(&w, "users", "kubectl get sts db");
    assert!(
        sts.stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("db     0/1 "),
        "{}",
        sts.stdout
    );
    let web = run(&w, "users", "kubectl get deploy web");
    assert!(
        web.stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("web    3/3 "),
        "{}",
        web.stdout
    );
    let pods = run(&w, "users", "kubectl get pods");
    let terminating: Vec<&str> = pods
        .stdout
        .lines()
        .filter(|l| l.contains(" Terminating "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(terminating.contains(&"db-0"), "{}", pods.stdout);
    assert_eq!(
        terminating.len(),
        2,
        "db-0 and w3's web pod: {}",
        pods.stdout
    );
    assert_eq!(run(&w, "users", "kubectl get sts,ds").status, 1);
}

/// A Deployment's pods belong to its one ReplicaSet, `NAME-HASH` (the pod template's hash written
/// in `456789bcdf`), and are named `NAME-HASH-XXXXX` (five of apimachinery's 27 name characters).
#[test]
fn replica_sets_own_a_deployments_pods_and_count_them() {
    let json = ready("7-worker-dies");
    let rs_rows = |t: f64| {
        let out = run(&world_at(&json, t), "users", "kubectl get rs");
        let lines: Vec<String> = out.stdout.lines().map(String::from).collect();
        assert_eq!(lines.len(), 2, "{}", out.stdout);
        lines[1]
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let row = rs_rows(30.0);
    let rs = row[0].clone();
    let hash = rs.strip_prefix("web-").unwrap();
    assert!((9..=10).contains(&hash.len()), "{rs}");
    assert!(hash.bytes().all(|b| b"456789bcdf".contains(&b)), "{rs}");
    assert_eq!(row[1..4], ["3", "3", "3"]);
    let w = world_at(&json, 30.0);
    let header = run(&w, "users", "kubectl get rs").stdout;
    assert!(
        header.starts_with("NAME            DESIRED   CURRENT   READY   AGE\n"),
        "{header}"
    );
    let pods = run(
        &w,
        "users",
        &format!("kubectl get pods -l pod-template-hash={hash}"),
    );
    let names: Vec<&str> = pods
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "{}", pods.stdout);
    for name in &names {
        let suffix = name.strip_prefix(&format!("{rs}-")).unwrap();
        assert_eq!(suffix.len(), 5, "{name}");
        assert!(
            suffix
                .bytes()
                .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)),
            "{name}"
        );
        let described = run(&w, "users", &format!("kubectl describe pod {name}")).stdout;
        assert!(
            described.contains(&format!("\nControlled By:    ReplicaSet/{rs}\n")),
            "{described}"
        );
        assert!(
            described.contains(&format!(
                "\nLabels:           app=web\n                  pod-template-hash={hash}\n"
            )),
            "{described}"
        );
    }
    // describeReplicaSet: the Deployment's annotations (max-replicas: 3 + 25 % surge rounded up).
    let described = run(&w, "users", &format!("kubectl describe rs {rs}")).stdout;
    let expected = format!(
        "Name:           {rs}\nNamespace:      default\nSelector:       app=web,pod-template-hash={hash}\nLabels:         app=web\n                pod-template-hash={hash}\nAnnotations:    deployment.kubernetes.io/desired-replicas: 3\n                deployment.kubernetes.io/max-replicas: 4\n                deployment.kubernetes.io/revision: 1\nControlled By:  Deployment/web\nReplicas:       3 current / 3 desired\nPods Status:    3 Running / 0 Waiting / 0 Succeeded / 0 Failed\nEvents:\n"
    );
    let (head, events) = described.split_at(expected.len());
    assert_eq!(head, expected);
    // The ReplicaSet controller's SuccessfulCreate for each of its pods.
    let mut created: Vec<&str> = events
        .lines()
        .skip(2)
        .map(|l| l.strip_prefix("  Normal  SuccessfulCreate  ").unwrap_or(l))
        .map(|l| l.rsplit("Created pod: ").next().unwrap())
        .collect();
    created.sort_unstable();
    let mut pods = names.clone();
    pods.sort_unstable();
    assert_eq!(created, pods, "{described}");
    let deploy = run(&w, "users", "kubectl describe deploy web").stdout;
    assert!(deploy.contains(&format!("\nOldReplicaSets:  <none>\nNewReplicaSet:   {rs} (3/3 replicas created)\nEvents:          <none>\n")), "{deploy}");
    assert!(
        deploy.contains("\n  Type           Status  Reason\n"),
        "{deploy}"
    );
    // w3 dies at 60 s: 50 s of grace, then its pod is not ready (READY 2 of 3 still current);
    // evicted ≈ 300 s after the taint, it is Terminating and a replacement counts instead.
    assert_eq!(rs_rows(120.0)[1..4], ["3", "3", "2"]);
    assert_eq!(rs_rows(450.0)[1..4], ["3", "3", "3"]);
    let missing = run(&w, "users", "kubectl get rs web");
    assert_eq!(
        missing.stderr,
        "Error from server (NotFound): replicasets.apps \"web\" not found\n"
    );
}

#[test]
fn scale_and_delete_change_the_cluster_from_the_vantage_host_and_become_events() {
    use sim::scenario::Action;
    let json = ready("7-worker-dies");
    let w = world_at(&json, 120.0);
    let out = run(&w, "users", "kubectl scale deploy web --replicas=5");
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (0, "deployment.apps/web scaled\n")
    );
    assert_eq!(
        out.record,
        Some(Action::Scale {
            workload: "web".into(),
            replicas: 5
        })
    );
    // A read and a write through the balancer: a few milliseconds.
    assert!(out.took_s > 0.0 && out.took_s < 0.1, "{}", out.took_s);
    // Not a Deployment, or not there: kubectl's NotFound, nothing recorded.
    let out = run(&w, "users", "kubectl scale deployment/db --replicas=2");
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): deployments.apps \"db\" not found\n"
    );
    assert_eq!(out.record, None);
    assert_eq!(
        run(&w, "users", "kubectl scale sts/db --replicas=2").stdout,
        "statefulset.apps/db scaled\n"
    );
    assert_eq!(
        run(&w, "users", "kubectl scale deploy web").status,
        1,
        "--replicas is required"
    );
    // db-0 is Terminating on the dead w3 after its eviction: a forced delete lets it go.
    let w = world_at(&json, 450.0);
    let out = run(
        &w,
        "users",
        "kubectl delete pod db-0 --force --grace-period=0",
    );
    assert_eq!(out.stdout, "pod \"db-0\" force deleted\n");
    assert!(out
        .stderr
        .starts_with("Warning: Immediate deletion does not wait"));
    assert_eq!(
        out.record,
        Some(Action::DeletePod {
            pod: "db-0".into(),
            force: true
        })
    );
    assert_eq!(
        run(&w, "users", "kubectl delete po/db-0").stdout,
        "pod \"db-0\" deleted\n"
    );
    assert_eq!(
        run(
            &w,
            "users",
            "kubectl delete pod db-0 --force --grace-period=30"
        )
        .status,
        1
    );
    // Nothing reaches the API from a host that cannot: the error, and no event.
    let w = world_at(&ready("1-only-master-dies"), 120.0);
    let out = run(&w, "users", "kubectl scale deploy web --replicas=1");
    assert!(
        out.stderr.starts_with("Unable to connect to the server"),
        "{}",
        out.stderr
    );
    assert_eq!(out.record, None);
}

#[test]
fn endpoints_drop_a_dead_nodes_pod_once_the_api_marks_it_not_ready() {
    let json = ready("7-worker-dies");
    let addresses = |t: f64| cell(&json, t, "kubectl get endpoints web", 1);
    // Pod addresses come from their node's range: w3 is the scenario's fourth host (10.244.3.x).
    let on_w3 = |a: &str| a.split(',').any(|e| e.starts_with("10.244.3."));
    // w3 crashed at 60 s; NotReady ≈ 107 s (grace 50 s after its last renewal, facts sheet).
    assert!(
        on_w3(&addresses(100.0)),
        "still listed before the API notices"
    );
    let after = addresses(120.0);
    assert!(!on_w3(&after) && after.split(',').count() == 2, "{after}");
    // CoreDNS's Service is kube-dns in kube-system, on port 53.
    let w = world_at(&json, 30.0);
    let all = run(&w, "users", "kubectl get ep -A");
    let dns = all
        .stdout
        .lines()
        .find(|l| l.starts_with("kube-system   kube-dns "))
        .unwrap();
    assert_eq!(
        dns.split_whitespace()
            .nth(2)
            .unwrap()
            .matches(":53")
            .count(),
        2,
        "{dns}"
    );
}

#[test]
fn cordon_marks_the_node_and_becomes_an_event_that_keeps_new_pods_away() {
    use sim::scenario::{Action, Event};
    let json = ready("7-worker-dies");
    let w = world_at(&json, 30.0);
    let out = run(&w, "users", "kubectl cordon w1");
    assert_eq!((out.status, out.stdout.as_str()), (0, "node/w1 cordoned\n"));
    assert_eq!(out.record, Some(Action::Cordon { host: "w1".into() }));
    assert_eq!(
        run(&w, "users", "kubectl uncordon w1").stdout,
        "node/w1 already uncordoned\n"
    );
    assert_eq!(run(&w, "users", "kubectl uncordon w1").record, None);
    // The event replays the cordon: the Node shows SchedulingDisabled, and a scale-up lands
    // elsewhere.
    let mut s = sim::scenario::parse(&json).unwrap();
    s.events.push(Event {
        at: sim::time::Duration::from_secs(30),
        action: Action::Cordon { host: "w1".into() },
    });
    s.events.push(Event {
        at: sim::time::Duration::from_secs(40),
        action: Action::Scale {
            workload: "web".into(),
            replicas: 6,
        },
    });
    let json2 = s.to_json();
    assert_eq!(
        cell(&json2, 45.0, "kubectl get nodes w1", 1),
        "Ready,SchedulingDisabled"
    );
    let w = world_at(&json2, 50.0);
    assert_eq!(
        run(&w, "users", "kubectl cordon w1").stdout,
        "node/w1 already cordoned\n"
    );
    let pods = run(&w, "users", "kubectl get pods -o wide");
    let on_w1: Vec<&str> = pods
        .stdout
        .lines()
        .filter(|l| l.starts_with("web-") && l.split_whitespace().nth(6) == Some("w1"))
        .collect();
    assert_eq!(
        on_w1.len(),
        1,
        "only the pod from before the cordon: {}",
        pods.stdout
    );
    let report = sim::run_scenario(&json2).unwrap();
    assert!(report
        .summary
        .operations
        .iter()
        .any(|o| o.action == "cordon" && o.ok && o.host.as_deref() == Some("w1")));
}

#[test]
fn etcd_member_changes_need_quorum_and_become_events() {
    // A fresh voter while all three run: added, recorded as the event that does it.
    let grow = ready("9-grow-one-master-to-three");
    let w = world_at(&grow, 30.0);
    let out = run(
        &w,
        "m1",
        "etcdctl member add m2 --peer-urls=https://10.0.0.11:2380 --learner",
    );
    assert_eq!(out.status, 0, "{out:?}");
    assert!(
        out.stdout.starts_with("Member ")
            && out
                .stdout
                .contains("ETCD_INITIAL_CLUSTER_STATE=\"existing\"")
    );
    assert_eq!(
        out.record,
        Some(sim::scenario::Action::EtcdMemberAdd {
            host: "m2".into(),
            learner: true
        })
    );
    // Without quorum the change cannot commit: etcdctl's deadline, nothing recorded. (The ID
    // is read while the cluster has its quorum: `member list` is linearizable.)
    let id = run(&world_at(NO_LB, 30.0), "m1", "etcdctl member list")
        .stdout
        .lines()
        .find(|l| l.contains(", m2,"))
        .map(|l| l.split(',').next().unwrap().to_string())
        .unwrap();
    let w = world_at(NO_LB, 90.0);
    let out = run(&w, "m1", &format!("etcdctl member remove {id}"));
    assert_eq!(
        (out.status, out.stderr.lines().last(), out.record.is_none()),
        (1, Some("Error: context deadline exceeded"), true)
    );
    // Before it, the client's warning about the request that ran out of time.
    assert!(
        out.stderr.starts_with("{\"level\":\"warn\""),
        "{}",
        out.stderr
    );
    assert_eq!(run(&w, "m1", "etcdctl member promote xyz").stderr.lines().next().unwrap(),
        "Error: bad member ID arg (strconv.ParseUint: parsing \"xyz\": invalid syntax), expecting ID in Hex");
}

/// A learner promoted before it has caught up is refused at once with etcd's reason (checked
/// against a real etcd 3.5.1 by `cargo xtask reality`), not after the client's deadline; once it
/// has caught up, it is promoted.
#[test]
fn a_learner_is_promoted_once_it_has_caught_up_and_refused_at_once_before() {
    let grow = ready("9-grow-one-master-to-three").replacen(
        "\"events\": [",
        r#""events": [{"at": "30s", "action": "etcd_member_add", "host": "m2", "learner": true},"#,
        1,
    );
    let id = run(&world_at(&grow, 31.0), "m1", "etcdctl member list")
        .stdout
        .lines()
        .find(|l| l.contains("10.0.0.11"))
        .map(|l| l.split(',').next().unwrap().to_string())
        .expect("the learner is listed");
    let promote = format!("etcdctl member promote {id}");
    let out = run(&world_at(&grow, 30.0 + 1e-6), "m1", &promote);
    assert_eq!(
        (out.status, out.stderr.lines().last()),
        (
            1,
            Some(
                "Error: etcdserver: can only promote a learner member which is in sync with leader"
            )
        ),
        "{out:?}"
    );
    assert!(out.took_s < 1.0, "{out:?}");
    assert!(
        out.stderr.contains("code = FailedPrecondition"),
        "{}",
        out.stderr
    );
    let out = run(&world_at(&grow, 35.0), "m1", &promote);
    assert_eq!(out.status, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with(&format!("Member {id} promoted in cluster ")),
        "{out:?}"
    );
}

#[test]
fn kubeadm_join_runs_on_a_standby_host_and_refuses_a_joined_one() {
    let mut s = sim::scenario::parse(&ready("9-grow-one-master-to-three")).unwrap();
    s.events
        .retain(|e| !matches!(e.action, sim::scenario::Action::Join { .. }));
    let json = s.to_json();
    let w = world_at(&json, 30.0);
    // A standby host has no kubeconfig yet.
    assert!(run(&w, "m2", "kubectl get nodes")
        .stderr
        .starts_with("The connection to the server localhost:8080 was refused"));
    let out = run(
        &w,
        "m2",
        "kubeadm join 10.0.0.10:6443 --token abc --control-plane",
    );
    assert_eq!(out.status, 0, "{out:?}");
    assert!(out
        .stdout
        .contains("This node has joined the cluster and a new control plane instance was created"));
    assert_eq!(
        out.record,
        Some(sim::scenario::Action::Join { host: "m2".into() })
    );
    let out = run(&w, "m1", "kubeadm join");
    assert_eq!(out.status, 1);
    assert!(out
        .stderr
        .contains("[ERROR FileAvailable--etc-kubernetes-kubelet.conf]"));
}

/// kube-proxy picks an endpoint at random for each connection: `curl` again and again at one
/// moment reaches the Service's pods in turn, not always the same one; the same lines from the
/// same start reach them in the same order (a run replays exactly).
#[test]
fn each_curl_is_a_new_connection_balanced_anew() {
    let w = world_at(&ready("1-only-master-dies"), 30.0);
    let (h, _) = w.scenario().host("users").unwrap();
    let pods = |jobs: &mut console::Jobs| -> Vec<String> {
        (0..12)
            .map(|_| console::exec_with(&w, h as u32, "curl -s http://web", jobs).stdout)
            .collect()
    };
    let first = pods(&mut console::Jobs::default());
    let distinct: std::collections::BTreeSet<&String> = first.iter().collect();
    assert!(
        distinct.len() >= 2,
        "12 connections all reached one pod: {first:?}"
    );
    assert_eq!(pods(&mut console::Jobs::default()), first);
}

#[test]
fn curl_reaches_a_service_through_dns_and_kube_proxy_and_fails_as_curl_does() {
    let w = world_at(&ready("1-only-master-dies"), 30.0);
    for url in [
        "http://web",
        "web.default.svc.cluster.local",
        "http://worker-2:30080",
    ] {
        let out = run(&w, "users", &format!("curl -s {url}"));
        assert!(out.stdout.starts_with("Hostname: web-"), "{url}: {out:?}");
    }
    assert_eq!(
        run(&w, "users", "curl http://nothing").stderr,
        "curl: (6) Could not resolve host: nothing\n"
    );
    // The users' host is not a node: a ClusterIP is not routed there.
    let out = run(&w, "users", "curl -m 3 10.96.120.80");
    assert_eq!(
        (out.status, out.stderr.as_str()),
        (
            28,
            "curl: (28) Connection timed out after 3001 milliseconds\n"
        )
    );
    // The only master is down at 2 min: kubectl cannot connect, yet the pods keep serving
    // through every worker's NodePort (kube-proxy keeps its last rules).
    let w = world_at(&ready("1-only-master-dies"), 120.0);
    assert!(run(&w, "users", "kubectl get pods")
        .stderr
        .contains("i/o timeout"));
    for node in ["worker-1", "worker-2", "worker-3"] {
        let out = run(&w, "users", &format!("curl http://{node}:30080"));
        assert!(out.stdout.starts_with("Hostname: web-"), "{node}: {out:?}");
    }
}

#[test]
fn force_new_cluster_on_the_survivor_brings_writes_back_and_is_recorded() {
    // Three masters, two die at 60 s: m3's member is alone, no quorum.
    let json = ready("3-three-masters-two-die");
    let mut s = sim::scenario::parse(&json).unwrap();
    s.events
        .retain(|e| e.at < sim::time::Duration::from_secs(90));
    let w = world_at(&s.to_json(), 100.0);
    assert_eq!(run(&w, "m3", "etcdctl endpoint health").status, 1);
    let out = run(
        &w,
        "m3",
        "etcd --force-new-cluster --data-dir=/var/lib/etcd",
    );
    assert_eq!(out.status, 0, "{out:?}");
    assert!(out.stdout.contains("\"msg\":\"forcing restart member\""));
    let action = out.record.expect("recorded");
    assert_eq!(
        action,
        sim::scenario::Action::EtcdForceNewCluster { host: "m3".into() }
    );
    // The run with that event at 100 s: m3 alone is a quorum again, and commits.
    s.events.push(sim::scenario::Event {
        at: sim::time::Duration::from_secs(100),
        action,
    });
    let w = world_at(&s.to_json(), 110.0);
    let health = run(&w, "m3", "etcdctl endpoint health");
    assert_eq!(health.status, 0, "{health:?}");
    assert!(health
        .stdout
        .contains("is healthy: successfully committed proposal"));
    // Anything else is not etcd's job here.
    assert_eq!(run(&w, "m3", "etcd").status, 1);
}

#[test]
fn the_node_is_marked_not_ready_a_grace_period_after_its_last_renewal() {
    // The whole description: tests/transcripts/kubectl-describe.txt.
    let w = world_at(&ready("7-worker-dies"), 110.0);
    let out = run(&w, "users", "kubectl describe node w3");
    assert_eq!(out.status, 0, "{out:?}");
    let text = &out.stdout;
    // The controller marked it (grace, grace + 10 s] after the lease's last renewal (facts sheet,
    // node-monitor-period: 50 s grace, probe time as the controller saw it).
    let time = |label: &str| -> u64 {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap();
        let hms = line.split_whitespace().rev().nth(1).unwrap();
        hms.split(':')
            .fold(0, |t, x| t * 60 + x.parse::<u64>().unwrap())
    };
    let renewed = time("RenewTime:");
    let ready_line = text.lines().find(|l| l.starts_with("  Ready ")).unwrap();
    let marked = ready_line
        .split("  ")
        .filter(|c| c.contains("2025"))
        .nth(1)
        .unwrap();
    let marked = marked
        .split_whitespace()
        .nth(4)
        .unwrap()
        .split(':')
        .fold(0, |t, x| t * 60 + x.parse::<u64>().unwrap());
    assert!(
        (51..=60).contains(&(marked - renewed)),
        "renewed {renewed}, marked {marked}"
    );
}

#[test]
fn endpointslices_hold_the_same_ready_addresses_as_endpoints() {
    let w = world_at(&ready("7-worker-dies"), 110.0);
    let slices = run(&w, "users", "kubectl get endpointslices");
    assert_eq!(slices.status, 0, "{slices:?}");
    // The web Service's slice; the kubernetes Service's (the apiservers) is listed too.
    assert!(slices.stdout.lines().any(|l| l.starts_with("kubernetes ")));
    let row: Vec<&str> = (slices.stdout.lines())
        .find(|l| l.starts_with("web-"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert!(
        row[0].starts_with("web-") && row[0].len() == "web-".len() + 5,
        "{row:?}"
    );
    assert_eq!(&row[1..3], ["IPv4", "80"]);
    let ep = run(&w, "users", "kubectl get endpoints web").stdout;
    let ep_addresses: Vec<&str> = ep
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .split(',')
        .map(|a| a.trim_end_matches(":80"))
        .collect();
    assert_eq!(row[3].split(',').collect::<Vec<_>>(), ep_addresses);
    // Asked by its name, it is found; another name is not.
    assert_eq!(
        run(
            &w,
            "users",
            &format!("kubectl get endpointslice {}", row[0])
        )
        .status,
        0
    );
    assert_eq!(
        run(&w, "users", "kubectl get endpointslice web-zzzzz").stderr,
        "Error from server (NotFound): endpointslices.discovery.k8s.io \"web-zzzzz\" not found\n"
    );
}

#[test]
fn describe_lease_shows_who_leads_and_when_it_last_renewed() {
    // Three masters, m2 (the controller-manager's leader) crashes at 1:00; a standby takes the
    // lease 13–24 s later (facts sheet: lease duration 15 s, retry period 2 s).
    let w = world_at(&ready("2-three-masters-one-dies"), 120.0);
    let out = run(
        &w,
        "users",
        "kubectl describe lease kube-controller-manager -n kube-system",
    );
    assert_eq!(out.status, 0, "{out:?}");
    let text = &out.stdout;
    assert!(text.starts_with("Name:         kube-controller-manager\nNamespace:    kube-system\nLabels:       <none>\nAnnotations:  <none>\nAPI Version:  coordination.k8s.io/v1\nKind:         Lease\nMetadata:\n  Creation Timestamp:  2025-01-01T"), "{text}");
    let field = |label: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap()
            .split_whitespace()
            .last()
            .unwrap()
            .to_string()
    };
    assert_ne!(host_and_uuid(&field("Holder Identity:")).0, "m2", "{text}");
    assert_eq!(field("Lease Duration Seconds:"), "15");
    assert_eq!(field("Lease Transitions:"), "1");
    // Its Events: each acquisition, recorded by the controller-manager that took the lease.
    let events: Vec<Vec<&str>> = text
        .split("\nEvents:\n")
        .nth(1)
        .unwrap()
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let holder = field("Holder Identity:");
    let said: Vec<String> = events.iter().map(|r| r[4..].join(" ")).collect();
    let first = said[0].strip_suffix(" became leader").unwrap();
    assert_eq!(host_and_uuid(first).0, "m2");
    assert_eq!(
        said,
        [
            format!("{first} became leader"),
            format!("{holder} became leader")
        ]
    );
    assert!(
        events
            .iter()
            .all(|r| r[..2] == ["Normal", "LeaderElection"] && r[3] == "kube-controller-manager"),
        "{text}"
    );
    assert_eq!(
        run(&w, "users", "kubectl describe lease nope -n kube-system").stderr,
        "Error from server (NotFound): leases.coordination.k8s.io \"nope\" not found\n"
    );
}

/// Two workers, `web` 2 pods under `minAvailable: 2`, and a DaemonSet.
const BUDGET: &str = r#"{"version":1,"name":"budget","seed":3,"duration":"10m",
 "hosts":[{"name":"m1","roles":["control-plane","etcd"]},{"name":"lb","roles":["load-balancer"]},
  {"name":"w1","roles":["worker"]},{"name":"w2","roles":["worker"]},{"name":"users","roles":["client"]}],
 "workloads":[{"kind":"Deployment","name":"web","replicas":2,"service":true,"pdb":{"min_available":2}},
  {"kind":"DaemonSet","name":"agent"}]}"#;

/// kubectl drain (kubectl `pkg/drain`): DaemonSet pods stop it after the cordon unless
/// `--ignore-daemonsets`; an eviction the budget refuses is printed with "will retry after 5s"
/// and the drain waits (no timeout by default); the drain becomes a `drain` event.
#[test]
fn drain_evicts_through_the_eviction_api_and_waits_on_a_budget() {
    use sim::scenario::Action;
    let w = world_at(BUDGET, 30.0);
    let out = run(&w, "users", "kubectl drain w1");
    assert_eq!(out.status, 1);
    assert_eq!(out.stdout, "node/w1 cordoned\n");
    assert!(
        out.stderr.starts_with("error: unable to drain node \"w1\" due to error: cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/agent-"),
        "{}",
        out.stderr
    );
    assert_eq!(out.record, Some(Action::Cordon { host: "w1".into() }));

    let out = run(&w, "users", "kubectl drain w1 --ignore-daemonsets");
    assert_eq!(out.record, Some(Action::Drain { host: "w1".into() }));
    assert!(
        out.stdout.starts_with("node/w1 cordoned\n"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("drained"), "{}", out.stdout);
    let refused = "(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n";
    assert_eq!(out.stderr.matches(refused).count(), 1, "{}", out.stderr);
    assert!(out
        .stderr
        .contains("Warning: ignoring DaemonSet-managed Pods: default/agent-"));
    assert!(
        out.stderr.contains("still draining after 120 s"),
        "{}",
        out.stderr
    );
    assert!(out.took_s >= 120.0, "{}", out.took_s);

    // Without a budget in the way the drain ends, and says so.
    let free = BUDGET.replace(r#","pdb":{"min_available":2}"#, "");
    let w = world_at(&free, 30.0);
    let out = run(&w, "users", "kubectl drain w1 --ignore-daemonsets");
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.ends_with("node/w1 drained\n"), "{}", out.stdout);
    assert!(
        out.stdout.contains("evicting pod default/web-"),
        "{}",
        out.stdout
    );
    assert!(out.took_s < 30.0, "{}", out.took_s);
    // A host that is not a Node is not found by the API.
    let out = run(&w, "users", "kubectl drain lb --ignore-daemonsets");
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): nodes \"lb\" not found\n"
    );
}

/// Every kubeadm Node runs kube-proxy's DaemonSet pod, so a drain without
/// `--ignore-daemonsets` refuses even where the scenario has no DaemonSet (kubectl's
/// `daemonSetFilter`); a control-plane Node's static pods are mirrored in kube-system and passed
/// over unsaid (`mirrorPodFilter`), as kubectl does.
#[test]
fn drain_refuses_on_every_kubeadm_node_for_kube_proxy_and_skips_static_pods() {
    use sim::scenario::Action;
    let plain = BUDGET.replace(r#","pdb":{"min_available":2}"#, "").replace(
        r#",
  {"kind":"DaemonSet","name":"agent"}"#,
        "",
    );
    assert!(!plain.contains("DaemonSet"), "{plain}");
    let w = world_at(&plain, 30.0);
    let out = run(&w, "users", "kubectl drain w1");
    assert_eq!(out.status, 1);
    assert_eq!(
        out.stderr,
        "error: unable to drain node \"w1\" due to error: cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/kube-proxy-w1, continuing command...\nThere are pending nodes to be drained:\n w1\n"
    );
    assert_eq!(out.record, Some(Action::Cordon { host: "w1".into() }));
    // The control-plane Node: kube-proxy refuses it; its static pods are not named.
    let out = run(&w, "users", "kubectl drain m1");
    assert!(
        out.stderr.contains(
            "Pods (use --ignore-daemonsets to ignore): kube-system/kube-proxy-m1, continuing"
        ),
        "{}",
        out.stderr
    );
    let out = run(&w, "users", "kubectl drain m1 --ignore-daemonsets");
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr,
        "Warning: ignoring DaemonSet-managed Pods: kube-system/kube-proxy-m1\n"
    );
    assert_eq!(out.stdout, "node/m1 cordoned\nnode/m1 drained\n");
    // The static pods and kube-proxy's stay where they run.
    let listed = run(&w, "users", "kubectl get pods -n kube-system -o wide").stdout;
    for pod in [
        "etcd-m1",
        "kube-apiserver-m1",
        "kube-controller-manager-m1",
        "kube-scheduler-m1",
        "kube-proxy-m1",
        "kube-proxy-w1",
        "kube-proxy-w2",
    ] {
        let row = listed.lines().find(|l| l.starts_with(&format!("{pod} ")));
        let row = row.unwrap_or_else(|| panic!("{pod} missing:\n{listed}"));
        assert!(row.contains(" Running "), "{row}");
    }
    // hostNetwork pods have their Node's address (m1 is the first host: 10.0.0.10).
    let row = listed.lines().find(|l| l.starts_with("etcd-m1 ")).unwrap();
    assert!(row.contains(" 10.0.0.10 "), "{row}");
    let described = run(
        &w,
        "users",
        "kubectl describe pod kube-apiserver-m1 -n kube-system",
    )
    .stdout;
    assert!(
        described.contains("Controlled By:    Node/m1"),
        "{described}"
    );
    assert!(
        described.contains("Tolerations:                 :NoExecute op=Exists"),
        "{described}"
    );
}

/// A mirror pod deleted through the API is created again by its kubelet: the static pod never
/// stopped (kubelet `mirror_client.go`).
#[test]
fn a_deleted_mirror_pod_comes_back() {
    let w = world_at(BUDGET, 30.0);
    let out = run(
        &w,
        "users",
        "kubectl delete pod kube-scheduler-m1 -n kube-system",
    );
    assert_eq!(
        out.stdout, "pod \"kube-scheduler-m1\" deleted\n",
        "{}",
        out.stderr
    );
    // The same deletion as a scenario event, run on.
    let deleted = BUDGET.replace(
        r#""workloads""#,
        r#""events":[{"at":"30s","action":"delete_pod","pod":"kube-scheduler-m1"}],"workloads""#,
    );
    // Five seconds later it is a new object: as old as those five seconds, not as the cluster.
    let later = world_at(&deleted, 35.0);
    let listed = run(&later, "users", "kubectl get pods -n kube-system").stdout;
    let row = listed.lines().find(|l| l.starts_with("kube-scheduler-m1 "));
    let row = row.unwrap_or_else(|| panic!("not back:\n{listed}"));
    assert!(row.contains("1/1     Running"), "{row}");
    let age = row.split_whitespace().last().unwrap();
    assert!(["1s", "2s", "3s", "4s", "5s"].contains(&age), "{row}");
}

/// kubectl's PodDisruptionBudget table (`pkg/printers/internalversion/printers.go`,
/// printPodDisruptionBudget): minAvailable 1 over web's 2 healthy pods allows 1 disruption; the
/// first eviction of the 1:00 drains spends it until the replacement is healthy.
#[test]
fn get_pdb_shows_the_disruptions_the_budget_allows() {
    let json = ready("13-drain-two-workers-with-a-budget");
    let out = run(&world_at(&json, 30.0), "users", "kubectl get pdb");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE"
    );
    let cells: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(&cells[..4], ["web", "1", "N/A", "1"], "{}", out.stdout);
    let during = run(
        &world_at(&json, 61.0),
        "users",
        "kubectl get poddisruptionbudgets -A",
    );
    let row: Vec<&str> = during
        .stdout
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        &row[..5],
        ["default", "web", "1", "N/A", "0"],
        "{}",
        during.stdout
    );
    // kubectl's describe (`describePodDisruptionBudget`): the status the controller keeps, one
    // healthy pod of the two while the evicted one's replacement starts.
    let describe = run(&world_at(&json, 61.0), "users", "kubectl describe pdb web");
    assert_eq!(
        describe.stdout,
        "Name:           web\nNamespace:      default\nMin available:  1\nSelector:       app=web\nStatus:\n    Allowed disruptions:  0\n    Current:              1\n    Desired:              1\n    Total:                2\nEvents:                   <none>\n"
    );
    let none = run(
        &world_at(&ready("13-drain-two-workers-without-a-budget"), 30.0),
        "users",
        "kubectl get pdb",
    );
    assert_eq!(
        (none.stdout.as_str(), none.stderr.as_str()),
        ("", "No resources found in default namespace.\n")
    );
}

/// `kubectl describe service`: kubectl's describer layout (`describeService`: labels, selector,
/// type, IPs, each port with its target, node port and the ready addresses of the Service's
/// EndpointSlice), the same addresses `get endpoints` lists, and a dead node's pod gone from
/// them once the API marks it not ready (facts: NotReady ≈ 40–55 s after death).
#[test]
fn describe_service_lists_the_ready_endpoints_of_each_port() {
    let json = ready("7-worker-dies");
    let w = world_at(&json, 100.0);
    let out = run(&w, "users", "kubectl describe svc web").stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("{:<26}web", "Name:"), "{out}");
    let field = |name: &str| -> String {
        let line = out
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {out}"));
        line[26..].to_string()
    };
    assert_eq!(field("Selector:"), "app=web");
    assert_eq!(field("Type:"), "NodePort");
    assert_eq!(field("Port:"), "<unset>  80/TCP");
    assert_eq!(field("TargetPort:"), "80/TCP");
    assert!(field("NodePort:").starts_with("<unset>  3"), "{out}");
    let ep = cell(&json, 100.0, "kubectl get endpoints web", 1);
    assert_eq!(
        field("Endpoints:"),
        ep,
        "describe and get agree (three or fewer addresses)"
    );
    assert!(field("Endpoints:")
        .split(',')
        .any(|a| a.starts_with("10.244.3.")));
    let after = run(
        &world_at(&json, 120.0),
        "users",
        "kubectl describe service web",
    )
    .stdout;
    let endpoints = after.lines().find(|l| l.starts_with("Endpoints:")).unwrap();
    assert!(!endpoints.contains("10.244.3."), "{after}");
    // kube-dns: kubeadm's labels, one block per port, each with CoreDNS's two pods.
    let dns = run(&w, "users", "kubectl describe svc kube-dns -n kube-system").stdout;
    assert!(dns.contains("Labels:                   k8s-app=kube-dns\n                          kubernetes.io/cluster-service=true\n"), "{dns}");
    let blocks: Vec<&str> = dns
        .lines()
        .filter(|l| l.starts_with("Endpoints:"))
        .collect();
    assert_eq!(blocks.len(), 3, "{dns}");
    assert_eq!(blocks[2].matches(":9153").count(), 2, "{dns}");
    // Not there: kubectl's NotFound, and CoreDNS is not a Service in default.
    let missing = run(&w, "users", "kubectl describe svc nope");
    assert_eq!(
        missing.stderr,
        "Error from server (NotFound): services \"nope\" not found\n"
    );
    assert_eq!(run(&w, "users", "kubectl describe svc kube-dns").status, 1);
    assert!(run(&w, "users", "kubectl describe svc kubernetes")
        .stderr
        .contains("kubectl get endpoints kubernetes lists its apiservers"));
}

/// `-l`: equality selectors over the labels the objects carry (a workload's pods `app=NAME`,
/// CoreDNS's `k8s-app=kube-dns`, a Node's hostname, zone and control-plane role), in tables and
/// in `-o json`.
#[test]
fn a_label_selector_picks_pods_and_nodes() {
    let w = world_at(&ready("7-worker-dies"), 30.0);
    let names = |line: &str| -> Vec<String> {
        let out = run(&w, "users", line);
        assert_eq!(out.status, 0, "{line}: {out:?}");
        let column = usize::from(line.contains(" -A"));
        out.stdout
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().nth(column).unwrap().to_string())
            .collect()
    };
    let all = names("kubectl get pods -A");
    let web = names("kubectl get pods -l app=web");
    assert!(
        !web.is_empty() && web.iter().all(|n| n.starts_with("web-")),
        "{web:?}"
    );
    assert_eq!(
        web.len(),
        all.iter().filter(|n| n.starts_with("web-")).count()
    );
    let dns = names("kubectl get pods -n kube-system -l k8s-app=kube-dns");
    assert!(
        dns.len() == 2 && dns.iter().all(|n| n.starts_with("coredns-")),
        "{dns:?}"
    );
    assert_eq!(
        names("kubectl get pods -A --selector=app!=web").len(),
        all.len() - web.len()
    );
    let masters = names("kubectl get nodes -l node-role.kubernetes.io/control-plane");
    let workers = names("kubectl get nodes -l !node-role.kubernetes.io/control-plane");
    assert_eq!(
        masters.len() + workers.len(),
        names("kubectl get nodes").len()
    );
    assert!(masters.iter().all(|m| !workers.contains(m)) && !masters.is_empty());
    let one = names("kubectl get nodes -l kubernetes.io/hostname=w1,kubernetes.io/hostname=w1");
    assert_eq!(one, ["w1"]);
    assert_eq!(
        run(&w, "users", "kubectl get pods -l app=nothing").stderr,
        "No resources found in default namespace.\n"
    );
    let json = run(&w, "users", "kubectl get pods -l app=web -o json").stdout;
    assert_eq!(
        json.matches("\"app\": \"web\"").count(),
        web.len(),
        "{json}"
    );
    assert_eq!(run(&w, "users", "kubectl get deploy -l app=web").status, 1);
    assert_eq!(
        run(&w, "users", "kubectl get pods -l 'app in (web)'").status,
        1
    );
}

/// `kubectl describe deployment`: kubectl's describer layout, the replica counts of the status
/// and its conditions. A worker dies at 60 s; once the API marks its pod not ready (≈ 40–55 s
/// later, facts) one of three is unavailable, and with maxUnavailable 25 % of 3 (0 when rounded
/// down, as the Deployment controller rounds it) the Deployment is no longer Available.
#[test]
fn describe_deployment_counts_available_replicas_and_says_when_too_few_are() {
    let json = ready("7-worker-dies");
    let at = |t: f64| run(&world_at(&json, t), "users", "kubectl describe deploy web").stdout;
    let field = |out: &str, name: &str| -> String {
        let line = out
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {out}"));
        line[name.len()..].trim().to_string()
    };
    let before = at(30.0);
    assert_eq!(
        before.lines().next().unwrap(),
        format!("{:<24}web", "Name:")
    );
    assert_eq!(
        field(&before, "Replicas:"),
        "3 desired | 3 updated | 3 total | 3 available | 0 unavailable"
    );
    assert_eq!(
        field(&before, "  Available"),
        "True    MinimumReplicasAvailable"
    );
    let after = at(130.0);
    assert_eq!(
        field(&after, "Replicas:"),
        "3 desired | 3 updated | 3 total | 2 available | 1 unavailable"
    );
    assert_eq!(
        field(&after, "  Available"),
        "False   MinimumReplicasUnavailable"
    );
    let w = world_at(&json, 30.0);
    assert_eq!(
        run(&w, "users", "kubectl describe deploy nope").stderr,
        "Error from server (NotFound): deployments.apps \"nope\" not found\n"
    );
    let dns = run(
        &w,
        "users",
        "kubectl describe deploy coredns -n kube-system",
    )
    .stdout;
    assert_eq!(field(&dns, "Selector:"), "k8s-app=kube-dns");
}

/// kubectl port-forward holds one connection through the API endpoint, an apiserver and the
/// pod's kubelet: the only master's crash (at 1m) ends it ("lost connection to pod"), while the
/// Service's NodePort keeps serving.
#[test]
fn port_forward_ends_with_the_apiserver_while_the_nodeport_serves() {
    let w = world_at(&ready("1-only-master-dies"), 50.0);
    let out = run(
        &w,
        "users",
        "kubectl port-forward svc/web 8080:80 & curl localhost:8080; sleep 30; curl localhost:8080; curl http://worker-1:30080",
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "Forwarding from 127.0.0.1:8080 -> 80",
            "Forwarding from [::1]:8080 -> 80",
            "Handling connection for 8080",
        ],
        "{out:?}"
    );
    assert!(lines[3].starts_with("Hostname: web-"), "{out:?}");
    // After the crash: no more "Handling connection", but kubectl's exit and the NodePort's
    // answer, in the order a terminal shows them.
    assert_eq!(
        lines[4..6],
        [
            "error: lost connection to pod",
            "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server",
        ],
        "{out:?}"
    );
    assert!(lines[6].starts_with("Hostname: web-"), "{out:?}");
    assert_eq!((lines.len(), out.stderr.as_str()), (7, ""), "{out:?}");
    // The line's status is its last command's: the NodePort answered.
    assert_eq!(out.status, 0);
    assert!((30.0..31.0).contains(&out.took_s), "{}", out.took_s);

    // Started while the master is down: kubectl cannot even read the Service (client-go's 30 s
    // dial), and nothing listens on the local port.
    let w = world_at(&ready("1-only-master-dies"), 120.0);
    let out = run(
        &w,
        "users",
        "kubectl port-forward svc/web 8080:80 & curl localhost:8080",
    );
    assert!(
        out.stdout.starts_with("Unable to connect to the server: dial tcp 10.0.0.10:6443: i/o timeout\ncurl: (7) Failed to connect to localhost port 8080"),
        "{out:?}"
    );
    assert_eq!(out.status, 7);
    // In the background kubectl takes none of the line's time: curl runs at once, as in a shell.
    assert!(out.took_s < 0.1, "{}", out.took_s);
}

/// `A & B` runs B at once, as a shell does; a line stops once it has taken the longest time a
/// run may last (7 days), saying so.
#[test]
fn a_background_command_takes_none_of_the_lines_time_and_a_line_is_bounded() {
    let w = world_at(&ready("7-worker-dies"), 50.0);
    // w3 crashes at 1:00: nodes read at once still show it Ready.
    let out = run(&w, "m1", "sleep 600 & kubectl get nodes");
    assert!(out.took_s < 1.0, "{}", out.took_s);
    let w3 = out.stdout.lines().find(|l| l.starts_with("w3 ")).unwrap();
    assert!(w3.contains(" Ready "), "{}", out.stdout);
    // 200 hours of sleep (on etcd alone, quick to run): stopped after 168, the longest run.
    let w = world_at(&ready("etcd-two-of-three-die"), 10.0);
    let line = vec!["sleep 3600"; 200].join("; ");
    let out = run(&w, "etcd-1", &line);
    assert_eq!(out.status, 2);
    assert_eq!(out.took_s, 7.0 * 24.0 * 3600.0);
    assert!(
        out.stdout.ends_with("console: this line has taken 7 days of simulated time, the longest a run may last: the rest of it is not run\n"),
        "{}",
        &out.stdout[out.stdout.len().saturating_sub(200)..]
    );
}

/// port-forward picks its pod at the start (kubectl's `GetFirstPod`: running and ready first), and
/// the apiserver must reach that pod's kubelet: a crashed worker's pod is still Running in the API
/// for minutes, but the upgrade times out dialing its kubelet.
#[test]
fn port_forward_picks_a_ready_pod_and_dials_its_kubelet() {
    let json = ready("7-worker-dies");
    let w = world_at(&json, 120.0);
    // w3 crashed at 1m; by 2m its Node is NotReady and its pods not ready (40 s grace).
    let out = run(
        &w,
        "users",
        "kubectl port-forward deploy/web 8080:80 & curl localhost:8080",
    );
    let hostname = out.stdout.lines().last().unwrap_or_default();
    let pods = run(&w, "users", "kubectl get pods -o wide").stdout;
    let on_w3: Vec<&str> = pods
        .lines()
        .filter(|l| l.split_whitespace().nth(6) == Some("w3"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(on_w3.contains(&"db-0"), "{pods}");
    assert!(hostname.starts_with("Hostname: web-"), "{out:?}");
    assert!(
        !on_w3.iter().any(|p| hostname.ends_with(p)),
        "{hostname} on w3: {pods}"
    );
    let out = run(&w, "users", "kubectl port-forward pod/db-0 5432:80");
    assert_eq!(
        out.stderr,
        "error: error upgrading connection: error dialing backend: dial tcp 10.0.0.13:10250: i/o timeout\n"
    );
    assert_eq!(out.status, 1);
    assert!((30.0..30.1).contains(&out.took_s), "{}", out.took_s);

    let w = world_at(&json, 30.0);
    for (line, stderr) in [
        ("kubectl port-forward svc/nope 8080:80", "Error from server (NotFound): services \"nope\" not found\n"),
        ("kubectl port-forward svc/web 8080:81", "error: Service web does not have a service port 81\n"),
        ("kubectl port-forward svc/web", "error: TYPE/NAME and list of ports are required for port-forward\nSee 'kubectl port-forward -h' for help and examples\n"),
        ("kubectl port-forward svc/web 8080:x", "error: Error parsing remote port 'x': invalid port\n"),
        ("kubectl port-forward cm/web 8080:80", "error: the server doesn't have a resource type \"cm\"\n"),
    ] {
        let out = run(&w, "users", line);
        assert_eq!((out.stderr.as_str(), out.status), (stderr, 1), "{line}");
    }
    // kubeadm names CoreDNS's Service kube-dns: there is no Service named coredns.
    let out = run(
        &w,
        "users",
        "kubectl port-forward -n kube-system svc/coredns 5353:53",
    );
    assert_eq!(
        out.stderr,
        "Error from server (NotFound): services \"coredns\" not found\n"
    );
    // In the foreground it runs until stopped: the console says how to use it.
    let out = run(&w, "users", "kubectl port-forward svc/web 8080:80");
    assert_eq!(out.status, 0);
    assert!(out.stderr.contains("& curl localhost:8080"), "{out:?}");
    // Whatever flags come first, the rest of the line waits for it, as in a shell; a forward
    // that did not start lets the line go on.
    let out = run(
        &w,
        "users",
        "kubectl -n default port-forward svc/web 8080:80; curl localhost:8080",
    );
    assert!(!out.stdout.contains("Hostname:"), "{out:?}");
    let out = run(
        &w,
        "users",
        "kubectl -n default port-forward svc/nope 8080:80; curl http://web",
    );
    assert!(out.stdout.contains("Hostname: web-"), "{out:?}");
    // Two forwards on one port: the second cannot listen.
    let out = run(
        &w,
        "users",
        "kubectl port-forward svc/web 8080:80 & kubectl port-forward pod/db-0 8080:80",
    );
    assert!(
        out.stdout
            .ends_with("error: unable to listen on any of the requested ports: [{8080 80}]\n"),
        "{out:?}"
    );
    assert_eq!(out.status, 1);
}

/// kubectl proxy asks the API endpoint anew for every request, and the apiserver connects to one
/// of the Service's ready endpoints; with the API gone, kubectl logs the dial error and answers
/// it as the body (HTTP 500), while the NodePort keeps serving.
#[test]
fn kubectl_proxy_serves_a_service_through_the_apiserver() {
    let json = ready("1-only-master-dies");
    let path = "curl localhost:8001/api/v1/namespaces/default/services/web/proxy/";
    let w = world_at(&json, 30.0);
    let out = run(&w, "users", &format!("kubectl proxy & {path}"));
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "Starting to serve on 127.0.0.1:8001");
    assert!(lines[1].starts_with("Hostname: web-"), "{out:?}");
    assert_eq!((out.stderr.as_str(), out.status), ("", 0));
    let missing = run(
        &w,
        "users",
        "kubectl proxy & curl localhost:8001/api/v1/namespaces/default/services/nope/proxy/",
    );
    assert!(
        missing.stdout.contains("\"message\": \"services \\\"nope\\\" not found\",\n  \"reason\": \"NotFound\",\n  \"code\": 404"),
        "{missing:?}"
    );

    let w = world_at(&json, 120.0);
    let out = run(
        &w,
        "users",
        &format!(
            "kubectl proxy -p 9000 & {}; curl worker-2:30080",
            path.replace("8001", "9000")
        ),
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines[0], "Starting to serve on 127.0.0.1:9000");
    // kubectl's log line: severity, date, time (when the dial gave up), pid, file:line.
    let log: Vec<&str> = lines[1].split_whitespace().collect();
    assert!(log[0].starts_with("E0101"), "{out:?}");
    assert_eq!(
        log[3..].join(" "),
        "proxy_server.go:147] Error while proxying request: dial tcp 10.0.0.10:6443: i/o timeout"
    );
    // The body curl prints: the error, as kubectl's proxy answers it (HTTP 500).
    assert_eq!(lines[2], "dial tcp 10.0.0.10:6443: i/o timeout");
    assert!(lines[3].starts_with("Hostname: web-"), "{out:?}");
    assert!((30.0..30.1).contains(&out.took_s), "{}", out.took_s);
}

/// A line of several commands: `;` runs the next, `&&` only after a success, and the line's copy
/// of the cluster moves on by the time each took (`sleep` too). A command that changes the cluster
/// runs alone, so its event is recorded at the moment it ran.
#[test]
fn a_line_runs_its_commands_in_order_on_one_copy() {
    let w = world_at(&ready("1-only-master-dies"), 50.0);
    // 50 s + 20 s: the master crashed at 1m.
    let out = run(&w, "users", "sleep 20; kubectl get nodes");
    assert!(
        out.stdout.starts_with("Unable to connect to the server"),
        "{out:?}"
    );
    assert!((50.0..50.1).contains(&out.took_s), "{}", out.took_s);
    let out = run(&w, "users", "sleep 2x && kubectl get nodes");
    // Both streams in order on stdout; kubectl never ran.
    assert_eq!(
        (out.stdout.as_str(), out.status),
        ("sleep: invalid time interval '2x'\n", 1)
    );
    let out = run(
        &w,
        "users",
        "sleep 1 && kubectl get nodes; kubectl get pods",
    );
    assert_eq!(out.stdout.matches("NAME ").count(), 2, "{out:?}");
    let out = run(&w, "users", "kubectl cordon worker-1; kubectl get nodes");
    assert_eq!(
        (out.stderr.as_str(), out.record.is_none()),
        (
            "console: a command that changes the cluster runs on a line of its own\n",
            true
        )
    );
    let out = run(&w, "users", "kubectl get nodes ; ; ");
    assert_eq!(
        out.stderr,
        "console: syntax error near unexpected token `;'\n"
    );
}

/// `kubectl describe statefulset|daemonset`, laid out as kubectl's `describeStatefulSet` and
/// `describeDaemonSet` (one tabwriter: the lines without a tab, the DaemonSet's node counts,
/// end an aligned block). w3 crashes at 1m; its Node is NotReady within the 50 s grace + 10 s of
/// its last renewal (facts sheet, node-monitor-grace-period), so by 2:10 its pods are not ready,
/// yet still Running in the API (nobody updates a dead kubelet's pods).
#[test]
fn describe_statefulset_and_daemonset_as_kubectl_lays_them_out() {
    let json = ready("7-worker-dies");
    let w = world_at(&json, 130.0);
    let sts = run(&w, "users", "kubectl describe sts db").stdout;
    let lines: Vec<&str> = sts.lines().collect();
    assert_eq!(lines[0], "Name:               db");
    assert_eq!(
        lines[6..],
        [
            "Replicas:           1 desired | 1 total",
            "Update Strategy:    RollingUpdate",
            "  Partition:        0",
            "Pods Status:        1 Running / 0 Waiting / 0 Succeeded / 0 Failed",
            "Volume Claims:  <none>",
            // A line without a tab ends the block; then DescribeEvents' own table.
            "Events:",
            "  Type    Reason            Age    From                    Message",
            "  ----    ------            ----   ----                    -------",
            "  Normal  SuccessfulCreate  2m29s  statefulset-controller  create Pod db-0 in StatefulSet db successful",
        ]
    );
    let ds = run(&w, "users", "kubectl describe daemonset agent").stdout;
    let lines: Vec<&str> = ds.lines().collect();
    assert_eq!(
        lines[..4],
        [
            "Name:           agent",
            "Namespace:      default",
            "Selector:       app=agent",
            "Node-Selector:  <none>",
        ]
    );
    assert_eq!(
        lines[6..12],
        [
            "Desired Number of Nodes Scheduled: 4",
            "Current Number of Nodes Scheduled: 4",
            "Number of Nodes Scheduled with Up-to-date Pods: 4",
            "Number of Nodes Scheduled with Available Pods: 3",
            "Number of Nodes Misscheduled: 0",
            "Pods Status:  4 Running / 0 Waiting / 0 Succeeded / 0 Failed",
        ]
    );
    let early = run(&world_at(&json, 50.0), "users", "kubectl describe ds agent").stdout;
    assert!(early.contains("Available Pods: 4\n"), "{early}");
    assert_eq!(
        run(&w, "users", "kubectl describe sts web").stderr,
        "Error from server (NotFound): statefulsets.apps \"web\" not found\n"
    );
}

/// The LAST SEEN column in seconds ("48s", "5m43s", "2m"), as kubectl's HumanDuration writes it.
fn seconds_of(age: &str) -> u64 {
    let (m, s) = match age.split_once('m') {
        Some((m, s)) => (m.parse::<u64>().unwrap(), s.trim_end_matches('s')),
        None => (0, age.trim_end_matches('s')),
    };
    m * 60
        + if s.is_empty() {
            0
        } else {
            s.parse::<u64>().unwrap()
        }
}

/// `kubectl get events`: what each component recorded once its write went through, in the
/// words of its source (printers.go `printEvent` columns; messages of the ReplicaSet, StatefulSet
/// and DaemonSet controllers, the scheduler, the kubelet, the node lifecycle and taint eviction
/// controllers, and client-go's leader election), at the times the facts sheet gives.
#[test]
fn events_tell_what_each_component_did_when_it_did() {
    let json = ready("7-worker-dies");
    let w = world_at(&json, 30.0);
    let out = run(&w, "users", "kubectl get events");
    assert_eq!(out.status, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("LAST SEEN   TYPE     REASON "),
        "{}",
        out.stdout
    );
    let rows: Vec<Vec<&str>> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    // Every web pod: created by its ReplicaSet, bound where `get pods -o wide` has it, started.
    let pods = run(&w, "users", "kubectl get pods -o wide -l app=web").stdout;
    let rs = cell(&json, 30.0, "kubectl get rs", 0);
    for pod in pods.lines().skip(1) {
        let c: Vec<&str> = pod.split_whitespace().collect();
        let (name, node) = (c[0], c[6]);
        let said = |reason: &str, object: &str, message: &str| {
            rows.iter()
                .any(|r| r[2] == reason && r[3] == object && r[4..].join(" ") == message)
        };
        assert!(
            said(
                "SuccessfulCreate",
                &format!("replicaset/{rs}"),
                &format!("Created pod: {name}")
            ),
            "{name}: {}",
            out.stdout
        );
        assert!(
            said(
                "Scheduled",
                &format!("pod/{name}"),
                &format!("Successfully assigned default/{name} to {node}")
            ),
            "{name}: {}",
            out.stdout
        );
        assert!(
            said("Started", &format!("pod/{name}"), "Started container web"),
            "{name}: {}",
            out.stdout
        );
    }
    let said = |object: &str, message: &str| {
        rows.iter()
            .any(|r| r[3] == object && r[4..].join(" ") == message)
    };
    assert!(
        said(
            "statefulset/db",
            "create Pod db-0 in StatefulSet db successful"
        ),
        "{}",
        out.stdout
    );
    assert!(
        said("daemonset/agent", "Created pod: agent-w3"),
        "{}",
        out.stdout
    );
    // kube-system holds CoreDNS's and the leader elections', by who holds each lease.
    let system = run(&w, "users", "kubectl get events -n kube-system").stdout;
    for lease in ["kube-controller-manager", "kube-scheduler"] {
        let holder = cell(
            &json,
            30.0,
            &format!("kubectl get leases -n kube-system {lease}"),
            1,
        );
        let object = format!("lease/{lease}");
        let words = ["LeaderElection", &object, &holder, "became", "leader"];
        assert!(
            system
                .lines()
                .any(|l| l.split_whitespace().skip(2).eq(words.iter().copied())),
            "{system}"
        );
    }
    assert!(
        system.lines().skip(1).all(|l| !l.contains("default/")),
        "{system}"
    );
    let all = run(&w, "users", "kubectl get ev -A").stdout;
    assert!(
        all.starts_with("NAMESPACE     LAST SEEN   TYPE     REASON"),
        "{all}"
    );
    assert_eq!(
        all.lines().count(),
        out.stdout.lines().count() + system.lines().count() - 1
    );

    // w3 dies at 60 s: 50 s without its lease renewed (plus up to a 5 s monitor period, less up
    // to a 10 s renewal interval) and the node controller marks it, warning on each of its pods;
    // 300 s later the taint eviction controller deletes them, and the ReplicaSet replaces web's.
    let w = world_at(&json, 450.0);
    let out = run(&w, "users", "kubectl get events").stdout;
    let row = |reason: &str, object_prefix: &str| -> Vec<&str> {
        out.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|r| r.len() > 3 && r[2] == reason && r[3].starts_with(object_prefix))
            .unwrap_or_else(|| panic!("{reason} {object_prefix}: {out}"))
    };
    let not_ready = row("NodeNotReady", "node/w3");
    assert_eq!(
        not_ready[4..].join(" "),
        "Node w3 status is now: NodeNotReady"
    );
    let marked = 450 - seconds_of(not_ready[0]);
    assert!((100..=115).contains(&marked), "{marked}: {out}");
    let warned = row("NodeNotReady", "pod/db-0");
    assert_eq!(
        (warned[1], warned[4..].join(" ").as_str()),
        ("Warning", "Node is not ready")
    );
    let evicted = row("TaintManagerEviction", "pod/db-0");
    assert_eq!(
        evicted[4..].join(" "),
        "Marking for deletion Pod default/db-0"
    );
    let evicted_at = 450 - seconds_of(evicted[0]);
    assert!(
        (marked + 300..=marked + 305).contains(&evicted_at),
        "{evicted_at}: {out}"
    );
    let creates = out
        .lines()
        .filter(|l| l.contains(&format!("replicaset/{rs}")))
        .count();
    assert_eq!(creates, 4, "three at the start and w3's replacement: {out}");
    // Filtered by field and sorted by time, as people ask for one pod's story.
    let story = run(
        &w,
        "users",
        "kubectl get events --field-selector involvedObject.name=db-0 --sort-by=.lastTimestamp",
    )
    .stdout;
    let reasons: Vec<&str> = story
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "Scheduled",
            "Started",
            "NodeNotReady",
            "TaintManagerEviction"
        ],
        "{story}"
    );
    let warnings = run(
        &w,
        "users",
        "kubectl get events --field-selector type=Warning",
    )
    .stdout;
    assert!(
        warnings.lines().skip(1).all(|l| l.contains(" Warning ")),
        "{warnings}"
    );
    assert_eq!(warnings.lines().count(), 4, "w3's three pods: {warnings}");
    let on_w3 = run(
        &w,
        "users",
        "kubectl get pods -A --field-selector spec.nodeName=w3",
    )
    .stdout;
    // Its three pods and kube-proxy's, under the header.
    assert_eq!(on_w3.lines().count(), 5, "{on_w3}");
    assert_eq!(
        run(&w, "users", "kubectl get nodes --field-selector x=y").status,
        1
    );
    assert_eq!(
        run(&w, "users", "kubectl get events --sort-by=.count").status,
        1
    );
    // describe ends with the object's Events, oldest first, From the recording component.
    let described = run(&w, "users", "kubectl describe pod db-0").stdout;
    let tail: Vec<Vec<&str>> = described
        .split("\nEvents:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{described}"))
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(tail[0], ["Type", "Reason", "Age", "From", "Message"]);
    let seen: Vec<(&str, &str)> = tail[2..].iter().map(|r| (r[1], r[3])).collect();
    assert_eq!(
        seen,
        [
            ("Scheduled", "default-scheduler"),
            ("Started", "kubelet"),
            ("NodeNotReady", "node-controller"),
            ("TaintManagerEviction", "taint-eviction-controller"),
        ],
        "{described}"
    );
    // By name (the object's name and the time in hexadecimal nanoseconds), or not found.
    let by_name = run(&w, "users", "kubectl get events -o wide");
    assert_eq!(by_name.status, 1);
    // As objects: -o yaml lists them by the names the recorder gives (object.hex-nanoseconds);
    // describe prints one through kubectl's generic describer.
    let yaml = run(&w, "users", "kubectl get events -o yaml").stdout;
    assert!(
        yaml.starts_with("apiVersion: v1\nitems:\n- apiVersion: v1\n  count: 1\n"),
        "{yaml}"
    );
    let name = yaml
        .lines()
        .filter_map(|l| l.strip_prefix("    name: "))
        .find(|n| n.starts_with("db-0."))
        .unwrap();
    let described = run(&w, "users", &format!("kubectl describe event {name}")).stdout;
    for line in [
        format!("Name:             {name}\n"),
        "Involved Object:\n  API Version:   v1\n  Kind:          Pod\n  Name:          db-0\n"
            .to_string(),
        "Reason:                Scheduled\n".into(),
        "Source:\n  Component:  default-scheduler\n".into(),
    ] {
        assert!(described.contains(&line), "{line}: {described}");
    }
    assert_eq!(
        run(&w, "users", "kubectl describe event nope").stderr,
        "Error from server (NotFound): events \"nope\" not found\n"
    );
    let missing = run(&w, "users", "kubectl get events web.17");
    assert_eq!(
        missing.stderr,
        "Error from server (NotFound): events \"web.17\" not found\n"
    );

    // Through the API like any list: with the only master down, kubectl cannot connect.
    let down = world_at(&ready("1-only-master-dies"), 75.0);
    let out = run(&down, "users", "kubectl get events");
    assert_eq!(out.status, 1);
    assert!(
        out.stderr
            .starts_with("Unable to connect to the server: dial tcp "),
        "{out:?}"
    );

    // The apiserver keeps an Event one hour after its write: past 1:00:00, the boot's are gone.
    let long = json.replace("\"duration\": \"10m\"", "\"duration\": \"70m\"");
    assert_ne!(long, json);
    let later = run(&world_at(&long, 3_620.0), "users", "kubectl get events").stdout;
    // The boot's (agent-m1 was created, bound and started then) are gone, the later ones stay.
    assert!(!later.contains("pod/agent-m1"), "{later}");
    assert!(later.contains("TaintManagerEviction"), "{later}");
    assert!(
        later
            .lines()
            .skip(1)
            .all(|l| seconds_of(l.split_whitespace().next().unwrap()) < 3_600),
        "{later}"
    );
}

/// `kubectl describe endpoints|endpointslice` as kubectl's `describeEndpoints` and
/// `describeEndpointSliceV1` lay them out: ready addresses, and the pods with an address that
/// are not ready (w3's, once the node controller marked it), never a terminating one.
#[test]
fn describe_endpoints_splits_ready_and_not_ready_addresses() {
    let json = ready("7-worker-dies");
    let w = world_at(&json, 130.0);
    let pods = run(&w, "users", "kubectl get pods -o wide -l app=web").stdout;
    let on = |node: &str| -> Vec<String> {
        pods.lines()
            .skip(1)
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|c| (node == "w3") == (c[6] == "w3"))
            .map(|c| c[5].to_string())
            .collect()
    };
    let mut ready = on("w1");
    ready.sort();
    let out = run(&w, "users", "kubectl describe endpoints web").stdout;
    let expected = format!(
        "Name:         web\nNamespace:    default\nLabels:       app=web\nAnnotations:  <none>\nSubsets:\n  Addresses:          {}\n  NotReadyAddresses:  {}\n  Ports:\n    Name     Port  Protocol\n    ----     ----  --------\n    <unset>  80    TCP\n\nEvents:  <none>\n",
        ready.join(","),
        on("w3").join(",")
    );
    assert_eq!(out, expected);
    // The web Service's slice (the kubernetes Service's, the apiservers, comes first).
    let slices = run(&w, "users", "kubectl get endpointslices").stdout;
    let slice = (slices.lines().find(|l| l.starts_with("web-")))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_string();
    let out = run(
        &w,
        "users",
        &format!("kubectl describe endpointslice {slice}"),
    )
    .stdout;
    assert!(out.starts_with(&format!("Name:         {slice}\nNamespace:    default\nLabels:       app=web\n              endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io\n              kubernetes.io/service-name=web\nAnnotations:  <none>\nAddressType:  IPv4\nPorts:\n  Name     Port  Protocol\n  ----     ----  --------\n  <unset>  80    TCP\nEndpoints:\n")), "{out}");
    let readiness: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("      Ready:    "))
        .collect();
    assert_eq!(readiness, ["true", "true", "false"], "{out}");
    assert!(out.contains("    NodeName:   w3\n"), "{out}");
    // After the eviction: w3's pod is terminating (left out), its replacement is ready.
    let later = run(
        &world_at(&json, 450.0),
        "users",
        "kubectl describe endpoints web",
    )
    .stdout;
    assert!(later.contains("  NotReadyAddresses:  <none>\n"), "{later}");
    let addresses = later
        .lines()
        .find_map(|l| l.strip_prefix("  Addresses:          "))
        .unwrap();
    assert_eq!(addresses.split(',').count(), 3, "{later}");
    assert_eq!(
        run(&w, "users", "kubectl describe endpointslice web").stderr,
        "Error from server (NotFound): endpointslices.discovery.k8s.io \"web\" not found\n"
    );
}

/// A port-forward left in the background (`&`) serves the host's next lines, as in a shell,
/// until its connection breaks (the only master dies at 1:00); one in the foreground ends with
/// its line (as Ctrl-C ends it), and a line run at an earlier moment has not got it yet.
#[test]
fn background_jobs_last_across_lines_of_one_host() {
    let json = ready("1-only-master-dies");
    let at = |t: f64| world_at(&json, t);
    let (users, _) = at(0.0).scenario().host("users").unwrap();
    let users = users as u32;
    let mut jobs = console::Jobs::default();
    let w50 = at(50.0);
    let started = console::exec_with(
        &w50,
        users,
        "kubectl port-forward svc/web 8080:80 &",
        &mut jobs,
    );
    assert!(
        started
            .stdout
            .starts_with("Forwarding from 127.0.0.1:8080 -> 80\n"),
        "{started:?}"
    );
    let next = console::exec_with(&w50, users, "curl localhost:8080", &mut jobs);
    assert!(
        next.stdout
            .contains("Handling connection for 8080\nHostname: web-"),
        "{next:?}"
    );
    // Another host has its own jobs (localhost is its own).
    let (m, _) = w50.scenario().host("worker-1").unwrap();
    let elsewhere = console::exec_with(
        &w50,
        m as u32,
        "curl localhost:8080",
        &mut console::Jobs::default(),
    );
    assert!(
        elsewhere
            .stderr
            .starts_with("curl: (7) Failed to connect to localhost port 8080"),
        "{elsewhere:?}"
    );
    // Earlier than the job: it does not exist there (and is gone for good).
    let mut early_jobs = jobs.clone();
    let early = console::exec_with(&at(40.0), users, "curl localhost:8080", &mut early_jobs);
    assert!(early.stderr.starts_with("curl: (7)"), "{early:?}");
    // After the master's crash at 1:00 the forward's apiserver is gone: kubectl exits.
    let after = console::exec_with(&at(70.0), users, "curl localhost:8080", &mut jobs);
    assert!(
        after
            .stderr
            .starts_with("error: lost connection to pod\ncurl: (7)"),
        "{after:?}"
    );
    // Foreground: the line's end stops it.
    let mut fg = console::Jobs::default();
    console::exec_with(&w50, users, "kubectl port-forward svc/web 8081:80", &mut fg);
    let gone = console::exec_with(&w50, users, "curl localhost:8081", &mut fg);
    assert!(
        gone.stderr
            .starts_with("curl: (7) Failed to connect to localhost port 8081"),
        "{gone:?}"
    );
}

/// etcd gives every `member add` a new ID: after m1's reclaimed machine is replaced (13:25 in
/// the ready scenario: its member removed, a new one joined), `member list` shows m1 with
/// another ID, and the old ID is gone.
#[test]
fn a_replaced_member_is_listed_with_a_new_id() {
    let json = ready("6-spot-replaced-automatically");
    let id_of = |t: f64, name: &str| -> String {
        let w = world_at(&json, t);
        let out = run(&w, "m2", "etcdctl member list");
        let line = (out.stdout.lines())
            .find(|l| l.split(", ").nth(2) == Some(name))
            .unwrap_or_else(|| panic!("{name} at {t}: {}", out.stdout));
        line.split(", ").next().unwrap().to_string()
    };
    let before = id_of(300.0, "m1");
    let after = id_of(900.0, "m1");
    assert_ne!(before, after);
    let w = world_at(&json, 900.0);
    let list = run(&w, "m2", "etcdctl member list").stdout;
    assert_eq!(list.lines().count(), 3, "{list}");
    assert!(!list.contains(&before), "{list}");
    // The new ID is the one `member remove` takes; the old one is not found.
    let gone = run(&w, "m2", &format!("etcdctl member remove {before}"));
    assert_eq!(
        gone.stderr.lines().last(),
        Some("Error: etcdserver: member not found")
    );
    // The client's warning before it carries the server's gRPC code.
    assert!(gone
        .stderr
        .contains("code = NotFound desc = etcdserver: member not found"));
    assert_eq!(
        id_of(300.0, "m2"),
        id_of(900.0, "m2"),
        "m2 was not replaced"
    );
    // After 1:02:14 the replacements of m3 and m1 could not remove the reclaimed members, and
    // quorum never comes back: `member list`, linearizable in etcd 3.5, fails at etcdctl's 5 s
    // command timeout.
    let w = world_at(&json, 3800.0);
    let out = run(&w, "m2", "etcdctl member list");
    assert_eq!(
        (out.status, out.stderr.lines().last()),
        (1, Some("Error: context deadline exceeded"))
    );
    assert_eq!(out.took_s, 5.0);
}
