//! Taint-based eviction: pods on a node with the `unreachable` (or `not-ready`) NoExecute
//! taint are deleted `toleration_seconds` after the taint was added; DaemonSet pods tolerate
//! it forever.

use super::Controllers;
use crate::k8s::informer::Informer;
use crate::k8s::objects::{pod_key, Effect, Pod, TaintKey};
use crate::k8s::observe::PodChange;
use crate::k8s::wire::Ctx;
use crate::kernel::time::SimTime;
use std::collections::BTreeMap;

impl Controllers {
    pub(super) fn evict_tainted(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let nodes = &self.nodes;
        let taint_time = self
            .taint_times
            .get_or_insert_with(|| no_execute_taint_times(nodes));
        if taint_time.is_empty() {
            return;
        }
        let tolerated = self.timings.toleration_seconds;
        let mut due: Vec<(Pod, u64)> = taint_time
            .iter()
            .filter(|(_, &t)| now >= t + tolerated)
            .flat_map(|(node, _)| self.pods.pods_on(node))
            .filter_map(|kv| kv.value.as_pod().map(|p| (p, kv.mod_revision)))
            .filter(|(p, _)| p.deletion.is_none() && !p.tolerates_everything())
            .map(|(p, rv)| (p.clone(), rv))
            .collect();
        due.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        for (mut p, rv) in due {
            if self.busy.contains(pod_key(&p.name).as_str()) {
                continue;
            }
            let node = p.node.clone().unwrap_or_default();
            ctx.obs.pod_event(now, PodChange::Evicted, &p.name, &node, &p.workload, format!(
                "{} was evicted from {node}: the node has been tainted unreachable for tolerationSeconds ({} s)",
                p.name,
                self.timings.toleration_seconds.as_secs_f64()
            ));
            p.deletion = Some(now);
            self.update_pod(ctx, p, rv);
        }
    }
}

/// When each node got its `unreachable` or `not-ready` NoExecute taint, if it has one.
pub(super) fn no_execute_taint_times(nodes: &Informer) -> BTreeMap<String, SimTime> {
    nodes
        .items()
        .values()
        .filter_map(|kv| kv.value.as_node())
        .filter_map(|n| {
            n.taints
                .iter()
                .filter(|t| {
                    t.effect == Effect::NoExecute
                        && matches!(t.key, TaintKey::Unreachable | TaintKey::NotReady)
                })
                .map(|t| t.time_added)
                .min()
                .map(|t| (n.name.clone(), t))
        })
        .collect()
}
