//! `kubectl get` (tables, `-o wide`, `-o json|yaml`, `--raw`) and `kubectl cluster-info`: a
//! consistent list through the API, filtered by namespace, label and field selectors, printed as
//! kubectl prints it.

use super::client::{endpoint_ip, Client, API_PORT};
use super::flags::{selects, Flags};
use super::rows::{
    budget_rows, event_rows, lease_rows, listed_events, namespace_of, node_rows, pod_ip, pod_rows,
    service_rows, workload_rows,
};
use super::{resource, resource_name, Resource};
use crate::object::{self, Doc};
use crate::table::layout;
use crate::words::clip;
use crate::{ip_of, Output};
use sim::k8s::api::{ApiRequest, ApiResponse};
use sim::k8s::objects::{
    KeyValue, Kind, Lease, Node, Object, Pod, PodDisruptionBudget, NODES, PODS,
};
use sim::kernel::keymap::Key;
use sim::kernel::net::HostId;
use sim::kernel::time::SimTime;
use sim::world::World;

/// Where Leases are kept, by namespace.
pub(super) const LEASES: &str = "/registry/leases/";

pub(super) fn get(
    world: &World,
    from: HostId,
    word: &str,
    names: &[&str],
    flags: &Flags,
) -> Output {
    let kind = resource(word);
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let mut client = Client::new(world, from, flags);
    let answer = client.list(&list_prefix(kind, flags, namespace), &format!("get {word}"));
    let took_s = client.took_s();
    let failed = |stderr: String| client.failed((stderr, 1));
    let items = match answer {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let Some(kind) = kind else {
        return failed(format!(
            "error: the server doesn't have a resource type \"{}\"\n",
            clip(word)
        ));
    };
    if let Some(e) = refused(kind, flags) {
        return failed(e);
    }
    let now = client.now();
    if let (Some(json), Resource::Events) = (flags.document, kind) {
        let events = &client.copy.obs.api_events;
        let docs = match listed_events(events, now, names, namespace, flags) {
            Ok(found) => found
                .iter()
                .map(|(n, e, t)| object::event(n, e, *t))
                .collect(),
            Err(e) => return failed(e.0),
        };
        return Output {
            stdout: printed(docs, names.len() == 1, json),
            took_s,
            ..Output::default()
        };
    }
    if let Some(json) = flags.document {
        return match documents(world, kind, &items, names, namespace, flags) {
            Ok(docs) => Output {
                stdout: printed(docs, names.len() == 1, json),
                took_s,
                ..Output::default()
            },
            Err(e) => failed(e),
        };
    }
    match table(world, &client, kind, &items, names, flags) {
        Ok((rows, what)) => shown(rows, what, kind, names, flags, &client),
        Err(e) => failed(e),
    }
}

/// `kubectl get all`: the types of kubectl's `all` category that have objects, in its order, one
/// table each with every name prefixed by its type (`pod/web-…`), blank lines between; read in
/// one consistent list (kubectl lists each type in turn).
pub(super) fn get_all(world: &World, from: HostId, flags: &Flags) -> Output {
    if flags.document.is_some() {
        return super::error(
            "this console prints get all as tables (get one type with -o json|yaml)",
        );
    }
    if let Some(e) = refused(Resource::Services, flags) {
        return Output::error(e, 1);
    }
    let mut client = Client::new(world, from, flags);
    let items = match client.list("/registry/", "get all") {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let all = [
        (Resource::Pods, "pod"),
        (Resource::Services, "service"),
        (Resource::Workloads(Kind::DaemonSet), "daemonset.apps"),
        (Resource::Workloads(Kind::Deployment), "deployment.apps"),
        (Resource::ReplicaSets, "replicaset.apps"),
        (Resource::Workloads(Kind::StatefulSet), "statefulset.apps"),
    ];
    let name_at = usize::from(flags.all_namespaces);
    let mut sections = Vec::new();
    for (kind, prefix) in all {
        let mut rows = match table(world, &client, kind, &items, &[], flags) {
            Ok((rows, _)) => rows,
            Err(e) => return client.failed((e, 1)),
        };
        if rows.len() == 1 {
            continue;
        }
        for row in &mut rows[1..] {
            row[name_at] = format!("{prefix}/{}", row[name_at]);
        }
        let shown = if flags.no_headers {
            &rows[1..]
        } else {
            &rows[..]
        };
        sections.push(layout(shown));
    }
    if sections.is_empty() {
        let namespace = flags.namespace.as_deref().unwrap_or("default");
        let stderr = match flags.all_namespaces {
            true => "No resources found\n".to_string(),
            false => format!("No resources found in {} namespace.\n", clip(namespace)),
        };
        return Output {
            stderr,
            took_s: client.took_s(),
            ..Output::default()
        };
    }
    Output {
        stdout: sections.join("\n"),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// What `get` lists: one consistent read of everything the table needs.
fn list_prefix(kind: Option<Resource>, flags: &Flags, namespace: &str) -> String {
    match kind {
        Some(Resource::Nodes) => NODES.to_string(),
        Some(Resource::Pods) => PODS.to_string(),
        Some(Resource::Leases) if flags.all_namespaces => LEASES.to_string(),
        Some(Resource::Leases) => format!("{LEASES}{namespace}/"),
        Some(Resource::Budgets) => sim::k8s::objects::PDBS.to_string(),
        // A consistent list like any other; the Events themselves are kept beside etcd.
        Some(Resource::Events) => "/registry/events/".to_string(),
        // kubeadm's namespaces are not kept as objects here: a list that only asks the API.
        Some(Resource::Namespaces) => "/registry/namespaces/".to_string(),
        Some(Resource::ConfigMaps) => "/registry/configmaps/".to_string(),
        // The workloads and, for their READY counts, the pods and nodes: one read of it all.
        Some(Resource::Workloads(_) | Resource::ReplicaSets) => "/registry/".to_string(),
        // The slices, and the pods and workloads they name (addresses, the Service's age).
        Some(Resource::Endpoints | Resource::Services | Resource::Slices) => {
            "/registry/".to_string()
        }
        // An unknown type is only known to be unknown once the server answered discovery.
        None => "/registry/".to_string(),
    }
}

/// The flags this console does not take for `kind`: kubectl's error, in its words.
fn refused(kind: Resource, flags: &Flags) -> Option<String> {
    let fields_of_kind = matches!(kind, Resource::Events | Resource::Pods);
    let why = if flags.selector.as_deref().is_some_and(|s| s.contains('(')) {
        "this console reads equality selectors (-l app=web,tier!=db), not set-based ones"
    } else if flags.sort_by.is_some() && kind != Resource::Events
        || flags.fields.is_some() && !fields_of_kind
    {
        "this console takes --field-selector for pods and events, --sort-by for events"
    } else if kind == Resource::Events && flags.wide {
        "this console lists events without -o wide (their source is not kept)"
    } else if flags.selector.is_some() && !matches!(kind, Resource::Pods | Resource::Nodes) {
        "this console selects pods and nodes by label (-l); list the others by name"
    } else if flags.show_labels && !matches!(kind, Resource::Pods | Resource::Nodes) {
        "this console shows the labels of pods and nodes (--show-labels)"
    } else {
        return None;
    };
    Some(format!("error: {why}\n"))
}

/// The table of `kind`: its rows (the header first) and the type's name for kubectl's NotFound.
fn table(
    world: &World,
    client: &Client,
    kind: Resource,
    items: &[(Key, KeyValue)],
    names: &[&str],
    flags: &Flags,
) -> Result<(Vec<Vec<String>>, &'static str), String> {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let now = client.now();
    let objects = items.iter().map(|(_, kv)| &*kv.value);
    Ok(match kind {
        Resource::Nodes => {
            let nodes: Vec<&Node> = objects
                .filter_map(Object::as_node)
                .filter(|n| names.is_empty() || names.contains(&n.name.as_str()))
                .filter(|n| {
                    let sel = flags.selector.as_deref();
                    sel.is_none_or(|sel| selects(sel, &object::node_labels(n)))
                })
                .collect();
            let mut rows = node_rows(world, &nodes, now, flags.wide);
            if flags.show_labels {
                with_labels(&mut rows, nodes.iter().map(|n| object::node_labels(n)));
            }
            (rows, "nodes")
        }
        Resource::Pods => {
            let pods = listed_pods(objects, names, namespace, flags);
            let mut rows = pod_rows(world, &pods, now, flags);
            if flags.show_labels {
                with_labels(&mut rows, pods.iter().map(|p| object::pod_labels(p)));
            }
            (rows, "pods")
        }
        Resource::Leases => {
            let leases: Vec<(&str, &Lease)> = items
                .iter()
                .filter_map(|(k, kv)| Some((k.strip_prefix(LEASES)?, kv.value.as_lease()?)))
                .filter(|(path, _)| {
                    names.is_empty() || names.iter().any(|n| path.ends_with(&format!("/{n}")))
                })
                .collect();
            let rows = lease_rows(&leases, now, flags.all_namespaces);
            (rows, "leases.coordination.k8s.io")
        }
        Resource::Endpoints | Resource::Services | Resource::Slices => {
            let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
            let rows = service_rows(world, &objects, now, names, namespace, flags, kind);
            let what = match kind {
                Resource::Services => "services",
                Resource::Slices => "endpointslices.discovery.k8s.io",
                _ => "endpoints",
            };
            (rows, what)
        }
        Resource::Workloads(_) | Resource::ReplicaSets => {
            let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
            let rows = workload_rows(
                &objects,
                kind,
                now,
                names,
                namespace,
                flags.all_namespaces,
                flags.wide,
            );
            (rows, resource_name(kind))
        }
        Resource::Events => {
            let events = &client.copy.obs.api_events;
            match event_rows(events, now, names, namespace, flags) {
                Ok(rows) => (rows, "events"),
                Err(e) => return Err(e.0),
            }
        }
        Resource::Namespaces => (namespace_rows(now, names), "namespaces"),
        Resource::ConfigMaps => (config_map_rows(now, names, namespace, flags), "configmaps"),
        Resource::Budgets => {
            // The scenario's budgets live in `default`, beside their workloads.
            let budgets: Vec<&PodDisruptionBudget> = objects
                .filter_map(Object::as_pdb)
                .filter(|b| names.is_empty() || names.contains(&b.name.as_str()))
                .filter(|_| flags.all_namespaces || namespace == "default")
                .collect();
            (
                budget_rows(&budgets, now, flags.all_namespaces),
                "poddisruptionbudgets.policy",
            )
        }
    })
}

/// The pods `get pods` shows: by name, label and field selectors, in the namespace asked (etcd
/// returns keys in order; across namespaces the server lists namespace by namespace, "default"
/// before "kube-system").
fn listed_pods<'a>(
    objects: impl Iterator<Item = &'a Object>,
    names: &[&str],
    namespace: &str,
    flags: &Flags,
) -> Vec<&'a Pod> {
    let wanted: Vec<&Pod> = objects
        .filter_map(Object::as_pod)
        .filter(|p| names.is_empty() || names.contains(&p.name.as_str()))
        .filter(|p| {
            let sel = flags.selector.as_deref();
            sel.is_none_or(|sel| selects(sel, &object::pod_labels(p)))
        })
        .filter(|p| {
            let fields = || {
                let phase = if p.running { "Running" } else { "Pending" };
                vec![
                    ("metadata.name", p.name.clone()),
                    ("metadata.namespace", namespace_of(p).to_string()),
                    ("spec.nodeName", p.node.clone().unwrap_or_default()),
                    ("status.phase", phase.to_string()),
                ]
            };
            flags
                .fields
                .as_deref()
                .is_none_or(|f| selects(f, &fields()))
        })
        .collect();
    ["default", "kube-system"]
        .into_iter()
        .flat_map(|ns| wanted.iter().filter(move |p| namespace_of(p) == ns))
        .filter(|p| flags.all_namespaces || namespace_of(p) == namespace)
        .copied()
        .collect()
}

/// `get namespaces`: the cluster's namespaces, all as old as the cluster.
fn namespace_rows(now: SimTime, names: &[&str]) -> Vec<Vec<String>> {
    let mut rows = vec![["NAME", "STATUS", "AGE"].map(String::from).to_vec()];
    let age = super::rows::age(now, SimTime::ZERO);
    for ns in NAMESPACES
        .iter()
        .filter(|ns| names.is_empty() || names.contains(ns))
    {
        rows.push(vec![ns.to_string(), "Active".into(), age.clone()]);
    }
    rows
}

/// `get configmaps`: the ConfigMaps a kubeadm cluster has.
fn config_map_rows(
    now: SimTime,
    names: &[&str],
    namespace: &str,
    flags: &Flags,
) -> Vec<Vec<String>> {
    let mut header = vec!["NAME", "DATA", "AGE"];
    if flags.all_namespaces {
        header.insert(0, "NAMESPACE");
    }
    let mut rows = vec![header.into_iter().map(String::from).collect()];
    let age = super::rows::age(now, SimTime::ZERO);
    for (ns, name, data) in CONFIG_MAPS {
        if (flags.all_namespaces || ns == namespace) && (names.is_empty() || names.contains(&name))
        {
            let mut row = vec![name.to_string(), data.to_string(), age.clone()];
            if flags.all_namespaces {
                row.insert(0, ns.to_string());
            }
            rows.push(row);
        }
    }
    rows
}

/// `--show-labels`: each object's labels, sorted by key, as the last column.
fn with_labels(rows: &mut [Vec<String>], labels: impl Iterator<Item = Vec<(String, String)>>) {
    rows[0].push("LABELS".into());
    for (row, mut l) in rows[1..].iter_mut().zip(labels) {
        l.sort();
        let shown: Vec<String> = l.iter().map(|(k, v)| format!("{k}={v}")).collect();
        row.push(if shown.is_empty() {
            "<none>".into()
        } else {
            shown.join(",")
        });
    }
}

/// The table as kubectl prints it: a name asked for and not found is NotFound; nothing at all is
/// kubectl's note on stderr, with no header (exit 0).
fn shown(
    rows: Vec<Vec<String>>,
    what: &str,
    kind: Resource,
    names: &[&str],
    flags: &Flags,
    client: &Client,
) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let took_s = client.took_s();
    if let Some(missing) = names.iter().filter(|_| kind != Resource::Events).find(|n| {
        !rows.iter().skip(1).any(|r| {
            let name = if flags.all_namespaces && kind != Resource::Nodes {
                &r[1]
            } else {
                &r[0]
            };
            name == *n
        })
    }) {
        return client.failed((
            format!(
                "Error from server (NotFound): {what} \"{}\" not found\n",
                clip(missing)
            ),
            1,
        ));
    }
    // Nothing found: no header, and the note on stderr (exit 0).
    if rows.len() == 1 {
        let stderr = match (kind, flags.all_namespaces) {
            (
                Resource::Pods
                | Resource::Leases
                | Resource::Workloads(_)
                | Resource::ReplicaSets
                | Resource::Endpoints
                | Resource::Services
                | Resource::Slices
                | Resource::Budgets
                | Resource::Events
                | Resource::ConfigMaps,
                false,
            ) => {
                format!("No resources found in {} namespace.\n", clip(namespace))
            }
            _ => "No resources found\n".into(),
        };
        return Output {
            stderr,
            took_s,
            ..Output::default()
        };
    }
    // `--no-headers`: the columns as wide as their values alone.
    let rows = if flags.no_headers {
        &rows[1..]
    } else {
        &rows[..]
    };
    Output {
        stdout: layout(rows),
        took_s,
        ..Output::default()
    }
}

/// The ConfigMaps of a kubeadm cluster (namespace, name, how many keys), all there from its
/// start: every namespace's `kube-root-ca.crt`, kubeadm's and its add-ons' in kube-system, and
/// the bootstrap `cluster-info` in kube-public. Their data is not modelled.
const CONFIG_MAPS: [(&str, &str, u32); 11] = [
    ("default", "kube-root-ca.crt", 1),
    ("kube-node-lease", "kube-root-ca.crt", 1),
    ("kube-public", "cluster-info", 2),
    ("kube-public", "kube-root-ca.crt", 1),
    ("kube-system", "coredns", 1),
    ("kube-system", "extension-apiserver-authentication", 6),
    (
        "kube-system",
        "kube-apiserver-legacy-service-account-token-tracking",
        1,
    ),
    ("kube-system", "kube-proxy", 2),
    ("kube-system", "kube-root-ca.crt", 1),
    ("kube-system", "kubeadm-config", 1),
    ("kube-system", "kubelet-config", 1),
];

/// The namespaces of a kubeadm cluster, all there from its start.
const NAMESPACES: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// `-o json|yaml`: one object asked for by name as itself, else a `List`.
pub(super) fn printed(docs: Vec<Doc>, one_named: bool, json: bool) -> String {
    let doc = match <[Doc; 1]>::try_from(docs) {
        Ok([one]) if one_named => one,
        Ok([one]) => object::list(vec![one]),
        Err(docs) => object::list(docs),
    };
    if json {
        object::json(&doc)
    } else {
        object::yaml(&doc)
    }
}

/// `kubectl cluster-info`: the control plane's address and the cluster services in kube-system
/// (kubeadm's kube-dns, labelled `kubernetes.io/name: CoreDNS`), read through the API; the hint
/// line is printed whatever happened (kubectl `clusterinfo.go`).
/// `kubectl version`: the client's versions, then the server's once it answers (kubeadm v1.32).
pub(super) fn version(world: &World, from: HostId, flags: &Flags) -> Output {
    const CLIENT: &str = "Client Version: v1.32.0\nKustomize Version: v5.5.0\n";
    let mut client = Client::new(world, from, flags);
    let answer = client.list("/registry/namespaces/", "version");
    let took_s = client.took_s();
    match answer {
        Ok(_) => Output {
            stdout: format!("{CLIENT}Server Version: v1.32.0\n"),
            took_s,
            ..Output::default()
        },
        Err((stderr, status)) => Output {
            stdout: CLIENT.into(),
            stderr,
            status,
            took_s,
            ..Output::default()
        },
    }
}

pub(super) fn cluster_info(world: &World, from: HostId, flags: &Flags) -> Output {
    const HINT: &str =
        "\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n";
    let mut client = Client::new(world, from, flags);
    let answer = client.list(sim::k8s::objects::WORKLOADS, "get services");
    let took_s = client.took_s();
    match (answer, flags.server.or_else(|| world.api_endpoint())) {
        (Ok(_), Some(endpoint)) => {
            let server = format!("https://{}:{API_PORT}", endpoint_ip(endpoint));
            Output {
                stdout: format!(
                    "Kubernetes control plane is running at {server}\nCoreDNS is running at {server}/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n{HINT}"
                ),
                took_s,
                ..Output::default()
            }
        }
        (Err((stderr, status)), _) => Output {
            stdout: HINT.into(),
            stderr,
            status,
            took_s,
            ..Output::default()
        },
        _ => Output {
            stdout: HINT.into(),
            stderr: "error: unexpected answer from the server\n".into(),
            status: 1,
            took_s,
            ..Output::default()
        },
    }
}

/// `kubectl get --raw /readyz|/livez|/healthz[?verbose]`: the apiserver's health checks as it
/// prints them (`k8s.io/apiserver/pkg/server/healthz`). The checks are those the simulation
/// models; the post-start hooks, all passed once an apiserver runs, are left out.
pub(super) fn raw(world: &World, from: HostId, path: &str, flags: &Flags) -> Output {
    let (endpoint, query) = path.split_once('?').unwrap_or((path, ""));
    let checks: &[&str] = match endpoint.trim_end_matches('/') {
        "/readyz" => &[
            "ping",
            "log",
            "etcd",
            "etcd-readiness",
            "informer-sync",
            "shutdown",
        ],
        "/livez" | "/healthz" => &["ping", "log", "etcd"],
        _ => {
            return Output::error(
                format!(
                    "Error from server (NotFound): the server could not find the requested resource
{}",
                    "(this console serves --raw /readyz, /livez and /healthz, with ?verbose)
"
                ),
                1,
            )
        }
    };
    let name = endpoint.trim_matches('/');
    let mut client = Client::new(world, from, flags);
    let (etcd, synced) = match client.request(ApiRequest::Checks, "get") {
        Ok(ApiResponse::Checks { etcd, synced }) => (etcd, synced),
        Ok(_) => return client.failed(("error: unexpected answer from the server\n".into(), 1)),
        Err(e) => return client.failed(e),
    };
    let passes = |c: &&str| match *c {
        "etcd" | "etcd-readiness" => etcd,
        "informer-sync" => synced,
        _ => true,
    };
    let list: String = checks
        .iter()
        .map(|c| match passes(c) {
            true => format!("[+]{c} ok\n"),
            false => format!("[-]{c} failed: reason withheld\n"),
        })
        .collect();
    let took_s = client.took_s();
    if checks.iter().all(passes) {
        let stdout = match query.split('&').any(|q| q == "verbose") {
            true => format!("{list}{name} check passed\n"),
            false => "ok\n".into(),
        };
        return Output {
            stdout,
            took_s,
            ..Output::default()
        };
    }
    // A failing check answers 500 with every check listed; kubectl quotes the body.
    let body = format!("{list}{name} check failed");
    client.failed((
        format!("Error from server (InternalError): an error on the server ({body:?}) has prevented the request from succeeding\n"),
        1,
    ))
}

/// The objects `-o json|yaml` prints, in the order `get` lists them; Err: kubectl's message
/// for a name that is not there, or for a type this console keeps only as a table.
pub(super) fn documents(
    world: &World,
    kind: Resource,
    items: &[(Key, KeyValue)],
    names: &[&str],
    namespace: &str,
    flags: &Flags,
) -> Result<Vec<Doc>, String> {
    let wanted = |name: &str| names.is_empty() || names.contains(&name);
    let labelled = |labels: &[(String, String)]| {
        (flags.selector.as_deref()).is_none_or(|sel| selects(sel, labels))
    };
    let ip = |name: &str| {
        world
            .scenario()
            .host(name)
            .map_or("<none>".to_string(), |(i, _)| ip_of(i as HostId))
    };
    let (docs, what): (Vec<(String, Doc)>, &str) = match kind {
        Resource::Nodes => (
            items
                .iter()
                .filter_map(|(_, kv)| Some((kv.value.as_node()?, kv.mod_revision)))
                .filter(|(n, _)| wanted(&n.name) && labelled(&object::node_labels(n)))
                .map(|(n, rv)| (n.name.clone(), object::node(n, rv, &ip(&n.name))))
                .collect(),
            "nodes",
        ),
        Resource::Pods => {
            let mut pods: Vec<(String, Doc)> = Vec::new();
            for ns in ["default", "kube-system"] {
                if !flags.all_namespaces && ns != namespace {
                    continue;
                }
                for (_, kv) in items {
                    let Some(p) = kv.value.as_pod().filter(|p| {
                        namespace_of(p) == ns && wanted(&p.name) && labelled(&object::pod_labels(p))
                    }) else {
                        continue;
                    };
                    let addr = Some(pod_ip(world, p)).filter(|a| a != "<none>");
                    pods.push((p.name.clone(), object::pod(p, ns, kv.mod_revision, addr)));
                }
            }
            (pods, "pods")
        }
        Resource::Leases => (
            items
                .iter()
                .filter_map(|(k, kv)| Some((k.strip_prefix(LEASES)?, kv.value.as_lease()?, kv.mod_revision)))
                .filter_map(|(path, l, rv)| {
                    let (ns, name) = path.split_once('/')?;
                    (flags.all_namespaces || ns == namespace).then_some((ns, name, l, rv))
                })
                .filter(|(_, name, _, _)| wanted(name))
                .map(|(ns, name, l, rv)| (name.to_string(), object::lease(name, ns, l, rv)))
                .collect(),
            "leases.coordination.k8s.io",
        ),
        _ => {
            return Err("error: this console prints -o json and -o yaml for nodes, pods, leases and events (the other types as tables)\n".into())
        }
    };
    if let Some(missing) = names
        .iter()
        .find(|n| !docs.iter().any(|(name, _)| name == *n))
    {
        return Err(format!(
            "Error from server (NotFound): {what} \"{}\" not found\n",
            clip(missing)
        ));
    }
    Ok(docs.into_iter().map(|(_, d)| d).collect())
}
