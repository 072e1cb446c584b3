//! The node lifecycle controller (`monitorNodeHealth`): every `node_monitor_period` it samples
//! the node leases; `probeTimestamp` is when *it* saw a lease change (or a Ready status posted
//! by the kubelet), so a new leader starts every node at "now". A node silent for more than `node_monitor_grace_period` becomes
//! Ready=Unknown, gets the `unreachable:NoExecute` taint, and its pods Ready=False. Tainting is
//! rate limited per zone (`node_eviction_rate`, 0.1 node/s; 0 in a partially disrupted small zone) and stops, with
//! every such taint removed, when every zone is fully disrupted ("master disruption mode").

use super::node_table::{NodeHealth, NodeTable, Probe};
use super::{Controllers, NodeTimings, ZoneState};
use crate::k8s::api::ApiRequest;
use crate::k8s::events::{Event, Reason};
use crate::k8s::informer::Informer;
use crate::k8s::objects::{node_key, Condition, Effect, Node, Object, Pod, Taint, TaintKey};
use crate::k8s::observe::NodeChange;
use crate::k8s::wire::Ctx;
use crate::kernel::members::{MemberMap, MemberSet};
use crate::kernel::time::{Duration, SimTime};
use std::sync::Arc;

/// The node lifecycle controller's own state, kept between passes.
#[derive(Clone, Default)]
pub(super) struct NodeLifecycle {
    /// What it knows of each node (see [`NodeTable`]).
    table: NodeTable,
    /// Probe times of nodes no longer in the table (a node that comes back keeps them).
    probe: MemberMap<String, Probe>,
    /// Per zone: its rate limiter's bucket.
    tokens: MemberMap<String, Bucket>,
    /// Every zone was fully disrupted at the last pass ("master disruption mode").
    all_disrupted: bool,
    /// Nodes whose Ready condition was Unknown when this controller first saw them and that it
    /// has not tainted since.
    first_seen_unknown: MemberSet<String>,
}

/// A zone's token bucket: tainting tokens (at most one), and when they were last refilled.
#[derive(Clone, Copy)]
pub(super) struct Bucket {
    tokens: f64,
    refilled: SimTime,
}

impl NodeLifecycle {
    /// When this controller last saw `node`'s lease change (its `probeTimestamp`), while it
    /// still counts the node Ready: a grace period later, if nothing more is heard, it marks
    /// it NotReady. None if it no longer counts it Ready, or has not seen it yet.
    pub(super) fn heard_from(&self, node: &str) -> Option<SimTime> {
        let row = self.table.row(node)?;
        let probe = row.probe.filter(|_| row.ready == Condition::True)?;
        Some(probe.at)
    }

    /// `d` more seconds in which the nodes `silent` names renewed nothing: what the controller
    /// last saw of them is that much older.
    pub(super) fn heard_nothing_for(&mut self, d: Duration, silent: &dyn Fn(&str) -> bool) {
        let older = |p: &mut Probe| p.at = p.at - d;
        for row in self.table.rows.iter_mut().filter(|r| silent(&r.name)) {
            row.probe.as_mut().map(older);
        }
        for (_, p) in self.probe.iter_mut().filter(|(n, _)| silent(n)) {
            older(p);
        }
    }

