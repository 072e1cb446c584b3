//! Whether the cluster is quiet: no reaction to an earlier change is still on its way. Studies
//! ask it to judge a stretch settled sooner than their longest settle time. Named here: etcd's
//! running members not agreeing on one leader of one term (an election under way), a timer of the
//! world's own still to come ([`World::own_timer_due`]: a study never skips over one), a component
//! of a running host waiting in its restart back-off, a Node whose Ready condition the API has not
//! yet brought in line with its host (the grace period), and pods bound to a Node whose host does
//! not run that are not yet evicted (the tolerations). Anything else is
//! covered by the study's longer settle time, which applies whenever this answers no; a state
//! that stays unquiet (a zone cut off, etcd without quorum) only costs a longer wait.

use super::World;
use crate::etcd::raft::Role;
use crate::k8s::objects::{node_key, Condition, PODS};
use crate::kernel::net::HostId;

impl World {
    /// Whether a timer of the world's own will change the cluster: a host's (a spot notice's
    /// termination, a reboot's boot), an etcd membership change being polled, or kubeadm's
    /// next attempt to add the learner of its join, or to promote it. A study never skips over one: a skip moves only
    /// the fault draws, so it would reorder them with these.
    pub fn own_timer_due(&self) -> bool {
        let learner = (self.etcd.members.iter().flatten())
            .any(|m| !m.removed && m.raft.learners().contains(&m.raft.id()));
        self.hosts.iter().any(|rt| rt.change_due)
            || self.etcd.changes.iter().any(|c| !c.done)
            || self.etcd.joins_due > 0
            || learner
    }

    pub fn quiet(&self) -> bool {
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
            return false;
        }
        for (i, h) in self.scenario.hosts.iter().enumerate() {
            let p = &self.procs.on[i];
            let waiting = (h.runs_apiserver() && p.apiserver.is_none())
                || (h.runs_controller_manager() && p.kcm.is_none())
                || (h.runs_scheduler() && p.scheduler.is_none())
                || (h.is_node() && p.kubelet.is_none());
            if running(i) && waiting {
                return false;
            }
        }
        if !self.scenario.hosts.iter().any(|h| h.is_node()) {
            return true;
        }
        let Some(member) = self.etcd.freshest() else {
            return false;
        };
        let host_runs = |name: &str| self.hosts.id(name).is_some_and(|h| running(h as usize));
        for h in self.scenario.hosts.iter().filter(|h| h.is_node()) {
            let ready = member
                .kv
                .get(&node_key(&h.name))
                .and_then(|kv| kv.value.as_node())
                .map(|n| n.ready == Condition::True);
            if ready.is_some_and(|r| r != host_runs(&h.name)) {
                return false;
            }
        }
        !member.kv.range_prefix(PODS).any(|(_, kv)| {
            kv.value.as_pod().is_some_and(|p| {
                !p.tolerates_everything()
                    && p.deletion.is_none()
                    && p.node.as_deref().is_some_and(|n| !host_runs(n))
            })
        })
    }
}
