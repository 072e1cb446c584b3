//! The workload controllers: ReplicaSet (Deployments) counts pods without a deletion
//! timestamp and creates or deletes to match `replicas` (at-least semantics: duplicates run
//! while evicted pods still do); StatefulSet keeps one pod per ordinal, recreated only once
//! the old object is gone; DaemonSet keeps one pod per node, bound directly.

use super::Controllers;
use crate::k8s::api::ApiRequest;
use crate::k8s::events::{namespace_of, Event, Reason};
use crate::k8s::objects::{
    name_suffix, pod_key, replica_set_name, Kind, Node, Object, Pod, KUBE_PROXY, PODS, SUFFIXES,
};
use crate::k8s::observe::PodChange;
use crate::k8s::wire::{Ctx, KeyValue};
use crate::kernel::keymap::{Key, KeySet};
use crate::kernel::time::SimTime;
use std::sync::Arc;

impl Controllers {
    pub(super) fn sync_workloads(&mut self, ctx: &mut Ctx) {
        let pods = self.pods.items();
        let known = |name: &str| pods.contains_key(&pod_key(name));
        self.expected.retain(|n| !known(n));
        // The cached pods of a workload, in key order. The pass runs often and a workload is
        // mostly at its replica count: this walk over every pod is kept for scaling down.
        let pods_of = |w: &str| -> Vec<&KeyValue> {
            pods.values()
                .filter(|kv| kv.value.as_pod().is_some_and(|p| p.workload == w))
                .collect()
        };
        let active_pods = |w: &str| self.pods.active_pods(w).expect("the pod informer counts");
        let nodes: Vec<&Node> = (self.nodes.items().values())
            .filter_map(|kv| kv.value.as_node())
            .collect();
        let pod = |kv: &KeyValue| {
            kv.value
                .as_pod()
                .cloned()
                .expect("a workload's pods are pods")
        };
        // Decided while the caches are borrowed, carried out below in the same order. A pod
        // to create is expected at once, so that names chosen later in the pass avoid it.
        let mut actions = Vec::new();
        let expected = &mut self.expected;
        for w in self
            .workloads
            .items()
            .values()
            .filter_map(|kv| kv.value.as_workload())
        {
            let create = |expected: &mut KeySet, name: String, node| {
                expected.insert(Key::from(name.as_str()));
                Action::Create {
                    workload: w.name.clone(),
                    kind: w.kind,
                    name,
                    node,
                }
            };
            match w.kind {
                Kind::Deployment => {
                    let active = active_pods(&w.name);
                    let prefix = format!("{}-", w.replica_set());
                    let have = active + expected.count_prefixed(&prefix);
                    for _ in have..w.replicas as usize {
                        let name = loop {
                            let n = prefix.clone() + &name_suffix(self.rng.below(SUFFIXES));
                            if !known(&n) && !expected.contains(&n) {
                                break n;
                            }
                        };
                        actions.push(create(expected, name, None));
                    }
                    if active > w.replicas as usize {
                        // Scale down: unscheduled pods first, then the last by name.
                        let mut extra: Vec<(Pod, u64)> = pods_of(&w.name)
                            .into_iter()
                            .filter(|kv| kv.value.as_pod().is_some_and(|p| p.deletion.is_none()))
                            .map(|kv| (pod(kv), kv.mod_revision))
                            .collect();
                        crate::kernel::sort::sort_by_key(&mut extra, |(p, _)| {
                            (p.node.is_some(), std::cmp::Reverse(p.name.clone()))
                        });
                        for (p, rv) in extra.into_iter().take(active - w.replicas as usize) {
                            actions.push(Action::Delete(p, rv, "the Deployment was scaled down"));
                        }
                    }
                }
                Kind::StatefulSet => {
                    // Active pods with an ordinal below the replica count: if they are all the
                    // active pods, there is nothing to scale down.
                    let mut in_range = 0;
                    for ordinal in 0..w.replicas {
                        let name = format!("{}-{ordinal}", w.name);
                        match pods.get(&pod_key(&name)).and_then(|kv| kv.value.as_pod()) {
                            Some(p) => {
                                in_range +=
                                    usize::from(p.deletion.is_none() && p.workload == w.name)
                            }
                            None if !expected.contains(&name) => {
                                actions.push(create(expected, name, None));
                            }
                            None => {}
                        }
                    }
                    if active_pods(&w.name) == in_range {
                        continue;
                    }
                    for kv in pods_of(&w.name) {
                        let p = kv.value.as_pod().expect("a workload's pods are pods");
                        let ordinal: u32 = p
                            .name
                            .rsplit('-')
                            .next()
                            .and_then(|o| o.parse().ok())
                            .unwrap_or(0);
                        if ordinal >= w.replicas && p.deletion.is_none() {
                            let why = "the StatefulSet was scaled down";
                            actions.push(Action::Delete(pod(kv), kv.mod_revision, why));
                        }
                    }
                }
                Kind::DaemonSet => {
                    // One pod key per node on every pass: built in place, copied only to create.
                    let mut key = pod_key(&format!("{}-", w.name));
                    let base = key.len();
                    // kube-proxy tolerates every taint, an operator's too.
                    let every_taint = w.name == KUBE_PROXY;
                    for node in nodes
                        .iter()
                        .filter(|n| every_taint || n.admits_daemon_pods())
                    {
                        key.truncate(base);
                        key.push_str(&node.name);
                        let name = &key[PODS.len()..];
                        if !pods.contains_key(&key) && !expected.contains(name) {
                            let name = name.to_string();
                            actions.push(create(expected, name, Some(node.name.clone())));
                        }
                    }
                }
            }
        }
        for action in actions {
            match action {
                Action::Create {
                    workload,
                    kind,
                    name,
                    node,
                } => self.create_pod(ctx, &workload, kind, name, node),
                Action::Delete(p, rv, why) => self.delete_pod(ctx, &p, rv, why),
            }
        }
    }