    /// One pass of `monitorNodeHealth`: what the controller has heard from each node, the
    /// zones' states, then each node's condition and taint, then its pods' readiness. What to
    /// write comes back, for the controllers' client.
    pub(super) fn monitor(
        &mut self,
        ctx: &mut Ctx,
        caches: [&Informer; 3],
        timings: &NodeTimings,
    ) -> Pass {
        let [nodes, leases, pods] = caches;
        self.table
            .refresh(nodes.items(), leases.items(), &mut self.probe);
        // Nodes this controller sees for the first time (all of them for a new leader).
        let fresh: Vec<bool> = self.table.rows.iter().map(|r| r.probe.is_none()).collect();
        let mut silent = self.probe_leases(leases, timings, ctx.now);
        // What the controller believes: silent nodes count as not ready.
        let not_ready: Vec<bool> = (self.table.rows.iter().zip(&silent))
            .map(|(row, &s)| s || row.ready != Condition::True)
            .collect();
        let zones = self.zone_counts(&not_ready);
        let threshold = timings.unhealthy_zone_threshold;
        let all_full =
            !zones.is_empty() && zones.iter().all(|z| z.state(threshold) == ZoneState::Full);
        if self.leave_master_disruption(leases, all_full, ctx.now) {
            silent.iter_mut().for_each(|s| *s = false);
        }
        self.note_first_seen_unknown(&fresh);
        let mut pass = self.decide(ctx, nodes, timings, &fresh, &silent, &zones, all_full);
        pass.stale = self.ready_pods_on(pods, &not_ready);
        // Its own write is what it saves as seen: only the kubelet's next status is news.
        for &i in &pass.marked_unknown {
            if let Some(p) = self.table.rows[i].probe.as_mut() {
                p.ready = Condition::Unknown;
            }
        }
        pass
    }

    /// `probeTimestamp`: when this controller saw each node's lease change (a node seen for the
    /// first time starts at now). Which nodes have been silent for a grace period.
    fn probe_leases(
        &mut self,
        leases: &Informer,
        timings: &NodeTimings,
        now: SimTime,
    ) -> Vec<bool> {
        let grace = timings.node_monitor_grace_period;
        let leases = leases.items();
        let rows = &mut self.table.rows;
        rows.iter_mut()
            .map(|row| {
                let seen = Probe {
                    lease_rv: row.lease_version(leases),
                    ready: row.ready,
                    at: now,
                };
                match &mut row.probe {
                    Some(probe) => {
                        if (probe.lease_rv, probe.ready) != (seen.lease_rv, seen.ready) {
                            *probe = seen;
                        }
                        // `probeTimestamp + grace` is before now: the controller's passes each
                        // start a monitor period after the last one ended, so the pass a grace
                        // period after the probe is already past it. Here passes take no time.
                        now - probe.at >= grace
                    }
                    None => {
                        row.probe = Some(seen);
                        false
                    }
                }
            })
            .collect()
    }

    /// Per zone of the table: its nodes, and those not ready.
    fn zone_counts(&self, not_ready: &[bool]) -> Vec<ZoneCount> {
        let mut zones = vec![ZoneCount::default(); self.table.zones.len()];
        for (row, &nr) in self.table.rows.iter().zip(not_ready) {
            let z = &mut zones[row.zone];
            z.nodes += 1;
            z.not_ready += usize::from(nr);
        }
        zones
    }

    /// Leaving master disruption mode, every node starts a fresh grace period (Kubernetes sets
    /// each node's probeTimestamp to now): nodes that are still silent are not tainted at once.
    /// Whether it left it now.
    fn leave_master_disruption(&mut self, leases: &Informer, all_full: bool, now: SimTime) -> bool {
        if !std::mem::replace(&mut self.all_disrupted, all_full) || all_full {
            return false;
        }
        let leases = leases.items();
        for row in &mut self.table.rows {
            row.probe = Some(Probe {
                lease_rv: row.lease_version(leases),
                ready: row.ready,
                at: now,
            });
        }
        true
    }

    /// Nodes first seen Unknown by this controller wait for the zone's rate limiter, not for a
    /// grace period of their own (upstream marks them for tainting at every pass).
    fn note_first_seen_unknown(&mut self, fresh: &[bool]) {
        for (row, &fresh) in self.table.rows.iter().zip(fresh) {
            if fresh && row.ready == Condition::Unknown {
                self.first_seen_unknown.insert(row.name.clone());
            } else if row.ready != Condition::Unknown {
                self.first_seen_unknown.remove(row.name.as_str());
            }
        }
    }

