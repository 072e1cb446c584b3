//! Whether the cluster is quiet: no reaction to an earlier change is still on its way, but
//! perhaps one the controller-manager will make at a known time of its own accord. Studies ask
//! it to judge a stretch settled after a short look at the figures instead of their longest
//! settle time. Unquiet:
//! - etcd's running members not agreeing on one leader of one term (an election under way);
//! - a timer of the world's own still to come ([`World::own_timer_due`]: an etcd membership
//!   change, a join's next step), or a drain in progress;
//! - a component of a running host waiting in its restart back-off;
//! - a lease (controller-manager, scheduler, kube-vip) with a candidate running and no leader
//!   acting on a running host;
//! - a route of the users' requests that ends at a pod that does not run, or at a CoreDNS that
//!   does not answer (a cached DNS answer may hide it for a while);
//! - a load balancer with a backend about to fall or rise, or in service on a host without an
//!   apiserver;
//! - a running host whose Node is not Ready, or a silent Node the controller-manager has not
//!   seen yet, or pods on a silent Node it has not seen tainted.
//!
//! A Node is silent when it renews nothing as the world stands: its host is down, or the API
//! does not answer there (a load balancer down, a zone cut off). Quiet until a time
//! ([`Quiet::Until`]): a silent Node still Ready (its grace period ends then) and pods on a
//! silent Node that does not run (their tolerations end then, once it is tainted). Anything else is covered by
//! the study's look at the figures, and by its longer settle time whenever this answers no; a
//! state that stays unquiet (a zone cut off, etcd without quorum) only costs a longer wait.

use super::World;
use crate::etcd::raft::Role;
use crate::k8s::controllers::Controllers;
use crate::k8s::leader::{KCM_LEASE, KUBE_VIP_LEASE, SCHEDULER_LEASE};
use crate::k8s::objects::{node_key, Condition, PODS};
use crate::kernel::net::HostId;
use crate::kernel::time::{Duration, SimTime};

impl World {
    /// Whether a timer of the world's own will change the cluster: an etcd membership change
    /// being polled, or kubeadm's next attempt to add the learner of its join, or to promote
    /// it. A study never skips over one: a skip moves only the fault draws and the hosts'
    /// scheduled changes ([`World::skip`]), so it would reorder them with these.
    pub fn own_timer_due(&self) -> bool {
        let learner = (self.etcd.members.iter().flatten())
            .any(|m| !m.removed && m.raft.learners().contains(&m.raft.id()));
        self.etcd.changes.iter().any(|c| !c.done) || self.etcd.joins_due > 0 || learner
    }

