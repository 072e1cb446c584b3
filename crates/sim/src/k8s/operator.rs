//! The operator at a terminal: `kubectl apply` of the scenario's workloads before t = 0,
//! then the scenario's API actions (`scale`, `delete_pod`), each one attempt through the
//! API endpoint, recorded as an operation that succeeded or failed with its reason.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse};
use crate::k8s::client::ApiClient;
use crate::k8s::objects::{node_key, pod_key, workload_key, Object, Workload, PODS};
use crate::k8s::observe::PodChange;
use crate::k8s::wire::Ctx;
use crate::k8s::wire::Value;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port, Timer};
use crate::kernel::time::Duration;
use std::collections::BTreeMap;
use std::sync::Arc;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const RETRY: Duration = Duration::from_secs(1);

#[derive(Clone, Debug)]
enum Op {
    Apply(String),
    ScaleGet {
        workload: String,
        replicas: u32,
    },
    ScaleUpdate,
    /// `kubectl cordon` (`on`) or `uncordon`: read the Node, then write it.
    CordonGet {
        node: String,
        host: HostId,
        on: bool,
    },
    CordonUpdate {
        host: HostId,
        on: bool,
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
    /// The node termination handler on a spot notice: cordon, then evict every pod but DaemonSets'.
    DrainGetNode {
        node: String,
    },
    DrainCordon,
    DrainList {
        node: String,
    },
    DrainEvict,
}

#[derive(Clone)]
pub struct Operator {
    client: ApiClient<Op>,
    /// Manifests not yet applied, by key.
    manifests: BTreeMap<String, Value>,
}

impl Operator {
    pub fn new(me: Addr, api: Addr, manifests: Vec<(String, Value)>) -> Self {
        let mut by_name = BTreeMap::new();
        by_name.extend(manifests);
        Operator {
            client: ApiClient::new(me, api),
            manifests: by_name,
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
                let value = match value.as_workload() {
                    Some(w) => Arc::new(Object::Workload(Workload {
                        created: ctx.now,
                        ..w.clone()
                    })),
                    None => value.clone(),
                };
                let req = ApiRequest::Create {
                    key: key.as_str().into(),
                    value,
                };
                self.client
                    .send(ctx, req, Op::Apply(key.clone()), REQUEST_TIMEOUT);
            }
        }
        ctx.set_timer(Port::Operator, RETRY, Timer::Housekeeping);
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

