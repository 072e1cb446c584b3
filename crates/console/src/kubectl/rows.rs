//! The rows of kubectl's tables, one function per resource, as kubernetes'
//! `pkg/printers/internalversion/printers.go` prints them; and what the rows and describers
//! share: namespaces, pod IPs, a Service's workload and endpoints, events in kubectl's order.

use super::client::not_found;
use super::flags::{selects, Flags};
use super::Resource;
use crate::ip_of;
use crate::table::human_duration;
use crate::words::clip;
use sim::k8s::objects::{
    Budget, Condition, Kind, Lease, Node, Object, Pod, PodDisruptionBudget, TaintKey,
};
use sim::kernel::net::HostId;
use sim::kernel::time::SimTime;
use sim::scenario::COREDNS;
use sim::world::World;

pub(super) fn age(now: SimTime, created: SimTime) -> String {
    human_duration((now.0 as f64 - created.0 as f64) / 1e6)
}

pub(super) fn node_rows(
    world: &World,
    nodes: &[&Node],
    now: SimTime,
    wide: bool,
) -> Vec<Vec<String>> {
    let mut header = vec!["NAME", "STATUS", "ROLES", "AGE", "VERSION"];
    if wide {
        header.extend([
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME",
        ]);
    }
    let mut rows = vec![header.into_iter().map(String::from).collect()];
    for n in nodes {
        // Only the Ready condition counts; Unknown prints NotReady.
        let mut status = match n.ready {
            Condition::True => "Ready".to_string(),
            Condition::False | Condition::Unknown => "NotReady".to_string(),
        };
        if n.has_taint(TaintKey::Unschedulable) {
            status.push_str(",SchedulingDisabled");
        }
        let roles = if n.control_plane {
            "control-plane"
        } else {
            "<none>"
        };
        let mut row = vec![
            n.name.clone(),
            status,
            roles.into(),
            age(now, n.created),
            crate::KUBELET_VERSION.into(),
        ];
        if wide {
            let ip = world
                .scenario()
                .host(&n.name)
                .map_or("<none>".to_string(), |(i, _)| ip_of(i as HostId));
            row.extend([
                ip,
                "<none>".into(),
                "<unknown>".into(),
                "<unknown>".into(),
                "<unknown>".into(),
            ]);
        }
        rows.push(row);
    }
    rows
}

