//! The import of a real cluster (docs/scenario-format.md, "Import a real cluster"), on what
//! `kubectl get … -o yaml|json` prints for a kubeadm cluster with stacked etcd and kube-vip, and
//! for a managed one (no control-plane Node, as EKS shows it).

use serde_json::{json, Value};

fn file(name: &str) -> String {
    let path = format!("{}/tests/clusters/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn import(names: &[&str]) -> (Value, Vec<String>) {
    let texts: Vec<(String, String)> = names.iter().map(|n| (n.to_string(), file(n))).collect();
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let imported = import::import(&files, Some("shop")).unwrap_or_else(|e| panic!("{e}"));
    (
        serde_json::from_str(&imported.scenario.to_json()).unwrap(),
        imported.notes,
    )
}

/// A dump given as text, imported: the scenario as JSON, and the notes.
fn imported(dump: &str) -> (Value, Vec<String>) {
    let imported = import::import(&[("dump.yaml", dump)], None).unwrap_or_else(|e| panic!("{e}"));
    let s = serde_json::from_str(&imported.scenario.to_json()).unwrap();
    (s, imported.notes)
}

/// How many worker hosts the imported scenario has.
fn workers(imported: &import::Imported) -> usize {
    let hosts = imported.scenario.hosts.iter();
    hosts.filter(|h| h.is_worker()).count()
}

fn host<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == name)
        .unwrap_or_else(|| panic!("no host {name} in {s}"))
}

fn workload<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("no workload {name}"))
}

#[test]
fn a_kubeadm_cluster_keeps_its_nodes_zones_control_plane_and_capacity() {
    let (s, _) = import(&["kubeadm.yaml", "kube-system.yaml"]);
    assert_eq!(
        s["zones"],
        json!(["eu-west-1a", "eu-west-1b", "eu-west-1c"])
    );
    // Names made DNS labels; the zone from either label; stacked etcd where kube-system runs an
    // etcd static pod; allocatable as the Node reports it.
    let cp1 = host(&s, "cp-1-example-internal");
    assert_eq!(cp1["roles"], json!(["control-plane", "etcd"]));
    assert_eq!(
        (cp1["cpu"].as_str(), cp1["memory"].as_str()),
        (Some("3920m"), Some("16130364Ki"))
    );
    let cp3 = host(&s, "cp-3-example-internal");
    assert_eq!(
        cp3["zone"], "eu-west-1c",
        "failure-domain.beta.kubernetes.io/zone"
    );
    assert_eq!(
        cp3["roles"],
        json!(["control-plane", "etcd"]),
        "the master role label"
    );
    assert_eq!(host(&s, "worker-a")["roles"], json!(["worker"]));
    assert_eq!(
        host(&s, "worker-b")["spot"],
        json!(true),
        "Karpenter's spot capacity type"
    );
    assert!(host(&s, "worker-a").get("spot").is_none());
    // kube-vip's static pod sets the API endpoint; kubeadm's controlPlaneEndpoint then adds no
    // balancer. A client because a workload has a Service.
    assert_eq!(s["settings"]["api_endpoint"], "kube-vip");
    assert!(s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["roles"] != json!(["load-balancer"])));
    assert_eq!(host(&s, "users")["roles"], json!(["client"]));
    assert_eq!(s["settings"]["coredns_replicas"], 3);
    assert_eq!(
        (s["seed"].as_u64(), s["duration"].as_str()),
        (Some(1), Some("1h"))
    );
}

