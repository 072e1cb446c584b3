//! `kubectl describe node NAME`, `describe pod NAME` and, through kubectl's generic describer,
//! `describe lease NAME`: the object read through the API as kubectl reads it, printed as
//! kubectl's describers print it (kubectl `pkg/describe/describe.go`: `describeNode`,
//! `describePod`, `printUnstructuredContent`). What the simulation does not model is left out
//! (annotations, capacity, system info, events) or stated: the pressure conditions follow Ready
//! (False while the kubelet posts, Unknown with it), and a condition's heartbeat is the last
//! sign of life the API has (the condition's transition while Ready, the lease's renewal after).

use super::calendar::date;
use super::object::Doc;
use super::table::{align, human_duration};
use sim::k8s::objects::{Condition, Lease, Node, Object, Pod};
use sim::kernel::time::SimTime;

/// The describer's text for `node`, its lease (if any) and the pods bound to it, at `now`.
pub fn node(
    n: &Node,
    lease: Option<&Lease>,
    objects: &[&Object],
    ip: &str,
    now: SimTime,
) -> String {
    let mut out = format!("Name:               {}\n", n.name);
    let role = if n.control_plane {
        "control-plane"
    } else {
        "<none>"
    };
    out.push_str(&format!("Roles:              {role}\n"));
    let mut labels = vec![format!("kubernetes.io/hostname={}", n.name)];
    if n.control_plane {
        labels.push("node-role.kubernetes.io/control-plane=".into());
    }
    labels.push(format!("topology.kubernetes.io/zone={}", n.zone));
    out.push_str(&format!(
        "Labels:             {}\n",
        labels.join("\n                    ")
    ));
    out.push_str("Annotations:        <none>\n");
    out.push_str(&format!("CreationTimestamp:  {}\n", date(n.created)));
    let taints: Vec<String> = n
        .taints
        .iter()
        .map(|t| format!("{}:{}", t.key.name(), super::object::effect(t.effect)))
        .collect();
    let taints = if taints.is_empty() {
        "<none>".to_string()
    } else {
        taints.join("\n                    ")
    };
    out.push_str(&format!("Taints:             {taints}\n"));
    let cordoned = n.has_taint(sim::k8s::objects::TaintKey::Unschedulable);
    out.push_str(&format!("Unschedulable:      {cordoned}\n"));
    out.push_str("Lease:\n");
    match lease {
        Some(l) => out.push_str(&format!(
            "  HolderIdentity:  {}\n  AcquireTime:     <unset>\n  RenewTime:       {}\n",
            l.holder,
            date(l.renew_time)
        )),
        None => out.push_str("  Failed to get lease: leases.coordination.k8s.io \"not found\"\n"),
    }
    // The pressure conditions follow Ready; Unknown is what the node lifecycle controller writes.
    let (since, heartbeat) = match (n.ready, lease) {
        (Condition::True, _) | (_, None) => (n.ready_since, n.ready_since),
        (_, Some(l)) => (n.ready_since, l.renew_time),
    };
    let rows: [(&str, &str, &str, &str); 4] = match n.ready {
        Condition::True => [
            (
                "MemoryPressure",
                "False",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            (
                "DiskPressure",
                "False",
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure",
            ),
            (
                "PIDPressure",
                "False",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
            ),
            (
                "Ready",
                "True",
                "KubeletReady",
                "kubelet is posting ready status",
            ),
        ],
        _ => {
            let gone = (
                "Unknown",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            );
            [
                ("MemoryPressure", gone.0, gone.1, gone.2),
                ("DiskPressure", gone.0, gone.1, gone.2),
                ("PIDPressure", gone.0, gone.1, gone.2),
                ("Ready", gone.0, gone.1, gone.2),
            ]
        }
    };
    let mut table = vec![
        [
            "  Type",
            "Status",
            "LastHeartbeatTime",
            "LastTransitionTime",
            "Reason",
            "Message",
        ]
        .map(String::from)
        .to_vec(),
        [
            "  ----",
            "------",
            "-----------------",
            "------------------",
            "------",
            "-------",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for (kind, status, reason, message) in rows {
        table.push(vec![
            format!("  {kind}"),
            status.into(),
            date(heartbeat),
            date(since),
            reason.into(),
            message.into(),
        ]);
    }
    out.push_str("Conditions:\n");
    out.push_str(&align(&table, 0, 2));
    out.push_str(&format!(
        "Addresses:\n  InternalIP:  {ip}\n  Hostname:    {}\n",
        n.name
    ));
    let namespace = super::kubectl::namespace_of;
    let mut pods: Vec<&Pod> = objects
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| p.node.as_deref() == Some(n.name.as_str()))
        .collect();
    sim::kernel::sort::sort_by(&mut pods, |a, b| {
        (namespace(a), &a.name).cmp(&(namespace(b), &b.name))
    });
    out.push_str(&format!(
        "Non-terminated Pods:          ({} in total)\n",
        pods.len()
    ));
    let mut table = vec![
        [
            "  Namespace",
            "Name",
            "CPU Requests",
            "CPU Limits",
            "Memory Requests",
            "Memory Limits",
            "Age",
        ]
        .map(String::from)
        .to_vec(),
        [
            "  ---------",
            "----",
            "------------",
            "----------",
            "---------------",
            "-------------",
            "---",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for p in pods {
        let zero = "0 (0%)".to_string();
        let age = human_duration((now.0.saturating_sub(p.created.0)) as f64 / 1e6);
        table.push(vec![
            format!("  {}", namespace(p)),
            p.name.clone(),
            zero.clone(),
            zero.clone(),
            zero.clone(),
            zero,
            age,
        ]);
    }
    // The label and the pods' first column share one tabwriter block in kubectl's output: that
    // column is as wide as "Non-terminated Pods:" and its padding to 30.
    for row in &mut table {
        row[0] = format!("{:<28}", row[0]);
    }
    out.push_str(&align(&table, 0, 2));
    out.push_str("Events:                       <none>\n");
    out
}

/// The describer's text for a pod: where it runs, its labels, its state, its owner, its
/// conditions and the tolerations that decide when a lost node's pod is evicted. Containers and
/// volumes are not modelled and left out.
pub fn pod(
    p: &Pod,
    namespace: &str,
    node_ip: Option<&str>,
    ip: &str,
    toleration_s: u64,
    now: SimTime,
) -> String {
    let node = match (&p.node, node_ip) {
        (Some(n), Some(a)) => format!("{n}/{a}"),
        (Some(n), None) => n.clone(),
        (None, _) => "<none>".into(),
    };
    let status = match (p.deletion, p.running) {
        (Some(d), _) => format!(
            "Terminating (lasts {})",
            human_duration(now.0.saturating_sub(d.0) as f64 / 1e6)
        ),
        (None, true) => "Running".into(),
        (None, false) => "Pending".into(),
    };
    let labels: Vec<String> = super::object::pod_labels(p)
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let (kind, owner) = super::object::owner_of(p);
    let mut out = format!(
        "Name:             {}\nNamespace:        {namespace}\nPriority:         0\nService Account:  default\nNode:             {node}\nStart Time:       {}\nLabels:           {}\nAnnotations:      <none>\nStatus:           {status}\nIP:               {ip}\nControlled By:    {kind}/{owner}\n",
        p.name,
        date(p.created),
        labels.join("\n                  "),
    );
    if p.deletion.is_some() {
        out.push_str("Termination Grace Period:  30s\n");
    }
    let yes = |b: bool| if b { "True " } else { "False " };
    let table = vec![
        vec!["  Type".to_string(), "Status".into()],
        vec!["  Initialized".into(), yes(p.node.is_some()).into()],
        vec!["  Ready".into(), yes(p.ready).into()],
        vec!["  ContainersReady".into(), yes(p.ready).into()],
        vec!["  PodScheduled".into(), yes(p.node.is_some()).into()],
    ];
    out.push_str("Conditions:\n");
    out.push_str(&align(&table, 0, 2));
    // A DaemonSet's pods tolerate every node condition for ever; others get the admission
    // controller's defaults, evicted `toleration_s` after their node turns unreachable.
    let tolerations: Vec<String> = if p.tolerates_everything() {
        [
            "node.kubernetes.io/disk-pressure:NoSchedule op=Exists",
            "node.kubernetes.io/memory-pressure:NoSchedule op=Exists",
            "node.kubernetes.io/not-ready:NoExecute op=Exists",
            "node.kubernetes.io/pid-pressure:NoSchedule op=Exists",
            "node.kubernetes.io/unreachable:NoExecute op=Exists",
            "node.kubernetes.io/unschedulable:NoSchedule op=Exists",
        ]
        .map(String::from)
        .to_vec()
    } else {
        ["not-ready", "unreachable"]
            .map(|k| format!("node.kubernetes.io/{k}:NoExecute op=Exists for {toleration_s}s"))
            .to_vec()
    };
    out.push_str(&format!(
        "QoS Class:                   BestEffort\nNode-Selectors:              <none>\nTolerations:                 {}\nEvents:                      <none>\n",
        tolerations.join("\n                             ")
    ));
    out
}

/// The generic describer kubectl uses for kinds without their own (Leases among them): name,
/// namespace, labels and annotations, then every field of the object, keys sorted and turned
/// into words ("renewTime" → "Renew Time"), nested fields indented by two, each run of
/// `key: value` lines aligned as one tabwriter block (kubectl `printUnstructuredContent`).
pub fn generic(name: &str, namespace: &str, doc: &Doc) -> String {
    let mut lines: Vec<(String, Option<String>)> = vec![
        ("Name:".into(), Some(name.into())),
        ("Namespace:".into(), Some(namespace.into())),
        ("Labels:".into(), Some("<none>".into())),
        ("Annotations:".into(), Some("<none>".into())),
    ];
    if let Doc::Map(fields) = doc {
        fields_of(fields, 0, true, &mut lines);
    }
    lines.push(("Events:".into(), Some("<none>".into())));
    // Consecutive `key: value` lines share one column; a line without a value ends the run.
    let lines: Vec<String> = lines
        .into_iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k}\t{v}"),
            None => k,
        })
        .collect();
    super::table::tabwrite(&lines)
}

fn fields_of(
    fields: &[(&str, Doc)],
    level: usize,
    top: bool,
    lines: &mut Vec<(String, Option<String>)>,
) {
    let mut sorted: Vec<&(&str, Doc)> = fields.iter().collect();
    sim::kernel::sort::sort_by(&mut sorted, |a, b| a.0.cmp(b.0));
    let pad = "  ".repeat(level);
    for (key, value) in sorted {
        if top && matches!(*key, "name" | "namespace" | "labels" | "annotations") {
            continue;
        }
        let label = format!("{pad}{}:", words(key));
        match value {
            Doc::Map(inner) => {
                lines.push((label, None));
                fields_of(inner, level + 1, *key == "metadata", lines);
            }
            Doc::List(items) => {
                lines.push((label, None));
                for item in items {
                    match item {
                        Doc::Map(inner) => fields_of(inner, level + 1, false, lines),
                        other => lines.push((format!("{pad}  {}", scalar(other)), None)),
                    }
                }
            }
            other => lines.push((label, Some(scalar(other)))),
        }
    }
}

fn scalar(d: &Doc) -> String {
    match d {
        Doc::Str(s) => s.clone(),
        Doc::Num(n) => n.to_string(),
        Doc::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// kubectl's `smartLabelFor`: camelCase split into capitalised words, known acronyms upper-case.
fn words(key: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in key.chars() {
        if c.is_ascii_uppercase() || parts.is_empty() {
            parts.push(String::new());
        }
        if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts
        .iter()
        .map(|w| match w.to_ascii_uppercase().as_str() {
            a @ ("API" | "URL" | "UID" | "IP" | "ID") => a.to_string(),
            _ => {
                let mut cs = w.chars();
                cs.next().map_or(String::new(), |f| {
                    f.to_ascii_uppercase().to_string() + cs.as_str()
                })
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