    /// Whether the cluster is quiet, and if so whether the controller-manager will still act of
    /// its own accord at a known time (see [`Quiet`]).
    pub fn quiet(&self) -> Quiet {
        let running = |i: usize| self.host_is_up(i as HostId);
        // One leader, and every running member of the cluster its follower in its term.
        let members: Vec<_> = (self.etcd.members.iter().enumerate())
            .filter_map(|(i, m)| m.as_ref().filter(|m| running(i) && !m.removed))
            .collect();
        let leaders = members
            .iter()
            .filter(|m| m.raft.role() == Role::Leader)
            .count();
        let term = members.first().map(|m| m.raft.term());
        let agreed = members.iter().all(|m| {
            Some(m.raft.term()) == term && matches!(m.raft.role(), Role::Leader | Role::Follower)
        });
        let draining = (self.procs.operator.as_ref()).is_some_and(|o| o.draining());
        if leaders != 1 || !agreed || self.own_timer_due() || draining {
            return Quiet::No;
        }
        for (i, h) in self.scenario.hosts.iter().enumerate() {
            let p = &self.procs.on[i];
            let waiting = (h.runs_apiserver() && p.apiserver.is_none())
                || (h.runs_controller_manager() && p.kcm.is_none())
                || (h.runs_scheduler() && p.scheduler.is_none())
                || (h.is_node() && p.kubelet.is_none());
            if running(i) && waiting {
                return Quiet::No;
            }
        }
        if !self.scenario.hosts.iter().any(|h| h.is_node()) {
            return Quiet::Yes;
        }
        // A lease with a candidate running has a leader acting, on a running host.
        let on = &self.procs.on;
        for (lease, candidate) in [
            (KCM_LEASE, on.iter().any(|p| p.kcm.is_some())),
            (SCHEDULER_LEASE, on.iter().any(|p| p.scheduler.is_some())),
            (KUBE_VIP_LEASE, on.iter().any(|p| p.kube_vip.is_some())),
        ] {
            let led = (self.obs.lease_leader(lease)).is_some_and(|h| running(h as usize));
            if candidate && !led {
                return Quiet::No;
            }
        }
        let Some(member) = self.etcd.freshest() else {
            return Quiet::No;
        };
        if !self.routes_hold() {
            return Quiet::No;
        }
        // Load balancers: no backend about to fall or rise, none in service that is gone.
        for (i, p) in on.iter().enumerate() {
            let Some(lb) = p.lb.as_ref().filter(|_| running(i)) else {
                continue;
            };
            let gone = |&(h, up): &(HostId, bool)| {
                up && !(running(h as usize) && on[h as usize].apiserver.is_some())
            };
            if !lb.steady() || lb.backends().iter().any(gone) {
                return Quiet::No;
            }
        }
        // What the leading controller-manager will do of its own accord, and when.
        let silent = self.silent_nodes();
        let controllers: Vec<&Controllers> =
            (on.iter()).filter_map(|p| p.kcm.as_ref()?.work()).collect();
        let due = |when: &dyn Fn(&Controllers) -> Option<SimTime>| {
            controllers.iter().filter_map(|c| when(c)).min()
        };
        let grace = self.scenario.settings.node_monitor_grace_period;
        let mut until: Option<SimTime> = None;
        let mut wait_until = |t: SimTime| until = Some(until.map_or(t, |u| u.min(t)));
        let host_runs = |name: &str| self.hosts.id(name).is_some_and(|h| running(h as usize));
        for (i, h) in (self.scenario.hosts.iter().enumerate()).filter(|(_, h)| h.is_node()) {
            let ready = member
                .kv
                .get(&node_key(&h.name))
                .and_then(|kv| kv.value.as_node())
                .map(|n| n.ready == Condition::True);
            match ready {
                Some(false) if host_runs(&h.name) => return Quiet::No,
                // Silent (down, or cut off from the API), and still Ready: until its grace
                // period ends.
                Some(true) if silent[i] => match due(&|c| c.heard_from(&h.name)) {
                    Some(t) => wait_until(t + grace),
                    None => return Quiet::No,
                },
                _ => {}
            }
        }
        // Pods on a node that does not run: until their tolerations run out, or before that,
        // until the node's grace period ends (it is tainted then).
        for (_, kv) in member.kv.range_prefix(PODS) {
            let Some(p) = kv.value.as_pod() else { continue };
            let Some(node) = p.node.as_deref() else {
                continue;
            };
            if p.tolerates_everything() || p.deletion.is_some() || host_runs(node) {
                continue;
            }
            let grace_end = |c: &Controllers| c.heard_from(node).map(|t| t + grace);
            match due(&|c| c.eviction_due(node).or_else(|| grace_end(c))) {
                Some(t) => wait_until(t),
                None => return Quiet::No,
            }
        }
        until.map_or(Quiet::Yes, Quiet::Until)
    }

    /// Per host: whether it is a Node that renews nothing as the world stands: its host is
    /// down, the API does not answer there, or the leading controller-manager has not seen its
    /// lease change for longer than two renewals and a monitor period.
    fn silent_nodes(&self) -> Vec<bool> {
        let k = &self.scenario.settings;
        let stale =
            k.node_lease_renew_interval + k.node_lease_renew_interval + k.node_monitor_period;
        let heard = |name: &str| {
            (self.procs.on.iter())
                .filter_map(|p| p.kcm.as_ref()?.work()?.heard_from(name))
                .max()
        };
        (self.scenario.hosts.iter().enumerate())
            .map(|(i, h)| {
                h.is_node() && {
                    let h_id = i as HostId;
                    let cut_off = !self.host_is_up(h_id) || !self.api_serves_from(h_id);
                    cut_off || heard(&h.name).is_some_and(|t| self.now - t > stale)
                }
            })
            .collect()
    }

    /// The controller-manager's clocks of a skipped stretch (see [`World::skip`]): the silent
    /// Nodes renewed nothing meanwhile.
    pub(super) fn skip_controllers(&mut self, d: Duration) {
        let silent = self.silent_nodes();
        let hosts = &self.hosts;
        let silent = |node: &str| hosts.id(node).is_some_and(|h| silent[h as usize]);
        for p in self.procs.on.iter_mut() {
            if let Some(c) = p.kcm.as_mut().and_then(|k| k.spec_and_work().1) {
                c.skipped(d, &silent);
            }
        }
    }
}

/// How quiet the cluster is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quiet {
    /// A reaction to an earlier change may be on its way.
    No,
    /// Nothing is on its way.
    Yes,
    /// Nothing is on its way but what the controller-manager will do at this time of its own
    /// accord, however long the world stays as it is: mark a silent node NotReady once its
    /// grace period ends, evict a tainted node's pods once their tolerations run out. A study
    /// skips no further than this, and its skip moves these clocks on as well.
    Until(SimTime),
}