#[test]
fn workloads_carry_their_effective_requests_spread_service_and_budget() {
    let (s, notes) = import(&["kubeadm.yaml", "kube-system.yaml"]);
    // Two namespaces name a Deployment web: each is NAMESPACE-NAME.
    let web = workload(&s, "default-web");
    assert_eq!(web["replicas"], 6);
    // cpu: containers 250m + 100m, init container 1 → 1; memory: 256Mi + 64Mi against 64Mi.
    assert_eq!(web["requests"], json!({"cpu": "1", "memory": "320Mi"}));
    assert_eq!(web["spread"], "zone");
    assert_eq!(web["termination_grace_period"], "45s");
    assert_eq!(web["service"], json!(true));
    // minAvailable 80 % of 6 = 4.8, rounded up as the disruption controller does.
    assert_eq!(web["pdb"], json!({"min_available": 5}));
    assert!(workload(&s, "shop-web").get("service").is_none());
    // db's Service selects role=primary, which its pods do not carry.
    let db = workload(&s, "db");
    assert!(db.get("service").is_none());
    assert_eq!(db["pdb"], json!({"max_unavailable": 1}));
    assert_eq!(db["requests"], json!({"memory": "1Gi"}));
    let agent = workload(&s, "node-agent");
    assert_eq!(agent["kind"], "DaemonSet");
    assert!(agent.get("replicas").is_none());
    for line in [
        "ignored: 1 Secret",
        "node cp-1.example.internal is host cp-1-example-internal",
        "kube-system DaemonSet kube-proxy: the playground runs kube-system's own components itself",
        "Deployment default/web: maxSkew 2 imported as 1",
        "Deployment default/web: a ScheduleAnyway spread constraint is not modelled",
        "Deployment default/web: a node selector not modelled",
        "PodDisruptionBudget shop/db: matchExpressions not carried over",
        "DaemonSet monitoring/node-agent: tolerations not modelled",
    ] {
        assert!(notes.iter().any(|n| n == line), "{line:?} in {notes:#?}");
        assert!(
            s["description"].as_str().unwrap().contains(line),
            "the description lists {line:?}"
        );
    }
}