/// Deployments (READY, UP-TO-DATE, AVAILABLE), StatefulSets (READY), DaemonSets (DESIRED,
/// CURRENT, READY, UP-TO-DATE, AVAILABLE, NODE SELECTOR) or ReplicaSets (DESIRED, CURRENT, READY:
/// printers.go `printReplicaSet`). The counts are the pods the API holds for the workload now,
/// not a status a controller last wrote.
pub(super) fn workload_rows(
    objects: &[&Object],
    resource: Resource,
    now: SimTime,
    names: &[&str],
    namespace: &str,
    all_namespaces: bool,
    wide: bool,
) -> Vec<Vec<String>> {
    let (kind, replica_sets) = match resource {
        Resource::Workloads(kind) => (kind, false),
        _ => (Kind::Deployment, true),
    };
    let header: &[&str] = match kind {
        Kind::Deployment if replica_sets => &["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
        Kind::Deployment => &["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        Kind::StatefulSet => &["NAME", "READY", "AGE"],
        Kind::DaemonSet => &[
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE SELECTOR",
            "AGE",
        ],
    };
    let mut header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    // `-o wide`: the pod template's containers and images, and the selector (a StatefulSet's
    // printer has no selector column).
    if wide {
        header.extend(["CONTAINERS", "IMAGES"].map(String::from));
        if kind != Kind::StatefulSet {
            header.push("SELECTOR".into());
        }
    }
    if all_namespaces {
        header.insert(0, "NAMESPACE".into());
    }
    // The Nodes a DaemonSet's pod may run on.
    let nodes = objects
        .iter()
        .filter_map(|o| o.as_node())
        .filter(|n| n.admits_daemon_pods())
        .count();
    let mut rows = vec![header];
    for ns in ["default", "kube-system"] {
        if !all_namespaces && ns != namespace {
            continue;
        }
        for w in objects.iter().filter_map(|o| o.as_workload()) {
            let w_ns = workload_namespace(&w.name);
            let name = match replica_sets {
                true => w.replica_set(),
                false => w.name.clone(),
            };
            if w.kind != kind || w_ns != ns || !(names.is_empty() || names.contains(&name.as_str()))
            {
                continue;
            }
            let pods: Vec<&Pod> = objects
                .iter()
                .filter_map(|o| o.as_pod())
                .filter(|p| p.workload == w.name && p.deletion.is_none())
                .collect();
            let current = pods.len();
            let ready = pods.iter().filter(|p| p.ready).count();
            let mut row = match kind {
                Kind::Deployment if replica_sets => vec![
                    name,
                    w.replicas.to_string(),
                    current.to_string(),
                    ready.to_string(),
                ],
                Kind::Deployment => vec![
                    w.name.clone(),
                    format!("{ready}/{}", w.replicas),
                    current.to_string(),
                    ready.to_string(),
                ],
                Kind::StatefulSet => vec![w.name.clone(), format!("{ready}/{}", w.replicas)],
                Kind::DaemonSet => vec![
                    w.name.clone(),
                    nodes.to_string(),
                    current.to_string(),
                    ready.to_string(),
                    current.to_string(),
                    ready.to_string(),
                    "<none>".into(),
                ],
            };
            row.push(age(now, w.created));
            if wide {
                // The container is named after the workload; images are not modelled.
                row.extend([w.name.clone(), "<unknown>".into()]);
                let (label, value) = crate::object::selector_of(&w.name);
                match kind {
                    Kind::StatefulSet => {}
                    _ if replica_sets => row.push(format!(
                        "{label}={value},pod-template-hash={}",
                        w.replica_set().rsplit('-').next().unwrap_or_default()
                    )),
                    _ => row.push(format!("{label}={value}")),
                }
            }
            if all_namespaces {
                row.insert(0, ns.into());
            }
            rows.push(row);
        }
    }
    rows
}

/// The Endpoints of each Service: its ready pods' addresses, at most three then ` + N more...`
/// (printers.go `formatEndpoints`); `<none>` without any. A Service is as old as its workload.
/// The Services (`services`) or their Endpoints (`endpoints`): one per workload with a Service
/// (CoreDNS's is kubeadm's `kube-dns` in kube-system; the others NodePort Services, the ports
/// of [`crate::node_port`]), addresses from the EndpointSlices.
pub(super) fn service_rows(
    world: &World,
    objects: &[&Object],
    now: SimTime,
    names: &[&str],
    namespace: &str,
    flags: &Flags,
    kind: Resource,
) -> Vec<Vec<String>> {
    let services = kind == Resource::Services;
    let slices = kind == Resource::Slices;
    let header: &[&str] = match kind {
        Resource::Services => &[
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE",
        ],
        Resource::Slices => &["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"],
        _ => &["NAME", "ENDPOINTS", "AGE"],
    };
    let mut header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    if flags.all_namespaces {
        header.insert(0, "NAMESPACE".into());
    }
    let pods: Vec<&Pod> = objects.iter().filter_map(|o| o.as_pod()).collect();
    let mut rows = vec![header];
    for ns in ["default", "kube-system"] {
        if !flags.all_namespaces && ns != namespace {
            continue;
        }
        let mut chunk: Vec<Vec<String>> = Vec::new();
        // The API's own Service, made with the cluster, and its endpoints: the apiservers.
        if ns == "default" && (names.is_empty() || names.contains(&"kubernetes")) {
            let mut row = vec!["kubernetes".to_string()];
            if services {
                row.extend(["ClusterIP", "10.96.0.1", "<none>", "443/TCP"].map(String::from));
            } else {
                let ips = apiserver_addresses(world);
                if slices {
                    row.extend(["IPv4".to_string(), "6443".to_string()]);
                }
                let shown: Vec<String> = (ips.iter())
                    .map(|ip| {
                        if slices {
                            ip.clone()
                        } else {
                            format!("{ip}:6443")
                        }
                    })
                    .collect();
                row.push(match shown.len() {
                    0 => "<none>".to_string(),
                    n if n <= 3 => shown.join(","),
                    n => format!("{} + {} more...", shown[..3].join(","), n - 3),
                });
            }
            row.push(age(now, SimTime::ZERO));
            chunk.push(row);
        }
        for w in objects
            .iter()
            .filter_map(|o| o.as_workload())
            .filter(|w| w.service)
        {
            let dns = w.name == COREDNS;
            // kubeadm names CoreDNS's Service kube-dns.
            let (name, w_ns) = match dns {
                true => ("kube-dns", "kube-system"),
                false => (w.name.as_str(), "default"),
            };
            // A Service's one EndpointSlice is named after it with a random suffix (here a
            // hash of its name, in the API's alphabet for generated names).
            let shown = match slices {
                true => slice_name(name),
                false => name.to_string(),
            };
            if w_ns != ns || !(names.is_empty() || names.contains(&shown.as_str())) {
                continue;
            }
            let mut row = vec![shown];
            if services {
                let (ip, ports) = match (dns, crate::node_port(world, &w.name)) {
                    (true, _) => ("10.96.0.10".into(), "53/UDP,53/TCP,9153/TCP".into()),
                    (false, Some(p)) => (crate::cluster_ip(p), format!("80:{p}/TCP")),
                    (false, None) => ("<none>".into(), "<none>".into()),
                };
                row.extend([
                    if dns { "ClusterIP" } else { "NodePort" }.to_string(),
                    ip,
                    "<none>".into(),
                    ports,
                ]);
            } else {
                let port = (!slices).then_some(if dns { 53 } else { 80 });
                let addresses = endpoint_addresses(world, objects, &pods, &w.name, port);
                if slices {
                    let ports = if dns { "53,53,9153" } else { "80" };
                    row.extend(["IPv4".to_string(), ports.to_string()]);
                }
                row.push(match addresses.len() {
                    0 => "<none>".to_string(),
                    n if n <= 3 => addresses.join(","),
                    n => format!("{} + {} more...", addresses[..3].join(","), n - 3),
                });
            }
            row.push(age(now, w.created));
            chunk.push(row);
        }
        // The API lists a namespace's objects by name.
        sim::kernel::sort::sort_by(&mut chunk, |a, b| a[0].cmp(&b[0]));
        for mut row in chunk {
            if flags.all_namespaces {
                row.insert(0, ns.into());
            }
            rows.push(row);
        }
    }
    rows
}

/// The addresses of the `kubernetes` Service: each apiserver that runs with its cache synced
/// (it renews its master lease; one that cannot is dropped 15 s after its last renewal in a real
/// cluster), in host order.
fn apiserver_addresses(world: &World) -> Vec<String> {
    (0..world.scenario().hosts.len() as HostId)
        .filter(|&h| world.apiserver_ready(h))
        .map(crate::ip_of)
        .collect()
}

/// The pods in `service`'s EndpointSlice (its ready endpoints), in the slice's order.
pub(crate) fn endpoint_pods<'a>(
    objects: &[&Object],
    pods: &[&'a Pod],
    service: &str,
) -> Vec<&'a Pod> {
    let slice = objects
        .iter()
        .filter_map(|o| o.as_endpoint_slice())
        .find(|s| s.service == service);
    slice
        .map(|s| {
            s.endpoints
                .iter()
                .filter_map(|e| pods.iter().find(|p| p.name == e.pod).copied())
                .collect()
        })
        .unwrap_or_default()
}

/// The addresses of the pods in `service`'s EndpointSlice, with `:port` when given.
pub(super) fn endpoint_addresses(
    world: &World,
    objects: &[&Object],
    pods: &[&Pod],
    service: &str,
    port: Option<u16>,
) -> Vec<String> {
    endpoint_pods(objects, pods, service)
        .into_iter()
        .map(|p| match port {
            None => pod_ip(world, p),
            Some(port) => format!("{}:{port}", pod_ip(world, p)),
        })
        .collect()
}

/// The workload behind Service `service` in `namespace`: a workload's own NodePort Service in
/// `default`, or kubeadm's kube-dns in kube-system, which selects CoreDNS (no Service is named
/// after CoreDNS itself).
pub(crate) fn service_workload<'a>(
    objects: &[&'a Object],
    namespace: &str,
    service: &str,
) -> Option<&'a str> {
    let name = match (namespace, service) {
        ("kube-system", "kube-dns") => COREDNS,
        (_, COREDNS) => return None,
        _ => service,
    };
    objects
        .iter()
        .filter_map(|o| o.as_workload())
        .find(|w| w.name == name && w.service && workload_namespace(&w.name) == namespace)
        .map(|w| w.name.as_str())
}

