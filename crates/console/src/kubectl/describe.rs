//! `kubectl describe`: nodes, pods, workloads, Services, Endpoints and EndpointSlices, budgets,
//! and, through kubectl's generic describer, leases and events: the object read through the API
//! as kubectl reads it (with its events where kubectl shows them), printed as
//! kubectl's describers print it (kubectl `pkg/describe/describe.go`: `describeNode`,
//! `describePod`, `printUnstructuredContent`). What the simulation does not model is left out
//! (annotations, capacity, system info, events) or stated: the pressure conditions follow Ready
//! (False while the kubelet posts, Unknown with it), and a condition's heartbeat is the last
//! sign of life the API has (the condition's transition while Ready, the lease's renewal after).

use super::client::{not_found, Client};
use super::flags::Flags;
use super::get::LEASES;
use super::rows::{
    age, endpoint_addresses, endpoint_pods, host_of, listed_events, namespace_of, pod_ip,
    service_workload, slice_name, workload_namespace,
};
use super::{resource_name, Resource};
use crate::calendar::date;
use crate::object::{self, Doc};
use crate::table::{align, human_duration};
use crate::{ip_of, Output};
use sim::k8s::objects::{Budget, Condition, Kind, Lease, Node, Object, Pod, PODS};
use sim::kernel::net::HostId;
use sim::kernel::time::SimTime;
use sim::scenario::COREDNS;
use sim::world::World;

/// Lines laid out as kubectl's tabwriter lays out one block (padding 2): `key` cells padded to
/// the widest, a value of several lines continued under the first.
pub(super) fn tabbed(rows: &[(&str, String)]) -> String {
    let w = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let mut out = String::new();
    for (k, v) in rows {
        for (i, line) in v.split('\n').enumerate() {
            let k = if i == 0 { k } else { "" };
            out.push_str(&format!("{k:<w$}{line}\n"));
        }
    }
    out
}