#[test]
fn a_managed_control_plane_is_modelled_and_said_so() {
    let (s, notes) = import(&["eks.json"]);
    let names: Vec<&str> = s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ip-10-0-1-17-eu-west-1-compute-internal",
            "ip-10-0-2-33-eu-west-1-compute-internal",
            "managed-cp-1",
            "managed-cp-2",
            "managed-cp-3",
            "lb"
        ]
    );
    // One control-plane host in each of the first three zones (two here: the third wraps).
    let zones: Vec<&str> = (1..=3)
        .map(|i| {
            host(&s, &format!("managed-cp-{i}"))["zone"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(zones, ["eu-west-1a", "eu-west-1b", "eu-west-1a"]);
    assert_eq!(
        host(&s, "managed-cp-1")["roles"],
        json!(["control-plane", "etcd"])
    );
    assert_eq!(
        host(&s, "ip-10-0-1-17-eu-west-1-compute-internal")["spot"],
        json!(true)
    );
    assert!(notes
        .iter()
        .any(|n| n.starts_with("no control-plane Node (a managed control plane")));
    // 0.5 cpu as millicores; maxUnavailable 25 % of 4 = 1.
    let api = workload(&s, "api");
    assert_eq!(api["requests"], json!({"cpu": "500m"}));
    assert_eq!(api["pdb"], json!({"max_unavailable": 1}));
    // No Service: no client.
    assert!(s["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .all(|h| h["name"] != "users"));
    // It runs as any scenario does.
    let report = sim::run_scenario(&serde_json::to_string(&s).unwrap()).unwrap();
    assert_eq!(report.summary.workloads["api"].final_running, 4);
}

#[test]
fn what_cannot_be_read_is_refused_naming_the_file_and_line() {
    let refuse = |text: &str| {
        import::import(&[("cluster.yaml", text)], None)
            .err()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        refuse("kind: Node\nmetadata: {name: a\n  bad"),
        "cluster.yaml:4: not YAML: did not find expected ',' or '}' at line 4 column 1, while parsing a flow mapping at line 2 column 11"
    );
    assert!(refuse("{\"kind\": \"Node\",}").starts_with("cluster.yaml:1: not JSON: "));
    assert_eq!(
        refuse("kind: Secret\nmetadata: {name: s}"),
        "cluster.yaml: no Node found: include the output of kubectl get nodes -o yaml"
    );
    // Names no scenario could take are made so; two that meet get -2.
    let (s, _) = {
        let text = "kind: NodeList\nitems:\n- {kind: Node, metadata: {name: Node_One.local}}\n- {kind: Node, metadata: {name: node-one-local}}\n";
        let imported = import::import(&[("n.yaml", text)], None).unwrap();
        (
            serde_json::from_str::<Value>(&imported.scenario.to_json()).unwrap(),
            imported.notes,
        )
    };
    assert_eq!(host(&s, "node-one-local")["roles"], json!(["worker"]));
    assert_eq!(host(&s, "node-one-local-2")["roles"], json!(["worker"]));
    assert_eq!(s["name"], "imported cluster");
}

/// The imported scenario with `events` over `duration`, run.
fn run_with(names: &[&str], duration: &str, events: Value) -> sim::report::Report {
    let (mut s, _) = import(names);
    s["duration"] = json!(duration);
    s["events"] = events;
    sim::run_scenario(&s.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// The kubeadm cluster as imported: web spreads over zones (DoNotSchedule), and zone eu-west-1c,
/// which has no worker, is a domain all the same through its control-plane Node (tainted Nodes
/// count: nodeTaintsPolicy Ignore), so at most one pod runs in each of the other two zones.
/// Losing eu-west-1b then leaves one pod: the lost zone's Nodes stay domains while they exist.
/// db's pods on the lost worker stay Terminating (StatefulSet at-most-one): one of three runs.
#[test]
fn an_imported_kubeadm_cluster_loses_a_zone_as_kubernetes_would() {
    let r = run_with(
        &["kubeadm.yaml", "kube-system.yaml"],
        "12m",
        json!([{"at": "60s", "action": "crash", "host": "worker-b"},
               {"at": "60s", "action": "crash", "host": "cp-2-example-internal"}]),
    );
    let web = &r.summary.workloads["default-web"];
    assert_eq!((web.max_running, web.final_running), (2, 1));
    assert!(web.pending_max.is_some_and(|p| p >= 4), "{web:?}");
    assert_eq!(r.summary.workloads["db"].final_running, 1);
    assert_eq!(r.summary.workloads["shop-web"].final_running, 2);
}

/// The managed cluster as imported: a drain of one of its two workers goes through the budget
/// (maxUnavailable 25 % of 4 = 1): one eviction refused with the Eviction API's 429, then allowed
/// once the first replacement runs; the other worker's allocatable (1930m) holds three of api's
/// 500m pods beside CoreDNS's two 100m, so the fourth stays Pending.
#[test]
fn an_imported_managed_cluster_holds_a_drain_to_its_budget() {
    let (s, _) = import(&["eks.json"]);
    let first = s["hosts"][0]["name"].as_str().unwrap().to_string();
    let r = run_with(
        &["eks.json"],
        "5m",
        json!([{"at": "60s", "action": "drain", "host": first}]),
    );
    let refused = r
        .events
        .iter()
        .filter(|e| e.kind == sim::record::EventKind::EvictionRefused)
        .count();
    assert!(refused >= 1, "the budget refused an eviction");
    assert!(r
        .summary
        .operations
        .iter()
        .any(|o| o.action == "drain" && o.ok));
    let api = &r.summary.workloads["api"];
    assert_eq!(api.final_running, 3);
    assert_eq!(api.pending_max, Some(1));
}

/// What to try first on the imported kubeadm cluster: its biggest zone lost (eu-west-1a and
/// eu-west-1b have two Nodes each: the first), its busiest worker drained, its etcd leader at
/// t = 0 lost, two masters lost; each a scenario of its own that runs, its one event at 60 s.
#[test]
fn the_tour_breaks_the_imported_cluster_four_ways() {
    let (s, _) = import(&["kubeadm.yaml", "kube-system.yaml"]);
    let s = sim::scenario::parse(&s.to_string()).unwrap();
    let steps = import::tour(&s);
    let keys: Vec<&str> = steps.iter().map(|st| st.key).collect();
    assert_eq!(keys, ["zone", "drain", "etcd-leader", "two-masters"]);
    let mut world = sim::world::World::new(s.clone());
    world.run_until(world.at_report_secs(0.0), u64::MAX);
    let snap = world.snapshot();
    let pods = |h: &str| {
        snap.hosts
            .iter()
            .find(|v| v.name == h)
            .map_or(0, |v| v.pods.len())
    };
    for st in &steps {
        let events: Vec<String> = st
            .scenario
            .events
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    e.action.name(),
                    e.action.host().unwrap_or_default()
                )
            })
            .collect();
        assert!(st
            .scenario
            .events
            .iter()
            .all(|e| e.at == sim::time::Duration::from_secs(60)));
        match st.key {
            "zone" => {
                assert_eq!(st.target, "eu-west-1a");
                assert_eq!(events, ["crash cp-1-example-internal", "crash worker-a"]);
            }
            "drain" => {
                assert!(
                    pods(&st.target) >= pods("worker-a").max(pods("worker-b")),
                    "{}",
                    st.target
                );
                assert_eq!(events, [format!("drain {}", st.target)]);
            }
            "etcd-leader" => {
                let leader = snap
                    .hosts
                    .iter()
                    .find(|v| {
                        v.etcd
                            .as_ref()
                            .is_some_and(|m| m.role == sim::view::MemberRole::Leader)
                    })
                    .unwrap();
                assert_eq!(events, [format!("crash {}", leader.name)]);
            }
            _ => assert_eq!(
                events,
                ["crash cp-1-example-internal", "crash cp-2-example-internal"]
            ),
        }
        sim::run_scenario(&st.scenario.to_json()).unwrap_or_else(|e| panic!("{}: {e}", st.key));
    }
}

/// A workload named as one of kube-system's (`etcd`, `kube-proxy`, …) runs in its own namespace
/// in a real cluster; here those names are the control plane's, so it gets a number instead of
/// making the scenario invalid.
#[test]
fn a_workload_named_as_kube_systems_pods_gets_a_number() {
    let dump = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: w1}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: etcd, namespace: default}
  spec: {replicas: 3}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: kube-proxy, namespace: tools}
  spec: {replicas: 1}
"#;
    let (s, _) = imported(dump);
    assert_eq!(workload(&s, "etcd-2")["kind"], "StatefulSet");
    assert_eq!(workload(&s, "kube-proxy-2")["kind"], "Deployment");
}

