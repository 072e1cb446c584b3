//! The node lifecycle controller (`monitorNodeHealth`): every `node_monitor_period` it samples
//! the node leases; `probeTimestamp` is when *it* saw a lease change (or a Ready status posted
//! by the kubelet), so a new leader starts every node at "now". A node silent for more than `node_monitor_grace_period` becomes
//! Ready=Unknown, gets the `unreachable:NoExecute` taint, and its pods Ready=False. Tainting is
//! rate limited per zone (`node_eviction_rate`, 0.1 node/s; 0 in a partially disrupted small zone) and stops, with
//! every such taint removed, when every zone is fully disrupted ("master disruption mode").

use super::node_table::{NodeHealth, Probe};
use super::{Controllers, NodeTimings, ZoneState};
use crate::k8s::api::ApiRequest;
use crate::k8s::events::{Event, Reason};
use crate::k8s::objects::{node_key, Condition, Effect, Node, Object, Pod, Taint, TaintKey};
use crate::k8s::observe::NodeChange;
use crate::k8s::wire::Ctx;
use crate::kernel::members::MemberMap;
use crate::kernel::time::{Duration, SimTime};
use std::sync::Arc;

impl Controllers {
    /// When this controller last saw `node`'s lease change (its `probeTimestamp`), while it
    /// still counts the node Ready: a grace period later, if nothing more is heard, it marks
    /// it NotReady. None if it no longer counts it Ready, or has not seen it yet.
    pub fn heard_from(&self, node: &str) -> Option<SimTime> {
        let row = self.node_table.row(node)?;
        let probe = row.probe.filter(|_| row.ready == Condition::True)?;
        Some(probe.at)
    }

    /// `d` more seconds in which the nodes `silent` names renewed nothing: what the controller
    /// last saw of them is that much older.
    pub(super) fn heard_nothing_for(&mut self, d: Duration, silent: &dyn Fn(&str) -> bool) {
        let older = |p: &mut Probe| p.at = p.at - d;
        for row in self.node_table.rows.iter_mut().filter(|r| silent(&r.name)) {
            row.probe.as_mut().map(older);
        }
        for (_, p) in self.probe.iter_mut().filter(|(n, _)| silent(n)) {
            older(p);
        }
    }