    /// Cordons (`on`) or uncordons a Node: its `unschedulable` mark, a NoSchedule taint.
    pub fn cordon(&mut self, ctx: &mut Ctx, node: &str, host: HostId, on: bool) {
        let req = ApiRequest::Get {
            key: node_key(node).into(),
        };
        let op = Op::CordonGet {
            node: node.to_string(),
            host,
            on,
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

    /// A spot interruption notice: the node termination handler cordons and drains the node.
    pub fn drain(&mut self, ctx: &mut Ctx, node: &str) {
        let req = ApiRequest::Get {
            key: node_key(node).into(),
        };
        self.client.send(
            ctx,
            req,
            Op::DrainGetNode {
                node: node.to_string(),
            },
            REQUEST_TIMEOUT,
        );
        let req = ApiRequest::List {
            prefix: PODS.to_string(),
            node: Some(node.to_string()),
        };
        self.client.send(
            ctx,
            req,
            Op::DrainList {
                node: node.to_string(),
            },
            REQUEST_TIMEOUT,
        );
    }

    /// Its client's check timer fired.
    pub fn on_timeout(&mut self, ctx: &mut Ctx) {
        for op in self.client.expired(ctx) {
            self.fail(ctx, &op, "the API did not answer");
        }
    }

    fn fail(&mut self, ctx: &mut Ctx, op: &Op, reason: &str) {
        let action = match op {
            Op::Apply(_)
            | Op::DrainEvict
            | Op::DrainCordon
            | Op::DrainGetNode { .. }
            | Op::DrainList { .. } => return,
            Op::ScaleGet { .. } | Op::ScaleUpdate => "scale",
            Op::PodGet { .. } | Op::PodDelete { .. } => "delete_pod",
            Op::CordonGet { host, on, .. } | Op::CordonUpdate { host, on, .. } => {
                let action = if *on { "cordon" } else { "uncordon" };
                ctx.obs
                    .operation(ctx.now, action, Some(*host), Err(reason.to_string()));
                return;
            }
        };
        ctx.obs
            .operation(ctx.now, action, None, Err(reason.to_string()));
    }

    pub fn on_api(&mut self, ctx: &mut Ctx, msg: ApiPayload) {
        let ApiPayload::Response { id, resp, .. } = msg else {
            return;
        };
        let Some(op) = self.client.answered(id, ctx.now) else {
            return;
        };
        match (op, resp) {
            (Op::Apply(key), ApiResponse::Written { .. } | ApiResponse::Conflict) => {
                self.manifests.remove(&key);
            }
            (Op::Apply(_), _) => {}
            (Op::ScaleGet { workload, replicas }, ApiResponse::Object(Some(kv))) => {
                let Some(mut w) = kv.value.as_workload().cloned() else {
                    return;
                };
                w.replicas = replicas;
                let req = ApiRequest::Update {
                    key: workload_key(&workload).into(),
                    value: Arc::new(Object::Workload(w)),
                    resource_version: kv.mod_revision,
                };
                self.client.send(ctx, req, Op::ScaleUpdate, REQUEST_TIMEOUT);
            }
            (Op::PodGet { pod, force }, ApiResponse::Object(Some(kv))) => {
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
                self.client.send(
                    ctx,
                    req,
                    Op::PodDelete {
                        pod,
                        node,
                        workload,
                        force,
                    },
                    REQUEST_TIMEOUT,
                );
            }
            (Op::PodGet { pod, .. }, ApiResponse::Object(None)) => {
                ctx.obs.operation(
                    ctx.now,
                    "delete_pod",
                    None,
                    Err(format!("pod {pod} not found")),
                );
            }
            (Op::ScaleGet { workload, .. }, ApiResponse::Object(None)) => {
                ctx.obs.operation(
                    ctx.now,
                    "scale",
                    None,
                    Err(format!("workload {workload} not found")),
                );
            }
            (Op::DrainGetNode { node }, ApiResponse::Object(Some(kv))) => {
                let Some(mut n) = kv.value.as_node().cloned() else {
                    return;
                };
                n.set_unschedulable(true, ctx.now);
                let req = ApiRequest::Update {
                    key: node_key(&node).into(),
                    value: Arc::new(Object::Node(n)),
                    resource_version: kv.mod_revision,
                };
                self.client.send(ctx, req, Op::DrainCordon, REQUEST_TIMEOUT);
            }
            (Op::DrainList { node }, ApiResponse::List { items }) => {
                for (key, kv) in items {
                    let Some(mut p) = kv.value.as_pod().cloned() else {
                        continue;
                    };
                    if p.tolerates_everything() || p.deletion.is_some() {
                        continue;
                    }
                    p.deletion = Some(ctx.now);
                    let text = format!("{} was evicted from {node}: the node is drained before its spot instance is reclaimed", p.name);
                    ctx.obs.pod_event(
                        ctx.now,
                        PodChange::Evicted,
                        &p.name,
                        &node,
                        &p.workload,
                        text,
                    );
                    let req = ApiRequest::Update {
                        key,
                        value: Arc::new(Object::Pod(p)),
                        resource_version: kv.mod_revision,
                    };
                    self.client.send(ctx, req, Op::DrainEvict, REQUEST_TIMEOUT);
                }
            }
            (
                Op::DrainCordon | Op::DrainEvict | Op::DrainGetNode { .. } | Op::DrainList { .. },
                _,
            ) => {}
            (Op::ScaleUpdate, ApiResponse::Written { .. }) => {
                ctx.obs.operation(ctx.now, "scale", None, Ok(()))
            }
            (Op::CordonGet { node, host, on }, ApiResponse::Object(Some(kv))) => {
                let Some(mut n) = kv.value.as_node().cloned() else {
                    return;
                };
                n.set_unschedulable(on, ctx.now);
                let req = ApiRequest::Update {
                    key: node_key(&node).into(),
                    value: Arc::new(Object::Node(n)),
                    resource_version: kv.mod_revision,
                };
                let op = Op::CordonUpdate { host, on };
                self.client.send(ctx, req, op, REQUEST_TIMEOUT);
            }
            (Op::CordonGet { node, host, on }, ApiResponse::Object(None)) => {
                let action = if on { "cordon" } else { "uncordon" };
                let why = format!("node {node} not found");
                ctx.obs.operation(ctx.now, action, Some(host), Err(why));
            }
            (Op::CordonUpdate { host, on, .. }, ApiResponse::Written { .. }) => {
                let action = if on { "cordon" } else { "uncordon" };
                ctx.obs.operation(ctx.now, action, Some(host), Ok(()));
            }
            (
                Op::PodDelete {
                    pod,
                    node,
                    workload,
                    force,
                },
                ApiResponse::Written { .. },
            ) => {
                ctx.obs.operation(ctx.now, "delete_pod", None, Ok(()));
                let how = if force {
                    "force-deleted by the operator: the object is gone without waiting for the kubelet"
                } else {
                    "deleted by the operator: the kubelet stops it and confirms"
                };
                ctx.obs.pod_event(
                    ctx.now,
                    PodChange::Deleted,
                    &pod,
                    &node,
                    &workload,
                    format!("{pod} was {how}"),
                );
            }
            (op, ApiResponse::Conflict) => {
                self.fail(ctx, &op, "conflict: the object changed meanwhile")
            }
            (op, ApiResponse::Failed(why)) => self.fail(ctx, &op, why),
            (op, _) => self.fail(ctx, &op, "unexpected answer"),
        }
    }
}
