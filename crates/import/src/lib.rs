//! A real cluster as a scenario: the objects `kubectl get … -o yaml|json` prints (Lists,
//! several YAML documents or single objects, in any number of files) read into the playground's
//! model, as docs/scenario-format.md ("Import a real cluster") specifies. Nodes become hosts,
//! kubeadm's configuration and static pods the control plane's shape, Deployments, StatefulSets
//! and DaemonSets workloads with their effective requests, spread, Service and budget.
//!
//! Left out, and said so one line each: whatever the model has no place for (affinity, node
//! selectors, tolerations, soft spread, selector expressions, kube-system's own workloads other
//! than CoreDNS) and the kinds it does not read, counted.

pub mod kind;
mod tour;
pub use tour::{tour, Step};

use serde::Deserialize;
use serde_json::{json, Map, Value};
use sim::scenario::quantity::{fmt_cpu, fmt_memory, parse_cpu, parse_memory};

/// A file that could not be read as Kubernetes objects, or objects that make no cluster.
#[derive(Debug, PartialEq)]
pub struct ImportError {
    pub file: String,
    /// 1-based, for a syntax error.
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// The scenario (validated as a document of the format is) and what could not be carried over,
/// one line each.
pub struct Imported {
    pub scenario: sim::scenario::Scenario,
    pub notes: Vec<String>,
}

/// The labels cloud providers and Karpenter put on spot capacity.
const SPOT_LABELS: [(&str, &str); 6] = [
    ("karpenter.sh/capacity-type", "spot"),
    ("eks.amazonaws.com/capacityType", "SPOT"),
    ("cloud.google.com/gke-spot", "true"),
    ("cloud.google.com/gke-preemptible", "true"),
    ("kubernetes.azure.com/scalesetpriority", "spot"),
    ("node.kubernetes.io/lifecycle", "spot"),
];

/// Notes kept in the scenario's description (all go to stderr).
const NOTES_IN_DESCRIPTION: usize = 30;

/// Reads `files` (name, text) and builds the scenario named `name`.
/// A file that does not read is left out with a note while another file reads; alone, it is
/// the error.
pub fn import(files: &[(&str, &str)], name: Option<&str>) -> Result<Imported, ImportError> {
    let mut objects = Vec::new();
    let mut unread = Vec::new();
    for (file, text) in files {
        match documents(file, text) {
            Ok(docs) => docs.into_iter().for_each(|doc| flatten(doc, &mut objects)),
            Err(e) => unread.push(e),
        }
    }
    if !unread.is_empty() && unread.len() == files.len() {
        return Err(unread.swap_remove(0));
    }
    let read: Vec<&str> = (files.iter().map(|(f, _)| *f))
        .filter(|f| !unread.iter().any(|e| e.file == *f))
        .collect();
    let notes = unread.iter().map(|e| format!("left out: {e}")).collect();
    Cluster::read(&objects).build(name, &read.join(", "), objects.len(), notes)
}

/// The documents of one file: a JSON value, or every YAML document in it.
fn documents(file: &str, text: &str) -> Result<Vec<Value>, ImportError> {
    let fail = |line: Option<usize>, message: String| ImportError {
        file: file.to_string(),
        line,
        message,
    };
    if text.trim_start().starts_with(['{', '[']) {
        return serde_json::from_str::<Value>(text)
            .map(|v| vec![v])
            .map_err(|e| fail(Some(e.line()), format!("not JSON: {e}")));
    }
    let mut out = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        match Value::deserialize(doc) {
            Ok(Value::Null) => {}
            Ok(v) => out.push(v),
            Err(e) => {
                let line = e.location().map(|l| l.line());
                return Err(fail(line, format!("not YAML: {e}")));
            }
        }
    }
    Ok(out)
}

/// A `List` (or `NodeList`, …) gives its items; anything else is one object.
fn flatten(doc: Value, out: &mut Vec<Value>) {
    let kind = doc["kind"].as_str().unwrap_or_default();
    if kind.ends_with("List") {
        if let Some(items) = doc["items"].as_array() {
            for item in items {
                flatten(item.clone(), out);
            }
            return;
        }
    }
    if doc.is_object() {
        out.push(doc);
    }
}

