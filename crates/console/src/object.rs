//! `kubectl get -o json|yaml`: the objects the simulation keeps, as the API serves them (the
//! fields it models, in the API's field order), printed as kubectl prints them: JSON indented
//! by 4, YAML through JSON with keys in sorted order (sigs.k8s.io/yaml), several objects as a
//! `List`. Times are RFC 3339 on the simulated clock (see `describe`).

use super::calendar::rfc3339;
use sim::k8s::objects::{Condition, Effect, Kind, Lease, Node, Pod, TaintKey};
use sim::kernel::time::SimTime;

/// A JSON value that keeps its keys in the order they were given.
#[derive(Clone, Debug, PartialEq)]
pub enum Doc {
    Str(String),
    Num(u64),
    Bool(bool),
    List(Vec<Doc>),
    Map(Vec<(&'static str, Doc)>),
    /// A map of strings whose keys are data (labels), printed as a map.
    Strings(Vec<(String, String)>),
}

fn s(v: impl Into<String>) -> Doc {
    Doc::Str(v.into())
}

fn meta(name: &str, namespace: Option<&str>, rv: u64, created: SimTime) -> Doc {
    let mut m = vec![("name", s(name))];
    if let Some(ns) = namespace {
        m.push(("namespace", s(ns)));
    }
    m.push(("resourceVersion", s(rv.to_string())));
    m.push(("creationTimestamp", s(rfc3339(created, false))));
    Doc::Map(m)
}

/// A Node's labels: the kubelet's (architecture, OS, hostname), kubeadm's on a control-plane Node
/// (its role, and out of external load balancers), and the zone (as a cloud provider sets it).
pub fn node_labels(n: &Node) -> Vec<(String, String)> {
    // The kubelet's own labels, then kubeadm's on a control-plane Node.
    let mut labels = vec![
        ("beta.kubernetes.io/arch", "amd64".into()),
        ("beta.kubernetes.io/os", "linux".into()),
        ("kubernetes.io/arch", "amd64".into()),
        ("kubernetes.io/hostname", n.name.clone()),
        ("kubernetes.io/os", "linux".into()),
    ];
    if n.control_plane {
        labels.push(("node-role.kubernetes.io/control-plane", String::new()));
        labels.push((
            "node.kubernetes.io/exclude-from-external-load-balancers",
            String::new(),
        ));
    }
    labels.push(("topology.kubernetes.io/zone", n.zone.clone()));
    let mut labels: Vec<(String, String)> = labels
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    // An operator's (`kubectl label`).
    labels.extend(n.labels.iter().map(|(k, v)| (k.clone(), v.clone())));
    labels
}

/// A workload's selector, the label its pods carry: `app=NAME`; kubeadm's as it writes them:
/// CoreDNS `k8s-app=kube-dns`, kube-proxy `k8s-app=kube-proxy`, a static pod `component=NAME`.
pub fn selector_of(workload: &str) -> (&'static str, String) {
    if workload == sim::scenario::COREDNS {
        ("k8s-app", "kube-dns".to_string())
    } else if workload == sim::scenario::KUBE_PROXY {
        ("k8s-app", workload.to_string())
    } else if sim::scenario::STATIC_PODS.contains(&workload) {
        ("component", workload.to_string())
    } else {
        ("app", workload.to_string())
    }
}

/// A pod's labels: its workload's selector and, for a Deployment's pod, the `pod-template-hash`
/// of its ReplicaSet (the middle of `NAME-HASH-SUFFIX`).
pub fn pod_labels(p: &Pod) -> Vec<(String, String)> {
    let mut labels = vec![selector_of(&p.workload)];
    if p.kind.is_none() {
        labels.push(("tier", "control-plane".to_string()));
    }
    if let Some((_, hash)) = owner_of(p)
        .1
        .rsplit_once('-')
        .filter(|_| p.kind == Some(Kind::Deployment))
    {
        labels.push(("pod-template-hash", hash.to_string()));
    }
    labels
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// The controller that owns a pod (`metadata.ownerReferences`): a Deployment's pods belong to
/// its ReplicaSet, named as the pod without its generated suffix; a static pod's mirror to its
/// Node.
pub fn owner_of(p: &Pod) -> (&'static str, &str) {
    match p.kind {
        Some(Kind::Deployment) => (
            "ReplicaSet",
            p.name.rsplit_once('-').map_or(&*p.name, |(rs, _)| rs),
        ),
        Some(Kind::StatefulSet) => ("StatefulSet", &p.workload),
        Some(Kind::DaemonSet) => ("DaemonSet", &p.workload),
        None => ("Node", p.node.as_deref().unwrap_or_default()),
    }
}

fn label_map(labels: Vec<(String, String)>) -> Doc {
    Doc::Strings(labels)
}

pub fn node(n: &Node, rv: u64, ip: &str) -> Doc {
    let Doc::Map(mut m) = meta(&n.name, None, rv, n.created) else {
        unreachable!()
    };
    m.push(("labels", label_map(node_labels(n))));
    let taints: Vec<Doc> = n
        .taints
        .iter()
        .map(|t| {
            let mut t2 = vec![("key", s(t.key.name())), ("effect", s(t.effect.name()))];
            if !t.value.is_empty() {
                t2.push(("value", s(t.value.as_str())));
            }
            // Kubernetes' components stamp the taints they add; the apiserver stamps an
            // operator's NoExecute taints only.
            let stamped = match t.key {
                TaintKey::ControlPlane => false,
                TaintKey::Other(_) => t.effect == Effect::NoExecute,
                _ => true,
            };
            if stamped {
                t2.push(("timeAdded", s(rfc3339(t.time_added, false))));
            }
            Doc::Map(t2)
        })
        .collect();
    let mut spec = Vec::new();
    if n.has_taint(sim::k8s::objects::TaintKey::Unschedulable) {
        spec.push(("unschedulable", Doc::Bool(true)));
    }
    if !taints.is_empty() {
        spec.push(("taints", Doc::List(taints)));
    }
    let (status, reason, message) = match n.ready {
        Condition::True => ("True", "KubeletReady", "kubelet is posting ready status"),
        Condition::False => ("False", "KubeletNotReady", "kubelet is not ready"),
        Condition::Unknown => (
            "Unknown",
            "NodeStatusUnknown",
            "Kubelet stopped posting node status.",
        ),
    };
    let ready = Doc::Map(vec![
        ("type", s("Ready")),
        ("status", s(status)),
        ("lastTransitionTime", s(rfc3339(n.ready_since, false))),
        ("reason", s(reason)),
        ("message", s(message)),
    ]);
    let status = Doc::Map(vec![
        ("conditions", Doc::List(vec![ready])),
        (
            "addresses",
            Doc::List(vec![
                Doc::Map(vec![("type", s("InternalIP")), ("address", s(ip))]),
                Doc::Map(vec![("type", s("Hostname")), ("address", s(&n.name))]),
            ]),
        ),
        (
            "nodeInfo",
            Doc::Map(vec![("kubeletVersion", s(super::KUBELET_VERSION))]),
        ),
    ]);
    object("v1", "Node", Doc::Map(m), Doc::Map(spec), Some(status))
}

pub fn pod(p: &Pod, namespace: &str, rv: u64, ip: Option<String>) -> Doc {
    let Doc::Map(mut m) = meta(&p.name, Some(namespace), rv, p.created) else {
        unreachable!()
    };
    if let Some(d) = p.deletion {
        m.push(("deletionTimestamp", s(rfc3339(d, false))));
    }
    m.push(("labels", label_map(pod_labels(p))));
    let (kind, owner) = owner_of(p);
    m.push((
        "ownerReferences",
        Doc::List(vec![Doc::Map(vec![
            ("apiVersion", s("apps/v1")),
            ("blockOwnerDeletion", Doc::Bool(true)),
            ("controller", Doc::Bool(true)),
            ("kind", s(kind)),
            ("name", s(owner)),
        ])]),
    ));
    let mut spec = Vec::new();
    if let Some(n) = &p.node {
        spec.push(("nodeName", s(n)));
    }
    let phase = if p.running { "Running" } else { "Pending" };
    let mut status = vec![("phase", s(phase))];
    if p.node.is_some() {
        let ready = if p.ready { "True" } else { "False" };
        status.push((
            "conditions",
            Doc::List(vec![Doc::Map(vec![
                ("type", s("Ready")),
                ("status", s(ready)),
            ])]),
        ));
    }
    if let Some(ip) = ip {
        status.push(("podIP", s(ip)));
    }
    object(
        "v1",
        "Pod",
        Doc::Map(m),
        Doc::Map(spec),
        Some(Doc::Map(status)),
    )
}

pub fn lease(name: &str, namespace: &str, l: &Lease, rv: u64) -> Doc {
    let spec = Doc::Map(vec![
        ("holderIdentity", s(&l.holder)),
        (
            "leaseDurationSeconds",
            Doc::Num(l.lease_duration.0 / 1_000_000),
        ),
        ("acquireTime", s(rfc3339(l.acquire_time, true))),
        ("renewTime", s(rfc3339(l.renew_time, true))),
        ("leaseTransitions", Doc::Num(l.transitions.into())),
    ]);
    object(
        "coordination.k8s.io/v1",
        "Lease",
        meta(name, Some(namespace), rv, l.created),
        spec,
        None,
    )
}

/// A `core/v1` Event as the API holds it (the fields the simulation keeps; `source.host` and
/// the uids are not kept).
pub fn event(name: &str, e: &sim::k8s::events::Event, posted: SimTime) -> Doc {
    let api = match e.kind {
        "Lease" => "coordination.k8s.io/v1",
        "ReplicaSet" | "StatefulSet" | "DaemonSet" => "apps/v1",
        _ => "v1",
    };
    let mut involved = vec![
        ("apiVersion", s(api)),
        ("kind", s(e.kind)),
        ("name", s(&e.name)),
    ];
    if e.kind != "Node" {
        involved.push(("namespace", s(e.namespace)));
    }
    let at = s(rfc3339(e.at, false));
    Doc::Map(vec![
        ("apiVersion", s("v1")),
        ("count", Doc::Num(1)),
        ("firstTimestamp", at.clone()),
        ("involvedObject", Doc::Map(involved)),
        ("kind", s("Event")),
        ("lastTimestamp", at),
        ("message", s(&e.message)),
        (
            "metadata",
            Doc::Map(vec![
                ("creationTimestamp", s(rfc3339(posted, false))),
                ("name", s(name)),
                ("namespace", s(e.namespace)),
            ]),
        ),
        ("reason", s(e.reason.name())),
        ("source", Doc::Map(vec![("component", s(e.source()))])),
        ("type", s(e.reason.event_type())),
    ])
}

fn object(api: &str, kind: &str, metadata: Doc, spec: Doc, status: Option<Doc>) -> Doc {
    let mut m = vec![
        ("apiVersion", s(api)),
        ("kind", s(kind)),
        ("metadata", metadata),
        ("spec", spec),
    ];
    if let Some(st) = status {
        m.push(("status", st));
    }
    Doc::Map(m)
}

/// Several objects, as kubectl wraps them.
pub fn list(items: Vec<Doc>) -> Doc {
    Doc::Map(vec![
        ("apiVersion", s("v1")),
        ("items", Doc::List(items)),
        ("kind", s("List")),
        ("metadata", Doc::Map(vec![("resourceVersion", s(""))])),
    ])
}

/// JSON as kubectl prints it: indented by 4 spaces, keys in the given order.
pub fn json(d: &Doc) -> String {
    let mut out = String::new();
    write_json(d, 0, &mut out);
    out.push('\n');
    out
}

/// A JSON string literal (also YAML's double-quoted form).
pub fn quote_json(v: &str) -> String {
    let mut q = String::from("\"");
    for c in v.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\u{:04x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

fn write_json(d: &Doc, depth: usize, out: &mut String) {
    let pad = |n: usize| " ".repeat(4 * n);
    match d {
        Doc::Str(v) => out.push_str(&quote_json(v)),
        Doc::Num(n) => out.push_str(&n.to_string()),
        Doc::Bool(b) => out.push_str(&b.to_string()),
        Doc::List(items) if items.is_empty() => out.push_str("[]"),
        Doc::Map(items) if items.is_empty() => out.push_str("{}"),
        Doc::Strings(items) if items.is_empty() => out.push_str("{}"),
        Doc::Strings(items) => {
            out.push_str("{\n");
            for (i, (k, v)) in items.iter().enumerate() {
                out.push_str(&format!(
                    "{}{}: {}",
                    pad(depth + 1),
                    quote_json(k),
                    quote_json(v)
                ));
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        Doc::List(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_json(item, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        Doc::Map(items) => {
            out.push_str("{\n");
            for (i, (k, v)) in items.iter().enumerate() {
                out.push_str(&format!("{}{}: ", pad(depth + 1), quote_json(k)));
                write_json(v, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
    }
}

/// YAML as kubectl prints it (JSON converted by sigs.k8s.io/yaml): keys sorted, lists not
/// indented under their key, strings quoted only where YAML needs it.
pub fn yaml(d: &Doc) -> String {
    let mut out = String::new();
    write_yaml(d, 0, &mut out);
    out
}

fn scalar(d: &Doc) -> Option<String> {
    match d {
        Doc::Num(n) => Some(n.to_string()),
        Doc::Bool(b) => Some(b.to_string()),
        Doc::Str(v) => Some(yaml_str(v)),
        Doc::List(l) if l.is_empty() => Some("[]".into()),
        Doc::Map(m) if m.is_empty() => Some("{}".into()),
        Doc::Strings(m) if m.is_empty() => Some("{}".into()),
        _ => None,
    }
}

/// A string as yaml.v2 writes it: plain unless it would read back as something else (a
/// number, a boolean, a timestamp, …), then double-quoted.
fn yaml_str(v: &str) -> String {
    let date = v.len() >= 10
        && v.as_bytes()[4] == b'-'
        && v.as_bytes()[7] == b'-'
        && v[..4].bytes().all(|b| b.is_ascii_digit());
    let special = v.is_empty()
        || date
        || looks_numeric(v)
        || [
            "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~",
        ]
        .contains(&v.to_ascii_lowercase().as_str())
        || v.starts_with([
            ' ', '-', '?', ':', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%',
            '@', '`', ',',
        ])
        || v.ends_with([' ', ':'])
        || v.contains(": ")
        || v.contains(" #")
        || v.chars().any(|c| c.is_control());
    if special {
        super::object::quote_json(v)
    } else {
        v.to_string()
    }
}

/// Whether YAML would read `v` as a number: digits with an optional sign, at most one point and
/// an optional exponent (`"44"`, `"1.5"`, `"1e3"`; not an address like `10.244.1.7`).
fn looks_numeric(v: &str) -> bool {
    let unsigned = |s: &str| s.strip_prefix(['+', '-']).unwrap_or(s).to_string();
    let body = unsigned(v);
    let (mantissa, exp) = body.split_once(['e', 'E']).unwrap_or((&body, "0"));
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let exp = unsigned(exp);
    !(whole.is_empty() && frac.is_empty())
        && digits(whole)
        && digits(frac)
        && !exp.is_empty()
        && digits(&exp)
}

fn write_yaml(d: &Doc, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    match d {
        Doc::Map(items) => {
            let mut sorted: Vec<&(&str, Doc)> = items.iter().collect();
            sim::kernel::sort::sort_by(&mut sorted, |a, b| a.0.cmp(b.0));
            for (k, v) in sorted {
                match scalar(v) {
                    Some(text) => out.push_str(&format!("{pad}{}: {text}\n", yaml_str(k))),
                    None => {
                        out.push_str(&format!("{pad}{}:\n", yaml_str(k)));
                        // Lists sit at their key's indentation; maps one level in.
                        let next = if matches!(v, Doc::List(_)) {
                            depth
                        } else {
                            depth + 1
                        };
                        write_yaml(v, next, out);
                    }
                }
            }
        }
        Doc::Strings(items) => {
            let mut sorted: Vec<&(String, String)> = items.iter().collect();
            sim::kernel::sort::sort_by(&mut sorted, |a, b| a.0.cmp(&b.0));
            for (k, v) in sorted {
                out.push_str(&format!("{pad}{}: {}\n", yaml_str(k), yaml_str(v)));
            }
        }
        Doc::List(items) => {
            for item in items {
                match scalar(item) {
                    Some(text) => out.push_str(&format!("{pad}- {text}\n")),
                    None => {
                        // The item's first line follows the dash; the rest one level in.
                        let mut inner = String::new();
                        write_yaml(item, depth + 1, &mut inner);
                        let body = inner
                            .strip_prefix(&"  ".repeat(depth + 1))
                            .unwrap_or(&inner);
                        out.push_str(&format!("{pad}- {body}"));
                    }
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other).unwrap_or_default())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_sorts_keys_and_puts_lists_at_their_keys_indentation() {
        let d = Doc::Map(vec![
            (
                "spec",
                Doc::Map(vec![(
                    "taints",
                    Doc::List(vec![Doc::Map(vec![
                        ("key", s("a")),
                        ("effect", s("NoExecute")),
                    ])]),
                )]),
            ),
            ("kind", s("Node")),
            (
                "metadata",
                Doc::Map(vec![
                    ("resourceVersion", s("12")),
                    ("labels", Doc::Map(vec![("x", s(""))])),
                ]),
            ),
        ]);
        assert_eq!(
            yaml(&d),
            "kind: Node\nmetadata:\n  labels:\n    x: \"\"\n  resourceVersion: \"12\"\nspec:\n  taints:\n  - effect: NoExecute\n    key: a\n"
        );
        assert_eq!(
            json(&d),
            "{\n    \"spec\": {\n        \"taints\": [\n            {\n                \"key\": \"a\",\n                \"effect\": \"NoExecute\"\n            }\n        ]\n    },\n    \"kind\": \"Node\",\n    \"metadata\": {\n        \"resourceVersion\": \"12\",\n        \"labels\": {\n            \"x\": \"\"\n        }\n    }\n}\n"
        );
        assert_eq!(
            rfc3339(SimTime(65_250_000), true),
            "2025-01-01T00:01:05.250000Z"
        );
    }

    #[test]
    fn yaml_quotes_what_would_read_back_as_a_number_and_nothing_else() {
        // yaml.v2 quotes a string its resolver would take for an int or a float.
        for v in ["44", "-3", "+1.5", "1.", ".5", "1e3", "2E-4"] {
            assert_eq!(yaml_str(v), format!("\"{v}\""), "{v}");
        }
        for v in ["10.244.1.7", "6b9f6cd69", "1.2.3", "e3", "1e", "4h"] {
            assert_eq!(yaml_str(v), v, "{v}");
        }
    }
}