/// Leases by (namespace/name): NAME, HOLDER, AGE.
/// The Events the API holds (written within the last hour), in the order it lists them: by
/// namespace, then by name, `OBJECT.HEX` with the time in nanoseconds since 1970 (printers.go
/// `printEvent`: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; with `-A` NAMESPACE first). A name
/// asked for and not held is the error's name.
pub(super) fn event_rows(
    events: &Events,
    now: SimTime,
    names: &[&str],
    namespace: &str,
    flags: &Flags,
) -> Result<Vec<Vec<String>>, (String, i32)> {
    let all_namespaces = flags.all_namespaces;
    let listed = listed_events(events, now, names, namespace, flags)?;
    let mut header: Vec<String> = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
        .map(String::from)
        .to_vec();
    if all_namespaces {
        header.insert(0, "NAMESPACE".into());
    }
    let mut rows = vec![header];
    for (_, e, _) in listed {
        let mut row = vec![
            age(now, e.at),
            e.reason.event_type().into(),
            e.reason.name().into(),
            format!("{}/{}", e.kind.to_ascii_lowercase(), e.name),
            e.message.clone(),
        ];
        if all_namespaces {
            row.insert(0, e.namespace.into());
        }
        rows.push(row);
    }
    Ok(rows)
}

/// A Service's one EndpointSlice, named after it with a random suffix (here a hash of its name,
/// in the API's alphabet for generated names).
pub(super) fn slice_name(service: &str) -> String {
    let h = sim::kernel::rng::Rng::new(crate::etcdctl::member_id(service)).next_u64();
    let alphabet = sim::k8s::objects::ALPHANUMS;
    let suffix: String = (0..5)
        .map(|i| alphabet[(h >> (8 * i)) as usize % alphabet.len()] as char)
        .collect();
    format!("{service}-{suffix}")
}

