//! A scenario on a kind cluster, and what the simulation predicts will happen there
//! (docs/scenario-format.md, "Export to a real cluster"): `kind.yaml`, `workloads.yaml`,
//! `faults.sh`, `expected.md` and a `README.md` that says what kind cannot express. The runner
//! (`clustersim export kind`) writes them to a directory, the import page offers them as downloads.
//!
//! Left out: external etcd, standby hosts, kube-vip and keepalived, the balancer's own settings
//! (kind runs its own), spot interruptions as the cloud sends them, random faults; each is named
//! in the README. Pod names differ on a real cluster, so `delete_pod` is not exported.

use sim::record::EventKind;
use sim::scenario::{Action, Budget, Role, Scenario, Spread, WorkloadKind};
use std::fmt::Write as _;

/// The echo server the workloads run (Kubernetes' own test image: `netexec` answers HTTP).
const IMAGE: &str = "registry.k8s.io/e2e-test-images/agnhost:2.53";
/// The kind cluster's name: its nodes are `sim-control-plane`, `sim-worker2`, …
const CLUSTER: &str = "sim";

/// The files, by name, in the order a person reads them: the scenario is run to its end for
/// `expected.md`. Refused when kind has nothing to run.
pub fn export(s: &Scenario) -> Result<Vec<(&'static str, String)>, String> {
    if !s
        .hosts
        .iter()
        .any(|h| h.has_role(Role::ControlPlane) && !h.standby)
    {
        return Err("nothing to run on kind: the scenario has no control-plane host (kind needs one; an etcd-only scenario has none)".into());
    }
    let mut world = sim::world::World::new(s.clone());
    world.run_to_end();
    Ok(Export::of(s).files(s, &sim::report(&world)))
}

/// Each scenario host that becomes a kind node, with its node's name, and what cannot be exported.
struct Export {
    /// (scenario host, kind node, control plane?, zone)
    nodes: Vec<(String, String, bool, String)>,
    left_out: Vec<String>,
}

impl Export {
    fn of(s: &Scenario) -> Export {
        let mut nodes = Vec::new();
        let mut left_out = Vec::new();
        let (mut cps, mut workers) = (0, 0);
        for h in &s.hosts {
            let cp = h.has_role(Role::ControlPlane) || h.has_role(Role::Apiserver);
            if h.standby {
                left_out.push(format!("{}: a standby host (kind creates every node at once; `kubeadm join` later is not exported)", h.name));
                continue;
            }
            if cp || h.is_worker() {
                let (n, suffix) = match cp {
                    true => {
                        cps += 1;
                        (cps, "control-plane")
                    }
                    false => {
                        workers += 1;
                        (workers, "worker")
                    }
                };
                let node = match n {
                    1 => format!("{CLUSTER}-{suffix}"),
                    n => format!("{CLUSTER}-{suffix}{n}"),
                };
                if h.spot {
                    left_out.push(format!("{}: spot (kind's nodes are containers; its spot_interrupt events are exported as a drain, then a kill)", h.name));
                }
                nodes.push((h.name.clone(), node, cp, h.zone.clone()));
            } else if h.runs_etcd() {
                left_out.push(format!("{}: an external etcd member (kind runs etcd stacked on its control-plane nodes)", h.name));
            } else if h.has_role(Role::LoadBalancer) {
                left_out.push(format!("{}: the load balancer (kind runs its own haproxy in front of several control-plane nodes)", h.name));
            } else if h.has_role(Role::Client) {
                left_out.push(format!("{}: the client (reach a Service from a node: docker exec {CLUSTER}-worker curl -s localhost:NODEPORT)", h.name));
            }
        }
        match s.settings.api_endpoint {
            sim::scenario::ApiEndpoint::LoadBalancer => {}
            other => left_out.push(format!(
                "the API endpoint {} (kind's own load balancer stands for it)",
                other.name()
            )),
        }
        if !s.faults.is_empty() {
            left_out.push("random faults (run a study instead: clustersim study)".into());
        }
        Export { nodes, left_out }
    }

    fn node_of(&self, host: &str) -> Option<&str> {
        self.nodes
            .iter()
            .find(|n| n.0 == host)
            .map(|n| n.1.as_str())
    }

    fn files(mut self, s: &Scenario, report: &sim::report::Report) -> Vec<(&'static str, String)> {
        let kind = self.kind_yaml(s);
        let workloads = workloads_yaml(s);
        let faults = self.faults_sh(s);
        let expected = expected_md(s, report);
        let readme = self.readme(s);
        vec![
            ("kind.yaml", kind),
            ("workloads.yaml", workloads),
            ("faults.sh", faults),
            ("expected.md", expected),
            ("README.md", readme),
        ]
    }

