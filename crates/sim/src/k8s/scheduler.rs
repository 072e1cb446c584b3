//! kube-scheduler's placement, run only by the holder of the `kube-scheduler` lease:
//! each pending pod goes to a Ready, untainted worker with the fewest pods of its
//! workload, then the fewest pods in total, then the first in host order (the rule the
//! scenario format fixes). Binding writes the pod with the resourceVersion it read.
//!
//! When the scenario gives capacity (host `cpu`/`memory`, workload `requests`), a worker fits a
//! pod only if the requests of the pods bound there (being deleted or not, and those it is
//! binding) plus the pod's own stay within its allocatable (NodeResourcesFit). A pod that fits
//! nowhere is unschedulable, with the reason kube-scheduler gives ("0/6 nodes are available:
//! 3 Insufficient cpu, …"), and is tried again at the next change of a pod or a node.
//!
//! A workload with `spread` has a topology spread constraint (maxSkew 1, DoNotSchedule) on the
//! zone or the host: a worker passes only if its domain would then hold at most one pod of the
//! workload more than the emptiest domain. As in Kubernetes by default, every Node with the
//! label is a domain, tainted or not (`nodeTaintsPolicy: Ignore`): control-plane Nodes count,
//! so a zone of control-plane hosts alone, or one control-plane Node under host spread, keeps the
//! emptiest domain at 0. Pods being deleted are not counted.
//!
//! Left out: affinity, priorities and preemption, spread scoring.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse};
use crate::k8s::client::ApiClient;
use crate::k8s::events::{namespace_of, Event, Reason};
use crate::k8s::informer::Informer;
use crate::k8s::leading::{Work, WORK};
use crate::k8s::objects::{pod_key, Object, Pod, TaintKey, NODES, PODS};
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Ctx;
use crate::kernel::keymap::{Key, KeyMap, KeySet};
use crate::kernel::members::MemberMap;
use crate::kernel::process::{Addr, Sub};
use crate::kernel::time::Duration;
use std::sync::Arc;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The topology of a spread constraint: `topology.kubernetes.io/zone` or `kubernetes.io/hostname`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    Zone,
    Host,
}

/// `(pods of the workload, pods in total, position)` as one number in the tuple's order (pod
/// counts and positions stay far below 2^32).
fn placement_rank(workload_pods: usize, total: usize, position: usize) -> u128 {
    (workload_pods as u128) << 64 | (total as u128) << 32 | position as u128
}

#[derive(Clone)]
pub struct Scheduler {
    /// Tagged with the pod, the node it is bound to and its namespace.
    client: ApiClient<(String, String, &'static str)>,
    nodes: Informer,
    pods: Informer,
    /// Worker host names in host order (the tie-break of the placement rule).
    order: Vec<String>,
    /// Each worker's position in `order`, so the placement loop compares integers only.
    position: KeyMap<usize>,
    /// Pods whose binding is on its way.
    binding: KeySet,
    /// With capacity: the worker each of them names (its requests count there until the pod's
    /// own change arrives, as kube-scheduler's assumed pods).
    assumed: Vec<(String, usize)>,
    capacity: Option<Arc<Capacity>>,
    /// The workloads whose pods are spread, and over what.
    spread: Vec<(String, Spread)>,
    /// Pending pods are reported (with capacity or spread).
    track_pending: bool,
    /// Something changed since the last pass.
    dirty: bool,
}

/// The domains of a spread topology in one pass: each worker's (None: its Node is not cached)
/// and how many there are, Nodes that are not workers included.
struct Domains {
    of_worker: Vec<Option<usize>>,
    count: usize,
}

/// What the pods bound (or being bound) take of each worker in one pass: pods in total and per
/// workload (pods being deleted still occupy their node), per spread workload its pods not
/// being deleted, and the requests bound (only when the scenario gives capacity).
struct Tally {
    total: Vec<usize>,
    per_workload: MemberMap<String, Vec<usize>>,
    live: Vec<(Spread, Vec<usize>)>,
    used: Vec<Resources>,
}

impl Tally {
    fn add_requests(&mut self, capacity: Option<&Capacity>, i: usize, workload: &str) {
        if let Some(c) = capacity {
            let r = c.of(workload);
            self.used[i].cpu += r.cpu;
            self.used[i].memory += r.memory;
        }
    }
}

/// Per worker: whether one more pod of a spread workload (its pods per worker `counts`) keeps
/// the skew within 1 of the emptiest domain (a domain without workers holds none).
fn within_skew(d: &Domains, counts: &[usize]) -> Vec<bool> {
    let mut pods = vec![0; d.count];
    for (i, at) in d.of_worker.iter().enumerate() {
        if let Some(at) = at {
            pods[*at] += counts[i];
        }
    }
    let min = pods.iter().copied().min().unwrap_or(0);
    d.of_worker
        .iter()
        .map(|at| at.is_some_and(|at| pods[at] + 1 - min <= 1))
        .collect()
}

/// Cpu in millicores and memory in bytes: a Node's allocatable or a pod's requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    pub cpu: u64,
    pub memory: u64,
}

