//! `kubectl` on the simulated cluster: its kubeconfig points at the API endpoint the kubelets use
//! (the load balancer, else the first apiserver). `get` sends a consistent list (no
//! resourceVersion) and prints kubectl's table; failures print kubectl's error for the way the
//! request failed. Printers follow kubernetes `pkg/printers/internalversion/printers.go`;
//! errors follow kubectl `pkg/cmd/util/helpers.go` (`StandardErrorMessage`).
//!
//! Left out: API discovery (and the log lines kubectl prints when it fails before its error),
//! container restart counts (RESTARTS is 0), node OS and runtime details (`<unknown>`).

use super::forward::{self, Jobs};
use super::object::{self, Doc};
use super::table::{human_duration, layout};
use super::words::clip;
use super::{ip_of, Output};
use sim::k8s::api::{ApiRequest, ApiResponse};
use sim::k8s::lb::NO_BACKEND;
use sim::k8s::objects::{
    Budget, Condition, KeyValue, Kind, Lease, Node, Object, Pod, PodDisruptionBudget, TaintKey,
    NODES, PODS,
};
use sim::kernel::keymap::Key;

/// Where Leases are kept, by namespace.
const LEASES: &str = "/registry/leases/";
use sim::kernel::net::HostId;
use sim::kernel::process::{Addr, Port};
use sim::kernel::time::{Duration, SimTime};
use sim::record::EventKind;
use sim::scenario::COREDNS;
use sim::world::terminal::{Answer, Call};
use sim::world::World;

/// client-go's TCP dial timeout (`transport/cache.go`).
const DIAL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the console waits: kube-apiserver's `--request-timeout` (kubectl itself waits for
/// ever, `--request-timeout=0`).
const SERVER_TIMEOUT: Duration = Duration::from_secs(60);
const SERVER_TIMEOUT_MESSAGE: &str = "the server was unable to return a response in the time allotted, but may still be processing the request";
const API_PORT: u16 = 6443;

/// The options kubectl understands here.
#[derive(Default)]
pub(crate) struct Flags {
    pub(crate) namespace: Option<String>,
    all_namespaces: bool,
    wide: bool,
    /// `get --raw PATH`.
    raw: Option<String>,
    /// `-o json` (true) or `-o yaml` (false).
    document: Option<bool>,
    /// `--server`: this apiserver (or balancer) instead of the kubeconfig's.
    server: Option<Addr>,
    /// `-l`: a label selector (equality requirements).
    selector: Option<String>,
    /// `--field-selector` (events' fields) and `--sort-by` (events' times).
    fields: Option<String>,
    sort_by: Option<String>,
}

/// Whether `labels` meet a label selector of equality requirements, all of which must hold:
/// `k=v`, `k==v`, `k!=v` (also met without the label), `k` (has it), `!k` (has it not).
fn selects(selector: &str, labels: &[(&str, String)]) -> bool {
    let value = |k: &str| {
        labels
            .iter()
            .find(|(l, _)| *l == k)
            .map(|(_, v)| v.as_str())
    };
    selector.split(',').map(str::trim).all(|r| {
        if let Some((k, v)) = r.split_once("!=") {
            value(k.trim()) != Some(v.trim())
        } else if let Some((k, v)) = r.split_once('=') {
            value(k.trim()) == Some(v.trim_start_matches('=').trim())
        } else if let Some(k) = r.strip_prefix('!') {
            value(k.trim()).is_none()
        } else {
            value(r).is_some()
        }
    })
}