    fn kind_yaml(&self, s: &Scenario) -> String {
        let mut y = format!(
            "# kind create cluster --config kind.yaml: the shape of \"{}\".\n# Each node is labelled with its host's zone; the comment names the scenario's host.\nkind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nname: {CLUSTER}\nnodes:\n",
            s.name.replace('"', "'")
        );
        for (host, node, cp, zone) in &self.nodes {
            let role = if *cp { "control-plane" } else { "worker" };
            let _ = write!(
                y,
                "- role: {role}  # {host} ({node})\n  labels:\n    topology.kubernetes.io/zone: {zone}\n"
            );
        }
        y
    }

    fn faults_sh(&mut self, s: &Scenario) -> String {
        let mut sh = String::from(
            r#"#!/bin/sh
# The scenario's events on the kind cluster, each at its time from the start of this script.
# Run it once the workloads are ready (kubectl rollout status …); compare with expected.md.
set -u
start=$(date +%s)
at() { now=$(( $(date +%s) - start )); [ "$1" -gt "$now" ] && sleep $(( $1 - now )); echo "[$1 s] $2"; }
ip() { docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }
# Messages from $1 to $2 dropped (inside $2's network namespace).
drop() { docker exec "$2" iptables -I INPUT -s "$(ip "$1")" -j DROP -m comment --comment sim; }
cut() { drop "$1" "$2"; drop "$2" "$1"; }
heal() { for n in $(kind get nodes --name sim); do
  docker exec "$n" sh -c 'iptables -S INPUT | grep -e "--comment sim" | sed "s/^-A/-D/" | while read -r r; do eval iptables $r; done'; done; }
"#,
        );
        let nodes: Vec<String> = self.nodes.iter().map(|n| n.0.clone()).collect();
        for ev in s.events_sorted() {
            let t = ev.at.as_secs_f64().round() as u64;
            let node = |h: &str| self.node_of(h).map(str::to_string);
            let line = match &ev.action {
                Action::Crash { host } => node(host).map(|n| format!("docker kill {n}  # the power cut")),
                Action::Restart { host } => node(host).map(|n| format!("docker start {n}")),
                Action::Reboot { host, downtime } => node(host).map(|n| {
                    format!("docker stop {n} && sleep {} && docker start {n}", downtime.as_secs_f64().round() as u64)
                }),
                Action::Isolate { host } => node(host).map(|n| {
                    let others: Vec<String> = self.nodes.iter().filter(|o| o.1 != n).map(|o| format!("cut {n} {}", o.1)).collect();
                    others.join("; ")
                }),
                Action::Partition { groups } => {
                    let group_of = |h: &str| {
                        let zone = s.hosts.iter().find(|x| x.name == h).map(|x| x.zone.as_str());
                        groups.iter().position(|g| g.iter().any(|m| m == h || Some(m.as_str()) == zone)).unwrap_or(groups.len())
                    };
                    let mut cuts = Vec::new();
                    for (i, a) in nodes.iter().enumerate() {
                        for b in &nodes[i + 1..] {
                            if group_of(a) != group_of(b) {
                                cuts.push(format!("cut {} {}", node(a).unwrap_or_default(), node(b).unwrap_or_default()));
                            }
                        }
                    }
                    Some(if cuts.is_empty() { "true".into() } else { cuts.join("; ") })
                }
                Action::PartitionOneway { from, to } => {
                    let in_side = |names: &[String], h: &str| {
                        let zone = s.hosts.iter().find(|x| x.name == h).map(|x| x.zone.clone()).unwrap_or_default();
                        names.iter().any(|m| *m == h || *m == zone)
                    };
                    let mut drops = Vec::new();
                    for a in nodes.iter().filter(|h| in_side(from, h)) {
                        for b in nodes.iter().filter(|h| in_side(to, h)) {
                            drops.push(format!("drop {} {}", node(a).unwrap_or_default(), node(b).unwrap_or_default()));
                        }
                    }
                    Some(if drops.is_empty() { "true".into() } else { drops.join("; ") })
                }
                Action::Heal => Some("heal".into()),
                Action::SpotInterrupt { host } => node(host).map(|n| {
                    format!("kubectl drain {n} --ignore-daemonsets --delete-emptydir-data --timeout=120s & sleep 120; docker kill {n}  # the 2-minute notice, then the termination")
                }),
                Action::Cordon { host } => node(host).map(|n| format!("kubectl cordon {n}")),
                Action::Uncordon { host } => node(host).map(|n| format!("kubectl uncordon {n}")),
                Action::Drain { host } => node(host).map(|n| format!("kubectl drain {n} --ignore-daemonsets --delete-emptydir-data &")),
                Action::Taint { host, taint } => node(host).map(|n| format!("kubectl taint nodes {n} {taint} --overwrite")),
                Action::Untaint { host, taint } => node(host).map(|n| format!("kubectl taint nodes {n} {taint}-")),
                Action::Label { host, label } => node(host).map(|n| format!("kubectl label nodes {n} {label} --overwrite")),
                Action::Unlabel { host, label } => node(host).map(|n| format!("kubectl label nodes {n} {label}-")),
                Action::Scale { workload, replicas } => Some(match workload.as_str() {
                    sim::scenario::COREDNS => format!("kubectl -n kube-system scale deployment coredns --replicas={replicas}"),
                    w => format!("kubectl scale {} {w} --replicas={replicas}", kind_of(s, w)),
                }),
                Action::RestartComponent { host, component } => node(host).map(|n| {
                    use sim::scenario::Component::*;
                    match component {
                        Kubelet => format!("docker exec {n} systemctl restart kubelet"),
                        KubeProxy => format!("kubectl -n kube-system delete pod -l k8s-app=kube-proxy --field-selector spec.nodeName={n}"),
                        Coredns => format!("kubectl -n kube-system delete pod -l k8s-app=kube-dns --field-selector spec.nodeName={n}"),
                        // A static pod's container, named as kubeadm names it (the others
                        // already carry their kube- prefix).
                        Apiserver => format!("docker exec {n} sh -c 'crictl stop $(crictl ps -q --name kube-apiserver)'"),
                        c => format!("docker exec {n} sh -c 'crictl stop $(crictl ps -q --name {})'", c.name()),
                    }
                }),
                Action::DeletePod { .. }
                | Action::Join { .. }
                | Action::EtcdMemberAdd { .. }
                | Action::EtcdMemberPromote { .. }
                | Action::EtcdMemberRemove { .. }
                | Action::EtcdForceNewCluster { .. } => None,
            };
            let what = format!(
                "{} {}",
                ev.action.name(),
                ev.action.host().unwrap_or_default()
            );
            match line {
                Some(cmd) => {
                    let _ = writeln!(sh, "at {t} \"{}\"; {cmd}", what.trim());
                }
                None => {
                    self.left_out.push(format!(
                        "the event at {t} s ({}): not exported",
                        what.trim()
                    ));
                    let _ = writeln!(
                        sh,
                        "at {t} \"{} (not exported: see README.md)\"",
                        what.trim()
                    );
                }
            }
        }
        sh.push_str("wait\n");
        sh
    }