/// What the fit check reads: each worker's allocatable (in host order) and each workload's
/// requests per pod.
pub struct Capacity {
    pub allocatable: Vec<Resources>,
    pub requests: KeyMap<Resources>,
}

impl Capacity {
    fn of(&self, workload: &str) -> Resources {
        self.requests.get(workload).copied().unwrap_or_default()
    }
}

impl Scheduler {
    pub fn new(s: &SchedulerSpec, base: Sub) -> Self {
        let (me, api, order) = (s.me, s.api, s.order.clone());
        Scheduler {
            client: ApiClient::at(me, api, base),
            nodes: Informer::new(NODES, None, me, api, Sub(base.0 + 1)),
            pods: Informer::new(PODS, None, me, api, Sub(base.0 + 2)),
            position: order
                .iter()
                .enumerate()
                .map(|(i, w)| (w.as_str().into(), i))
                .collect(),
            order,
            binding: KeySet::default(),
            assumed: Vec::new(),
            capacity: s.capacity.clone(),
            spread: s.spread.clone(),
            track_pending: s.track_pending,
            dirty: true,
        }
    }
}

#[derive(Clone)]
pub struct SchedulerSpec {
    pub me: Addr,
    pub api: Addr,
    /// Worker names in host order.
    pub order: Vec<String>,
    /// Set when the scenario gives capacity.
    pub capacity: Option<Arc<Capacity>>,
    pub spread: Vec<(String, Spread)>,
    pub track_pending: bool,
}

impl Work for Scheduler {
    type Spec = SchedulerSpec;

    fn fresh(s: &SchedulerSpec, _: &Ctx) -> Self {
        Scheduler::new(s, WORK)
    }

    fn owns(&self, sub: Sub) -> bool {
        self.client.owns(sub) || self.nodes.owns(sub) || self.pods.owns(sub)
    }

    fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload) {
        if self.nodes.on_api(ctx, msg) || self.pods.on_api(ctx, msg) {
            self.dirty = true;
            return;
        }
        if let ApiPayload::Response { id, resp, .. } = msg {
            if let Some((pod, node, namespace)) = self.client.answered(*id, ctx.now) {
                if let ApiResponse::Written { .. } = resp {
                    let event = Event {
                        reason: Reason::Scheduled,
                        kind: "Pod",
                        message: format!("Successfully assigned {namespace}/{pod} to {node}"),
                        name: pod.clone(),
                        namespace,
                        at: ctx.now,
                    };
                    ctx.obs.api_event(ctx.now, event);
                }
                self.dirty = true;
                self.binding.remove(&pod);
                self.assumed.retain(|(n, _)| *n != pod);
            }
        }
    }

    fn on_timeout(&mut self, ctx: &mut Ctx, sub: Sub) {
        self.nodes.on_timeout(ctx, sub);
        self.pods.on_timeout(ctx, sub);
        if self.client.owns(sub) {
            for (pod, _, _) in self.client.expired(ctx) {
                self.dirty = true;
                self.binding.remove(&pod);
                self.assumed.retain(|(n, _)| *n != pod);
            }
        }
    }

    /// One pass, when something changed: each pending pod bound to the best worker it fits
    /// (its workload's pods, then all pods, then host order; spread and requests respected), or
    /// reported with why it fits nowhere.
    fn run(&mut self, ctx: &mut Ctx) {
        self.nodes.tick(ctx);
        self.pods.tick(ctx);
        if !self.nodes.synced || !self.pods.synced || !self.dirty {
            return;
        }
        self.dirty = false;
        // When every cached pod is bound, nothing waits: no need to look at each pod.
        let any_pending = self.pods.items().len() != self.pods.bound_pods()
            && self
                .pods
                .items()
                .values()
                .filter_map(|kv| kv.value.as_pod())
                .any(|p| p.node.is_none() && p.deletion.is_none());
        if !any_pending {
            if self.track_pending {
                ctx.obs.unschedulable(ctx.now, Vec::new());
            }
            return;
        }
        let eligible = self.eligible();
        let (mut tally, pending) = self.tally();
        let n = self.order.len();
        let capacity = self.capacity.clone();
        let spread_of = |w: &str| self.spread.iter().position(|(name, _)| name == w);
        // The domains of each topology, found once per pass when a spread pod needs them.
        let mut domains: [Option<Domains>; 2] = [None, None];
        let mut unschedulable = Vec::new();
        // The reason depends on the pod's requests and the room left, which only a binding
        // changes: pods alike that fit nowhere share it (a zone's worth of them may be Pending).
        let mut last_why: Option<(Option<Resources>, String)> = None;
        for (mut pod, rv) in pending {
            let (counts, _) =
                (tally.per_workload).get_or_insert_with(pod.workload.clone(), || vec![0; n]);
            let request = capacity.as_ref().map(|c| c.of(&pod.workload));
            let fits = |i: usize| match (&capacity, request) {
                (Some(c), Some(r)) => {
                    let (a, used) = (c.allocatable[i], tally.used[i]);
                    used.cpu + r.cpu <= a.cpu && used.memory + r.memory <= a.memory
                }
                _ => true,
            };
            let spread = spread_of(&pod.workload).map(|k| &tally.live[k]);
            // Per worker, for a spread pod only: whether one more of its pods keeps the skew.
            let skew_ok: Option<Vec<bool>> = spread.map(|(over, counts)| {
                let at = *over as usize;
                let d = domains[at].get_or_insert_with(|| self.domains(*over));
                within_skew(d, counts)
            });
            let skew_ok = skew_ok.as_deref();
            // The rule's order (workload's pods, then all pods, then host order) as one number
            // per node, so the pass over every node for every pending pod is a plain minimum.
            let Some(best) = eligible
                .iter()
                .zip(counts.iter().zip(&tally.total))
                .enumerate()
                .filter(|&(i, (&eligible, _))| {
                    eligible && fits(i) && skew_ok.is_none_or(|ok| ok[i])
                })
                .map(|(i, (_, (&count, &total)))| placement_rank(count, total, i))
                .min()
            else {
                if self.track_pending {
                    let why = match &last_why {
                        Some((r, why)) if *r == request && spread.is_none() => why.clone(),
                        _ => {
                            let why =
                                self.why_unschedulable(&eligible, &tally.used, request, skew_ok);
                            last_why = Some((request, why.clone()));
                            why
                        }
                    };
                    unschedulable.push((pod.name, pod.workload, why));
                }
                continue;
            };
            let best = best as u32 as usize;
            counts[best] += 1;
            tally.total[best] += 1;
            tally.add_requests(capacity.as_deref(), best, &pod.workload);
            if let Some(k) = spread_of(&pod.workload) {
                tally.live[k].1[best] += 1;
            }
            last_why = None;
            let node = self.order[best].clone();
            pod.node = Some(node.clone());
            self.binding.insert(Key::from(pod.name.as_str()));
            if self.track_pending {
                self.assumed.push((pod.name.clone(), best));
            }
            let name = pod.name.clone();
            let namespace = namespace_of(&pod.workload);
            let req = ApiRequest::Update {
                key: pod_key(&name).into(),
                value: Arc::new(Object::Pod(pod)),
                resource_version: rv,
            };
            self.client
                .send(ctx, req, (name, node, namespace), REQUEST_TIMEOUT);
        }
        if self.track_pending {
            ctx.obs.unschedulable(ctx.now, unschedulable);
        }
    }
}

impl Scheduler {
    /// Per worker: whether a pod may go there (a cached, schedulable Node that is no
    /// control-plane's).
    fn eligible(&self) -> Vec<bool> {
        let mut eligible = vec![false; self.order.len()];
        let nodes = self
            .nodes
            .items()
            .values()
            .filter_map(|kv| kv.value.as_node());
        for node in nodes {
            if let Some(&i) = self.position.get(node.name.as_str()) {
                eligible[i] = !node.control_plane && node.schedulable();
            }
        }
        eligible
    }

    /// What the cached pods take of each worker, and the pods waiting for one (with their
    /// resourceVersions).
    fn tally(&self) -> (Tally, Vec<(Pod, u64)>) {
        let n = self.order.len();
        let capacity = self.capacity.as_deref();
        let mut t = Tally {
            total: vec![0; n],
            per_workload: MemberMap::default(),
            live: self.spread.iter().map(|(_, s)| (*s, vec![0; n])).collect(),
            used: vec![Resources::default(); if capacity.is_some() { n } else { 0 }],
        };
        let spread_of = |w: &str| self.spread.iter().position(|(name, _)| name == w);
        let mut pending = Vec::new();
        for kv in self.pods.items().values() {
            let Some(p) = kv.value.as_pod() else { continue };
            match &p.node {
                Some(node) => {
                    if let Some(&i) = self.position.get(node.as_str()) {
                        t.add_requests(capacity, i, &p.workload);
                        t.total[i] += 1;
                        if let (Some(k), None) = (spread_of(&p.workload), p.deletion) {
                            t.live[k].1[i] += 1;
                        }
                        let zeros = || vec![0; n];
                        t.per_workload
                            .get_or_insert_with(p.workload.clone(), zeros)
                            .0[i] += 1;
                    }
                }
                None if self.binding.contains(&p.name) => {
                    if let Some(&(_, i)) = self.assumed.iter().find(|(n, _)| *n == p.name) {
                        t.add_requests(capacity, i, &p.workload);
                        if let Some(k) = spread_of(&p.workload) {
                            t.live[k].1[i] += 1;
                        }
                    }
                }
                None if p.deletion.is_none() => pending.push((p.clone(), kv.mod_revision)),
                None => {}
            }
        }
        (t, pending)
    }

