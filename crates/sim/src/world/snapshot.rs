//! What the UI draws at one instant, as plain data ([`crate::view`]): each host with its
//! components and pods, the network's islands, etcd's quorum. Read from the processes' own
//! state and, for Nodes, from the freshest etcd member's store: what the API would answer.

use super::World;
use crate::etcd::quorum;
use crate::etcd::raft::Role as RaftRole;
use crate::k8s::leader::{KCM_LEASE, SCHEDULER_LEASE};
use crate::kernel::net::HostId;

impl World {
    /// What the UI draws at the current instant.
    pub fn snapshot(&self) -> crate::view::Snapshot {
        use crate::view::{
            ApiserverView, EtcdView, HostState, HostView, LeaderRole, MemberRole, MemberView,
            PodView, Snapshot,
        };
        let voters = self.etcd.voters();
        let hosts = self
            .scenario
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let rt = &self.hosts[i];
                let id = i as HostId;
                let state = if rt.terminated {
                    HostState::Terminated
                } else if !rt.joined {
                    HostState::Standby
                } else if rt.up {
                    HostState::Up
                } else {
                    HostState::Down
                };
                let etcd = self.etcd.members[i].as_ref().map(|m| MemberView {
                    role: if !rt.up {
                        MemberRole::Stopped
                    } else if m.removed {
                        MemberRole::Removed
                    } else {
                        match m.raft.role() {
                            RaftRole::Leader => MemberRole::Leader,
                            RaftRole::Follower => MemberRole::Follower,
                            RaftRole::Candidate => MemberRole::Candidate,
                            RaftRole::PreCandidate => MemberRole::PreCandidate,
                        }
                    },
                    term: m.raft.term(),
                    commit: m.raft.commit_index(),
                    applied: m.raft.applied_index(),
                    voter: m.cluster == self.etcd.current && voters.contains(&id),
                });
                let procs = &self.procs.on[i];
                let up = rt.up && rt.joined;
                let leading = |lease: &str, runs: bool, running: bool| {
                    runs.then(
                        || match (up && running, self.obs.lease_leader(lease) == Some(id)) {
                            (true, true) => LeaderRole::Leader,
                            (true, false) => LeaderRole::Standby,
                            _ => LeaderRole::Restarting,
                        },
                    )
                };
                HostView {
                    name: h.name.clone(),
                    zone: h.zone.clone(),
                    roles: h.roles.iter().map(|r| r.name()).collect(),
                    state,
                    island: self.net.island(id),
                    isolated: self.net.is_isolated(id),
                    spot: h.spot,
                    etcd,
                    apiserver: h.runs_apiserver().then(|| ApiserverView {
                        running: up && procs.apiserver.is_some(),
                        ready: up && procs.apiserver.as_ref().is_some_and(|a| a.cache_synced()),
                    }),
                    controller_manager: leading(
                        KCM_LEASE,
                        h.runs_controller_manager(),
                        procs.kcm.is_some(),
                    ),
                    scheduler: leading(
                        SCHEDULER_LEASE,
                        h.runs_scheduler(),
                        procs.scheduler.is_some(),
                    ),
                    node: h.is_node().then(|| self.node_view(&h.name)).flatten(),
                    pods: procs
                        .kubelet
                        .as_ref()
                        .map(|k| {
                            k.containers
                                .iter()
                                .map(|(p, c)| PodView {
                                    name: p.clone(),
                                    workload: c.workload.clone(),
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    lb_backends: procs
                        .lb
                        .as_ref()
                        .map(|lb| {
                            lb.backends()
                                .into_iter()
                                .map(|(b, up)| (self.hosts[b as usize].name.clone(), up))
                                .collect()
                        })
                        .unwrap_or_default(),
                }
            })
            .collect();
        let (connected, n) = self.etcd.connected_voters(&self.net);
        let leader = self.etcd.leader(&self.hosts);
        Snapshot {
            t: self.obs.secs(self.now).max(0.0),
            zones: self.zone_names(),
            hosts,
            etcd: EtcdView {
                voters: n,
                connected,
                quorum_size: quorum::quorum(n),
                has_quorum: quorum::has_quorum(connected, n),
                leader: leader.map(|h| self.hosts[h as usize].name.clone()),
                term: self.etcd.term(leader),
            },
            network_faulty: self.net.is_faulty(),
        }
    }

    /// The Node object as the most up-to-date etcd member stores it.
    fn node_view(&self, name: &str) -> Option<crate::view::NodeView> {
        use crate::k8s::objects::{node_key, Condition};
        use crate::view::NodeReadiness;
        let member = self.etcd.freshest()?;
        let kv = member.kv.get(&node_key(name))?;
        let node = kv.value.as_node()?;
        Some(crate::view::NodeView {
            ready: match node.ready {
                Condition::True => NodeReadiness::Ready,
                Condition::False => NodeReadiness::NotReady,
                Condition::Unknown => NodeReadiness::Unknown,
            },
            taints: node.taints.iter().map(|t| t.key.name()).collect(),
        })
    }

    /// Declared zones, then any zone only hosts name (`default`), in first-seen order.
    fn zone_names(&self) -> Vec<String> {
        let mut zones = self.scenario.zones.clone();
        for h in &self.scenario.hosts {
            if !zones.contains(&h.zone) {
                zones.push(h.zone.clone());
            }
        }
        zones
    }
}
