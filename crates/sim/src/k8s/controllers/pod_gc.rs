//! The pod garbage collector's orphan pass (`gcOrphaned` of kube-controller-manager's podgc):
//! every `gcCheckPeriod` (20 s) it looks for pods bound to a Node that does not exist; a Node
//! first found missing is quarantined for `quarantineTime` (40 s) before its pods are deleted,
//! so the pods of a Node the cloud controller deleted go 40 to 60 s after it, not with it.
//! A new controller-manager leader starts with an empty quarantine.
//!
//! Left out: the other passes (terminated pods over the threshold, terminating pods on
//! out-of-service nodes, unscheduled terminating pods) and the API read that double-checks a
//! Node's absence (the informer's view decides).

use super::Controllers;
use crate::k8s::api::ApiRequest;
use crate::k8s::informer::Informer;
use crate::k8s::objects::{node_key, pod_key};
use crate::k8s::observe::PodChange;
use crate::k8s::wire::{Ctx, Key};
use crate::kernel::members::MemberMap;
use crate::kernel::time::{Duration, SimTime};

/// `gcCheckPeriod`.
pub const GC_CHECK_PERIOD: Duration = Duration::from_secs(20);
/// `quarantineTime`.
pub const QUARANTINE_TIME: Duration = Duration::from_secs(40);

/// A pod the collector deletes: its key and resourceVersion, its name, node and workload.
pub struct Orphan {
    pub key: Key,
    pub resource_version: u64,
    pub pod: String,
    pub node: String,
    pub workload: String,
}

#[derive(Clone)]
pub struct PodGc {
    last_check: SimTime,
    /// Nodes found missing while pods are bound to them, and since when.
    missing_since: MemberMap<String, SimTime>,
}

impl PodGc {
    pub fn new(now: SimTime) -> Self {
        PodGc {
            last_check: now,
            missing_since: MemberMap::default(),
        }
    }

    /// A pass, when one is due: the pods to delete now, bound to Nodes missing for the
    /// quarantine time.
    pub fn orphans(&mut self, now: SimTime, nodes: &Informer, pods: &Informer) -> Vec<Orphan> {
        if now - self.last_check < GC_CHECK_PERIOD {
            return Vec::new();
        }
        self.last_check = now;
        let mut missing: MemberMap<String, SimTime> = MemberMap::default();
        let mut out = Vec::new();
        // Node by node, each looked up once: a pass meets every pod of the cluster.
        for node in pods.bound_nodes() {
            if nodes.items().contains_key(&node_key(node)) {
                continue;
            }
            let since = *self.missing_since.get(node).unwrap_or(&now);
            missing.insert(node.to_string(), since);
            if now - since < QUARANTINE_TIME {
                continue;
            }
            for kv in pods.pods_on(node) {
                let Some(pod) = kv.value.as_pod() else {
                    continue;
                };
                out.push(Orphan {
                    key: pod_key(&pod.name).into(),
                    resource_version: kv.mod_revision,
                    pod: pod.name.clone(),
                    node: node.to_string(),
                    workload: pod.workload.clone(),
                });
            }
        }
        // Deleted in the order of their keys, as a pass over every pod meets them.
        crate::kernel::sort::sort_by(&mut out, |a, b| a.key.cmp(&b.key));
        // A Node that came back, or whose pods are gone, leaves the quarantine.
        self.missing_since = missing;
        out
    }
}

impl Controllers {
    /// The pod garbage collector's pass: deletes the pods of Nodes gone for the quarantine.
    pub(super) fn collect_orphans(&mut self, ctx: &mut Ctx) {
        for o in self.pod_gc.orphans(ctx.now, &self.nodes, &self.pods) {
            let text = format!(
                "{} was deleted by the pod garbage collector: its Node {} has been gone for {} s",
                o.pod,
                o.node,
                QUARANTINE_TIME.secs()
            );
            (ctx.obs).pod_event(
                ctx.now,
                PodChange::Deleted,
                &o.pod,
                &o.node,
                &o.workload,
                text,
            );
            let req = ApiRequest::Delete {
                key: o.key,
                resource_version: o.resource_version,
            };
            self.write(ctx, req);
        }
    }
}