    /// Each node's condition and `unreachable` taint, decided in node order through the zones'
    /// rate limiters; written by the caller once the cache is no longer borrowed.
    fn decide(
        &mut self,
        ctx: &mut Ctx,
        nodes: &Informer,
        flags: &NodeTimings,
        fresh: &[bool],
        silent: &[bool],
        zones: &[ZoneCount],
        all_full: bool,
    ) -> Pass {
        let now = ctx.now;
        let grace = flags.node_monitor_grace_period;
        let rows = &self.table.rows;
        let first_seen_unknown = &mut self.first_seen_unknown;
        let (tokens, zone_names) = (&mut self.tokens, &self.table.zones);
        let mut take_token = |zone: usize| {
            let z = zones[zone];
            let state = z.state(flags.unhealthy_zone_threshold);
            take_token(tokens, &zone_names[zone], state, z.nodes, now, flags)
        };
        let nodes = nodes.items();
        // A copy of the node to write, and the resourceVersion it has.
        let node_of = |row: &NodeHealth| {
            let kv = row.node(nodes);
            let node = kv.value.as_node().expect("a row's slot holds its node");
            (node.clone(), kv.mod_revision)
        };
        let mut d = Pass::default();
        let unreachable = || Taint {
            key: TaintKey::Unreachable,
            value: String::new(),
            effect: Effect::NoExecute,
            time_added: now,
        };
        for (i, (row, &silent)) in rows.iter().zip(silent).enumerate() {
            let tainted = row.tainted;
            if fresh[i] && tainted {
                // `markNodeAsReachable`: a node newly seen loses its taint; one whose Ready
                // condition is Unknown is tainted again through the zone's rate limiter (0 in a
                // partially disrupted small zone: it then stays untainted), and the pods'
                // eviction clocks start again from the new taint.
                let (mut n, rv) = node_of(row);
                n.taints.retain(|t| t.key != TaintKey::Unreachable);
                if row.ready == Condition::Unknown && !all_full && take_token(row.zone) {
                    n.taints.push(unreachable());
                    d.retainted.push(n.name.clone());
                    first_seen_unknown.remove(n.name.as_str());
                }
                d.writes.push((update_node(n, rv), None));
            } else if !silent && first_seen_unknown.contains(row.name.as_str()) {
                // Unknown when this controller first saw it, its lease not yet stale to it (a
                // new leader's first grace period): tainted as soon as the rate limiter allows.
                if !tainted && !all_full && take_token(row.zone) {
                    let (mut n, rv) = node_of(row);
                    n.taints.push(unreachable());
                    d.retainted.push(n.name.clone());
                    d.writes.push((update_node(n, rv), None));
                    first_seen_unknown.remove(row.name.as_str());
                }
            } else if silent {
                if row.ready != Condition::Unknown {
                    d.marked_unknown.push(i);
                    let (mut n, rv) = node_of(row);
                    n.ready = Condition::Unknown;
                    n.ready_since = now;
                    ctx.obs.node_event(now, NodeChange::NotReady, &n.name, format!(
                        "{} is NotReady (Unknown): the controller-manager has not seen its lease renewed for more than {} s",
                        n.name,
                        grace.secs()
                    ));
                    if !all_full && take_token(row.zone) {
                        n.taints.push(unreachable());
                    }
                    let event = Event {
                        reason: Reason::NodeNotReady,
                        kind: "Node",
                        message: format!("Node {} status is now: NodeNotReady", n.name),
                        name: n.name.clone(),
                        namespace: "default",
                        at: now,
                    };
                    d.writes.push((update_node(n, rv), Some(event)));
                } else if !tainted && !all_full && take_token(row.zone) {
                    let (mut n, rv) = node_of(row);
                    n.taints.push(unreachable());
                    d.writes.push((update_node(n, rv), None));
                } else if tainted && all_full {
                    let (mut n, rv) = node_of(row);
                    n.taints.retain(|t| t.key != TaintKey::Unreachable);
                    d.writes.push((update_node(n, rv), None));
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
                d.writes.push((update_node(n, rv), None));
            }
        }
        d
    }

    /// Pods on nodes that are not Ready are not ready either: out of the Service endpoints.
    /// The ready ones, by name, with their resourceVersions.
    fn ready_pods_on(&self, pods: &Informer, not_ready: &[bool]) -> Vec<(Pod, u64)> {
        let mut stale: Vec<(Pod, u64)> = (self.table.rows.iter().zip(not_ready))
            .filter(|(_, &nr)| nr)
            .flat_map(|(row, _)| pods.pods_on(&row.name))
            .filter_map(|kv| kv.value.as_pod().map(|p| (p, kv.mod_revision)))
            .filter(|(p, _)| p.ready)
            .map(|(p, rv)| (p.clone(), rv))
            .collect();
        crate::kernel::sort::sort_by(&mut stale, |a, b| a.0.name.cmp(&b.0.name));
        stale
    }
}

impl Controllers {
    /// When this controller last saw `node`'s lease change (its `probeTimestamp`), while it
    /// still counts the node Ready (see [`NodeLifecycle::heard_from`]).
    pub fn heard_from(&self, node: &str) -> Option<SimTime> {
        self.node_lifecycle.heard_from(node)
    }