    pub(super) fn monitor_nodes(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        let grace = self.timings.node_monitor_grace_period;
        self.node_table
            .refresh(self.nodes.items(), self.leases.items(), &mut self.probe);
        let leases = self.leases.items();
        let rows = &mut self.node_table.rows;
        // Nodes this controller sees for the first time (all of them for a new leader).
        let fresh: Vec<bool> = rows.iter().map(|row| row.probe.is_none()).collect();
        // probeTimestamp: when this controller saw each node's lease change (a node seen for
        // the first time starts at now).
        let mut silent: Vec<bool> = rows
            .iter_mut()
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
            } else if not_ready > 2
                && not_ready as f64 / total as f64 >= self.timings.unhealthy_zone_threshold
            {
                ZoneState::Partial
            } else {
                ZoneState::Normal
            }
        };
        let all_full = !zones.is_empty() && zones.iter().all(|&z| state(z) == ZoneState::Full);
        // Leaving master disruption mode, every node starts a fresh grace period (Kubernetes sets
        // each node's probeTimestamp to now): nodes that are still silent are not tainted at once.
        if std::mem::replace(&mut self.all_disrupted, all_full) && !all_full {
            for row in &mut self.node_table.rows {
                row.probe = Some(Probe {
                    lease_rv: row.lease_version(leases),
                    ready: row.ready,
                    at: now,
                });
            }
            silent.iter_mut().for_each(|s| *s = false);
        }
        // Nodes first seen Unknown by this controller wait for the zone's rate limiter, not for a
        // grace period of their own (upstream marks them for tainting at every pass).
        let rows = &self.node_table.rows;
        for (row, &fresh) in rows.iter().zip(&fresh) {
            if fresh && row.ready == Condition::Unknown {
                self.first_seen_unknown.insert(row.name.clone());
            } else if row.ready != Condition::Unknown {
                self.first_seen_unknown.remove(row.name.as_str());
            }
        }
        let first_seen_unknown = &mut self.first_seen_unknown;
        let (tokens, zone_names, flags) = (&mut self.tokens, &self.node_table.zones, &self.timings);
        let mut take_token = |zone: usize| {
            let z = zones[zone];
            take_token(tokens, &zone_names[zone], state(z), z.0, now, flags)
        };
        let nodes = self.nodes.items();
        // A copy of the node to write, and the resourceVersion it has.
        let node_of = |row: &NodeHealth| {
            let kv = row.node(nodes);
            let node = kv.value.as_node().expect("a row's slot holds its node");
            (node.clone(), kv.mod_revision)
        };
        // Decided in node order, written below once the cache is no longer borrowed.
        let mut writes = Vec::new();
        let mut marked_unknown = Vec::new();
        let mut retainted = Vec::new();
        let unreachable = || Taint {
            key: TaintKey::Unreachable,
            value: String::new(),
            effect: Effect::NoExecute,
            time_added: now,
        };
        for (i, (row, &silent)) in rows.iter().zip(&silent).enumerate() {
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
                    retainted.push(n.name.clone());
                    first_seen_unknown.remove(n.name.as_str());
                }
                writes.push((update_node(n, rv), None));
            } else if !silent && first_seen_unknown.contains(row.name.as_str()) {
                // Unknown when this controller first saw it, its lease not yet stale to it (a
                // new leader's first grace period): tainted as soon as the rate limiter allows.
                if !tainted && !all_full && take_token(row.zone) {
                    let (mut n, rv) = node_of(row);
                    n.taints.push(unreachable());
                    retainted.push(n.name.clone());
                    writes.push((update_node(n, rv), None));
                    first_seen_unknown.remove(row.name.as_str());
                }
            } else if silent {
                if row.ready != Condition::Unknown {
                    marked_unknown.push(i);
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
                    writes.push((update_node(n, rv), Some(event)));
                } else if !tainted && !all_full && take_token(row.zone) {
                    let (mut n, rv) = node_of(row);
                    n.taints.push(unreachable());
                    writes.push((update_node(n, rv), None));
                } else if tainted && all_full {
                    let (mut n, rv) = node_of(row);
                    n.taints.retain(|t| t.key != TaintKey::Unreachable);
                    writes.push((update_node(n, rv), None));
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
                writes.push((update_node(n, rv), None));
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
        crate::kernel::sort::sort_by(&mut stale, |a, b| a.0.name.cmp(&b.0.name));
        // Its own write is what it saves as seen: only the kubelet's next status is news.
        for i in marked_unknown {
            if let Some(p) = self.node_table.rows[i].probe.as_mut() {
                p.ready = Condition::Unknown;
            }
        }
        for (w, event) in writes {
            self.write_with(ctx, w, event);
        }
        // A taint removed and added again: the taint-eviction clock starts from now.
        for node in retainted {
            self.taint_seen.insert(node, now);
        }
        // `MarkPodsNotReady` warns on each pod it marks.
        for (mut p, rv) in stale {
            p.ready = false;
            let message = "Node is not ready".to_string();
            let event = Event::on_pod(Reason::PodNodeNotReady, &p.name, &p.workload, message, now);
            self.update_pod(ctx, p, rv, Some(event));
        }
    }
}

/// The zone's rate limiter: may one more node be tainted now?
pub(super) fn take_token(
    tokens: &mut MemberMap<String, (f64, SimTime)>,
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
    let ((tokens, last), _) = tokens.get_or_insert_with(zone.to_string(), || (1.0, now));
    *tokens = (*tokens + rate * (now - *last).as_secs_f64()).min(1.0);
    *last = now;
    if rate > 0.0 && *tokens >= 1.0 {
        *tokens -= 1.0;
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