/// `jobs`: the line's background jobs (port-forward and proxy start one); `background`: this
/// command ends with `&`.
pub fn run(
    world: &World,
    from: HostId,
    args: &[String],
    jobs: &mut Jobs,
    background: bool,
) -> Output {
    let mut flags = Flags::default();
    let mut words = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-A" | "--all-namespaces" => flags.all_namespaces = true,
            "-o" | "--output" => match it.next().map(String::as_str) {
                Some("wide") => flags.wide = true,
                Some("json") => flags.document = Some(true),
                Some("yaml") => flags.document = Some(false),
                Some(other) => return unsupported_output(other),
                None => return error("flag needs an argument: 'o' in -o"),
            },
            "-owide" | "--output=wide" => flags.wide = true,
            "-ojson" | "--output=json" => flags.document = Some(true),
            "-oyaml" | "--output=yaml" => flags.document = Some(false),
            "-s" | "--server" => match it.next() {
                Some(url) => match server(world, from, url) {
                    Ok(addr) => flags.server = Some(addr),
                    Err(e) => return e,
                },
                None => return error("flag needs an argument: 's' in -s"),
            },
            s if s.starts_with("--server=") => match server(world, from, &s["--server=".len()..]) {
                Ok(addr) => flags.server = Some(addr),
                Err(e) => return e,
            },
            "--raw" => match it.next() {
                Some(path) => flags.raw = Some(path.clone()),
                None => return error("flag needs an argument: --raw"),
            },
            s if s.starts_with("--raw=") => flags.raw = Some(s["--raw=".len()..].to_string()),
            "-l" | "--selector" => match it.next() {
                Some(sel) => flags.selector = Some(sel.clone()),
                None => return error("flag needs an argument: 'l' in -l"),
            },
            s if s.starts_with("--selector=") => {
                flags.selector = Some(s["--selector=".len()..].to_string())
            }
            "--field-selector" | "--sort-by" => match it.next() {
                Some(v) if a == "--sort-by" => flags.sort_by = Some(v.clone()),
                Some(v) => flags.fields = Some(v.clone()),
                None => return error(&format!("flag needs an argument: {a}")),
            },
            s if s.starts_with("--field-selector=") => {
                flags.fields = Some(s["--field-selector=".len()..].to_string())
            }
            s if s.starts_with("--sort-by=") => {
                flags.sort_by = Some(s["--sort-by=".len()..].to_string())
            }
            s if s.starts_with("-l") && s.len() > 2 => flags.selector = Some(s[2..].to_string()),
            "-n" | "--namespace" => match it.next() {
                Some(ns) => flags.namespace = Some(ns.clone()),
                None => return error("flag needs an argument: 'n' in -n"),
            },
            s if s.starts_with("--namespace=") => {
                flags.namespace = Some(s["--namespace=".len()..].to_string())
            }
            s if s.starts_with("-o") || s.starts_with("--output=") => {
                return unsupported_output(
                    s.trim_start_matches("--output=").trim_start_matches("-o"),
                )
            }
            // Flags of scale and delete: those commands read them from `args`.
            s if s.starts_with("--replicas") || s.starts_with("--grace-period") => {
                if !s.contains('=') {
                    it.next();
                }
            }
            "--force" => {}
            // Flags of drain: it reads them from `args`.
            "--ignore-daemonsets" | "--delete-emptydir-data" | "--delete-local-data" => {}
            // Flags of port-forward and proxy (proxy reads its port from `args`).
            "--address" | "--pod-running-timeout" | "-p" | "--port" => {
                it.next();
            }
            s if s.starts_with("--port=") => {}
            s if s.starts_with('-') => {
                return error(&format!("unknown flag: {}", clip(s)));
            }
            _ => words.push(a.as_str()),
        }
    }
    match words.as_slice() {
        [] => Output {
            stdout: "kubectl controls the Kubernetes cluster manager.\n\nIn this console: get, describe, cluster-info, scale, delete pod, cordon, uncordon, drain, port-forward, proxy\n".into(),
            ..Output::default()
        },
        ["get"] if flags.raw.is_some() => raw(world, from, flags.raw.as_deref().unwrap_or_default(), &flags),
        ["get", ..] if flags.raw.is_some() => error("arguments may not be passed when --raw is specified"),
        ["get"] => error("you must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources."),
        ["get", resource, ..] if resource.contains(',') => error(
            "this console gets one resource type at a time (kubectl get deploy, then kubectl get sts)",
        ),
        ["get", resource, names @ ..] => get(world, from, resource, names, &flags),
        ["scale", target @ ..] => scale(world, from, target, args, &flags),
        ["port-forward", rest @ ..] => forward::port_forward(world, from, rest, &flags, jobs, background),
        ["proxy"] => forward::proxy(world, from, args, jobs, background),
        ["cluster-info"] => cluster_info(world, from, &flags),
        ["cordon", node] => cordon(world, from, node, true, &flags),
        ["uncordon", node] => cordon(world, from, node, false, &flags),
        ["drain", node] => drain(world, from, node, args, &flags),
        [command @ ("cordon" | "uncordon" | "drain"), ..] => error(&format!(
            "USAGE: {command} NODE [flags]\nSee 'kubectl {command} -h' for help and examples"
        )),
        ["delete", target @ ..] => delete(world, from, target, args, &flags),
        ["describe", "node" | "nodes" | "no", name] => describe_node(world, from, name, &flags),
        ["describe", "pod" | "pods" | "po", name] => describe_pod(world, from, name, &flags),
        ["describe", "lease" | "leases", name] => describe_lease(world, from, name, &flags),
        ["describe", "event" | "events" | "ev", name] => describe_event(world, from, name, &flags),
        ["describe", kind @ ("deployment" | "deployments" | "deploy" | "statefulset" | "statefulsets" | "sts" | "daemonset" | "daemonsets" | "ds" | "replicaset" | "replicasets" | "rs"), name] => {
            let kind = resource(kind).unwrap_or(Resource::ReplicaSets);
            describe_workload(world, from, kind, name, &flags)
        }
        ["describe", "service" | "services" | "svc", "kubernetes"] => error(
            "this console does not describe the kubernetes Service (its Endpoints, the apiservers, are not modelled)",
        ),
        ["describe", "service" | "services" | "svc", name] => {
            describe_service(world, from, name, &flags)
        }
        ["describe", "endpoints" | "endpoint" | "ep", name] => {
            describe_endpoints(world, from, name, &flags, false)
        }
        ["describe", "endpointslices" | "endpointslice", name] => {
            describe_endpoints(world, from, name, &flags, true)
        }
        ["describe", "pdb" | "poddisruptionbudget" | "poddisruptionbudgets", name] => {
            describe_pdb(world, from, name, &flags)
        }
        ["describe", "node" | "nodes" | "no"] => error("this console describes one node at a time: kubectl describe node NAME"),
        ["describe", kind, ..] => error(&format!(
            "\"kubectl describe {}\" is not in this console yet (kubectl describe node|pod|deployment|replicaset|statefulset|daemonset|service|endpoints|endpointslice|lease|pdb NAME works)",
            clip(kind)
        )),
        [command, ..] if KNOWN.contains(command) => error(&format!(
            "\"kubectl {command}\" is not in this console yet (kubectl get works)"
        )),
        [command, ..] => error(&format!("unknown command \"{}\" for \"kubectl\"", clip(command))),
    }
}

