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

/// The taint-eviction controller's own state.
#[derive(Clone)]
pub(super) struct TaintEviction {
    /// When this controller first saw each node carry an `unreachable` or `not-ready`
    /// NoExecute taint: tolerationSeconds count from then.
    seen: MemberMap<String, SimTime>,
    /// Nodes with an operator's NoExecute taint (its text), whose pods are evicted at once.
    operator_no_execute: MemberMap<String, String>,
    /// The node cache changed since `seen` was brought up to date.
    nodes_changed: bool,
}

impl Default for TaintEviction {
    fn default() -> Self {
        TaintEviction {
            seen: MemberMap::default(),
            operator_no_execute: MemberMap::default(),
            nodes_changed: true,
        }
    }
}

impl TaintEviction {
    /// When the pods on `node` run out of their tolerations, if this controller has seen the
    /// node tainted.
    pub(super) fn due(&self, node: &str, toleration_seconds: Duration) -> Option<SimTime> {
        let seen = self.seen.get(node)?;
        Some(*seen + toleration_seconds)
    }

    /// `d` more seconds of every taint seen.
    pub(super) fn older_by(&mut self, d: Duration) {
        for (_, t) in self.seen.iter_mut() {
            *t = *t - d;
        }
    }

    /// A node's taint was removed and added again: its clock starts from `now`.
    pub(super) fn retainted(&mut self, node: String, now: SimTime) {
        self.seen.insert(node, now);
    }

    /// The node cache changed: the taints are read again at the next pass.
    pub(super) fn nodes_changed(&mut self) {
        self.nodes_changed = true;
    }

    /// The pods to evict now, with why: every pod on a node with an operator's NoExecute taint
    /// (none tolerates it), then the pods whose tolerationSeconds have passed since the node
    /// was seen tainted (DaemonSet pods tolerate it forever); each group by name.
    fn evictions(
        &mut self,
        now: SimTime,
        nodes: &Informer,
        pods: &Informer,
        toleration_seconds: Duration,
    ) -> Vec<(Pod, u64, String)> {
        if std::mem::take(&mut self.nodes_changed) {
            // Seen at this pass: within a second of the node informer's change.
            let tainted = no_execute_tainted(nodes);
            self.seen.retain(|node, _| tainted.contains(node));
            for node in tainted {
                self.seen.get_or_insert_with(node, || now);
            }
            self.operator_no_execute = operator_no_execute(nodes);
        }
        let mut untolerated: Vec<(Pod, u64, String)> = Vec::new();
        for (node, taint) in self.operator_no_execute.iter() {
            untolerated.extend(
                (pods.pods_on(node))
                    .filter_map(|kv| kv.value.as_pod().map(|p| (p, kv.mod_revision)))
                    .filter(|(p, _)| p.deletion.is_none() && !p.of_its_node())
                    .map(|(p, rv)| (p.clone(), rv, taint.clone())),
            );
        }
        crate::kernel::sort::sort_by(&mut untolerated, |a, b| a.0.name.cmp(&b.0.name));
        let mut out: Vec<(Pod, u64, String)> = (untolerated.into_iter())
            .map(|(p, rv, taint)| {
                let node = p.node.clone().unwrap_or_default();
                let why = format!(
                    "{} was evicted from {node}: the node has the taint {taint}, which the pod does not tolerate",
                    p.name
                );
                (p, rv, why)
            })
            .collect();
        let mut expired: Vec<(Pod, u64)> = (self.seen.iter())
            .filter(|(_, &t)| now >= t + toleration_seconds)
            .flat_map(|(node, _)| pods.pods_on(node))
            .filter_map(|kv| kv.value.as_pod().map(|p| (p, kv.mod_revision)))
            .filter(|(p, _)| p.deletion.is_none() && !p.tolerates_everything())
            .map(|(p, rv)| (p.clone(), rv))
            .collect();
        crate::kernel::sort::sort_by(&mut expired, |a, b| a.0.name.cmp(&b.0.name));
        let seconds = toleration_seconds.secs();
        out.extend(expired.into_iter().map(|(p, rv)| {
            let node = p.node.clone().unwrap_or_default();
            let why = format!(
                "{} was evicted from {node}: tolerationSeconds ({seconds} s) have passed since the controller-manager saw the node tainted unreachable",
                p.name
            );
            (p, rv, why)
        }));
        out
    }
}

impl Controllers {
    /// When the pods on `node` run out of their tolerations, if this controller has seen the
    /// node tainted.
    pub fn eviction_due(&self, node: &str) -> Option<SimTime> {
        (self.taint_eviction).due(node, self.timings.toleration_seconds)
    }

    /// The taint-eviction controller's pass: each pod due marked for deletion.
    pub(super) fn evict_tainted(&mut self, ctx: &mut Ctx) {
        let tolerated = self.timings.toleration_seconds;
        let due = (self.taint_eviction).evictions(ctx.now, &self.nodes, &self.pods, tolerated);
        for (p, rv, why) in due {
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
