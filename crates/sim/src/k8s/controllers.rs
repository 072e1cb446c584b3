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
//!   the taint was added; DaemonSet pods tolerate it forever.
//! - ReplicaSet (Deployments): counts pods without a deletion timestamp and creates or
//!   deletes to match `replicas`: at-least semantics, duplicates while evicted pods still run.
//! - StatefulSet: one pod per ordinal, recreated only once the old object is gone.
//! - DaemonSet: one pod per node, bound directly.
//! - EndpointSlices: the ready pods of each Service.
//!
//! Left out: ReplicaSet revisions and rollouts, pod disruption budgets, garbage collection.

use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse};
use crate::k8s::client::ApiClient;
use crate::k8s::informer::Informer;
use crate::k8s::leading::{Work, WORK};
use crate::k8s::objects::{
    name_of, node_key, pod_key, slice_key, Condition, Effect, Endpoint, EndpointSlice, Kind, Node,
    Object, Pod, Taint, TaintKey, ENDPOINT_SLICES, NODES, NODE_LEASES, PODS, WORKLOADS,
};
use crate::k8s::observe::{NodeChange, PodChange};
use crate::k8s::wire::Ctx;
use crate::k8s::wire::{Key, KeyValue};
use crate::kernel::keymap::Slot;
use crate::kernel::process::{Addr, Sub};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// `--node-eviction-rate`: nodes tainted per second in a zone.
const EVICTION_RATE: f64 = 0.1;
/// `--secondary-node-eviction-rate`, for partially disrupted zones larger than
/// `--large-cluster-size-threshold` (50 nodes).
const SECONDARY_EVICTION_RATE: f64 = 0.01;
const LARGE_ZONE: usize = 50;
/// `--unhealthy-zone-threshold`
const UNHEALTHY_ZONE: f64 = 0.55;

#[derive(Clone, Copy, Debug)]
pub struct NodeTimings {
    pub node_monitor_period: Duration,
    pub node_monitor_grace_period: Duration,
    pub toleration_seconds: Duration,
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
    client: ApiClient<Key>,
    nodes: Informer,
    leases: Informer,
    pods: Informer,
    workloads: Informer,
    slices: Informer,
    /// Node lifecycle: what it knows of each node (see [`NodeTable`]).
    node_table: NodeTable,
    /// Probe times of nodes no longer in the table (a node that comes back keeps them).
    probe: BTreeMap<String, (u64, SimTime)>,
    /// Per zone: tainting tokens and when they were last refilled.
    tokens: BTreeMap<String, (f64, SimTime)>,
    last_monitor: SimTime,
    /// Keys with a write in flight (one at a time per object).
    busy: BTreeSet<Key>,
    /// Pods created and not yet seen by the informer (client-go's "expectations").
    expected: BTreeSet<String>,
    /// Per Service: its endpoints' change count and its slice's resourceVersion when the slice
    /// was last found up to date (while both stay so, the slice needs no look).
    slices_checked: BTreeMap<String, (u64, u64)>,
    /// Something changed since the last workload and endpoint pass (controllers are event-driven).
    dirty: bool,
    /// The NoExecute taint times of the nodes, kept until the node informer sees a change
    /// (taint eviction looks at them on every pass).
    taint_times: Option<BTreeMap<String, SimTime>>,
    rng: Rng,
}

/// The node lifecycle controller's view of the nodes, one row per node in name order.
///
/// Every `node_monitor_period` it needs each node's lease version and, for a few nodes, the
/// node. Rows remember where both wait in the caches (slots hold their keys until a key is
/// added or removed, see [`crate::kernel::keymap::KeyMap::layout`]), so a pass over a thousand nodes
/// reads two resourceVersions per node instead of seeking every name in two ordered maps.
#[derive(Clone, Default)]
struct NodeTable {
    /// The layouts of the node and lease caches the rows were made for.
    layouts: (u64, u64),
    rows: Vec<NodeHealth>,
    /// The zones of the nodes, in name order (rows refer to them by position).
    zones: Vec<String>,
}