/// `kubectl describe deployment|replicaset|statefulset|daemonset NAME`, laid out as kubectl's
/// `describeDeployment`, `describeReplicaSet`, `describeStatefulSet` and `describeDaemonSet` print
/// them (without the pod template). A Deployment: the replica counts of its status (every pod of the one revision is
/// updated; available = Ready, with `minReadySeconds` 0) and its conditions: Available while at
/// least `replicas` − 25 % (rounded down) are available, Progressing complete once all are. A
/// StatefulSet and a DaemonSet: their pods by phase (Running, or Pending: "Waiting"); a DaemonSet
/// is wanted on every Node (its pods tolerate every taint here).
pub(super) fn describe_workload(
    world: &World,
    from: HostId,
    resource: Resource,
    name: &str,
    flags: &Flags,
) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let mut client = Client::new(world, from, flags);
    let what = resource_name(resource);
    let (kind, replica_set) = match resource {
        Resource::Workloads(kind) => (kind, false),
        _ => (Kind::Deployment, true),
    };
    let items = match client.list("/registry/", &format!("get {what}")) {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
    let Some(d) = objects.iter().filter_map(|o| o.as_workload()).find(|w| {
        let named = if replica_set {
            w.replica_set()
        } else {
            w.name.clone()
        };
        w.kind == kind && named == name && workload_namespace(&w.name) == namespace
    }) else {
        return client.failed(not_found(what, name));
    };
    let pods: Vec<&Pod> = objects
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| p.workload == d.name && p.deletion.is_none())
        .collect();
    let (desired, total) = (d.replicas as usize, pods.len());
    let available = pods.iter().filter(|p| p.ready).count();
    let running = pods.iter().filter(|p| p.running).count();
    let status = format!(
        "{running} Running / {} Waiting / 0 Succeeded / 0 Failed",
        total - running
    );
    let (k, v) = object::selector_of(&d.name);
    let selector = format!("{k}={v}");
    let created = crate::calendar::date(d.created);
    let out = match kind {
        Kind::Deployment if replica_set => {
            let rs = d.replica_set();
            let hash = &rs[d.name.len() + 1..];
            tabbed(&[
                ("Name:", rs.clone()),
                ("Namespace:", namespace.into()),
                ("Selector:", format!("{selector},pod-template-hash={hash}")),
                ("Labels:", format!("{selector}\npod-template-hash={hash}")),
                (
                    "Annotations:",
                    format!(
                        "deployment.kubernetes.io/desired-replicas: {desired}\ndeployment.kubernetes.io/max-replicas: {}\ndeployment.kubernetes.io/revision: 1",
                        desired + desired.div_ceil(4)
                    ),
                ),
                ("Controlled By:", format!("Deployment/{}", d.name)),
                ("Replicas:", format!("{total} current / {desired} desired")),
                ("Pods Status:", status),
                ("Events:", "<none>".into()),
            ])
        }
        Kind::DaemonSet => {
            let nodes = objects.iter().filter(|o| o.as_node().is_some()).count();
            let mut out = tabbed(&[
                ("Name:", d.name.clone()),
                ("Namespace:", namespace.into()),
                ("Selector:", selector.clone()),
                ("Node-Selector:", "<none>".into()),
                ("Labels:", selector),
                (
                    "Annotations:",
                    "deprecated.daemonset.template.generation: 1".into(),
                ),
            ]);
            out.push_str(&format!(
                "Desired Number of Nodes Scheduled: {nodes}\nCurrent Number of Nodes Scheduled: {total}\nNumber of Nodes Scheduled with Up-to-date Pods: {total}\nNumber of Nodes Scheduled with Available Pods: {available}\nNumber of Nodes Misscheduled: 0\n"
            ));
            out + &tabbed(&[("Pods Status:", status), ("Events:", "<none>".into())])
        }
        Kind::StatefulSet => {
            tabbed(&[
                ("Name:", d.name.clone()),
                ("Namespace:", namespace.into()),
                ("CreationTimestamp:", created),
                ("Selector:", selector.clone()),
                ("Labels:", selector),
                ("Annotations:", "<none>".into()),
                ("Replicas:", format!("{desired} desired | {total} total")),
                ("Update Strategy:", "RollingUpdate".into()),
                ("  Partition:", "0".into()),
                ("Pods Status:", status),
            ]) + &tabbed(&[
                ("Volume Claims:", "<none>".into()),
                ("Events:", "<none>".into()),
            ])
        }
        Kind::Deployment => {
            let unavailable = desired.saturating_sub(available);
            let mut out = tabbed(&[
                ("Name:", d.name.clone()),
                ("Namespace:", namespace.into()),
                ("CreationTimestamp:", created),
                ("Labels:", selector.clone()),
                ("Annotations:", "deployment.kubernetes.io/revision: 1".into()),
                ("Selector:", selector),
                ("Replicas:", format!("{desired} desired | {total} updated | {total} total | {available} available | {unavailable} unavailable")),
                ("StrategyType:", "RollingUpdate".into()),
                ("MinReadySeconds:", "0".into()),
                ("RollingUpdateStrategy:", "25% max unavailable, 25% max surge".into()),
            ]);
            out.push_str("Conditions:\n");
            let (avail, why) = match available >= desired - desired / 4 {
                true => ("True", "MinimumReplicasAvailable"),
                false => ("False", "MinimumReplicasUnavailable"),
            };
            let progress = match available == desired && total == desired {
                true => "NewReplicaSetAvailable",
                false => "ReplicaSetUpdated",
            };
            out.push_str(&tabbed(&[
                ("  Type", "Status  Reason".into()),
                ("  ----", "------  ------".into()),
                ("  Available ", format!("{avail:<6}  {why}")),
                ("  Progressing ", format!("True    {progress}")),
                ("OldReplicaSets:", "<none>".into()),
                (
                    "NewReplicaSet:",
                    format!("{} ({total}/{desired} replicas created)", d.replica_set()),
                ),
                ("Events:", "<none>".into()),
            ]));
            out
        }
    };
    let (kind, named) = match kind {
        Kind::Deployment if replica_set => ("ReplicaSet", d.replica_set()),
        _ => (kind.name(), d.name.clone()),
    };
    Output {
        stdout: with_events(out, &client, kind, &named, namespace),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// `kubectl describe service NAME`, laid out as kubectl's `describeService` prints it: a
/// workload's NodePort Service, or kubeadm's kube-dns in kube-system (one block per port), each
/// port with the ready addresses of the Service's EndpointSlice.
pub(super) fn describe_service(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let mut client = Client::new(world, from, flags);
    let items = match client.list("/registry/", "get services") {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
    let Some(workload) = service_workload(&objects, namespace, name) else {
        return client.failed(not_found("services", name));
    };
    let dns = workload == COREDNS;
    let pods: Vec<&Pod> = objects.iter().filter_map(|o| o.as_pod()).collect();
    let endpoints =
        |port: u16| match endpoint_addresses(world, &objects, &pods, workload, Some(port)) {
            a if a.is_empty() => "<none>".to_string(),
            a => a.join(","),
        };
    let mut rows: Vec<(&str, String)> =
        vec![("Name:", name.into()), ("Namespace:", namespace.into())];
    if dns {
        let ip = "10.96.0.10".to_string();
        rows.extend([
            (
                "Labels:",
                "k8s-app=kube-dns\nkubernetes.io/cluster-service=true\nkubernetes.io/name=CoreDNS"
                    .into(),
            ),
            (
                "Annotations:",
                "prometheus.io/port: 9153\nprometheus.io/scrape: true".into(),
            ),
            ("Selector:", "k8s-app=kube-dns".into()),
            ("Type:", "ClusterIP".into()),
            ("IP Family Policy:", "SingleStack".into()),
            ("IP Families:", "IPv4".into()),
            ("IP:", ip.clone()),
            ("IPs:", ip),
        ]);
        for (port, proto, number) in [
            ("dns", "UDP", 53),
            ("dns-tcp", "TCP", 53),
            ("metrics", "TCP", 9153),
        ] {
            rows.extend([
                ("Port:", format!("{port}  {number}/{proto}")),
                ("TargetPort:", format!("{number}/{proto}")),
                ("Endpoints:", endpoints(number)),
            ]);
        }
    } else {
        let node_port = crate::node_port(world, name);
        let ip = node_port.map_or("<none>".to_string(), crate::cluster_ip);
        rows.extend([
            ("Labels:", format!("app={name}")),
            ("Annotations:", "<none>".into()),
            ("Selector:", format!("app={name}")),
            ("Type:", "NodePort".into()),
            ("IP Family Policy:", "SingleStack".into()),
            ("IP Families:", "IPv4".into()),
            ("IP:", ip.clone()),
            ("IPs:", ip),
            ("Port:", "<unset>  80/TCP".into()),
            ("TargetPort:", "80/TCP".into()),
        ]);
        if let Some(p) = node_port {
            rows.push(("NodePort:", format!("<unset>  {p}/TCP")));
        }
        rows.push(("Endpoints:", endpoints(80)));
    }
    rows.push(("Session Affinity:", "None".into()));
    // Only a NodePort (or LoadBalancer) Service has an external traffic policy.
    if !dns {
        rows.push(("External Traffic Policy:", "Cluster".into()));
    }
    rows.extend([
        ("Internal Traffic Policy:", "Cluster".into()),
        ("Events:", "<none>".into()),
    ]);
    Output {
        stdout: tabbed(&rows),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// `kubectl describe endpoints NAME` (kubectl's `describeEndpoints`) or `kubectl describe
/// endpointslice NAME` (`describeEndpointSliceV1`) of a Service: its ready addresses as its
/// EndpointSlice holds them, and its pods that have an address but are not ready (the
/// controller lists them as not ready; terminating pods are left out).
pub(super) fn describe_endpoints(
    world: &World,
    from: HostId,
    name: &str,
    flags: &Flags,
    slice: bool,
) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let what = if slice {
        "endpointslices.discovery.k8s.io"
    } else {
        "endpoints"
    };
    let mut client = Client::new(world, from, flags);
    let items = match client.list("/registry/", &format!("get {what}")) {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
    // A slice is named after its Service (kube-dns, or a workload's own).
    let service = match slice {
        false => Some(name),
        true => ["kube-dns"]
            .into_iter()
            .chain(
                objects
                    .iter()
                    .filter_map(|o| Some(o.as_workload()?.name.as_str())),
            )
            .find(|s| slice_name(s) == name),
    };
    let found = service.and_then(|s| Some((s, service_workload(&objects, namespace, s)?)));
    let Some((service, workload)) = found else {
        return client.failed(not_found(what, name));
    };
    let dns = workload == COREDNS;
    let pods: Vec<&Pod> = objects.iter().filter_map(|o| o.as_pod()).collect();
    let ready = endpoint_pods(&objects, &pods, workload);
    let not_ready: Vec<&Pod> = (pods.iter().copied())
        .filter(|p| p.workload == workload && p.running && p.deletion.is_none())
        .filter(|p| !ready.iter().any(|r| r.name == p.name))
        .collect();
    let ports: &[(&str, u16, &str)] = match dns {
        true => &[
            ("dns", 53, "UDP"),
            ("dns-tcp", 53, "TCP"),
            ("metrics", 9153, "TCP"),
        ],
        false => &[("<unset>", 80, "TCP")],
    };
    let mut labels: Vec<String> = match dns {
        true => [
            "k8s-app=kube-dns",
            "kubernetes.io/cluster-service=true",
            "kubernetes.io/name=CoreDNS",
        ]
        .map(String::from)
        .to_vec(),
        false => vec![format!("app={service}")],
    };
    if slice {
        labels
            .push("endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io".into());
        labels.push(format!("kubernetes.io/service-name={service}"));
        sim::kernel::sort::sort_by(&mut labels, |a, b| a.cmp(b));
    }
    let mut lines = vec![
        format!("Name:\t{name}"),
        format!("Namespace:\t{namespace}"),
        format!("Labels:\t{}", labels.join("\n\t")),
        "Annotations:\t<none>".to_string(),
    ];
    let port_rows = |indent: &str| -> Vec<String> {
        let mut rows = vec![
            format!("{indent}Name\tPort\tProtocol"),
            format!("{indent}----\t----\t--------"),
        ];
        rows.extend(
            ports
                .iter()
                .map(|(n, p, proto)| format!("{indent}{n}\t{p}\t{proto}")),
        );
        rows
    };
    if slice {
        lines.push("AddressType:\tIPv4".into());
        lines.push("Ports:".into());
        lines.extend(port_rows("  "));
        if ready.is_empty() && not_ready.is_empty() {
            lines.push("Endpoints: <none>".into());
        } else {
            lines.push("Endpoints:".into());
        }
        for (p, is_ready) in ready
            .iter()
            .map(|p| (p, true))
            .chain(not_ready.iter().map(|p| (p, false)))
        {
            let node = p.node.clone().unwrap_or_default();
            let zone = world
                .scenario()
                .host(&node)
                .map(|(_, h)| h.zone.clone())
                .filter(|z| !z.is_empty())
                .unwrap_or_else(|| "<unset>".into());
            lines.extend([
                format!("  - Addresses:\t{}", pod_ip(world, p)),
                "    Conditions:".into(),
                format!("      Ready:\t{is_ready}"),
                "    Hostname:\t<unset>".into(),
                format!("    TargetRef:\tPod/{}", p.name),
                format!("    NodeName:\t{node}"),
                format!("    Zone:\t{zone}"),
            ]);
        }
    } else {
        lines.push("Subsets:".into());
        if !(ready.is_empty() && not_ready.is_empty()) {
            // The controller sorts each subset's addresses.
            let ips = |ps: &[&Pod]| -> String {
                let mut ips: Vec<String> = ps.iter().map(|p| pod_ip(world, p)).collect();
                sim::kernel::sort::sort_by(&mut ips, |a, b| a.cmp(b));
                if ips.is_empty() {
                    "<none>".into()
                } else {
                    ips.join(",")
                }
            };
            lines.push(format!("  Addresses:\t{}", ips(&ready)));
            lines.push(format!("  NotReadyAddresses:\t{}", ips(&not_ready)));
            lines.push("  Ports:".into());
            lines.extend(port_rows("    "));
            lines.push(String::new());
        }
    }
    lines.push("Events:\t<none>".into());
    Output {
        stdout: crate::table::tabwrite(&lines),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// A describe's text with its object's Events, in place of its last line (`Events: <none>`) when
/// there are some: kubectl's `DescribeEvents`, oldest first, Type, Reason, Age, From, Message.
pub(super) fn with_events(
    out: String,
    client: &Client,
    kind: &str,
    name: &str,
    namespace: &str,
) -> String {
    let now = client.now();
    let ttl = sim::k8s::events::EVENT_TTL;
    let mut events: Vec<&sim::k8s::events::Event> = (client.copy.obs.api_events.iter())
        .filter(|(posted, e)| {
            now - *posted < ttl && e.kind == kind && e.name == name && e.namespace == namespace
        })
        .map(|(_, e)| e)
        .collect();
    let Some(cut) = out.trim_end().rfind('\n').filter(|_| !events.is_empty()) else {
        return out;
    };
    sim::kernel::sort::sort_by_key(&mut events, |e| e.at);
    // kubectl's own heading: four dashes under "Age".
    let mut rows = vec![
        ["  Type", "Reason", "Age", "From", "Message"]
            .map(String::from)
            .to_vec(),
        ["  ----", "------", "----", "----", "-------"]
            .map(String::from)
            .to_vec(),
    ];
    for e in events {
        rows.push(vec![
            format!("  {}", e.reason.event_type()),
            e.reason.name().into(),
            age(now, e.at),
            e.source().into(),
            e.message.clone(),
        ]);
    }
    out[..=cut].to_string() + "Events:\n" + &crate::table::align(&rows, 0, 2)
}

/// `kubectl describe event NAME`: kubectl has no describer of its own for Events, so the generic
/// one prints every field of it.
pub(super) fn describe_event(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let mut client = Client::new(world, from, flags);
    if let Err(e) = client.list("/registry/events/", "get events") {
        return client.failed(e);
    }
    let now = client.now();
    let text = match listed_events(&client.copy.obs.api_events, now, &[name], namespace, flags) {
        Ok(found) => {
            let (name, e, posted) = &found[0];
            generic_text(name, namespace, &object::event(name, e, *posted))
        }
        Err(e) => return client.failed(e),
    };
    Output {
        stdout: text,
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// `kubectl describe node NAME`: one consistent read of the Node, its Lease and the pods.
pub(super) fn describe_node(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
    let mut client = Client::new(world, from, flags);
    let items = match client.list("/registry/", "get nodes") {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
    let Some(node) = objects
        .iter()
        .filter_map(|o| o.as_node())
        .find(|n| n.name == name)
    else {
        return client.failed(not_found("nodes", name));
    };
    let lease_key = sim::k8s::objects::node_lease_key(name);
    let lease = items
        .iter()
        .find(|(k, _)| **k == *lease_key)
        .and_then(|(_, kv)| kv.value.as_lease());
    let ip = world
        .scenario()
        .host(name)
        .map_or("<none>".to_string(), |(i, _)| ip_of(i as HostId));
    let text = node_text(node, lease, &objects, &ip, client.now());
    Output {
        stdout: with_events(text, &client, "Node", name, "default"),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// `kubectl describe pod NAME` (in the namespace asked for, `default` unless `-n`).
pub(super) fn describe_pod(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
    let mut client = Client::new(world, from, flags);
    let items = match client.list(PODS, "get pods") {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let Some(pod) = items
        .iter()
        .filter_map(|(_, kv)| kv.value.as_pod())
        .find(|p| p.name == name && namespace_of(p) == namespace)
    else {
        return client.failed(not_found("pods", name));
    };
    let node_ip = host_of(world, pod).map(ip_of);
    let toleration_s = world.scenario().settings.toleration_seconds.0 / 1_000_000;
    let text = pod_text(
        pod,
        namespace,
        node_ip.as_deref(),
        &pod_ip(world, pod),
        toleration_s,
        client.now(),
    );
    Output {
        stdout: with_events(text, &client, "Pod", name, namespace),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// `kubectl describe lease NAME` (in `-n`'s namespace, `default` unless given): the generic
/// describer over the Lease as the API serves it.
/// `kubectl describe pdb NAME`, laid out as kubectl's tabwriter does (a block per run of tabbed
/// lines). The budget selects its workload's pods, shown as the selector `app=NAME`.
pub(super) fn describe_pdb(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let what = "poddisruptionbudgets.policy";
    let mut client = Client::new(world, from, flags);
    let key = sim::k8s::objects::pdb_key(name);
    let kv = match client.get(&key, "get poddisruptionbudgets", what, name) {
        Ok(kv) if namespace == "default" => kv,
        Ok(_) => return client.failed(not_found(what, name)),
        Err(e) => return client.failed(e),
    };
    let Some(b) = kv.value.as_pdb() else {
        return client.failed(not_found(what, name));
    };
    let rule = match b.budget {
        Budget::MinAvailable(n) => ("Min available:", n),
        Budget::MaxUnavailable(n) => ("Max unavailable:", n),
    };
    let mut out = tabbed(&[
        ("Name:", b.name.clone()),
        ("Namespace:", namespace.to_string()),
        (rule.0, rule.1.to_string()),
        ("Selector:", format!("app={}", b.name)),
    ]);
    out.push_str("Status:\n");
    out.push_str(&tabbed(&[
        (
            "    Allowed disruptions:",
            b.disruptions_allowed.to_string(),
        ),
        ("    Current:", b.current_healthy.to_string()),
        ("    Desired:", b.desired_healthy.to_string()),
        ("    Total:", b.expected_pods.to_string()),
        ("Events:", "<none>".to_string()),
    ]));
    Output {
        stdout: out,
        took_s: client.took_s(),
        ..Output::default()
    }
}

pub(super) fn describe_lease(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let mut client = Client::new(world, from, flags);
    let key = format!("{LEASES}{namespace}/{name}");
    let what = "leases.coordination.k8s.io";
    let lease = match client.get(&key, "get leases", what, name) {
        Ok(kv) => kv,
        Err(e) => return client.failed(e),
    };
    let Some(l) = lease.value.as_lease() else {
        return client.failed(not_found(what, name));
    };
    let doc = object::lease(name, namespace, l, lease.mod_revision);
    let text = generic_text(name, namespace, &doc);
    Output {
        stdout: with_events(text, &client, "Lease", name, namespace),
        took_s: client.took_s(),
        ..Output::default()
    }
}
/// The describer's text for `node`, its lease (if any) and the pods bound to it, at `now`.
fn node_text(
    n: &Node,
    lease: Option<&Lease>,
    objects: &[&Object],
    ip: &str,
    now: SimTime,
) -> String {
    let mut out = node_header(n);
    out.push_str("Lease:\n");
    match lease {
        Some(l) => out.push_str(&format!(
            "  HolderIdentity:  {}\n  AcquireTime:     <unset>\n  RenewTime:       {}\n",
            l.holder,
            date(l.renew_time)
        )),
        None => out.push_str("  Failed to get lease: leases.coordination.k8s.io \"not found\"\n"),
    }
    out.push_str("Conditions:\n");
    out.push_str(&node_conditions(n, lease));
    out.push_str(&format!(
        "Addresses:\n  InternalIP:  {ip}\n  Hostname:    {}\n",
        n.name
    ));
    out.push_str(&node_pods(n, objects, now));
    out.push_str("Events:                       <none>\n");
    out
}

/// The heading of a describe table: the column names, the first indented by two, and a dashed
/// line under each.
fn heading(columns: &[&str]) -> Vec<Vec<String>> {
    let names = columns.iter().map(|c| c.to_string());
    let dashes = columns.iter().map(|c| "-".repeat(c.len()));
    let indent = |mut row: Vec<String>| {
        row[0] = format!("  {}", row[0]);
        row
    };
    vec![indent(names.collect()), indent(dashes.collect())]
}

/// A Node's name, role, labels, annotations, creation, taints and cordon.
fn node_header(n: &Node) -> String {
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
    let taints: Vec<String> = n.taints.iter().map(|t| t.text()).collect();
    let taints = if taints.is_empty() {
        "<none>".to_string()
    } else {
        taints.join("\n                    ")
    };
    out.push_str(&format!("Taints:             {taints}\n"));
    let cordoned = n.has_taint(sim::k8s::objects::TaintKey::Unschedulable);
    out.push_str(&format!("Unschedulable:      {cordoned}\n"));
    out
}

/// A Node's conditions: the pressure conditions follow Ready; Unknown is what the node
/// lifecycle controller writes when the kubelet went silent.
fn node_conditions(n: &Node, lease: Option<&Lease>) -> String {
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
        _ => ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"].map(|kind| {
            (
                kind,
                "Unknown",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
            )
        }),
    };
    let mut table = heading(&[
        "Type",
        "Status",
        "LastHeartbeatTime",
        "LastTransitionTime",
        "Reason",
        "Message",
    ]);
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
    align(&table, 0, 2)
}

/// The pods bound to a Node, by namespace and name, with their requests and age.
fn node_pods(n: &Node, objects: &[&Object], now: SimTime) -> String {
    let namespace = namespace_of;
    let mut pods: Vec<&Pod> = objects
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| p.node.as_deref() == Some(n.name.as_str()))
        .collect();
    sim::kernel::sort::sort_by(&mut pods, |a, b| {
        (namespace(a), &a.name).cmp(&(namespace(b), &b.name))
    });
    let mut out = format!("Non-terminated Pods:          ({} in total)\n", pods.len());
    let mut table = heading(&[
        "Namespace",
        "Name",
        "CPU Requests",
        "CPU Limits",
        "Memory Requests",
        "Memory Limits",
        "Age",
    ]);
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
    out
}

/// The describer's text for a pod: where it runs, its labels, its state, its owner, its
/// conditions and the tolerations that decide when a lost node's pod is evicted. Containers and
/// volumes are not modelled and left out.
fn pod_text(
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
    let labels: Vec<String> = crate::object::pod_labels(p)
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let (kind, owner) = crate::object::owner_of(p);
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
    // A DaemonSet's pods tolerate every node condition for ever (kube-proxy's every taint too);
    // kubeadm's static pods every NoExecute taint; others get the admission controller's
    // defaults, evicted `toleration_s` after their node turns unreachable.
    let tolerations: Vec<String> = if p.kind.is_none() {
        vec![":NoExecute op=Exists".to_string()]
    } else if p.tolerates_everything() {
        let every_taint = (p.workload == sim::scenario::KUBE_PROXY).then_some("op=Exists");
        every_taint
            .into_iter()
            .chain([
                "node.kubernetes.io/disk-pressure:NoSchedule op=Exists",
                "node.kubernetes.io/memory-pressure:NoSchedule op=Exists",
                "node.kubernetes.io/not-ready:NoExecute op=Exists",
                "node.kubernetes.io/pid-pressure:NoSchedule op=Exists",
                "node.kubernetes.io/unreachable:NoExecute op=Exists",
                "node.kubernetes.io/unschedulable:NoSchedule op=Exists",
            ])
            .map(String::from)
            .collect()
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
fn generic_text(name: &str, namespace: &str, doc: &Doc) -> String {
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
    crate::table::tabwrite(&lines)
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