/// kubectl's commands that this console does not run yet.
const KNOWN: &[&str] = &[
    "describe",
    "apply",
    "create",
    "edit",
    "logs",
    "exec",
    "top",
    "version",
    "api-resources",
];

fn error(text: &str) -> Output {
    Output::error(format!("error: {text}\n"), 1)
}

fn unsupported_output(format: &str) -> Output {
    error(&format!(
        "unable to match a printer suitable for the output format \"{}\" (this console prints tables, -o wide, -o json and -o yaml)",
        clip(format)
    ))
}

#[derive(Clone, Copy, PartialEq)]
enum Resource {
    Nodes,
    Pods,
    Leases,
    Workloads(Kind),
    /// A Deployment's one ReplicaSet (the simulation's Deployment controller keeps its pods).
    ReplicaSets,
    Endpoints,
    Services,
    Slices,
    Budgets,
    Events,
}

fn resource(word: &str) -> Option<Resource> {
    match word {
        "nodes" | "node" | "no" => Some(Resource::Nodes),
        "pods" | "pod" | "po" => Some(Resource::Pods),
        "leases" | "lease" => Some(Resource::Leases),
        "poddisruptionbudgets" | "poddisruptionbudget" | "pdb" => Some(Resource::Budgets),
        "endpoints" | "endpoint" | "ep" => Some(Resource::Endpoints),
        "services" | "service" | "svc" => Some(Resource::Services),
        "endpointslices" | "endpointslice" => Some(Resource::Slices),
        "deployments" | "deployment" | "deploy" => Some(Resource::Workloads(Kind::Deployment)),
        "statefulsets" | "statefulset" | "sts" => Some(Resource::Workloads(Kind::StatefulSet)),
        "daemonsets" | "daemonset" | "ds" => Some(Resource::Workloads(Kind::DaemonSet)),
        "replicasets" | "replicaset" | "rs" => Some(Resource::ReplicaSets),
        "events" | "event" | "ev" => Some(Resource::Events),
        _ => None,
    }
}

/// kubectl at work: its requests from the vantage host on a copy of the world (which moves on by
/// the time each takes), and the simulated time they took together.
pub(crate) struct Client {
    pub(crate) copy: World,
    from: HostId,
    start: SimTime,
    /// `--server`, else the kubeconfig's endpoint.
    server: Option<Addr>,
    /// The apiserver that took the last request.
    pub(crate) served_by: Option<HostId>,
}

impl Client {
    pub(crate) fn new(world: &World, from: HostId, flags: &Flags) -> Client {
        let copy = world.clone();
        let start = copy.now();
        Client {
            copy,
            from,
            start,
            server: flags.server,
            served_by: None,
        }
    }

    pub(crate) fn now(&self) -> SimTime {
        self.copy.now()
    }

    pub(crate) fn took_s(&self) -> f64 {
        (self.copy.now().0 - self.start.0) as f64 / 1e6
    }

    /// A failure after the time taken so far.
    pub(crate) fn failed(&self, (stderr, status): (String, i32)) -> Output {
        Output {
            stderr,
            status,
            took_s: self.took_s(),
            ..Output::default()
        }
    }

    /// A GET of the object at `key` (`what` names the request in a timeout's message). Err:
    /// kubectl's error, NotFound for `resource` `name` when there is no such object.
    pub(crate) fn get(
        &mut self,
        key: &str,
        what: &str,
        resource: &str,
        name: &str,
    ) -> Result<KeyValue, (String, i32)> {
        let get = ApiRequest::Get { key: key.into() };
        match self.request(get, what)? {
            ApiResponse::Object(Some(kv)) => Ok(kv),
            _ => Err(not_found(resource, name)),
        }
    }

    /// A consistent list of everything under `prefix`.
    pub(crate) fn list(
        &mut self,
        prefix: &str,
        what: &str,
    ) -> Result<Vec<(Key, KeyValue)>, (String, i32)> {
        let list = ApiRequest::ListConsistent {
            prefix: prefix.into(),
        };
        match self.request(list, what)? {
            ApiResponse::List { items } => Ok(items),
            _ => Err(("error: unexpected answer from the server\n".into(), 1)),
        }
    }

    /// One API request through the kubeconfig's endpoint: how it ended, and the server as kubectl
    /// names it (`IP:6443`). None: the host has no kubeconfig.
    pub(crate) fn call(&mut self, req: ApiRequest) -> Option<(Answer, String)> {
        // A host that has not joined has no kubeconfig: kubectl falls back to localhost:8080.
        let kubeconfig = self.copy.host_is_joined(self.from) || self.server.is_some();
        let endpoint = self.server.or_else(|| self.copy.api_endpoint());
        let endpoint = endpoint.filter(|_| kubeconfig)?;
        let outcome = self.copy.call(
            self.from,
            endpoint,
            Call::Api(req),
            DIAL_TIMEOUT,
            SERVER_TIMEOUT,
        );
        self.served_by = outcome.served_by;
        Some((
            outcome.answer,
            format!("{}:{API_PORT}", endpoint_ip(endpoint)),
        ))
    }

