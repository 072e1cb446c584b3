//! The controllers of kube-controller-manager that decide what happens to nodes and
//! pods, run only by the process holding the `kube-controller-manager` lease, and
//! started fresh on every acquisition (Kubernetes keeps no controller state across a
//! leader change):
//!
//! - node lifecycle: every `node_monitor_period` it samples node leases; `probeTimestamp`
//!   is when *it* saw a lease change, so a new leader starts every node at "now". A node
//!   silent for more than `node_monitor_grace_period` becomes Ready=Unknown, gets the
//!   `unreachable:NoExecute` taint, and its pods Ready=False. Tainting is rate limited per
//!   zone (0.1 node/s; 0 in a partially disrupted small zone) and stops, with every such
//!   taint removed, when every zone is fully disrupted ("master disruption mode").
//! - taint eviction: pods on a node with that taint are deleted `toleration_seconds` after
//!   the controller saw the taint (a new leader starts that clock again); DaemonSet pods
//!   tolerate it forever.
//! - ReplicaSet (Deployments): counts pods without a deletion timestamp and creates or
//!   deletes to match `replicas`: at-least semantics, duplicates while evicted pods still run.
//! - StatefulSet: one pod per ordinal, recreated only once the old object is gone.
//! - DaemonSet: one pod per node, bound directly.
//! - EndpointSlices: the ready pods of each Service.
//! - Disruption: the status of each PodDisruptionBudget (healthy pods, disruptions allowed),
//!   which the Eviction API reads.
//! - With a cloud-controller-manager: the Nodes of instances that no longer exist are deleted,
//!   with their pods.
//!
//! Each in its module: [`node_lifecycle`] (with its [`node_table`]), [`taint_eviction`],
//! [`workloads`], [`endpoints`], [`disruption`], [`cloud_node`], [`pod_gc`]. A controller with
//! state of its own owns it in a type of its module (`NodeLifecycle`, `TaintEviction`,
//! `PodGc`, `CloudNode`): its pass takes the shared caches and says what to write, and `Controllers` holds
//! the caches, the one API client they write through, and the dispatch.
//!
//! Left out: ReplicaSet revisions and rollouts, garbage collection.

mod cloud_node;
mod disruption;
mod endpoints;
mod node_lifecycle;
mod node_table;
mod pod_gc;
mod taint_eviction;
mod workloads;

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse};
use crate::k8s::client::ApiClient;
use crate::k8s::events::Event;
use crate::k8s::informer::Informer;
use crate::k8s::leading::{Work, WORK};
use crate::k8s::objects::{
    name_of, node_key, pod_key, Condition, Object, Pod, ENDPOINT_SLICES, NODES, NODE_LEASES, PDBS,
    PODS, WORKLOADS,
};
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Ctx;
use crate::k8s::wire::Key;
use crate::kernel::keymap::KeySet;
use crate::kernel::members::{MemberMap, MemberSet};
use crate::kernel::process::{Addr, Sub};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use cloud_node::CloudNode;
use node_lifecycle::NodeLifecycle;
use std::sync::Arc;
use taint_eviction::TaintEviction;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// kube-controller-manager's node lifecycle flags (the scenario's settings of the same names).
#[derive(Clone, Copy, Debug)]
pub struct NodeTimings {
    pub node_monitor_period: Duration,
    pub node_monitor_grace_period: Duration,
    pub toleration_seconds: Duration,
    /// `--node-eviction-rate`: nodes tainted per second in a zone.
    pub node_eviction_rate: f64,
    /// `--secondary-node-eviction-rate`, for partially disrupted zones larger than
    /// `--large-cluster-size-threshold` nodes.
    pub secondary_node_eviction_rate: f64,
    pub large_cluster_size_threshold: usize,
    /// `--unhealthy-zone-threshold`: the share of NotReady nodes that makes a zone partially
    /// disrupted.
    pub unhealthy_zone_threshold: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ZoneState {
    Normal,
    Partial,
    Full,
}

#[derive(Clone)]
pub struct Controllers {
    timings: NodeTimings,
    /// Each write's key, and the Event its controller records once the write succeeds.
    client: ApiClient<(Key, Option<Box<Event>>)>,
    nodes: Informer,
    leases: Informer,
    pods: Informer,
    workloads: Informer,
    slices: Informer,
    /// PodDisruptionBudgets, watched only when the scenario has any.
    budgets: Option<Informer>,
    /// When a budget's oldest `disruptedPods` entry expires (the disruption controller looks again).
    budgets_due: Option<SimTime>,
    /// With a cloud-controller-manager: its node lifecycle controller.
    cloud: Option<CloudNode>,
    pod_gc: pod_gc::PodGc,
    node_lifecycle: NodeLifecycle,
    last_monitor: SimTime,
    /// Keys with a write in flight (one at a time per object).
    busy: KeySet,
    /// Pods created and not yet seen by the informer (client-go's "expectations").
    expected: KeySet,
    /// Per Service: its endpoints' change count and its slice's resourceVersion when the slice
    /// was last found up to date (while both stay so, the slice needs no look).
    slices_checked: MemberMap<String, (u64, u64)>,
    /// Something changed since the last workload and endpoint pass (controllers are event-driven).
    dirty: bool,
    taint_eviction: TaintEviction,
    rng: Rng,
}

impl Controllers {
    /// Fresh controllers (a new leader) as `spec` says, with their random stream, their clients
    /// at sub-addresses from `base` on.
    pub fn new(spec: &ControllersSpec, rng: Rng, now: SimTime, base: Sub) -> Self {
        let (me, api, timings) = (spec.me, spec.api, spec.timings);
        let (budgets, cloud) = (spec.budgets, spec.cloud.clone());
        let informer = |prefix: &str, k: u32| Informer::new(prefix, None, me, api, Sub(base.0 + k));
        Controllers {
            timings,
            client: ApiClient::at(me, api, base),
            nodes: informer(NODES, 1),
            leases: informer(NODE_LEASES, 2),
            pods: informer(PODS, 3).counting_pods(),
            workloads: informer(WORKLOADS, 4),
            slices: informer(ENDPOINT_SLICES, 5),
            budgets: budgets.then(|| informer(PDBS, 6)),
            budgets_due: None,
            cloud: cloud.map(|gone| CloudNode::new(gone, now)),
            pod_gc: pod_gc::PodGc::new(now),
            node_lifecycle: NodeLifecycle::default(),
            last_monitor: now,
            busy: KeySet::default(),
            expected: KeySet::default(),
            slices_checked: MemberMap::default(),
            dirty: true,
            taint_eviction: TaintEviction::default(),
            rng,
        }
    }

