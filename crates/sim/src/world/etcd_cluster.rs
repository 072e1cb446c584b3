//! The etcd side of a run: one member slot per host (a member's disk outlives its process),
//! which cluster is current (`--force-new-cluster` starts a new one), the operator's
//! membership changes waiting to commit, and the write probe. Questions about the cluster as
//! a whole (who leads, who votes, is there a quorum) are answered here from the members' own
//! state and the network.

use super::hosts::Hosts;
use crate::etcd::member::{member_host, member_id, EtcdConfig};
use crate::etcd::raft::{ConfChange, MemberId, Role as RaftRole};
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
    /// Once it commits, the host runs `kubeadm join` (the removal that precedes a replacement's join).
    pub then_join: bool,
    /// Applied, or given up after the command's timeout.
    pub done: bool,
}

#[derive(Clone)]
pub struct EtcdCluster {
    /// Per host, most of which have none: boxed, so that each of those takes a pointer in every
    /// copy of the world, not a member's 880 bytes.
    pub members: Vec<Option<Box<EtcdMember>>>,
    /// Member ids handed out per host so far: each `member add` (or kubeadm join) of a host
    /// makes a new member with the next one.
    incarnations: Vec<u32>,
    /// Per host, how many of its members have started (published their name to the cluster,
    /// which keeps it after the member's disk is gone).
    started: Vec<u32>,
    /// The hosts with a member in `members`, ascending, so scans for the leader or the voters
    /// need not look at every host.
    pub hosts: Vec<HostId>,
    pub cfg: EtcdConfig,
    /// Clusters started so far (ids 1, 2, …) and the one the survivors belong to.
    pub clusters: u64,
    pub current: u64,
    pub changes: Vec<MemberChange>,
    /// kubeadm joins waiting to try adding their learner again.
    pub joins_due: u32,
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
        let members: Vec<Option<Box<EtcdMember>>> = (0..names.len() as HostId)
            .map(|h| {
                initial.contains(&h).then(|| {
                    Box::new(EtcdMember::bootstrap(
                        h,
                        initial,
                        cfg,
                        rng.fork(&format!("etcd/{}", names[h as usize])),
                    ))
                })
            })
            .collect();
        EtcdCluster {
            incarnations: members.iter().map(|m| u32::from(m.is_some())).collect(),
            started: members.iter().map(|m| u32::from(m.is_some())).collect(),
            hosts: (0..names.len() as HostId)
                .filter(|&h| members[h as usize].is_some())
                .collect(),
            members,
            cfg,
            clusters: 1,
            current: 1,
            changes: Vec::new(),
            joins_due: 0,
            probe,
            rng,
        }
    }

    /// The id a new member on `host` gets (a `member add`): never one the cluster has seen.
    pub fn next_member_id(&self, host: HostId) -> MemberId {
        member_id(host, self.incarnations[host as usize])
    }

    /// A `member add` of `id` was proposed: the id is spent, committed or not.
    pub fn claim_member_id(&mut self, id: MemberId) {
        let n = &mut self.incarnations[member_host(id) as usize];
        *n = (*n).max((id >> 16) + 1);
    }

    /// The id of the latest member added on `host` (the one `member remove` or `promote` of
    /// the host means), or the host's first id if it never had one.
    pub fn member_id_of(&self, host: HostId) -> MemberId {
        member_id(host, self.incarnations[host as usize].saturating_sub(1))
    }

    /// Whether member `id` has ever started.
    pub fn started(&self, id: MemberId) -> bool {
        (id >> 16)
            < self
                .started
                .get(member_host(id) as usize)
                .copied()
                .unwrap_or(0)
    }

    /// The member with id `id`, if its process's data is still on its host.
    pub fn member(&self, id: MemberId) -> Option<&EtcdMember> {
        self.members[member_host(id) as usize]
            .as_deref()
            .filter(|m| m.raft.id() == id)
    }

    /// The machine of `host` is gone with its disk (a reclaimed spot instance being replaced):
    /// its member, if any, is left only in the others' configuration.
    pub fn lose_disk(&mut self, host: HostId) {
        self.members[host as usize] = None;
    }

    /// A member now runs on `host` (added to the cluster).
    pub fn place(&mut self, host: HostId, member: EtcdMember) {
        let n = &mut self.started[host as usize];
        *n = (*n).max((member.raft.id() >> 16) + 1);
        self.members[host as usize] = Some(Box::new(member));
        if let Err(i) = self.hosts.binary_search(&host) {
            self.hosts.insert(i, host);
        }
    }

    /// The hosts with an etcd member, and their members, in host order.
    pub fn members(&self) -> impl Iterator<Item = (HostId, &EtcdMember)> {
        self.hosts
            .iter()
            .filter_map(|&h| self.members[h as usize].as_deref().map(|m| (h, m)))
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

    /// Whether `id` is in the current cluster's configuration (voter or learner), as the member
    /// that has applied the most knows it.
    pub fn listed(&self, id: MemberId) -> bool {
        self.freshest()
            .is_some_and(|m| m.raft.voters().contains(&id) || m.raft.learners().contains(&id))
    }

    /// The member of the current cluster that has applied the most: the freshest view of the store.
    pub fn freshest(&self) -> Option<&EtcdMember> {
        self.members
            .iter()
            .flatten()
            .filter(|m| m.cluster == self.current)
            .max_by_key(|m| (m.raft.applied_index(), std::cmp::Reverse(m.host)))
            .map(|m| &**m)
    }

    /// Voting members of the current cluster, from the member that has applied the most.
    pub fn voters(&self) -> Vec<MemberId> {
        self.freshest()
            .map(|m| m.raft.voters().iter().copied().collect())
            .unwrap_or_default()
    }

    /// (voters up and mutually reachable in the largest group, all voters).
    pub fn connected_voters(&self, net: &Network) -> (usize, usize) {
        let voters = self.voters();
        let reachable: Vec<HostId> = voters
            .iter()
            .filter(|&&id| {
                net.island_of(member_host(id)).is_some()
                    && self
                        .member(id)
                        .is_some_and(|m| !m.removed && m.cluster == self.current)
            })
            .map(|&id| member_host(id))
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
