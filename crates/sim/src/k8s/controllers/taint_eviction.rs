//! Taint-based eviction: pods on a node with the `unreachable` (or `not-ready`) NoExecute
//! taint are deleted `toleration_seconds` after this controller *observed* the taint. As the
//! taint-eviction controller does (`processPodOnNode` schedules `now + toleration`), the clock
//! ignores the taint's TimeAdded and lives in the controller's memory: a controller-manager
//! failover starts it again. DaemonSet pods tolerate the taint forever.
//!
//! An operator's NoExecute taint (`kubectl taint … key=value:NoExecute`) is tolerated by no pod
//! here, DaemonSet pods included (the DaemonSet controller adds tolerations for Kubernetes' own
//! taints only): its pods are deleted at the controller's next pass. Tolerations written in a
//! pod spec are not modelled.

use super::Controllers;
use crate::k8s::events::{namespace_of, Event, Reason};
use crate::k8s::informer::Informer;
use crate::k8s::objects::{pod_key, Effect, Pod, TaintKey};
use crate::k8s::observe::PodChange;
use crate::k8s::wire::Ctx;
use crate::kernel::members::{MemberMap, MemberSet};
use crate::kernel::time::{Duration, SimTime};

impl Controllers {
    /// When the pods on `node` run out of their tolerations, if this controller has seen the
    /// node tainted.
    pub fn eviction_due(&self, node: &str) -> Option<SimTime> {
        let seen = self.taint_seen.get(node)?;
        Some(*seen + self.timings.toleration_seconds)
    }

    /// `d` more seconds of every taint seen.
    pub(super) fn taints_older_by(&mut self, d: Duration) {
        for (_, t) in self.taint_seen.iter_mut() {
            *t = *t - d;
        }
    }

    pub(super) fn evict_tainted(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        if std::mem::take(&mut self.taints_changed) {
            // Seen at this pass: within a second of the node informer's change.
            let tainted = no_execute_tainted(&self.nodes);
            self.taint_seen.retain(|node, _| tainted.contains(node));
            for node in tainted {
                self.taint_seen.get_or_insert_with(node, || now);
            }
            self.operator_no_execute = operator_no_execute(&self.nodes);
        }
        if !self.operator_no_execute.is_empty() {
            self.evict_untolerated(ctx);
        }
        if self.taint_seen.is_empty() {
            return;
        }
        let tolerated = self.timings.toleration_seconds;
        let mut due: Vec<(Pod, u64)> = self
            .taint_seen
            .iter()
            .filter(|(_, &t)| now >= t + tolerated)
            .flat_map(|(node, _)| self.pods.pods_on(node))
            .filter_map(|kv| kv.value.as_pod().map(|p| (p, kv.mod_revision)))
            .filter(|(p, _)| p.deletion.is_none() && !p.tolerates_everything())
            .map(|(p, rv)| (p.clone(), rv))
            .collect();
        crate::kernel::sort::sort_by(&mut due, |a, b| a.0.name.cmp(&b.0.name));
        let seconds = self.timings.toleration_seconds.secs();
        for (p, rv) in due {
            let node = p.node.clone().unwrap_or_default();
            let why = format!(
                "{} was evicted from {node}: tolerationSeconds ({seconds} s) have passed since the controller-manager saw the node tainted unreachable",
                p.name
            );
            self.evict(ctx, p, rv, why);
        }
    }

    /// Marks `p` for deletion as the taint controller does, unless a write of it is in flight.
    fn evict(&mut self, ctx: &mut Ctx, mut p: Pod, rv: u64, why: String) {
        if self.busy.contains(pod_key(&p.name).as_str()) {
            return;
        }
        let (now, node) = (ctx.now, p.node.clone().unwrap_or_default());
        ctx.obs
            .pod_event(now, PodChange::Evicted, &p.name, &node, &p.workload, why);
        p.deletion = Some(now);
        let ns = namespace_of(&p.workload);
        let message = format!("Marking for deletion Pod {ns}/{}", p.name);
        let event = Event::on_pod(
            Reason::TaintManagerEviction,
            &p.name,
            &p.workload,
            message,
            now,
        );
        self.update_pod(ctx, p, rv, Some(event));
    }
}

impl Controllers {
    /// Every pod on a node with an operator's NoExecute taint, at once: none tolerates it.
    fn evict_untolerated(&mut self, ctx: &mut Ctx) {
        let mut due: Vec<(Pod, u64, String)> = Vec::new();
        for (node, taint) in self.operator_no_execute.iter() {
            due.extend(
                self.pods
                    .pods_on(node)
                    .filter_map(|kv| kv.value.as_pod().map(|p| (p, kv.mod_revision)))
                    .filter(|(p, _)| p.deletion.is_none())
                    .map(|(p, rv)| (p.clone(), rv, taint.clone())),
            );
        }
        crate::kernel::sort::sort_by(&mut due, |a, b| a.0.name.cmp(&b.0.name));
        for (p, rv, taint) in due {
            let node = p.node.clone().unwrap_or_default();
            let why = format!(
                "{} was evicted from {node}: the node has the taint {taint}, which the pod does not tolerate",
                p.name
            );
            self.evict(ctx, p, rv, why);
        }
    }
}

/// The nodes with an operator's NoExecute taint, each with the first such taint as kubectl
/// writes it (`key=value:NoExecute`).
fn operator_no_execute(nodes: &Informer) -> MemberMap<String, String> {
    let mut tainted = MemberMap::default();
    for n in nodes.items().values().filter_map(|kv| kv.value.as_node()) {
        if let Some(t) = n.untolerated(Effect::NoExecute) {
            tainted.insert(n.name.clone(), t.text());
        }
    }
    tainted
}

/// The nodes with an `unreachable` or `not-ready` NoExecute taint.
fn no_execute_tainted(nodes: &Informer) -> MemberSet<String> {
    let mut tainted = MemberSet::new();
    tainted.extend(
        nodes
            .items()
            .values()
            .filter_map(|kv| kv.value.as_node())
            .filter(|n| {
                n.taints.iter().any(|t| {
                    t.effect == Effect::NoExecute
                        && matches!(t.key, TaintKey::Unreachable | TaintKey::NotReady)
                })
            })
            .map(|n| n.name.clone()),
    );
    tainted
}
