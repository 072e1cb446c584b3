//! Whether the cluster is quiet: no reaction to an earlier change is still on its way, but
//! perhaps one a process will make at a known time of its own accord. Studies ask it to judge a
//! stretch settled after a short look at the figures instead of their longest settle time.
//!
//! The world answers for its own parts: etcd's running members agreeing on one leader of one
//! term, no timer of its own still to come ([`World::own_timer_due`]: an etcd membership change,
//! a join's next step), no component of a running host waiting in its restart back-off, and
//! every route of the users' requests ending at a pod that runs and a CoreDNS that answers (a
//! cached DNS answer may hide a dead one for a while). Every process of a running host answers
//! for itself ([`crate::k8s::self_timed`]): a lease with no leader acting on a running host, a
//! load balancer's backend about to fall or rise, a Node not Ready on a running host, a drain
//! under way, a reaction on its way (a controller's write or created pod, a binding, a starting
//! container, a pod status a kubelet owes) are not quiet; the controller-manager will act at a
//! known time on a silent Node still Ready (its grace period ends then) and on pods of a silent
//! Node that does not run (their tolerations end then, once it is tainted).
//!
//! A Node is silent when it renews nothing as the world stands: its host is down, or the API
//! does not answer there (a load balancer down, a zone cut off). Anything else is covered by
//! the study's look at the figures, and by its longer settle time whenever this answers no; a
//! state that stays unquiet (a zone cut off, etcd without quorum) only costs a longer wait.

use super::hosts::Hosts;
use super::World;
use crate::etcd::kv::KvStore;
use crate::etcd::raft::Role;
use crate::k8s::leader::{KCM_LEASE, KUBE_VIP_LEASE, SCHEDULER_LEASE};
use crate::k8s::objects::Value;
pub use crate::k8s::self_timed::Quiet;
use crate::k8s::self_timed::Stand;
use crate::kernel::net::HostId;
use crate::kernel::time::Duration;

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

    /// Whether the cluster is quiet, and if so whether a process will still act of its own
    /// accord at a known time (see [`Quiet`]): the world's own parts (etcd, the hosts' restarts,
    /// the users' routes) and every process of every running host, each by its own
    /// [`SelfTimed::quiet`](crate::k8s::self_timed::SelfTimed::quiet).
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
        if leaders != 1 || !agreed || self.own_timer_due() {
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
        if !self.routes_hold() {
            return Quiet::No;
        }
        let Some(member) = self.etcd.freshest() else {
            return Quiet::No;
        };
        let facts = self.facts();
        let stand = facts.stand(&self.hosts, &member.kv);
        (self.procs.self_timed(&facts.running)).fold(Quiet::Yes, |q, p| q.and(p.quiet(&stand)))
    }

    /// What a [`Stand`] is made of, computed from the processes before they are lent out.
    fn facts(&self) -> Facts {
        let running: Vec<bool> = (0..self.hosts.len())
            .map(|h| self.host_is_up(h as HostId))
            .collect();
        let serves_api = (self.procs.on.iter().zip(&running))
            .map(|(p, &up)| up && p.apiserver.is_some())
            .collect();
        let silent = self.silent_nodes();
        let led = [KCM_LEASE, SCHEDULER_LEASE, KUBE_VIP_LEASE]
            .into_iter()
            .filter(|&l| (self.obs.lease_leader(l)).is_some_and(|h| running[h as usize]))
            .collect();
        Facts {
            running,
            serves_api,
            silent,
            led,
        }
    }

    /// Per host: whether it is a Node that renews nothing as the world stands: its host is
    /// down, the API does not answer there, or the leading controller-manager has not seen its
    /// lease change for longer than two renewals and a monitor period.
    fn silent_nodes(&self) -> Vec<bool> {
        let k = &self.scenario.settings;
        let stale =
            k.node_lease_renew_interval + k.node_lease_renew_interval + k.node_monitor_period;
        (self.scenario.hosts.iter().enumerate())
            .map(|(i, h)| {
                h.is_node() && {
                    let h_id = i as HostId;
                    let cut_off = !self.host_is_up(h_id) || !self.api_serves_from(h_id);
                    cut_off
                        || (self.procs.node_heard_from(&h.name))
                            .is_some_and(|t| self.now - t > stale)
                }
            })
            .collect()
    }

    /// The processes' clocks of a skipped stretch (see [`World::skip`]): each moves on what it
    /// will do of its own accord ([`SelfTimed::skipped`](crate::k8s::self_timed::SelfTimed::skipped)).
    pub(super) fn skip_processes(&mut self, d: Duration) {
        let Some(member) = self.etcd.freshest() else {
            return;
        };
        let facts = self.facts();
        let stand = facts.stand(&self.hosts, &member.kv);
        for p in self.procs.self_timed_mut(&facts.running) {
            p.skipped(d, &stand);
        }
    }
}

/// What a [`Stand`] is made of, computed before the processes are lent out: per host whether
/// it runs, runs an apiserver, is a silent Node; the leases led from a running host.
struct Facts {
    running: Vec<bool>,
    serves_api: Vec<bool>,
    silent: Vec<bool>,
    led: Vec<&'static str>,
}

impl Facts {
    fn stand<'a>(&'a self, hosts: &'a Hosts, store: &'a KvStore<Value>) -> Stand<'a> {
        Stand {
            running: &self.running,
            serves_api: &self.serves_api,
            silent: &self.silent,
            hosts: hosts.index(),
            led: &self.led,
            store,
        }
    }
}
