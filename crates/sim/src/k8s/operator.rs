//! The operator at a terminal: `kubectl apply` of the scenario's workloads (and their
//! PodDisruptionBudgets) before t = 0, then the scenario's API actions (`scale`, `delete_pod`,
//! `cordon`, `drain`), each one attempt through the API endpoint, recorded as an operation that
//! succeeded or failed with its reason. A drain evicts through the Eviction API and retries
//! every 5 s while a budget refuses, as `kubectl drain` does; any other error ends it.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse};
use crate::k8s::client::ApiClient;
use crate::k8s::objects::{
    node_key, pod_key, workload_key, Node, Object, PodDisruptionBudget, TaintSpec, Workload, PODS,
};
use crate::k8s::observe::PodChange;
use crate::k8s::self_timed::{Quiet, SelfTimed, Stand};
use crate::k8s::wire::Ctx;
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Key, KeyValue, Value};
use crate::kernel::members::MemberMap;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Alarm, Port};
use crate::kernel::time::{Duration, SimTime};
use std::sync::Arc;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const RETRY: Duration = Duration::from_secs(1);
/// `kubectl drain` tries a refused eviction again after 5 s.
pub const EVICTION_RETRY: Duration = Duration::from_secs(5);
/// How often `kubectl drain` looks whether the evicted pods are gone.
const DELETE_POLL: Duration = Duration::from_secs(1);

/// What an operator changes on a Node.
#[derive(Clone, Debug)]
pub enum NodeEdit {
    Cordon,
    Uncordon,
    Taint(TaintSpec),
    Untaint(TaintSpec),
    /// An operator's label (`kubectl label --overwrite`), or its removal.
    Label {
        key: String,
        value: String,
    },
    Unlabel {
        key: String,
    },
}