fn str_of<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

fn label<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v["metadata"]["labels"][key].as_str()
}

/// A name as the scenario takes it: `[a-z0-9-]`, at most 63 characters, no dash at either end.
fn dns_label(name: &str) -> String {
    let mapped: String = name
        .to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '-'
            }
        })
        .collect();
    let cut: String = mapped.chars().take(63).collect();
    let trimmed = cut.trim_matches('-');
    if trimmed.is_empty() {
        "host".into()
    } else {
        trimmed.to_string()
    }
}

/// `name`, or `name-2`, `name-3`… if taken.
fn unique(name: String, taken: &mut Vec<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        let suffix = format!("-{n}");
        let base: String = name.chars().take(63 - suffix.len()).collect();
        candidate = format!("{}{suffix}", base.trim_end_matches('-'));
        n += 1;
    }
    taken.push(candidate.clone());
    candidate
}

/// The objects read, by what they become.
#[derive(Default)]
struct Cluster<'a> {
    nodes: Vec<&'a Value>,
    workloads: Vec<&'a Value>,
    services: Vec<&'a Value>,
    budgets: Vec<&'a Value>,
    /// kube-system's pods: stacked etcd and kube-vip show there.
    system_pods: Vec<&'a Value>,
    /// kubeadm-config's ClusterConfiguration, if it was given and reads.
    cluster_config: Option<Value>,
    /// Kinds not read, with how many of each, in the order first met.
    ignored: Vec<(String, usize)>,
}

/// The scenario as it is built: its hosts, zones and settings, the host names taken, and the
/// notes on what was not carried over.
#[derive(Default)]
struct Draft {
    hosts: Vec<Value>,
    zones: Vec<String>,
    settings: Map<String, Value>,
    taken: Vec<String>,
    notes: Vec<String>,
}

impl Draft {
    /// The scenario document of the hosts, zones and settings drafted so far, with `workloads`.
    fn document(&self, name: &str, workloads: Vec<Value>) -> Value {
        let mut doc = json!({
            "version": 1,
            "name": name,
            "duration": "1h",
            "hosts": self.hosts,
            "workloads": workloads,
        });
        if !self.zones.is_empty() {
            doc["zones"] = json!(self.zones);
        }
        if !self.settings.is_empty() {
            doc["settings"] = Value::Object(self.settings.clone());
        }
        doc
    }
}

/// What the import says when the cluster it read makes no valid scenario.
fn no_scenario(files: &str, e: impl std::fmt::Display) -> ImportError {
    ImportError {
        file: files.to_string(),
        line: None,
        message: format!("the cluster makes no valid scenario: {e}"),
    }
}

/// Drops the last workloads while the cluster would run more pods than a scenario may hold
/// (20,000: the workloads' replicas, a pod of each DaemonSet on every Node, kube-system's pods),
/// said in a note, so that a cluster that large keeps its first workloads instead of being
/// refused whole.
fn keep_within_pod_limit(
    workloads: &mut Vec<Value>,
    d: &mut Draft,
    files: &str,
) -> Result<(), ImportError> {
    // kube-system's own pods, counted by the format itself on the hosts without a workload.
    let base = d.document("pods", Vec::new()).to_string();
    let base = sim::scenario::parse(&base).map_err(|e| no_scenario(files, e))?;
    let system = base.pod_count();
    let nodes = base.hosts.iter().filter(|h| h.is_node()).count() as u64;
    let pods_of = |w: &Value| match w["kind"].as_str() {
        Some("DaemonSet") => nodes,
        _ => w["replicas"].as_u64().unwrap_or(1),
    };
    let limit = u64::from(sim::scenario::MAX_PODS);
    let mut total = system;
    let kept = workloads
        .iter()
        .take_while(|w| {
            total += pods_of(w);
            total <= limit
        })
        .count();
    if kept < workloads.len() {
        let all: u64 = system + workloads.iter().map(pods_of).sum::<u64>();
        d.notes.push(format!(
            "{} workloads: the first {kept} kept ({all} pods in all; a scenario holds at most {limit})",
            workloads.len()
        ));
        workloads.truncate(kept);
    }
    Ok(())
}