pub(super) type Events = std::collections::VecDeque<(SimTime, sim::k8s::events::Event)>;

/// Events as listed: each with its name and when it was written.
pub(super) type Listed<'a> = Vec<(String, &'a sim::k8s::events::Event, SimTime)>;

/// The Events the API holds at `now` (written within the last hour) in `namespace` (or all),
/// those named if any, in the order it lists them: by namespace, then by name; each with its
/// name and when it was written. A name asked for and not held is the error's name.
pub(super) fn listed_events<'a>(
    events: &'a Events,
    now: SimTime,
    names: &[&str],
    namespace: &str,
    flags: &Flags,
) -> Result<Listed<'a>, (String, i32)> {
    let ttl = sim::k8s::events::EVENT_TTL;
    // The fields an Event can be selected by (as the apiserver's field selectors name them).
    let fields = |e: &sim::k8s::events::Event| {
        vec![
            ("involvedObject.kind", e.kind.to_string()),
            ("involvedObject.name", e.name.clone()),
            ("involvedObject.namespace", e.namespace.to_string()),
            ("reason", e.reason.name().to_string()),
            ("source", e.source().to_string()),
            ("type", e.reason.event_type().to_string()),
        ]
    };
    let mut listed: Vec<(String, &sim::k8s::events::Event, SimTime)> = events
        .iter()
        .filter(|(posted, _)| *posted <= now && now - *posted < ttl)
        .map(|(posted, e)| (event_name(e), e, *posted))
        .filter(|(name, e, _)| {
            (flags.all_namespaces || e.namespace == namespace)
                && (names.is_empty() || names.contains(&name.as_str()))
                && flags
                    .fields
                    .as_deref()
                    .is_none_or(|f| selects(f, &fields(e)))
        })
        .collect();
    if let Some(missing) = names.iter().find(|n| !listed.iter().any(|l| l.0 == **n)) {
        return Err(not_found("events", missing));
    }
    sim::kernel::sort::sort_by(&mut listed, |a, b| {
        (a.1.namespace != "default", &a.0).cmp(&(b.1.namespace != "default", &b.0))
    });
    // `--sort-by` a time: oldest first (one Event's first and last are one moment here).
    match flags.sort_by.as_deref() {
        None => {}
        Some(".lastTimestamp" | ".firstTimestamp" | ".eventTime") => {
            sim::kernel::sort::sort_by_key(&mut listed, |l| l.1.at)
        }
        Some(".metadata.creationTimestamp") => sim::kernel::sort::sort_by_key(&mut listed, |l| l.2),
        Some(other) => {
            let text = format!(
                "error: this console sorts events by .lastTimestamp, .firstTimestamp or .metadata.creationTimestamp, not {}\n",
                clip(other)
            );
            return Err((text, 1));
        }
    }
    Ok(listed)
}

/// An Event's name as client-go's recorder makes it: the object's name, a point, and the time
/// in nanoseconds since 1970 in hexadecimal.
pub(super) fn event_name(e: &sim::k8s::events::Event) -> String {
    format!("{}.{:x}", e.name, crate::calendar::unix_nanos(e.at))
}