impl NodeEdit {
    /// The operation's name (the scenario's action).
    fn action(&self) -> &'static str {
        match self {
            NodeEdit::Cordon => "cordon",
            NodeEdit::Uncordon => "uncordon",
            NodeEdit::Taint(_) => "taint",
            NodeEdit::Untaint(_) => "untaint",
            NodeEdit::Label { .. } => "label",
            NodeEdit::Unlabel { .. } => "unlabel",
        }
    }

    /// Changes `n` as kubectl does, or says why it cannot (a taint to remove is not there).
    pub fn apply(&self, n: &mut Node, now: SimTime) -> Result<(), String> {
        match self {
            NodeEdit::Cordon => n.set_unschedulable(true, now),
            NodeEdit::Uncordon => n.set_unschedulable(false, now),
            NodeEdit::Taint(spec) => {
                n.apply_taint(spec, false, now);
            }
            NodeEdit::Untaint(spec) => {
                if !n.apply_taint(spec, true, now) {
                    return Err(format!("taint \"{}\" not found", spec.text()));
                }
            }
            NodeEdit::Label { key, value } => {
                n.labels.insert(key.clone(), value.clone());
            }
            // kubectl says a missing label was not found, and goes on.
            NodeEdit::Unlabel { key } => {
                n.labels.remove(key);
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
enum Op {
    Apply(String),
    ScaleGet {
        workload: String,
        replicas: u32,
    },
    ScaleUpdate,
    /// `kubectl cordon`, `uncordon` or `taint`: read the Node, then write it changed.
    NodeGet {
        node: String,
        host: HostId,
        change: NodeEdit,
    },
    NodeUpdate {
        host: HostId,
        change: NodeEdit,
    },
    PodGet {
        pod: String,
        force: bool,
    },
    PodDelete {
        pod: String,
        node: String,
        workload: String,
        force: bool,
    },
    /// A drain: read the Node, cordon it, list its pods (to evict them, then until none is left).
    DrainGetNode {
        node: String,
    },
    DrainCordon {
        node: String,
    },
    DrainList {
        node: String,
    },
    /// One pod's eviction through the Eviction API.
    Evict {
        node: String,
        pod: String,
        workload: String,
    },
}

/// `kubectl drain --ignore-daemonsets` of one node in progress (also what a spot instance's node
/// termination handler does on its notice).
#[derive(Clone, Debug)]
struct Drain {
    node: String,
    host: HostId,
    /// A scenario's `drain` is an operation, recorded when it ends; a spot notice's is not.
    operation: bool,
    /// The pods of its first list: kubectl evicts those and waits for them, never for pods
    /// that land on the node later (after an uncordon).
    pods: Vec<Evictee>,
    listed: bool,
    /// Waiting for the evicted pods to be gone: the next look at the node's pods.
    next_list: Option<SimTime>,
}

/// One pod a drain evicts.
#[derive(Clone, Debug)]
struct Evictee {
    pod: String,
    /// Its object's create revision: its identity (the UID kubectl waits on).
    created: u64,
    workload: String,
    /// When to try next; `None`: an eviction in flight, or done.
    due: Option<SimTime>,
    /// The Eviction API let it go: waited for, never evicted again.
    done: bool,
    /// The last refusal's words: a refusal is an event when its words change.
    refused: Option<std::sync::Arc<str>>,
}

impl Drain {
    fn pending(&self) -> bool {
        self.pods.iter().any(|e| !e.done)
    }
    fn pod(&mut self, pod: &str) -> Option<&mut Evictee> {
        self.pods.iter_mut().find(|e| e.pod == pod)
    }
}

#[derive(Clone)]
pub struct Operator {
    client: ApiClient<Op>,
    /// Manifests not yet applied, by key.
    manifests: MemberMap<String, Value>,
    /// Drains in progress.
    drains: Vec<Drain>,
    /// The drains' next step.
    wake: Alarm,
}

impl Operator {
    pub fn new(me: Addr, api: Addr, manifests: Vec<(String, Value)>) -> Self {
        let mut by_key = MemberMap::default();
        for (key, value) in manifests {
            by_key.insert(key, value);
        }
        Operator {
            client: ApiClient::new(me, api),
            manifests: by_key,
            drains: Vec::new(),
            wake: Alarm::default(),
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        self.on_tick(ctx);
    }

    pub fn on_tick(&mut self, ctx: &mut Ctx) {
        if self.manifests.is_empty() {
            return;
        }
        if self.client.in_flight() == 0 {
            for (key, value) in &self.manifests {
                // Created as of this attempt.
                let value = match (value.as_workload(), value.as_pdb()) {
                    (Some(w), _) => Arc::new(Object::Workload(Workload {
                        created: ctx.now,
                        ..w.clone()
                    })),
                    (_, Some(b)) => Arc::new(Object::PodDisruptionBudget(PodDisruptionBudget {
                        created: ctx.now,
                        ..b.clone()
                    })),
                    _ => value.clone(),
                };
                let req = ApiRequest::Create {
                    key: key.as_str().into(),
                    value,
                };
                self.client
                    .send(ctx, req, Op::Apply(key.clone()), REQUEST_TIMEOUT);
            }
        }
        ctx.set_timer(Port::OPERATOR, RETRY, Timer::Housekeeping);
    }

    pub fn scale(&mut self, ctx: &mut Ctx, workload: &str, replicas: u32) {
        let req = ApiRequest::Get {
            key: workload_key(workload).into(),
        };
        self.client.send(
            ctx,
            req,
            Op::ScaleGet {
                workload: workload.to_string(),
                replicas,
            },
            REQUEST_TIMEOUT,
        );
    }

    /// Cordons or uncordons a Node (its `unschedulable` mark, a NoSchedule taint), or adds or
    /// removes an operator's taint.
    pub fn edit_node(&mut self, ctx: &mut Ctx, node: &str, host: HostId, change: NodeEdit) {
        let req = ApiRequest::Get {
            key: node_key(node).into(),
        };
        let op = Op::NodeGet {
            node: node.to_string(),
            host,
            change,
        };
        self.client.send(ctx, req, op, REQUEST_TIMEOUT);
    }

    pub fn delete_pod(&mut self, ctx: &mut Ctx, pod: &str, force: bool) {
        let req = ApiRequest::Get {
            key: pod_key(pod).into(),
        };
        self.client.send(
            ctx,
            req,
            Op::PodGet {
                pod: pod.to_string(),
                force,
            },
            REQUEST_TIMEOUT,
        );
    }

    /// `kubectl drain --ignore-daemonsets NODE` (`operation`: a scenario's or the console's,
    /// recorded when it ends), or a spot notice's node termination handler (not recorded):
    /// cordon, then evict every pod but DaemonSets' through the Eviction API, retrying every
    /// [`EVICTION_RETRY`] while a budget refuses, and wait until the pods are gone.
    pub fn drain(&mut self, ctx: &mut Ctx, node: &str, host: HostId, operation: bool) {
        self.forget_drain(node);
        self.drains.push(Drain {
            node: node.to_string(),
            host,
            operation,
            pods: Vec::new(),
            listed: false,
            next_list: None,
        });
        let req = ApiRequest::Get {
            key: node_key(node).into(),
        };
        let op = Op::DrainGetNode {
            node: node.to_string(),
        };
        self.client.send(ctx, req, op, REQUEST_TIMEOUT);
    }

    /// Whether a drain is in progress (its pods not all gone yet).
    pub fn draining(&self) -> bool {
        !self.drains.is_empty()
    }

    /// The node's host is gone (a spot termination): whatever its drain left dies with it.
    pub fn forget_drain(&mut self, node: &str) {
        self.drains.retain(|d| d.node != node);
    }

    fn drain_of(&mut self, node: &str) -> Option<&mut Drain> {
        self.drains.iter_mut().find(|d| d.node == node)
    }

    /// A drain ends: recorded if it is an operation.
    fn drain_ended(&mut self, ctx: &mut Ctx, node: &str, result: Result<(), String>) {
        if let Some(i) = self.drains.iter().position(|d| d.node == node) {
            let d = self.drains.remove(i);
            if d.operation {
                ctx.obs.operation(ctx.now, "drain", Some(d.host), result);
            }
        }
    }

    /// kubectl's list of the node's pods has no resourceVersion: a consistent read, not the
    /// watch cache (which may not show an eviction yet). The node's pods are picked out here.
    fn list_node(&mut self, ctx: &mut Ctx, node: &str) {
        let req = ApiRequest::ListConsistent {
            prefix: PODS.to_string(),
        };
        let op = Op::DrainList {
            node: node.to_string(),
        };
        self.client.send(ctx, req, op, REQUEST_TIMEOUT);
    }

    /// The drains' alarm rang: the evictions and looks that are due.
    pub fn on_wake(&mut self, ctx: &mut Ctx) {
        self.wake.rang(ctx.now);
        let mut evictions = Vec::new();
        let mut lists = Vec::new();
        for d in &mut self.drains {
            for e in &mut d.pods {
                if e.due.is_some_and(|t| t <= ctx.now) {
                    e.due = None;
                    evictions.push((d.node.clone(), e.pod.clone(), e.workload.clone()));
                }
            }
            if d.next_list.is_some_and(|t| t <= ctx.now) {
                d.next_list = None;
                lists.push(d.node.clone());
            }
        }
        for (node, pod, workload) in evictions {
            let req = ApiRequest::Evict {
                key: pod_key(&pod).into(),
            };
            let op = Op::Evict {
                node,
                pod,
                workload,
            };
            self.client.send(ctx, req, op, REQUEST_TIMEOUT);
        }
        for node in lists {
            self.list_node(ctx, &node);
        }
        self.set_wake(ctx);
    }

    fn set_wake(&mut self, ctx: &mut Ctx) {
        let due = self
            .drains
            .iter()
            .flat_map(|d| d.pods.iter().filter_map(|e| e.due).chain(d.next_list))
            .min();
        if let Some(at) = due {
            self.wake.request(ctx, Port::OPERATOR, at, Timer::Wake);
        }
    }

    /// The node's pods, listed: the first time, the ones to evict (all but DaemonSets') are
    /// due now; once none of them is left, the drain is done; while evicted ones still
    /// terminate, look again in a second.
    fn on_drain_list(&mut self, ctx: &mut Ctx, node: &str, items: Vec<(Key, KeyValue)>) {
        let now = ctx.now;
        let Some(d) = self.drain_of(node) else {
            return;
        };
        let mut left = false;
        for (_, kv) in &items {
            let Some(p) = kv.value.as_pod() else {
                continue;
            };
            if p.tolerates_everything() || p.node.as_deref() != Some(node) {
                continue;
            }
            let listed = d.listed;
            match d.pod(&p.name) {
                // A pod of that name created since is another one (kubectl compares UIDs).
                Some(e) => left |= e.created == kv.create_revision,
                None if !listed => {
                    left = true;
                    let terminating = p.deletion.is_some();
                    d.pods.push(Evictee {
                        pod: p.name.clone(),
                        created: kv.create_revision,
                        workload: p.workload.clone(),
                        due: (!terminating).then_some(now),
                        done: terminating,
                        refused: None,
                    });
                }
                None => {}
            }
        }
        d.listed = true;
        if !left {
            self.drain_ended(ctx, node, Ok(()));
            return;
        }
        if !d.pending() {
            d.next_list = Some(now + DELETE_POLL);
        }
        self.on_wake(ctx);
    }

    /// An eviction's answer: done, refused by a budget (retried), or an error that ends the
    /// drain as kubectl's does.
    fn on_evicted(
        &mut self,
        ctx: &mut Ctx,
        node: &str,
        pod: &str,
        workload: &str,
        resp: ApiResponse,
    ) {
        let now = ctx.now;
        let Some(d) = self.drain_of(node) else {
            return;
        };
        let operation = d.operation;
        let Some(e) = d.pod(pod) else {
            return;
        };
        match resp {
            ApiResponse::Written { .. } | ApiResponse::Object(None) => {
                let first = !e.done;
                (e.done, e.due, e.refused) = (true, None, None);
                if matches!(resp, ApiResponse::Written { .. }) && first {
                    let why = if operation {
                        "kubectl drain"
                    } else {
                        "the spot instance's node termination handler"
                    };
                    let text = format!("{pod} was evicted from {node} through the Eviction API ({why}): its disruption budget allowed it");
                    ctx.obs
                        .pod_event(ctx.now, PodChange::EvictedByApi, pod, node, workload, text);
                }
                if !self.drain_of(node).is_some_and(|d| d.pending()) {
                    self.list_node(ctx, node);
                }
            }
            ApiResponse::TooManyRequests(why) => {
                e.due = Some(now + EVICTION_RETRY);
                if e.refused.as_deref() != Some(&*why) {
                    e.refused = Some(why.clone());
                    ctx.obs.eviction_refused(now, pod, workload, &why);
                }
                self.set_wake(ctx);
            }
            ApiResponse::Failed(why) => {
                let why = format!("error when evicting pods/\"{pod}\": {why}");
                self.drain_ended(ctx, node, Err(why));
            }
            _ => {
                let why = format!("error when evicting pods/\"{pod}\": unexpected answer");
                self.drain_ended(ctx, node, Err(why));
            }
        }
    }

    /// Its client's check timer fired.
    pub fn on_timeout(&mut self, ctx: &mut Ctx) {
        for op in self.client.expired(ctx) {
            self.fail(ctx, &op, "the API did not answer");
        }
    }

    fn fail(&mut self, ctx: &mut Ctx, op: &Op, reason: &str) {
        let action = match op {
            Op::Apply(_) => return,
            Op::DrainGetNode { node } | Op::DrainCordon { node } | Op::DrainList { node } => {
                let node = node.clone();
                self.drain_ended(ctx, &node, Err(reason.to_string()));
                return;
            }
            Op::Evict { node, pod, .. } => {
                let (node, why) = (
                    node.clone(),
                    format!("error when evicting pods/\"{pod}\": {reason}"),
                );
                self.drain_ended(ctx, &node, Err(why));
                return;
            }
            Op::ScaleGet { .. } | Op::ScaleUpdate => "scale",
            Op::PodGet { .. } | Op::PodDelete { .. } => "delete_pod",
            Op::NodeGet { host, change, .. } | Op::NodeUpdate { host, change } => {
                ctx.obs.operation(
                    ctx.now,
                    change.action(),
                    Some(*host),
                    Err(reason.to_string()),
                );
                return;
            }
        };
        ctx.obs
            .operation(ctx.now, action, None, Err(reason.to_string()));
    }

    /// An answer of the API to one of the operator's requests: the next step of what it is
    /// doing (a get answered goes on to its update), or how the action ended.
    pub fn on_api(&mut self, ctx: &mut Ctx, msg: ApiPayload) {
        let ApiPayload::Response { id, resp, .. } = msg else {
            return;
        };
        let Some(op) = self.client.answered(id, ctx.now) else {
            return;
        };
        let not_found = |what: &str| Err(format!("{what} not found"));
        match (op, resp) {
            (Op::Apply(key), ApiResponse::Written { .. } | ApiResponse::Conflict) => {
                self.manifests.remove(&key);
            }
            (Op::Apply(_), _) => {}
            (Op::ScaleGet { workload, replicas }, ApiResponse::Object(Some(kv))) => {
                self.scale_to(ctx, &workload, replicas, kv)
            }
            (Op::ScaleGet { workload, .. }, ApiResponse::Object(None)) => {
                let why = not_found(&format!("workload {workload}"));
                ctx.obs.operation(ctx.now, "scale", None, why);
            }
            (Op::ScaleUpdate, ApiResponse::Written { .. }) => {
                ctx.obs.operation(ctx.now, "scale", None, Ok(()))
            }
            (Op::PodGet { pod, force }, ApiResponse::Object(Some(kv))) => {
                self.delete_pod_read(ctx, pod, force, kv)
            }
            (Op::PodGet { pod, .. }, ApiResponse::Object(None)) => {
                let why = not_found(&format!("pod {pod}"));
                ctx.obs.operation(ctx.now, "delete_pod", None, why);
            }
            (op @ Op::PodDelete { .. }, ApiResponse::Written { .. }) => Self::pod_deleted(ctx, op),
            (Op::DrainGetNode { node }, ApiResponse::Object(Some(kv))) => {
                self.cordon_for_drain(ctx, node, kv)
            }
            (Op::DrainGetNode { node }, ApiResponse::Object(None)) => {
                let why = format!("nodes \"{node}\" not found");
                self.drain_ended(ctx, &node, Err(why));
            }
            (Op::DrainCordon { node }, ApiResponse::Written { .. }) => self.list_node(ctx, &node),
            (Op::DrainList { node }, ApiResponse::List { items }) => {
                self.on_drain_list(ctx, &node, items)
            }
            (
                Op::Evict {
                    node,
                    pod,
                    workload,
                },
                resp,
            ) => self.on_evicted(ctx, &node, &pod, &workload, resp),
            (Op::NodeGet { node, host, change }, ApiResponse::Object(Some(kv))) => {
                self.edit_node_read(ctx, node, host, change, kv)
            }
            (Op::NodeGet { node, host, change }, ApiResponse::Object(None)) => {
                let why = not_found(&format!("node {node}"));
                ctx.obs.operation(ctx.now, change.action(), Some(host), why);
            }
            (Op::NodeUpdate { host, change }, ApiResponse::Written { .. }) => {
                ctx.obs
                    .operation(ctx.now, change.action(), Some(host), Ok(()));
            }
            (op, ApiResponse::Conflict) => {
                self.fail(ctx, &op, "conflict: the object changed meanwhile")
            }
            (op, ApiResponse::Failed(why)) => self.fail(ctx, &op, why),
            (op, _) => self.fail(ctx, &op, "unexpected answer"),
        }
    }

    /// `kubectl scale`'s update, of the workload as read.
    fn scale_to(&mut self, ctx: &mut Ctx, workload: &str, replicas: u32, kv: KeyValue) {
        let Some(mut w) = kv.value.as_workload().cloned() else {
            return;
        };
        w.replicas = replicas;
        let req = ApiRequest::Update {
            key: workload_key(workload).into(),
            value: Arc::new(Object::Workload(w)),
            resource_version: kv.mod_revision,
        };
        self.client.send(ctx, req, Op::ScaleUpdate, REQUEST_TIMEOUT);
    }

    /// `kubectl delete pod`, of the pod as read: marked for deletion (the kubelet stops it and
    /// confirms), or with `--force` deleted at once.
    fn delete_pod_read(&mut self, ctx: &mut Ctx, pod: String, force: bool, kv: KeyValue) {
        let Some(mut p) = kv.value.as_pod().cloned() else {
            return;
        };
        let (node, workload) = (p.node.clone().unwrap_or_default(), p.workload.clone());
        let req = if force {
            ApiRequest::Delete {
                key: pod_key(&pod).into(),
                resource_version: kv.mod_revision,
            }
        } else {
            p.deletion = Some(ctx.now);
            ApiRequest::Update {
                key: pod_key(&pod).into(),
                value: Arc::new(Object::Pod(p)),
                resource_version: kv.mod_revision,
            }
        };
        let op = Op::PodDelete {
            pod,
            node,
            workload,
            force,
        };
        self.client.send(ctx, req, op, REQUEST_TIMEOUT);
    }

    fn pod_deleted(ctx: &mut Ctx, op: Op) {
        let Op::PodDelete {
            pod,
            node,
            workload,
            force,
        } = op
        else {
            return;
        };
        ctx.obs.operation(ctx.now, "delete_pod", None, Ok(()));
        let how = if force {
            "force-deleted by the operator: the object is gone without waiting for the kubelet"
        } else {
            "deleted by the operator: the kubelet stops it and confirms"
        };
        let text = format!("{pod} was {how}");
        ctx.obs
            .pod_event(ctx.now, PodChange::Deleted, &pod, &node, &workload, text);
    }

    /// A drain's first step: the node as read, cordoned.
    fn cordon_for_drain(&mut self, ctx: &mut Ctx, node: String, kv: KeyValue) {
        let Some(mut n) = kv.value.as_node().cloned() else {
            return;
        };
        n.set_unschedulable(true, ctx.now);
        let req = ApiRequest::Update {
            key: node_key(&node).into(),
            value: Arc::new(Object::Node(n)),
            resource_version: kv.mod_revision,
        };
        self.client
            .send(ctx, req, Op::DrainCordon { node }, REQUEST_TIMEOUT);
    }

    /// A change of a node (cordon, taint, label, …) to the node as read, unless it refuses.
    fn edit_node_read(
        &mut self,
        ctx: &mut Ctx,
        node: String,
        host: HostId,
        change: NodeEdit,
        kv: KeyValue,
    ) {
        let Some(mut n) = kv.value.as_node().cloned() else {
            return;
        };
        if let Err(why) = change.apply(&mut n, ctx.now) {
            ctx.obs
                .operation(ctx.now, change.action(), Some(host), Err(why));
            return;
        }
        let req = ApiRequest::Update {
            key: node_key(&node).into(),
            value: Arc::new(Object::Node(n)),
            resource_version: kv.mod_revision,
        };
        let op = Op::NodeUpdate { host, change };
        self.client.send(ctx, req, op, REQUEST_TIMEOUT);
    }
}

impl SelfTimed for Operator {
    /// Not while a drain is under way: its next eviction is on its way.
    fn quiet(&self, _: &Stand) -> Quiet {
        Quiet::when(!self.draining())
    }

    /// A drain is never skipped over (see `quiet`); scenario actions keep their times.
    fn skipped(&mut self, _: Duration, _: &Stand) {}
}