    fn readme(&self, s: &Scenario) -> String {
        let mut r = format!(
            "# \"{}\" on kind\n\nThe scenario's cluster as a kind cluster, its workloads as an echo server ({IMAGE}) with the same\nrequests, spreading, budgets and Services, its events as timed commands, and the simulation's prediction.\n\n```sh\nkind create cluster --config kind.yaml\nkubectl apply -f workloads.yaml\nkubectl rollout status deployment --timeout=5m   # and statefulsets, daemonsets\nsh faults.sh                                     # needs docker and kubectl here\n```\n\nThen hold what the cluster does against `expected.md` (times from the first event).\nThe nodes:\n\n",
            s.name
        );
        for (host, node, _, zone) in &self.nodes {
            let _ = writeln!(r, "- {host} is {node} (zone {zone})");
        }
        if s.settings.coredns_replicas != 2 {
            let _ = writeln!(r, "\nCoreDNS runs {} replicas here: `kubectl -n kube-system scale deployment coredns --replicas={}`.", s.settings.coredns_replicas, s.settings.coredns_replicas);
        }
        r.push_str("\n## Not exported\n\n");
        if self.left_out.is_empty() {
            r.push_str("Nothing.\n");
        }
        for l in &self.left_out {
            let _ = writeln!(r, "- {l}");
        }
        r
    }
}

fn kind_of(s: &Scenario, workload: &str) -> &'static str {
    match s
        .workloads
        .iter()
        .find(|w| w.name == workload)
        .map(|w| w.kind)
    {
        Some(WorkloadKind::StatefulSet) => "statefulset",
        Some(WorkloadKind::DaemonSet) => "daemonset",
        _ => "deployment",
    }
}