pub(super) fn lease_rows(
    leases: &[(&str, &Lease)],
    now: SimTime,
    all_namespaces: bool,
) -> Vec<Vec<String>> {
    let mut rows = vec![if all_namespaces {
        vec![
            "NAMESPACE".into(),
            "NAME".into(),
            "HOLDER".into(),
            "AGE".into(),
        ]
    } else {
        vec!["NAME".into(), "HOLDER".into(), "AGE".into()]
    }];
    for (path, l) in leases {
        let (ns, name) = path.split_once('/').unwrap_or(("", path));
        let mut row = vec![name.to_string(), l.holder.clone(), age(now, l.created)];
        if all_namespaces {
            row.insert(0, ns.to_string());
        }
        rows.push(row);
    }
    rows
}

/// kubectl's PodDisruptionBudget columns: the budget's rule ("N/A" for the other) and the
/// disruptions its status allows now (0 until the disruption controller has computed it).
pub(super) fn budget_rows(
    budgets: &[&PodDisruptionBudget],
    now: SimTime,
    all_namespaces: bool,
) -> Vec<Vec<String>> {
    let mut header: Vec<String> = [
        "NAME",
        "MIN AVAILABLE",
        "MAX UNAVAILABLE",
        "ALLOWED DISRUPTIONS",
        "AGE",
    ]
    .map(String::from)
    .into();
    if all_namespaces {
        header.insert(0, "NAMESPACE".into());
    }
    let mut rows = vec![header];
    for b in budgets {
        let (min, max) = match b.budget {
            Budget::MinAvailable(n) => (n.to_string(), "N/A".to_string()),
            Budget::MaxUnavailable(n) => ("N/A".to_string(), n.to_string()),
        };
        let allowed = if b.observed { b.disruptions_allowed } else { 0 };
        let mut row = vec![
            b.name.clone(),
            min,
            max,
            allowed.to_string(),
            age(now, b.created),
        ];
        if all_namespaces {
            row.insert(0, "default".into());
        }
        rows.push(row);
    }
    rows
}

/// CoreDNS runs in kube-system; the scenario's workloads in default.
/// A workload's namespace: the core's (kubeadm's CoreDNS in kube-system).
pub(super) use sim::k8s::events::namespace_of as workload_namespace;

/// A pod's namespace: its workload's.
pub(super) fn namespace_of(p: &Pod) -> &'static str {
    workload_namespace(&p.workload)
}

pub(super) fn pod_rows(
    world: &World,
    pods: &[&Pod],
    now: SimTime,
    flags: &Flags,
) -> Vec<Vec<String>> {
    let mut header = vec!["NAME", "READY", "STATUS", "RESTARTS", "AGE"];
    if flags.wide {
        header.extend(["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]);
    }
    if flags.all_namespaces {
        header.insert(0, "NAMESPACE");
    }
    let mut rows = vec![header.into_iter().map(String::from).collect()];
    for p in pods {
        let status = if p.deletion.is_some() {
            "Terminating"
        } else if p.running {
            "Running"
        } else if p.node.is_some() {
            "ContainerCreating"
        } else {
            "Pending"
        };
        let ready = if p.ready { "1/1" } else { "0/1" };
        let mut row = vec![
            p.name.clone(),
            ready.into(),
            status.into(),
            "0".into(),
            age(now, p.created),
        ];
        if flags.wide {
            let node = p.node.clone().unwrap_or_else(|| "<none>".into());
            row.extend([pod_ip(world, p), node, "<none>".into(), "<none>".into()]);
        }
        if flags.all_namespaces {
            row.insert(0, namespace_of(p).into());
        }
        rows.push(row);
    }
    rows
}

/// The host a pod is bound to.
pub(crate) fn host_of(world: &World, pod: &Pod) -> Option<HostId> {
    let (h, _) = world.scenario().host(pod.node.as_deref()?)?;
    Some(h as HostId)
}

/// A pod's address: from its node's pod range (10.244.<node>.0/24), once it runs; kube-proxy's
/// and the static pods (`hostNetwork: true`) have their node's.
pub(crate) fn pod_ip(world: &World, p: &Pod) -> String {
    let (Some(h), true) = (host_of(world, p), p.running) else {
        return "<none>".into();
    };
    if p.of_its_node() {
        return crate::ip_of(h);
    }
    let n = p
        .name
        .bytes()
        .fold(0u32, |a, b| a.wrapping_mul(31).wrapping_add(b as u32));
    format!("10.244.{h}.{}", 2 + n % 250)
}
