//! The etcd side of a run: one member slot per host (a member's disk outlives its process),
//! which cluster is current (`--force-new-cluster` starts a new one), the operator's
//! membership changes waiting to commit, and the write probe. Questions about the cluster as
//! a whole (who leads, who votes, is there a quorum) are answered here from the members' own
//! state and the network.

use super::hosts::Hosts;
use crate::etcd::member::EtcdConfig;
use crate::etcd::raft::{ConfChange, Role as RaftRole};
use crate::k8s::wire::{EtcdMember, EtcdProbe};
use crate::kernel::net::{HostId, Network};
use crate::kernel::rng::Rng;
use crate::kernel::time::SimTime;

/// An operator's `etcdctl member add/remove` (or a `join`) waiting for its change to commit.
#[derive(Clone)]
pub struct MemberChange {
    pub action: &'static str,
    pub host: HostId,
    pub leader: HostId,
    pub change: ConfChange,
    pub deadline: SimTime,
}

#[derive(Clone)]
pub struct EtcdCluster {
    pub members: Vec<Option<EtcdMember>>,
    /// The hosts with a member in `members`, ascending, so scans for the leader or the voters
    /// need not look at every host.
    pub hosts: Vec<HostId>,
    pub cfg: EtcdConfig,
    /// Clusters started so far (ids 1, 2, …) and the one the survivors belong to.
    pub clusters: u64,
    pub current: u64,
    pub changes: Vec<MemberChange>,
    pub probe: EtcdProbe,
    /// Seeds members' and tick loops' randomness, forked by label.
    pub rng: Rng,
}

impl EtcdCluster {
    /// The members of the initial cluster, bootstrapped together.
    pub fn new(
        names: &[String],
        initial: &[HostId],
        cfg: EtcdConfig,
        rng: Rng,
        probe: EtcdProbe,
    ) -> EtcdCluster {
        let members: Vec<Option<EtcdMember>> = (0..names.len() as HostId)
            .map(|h| {
                initial.contains(&h).then(|| {
                    EtcdMember::bootstrap(
                        h,
                        initial,
                        cfg,
                        rng.fork(&format!("etcd/{}", names[h as usize])),
                    )
                })
            })
            .collect();
        EtcdCluster {
            hosts: (0..names.len() as HostId)
                .filter(|&h| members[h as usize].is_some())
                .collect(),
            members,
            cfg,
            clusters: 1,
            current: 1,
            changes: Vec::new(),
            probe,
            rng,
        }
    }

    /// A member now runs on `host` (added to the cluster).
    pub fn place(&mut self, host: HostId, member: EtcdMember) {
        self.members[host as usize] = Some(member);
        if let Err(i) = self.hosts.binary_search(&host) {
            self.hosts.insert(i, host);
        }
    }

    /// The hosts with an etcd member, and their members, in host order.
    pub fn members(&self) -> impl Iterator<Item = (HostId, &EtcdMember)> {
        self.hosts
            .iter()
            .filter_map(|&h| self.members[h as usize].as_ref().map(|m| (h, m)))
    }

    /// The up leader of the current cluster with the highest term (a stale leader in a
    /// minority may still believe it leads until CheckQuorum demotes it).
    pub fn leader(&self, hosts: &Hosts) -> Option<HostId> {
        self.members()
            .filter(|(h, m)| hosts[*h as usize].up && m.cluster == self.current && !m.removed)
            .filter(|(_, m)| m.raft.role() == RaftRole::Leader)
            .max_by_key(|(h, m)| (m.raft.term(), std::cmp::Reverse(*h)))
            .map(|(h, _)| h)
    }

    /// The term of `leader`'s member (0 without one).
    pub fn term(&self, leader: Option<HostId>) -> u64 {
        leader
            .and_then(|h| self.members[h as usize].as_ref())
            .map_or(0, |m| m.raft.term())
    }

    /// The member of the current cluster that has applied the most: the freshest view of the store.
    pub fn freshest(&self) -> Option<&EtcdMember> {
        self.members
            .iter()
            .flatten()
            .filter(|m| m.cluster == self.current)
            .max_by_key(|m| (m.raft.applied_index(), std::cmp::Reverse(m.host)))
    }

    /// Voting members of the current cluster, from the member that has applied the most.
    pub fn voters(&self) -> Vec<HostId> {
        self.freshest()
            .map(|m| m.raft.voters().iter().map(|&id| id as HostId).collect())
            .unwrap_or_default()
    }

    /// (voters up and mutually reachable in the largest group, all voters).
    pub fn connected_voters(&self, net: &Network) -> (usize, usize) {
        let voters = self.voters();
        let reachable: Vec<HostId> = voters
            .iter()
            .copied()
            .filter(|&h| {
                net.island_of(h).is_some()
                    && self.members[h as usize]
                        .as_ref()
                        .is_some_and(|m| !m.removed && m.cluster == self.current)
            })
            .collect();
        (
            largest_clique(&reachable, |a, b| net.connected(a, b)),
            voters.len(),
        )
    }
}

/// Size of the largest set of hosts that are pairwise connected. Exact for up to 16 hosts
/// (etcd clusters are small); beyond that, the largest group of hosts connected to a first one.
fn largest_clique(hosts: &[HostId], connected: impl Fn(HostId, HostId) -> bool) -> usize {
    let n = hosts.len();
    if n <= 16 {
        let mut best = 0;
        for mask in 1u32..(1 << n) {
            let size = mask.count_ones() as usize;
            if size <= best {
                continue;
            }
            let members: Vec<HostId> = (0..n)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| hosts[i])
                .collect();
            let ok = members
                .iter()
                .enumerate()
                .all(|(i, &a)| members[i + 1..].iter().all(|&b| connected(a, b)));
            if ok {
                best = size;
            }
        }
        best
    } else {
        hosts
            .iter()
            .map(|&a| hosts.iter().filter(|&&b| a == b || connected(a, b)).count())
            .max()
            .unwrap_or(0)
    }
}