/// The scenario's description: the summary, then the first notes (within the format's limit).
fn description(summary: String, notes: &[String]) -> String {
    let mut description = summary;
    if !notes.is_empty() {
        description.push_str(" Not carried over or changed:");
        for n in notes.iter().take(NOTES_IN_DESCRIPTION) {
            description.push_str("\n- ");
            description.push_str(n);
        }
        if notes.len() > NOTES_IN_DESCRIPTION {
            description.push_str(&format!(
                "\n- and {} more",
                notes.len() - NOTES_IN_DESCRIPTION
            ));
        }
    }
    (description.chars())
        .take(sim::scenario::MAX_DESCRIPTION_LEN)
        .collect()
}

impl<'a> Cluster<'a> {
    fn read(objects: &'a [Value]) -> Cluster<'a> {
        let mut c = Cluster::default();
        for o in objects {
            let kind = o["kind"].as_str().unwrap_or("(no kind)");
            let namespace = str_of(o, &["metadata", "namespace"]).unwrap_or("default");
            let name = str_of(o, &["metadata", "name"]).unwrap_or_default();
            match kind {
                "Node" => c.nodes.push(o),
                "Deployment" | "StatefulSet" | "DaemonSet" => c.workloads.push(o),
                "Service" => c.services.push(o),
                "PodDisruptionBudget" => c.budgets.push(o),
                "Pod" if namespace == "kube-system" => c.system_pods.push(o),
                // Pods outside kube-system belong to the workloads read.
                "Pod" | "ReplicaSet" | "Endpoints" | "EndpointSlice" => {}
                "ConfigMap" if namespace == "kube-system" && name == "kubeadm-config" => {
                    c.cluster_config = (o["data"]["ClusterConfiguration"].as_str())
                        .and_then(|text| serde_yaml_ng::from_str(text).ok())
                }
                other => match c.ignored.iter_mut().find(|(k, _)| k == other) {
                    Some((_, n)) => *n += 1,
                    None => c.ignored.push((other.to_string(), 1)),
                },
            }
        }
        c
    }

    /// The scenario: a host per Node, then the control plane the Nodes do not show (external
    /// etcd, a load balancer, a managed control plane), the workloads, and a description that
    /// says what was not carried over.
    fn build(
        &self,
        name: Option<&str>,
        files: &str,
        count: usize,
        unread: Vec<String>,
    ) -> Result<Imported, ImportError> {
        if self.nodes.is_empty() {
            return Err(ImportError {
                file: files.to_string(),
                line: None,
                message: "no Node found: include the output of kubectl get nodes -o yaml".into(),
            });
        }
        let mut d = Draft {
            notes: unread,
            ..Draft::default()
        };
        if !self.ignored.is_empty() {
            let kinds: Vec<String> = (self.ignored.iter())
                .map(|(k, n)| format!("{n} {k}"))
                .collect();
            d.notes.push(format!("ignored: {}", kinds.join(", ")));
        }
        let control_planes = self.node_hosts(&mut d);
        self.control_plane_hosts(&mut d, control_planes);
        let mut workloads = self.workloads(&mut d.settings, &mut d.notes);
        keep_within_pod_limit(&mut workloads, &mut d, files)?;
        if workloads.iter().any(|w| w["service"] == json!(true)) {
            let host = unique("users".into(), &mut d.taken);
            d.hosts.push(json!({"name": host, "roles": ["client"]}));
        }
        let summary = format!(
            "Imported from {count} Kubernetes objects ({files}): {} Nodes, {} workloads.",
            self.nodes.len(),
            workloads.len()
        );
        let mut doc = d.document(name.unwrap_or("imported cluster"), workloads);
        doc["description"] = json!(description(summary, &d.notes));
        doc["seed"] = json!(1);
        let scenario = sim::scenario::parse(&doc.to_string()).map_err(|e| no_scenario(files, e))?;
        Ok(Imported {
            scenario,
            notes: d.notes,
        })
    }

    /// A host per Node: its zone, roles (stacked etcd where kube-system runs an etcd pod),
    /// spot, allocatable cpu and memory. How many are control-plane hosts.
    fn node_hosts(&self, d: &mut Draft) -> usize {
        let etcd_nodes: Vec<&str> = (self.system_pods.iter())
            .filter(|p| label(p, "component") == Some("etcd"))
            .filter_map(|p| str_of(p, &["spec", "nodeName"]))
            .collect();
        // Without etcd's pods or an external etcd in kubeadm-config (kube-system's objects not
        // given), kubeadm's default: a stacked member on every control-plane Node.
        let external = (self.cluster_config.as_ref())
            .is_some_and(|c| c["etcd"]["external"]["endpoints"].is_array());
        let stacked_by_default = etcd_nodes.is_empty() && !external;
        let mut said = false;
        let mut control_planes = 0;
        // Room for the hosts the Nodes do not show (a managed control plane, external etcd, the
        // load balancer, the users' client).
        let kept = sim::scenario::MAX_HOSTS - 16;
        if self.nodes.len() > kept {
            d.notes.push(format!(
                "{} Nodes: the first {kept} kept (a scenario holds at most {} hosts)",
                self.nodes.len(),
                sim::scenario::MAX_HOSTS
            ));
        }
        for n in self.nodes.iter().take(kept) {
            let original = str_of(n, &["metadata", "name"]).unwrap_or("node");
            let host = unique(dns_label(original), &mut d.taken);
            let mut h = Map::new();
            h.insert("name".into(), json!(host));
            let zone = label(n, "topology.kubernetes.io/zone")
                .or_else(|| label(n, "failure-domain.beta.kubernetes.io/zone"));
            if let Some(z) = zone {
                let z = dns_label(z);
                if !d.zones.contains(&z) {
                    d.zones.push(z.clone());
                }
                h.insert("zone".into(), json!(z));
            }
            let role = |key| n["metadata"]["labels"].get(key).is_some();
            let control_plane = role("node-role.kubernetes.io/control-plane")
                || role("node-role.kubernetes.io/master");
            let stacked = etcd_nodes.contains(&original) || stacked_by_default;
            if control_plane && stacked_by_default && !std::mem::replace(&mut said, true) {
                d.notes.push("no etcd pod in kube-system and no external etcd in kubeadm-config: etcd taken as stacked on every control-plane Node, kubeadm's default (add the output of `kubectl -n kube-system get pods,configmap/kubeadm-config -o yaml` to read it)".into());
            }
            let roles: Vec<&str> = match (control_plane, stacked) {
                (true, true) => vec!["control-plane", "etcd"],
                (true, false) => vec!["control-plane"],
                (false, _) => vec!["worker"],
            };
            control_planes += usize::from(control_plane);
            h.insert("roles".into(), json!(roles));
            if SPOT_LABELS.iter().any(|(k, v)| label(n, k) == Some(v)) {
                h.insert("spot".into(), json!(true));
            }
            for (field, parse, fmt) in [
                (
                    "cpu",
                    cpu as fn(&str) -> Result<u64, String>,
                    fmt_cpu as fn(u64) -> String,
                ),
                ("memory", parse_memory, fmt_memory),
            ] {
                let allocatable = n["status"]["allocatable"][field].as_str();
                match allocatable.map(parse) {
                    Some(Ok(q)) => {
                        h.insert(field.into(), json!(fmt(q)));
                    }
                    Some(Err(e)) => d
                        .notes
                        .push(format!("node {original}: allocatable {field}: {e}")),
                    None => {}
                }
            }
            if host != original {
                d.notes.push(format!("node {original} is host {host}"));
            }
            d.hosts.push(Value::Object(h));
        }
        control_planes
    }

    /// What the Nodes do not show of the control plane: kube-vip (from its static pods),
    /// external etcd and the endpoint (from kubeadm-config), a managed control plane (no
    /// control-plane Node), and the load balancer in front of the apiservers.
    fn control_plane_hosts(&self, d: &mut Draft, control_planes: usize) {
        let kube_vip = self.system_pods.iter().any(|p| {
            str_of(p, &["metadata", "name"]).is_some_and(|n| n.starts_with("kube-vip"))
                || p["spec"]["containers"].as_array().is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c["image"].as_str().is_some_and(|i| i.contains("kube-vip")))
                })
        });
        if kube_vip {
            d.settings.insert("api_endpoint".into(), json!("kube-vip"));
        }
        let mut load_balancer = false;
        if let Some(cfg) = &self.cluster_config {
            if let Some(endpoints) = cfg["etcd"]["external"]["endpoints"].as_array() {
                for i in 1..=endpoints.len() {
                    let host = unique(format!("etcd-{i}"), &mut d.taken);
                    d.hosts.push(json!({"name": host, "roles": ["etcd"]}));
                }
                d.notes.push(format!(
                    "external etcd: {} members as hosts etcd-1…{} with no zone (their machines are not Nodes)",
                    endpoints.len(),
                    endpoints.len()
                ));
            }
            let endpoint = cfg["controlPlaneEndpoint"].as_str().unwrap_or_default();
            load_balancer = !endpoint.is_empty() && !kube_vip;
        }
        if control_planes == 0 {
            for i in 0..3 {
                let host = unique(format!("managed-cp-{}", i + 1), &mut d.taken);
                let mut h = json!({"name": host, "roles": ["control-plane", "etcd"]});
                if !d.zones.is_empty() {
                    h["zone"] = json!(d.zones[i % d.zones.len()]);
                }
                d.hosts.push(h);
            }
            load_balancer = true;
            d.notes.push("no control-plane Node (a managed control plane: EKS, GKE, AKS): modelled as three stacked control-plane hosts managed-cp-1…3 behind a load balancer".into());
        }
        if load_balancer {
            let host = unique("lb".into(), &mut d.taken);
            d.hosts
                .push(json!({"name": host, "roles": ["load-balancer"]}));
        }
    }

    /// The workloads outside kube-system, with CoreDNS's replicas as a setting.
    fn workloads(&self, settings: &mut Map<String, Value>, notes: &mut Vec<String>) -> Vec<Value> {
        let ns = |w: &Value| {
            str_of(w, &["metadata", "namespace"])
                .unwrap_or("default")
                .to_string()
        };
        let name_of = |w: &Value| {
            str_of(w, &["metadata", "name"])
                .unwrap_or("workload")
                .to_string()
        };
        let user: Vec<&&Value> = self
            .workloads
            .iter()
            .filter(|w| ns(w) != "kube-system")
            .collect();
        for w in self.workloads.iter().filter(|w| ns(w) == "kube-system") {
            match (w["kind"].as_str(), name_of(w).as_str()) {
                (Some("Deployment"), "coredns") => {
                    let replicas = w["spec"]["replicas"].as_u64().unwrap_or(1);
                    settings.insert("coredns_replicas".into(), json!(replicas));
                }
                (Some(kind), name) => notes.push(format!(
                    "kube-system {kind} {name}: the playground runs kube-system's own components itself"
                )),
                _ => {}
            }
        }
        // kube-system's names are the playground's own: a workload of the same name elsewhere
        // gets a number.
        let mut taken: Vec<String> = (sim::scenario::kube_system_names())
            .map(String::from)
            .collect();
        let mut out = Vec::new();
        if user.len() > sim::scenario::MAX_WORKLOADS {
            notes.push(format!(
                "{} workloads: the first {} kept",
                user.len(),
                sim::scenario::MAX_WORKLOADS
            ));
        }
        for w in user.into_iter().take(sim::scenario::MAX_WORKLOADS) {
            let (namespace, original) = (ns(w), name_of(w));
            let shared = self
                .workloads
                .iter()
                .any(|o| name_of(o) == original && ns(o) != namespace && ns(o) != "kube-system");
            let base = match shared {
                true => format!("{namespace}-{original}"),
                false => original.clone(),
            };
            let name = unique(dns_label(&base), &mut taken);
            let what = format!(
                "{} {namespace}/{original}",
                w["kind"].as_str().unwrap_or_default()
            );
            if name != original {
                notes.push(format!("{what} is workload {name}"));
            }
            let kind = w["kind"].as_str().unwrap_or("Deployment");
            let mut out_w = Map::new();
            out_w.insert("kind".into(), json!(kind));
            out_w.insert("name".into(), json!(name));
            let replicas = w["spec"]["replicas"].as_u64().unwrap_or(1);
            if kind != "DaemonSet" {
                out_w.insert("replicas".into(), json!(replicas));
            }
            let pod = &w["spec"]["template"]["spec"];
            if let Some(requests) = effective_requests(pod, &what, notes) {
                out_w.insert("requests".into(), requests);
            }
            if let Some(spread) = spread(pod, &what, notes) {
                out_w.insert("spread".into(), json!(spread));
            }
            if let Some(grace) = pod["terminationGracePeriodSeconds"].as_u64() {
                out_w.insert(
                    "termination_grace_period".into(),
                    json!(format!("{grace}s")),
                );
            }
            for (field, words) in [
                ("affinity", "affinity"),
                ("nodeSelector", "a node selector"),
                ("tolerations", "tolerations"),
            ] {
                if pod.get(field).is_some_and(|v| !v.is_null()) {
                    notes.push(format!("{what}: {words} not modelled"));
                }
            }
            let template_labels = &w["spec"]["template"]["metadata"]["labels"];
            let selected_by = |selector: &Value| {
                selector.as_object().is_some_and(|sel| {
                    !sel.is_empty() && sel.iter().all(|(k, v)| template_labels.get(k) == Some(v))
                })
            };
            let service = self
                .services
                .iter()
                .any(|s| ns(s) == namespace && selected_by(&s["spec"]["selector"]));
            if service {
                out_w.insert("service".into(), json!(true));
            }
            for b in self.budgets.iter().filter(|b| ns(b) == namespace) {
                let selector = &b["spec"]["selector"];
                if !selected_by(&selector["matchLabels"]) {
                    continue;
                }
                if selector.get("matchExpressions").is_some() {
                    notes.push(format!(
                        "PodDisruptionBudget {namespace}/{}: matchExpressions not carried over",
                        name_of(b)
                    ));
                }
                let total = if kind == "DaemonSet" {
                    None
                } else {
                    Some(replicas)
                };
                let pdb_name = format!("PodDisruptionBudget {namespace}/{}", name_of(b));
                match budget(&b["spec"], total) {
                    // The last of several wins here; Kubernetes refuses evictions under more than one.
                    Ok(pdb) => {
                        if out_w.insert("pdb".into(), pdb).is_some() {
                            notes.push(format!(
                                "{what}: more than one budget selects it; {pdb_name} kept"
                            ));
                        }
                    }
                    Err(why) => notes.push(format!("{pdb_name}: {why}, not carried over")),
                }
            }
            out.push(Value::Object(out_w));
        }
        out
    }
}

