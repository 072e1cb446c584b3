//! kubectl's changing commands: `scale`, `delete pod`, `cordon`, `uncordon`, `drain`. Each goes
//! through the API as kubectl's does and, when the API takes it, returns the scenario event that
//! records it, so the run forks there.

use super::client::{not_found, Client};
use super::flags::{flag, target, Flags};
use super::rows::workload_namespace;
use super::{error, resource, resource_name, Resource};
use crate::words::clip;
use crate::Output;
use sim::k8s::api::{ApiRequest, ApiResponse};
use sim::k8s::objects::{Kind, Object, TaintKey};
use sim::k8s::operator::NodeEdit;
use sim::kernel::net::HostId;
use sim::kernel::time::Duration;
use sim::record::EventKind;
use sim::scenario::label::parse_label;
use sim::scenario::taint::TaintText;
use sim::world::World;

/// What a changing command ended with: its output, and the event that records it.
pub(super) fn changed(
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

/// `kubectl scale deployment web --replicas=N` (Deployments and StatefulSets): the object is
/// read, then written, from the vantage host; done, it is recorded as a `scale` event.
pub(super) fn scale(
    world: &World,
    from: HostId,
    words: &[&str],
    args: &[String],
    flags: &Flags,
) -> Output {
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
    let record = sim::scenario::Action::Scale {
        workload: name.to_string(),
        replicas,
    };
    let mut client = Client::new(world, from, flags);
    let key = sim::k8s::objects::workload_key(name);
    let what = resource_name(Resource::Workloads(kind));
    let result = client.get(&key, "get", what, name).and_then(|kv| {
        let Some(w) = kv.value.as_workload().filter(|w| w.kind == kind) else {
            return Err(not_found(what, name));
        };
        // What the simulation cannot run is refused before the update is sent (one answer).
        crate::accepted(world, &record).map_err(|e| (format!("console: {e}\n"), 1))?;
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
    changed(&client, result, done, record)
}

/// `kubectl delete pod NAME [--force [--grace-period=0]]`: a graceful deletion marks the pod
/// (its kubelet finishes it), `--force` removes the object at once. Done, it is recorded as a
/// `delete_pod` event.
pub(super) fn delete(
    world: &World,
    from: HostId,
    words: &[&str],
    args: &[String],
    flags: &Flags,
) -> Output {
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
pub(super) fn cordon(world: &World, from: HostId, node: &str, on: bool, flags: &Flags) -> Output {
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
        write_node(&mut client, &key, kv.mod_revision, n)
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

/// `kubectl taint nodes NODE key[=value]:Effect [--overwrite]`, or `key[:Effect]-` to remove:
/// kubectl's checks and words, one taint per command (each is one scenario event). Kubernetes'
/// own taints are refused: the playground keeps workload pods off control-plane Nodes, and the
/// others belong to cordon and the node lifecycle controller.
pub(super) fn taint(
    world: &World,
    from: HostId,
    words: &[&str],
    args: &[String],
    flags: &Flags,
) -> Output {
    let is_spec = |w: &&str| w.contains('=') || w.contains(':') || w.ends_with('-');
    let (specs, rest): (Vec<&str>, Vec<&str>) = words.iter().copied().partition(is_spec);
    let node = match rest.as_slice() {
        [kind, name] if resource(kind) == Some(Resource::Nodes) => *name,
        [both] => match both.split_once('/') {
            Some((kind, name)) if resource(kind) == Some(Resource::Nodes) => name,
            Some((kind, _)) => return not_nodes(kind),
            None => return error("one or more resources must be specified as <resource> <name>"),
        },
        [kind, _] => return not_nodes(kind),
        _ => return error("one or more resources must be specified as <resource> <name>"),
    };
    let spec = match one_update(&specs, "taint", "taint nodes NODE a=b:NoSchedule") {
        Ok(spec) => spec,
        Err(e) => return e,
    };
    let remove = spec.ends_with('-');
    let text = match TaintText::parse(spec.strip_suffix('-').unwrap_or(spec)) {
        Ok(p) if !remove && p.effect.is_none() => {
            return error(&format!("invalid taint spec: {}", clip(spec)))
        }
        Ok(p) => p,
        Err(e) => return error(&e),
    };
    let parsed = sim::world::taint_spec(&text);
    if text.is_kubernetes_own() {
        return error(&format!(
            "{} is a taint Kubernetes manages itself; this playground keeps workload pods off control-plane Nodes, and kubectl cordon|uncordon and the node lifecycle controller set the others",
            clip(&parsed.key)
        ));
    }
    let overwrite = args
        .iter()
        .any(|a| a == "--overwrite" || a == "--overwrite=true");
    let mut client = Client::new(world, from, flags);
    let key = sim::k8s::objects::node_key(node);
    let mut refusal = None;
    let mut verb = if remove { "untainted" } else { "tainted" };
    let result = client.get(&key, "get", "nodes", node).and_then(|kv| {
        let Some(mut n) = kv.value.as_node().cloned() else {
            return Err(not_found("nodes", node));
        };
        let same = |t: &sim::k8s::objects::Taint| {
            t.key.name() == parsed.key && Some(t.effect) == parsed.effect
        };
        if !remove && n.taints.iter().any(same) {
            if !overwrite {
                refusal = Some(format!(
                    "node {} already has {} taint(s) with same effect(s) and --overwrite is false",
                    clip(node),
                    clip(&parsed.key)
                ));
                return Err((String::new(), 1));
            }
            verb = "modified";
        }
        let change = match remove {
            true => NodeEdit::Untaint(parsed.clone()),
            false => NodeEdit::Taint(parsed.clone()),
        };
        if let Err(why) = change.apply(&mut n, client.now()) {
            refusal = Some(clip(&why));
            return Err((String::new(), 1));
        }
        write_node(&mut client, &key, kv.mod_revision, n)
    });
    if let Some(why) = refusal {
        return refused(&client, &why);
    }
    let (host, taint) = (node.to_string(), parsed.text());
    let record = match remove {
        true => sim::scenario::Action::Untaint { host, taint },
        false => sim::scenario::Action::Taint { host, taint },
    };
    let done = (format!("node/{} {verb}\n", clip(node)), String::new());
    changed(&client, result, done, record)
}

/// `kubectl label nodes NODE key=value [--overwrite]`, or `key-` to remove: kubectl's words, one
/// label per command (each is one scenario event). A pod's labels follow its workload here, and
/// the labels the playground derives from the hosts (hostname, zone, role…) are refused.
pub(super) fn label(
    world: &World,
    from: HostId,
    words: &[&str],
    args: &[String],
    flags: &Flags,
) -> Output {
    let is_spec = |w: &&str| w.contains('=') || w.ends_with('-');
    let (specs, rest): (Vec<&str>, Vec<&str>) = words.iter().copied().partition(is_spec);
    let resources =
        "one or more resources must be specified as <resource> <name> or <resource>/<name>";
    let (kind, node) = match rest.as_slice() {
        [kind, name] => (*kind, *name),
        [both] => match both.split_once('/') {
            Some(pair) => pair,
            None => return error(resources),
        },
        _ => return error(resources),
    };
    if resource(kind) != Some(Resource::Nodes) {
        return error(&format!(
            "this console labels Nodes only (kubectl label nodes NAME key=value), not {}",
            clip(kind)
        ));
    }
    let spec = match one_update(&specs, "label", "label nodes NODE a=b") {
        Ok(spec) => spec,
        Err(e) => return e,
    };
    let remove = !spec.contains('=');
    let text = spec.strip_suffix('-').filter(|_| remove).unwrap_or(spec);
    let (key, value) = match parse_label(text, !remove) {
        Ok(kv) => kv,
        Err(e) => return error(&e),
    };
    let overwrite = args
        .iter()
        .any(|a| a == "--overwrite" || a == "--overwrite=true");
    let mut client = Client::new(world, from, flags);
    let node_key = sim::k8s::objects::node_key(node);
    let mut unchanged = None;
    let mut refusal = None;
    let result = client.get(&node_key, "get", "nodes", node).and_then(|kv| {
        let Some(mut n) = kv.value.as_node().cloned() else {
            return Err(not_found("nodes", node));
        };
        let current = n.labels.get(&key).cloned();
        let change = match (remove, current) {
            (true, None) => {
                unchanged = Some(format!("label \"{}\" not found.\n", clip(&key)));
                return Err((String::new(), 0));
            }
            (false, Some(v)) if v == value => {
                unchanged = Some(String::new());
                return Err((String::new(), 0));
            }
            (false, Some(v)) if !overwrite => {
                refusal = Some(format!(
                    "'{}' already has a value ({}), and --overwrite is false",
                    clip(&key),
                    clip(&v)
                ));
                return Err((String::new(), 1));
            }
            (true, Some(_)) => NodeEdit::Unlabel { key: key.clone() },
            (false, _) => NodeEdit::Label {
                key: key.clone(),
                value: value.clone(),
            },
        };
        let _ = change.apply(&mut n, client.now());
        write_node(&mut client, &node_key, kv.mod_revision, n)
    });
    if let Some(why) = refusal {
        return refused(&client, &why);
    }
    if let Some(note) = unchanged {
        return Output {
            stdout: format!("{note}node/{} not labeled\n", clip(node)),
            took_s: client.took_s(),
            ..Output::default()
        };
    }
    let host = node.to_string();
    let (record, verb) = match remove {
        true => (
            sim::scenario::Action::Unlabel { host, label: key },
            "unlabeled",
        ),
        false => (
            sim::scenario::Action::Label {
                host,
                label: format!("{key}={value}"),
            },
            "labeled",
        ),
    };
    let done = (format!("node/{} {verb}\n", clip(node)), String::new());
    changed(&client, result, done, record)
}

/// The one taint or label change of a command (each is one scenario event), or kubectl's error.
fn one_update<'a>(specs: &[&'a str], what: &str, example: &str) -> Result<&'a str, Output> {
    match specs {
        [] => Err(error(&format!("at least one {what} update is required"))),
        // Longer than any valid one (a 253-character prefix, a name and a value of 63, an effect).
        [spec] if spec.len() > 400 || spec.chars().any(char::is_control) => {
            Err(error(&format!("invalid {what} spec: {}", clip(spec))))
        }
        [spec] => Ok(spec),
        _ => Err(error(&format!(
            "this console changes one {what} per command (kubectl {example}, then another)"
        ))),
    }
}

/// kubectl's patch of a Node it read at `revision`.
fn write_node(
    client: &mut Client,
    key: &str,
    revision: u64,
    n: sim::k8s::objects::Node,
) -> Result<ApiResponse, (String, i32)> {
    let update = ApiRequest::Update {
        key: key.into(),
        value: std::sync::Arc::new(Object::Node(n)),
        resource_version: revision,
    };
    client.request(update, "patch")
}

/// kubectl's refusal after it read what it refuses to change.
fn refused(client: &Client, why: &str) -> Output {
    Output {
        took_s: client.took_s(),
        ..error(why)
    }
}

fn not_nodes(kind: &str) -> Output {
    error(&format!(
        "invalid resource type {}, only node types are supported",
        clip(&kind.to_lowercase())
    ))
}

/// How long the console follows a drain before handing it over to the run.
pub(super) const DRAIN_FOLLOWED: Duration = Duration::from_secs(120);

/// `kubectl drain NODE --ignore-daemonsets`: from the vantage host, kubectl reads the Node and
/// its pods; DaemonSet pods without `--ignore-daemonsets` stop it after the cordon (recorded as a
/// `cordon`). Otherwise the drain is recorded as a `drain` event and followed for up to two
/// minutes of simulated time: each eviction, each refusal by a disruption budget (retried every
/// 5 s) and the end, as kubectl prints them; a drain still waiting goes on in the run.
pub(super) fn drain(
    world: &World,
    from: HostId,
    node: &str,
    args: &[String],
    flags: &Flags,
) -> Output {
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
    // The API lists pods by namespace, then name. Static pods' mirrors are passed over unsaid.
    let mut daemons: Vec<String> = pods
        .iter()
        .filter_map(|(_, kv)| kv.value.as_pod())
        .filter(|p| p.node.as_deref() == Some(node) && p.kind == Some(Kind::DaemonSet))
        .map(|p| format!("{}/{}", namespace(&p.workload), p.name))
        .collect();
    daemons.sort();
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
    if let Err(e) = crate::accepted(world, &action) {
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
    for e in client.copy.record().recorder.events.range(seen..) {
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