    /// The node lifecycle controller's pass, its writes sent.
    pub(super) fn monitor_nodes(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let caches = [&self.nodes, &self.leases, &self.pods];
        let pass = self.node_lifecycle.monitor(ctx, caches, &self.timings);
        for (w, event) in pass.writes {
            self.write_with(ctx, w, event);
        }
        // A taint removed and added again: the taint-eviction clock starts from now.
        for node in pass.retainted {
            self.taint_eviction.retainted(node, now);
        }
        // `MarkPodsNotReady` warns on each pod it marks.
        for (mut p, rv) in pass.stale {
            p.ready = false;
            let message = "Node is not ready".to_string();
            let event = Event::on_pod(Reason::PodNodeNotReady, &p.name, &p.workload, message, now);
            self.update_pod(ctx, p, rv, Some(event));
        }
    }
}

/// A zone's nodes, and how many of them the controller believes not ready.
#[derive(Clone, Copy, Default)]
struct ZoneCount {
    nodes: usize,
    not_ready: usize,
}

impl ZoneCount {
    /// `ComputeZoneState`: fully disrupted when no node is ready, partially when more than two
    /// and at least `unhealthy_zone_threshold` of them are not.
    fn state(self, unhealthy_zone_threshold: f64) -> ZoneState {
        if self.not_ready == self.nodes {
            ZoneState::Full
        } else if self.not_ready > 2
            && self.not_ready as f64 / self.nodes as f64 >= unhealthy_zone_threshold
        {
            ZoneState::Partial
        } else {
            ZoneState::Normal
        }
    }
}

/// What a pass decided, in node order, for the controllers' client to write.
#[derive(Default)]
pub(super) struct Pass {
    /// Node updates, with the event each records.
    writes: Vec<(ApiRequest, Option<Event>)>,
    /// Rows this pass marked Unknown.
    marked_unknown: Vec<usize>,
    /// Nodes whose taint was removed and added again.
    retainted: Vec<String>,
    /// Ready pods on nodes not ready, by name, with their resourceVersions.
    stale: Vec<(Pod, u64)>,
}

/// The zone's rate limiter: may one more node be tainted now?
pub(super) fn take_token(
    tokens: &mut MemberMap<String, Bucket>,
    zone: &str,
    state: ZoneState,
    size: usize,
    now: SimTime,
    flags: &NodeTimings,
) -> bool {
    let rate = match state {
        ZoneState::Normal | ZoneState::Full => flags.node_eviction_rate,
        ZoneState::Partial if size > flags.large_cluster_size_threshold => {
            flags.secondary_node_eviction_rate
        }
        ZoneState::Partial => 0.0,
    };
    let full = || Bucket {
        tokens: 1.0,
        refilled: now,
    };
    let (b, _) = tokens.get_or_insert_with(zone.to_string(), full);
    b.tokens = (b.tokens + rate * (now - b.refilled).as_secs_f64()).min(1.0);
    b.refilled = now;
    if rate > 0.0 && b.tokens >= 1.0 {
        b.tokens -= 1.0;
        true
    } else {
        false
    }
}

pub(super) fn update_node(n: Node, rv: u64) -> ApiRequest {
    ApiRequest::Update {
        key: node_key(&n.name).into(),
        value: Arc::new(Object::Node(n)),
        resource_version: rv,
    }
}
