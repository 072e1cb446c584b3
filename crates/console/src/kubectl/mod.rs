//! `kubectl` on the simulated cluster: its kubeconfig points at the API endpoint the kubelets use
//! (the load balancer, else the first apiserver). `get` sends a consistent list (no
//! resourceVersion) and prints kubectl's table; failures print kubectl's error for the way the
//! request failed. Printers follow kubernetes `pkg/printers/internalversion/printers.go`;
//! errors follow kubectl `pkg/cmd/util/helpers.go` (`StandardErrorMessage`).
//!
//! Left out: API discovery (and the log lines kubectl prints when it fails before its error),
//! container restart counts (RESTARTS is 0), node OS and runtime details (`<unknown>`).

mod change;
mod client;
mod describe;
mod flags;
pub(crate) mod forward;
mod get;
mod rollout;
mod rows;

use crate::words::clip;
use crate::Output;
use change::{cordon, delete, drain, label, scale, taint};
use describe::{
    describe_endpoints, describe_event, describe_lease, describe_node, describe_pdb, describe_pod,
    describe_service, describe_workload,
};
use flags::Flags;
use forward::Jobs;
use get::{cluster_info, get, raw};
use sim::k8s::objects::Kind;
use sim::kernel::net::HostId;
use sim::world::World;

/// `jobs`: the line's background jobs (port-forward and proxy start one); `background`: this
/// command ends with `&`.
pub fn run(
    world: &World,
    from: HostId,
    args: &[String],
    jobs: &mut Jobs,
    background: bool,
) -> Output {
    if args.iter().any(|a| a == "-h" || a == "--help") || args.first().is_some_and(|a| a == "help")
    {
        return Output {
            stdout: HELP.into(),
            ..Output::default()
        };
    }
    let (flags, words) = match Flags::parse(world, from, args) {
        Ok(parsed) => parsed,
        Err(e) => return e,
    };
    match words.as_slice() {
        [] => Output {
            stdout: HELP.into(),
            ..Output::default()
        },
        ["get"] if flags.raw.is_some() => raw(world, from, flags.raw.as_deref().unwrap_or_default(), &flags),
        ["get", ..] if flags.raw.is_some() => error("arguments may not be passed when --raw is specified"),
        ["get"] => error("you must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources."),
        ["get", "all"] => get::get_all(world, from, &flags),
        ["get", "all", ..] => error("this console lists all without names (kubectl get all)"),
        ["get", resource, ..] if resource.contains(',') => error(
            "this console gets one resource type at a time (kubectl get deploy, then kubectl get sts)",
        ),
        // `get TYPE/NAME …`: the names of one type in kubectl's other form.
        ["get", first, rest @ ..] if first.contains('/') => {
            let pairs: Vec<Option<(&str, &str)>> =
                std::iter::once(first).chain(rest).map(|w| w.split_once('/')).collect();
            let kinds: Vec<_> = pairs.iter().map(|p| p.map(|(k, _)| resource(k))).collect();
            match (pairs.iter().all(Option::is_some), kinds.windows(2).all(|w| w[0] == w[1])) {
                (true, true) => {
                    let names: Vec<&str> = pairs.iter().flatten().map(|(_, n)| *n).collect();
                    get(world, from, first.split('/').next().unwrap_or_default(), &names, &flags)
                }
                (true, false) => error("this console gets one resource type at a time (kubectl get pod/a pod/b, then kubectl get node/c)"),
                (false, _) => error("arguments in resource/name form must have a single resource and name"),
            }
        }
        ["get", _, names @ ..] if names.iter().any(|n| n.contains('/')) => error("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'"),
        ["get", resource, names @ ..] => get(world, from, resource, names, &flags),
        ["scale", target @ ..] => scale(world, from, target, args, &flags),
        ["rollout", rest @ ..] => rollout::rollout(world, from, rest, &flags),
        ["port-forward", rest @ ..] => forward::port_forward(world, from, rest, &flags, jobs, background),
        ["proxy"] => forward::proxy(world, from, args, jobs, background),
        ["cluster-info"] => cluster_info(world, from, &flags),
        ["version"] => get::version(world, from, &flags),
        ["cordon", node] => cordon(world, from, node, true, &flags),
        ["uncordon", node] => cordon(world, from, node, false, &flags),
        ["drain", node] => drain(world, from, node, args, &flags),
        ["taint", rest @ ..] => taint(world, from, rest, args, &flags),
        ["label", rest @ ..] => label(world, from, rest, args, &flags),
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
            "this console does not describe the kubernetes Service (kubectl get endpoints kubernetes lists its apiservers)",
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

/// `kubectl --help`, as kubectl prints it, shortened to the commands this console runs.
const HELP: &str = "kubectl controls the Kubernetes cluster manager.

Basic Commands (Intermediate):
  get             Display one or many resources
  delete          Delete resources by file names, stdin, resources and names, or by resources and label selector

Deploy Commands:
  rollout         Manage the rollout of a resource
  scale           Set a new size for a deployment, replica set, or replication controller

Cluster Management Commands:
  cluster-info    Display cluster information
  cordon          Mark node as unschedulable
  uncordon        Mark node as schedulable
  drain           Drain node in preparation for maintenance
  taint           Update the taints on one or more nodes

Troubleshooting and Debugging Commands:
  describe        Show details of a specific resource or group of resources
  port-forward    Forward one or more local ports to a pod
  proxy           Run a proxy to the Kubernetes API server

Settings Commands:
  label           Update the labels on a resource

Other Commands:
  version         Print the client and server version information

Usage:
  kubectl [flags] [options]
";

/// kubectl's commands that this console does not run yet.
const KNOWN: &[&str] = &[
    "describe",
    "apply",
    "create",
    "edit",
    "logs",
    "exec",
    "top",
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
    /// kubeadm's four namespaces.
    Namespaces,
    /// The ConfigMaps of a kubeadm cluster.
    ConfigMaps,
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
        "namespaces" | "namespace" | "ns" => Some(Resource::Namespaces),
        "configmaps" | "configmap" | "cm" => Some(Resource::ConfigMaps),
        _ => None,
    }
}

fn resource_name(kind: Resource) -> &'static str {
    match kind {
        Resource::Workloads(Kind::StatefulSet) => "statefulsets.apps",
        Resource::Workloads(Kind::DaemonSet) => "daemonsets.apps",
        Resource::ReplicaSets => "replicasets.apps",
        _ => "deployments.apps",
    }
}