    pub(super) fn create_pod(
        &mut self,
        ctx: &mut Ctx,
        workload: &str,
        kind: Kind,
        name: String,
        node: Option<String>,
    ) {
        let pod = Pod {
            name: name.clone(),
            workload: workload.to_string(),
            kind: Some(kind),
            node,
            running: false,
            ready: false,
            deletion: None,
            created: ctx.now,
        };
        self.expected.insert(Key::from(name.as_str()));
        let event = owner_event(Reason::SuccessfulCreate, kind, workload, &name, ctx.now);
        self.write_with(
            ctx,
            ApiRequest::Create {
                key: pod_key(&name).into(),
                value: Arc::new(Object::Pod(pod)),
            },
            Some(event),
        );
    }

    pub(super) fn delete_pod(&mut self, ctx: &mut Ctx, pod: &Pod, rv: u64, why: &str) {
        let mut p = pod.clone();
        p.deletion = Some(ctx.now);
        let node = p.node.clone().unwrap_or_default();
        ctx.obs.pod_event(
            ctx.now,
            PodChange::Deleted,
            &p.name,
            &node,
            &p.workload,
            format!("{} is being deleted: {why}", p.name),
        );
        let event = (p.kind).map(|kind| {
            owner_event(
                Reason::SuccessfulDelete,
                kind,
                &p.workload,
                &p.name,
                ctx.now,
            )
        });
        self.update_pod(ctx, p, rv, event);
    }
}

/// What a workload controller records on its object when it created or deleted a pod: the
/// ReplicaSet controller and the DaemonSet controller as `controller_utils.go` words it, the
/// StatefulSet controller as `stateful_pod_control.go` does.
fn owner_event(reason: Reason, kind: Kind, workload: &str, pod: &str, at: SimTime) -> Event {
    let create = reason == Reason::SuccessfulCreate;
    let (owner_kind, owner, message) = match kind {
        Kind::StatefulSet => {
            let verb = if create { "create" } else { "delete" };
            let message = format!("{verb} Pod {pod} in StatefulSet {workload} successful");
            ("StatefulSet", workload.to_string(), message)
        }
        _ => {
            let verb = if create { "Created" } else { "Deleted" };
            let (owner_kind, owner) = match kind {
                Kind::DaemonSet => ("DaemonSet", workload.to_string()),
                _ => ("ReplicaSet", replica_set_name(workload)),
            };
            (owner_kind, owner, format!("{verb} pod: {pod}"))
        }
    };
    Event {
        reason,
        kind: owner_kind,
        name: owner,
        namespace: namespace_of(workload),
        message,
        at,
    }
}

/// What a workload pass decided, carried out once the caches are no longer borrowed.
pub(super) enum Action {
    Create {
        workload: String,
        kind: Kind,
        name: String,
        node: Option<String>,
    },
    /// A pod to delete, its resourceVersion, and why.
    Delete(Pod, u64, &'static str),
}