    fn informers(&mut self) -> [&mut Informer; 5] {
        [
            &mut self.nodes,
            &mut self.leases,
            &mut self.pods,
            &mut self.workloads,
            &mut self.slices,
        ]
    }

    /// Writes a changed pod back, conditional on the resourceVersion it was read at, with the
    /// Event that says so once the write went through.
    fn update_pod(&mut self, ctx: &mut Ctx, p: Pod, rv: u64, event: Option<Event>) {
        let req = ApiRequest::Update {
            key: pod_key(&p.name).into(),
            value: Arc::new(Object::Pod(p)),
            resource_version: rv,
        };
        self.write_with(ctx, req, event);
    }

    fn write(&mut self, ctx: &mut Ctx, req: ApiRequest) {
        self.write_with(ctx, req, None);
    }

    fn write_with(&mut self, ctx: &mut Ctx, req: ApiRequest, event: Option<Event>) {
        let key = match &req {
            ApiRequest::Create { key, .. }
            | ApiRequest::Update { key, .. }
            | ApiRequest::Put { key, .. }
            | ApiRequest::Delete { key, .. } => key.clone(),
            _ => return,
        };
        if self.busy.insert(key.clone()) {
            let tag = (key, event.map(Box::new));
            self.client.send(ctx, req, tag, REQUEST_TIMEOUT);
        }
    }
}

impl SelfTimed for Controllers {
    /// What they will do of their own accord, and when, however long the world stays as it
    /// is: mark a silent Node that is still Ready NotReady once its grace period ends; evict
    /// the pods of a Node whose host does not run once their tolerations run out (or before
    /// that, taint it once its grace period ends). Not quiet if such a Node is one they have
    /// not seen yet (they will act at a time they do not know), while a write of theirs or a
    /// pod they created is on its way, while a NotReady Node whose instance is gone waits
    /// for the cloud controller's next look (within 5 s), or while a pod's Node is gone (the pod
    /// garbage collector deletes it within a minute).
    fn quiet(&self, stand: &Stand) -> Quiet {
        let gone = |n: &str| self.cloud.as_ref().is_some_and(|c| c.is_gone(n));
        let cloud_due = (self.nodes.items().values())
            .filter_map(|kv| kv.value.as_node())
            .any(|n| n.ready != Condition::True && gone(&n.name));
        if !self.busy.is_empty() || !self.expected.is_empty() || cloud_due {
            return Quiet::No;
        }
        let grace = self.timings.node_monitor_grace_period;
        let until = |t: Option<SimTime>| t.map_or(Quiet::No, Quiet::Until);
        let mut quiet = Quiet::Yes;
        for (_, kv) in stand.store.range_prefix(NODES) {
            let Some(n) = kv.value.as_node() else {
                continue;
            };
            if n.ready == Condition::True && stand.is_silent(&n.name) {
                quiet = quiet.and(until(self.heard_from(&n.name).map(|t| t + grace)));
            }
        }
        for (_, kv) in stand.store.range_prefix(PODS) {
            let Some(p) = kv.value.as_pod() else { continue };
            let Some(node) = p.node.as_deref() else {
                continue;
            };
            if stand.runs(node) {
                continue;
            }
            // An orphan (only a Node whose host is gone is ever deleted): the pod garbage
            // collector deletes it within a minute.
            if self.nodes.items().get(&node_key(node)).is_none() {
                return Quiet::No;
            }
            if p.tolerates_everything() || p.deletion.is_some() {
                continue;
            }
            let grace_end = || self.heard_from(node).map(|t| t + grace);
            quiet = quiet.and(until(self.eviction_due(node).or_else(grace_end)));
        }
        quiet
    }