/// Millicores from a Kubernetes cpu quantity, the scenario's spellings and the ones below a
/// millicore too (`"500u"`, `"250000n"`), rounded up as the scheduler's `MilliValue` does.
fn cpu(q: &str) -> Result<u64, String> {
    let below_milli = [('u', 1_000), ('n', 1_000_000)];
    for (suffix, per_milli) in below_milli {
        if let Some(digits) = q.trim().strip_suffix(suffix) {
            let n: u64 = (digits.parse()).map_err(|_| {
                format!("{q:?} is not a cpu quantity (\"4\", \"0.5\", \"500m\", \"500u\")")
            })?;
            return parse_cpu(&format!("{}m", n.div_ceil(per_milli)));
        }
    }
    parse_cpu(q)
}

/// The requests the scheduler counts for a pod: per resource, the larger of the sum over its
/// containers and its largest init container.
fn effective_requests(pod: &Value, what: &str, notes: &mut Vec<String>) -> Option<Value> {
    let mut sum_of = |list: &str, field: &str, parse: fn(&str) -> Result<u64, String>| {
        let mut values = Vec::new();
        for c in pod[list].as_array().into_iter().flatten() {
            let Some(q) = c["resources"]["requests"][field].as_str() else {
                continue;
            };
            match parse(q) {
                Ok(v) => values.push(v),
                Err(e) => notes.push(format!("{what}: {field} request {e}, counted as none")),
            }
        }
        let sum = values.iter().fold(0u64, |a, &v| a.saturating_add(v));
        (sum, values.iter().copied().max().unwrap_or(0))
    };
    let cpu = {
        let (sum, _) = sum_of("containers", "cpu", cpu);
        let (_, init) = sum_of("initContainers", "cpu", cpu);
        sum.max(init)
    };
    let memory = {
        let (sum, _) = sum_of("containers", "memory", parse_memory);
        let (_, init) = sum_of("initContainers", "memory", parse_memory);
        sum.max(init)
    };
    if cpu == 0 && memory == 0 {
        return None;
    }
    let mut r = Map::new();
    if cpu > 0 {
        r.insert("cpu".into(), json!(fmt_cpu(cpu)));
    }
    if memory > 0 {
        r.insert("memory".into(), json!(fmt_memory(memory)));
    }
    Some(Value::Object(r))
}