    /// One API request through the kubeconfig's endpoint. Err: kubectl's error for the way it
    /// failed, and its exit status.
    fn request(&mut self, req: ApiRequest, what: &str) -> Result<ApiResponse, (String, i32)> {
        let Some((answer, server)) = self.call(req) else {
            let refused = "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n";
            return Err((refused.into(), 1));
        };
        Err(match answer {
        Answer::Api(ApiResponse::Failed(reason)) if reason == NO_BACKEND => {
            // A balancer with no backend in service accepts the connection and closes it.
            ("Unable to connect to the server: EOF\n".into(), 1)
        }
        Answer::Api(ApiResponse::Failed(reason)) => (format!("Error from server: {reason}\n"), 1),
        Answer::Api(resp) => return Ok(resp),
        Answer::Refused => (
            format!("The connection to the server {server} was refused - did you specify the right host or port?\n"),
            1,
        ),
        Answer::DialTimeout => (
            format!("Unable to connect to the server: dial tcp {server}: i/o timeout\n"),
            1,
        ),
        // Lost on the way (a backend that died, a cut link): kubectl has no request timeout
        // and would wait until interrupted.
        Answer::Timeout => (
            format!(
                "^C\nconsole: no answer after {} s of simulated time (kubectl waits without a timeout); stopped as with Ctrl-C\n",
                SERVER_TIMEOUT.secs()
            ),
            130,
        ),
        Answer::Etcd(_) => (
            format!("Error from server (Timeout): {SERVER_TIMEOUT_MESSAGE} ({what})\n"),
            1,
        ),
    })
    }
}