    /// The grace periods of the silent Nodes (whose kubelets renewed nothing meanwhile) and
    /// the tolerations of tainted Nodes' pods. Their periodic passes need nothing: they read
    /// the state, which has not changed.
    fn skipped(&mut self, d: Duration, stand: &Stand) {
        (self.node_lifecycle).heard_nothing_for(d, &|node| stand.is_silent(node));
        self.taint_eviction.older_by(d);
    }
}

/// Controllers are made from their addresses, timings and a random stream forked per acquisition.
#[derive(Clone)]
pub struct ControllersSpec {
    /// The scenario has PodDisruptionBudgets: the disruption controller runs.
    pub budgets: bool,
    /// With a cloud-controller-manager: the Nodes whose instances no longer exist (kept up to
    /// date by the world, as the cloud's API would answer).
    pub cloud: Option<MemberSet<String>>,
    pub me: Addr,
    pub api: Addr,
    pub timings: NodeTimings,
    pub rng: Rng,
}

impl Work for Controllers {
    type Spec = ControllersSpec;

    fn fresh(s: &ControllersSpec, ctx: &Ctx) -> Self {
        Controllers::new(s, s.rng.fork(&ctx.now.0.to_string()), ctx.now, WORK)
    }

    fn owns(&self, sub: Sub) -> bool {
        self.client.owns(sub)
            || [
                &self.nodes,
                &self.leases,
                &self.pods,
                &self.workloads,
                &self.slices,
            ]
            .iter()
            .any(|i| i.owns(sub))
            || self.budgets.as_ref().is_some_and(|i| i.owns(sub))
    }

    fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload) {
        // Node lease renewals (every 10 s per node) matter only to the node monitor, which
        // samples on its own period: they do not wake the workload controllers.
        if self.leases.on_api(ctx, msg) {
            return;
        }
        if self.nodes.on_api(ctx, msg) {
            self.taint_eviction.nodes_changed();
            self.dirty = true;
            return;
        }
        if self.pods.on_api(ctx, msg) {
            // ReplicaSet expectations: a created pod is observed by its watch event, even when
            // a later event in the same batch deletes it (kubectl drain may evict it at once).
            if let ApiPayload::WatchEvents { events, .. } = msg {
                for (key, _) in events {
                    self.expected.remove(name_of(key));
                }
            }
            self.dirty = true;
            return;
        }
        let mut changed = false;
        let budgets = self.budgets.iter_mut();
        for i in [&mut self.workloads, &mut self.slices]
            .into_iter()
            .chain(budgets)
        {
            if i.on_api(ctx, msg) {
                changed = true;
                break;
            }
        }
        if changed {
            self.dirty = true;
            return;
        }
        if let ApiPayload::Response { id, resp, .. } = msg {
            if let Some((key, event)) = self.client.answered(*id, ctx.now) {
                self.dirty = true;
                self.busy.remove(&key);
                if let Some(event) = event {
                    if matches!(resp, ApiResponse::Written { .. }) {
                        ctx.obs.api_event(ctx.now, *event);
                    }
                }
                if !matches!(resp, ApiResponse::Written { .. }) {
                    self.expected.remove(name_of(&key));
                }
            }
        }
    }

    fn on_timeout(&mut self, ctx: &mut Ctx, sub: Sub) {
        for i in self.informers() {
            i.on_timeout(ctx, sub);
        }
        if let Some(i) = self.budgets.as_mut() {
            i.on_timeout(ctx, sub);
        }
        if self.client.owns(sub) {
            for (key, _) in self.client.expired(ctx) {
                self.dirty = true;
                self.busy.remove(&key);
                self.expected.remove(name_of(&key));
            }
        }
    }

    /// One pass of every controller (called every second while leading).
    fn run(&mut self, ctx: &mut Ctx) {
        for i in self.informers() {
            i.tick(ctx);
        }
        if let Some(i) = self.budgets.as_mut() {
            i.tick(ctx);
        }
        let synced =
            self.nodes.synced && self.leases.synced && self.pods.synced && self.workloads.synced;
        if !synced {
            return;
        }
        if ctx.now - self.last_monitor >= self.timings.node_monitor_period {
            self.last_monitor = ctx.now;
            self.monitor_nodes(ctx);
        }
        self.evict_tainted(ctx);
        self.delete_gone_nodes(ctx);
        self.collect_orphans(ctx);
        if self.dirty || self.budgets_due.is_some_and(|t| t <= ctx.now) {
            self.sync_budgets(ctx);
        }
        if self.dirty {
            self.dirty = false;
            self.sync_workloads(ctx);
            if self.slices.synced {
                self.sync_endpoints(ctx);
            }
        }
    }
}