/// The first command's output alone (no kube-system objects): a kubeadm cluster's etcd is taken
/// as stacked on its control-plane Nodes, kubeadm's default, and said so, instead of a
/// scenario without etcd refused whole.
#[test]
fn without_kube_systems_objects_etcd_is_taken_as_stacked_and_said_so() {
    let (s, notes) = import(&["kubeadm.yaml"]);
    let cp1 = host(&s, "cp-1-example-internal");
    assert_eq!(cp1["roles"], json!(["control-plane", "etcd"]));
    let said: Vec<_> = notes
        .iter()
        .filter(|n| n.contains("etcd taken as stacked"))
        .collect();
    assert_eq!(said.len(), 1, "{notes:?}");
}

/// A file that does not read is left out with a line naming it while the others read; alone,
/// it is the error (exit 2 only when nothing usable remains).
#[test]
fn a_broken_file_among_good_ones_is_left_out_and_named() {
    let broken = "kind: Node\nmetadata: {name: a\n  bad";
    let good = file("kubeadm.yaml");
    let imported = import::import(&[("cluster.yaml", &good), ("broken.yaml", broken)], None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.starts_with("left out: broken.yaml:4: not YAML")),
        "{:?}",
        imported.notes
    );
    assert!(import::import(&[("broken.yaml", broken)], None).is_err());
}

/// Budgets, requests and names that cannot be carried over as they are: each a line, never a
/// panic (a percentage beyond any integer, over 100 %, of a DaemonSet's pods; cpu below a
/// millicore rounded up as the scheduler rounds it; an illegal quantity; a name another namespace
/// also uses).
#[test]
fn what_is_changed_or_dropped_on_the_way_is_said() {
    let dump = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: w1}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop}
  spec:
    replicas: 4
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec:
        containers:
        - {name: a, resources: {requests: {cpu: 500u, memory: lots}}}
        - {name: b, resources: {requests: {cpu: 250000000n}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: blog}
  spec:
    replicas: 2
    template:
      metadata: {labels: {app: blog}}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: shop}
  spec:
    template:
      metadata: {labels: {app: agent}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: huge, namespace: shop}
  spec: {minAvailable: "18446744073709551615%", selector: {matchLabels: {app: web}}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: agent, namespace: shop}
  spec: {maxUnavailable: "50%", selector: {matchLabels: {app: agent}}}
"#;
    let (s, notes) = imported(dump);
    let notes = notes.join("\n");
    let web = workload(&s, "shop-web");
    // 500u → 1m, 250000000n → 250m: 251m.
    assert_eq!(web["requests"]["cpu"], "251m", "{web}");
    assert!(web.get("pdb").is_none(), "{web}");
    for said in [
        "Deployment shop/web is workload shop-web",
        "Deployment blog/web is workload blog-web",
        "Deployment shop/web: memory request",
        "PodDisruptionBudget shop/huge: minAvailable \"18446744073709551615%\" is not a percentage of 0–100 %, not carried over",
        "PodDisruptionBudget shop/agent: maxUnavailable \"50%\": a percentage of a DaemonSet's pods, not carried over",
    ] {
        assert!(notes.contains(said), "{said:?} not in:\n{notes}");
    }
}