fn get(world: &World, from: HostId, word: &str, names: &[&str], flags: &Flags) -> Output {
    let kind = resource(word);
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let prefix = match kind {
        Some(Resource::Nodes) => NODES.to_string(),
        Some(Resource::Pods) => PODS.to_string(),
        Some(Resource::Leases) if flags.all_namespaces => LEASES.to_string(),
        Some(Resource::Leases) => format!("{LEASES}{namespace}/"),
        Some(Resource::Budgets) => sim::k8s::objects::PDBS.to_string(),
        // A consistent list like any other; the Events themselves are kept beside etcd.
        Some(Resource::Events) => "/registry/events/".to_string(),
        // The workloads and, for their READY counts, the pods and nodes: one read of it all.
        Some(Resource::Workloads(_) | Resource::ReplicaSets) => "/registry/".to_string(),
        // The slices, and the pods and workloads they name (addresses, the Service's age).
        Some(Resource::Endpoints | Resource::Services | Resource::Slices) => {
            "/registry/".to_string()
        }
        // An unknown type is only known to be unknown once the server answered discovery.
        None => "/registry/".to_string(),
    };
    let mut client = Client::new(world, from, flags);
    let answer = client.list(&prefix, &format!("get {word}"));
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
    if flags.selector.as_deref().is_some_and(|s| s.contains('(')) {
        return failed(
            "error: this console reads equality selectors (-l app=web,tier!=db), not set-based ones\n".into(),
        );
    }
    let fields_of_kind = matches!(kind, Resource::Events | Resource::Pods);
    if flags.sort_by.is_some() && kind != Resource::Events
        || flags.fields.is_some() && !fields_of_kind
    {
        return failed("error: this console takes --field-selector for pods and events, --sort-by for events\n".into());
    }
    if kind == Resource::Events && flags.wide {
        return failed(
            "error: this console lists events without -o wide (their source is not kept)\n".into(),
        );
    }
    if flags.selector.is_some() && !matches!(kind, Resource::Pods | Resource::Nodes) {
        return failed(
            "error: this console selects pods and nodes by label (-l); list the others by name\n"
                .into(),
        );
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
    let objects = items.iter().map(|(_, kv)| &*kv.value);
    let (rows, what) = match kind {
        Resource::Nodes => {
            let nodes: Vec<&Node> = objects
                .filter_map(Object::as_node)
                .filter(|n| names.is_empty() || names.contains(&n.name.as_str()))
                .filter(|n| {
                    let sel = flags.selector.as_deref();
                    sel.is_none_or(|sel| selects(sel, &object::node_labels(n)))
                })
                .collect();
            (node_rows(world, &nodes, now, flags.wide), "nodes")
        }
        Resource::Pods => {
            // etcd returns keys in order; across namespaces the server lists namespace by
            // namespace ("default" before "kube-system").
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
            let pods: Vec<&Pod> = ["default", "kube-system"]
                .into_iter()
                .flat_map(|ns| wanted.iter().filter(move |p| namespace_of(p) == ns))
                .filter(|p| flags.all_namespaces || namespace_of(p) == namespace)
                .copied()
                .collect();
            (pod_rows(world, &pods, now, flags), "pods")
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
            let rows = workload_rows(&objects, kind, now, names, namespace, flags.all_namespaces);
            (rows, resource_name(kind))
        }
        Resource::Events => {
            let events = &client.copy.obs.api_events;
            match event_rows(events, now, names, namespace, flags) {
                Ok(rows) => (rows, "events"),
                Err(e) => return failed(e.0),
            }
        }
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
    };
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
        return failed(format!(
            "Error from server (NotFound): {what} \"{}\" not found\n",
            clip(missing)
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
                | Resource::Events,
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
    Output {
        stdout: layout(&rows),
        took_s,
        ..Output::default()
    }
}

/// The address kubeconfigs name: the virtual IP (kube-vip, keepalived), else the endpoint host's.
pub(crate) fn endpoint_ip(endpoint: Addr) -> String {
    if endpoint.port == Port::Vip {
        VIP_IP.to_string()
    } else {
        ip_of(endpoint.host)
    }
}

/// The API's virtual IP, outside the hosts' addresses.
const VIP_IP: &str = "10.0.255.100";

fn age(now: SimTime, created: SimTime) -> String {
    human_duration((now.0 as f64 - created.0 as f64) / 1e6)
}

fn node_rows(world: &World, nodes: &[&Node], now: SimTime, wide: bool) -> Vec<Vec<String>> {
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
            super::KUBELET_VERSION.into(),
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

fn resource_name(kind: Resource) -> &'static str {
    match kind {
        Resource::Workloads(Kind::StatefulSet) => "statefulsets.apps",
        Resource::Workloads(Kind::DaemonSet) => "daemonsets.apps",
        Resource::ReplicaSets => "replicasets.apps",
        _ => "deployments.apps",
    }
}

/// Deployments (READY, UP-TO-DATE, AVAILABLE), StatefulSets (READY), DaemonSets (DESIRED,
/// CURRENT, READY, UP-TO-DATE, AVAILABLE, NODE SELECTOR) or ReplicaSets (DESIRED, CURRENT, READY:
/// printers.go `printReplicaSet`). The counts are the pods the API holds for the workload now,
/// not a status a controller last wrote.
fn workload_rows(
    objects: &[&Object],
    resource: Resource,
    now: SimTime,
    names: &[&str],
    namespace: &str,
    all_namespaces: bool,
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
    if all_namespaces {
        header.insert(0, "NAMESPACE".into());
    }
    let nodes = objects.iter().filter(|o| o.as_node().is_some()).count();
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
/// of [`super::node_port`]), addresses from the EndpointSlices.
fn service_rows(
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
        // The API's own Service, made with the cluster (its Endpoints are left out).
        if services && ns == "default" && (names.is_empty() || names.contains(&"kubernetes")) {
            let mut row = ["kubernetes", "ClusterIP", "10.96.0.1", "<none>", "443/TCP"]
                .map(String::from)
                .to_vec();
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
                let (ip, ports) = match (dns, super::node_port(world, &w.name)) {
                    (true, _) => ("10.96.0.10".into(), "53/UDP,53/TCP,9153/TCP".into()),
                    (false, Some(p)) => (super::cluster_ip(p), format!("80:{p}/TCP")),
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

/// Lines laid out as kubectl's tabwriter lays out one block (padding 2): `key` cells padded to
/// the widest, a value of several lines continued under the first.
fn tabbed(rows: &[(&str, String)]) -> String {
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
fn describe_workload(
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
    let created = super::calendar::date(d.created);
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
fn endpoint_addresses(
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

/// `kubectl describe service NAME`, laid out as kubectl's `describeService` prints it: a
/// workload's NodePort Service, or kubeadm's kube-dns in kube-system (one block per port), each
/// port with the ready addresses of the Service's EndpointSlice.
fn describe_service(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
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
        let node_port = super::node_port(world, name);
        let ip = node_port.map_or("<none>".to_string(), super::cluster_ip);
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

/// Leases by (namespace/name): NAME, HOLDER, AGE.
/// The Events the API holds (written within the last hour), in the order it lists them: by
/// namespace, then by name, `OBJECT.HEX` with the time in nanoseconds since 1970 (printers.go
/// `printEvent`: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; with `-A` NAMESPACE first). A name
/// asked for and not held is the error's name.
fn event_rows(
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
fn slice_name(service: &str) -> String {
    let h = sim::kernel::rng::Rng::new(super::etcdctl::member_id(service)).next_u64();
    let alphabet = sim::k8s::objects::ALPHANUMS;
    let suffix: String = (0..5)
        .map(|i| alphabet[(h >> (8 * i)) as usize % alphabet.len()] as char)
        .collect();
    format!("{service}-{suffix}")
}

/// `kubectl describe endpoints NAME` (kubectl's `describeEndpoints`) or `kubectl describe
/// endpointslice NAME` (`describeEndpointSliceV1`) of a Service: its ready addresses as its
/// EndpointSlice holds them, and its pods that have an address but are not ready (the
/// controller lists them as not ready; terminating pods are left out).
fn describe_endpoints(
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
        stdout: super::table::tabwrite(&lines),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// A describe's text with its object's Events, in place of its last line (`Events: <none>`) when
/// there are some: kubectl's `DescribeEvents`, oldest first, Type, Reason, Age, From, Message.
fn with_events(out: String, client: &Client, kind: &str, name: &str, namespace: &str) -> String {
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
    out[..=cut].to_string() + "Events:\n" + &super::table::align(&rows, 0, 2)
}

/// `-o json|yaml`: one object asked for by name as itself, else a `List`.
fn printed(docs: Vec<Doc>, one_named: bool, json: bool) -> String {
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

type Events = std::collections::VecDeque<(SimTime, sim::k8s::events::Event)>;
/// Events as listed: each with its name and when it was written.
type Listed<'a> = Vec<(String, &'a sim::k8s::events::Event, SimTime)>;

/// The Events the API holds at `now` (written within the last hour) in `namespace` (or all),
/// those named if any, in the order it lists them: by namespace, then by name; each with its
/// name and when it was written. A name asked for and not held is the error's name.
fn listed_events<'a>(
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

/// `kubectl describe event NAME`: kubectl has no describer of its own for Events, so the generic
/// one prints every field of it.
fn describe_event(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let mut client = Client::new(world, from, flags);
    if let Err(e) = client.list("/registry/events/", "get events") {
        return client.failed(e);
    }
    let now = client.now();
    let text = match listed_events(&client.copy.obs.api_events, now, &[name], namespace, flags) {
        Ok(found) => {
            let (name, e, posted) = &found[0];
            super::describe::generic(name, namespace, &object::event(name, e, *posted))
        }
        Err(e) => return client.failed(e),
    };
    Output {
        stdout: text,
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// An Event's name as client-go's recorder makes it: the object's name, a point, and the time
/// in nanoseconds since 1970 in hexadecimal.
fn event_name(e: &sim::k8s::events::Event) -> String {
    format!("{}.{:x}", e.name, super::calendar::unix_nanos(e.at))
}

fn lease_rows(leases: &[(&str, &Lease)], now: SimTime, all_namespaces: bool) -> Vec<Vec<String>> {
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
fn budget_rows(
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

fn pod_rows(world: &World, pods: &[&Pod], now: SimTime, flags: &Flags) -> Vec<Vec<String>> {
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

/// A pod's address: from its node's pod range (10.244.<node>.0/24), once it runs.
pub(crate) fn pod_ip(world: &World, p: &Pod) -> String {
    let (Some(h), true) = (host_of(world, p), p.running) else {
        return "<none>".into();
    };
    let n = p
        .name
        .bytes()
        .fold(0u32, |a, b| a.wrapping_mul(31).wrapping_add(b as u32));
    format!("10.244.{h}.{}", 2 + n % 250)
}

/// A flag's value, as `--name=V` or `--name V`.
fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(i, a)| {
        if let Some(v) = a.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
            Some(v)
        } else if a == name {
            args.get(i + 1).map(String::as_str)
        } else {
            None
        }
    })
}

/// `TYPE NAME` or `TYPE/NAME`.
fn target<'a>(words: &[&'a str]) -> Option<(&'a str, &'a str)> {
    match words {
        [both] => both.split_once('/'),
        [kind, name, ..] => Some((kind, name)),
        [] => None,
    }
}

/// What a changing command ended with: its output, and the event that records it.
fn changed(
    client: &Client,
    result: Result<ApiResponse, (String, i32)>,
    done: (String, String),
    record: sim::scenario::Action,
) -> Output {
    match result {
        Ok(ApiResponse::Written { .. }) => Output {
            stdout: done.0,
            stderr: done.1,
            took_s: client.took_s(),
            record: Some(record),
            ..Output::default()
        },
        Ok(_) => client.failed((
            "Error from server (Conflict): the object has been modified; please apply your changes to the latest version and try again\n".into(),
            1,
        )),
        Err(e) => client.failed(e),
    }
}

fn not_found(what: &str, name: &str) -> (String, i32) {
    (
        format!(
            "Error from server (NotFound): {what} \"{}\" not found\n",
            clip(name)
        ),
        1,
    )
}

/// `kubectl scale deployment web --replicas=N` (Deployments and StatefulSets): the object is
/// read, then written, from the vantage host; done, it is recorded as a `scale` event.
fn scale(world: &World, from: HostId, words: &[&str], args: &[String], flags: &Flags) -> Output {
    let Some((kind, name)) = target(words) else {
        return error("resource(s) were provided, but no name was specified");
    };
    let Some(replicas) = flag(args, "--replicas") else {
        return error("required flag(s) \"replicas\" not set");
    };
    let Ok(replicas) = replicas.parse::<u32>() else {
        return error(&format!(
            "invalid argument \"{}\" for \"--replicas\" flag",
            clip(replicas)
        ));
    };
    let (kind, singular) = match resource(kind) {
        Some(Resource::Workloads(Kind::Deployment)) => (Kind::Deployment, "deployment.apps"),
        Some(Resource::Workloads(Kind::StatefulSet)) => (Kind::StatefulSet, "statefulset.apps"),
        _ => return error(&format!("cannot scale a {}", clip(kind))),
    };
    let mut client = Client::new(world, from, flags);
    let key = sim::k8s::objects::workload_key(name);
    let what = resource_name(Resource::Workloads(kind));
    let result = client.get(&key, "get", what, name).and_then(|kv| {
        let Some(w) = kv.value.as_workload().filter(|w| w.kind == kind) else {
            return Err(not_found(what, name));
        };
        let w = sim::k8s::objects::Workload {
            replicas,
            ..w.clone()
        };
        let update = ApiRequest::Update {
            key: key.as_str().into(),
            value: std::sync::Arc::new(Object::Workload(w)),
            resource_version: kv.mod_revision,
        };
        client.request(update, "put")
    });
    let done = (format!("{singular}/{} scaled\n", clip(name)), String::new());
    let record = sim::scenario::Action::Scale {
        workload: name.to_string(),
        replicas,
    };
    changed(&client, result, done, record)
}

/// `kubectl delete pod NAME [--force [--grace-period=0]]`: a graceful deletion marks the pod
/// (its kubelet finishes it), `--force` removes the object at once. Done, it is recorded as a
/// `delete_pod` event.
fn delete(world: &World, from: HostId, words: &[&str], args: &[String], flags: &Flags) -> Output {
    let Some((kind, name)) = target(words) else {
        return error("resource(s) were provided, but no name was specified");
    };
    if resource(kind) != Some(Resource::Pods) {
        return error(&format!(
            "\"kubectl delete {}\" is not in this console yet (kubectl delete pod works)",
            clip(kind)
        ));
    }
    let force = args.iter().any(|a| a == "--force");
    if force && flag(args, "--grace-period").is_some_and(|g| g != "0") {
        return error("--force and --grace-period greater than 0 cannot be specified together");
    }
    let mut client = Client::new(world, from, flags);
    let key = sim::k8s::objects::pod_key(name);
    let result = client.get(&key, "get", "pods", name).and_then(|kv| {
        let Some(mut pod) = kv.value.as_pod().cloned() else {
            return Err(not_found("pods", name));
        };
        let req = if force {
            ApiRequest::Delete {
                key: key.as_str().into(),
                resource_version: kv.mod_revision,
            }
        } else {
            pod.deletion.get_or_insert(client.now());
            ApiRequest::Update {
                key: key.as_str().into(),
                value: std::sync::Arc::new(Object::Pod(pod)),
                resource_version: kv.mod_revision,
            }
        };
        client.request(req, "delete")
    });
    let done = if force {
        (
            format!("pod \"{}\" force deleted\n", clip(name)),
            "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n".into(),
        )
    } else {
        (format!("pod \"{}\" deleted\n", clip(name)), String::new())
    };
    let record = sim::scenario::Action::DeletePod {
        pod: name.to_string(),
        force,
    };
    changed(&client, result, done, record)
}

/// `kubectl cordon|uncordon NODE`: the Node is read, then written with its unschedulable mark
/// set or cleared, from the vantage host; a change is recorded as a `cordon` / `uncordon` event.
fn cordon(world: &World, from: HostId, node: &str, on: bool, flags: &Flags) -> Output {
    let verb = if on { "cordoned" } else { "uncordoned" };
    let mut client = Client::new(world, from, flags);
    let key = sim::k8s::objects::node_key(node);
    let mut already = false;
    let result = client.get(&key, "get", "nodes", node).and_then(|kv| {
        let Some(mut n) = kv.value.as_node().cloned() else {
            return Err(not_found("nodes", node));
        };
        if n.has_taint(TaintKey::Unschedulable) == on {
            already = true;
            return Ok(ApiResponse::Written {
                resource_version: kv.mod_revision,
            });
        }
        n.set_unschedulable(on, client.now());
        let update = ApiRequest::Update {
            key: key.as_str().into(),
            value: std::sync::Arc::new(Object::Node(n)),
            resource_version: kv.mod_revision,
        };
        client.request(update, "patch")
    });
    if already {
        return Output {
            stdout: format!("node/{} already {verb}\n", clip(node)),
            took_s: client.took_s(),
            ..Output::default()
        };
    }
    let host = node.to_string();
    let record = if on {
        sim::scenario::Action::Cordon { host }
    } else {
        sim::scenario::Action::Uncordon { host }
    };
    let done = (format!("node/{} {verb}\n", clip(node)), String::new());
    changed(&client, result, done, record)
}

/// How long the console follows a drain before handing it over to the run.
const DRAIN_FOLLOWED: Duration = Duration::from_secs(120);

/// `kubectl drain NODE --ignore-daemonsets`: from the vantage host, kubectl reads the Node and
/// its pods; DaemonSet pods without `--ignore-daemonsets` stop it after the cordon (recorded as a
/// `cordon`). Otherwise the drain is recorded as a `drain` event and followed for up to two
/// minutes of simulated time: each eviction, each refusal by a disruption budget (retried every
/// 5 s) and the end, as kubectl prints them; a drain still waiting goes on in the run.
fn drain(world: &World, from: HostId, node: &str, args: &[String], flags: &Flags) -> Output {
    let ignore_daemonsets = args
        .iter()
        .any(|a| a == "--ignore-daemonsets" || a == "--ignore-daemonsets=true");
    let mut client = Client::new(world, from, flags);
    let key = sim::k8s::objects::node_key(node);
    if let Err(e) = client.get(&key, "get", "nodes", node) {
        return client.failed(e);
    }
    let pods = match client.list(sim::k8s::objects::PODS, "list pods") {
        Ok(items) => items,
        Err(e) => return client.failed(e),
    };
    let namespace = workload_namespace;
    let daemons: Vec<String> = pods
        .iter()
        .filter_map(|(_, kv)| kv.value.as_pod())
        .filter(|p| p.node.as_deref() == Some(node) && p.tolerates_everything())
        .map(|p| format!("{}/{}", namespace(&p.workload), p.name))
        .collect();
    if !daemons.is_empty() && !ignore_daemonsets {
        let mut out = cordon(world, from, node, true, flags);
        if out.status == 0 {
            out.stderr.push_str(&format!(
                "error: unable to drain node \"{}\" due to error: cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): {}, continuing command...\nThere are pending nodes to be drained:\n {}\n",
                clip(node),
                daemons.join(", "),
                clip(node)
            ));
            out.status = 1;
        }
        return out;
    }
    let action = sim::scenario::Action::Drain {
        host: node.to_string(),
    };
    if let Err(e) = super::accepted(world, &action) {
        return Output::error(format!("console: {e}\n"), 1);
    }
    let seen = client.copy.record().recorder.events.len();
    let (op, took) = client.copy.operate(action.clone(), DRAIN_FOLLOWED);
    let mut stdout = format!("node/{} cordoned\n", clip(node));
    let mut stderr = String::new();
    if !daemons.is_empty() {
        stderr.push_str(&format!(
            "Warning: ignoring DaemonSet-managed Pods: {}\n",
            daemons.join(", ")
        ));
    }
    for e in &client.copy.record().recorder.events[seen..] {
        let (Some(pod), Some(workload)) = (e.pod.as_deref(), e.workload.as_deref()) else {
            continue;
        };
        let ns = namespace(workload);
        match e.kind {
            EventKind::PodEvicted if e.by == Some("eviction-api") => {
                stdout.push_str(&format!("evicting pod {ns}/{pod}\npod/{pod} evicted\n"));
            }
            EventKind::EvictionRefused => stderr.push_str(&format!(
                "evicting pod {ns}/{pod}\nerror when evicting pods/\"{pod}\" -n \"{ns}\" (will retry after 5s): {}\n",
                sim::k8s::eviction::REFUSED
            )),
            _ => {}
        }
    }
    let took_s = client.took_s() + took.as_secs_f64();
    match op {
        Some(op) if op.ok => stdout.push_str(&format!("node/{} drained\n", clip(node))),
        Some(op) => {
            stderr.push_str(&format!(
                "error: unable to drain node \"{}\" due to error: {}\n",
                clip(node),
                op.reason.unwrap_or_default()
            ));
            return Output {
                stdout,
                stderr,
                status: 1,
                took_s,
                record: Some(action),
            };
        }
        None => stderr.push_str(&format!(
            "console: still draining after {} s of simulated time; the drain goes on in the run (kubectl drain waits without a timeout)\n",
            DRAIN_FOLLOWED.secs()
        )),
    }
    Output {
        stdout,
        stderr,
        took_s,
        record: Some(action),
        ..Output::default()
    }
}

/// `kubectl cluster-info`: the control plane's address and the cluster services in kube-system
/// (kubeadm's kube-dns, labelled `kubernetes.io/name: CoreDNS`), read through the API; the hint
/// line is printed whatever happened (kubectl `clusterinfo.go`).
fn cluster_info(world: &World, from: HostId, flags: &Flags) -> Output {
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
fn raw(world: &World, from: HostId, path: &str, flags: &Flags) -> Output {
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

/// `--server URL`: the host it names, at the port it serves the API on (the balancer's or an
/// apiserver's); a name no host has fails as kubectl's dial does.
fn server(world: &World, from: HostId, url: &str) -> Result<Addr, Output> {
    let bare = url
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    let name = bare.split(':').next().unwrap_or(bare);
    let Some(host) = super::host_named(world, from, bare) else {
        return Err(Output::error(
            format!(
                "Unable to connect to the server: dial tcp: lookup {}: no such host\n",
                clip(name)
            ),
            1,
        ));
    };
    let port =
        match world.scenario().hosts[host as usize].has_role(sim::scenario::Role::LoadBalancer) {
            true => Port::Lb,
            false => Port::Apiserver,
        };
    Ok(Addr { host, port })
}

/// `kubectl describe node NAME`: one consistent read of the Node, its Lease and the pods.
fn describe_node(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
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
    let text = super::describe::node(node, lease, &objects, &ip, client.now());
    Output {
        stdout: with_events(text, &client, "Node", name, "default"),
        took_s: client.took_s(),
        ..Output::default()
    }
}

/// The objects `-o json|yaml` prints, in the order `get` lists them; Err: kubectl's message
/// for a name that is not there, or for a type this console keeps only as a table.
fn documents(
    world: &World,
    kind: Resource,
    items: &[(Key, KeyValue)],
    names: &[&str],
    namespace: &str,
    flags: &Flags,
) -> Result<Vec<Doc>, String> {
    let wanted = |name: &str| names.is_empty() || names.contains(&name);
    let labelled = |labels: &[(&str, String)]| {
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

/// `kubectl describe pod NAME` (in the namespace asked for, `default` unless `-n`).
fn describe_pod(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
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
    let text = super::describe::pod(
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
fn describe_pdb(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
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

fn describe_lease(world: &World, from: HostId, name: &str, flags: &Flags) -> Output {
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
    let text = super::describe::generic(name, namespace, &doc);
    Output {
        stdout: with_events(text, &client, "Lease", name, namespace),
        took_s: client.took_s(),
        ..Output::default()
    }
}