/// The first hard spread constraint on the zone or the host.
fn spread(pod: &Value, what: &str, notes: &mut Vec<String>) -> Option<&'static str> {
    let constraints = pod["topologySpreadConstraints"].as_array()?;
    let mut found = None;
    for c in constraints {
        let hard = c["whenUnsatisfiable"].as_str() == Some("DoNotSchedule");
        let domain = match c["topologyKey"].as_str() {
            Some("topology.kubernetes.io/zone") => Some("zone"),
            Some("kubernetes.io/hostname") => Some("host"),
            _ => None,
        };
        match (hard, domain, found) {
            (true, Some(d), None) => {
                if c["maxSkew"].as_u64().is_some_and(|s| s != 1) {
                    notes.push(format!("{what}: maxSkew {} imported as 1", c["maxSkew"]));
                }
                found = Some(d);
            }
            (false, _, _) => notes.push(format!(
                "{what}: a ScheduleAnyway spread constraint is not modelled"
            )),
            _ => notes.push(format!(
                "{what}: a spread constraint on {} not carried over",
                c["topologyKey"].as_str().unwrap_or("?")
            )),
        }
    }
    found
}

/// `minAvailable` or `maxUnavailable`, a percentage (at most 100 %, as the API validates it)
/// rounded up against `replicas` as the disruption controller does (80 % of 6 → 5); or why not.
fn budget(spec: &Value, replicas: Option<u64>) -> Result<Value, String> {
    for (field, key) in [
        ("minAvailable", "min_available"),
        ("maxUnavailable", "max_unavailable"),
    ] {
        let value = match &spec[field] {
            Value::Number(n) => n.as_u64().ok_or(format!("{field} {n} is not a count")),
            Value::String(s) => match (s.strip_suffix('%'), replicas) {
                (Some(p), Some(r)) => match p.parse::<u64>() {
                    Ok(p) if p <= 100 => Ok((p * r).div_ceil(100)),
                    _ => Err(format!("{field} {s:?} is not a percentage of 0–100 %")),
                },
                (Some(_), None) => {
                    Err(format!("{field} {s:?}: a percentage of a DaemonSet's pods"))
                }
                (None, _) => s
                    .parse()
                    .map_err(|_| format!("{field} {s:?} is not a count")),
            },
            _ => continue,
        };
        return value.map(|v| json!({ key: v }));
    }
    Err("neither minAvailable nor maxUnavailable".into())
}