/// 50 MB of objects (a large cluster's dump, mostly kinds not read) imports without trouble:
/// counted, the Nodes and workloads kept.
#[test]
fn fifty_megabytes_of_objects_are_read() {
    let mut items: Vec<Value> = (0..200)
        .map(|i| json!({"kind": "Node", "metadata": {"name": format!("node-{i}")}}))
        .collect();
    let filler = "x".repeat(1000);
    items.extend((0..50_000).map(|i| {
        json!({"kind": "ConfigMap", "metadata": {"name": format!("cm-{i}"), "namespace": "default"},
               "data": {"blob": filler}})
    }));
    let text = json!({"kind": "List", "items": items}).to_string();
    assert!(text.len() > 50_000_000, "{}", text.len());
    let imported = import::import(&[("big.json", &text)], None).unwrap_or_else(|e| panic!("{e}"));
    let workers = workers(&imported);
    assert_eq!(workers, 200);
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n == "ignored: 50000 ConfigMap"),
        "{:?}",
        imported.notes
    );
}

/// kubeadm-config's external etcd becomes etcd hosts of their own, its controlPlaneEndpoint a
/// load balancer; GKE's spot label marks a spot host.
#[test]
fn kubeadm_config_gives_external_etcd_and_the_endpoint() {
    let dump = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: cp-1
    labels: {node-role.kubernetes.io/control-plane: ""}
- apiVersion: v1
  kind: Node
  metadata:
    name: w-1
    labels: {cloud.google.com/gke-spot: "true"}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: kubeadm-config, namespace: kube-system}
  data:
    ClusterConfiguration: |
      apiVersion: kubeadm.k8s.io/v1beta3
      kind: ClusterConfiguration
      controlPlaneEndpoint: lb.example.internal:6443
      etcd:
        external:
          endpoints: [https://10.0.9.1:2379, https://10.0.9.2:2379, https://10.0.9.3:2379]
"#;
    let (s, notes) = imported(dump);
    assert_eq!(host(&s, "cp-1")["roles"], json!(["control-plane"]));
    for i in 1..=3 {
        assert_eq!(host(&s, &format!("etcd-{i}"))["roles"], json!(["etcd"]));
    }
    assert_eq!(host(&s, "lb")["roles"], json!(["load-balancer"]));
    assert_eq!(host(&s, "w-1")["spot"], json!(true));
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("external etcd: 3 members")),
        "{notes:?}"
    );
}

/// A cluster larger than a scenario holds keeps what fits, said in a note, instead of being
/// refused whole.
#[test]
fn a_cluster_over_the_hosts_limit_keeps_what_fits() {
    let items: Vec<Value> = (0..2_100)
        .map(|i| json!({"kind": "Node", "metadata": {"name": format!("node-{i}")}}))
        .collect();
    let text = json!({"kind": "List", "items": items}).to_string();
    let imported = import::import(&[("big.json", &text)], None).unwrap_or_else(|e| panic!("{e}"));
    let workers = workers(&imported);
    assert_eq!(workers, sim::scenario::MAX_HOSTS - 16);
    assert!(
        (imported.notes.iter())
            .any(|n| n == "2100 Nodes: the first 1984 kept (a scenario holds at most 2000 hosts)"),
        "{:?}",
        imported.notes
    );
}

/// A cluster whose workloads want more pods than a scenario holds keeps its first workloads up
/// to the limit, said in a note, instead of being refused whole.
#[test]
fn a_cluster_over_the_pods_limit_keeps_its_first_workloads() {
    let mut items: Vec<Value> = (1..=3)
        .map(|i| json!({"kind": "Node", "metadata": {"name": format!("w-{i}")}}))
        .collect();
    for (name, replicas) in [("a", 10_000), ("b", 9_000), ("c", 5_000), ("d", 1)] {
        items.push(json!({
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": name}]}}}
        }));
    }
    let text = json!({"kind": "List", "items": items}).to_string();
    let imported = import::import(&[("big.json", &text)], None).unwrap_or_else(|e| panic!("{e}"));
    let s = &imported.scenario;
    let names: Vec<&str> = s.workloads.iter().map(|w| w.name.as_str()).collect();
    // Before the workloads, 20 pods: kube-proxy on each of the 6 Nodes (the 3 workers and the
    // managed control plane modelled as 3 stacked hosts), the mirrors of those hosts' 4 static
    // pods each, CoreDNS's 2 replicas. a and b bring it to 19,020; c would take it to 24,020.
    assert_eq!(names, ["a", "b"]);
    assert_eq!(s.pod_count(), 19_020);
    assert!(
        (imported.notes.iter()).any(|n| n
            == "4 workloads: the first 2 kept (24021 pods in all; a scenario holds at most 20000)"),
        "{:?}",
        imported.notes
    );
}