    /// The domains of a topology: every Node's zone (or every Node), each worker's among them.
    fn domains(&self, over: Spread) -> Domains {
        let mut zones: Vec<&str> = Vec::new();
        let mut count = 0;
        let mut of_worker = vec![None; self.order.len()];
        for node in self
            .nodes
            .items()
            .values()
            .filter_map(|kv| kv.value.as_node())
        {
            let d = match over {
                Spread::Host => {
                    count += 1;
                    count - 1
                }
                Spread::Zone => match zones.iter().position(|z| *z == node.zone) {
                    Some(d) => d,
                    None => {
                        zones.push(&node.zone);
                        count += 1;
                        count - 1
                    }
                },
            };
            if let Some(&i) = self.position.get(node.name.as_str()) {
                of_worker[i] = Some(d);
            }
        }
        Domains { of_worker, count }
    }

    /// kube-scheduler's FailedScheduling message: each Node's reasons, counted, sorted.
    fn why_unschedulable(
        &self,
        eligible: &[bool],
        used: &[Resources],
        request: Option<Resources>,
        skew_ok: Option<&[bool]>,
    ) -> String {
        let mut reasons: Vec<(String, usize)> = Vec::new();
        let mut nodes = 0;
        for node in self
            .nodes
            .items()
            .values()
            .filter_map(|kv| kv.value.as_node())
        {
            nodes += 1;
            let i = self.position.get(node.name.as_str()).copied();
            let mut say = |r: String| match reasons.iter_mut().find(|(x, _)| *x == r) {
                Some((_, n)) => *n += 1,
                None => reasons.push((r, 1)),
            };
            match i.filter(|&i| eligible[i]) {
                Some(i) => {
                    let (a, r) = (self.capacity.as_ref().map(|c| c.allocatable[i]), request);
                    let mut short = false;
                    if let (Some(a), Some(r)) = (a, r) {
                        if used[i].cpu + r.cpu > a.cpu {
                            say("Insufficient cpu".into());
                            short = true;
                        }
                        if used[i].memory + r.memory > a.memory {
                            say("Insufficient memory".into());
                            short = true;
                        }
                    }
                    // Filters run in kube-scheduler's order: room before spread.
                    if !short && skew_ok.is_some_and(|ok| !ok[i]) {
                        say("node(s) didn't match pod topology spread constraints".into());
                    }
                }
                None if node.has_taint(TaintKey::Unschedulable) => {
                    say("node(s) were unschedulable".into())
                }
                // A Node not ready is tainted so within moments; say so meanwhile too.
                None => {
                    let (key, value) = node
                        .taints
                        .first()
                        .map_or((TaintKey::NotReady.name(), ""), |t| {
                            (t.key.name(), &t.value)
                        });
                    say(format!("node(s) had untolerated taint {{{key}: {value}}}"))
                }
            }
        }
        let mut parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
        // As kube-scheduler sorts them.
        crate::kernel::sort::sort(&mut parts);
        format!("0/{nodes} nodes are available: {}.", parts.join(", "))
    }
}

impl SelfTimed for Scheduler {
    /// Not while a binding is on its way; it binds pending pods as it sees them, and a pod
    /// that fits nowhere stays pending, which the running pods' figures show.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::when(self.binding.is_empty())
    }

    fn skipped(&mut self, _: Duration, _: &Stand) {}
}

#[cfg(test)]
mod tests {
    use super::placement_rank;

    /// The packed rank sorts exactly as the rule's tuple, across the whole range of each field.
    #[test]
    fn placement_rank_orders_as_the_rule() {
        let values = [0, 1, 2, 999, 1 << 20, (1 << 21) + 3, u32::MAX as usize];
        let mut triples = Vec::new();
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    triples.push((a, b, c));
                }
            }
        }
        for x in &triples {
            for y in &triples {
                let ranks = placement_rank(x.0, x.1, x.2).cmp(&placement_rank(y.0, y.1, y.2));
                assert_eq!(ranks, x.cmp(y), "{x:?} against {y:?}");
            }
        }
        assert_eq!(
            placement_rank(5, 7, 1234) as u32,
            1234,
            "the position is the low bits"
        );
    }
}
