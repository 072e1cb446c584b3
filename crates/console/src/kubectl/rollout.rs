//! `kubectl rollout status`: a workload's rollout as kubectl's status viewers judge it
//! (`polymorphichelpers/rollout_status.go`), read through the API each second until it is done,
//! each new line printed as it comes, for at most two minutes of simulated time (kubectl waits
//! without a timeout). The simulation keeps one revision of each workload, so every pod is of
//! the current one: `rollout restart|undo|history|pause|resume` are refused with a message.

use super::client::Client;
use super::flags::{target, Flags};
use super::rows::workload_namespace;
use super::{error, resource, resource_name, Resource};
use crate::words::clip;
use crate::Output;
use sim::k8s::objects::{replica_set_name, Kind, Object, Workload};
use sim::kernel::net::HostId;
use sim::kernel::time::Duration;
use sim::world::World;

/// How long the console follows a rollout that is not done.
const ROLLOUT_FOLLOWED: Duration = Duration::from_secs(120);

pub(super) fn rollout(world: &World, from: HostId, words: &[&str], flags: &Flags) -> Output {
    match words {
        ["status", rest @ ..] => status(world, from, rest, flags),
        [sub @ ("restart" | "undo" | "history" | "pause" | "resume"), ..] => error(&format!(
            "\"kubectl rollout {sub}\" is not in this console: the simulation keeps one revision of each workload (kubectl rollout status works)"
        )),
        [sub, ..] => error(&format!("unknown command \"{}\" for \"kubectl rollout\"", clip(sub))),
        [] => error("USAGE: kubectl rollout SUBCOMMAND (this console runs status)"),
    }
}

fn status(world: &World, from: HostId, words: &[&str], flags: &Flags) -> Output {
    let Some((word, name)) = target(words) else {
        return error("required resource not specified");
    };
    let kind = match resource(word) {
        Some(Resource::Workloads(kind)) => kind,
        Some(Resource::Pods) => return error("no status viewer has been implemented for Pod"),
        Some(_) => {
            return error(&format!(
                "no status viewer has been implemented for {}",
                clip(word)
            ))
        }
        None => {
            return error(&format!(
                "the server doesn't have a resource type \"{}\"",
                clip(word)
            ))
        }
    };
    let namespace = flags.namespace.as_deref().unwrap_or("default");
    let mut client = Client::new(world, from, flags);
    let until = client.now() + ROLLOUT_FOLLOWED;
    let mut stdout = String::new();
    let mut last = String::new();
    loop {
        let items = match client.list("/registry/", "rollout status") {
            Ok(items) => items,
            Err(e) => {
                let mut out = client.failed(e);
                out.stdout = stdout;
                return out;
            }
        };
        let objects: Vec<&Object> = items.iter().map(|(_, kv)| &*kv.value).collect();
        let Some(w) = (objects.iter().filter_map(|o| o.as_workload()))
            .find(|w| w.kind == kind && w.name == name && workload_namespace(&w.name) == namespace)
        else {
            let what = resource_name(Resource::Workloads(kind));
            let mut out = client.failed((
                format!(
                    "Error from server (NotFound): {what} \"{}\" not found\n",
                    clip(name)
                ),
                1,
            ));
            out.stdout = stdout;
            return out;
        };
        let (line, done) = viewed(w, &objects);
        if line != last {
            stdout.push_str(&line);
            last = line;
        }
        if done || client.now() >= until {
            let mut out = Output {
                stdout,
                took_s: client.took_s(),
                ..Output::default()
            };
            if !done {
                out.stderr = format!(
                    "console: still waiting after {} s of simulated time (kubectl rollout status waits without a timeout)\n",
                    ROLLOUT_FOLLOWED.as_secs_f64() as u64
                );
                out.status = 1;
            }
            return out;
        }
        let next = client.now() + Duration::from_secs(1);
        client.copy.run_until(next, u64::MAX);
    }
}

/// kubectl's line for the workload's status, and whether the rollout is done. Every pod is of
/// the one revision: updated = the pods not being deleted, available = the ready ones.
fn viewed(w: &Workload, objects: &[&Object]) -> (String, bool) {
    let pods: Vec<_> = (objects.iter().filter_map(|o| o.as_pod()))
        .filter(|p| p.workload == w.name && p.deletion.is_none())
        .collect();
    let updated = pods.len() as u32;
    let ready = pods.iter().filter(|p| p.ready).count() as u32;
    let name = &w.name;
    match w.kind {
        Kind::Deployment if updated < w.replicas => (
            format!("Waiting for deployment \"{name}\" rollout to finish: {updated} out of {} new replicas have been updated...\n", w.replicas),
            false,
        ),
        Kind::Deployment if ready < updated => (
            format!("Waiting for deployment \"{name}\" rollout to finish: {ready} of {updated} updated replicas are available...\n"),
            false,
        ),
        Kind::Deployment => (format!("deployment \"{name}\" successfully rolled out\n"), true),
        Kind::StatefulSet if ready < w.replicas => (
            format!("Waiting for {} pods to be ready...\n", w.replicas - ready),
            false,
        ),
        Kind::StatefulSet => (
            format!(
                "statefulset rolling update complete {} pods at revision {}...\n",
                w.replicas,
                replica_set_name(name)
            ),
            true,
        ),
        Kind::DaemonSet => {
            let desired = objects.iter().filter(|o| o.as_node().is_some()).count() as u32;
            if updated < desired {
                let line = format!("Waiting for daemon set \"{name}\" rollout to finish: {updated} out of {desired} new pods have been updated...\n");
                (line, false)
            } else if ready < desired {
                let line = format!("Waiting for daemon set \"{name}\" rollout to finish: {ready} of {desired} updated pods are available...\n");
                (line, false)
            } else {
                (format!("daemon set \"{name}\" successfully rolled out\n"), true)
            }
        }
    }
}