#[derive(Clone)]
struct NodeHealth {
    name: String,
    node_slot: Slot,
    lease_slot: Option<Slot>,
    zone: usize,
    /// The node's resourceVersion when `ready` and `tainted` were read.
    node_rv: u64,
    ready: Condition,
    tainted: bool,
    /// probeTimestamp: the lease's resourceVersion last seen, and when (None: not yet seen).
    probe: Option<(u64, SimTime)>,
}

impl NodeHealth {
    fn read(&mut self, n: &Node, rv: u64) {
        self.node_rv = rv;
        self.ready = n.ready;
        self.tainted = n.has_taint(TaintKey::Unreachable);
    }
}

impl Controllers {
    /// Fresh controllers (a new leader), their clients at sub-addresses from `base` on.
    pub fn new(
        me: Addr,
        api: Addr,
        timings: NodeTimings,
        rng: Rng,
        now: SimTime,
        base: Sub,
    ) -> Self {
        let informer = |prefix: &str, k: u32| Informer::new(prefix, None, me, api, Sub(base.0 + k));
        Controllers {
            timings,
            client: ApiClient::at(me, api, base),
            nodes: informer(NODES, 1),
            leases: informer(NODE_LEASES, 2),
            pods: informer(PODS, 3).counting_pods(),
            workloads: informer(WORKLOADS, 4),
            slices: informer(ENDPOINT_SLICES, 5),
            node_table: NodeTable::default(),
            probe: BTreeMap::new(),
            tokens: BTreeMap::new(),
            last_monitor: now,
            busy: BTreeSet::new(),
            expected: BTreeSet::new(),
            slices_checked: BTreeMap::new(),
            dirty: true,
            taint_times: None,
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

    fn write(&mut self, ctx: &mut Ctx, req: ApiRequest) {
        let key = match &req {
            ApiRequest::Create { key, .. }
            | ApiRequest::Update { key, .. }
            | ApiRequest::Put { key, .. }
            | ApiRequest::Delete { key, .. } => key.clone(),
            _ => return,
        };
        if self.busy.insert(key.clone()) {
            self.client.send(ctx, req, key, REQUEST_TIMEOUT);
        }
    }

    // ---- node lifecycle -----------------------------------------------------------

    /// Brings the node table up to date: rebuilt when a node or a lease was added or removed,
    /// otherwise each row re-reads its node only if the node's resourceVersion moved.
    fn refresh_node_table(&mut self) {
        let (nodes, leases) = (self.nodes.items(), self.leases.items());
        let layouts = (nodes.layout(), leases.layout());
        let table = &mut self.node_table;
        let mut fresh = table.layouts == layouts;
        if fresh {
            for row in &mut table.rows {
                let kv = nodes.at(row.node_slot);
                if kv.mod_revision == row.node_rv {
                    continue;
                }
                match kv.value.as_node() {
                    Some(n) if n.zone == table.zones[row.zone] => row.read(n, kv.mod_revision),
                    _ => fresh = false,
                }
            }
        }
        if fresh {
            return;
        }
        // Probe times outlive the rows: a node that comes back keeps what was seen of it.
        for row in table.rows.drain(..) {
            if let Some(probe) = row.probe {
                self.probe.insert(row.name, probe);
            }
        }
        let listed: Vec<(&Node, u64, Slot)> = nodes
            .slots()
            .filter_map(|(_, slot)| {
                let kv = nodes.at(slot);
                Some((kv.value.as_node()?, kv.mod_revision, slot))
            })
            .collect();
        let mut zones: BTreeMap<&str, usize> =
            listed.iter().map(|(n, ..)| (n.zone.as_str(), 0)).collect();
        for (i, position) in zones.values_mut().enumerate() {
            *position = i;
        }
        table.zones = zones.keys().map(|z| z.to_string()).collect();
        table.layouts = layouts;
        table.rows = listed
            .into_iter()
            .map(|(n, rv, node_slot)| {
                let mut row = NodeHealth {
                    name: n.name.clone(),
                    node_slot,
                    lease_slot: leases.slot(&format!("{NODE_LEASES}{}", n.name)),
                    zone: zones[n.zone.as_str()],
                    node_rv: rv,
                    ready: n.ready,
                    tainted: false,
                    probe: self.probe.get(&n.name).copied(),
                };
                row.read(n, rv);
                row
            })
            .collect();
    }

    fn monitor_nodes(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let grace = self.timings.node_monitor_grace_period;
        self.refresh_node_table();
        let leases = self.leases.items();
        let rows = &mut self.node_table.rows;
        // probeTimestamp: when this controller saw each node's lease change (a node seen for
        // the first time starts at now).
        let silent: Vec<bool> = rows
            .iter_mut()
            .map(|row| {
                let lease_rv = row.lease_slot.map_or(0, |s| leases.at(s).mod_revision);
                match &mut row.probe {
                    Some(probe) => {
                        if probe.0 != lease_rv {
                            *probe = (lease_rv, now);
                        }
                        now - probe.1 > grace
                    }
                    None => {
                        row.probe = Some((lease_rv, now));
                        false
                    }
                }
            })
            .collect();
        let rows = &self.node_table.rows;
        // Zone states, from what the controller believes (silent nodes count as not ready).
        let not_ready: Vec<bool> = rows
            .iter()
            .zip(&silent)
            .map(|(row, &s)| s || row.ready != Condition::True)
            .collect();
        // Per zone of the table: nodes, and nodes not ready.
        let mut zones = vec![(0usize, 0usize); self.node_table.zones.len()];
        for (row, &nr) in rows.iter().zip(&not_ready) {
            let z = &mut zones[row.zone];
            z.0 += 1;
            z.1 += usize::from(nr);
        }
        let state = |(total, not_ready): (usize, usize)| {
            if not_ready == total {
                ZoneState::Full
            } else if not_ready > 2 && not_ready as f64 / total as f64 >= UNHEALTHY_ZONE {
                ZoneState::Partial
            } else {
                ZoneState::Normal
            }
        };
        let all_full = !zones.is_empty() && zones.iter().all(|&z| state(z) == ZoneState::Full);
        let (tokens, zone_names) = (&mut self.tokens, &self.node_table.zones);
        let mut take_token = |zone: usize| {
            let z = zones[zone];
            take_token(tokens, &zone_names[zone], state(z), z.0, now)
        };
        let nodes = self.nodes.items();
        // A copy of the node to write, and the resourceVersion it has.
        let node_of = |row: &NodeHealth| {
            let kv = nodes.at(row.node_slot);
            let node = kv.value.as_node().expect("a row's slot holds its node");
            (node.clone(), kv.mod_revision)
        };
        // Decided in node order, written below once the cache is no longer borrowed.
        let mut writes = Vec::new();
        for (row, &silent) in rows.iter().zip(&silent) {
            let tainted = row.tainted;
            if silent {
                if row.ready != Condition::Unknown {
                    let (mut n, rv) = node_of(row);
                    n.ready = Condition::Unknown;
                    ctx.obs.node_event(now, NodeChange::NotReady, &n.name, format!(
                        "{} is NotReady (Unknown): the controller-manager has not seen its lease renewed for more than {} s",
                        n.name,
                        grace.as_secs_f64()
                    ));
                    if !all_full && take_token(row.zone) {
                        n.taints.push(Taint {
                            key: TaintKey::Unreachable,
                            effect: Effect::NoExecute,
                            time_added: now,
                        });
                    }
                    writes.push(update_node(n, rv));
                } else if !tainted && !all_full && take_token(row.zone) {
                    let (mut n, rv) = node_of(row);
                    n.taints.push(Taint {
                        key: TaintKey::Unreachable,
                        effect: Effect::NoExecute,
                        time_added: now,
                    });
                    writes.push(update_node(n, rv));
                } else if tainted && all_full {
                    let (mut n, rv) = node_of(row);
                    n.taints.retain(|t| t.key != TaintKey::Unreachable);
                    writes.push(update_node(n, rv));
                }
            } else if row.ready == Condition::True && tainted {
                let (mut n, rv) = node_of(row);
                n.taints.retain(|t| t.key != TaintKey::Unreachable);
                ctx.obs.node_event(
                    now,
                    NodeChange::Ready,
                    &n.name,
                    format!(
                        "{} is Ready again: its kubelet renews its lease and reports Ready",
                        n.name
                    ),
                );
                writes.push(update_node(n, rv));
            }
        }
        // Pods on nodes that are not Ready are not ready either: out of the Service endpoints.
        let mut stale: Vec<(Pod, u64)> = rows
            .iter()
            .zip(&not_ready)
            .filter(|(_, &nr)| nr)
            .flat_map(|(row, _)| self.pods.pods_on(&row.name))
            .filter_map(|kv| kv.value.as_pod().map(|p| (p, kv.mod_revision)))
            .filter(|(p, _)| p.ready)
            .map(|(p, rv)| (p.clone(), rv))
            .collect();
        stale.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        for w in writes {
            self.write(ctx, w);
        }
        for (mut p, rv) in stale {
            p.ready = false;
            self.write(
                ctx,
                ApiRequest::Update {
                    key: pod_key(&p.name).into(),
                    value: Arc::new(Object::Pod(p)),
                    resource_version: rv,
                },
            );
        }
    }

    fn evict_tainted(&mut self, ctx: &mut Ctx) {
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
            self.write(
                ctx,
                ApiRequest::Update {
                    key: pod_key(&p.name).into(),
                    value: Arc::new(Object::Pod(p)),
                    resource_version: rv,
                },
            );
        }
    }

    // ---- workloads ----------------------------------------------------------------

    fn sync_workloads(&mut self, ctx: &mut Ctx) {
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
        let nodes: Vec<&str> = self
            .nodes
            .items()
            .values()
            .filter_map(|kv| kv.value.as_node())
            .map(|n| n.name.as_str())
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
            let create = |expected: &mut BTreeSet<String>, name: String, node| {
                expected.insert(name.clone());
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
                    let prefix = format!("{}-", w.name);
                    let have = active + expected.iter().filter(|n| n.starts_with(&prefix)).count();
                    for _ in have..w.replicas as usize {
                        let name = loop {
                            let n = format!("{}-{:05x}", w.name, self.rng.below(1 << 20));
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
                        extra.sort_by_key(|(p, _)| {
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
                    for node in &nodes {
                        key.truncate(base);
                        key.push_str(node);
                        let name = &key[PODS.len()..];
                        if !pods.contains_key(&key) && !expected.contains(name) {
                            let name = name.to_string();
                            actions.push(create(expected, name, Some(node.to_string())));
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

    fn create_pod(
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
            kind,
            node,
            running: false,
            ready: false,
            deletion: None,
        };
        self.expected.insert(name.clone());
        self.write(
            ctx,
            ApiRequest::Create {
                key: pod_key(&name).into(),
                value: Arc::new(Object::Pod(pod)),
            },
        );
    }

    fn delete_pod(&mut self, ctx: &mut Ctx, pod: &Pod, rv: u64, why: &str) {
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
        self.write(
            ctx,
            ApiRequest::Update {
                key: pod_key(&p.name).into(),
                value: Arc::new(Object::Pod(p)),
                resource_version: rv,
            },
        );
    }

    fn sync_endpoints(&mut self, ctx: &mut Ctx) {
        let services: Vec<String> = self
            .workloads
            .items()
            .values()
            .filter_map(|kv| kv.value.as_workload())
            .filter(|w| w.service)
            .map(|w| w.name.clone())
            .collect();
        let pods = &self.pods;
        // The serving pods of every workload, in one pass over the pods (in key order),
        // made only if some Service's endpoints or slice changed.
        let serving = || {
            let mut serving: BTreeMap<&str, Vec<&Pod>> = BTreeMap::new();
            for p in pods.items().values().filter_map(|kv| kv.value.as_pod()) {
                if p.endpoint_node().is_some() {
                    serving.entry(p.workload.as_str()).or_default().push(p);
                }
            }
            serving
        };
        let mut serving_now = None;
        let mut writes = Vec::new();
        for service in services {
            let key = slice_key(&service);
            let slice = self.slices.items().get(&key);
            let changes = pods
                .endpoint_changes(&service)
                .expect("the pod informer counts");
            let checked = slice.map(|kv| (changes, kv.mod_revision));
            if checked.is_some() && self.slices_checked.get(&service) == checked.as_ref() {
                continue;
            }
            let serving = serving_now.get_or_insert_with(serving);
            let ready = serving.get(service.as_str()).map_or(&[][..], Vec::as_slice);
            let current = slice
                .and_then(|kv| kv.value.as_endpoint_slice())
                .map(|s| &s.endpoints);
            // Compare before building: a slice is rewritten only when its endpoints changed.
            let same = current.is_some_and(|cur| {
                cur.len() == ready.len()
                    && cur
                        .iter()
                        .zip(ready)
                        .all(|(e, p)| e.pod == p.name && Some(&e.node) == p.node.as_ref())
            });
            if same {
                if let Some(checked) = checked {
                    self.slices_checked.insert(service, checked);
                }
            } else {
                let endpoints = ready
                    .iter()
                    .map(|p| Endpoint {
                        pod: p.name.clone(),
                        node: p.node.clone().unwrap_or_default(),
                    })
                    .collect();
                let slice = EndpointSlice {
                    service: service.clone(),
                    endpoints,
                };
                writes.push(ApiRequest::Put {
                    key: key.into(),
                    value: Arc::new(Object::EndpointSlice(slice)),
                });
            }
        }
        for w in writes {
            self.write(ctx, w);
        }
    }
}

/// What a workload pass decided, carried out once the caches are no longer borrowed.
enum Action {
    Create {
        workload: String,
        kind: Kind,
        name: String,
        node: Option<String>,
    },
    /// A pod to delete, its resourceVersion, and why.
    Delete(Pod, u64, &'static str),
}

/// Controllers are made from their addresses, timings and a random stream forked per acquisition.
#[derive(Clone)]
pub struct ControllersSpec {
    pub me: Addr,
    pub api: Addr,
    pub timings: NodeTimings,
    pub rng: Rng,
}

impl Work for Controllers {
    type Spec = ControllersSpec;

    fn fresh(s: &ControllersSpec, ctx: &Ctx) -> Self {
        Controllers::new(
            s.me,
            s.api,
            s.timings,
            s.rng.fork(&ctx.now.0.to_string()),
            ctx.now,
            WORK,
        )
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
    }

    fn on_api(&mut self, ctx: &mut Ctx, msg: &ApiPayload) {
        // Node lease renewals (every 10 s per node) matter only to the node monitor, which
        // samples on its own period: they do not wake the workload controllers.
        if self.leases.on_api(ctx, msg) {
            return;
        }
        if self.nodes.on_api(ctx, msg) {
            self.taint_times = None;
            self.dirty = true;
            return;
        }
        let mut changed = false;
        for i in [&mut self.pods, &mut self.workloads, &mut self.slices] {
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
            if let Some(key) = self.client.answered(*id, ctx.now) {
                self.dirty = true;
                self.busy.remove(&key);
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
        if self.client.owns(sub) {
            for key in self.client.expired(ctx) {
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
        if self.dirty {
            self.dirty = false;
            self.sync_workloads(ctx);
            if self.slices.synced {
                self.sync_endpoints(ctx);
            }
        }
    }
}

/// The zone's rate limiter: may one more node be tainted now?
fn take_token(
    tokens: &mut BTreeMap<String, (f64, SimTime)>,
    zone: &str,
    state: ZoneState,
    size: usize,
    now: SimTime,
) -> bool {
    let rate = match state {
        ZoneState::Normal | ZoneState::Full => EVICTION_RATE,
        ZoneState::Partial if size > LARGE_ZONE => SECONDARY_EVICTION_RATE,
        ZoneState::Partial => 0.0,
    };
    let (tokens, last) = tokens.entry(zone.to_string()).or_insert((1.0, now));
    *tokens = (*tokens + rate * (now - *last).as_secs_f64()).min(1.0);
    *last = now;
    if rate > 0.0 && *tokens >= 1.0 {
        *tokens -= 1.0;
        true
    } else {
        false
    }
}

/// When each node got its `unreachable` or `not-ready` NoExecute taint, if it has one.
fn no_execute_taint_times(nodes: &Informer) -> BTreeMap<String, SimTime> {
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

fn update_node(n: Node, rv: u64) -> ApiRequest {
    ApiRequest::Update {
        key: node_key(&n.name).into(),
        value: Arc::new(Object::Node(n)),
        resource_version: rv,
    }
}