/// The workloads as an echo server: Deployments, StatefulSets and DaemonSets with their
/// requests, spread, grace period, budget and (NodePort) Service, in the simulation's ports.
fn workloads_yaml(s: &Scenario) -> String {
    let mut y = String::from(
        "# kubectl apply -f workloads.yaml: the scenario's workloads as an echo server.\n",
    );
    let mut port = 30080;
    for w in &s.workloads {
        let kind = match w.kind {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
        };
        let name = &w.name;
        let _ = write!(
            y,
            "---\napiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n"
        );
        if let Some(r) = w.replicas {
            let _ = writeln!(y, "  replicas: {r}");
        }
        if w.kind == WorkloadKind::StatefulSet {
            let _ = writeln!(y, "  serviceName: {name}");
        }
        let _ = write!(y, "  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n");
        let _ = writeln!(
            y,
            "      terminationGracePeriodSeconds: {}",
            w.termination_grace_period.as_secs_f64().round() as u64
        );
        if let Some(spread) = w.spread {
            let key = match spread {
                Spread::Zone => "topology.kubernetes.io/zone",
                Spread::Host => "kubernetes.io/hostname",
            };
            let _ = write!(y, "      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: {key}\n        whenUnsatisfiable: DoNotSchedule\n        labelSelector:\n          matchLabels:\n            app: {name}\n");
        }
        let _ = write!(y, "      containers:\n      - name: {name}\n        image: {IMAGE}\n        args: [\"netexec\", \"--http-port=8080\"]\n        ports:\n        - containerPort: 8080\n        readinessProbe:\n          httpGet:\n            path: /\n            port: 8080\n          periodSeconds: 1\n");
        if let Some(r) = w.requests {
            y.push_str("        resources:\n          requests:\n");
            if r.cpu > 0 {
                let _ = writeln!(
                    y,
                    "            cpu: {}",
                    sim::scenario::quantity::fmt_cpu(r.cpu)
                );
            }
            if r.memory > 0 {
                let _ = writeln!(
                    y,
                    "            memory: {}",
                    sim::scenario::quantity::fmt_memory(r.memory)
                );
            }
        }
        if w.service {
            let _ = write!(y, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  type: NodePort\n  selector:\n    app: {name}\n  ports:\n  - port: 80\n    targetPort: 8080\n    nodePort: {port}\n");
            port += 1;
        } else if w.kind == WorkloadKind::StatefulSet {
            let _ = write!(y, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  clusterIP: None\n  selector:\n    app: {name}\n  ports:\n  - port: 8080\n");
        }
        if let Some(b) = w.pdb {
            let (field, n) = match b {
                Budget::MinAvailable(n) => ("minAvailable", n),
                Budget::MaxUnavailable(n) => ("maxUnavailable", n),
            };
            let _ = write!(y, "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {name}\nspec:\n  {field}: {n}\n  selector:\n    matchLabels:\n      app: {name}\n");
        }
    }
    y
}

/// The run's checkable moments, relative to the first event, and its availability.
fn expected_md(s: &Scenario, report: &sim::report::Report) -> String {
    let first = s
        .events_sorted()
        .first()
        .map_or(0.0, |e| e.at.as_secs_f64());
    let mut m = format!(
        "# What the simulation predicts for \"{}\"\n\nTimes are seconds from the first event ({first:.0} s into the run); a real cluster differs by its\nown jitter. Seed {}.\n\n| t | what |\n|---|---|\n",
        s.name, report.seed
    );
    let checked = |k: EventKind| {
        matches!(
            k,
            EventKind::EtcdLeaderElected
                | EventKind::EtcdLeaderLost
                | EventKind::EtcdQuorumLost
                | EventKind::EtcdQuorumRegained
                | EventKind::LeaseLost
                | EventKind::LeaseAcquired
                | EventKind::NodeNotReady
                | EventKind::NodeReady
                | EventKind::PodEvicted
                | EventKind::PodPending
                | EventKind::EvictionRefused
                | EventKind::VipMoved
                | EventKind::Operation
        )
    };
    for e in report
        .events
        .iter()
        .filter(|e| checked(e.kind) && e.t >= first)
    {
        let _ = writeln!(m, "| {:+.1} | {} |", e.t - first, e.text.replace('|', "/"));
    }
    m.push_str("\n## Availability over the run\n\n");
    if let Some(api) = &report.summary.api {
        let _ = writeln!(m, "- API writes: {:.4}", api.write_availability);
    }
    for (name, svc) in &report.summary.services {
        let _ = writeln!(
            m,
            "- Service {name}: {:.4} of requests answered",
            svc.availability
        );
    }
    for (name, w) in &report.summary.workloads {
        let _ = writeln!(
            m,
            "- {name}: at most {} pods running, {} at the end",
            w.max_running, w.final_running
        );
    }
    m
}
