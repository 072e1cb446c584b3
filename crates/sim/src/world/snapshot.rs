//! What the UI draws at one instant, as plain data ([`crate::view`]): each host with its
//! components and pods, the network's islands, etcd's quorum. Read from the processes' own
//! state and, for Nodes, from the freshest etcd member's store: what the API would answer.

use super::World;
use crate::etcd::quorum;
use crate::etcd::raft::MemberId;
use crate::etcd::raft::Role as RaftRole;
use crate::k8s::leader::{KCM_LEASE, SCHEDULER_LEASE};
use crate::k8s::objects::KUBE_PROXY;
use crate::kernel::net::HostId;
use crate::view::{
    ApiserverView, BackendView, EtcdView, Fill, HostState, HostView, LeaderRole, MemberRole,
    MemberView, PodView, Snapshot,
};
use std::cell::RefCell;
use std::rc::Rc;

/// Each host's pods as last drawn, and the kubelet's containers they were read from, for the
/// next snapshot ([`World::snapshot_with`]). A snapshot of 1,000 hosts copied 11,000 pods' names
/// each time (a quarter of its cost; the page takes one each frame while playing, and a long run
/// keeps one every minute or two): while a kubelet's containers are the same map (it copies the
/// map to change it while another holds it), the snapshot shares the list. The same map gives
/// the same list in any world, so a copy of the world may use it too.
#[derive(Default)]
pub struct ViewCache {
    pods: RefCell<Vec<Option<Drawn>>>,
}

/// A kubelet's containers, and the pods drawn from them.
type Drawn = (Rc<Containers>, Rc<Vec<PodView>>);
type Containers = crate::kernel::members::MemberMap<String, crate::k8s::kubelet::Container>;

/// What every host's view needs of the cluster as a whole, read once per snapshot.
struct Cluster {
    voters: Vec<MemberId>,
    terminating: Vec<(String, PodView)>,
    /// Whether a controller-manager watches the Nodes (a leader, with quorum behind it).
    watched: bool,
}

impl World {
    /// What the UI draws at the current instant.
    pub fn snapshot(&self) -> Snapshot {
        self.snapshot_with(&ViewCache::default())
    }

    /// The same, sharing with the snapshots `drawn` was used for what has not changed since.
    pub fn snapshot_with(&self, drawn: &ViewCache) -> Snapshot {
        let (connected, n) = self.etcd.connected_voters(&self.net);
        let watched = quorum::has_quorum(connected, n)
            && self.obs.lease_leader(KCM_LEASE).is_some_and(|h| {
                let rt = &self.hosts[h as usize];
                rt.up && rt.joined && self.procs.on[h as usize].kcm.is_some()
            });
        let cluster = Cluster {
            voters: self.etcd.voters(),
            terminating: self.terminating_pods(),
            watched,
        };
        let hosts = (0..self.scenario.hosts.len())
            .map(|i| self.host_view(i as HostId, &cluster, drawn))
            .collect();
        let leader = self.etcd.leader(&self.hosts);
        Snapshot {
            t: self.obs.secs(self.now),
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
            pending: (self.obs.unschedulable.iter())
                .map(|(name, workload)| PodView {
                    name: name.clone(),
                    workload: workload.clone(),
                })
                .collect(),
        }
    }

    fn host_view(&self, id: HostId, cluster: &Cluster, drawn: &ViewCache) -> HostView {
        let (h, rt) = (&self.scenario.hosts[id as usize], &self.hosts[id as usize]);
        let state = if rt.terminated {
            HostState::Terminated
        } else if !rt.joined {
            HostState::Standby
        } else if rt.up {
            HostState::Up
        } else {
            HostState::Down
        };
        let procs = &self.procs.on[id as usize];
        let up = rt.up && rt.joined;
        let pods = self.pods_view(id, drawn);
        // Terminating in the API, its container already gone.
        let terminating: Vec<PodView> = (cluster.terminating.iter())
            .filter(|(node, p)| {
                *node == h.name
                    && !(procs.kubelet.as_ref()).is_some_and(|k| k.containers.contains_key(&p.name))
            })
            .map(|(_, p)| p.clone())
            .collect();
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
            etcd: self.member_view(id, &cluster.voters),
            apiserver: h.runs_apiserver().then(|| ApiserverView {
                running: up && procs.apiserver.is_some(),
                ready: self.apiserver_ready(id),
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
            node: (h.is_node())
                .then(|| self.node_view(&h.name, cluster.watched))
                .flatten(),
            fill: self.fill(id, pods.iter().chain(&terminating)),
            pods,
            terminating,
            lb_backends: (procs.lb.iter())
                .flat_map(|lb| lb.backends().into_iter().zip(lb.connections()))
                .map(|((b, in_service), connections)| BackendView {
                    name: self.hosts[b as usize].name.clone(),
                    in_service,
                    connections,
                })
                .collect(),
            vip: self.holds_vip(id),
        }
    }

    /// The pods whose containers run on a host: the list drawn last while its kubelet's
    /// containers are the same ([`ViewCache`]). kube-proxy's pod runs on every Node: the card
    /// keeps to the pods that tell Nodes apart.
    fn pods_view(&self, id: HostId, drawn: &ViewCache) -> Rc<Vec<PodView>> {
        let Some(kubelet) = &self.procs.on[id as usize].kubelet else {
            return Rc::default();
        };
        let mut cache = drawn.pods.borrow_mut();
        if cache.len() <= id as usize {
            cache.resize(id as usize + 1, None);
        }
        let slot = &mut cache[id as usize];
        match slot {
            Some((seen, pods)) if Rc::ptr_eq(seen, &kubelet.containers) => pods.clone(),
            _ => {
                let pods: Rc<Vec<PodView>> = Rc::new(
                    (kubelet.containers.iter())
                        .filter(|(_, c)| c.workload != KUBE_PROXY)
                        .map(|(p, c)| PodView {
                            name: p.clone(),
                            workload: c.workload.clone(),
                        })
                        .collect(),
                );
                *slot = Some((kubelet.containers.clone(), pods.clone()));
                pods
            }
        }
    }

    /// The etcd member on a host, if it has one: its role as Raft has it, and its place in the
    /// current cluster.
    fn member_view(&self, id: HostId, voters: &[MemberId]) -> Option<MemberView> {
        let m = self.etcd.members[id as usize].as_ref()?;
        let current = m.cluster == self.etcd.current;
        Some(MemberView {
            role: if !self.hosts[id as usize].up {
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
            voter: current && voters.contains(&m.raft.id()),
            learner: current && !m.removed && m.raft.learners().contains(&m.raft.id()),
        })
    }

    /// A worker's requests against what it can allocate, when the run tracks capacity.
    fn fill<'a>(&self, id: HostId, pods: impl Iterator<Item = &'a PodView>) -> Option<Fill> {
        let h = &self.scenario.hosts[id as usize];
        let c = self.hosts.capacity.as_ref().filter(|_| h.is_worker())?;
        let a = h.allocatable();
        let mut fill = Fill {
            cpu: 0,
            cpu_allocatable: a.cpu,
            memory: 0,
            memory_allocatable: a.memory,
        };
        for p in pods {
            let r = (c.requests.get(p.workload.as_str()))
                .copied()
                .unwrap_or_default();
            fill.cpu += r.cpu;
            fill.memory += r.memory;
        }
        Some(fill)
    }

    /// Pods the API has marked for deletion (Terminating), by the node they are bound to, as the
    /// most up-to-date etcd member stores them.
    fn terminating_pods(&self) -> Vec<(String, crate::view::PodView)> {
        use crate::k8s::objects::PODS;
        let Some(member) = self.etcd.freshest() else {
            return Vec::new();
        };
        member
            .kv
            .range_prefix(PODS)
            .filter_map(|(_, kv)| {
                let p = kv.value.as_pod()?;
                p.deletion?;
                // As for running pods: no kube-proxy, and no static pod's mirror.
                if p.of_its_node() {
                    return None;
                }
                Some((
                    p.node.clone()?,
                    crate::view::PodView {
                        name: p.name.clone(),
                        workload: p.workload.clone(),
                    },
                ))
            })
            .collect()
    }

    /// The Node object as the most up-to-date etcd member stores it.
    fn node_view(&self, name: &str, watched: bool) -> Option<crate::view::NodeView> {
        use crate::k8s::objects::{node_key, node_lease_key, Condition};
        use crate::view::NodeReadiness;
        let member = self.etcd.freshest()?;
        let kv = member.kv.get(&node_key(name))?;
        let node = kv.value.as_node()?;
        let renewed = member
            .kv
            .get(&node_lease_key(name))
            .and_then(|kv| Some(kv.value.as_lease()?.renew_time));
        let settings = &self.scenario.settings;
        let overdue = crate::kernel::time::Duration(settings.node_lease_renew_interval.0 * 3 / 2);
        let renewed = renewed.filter(|&t| t + overdue < self.now);
        // The node lifecycle controller counts the grace period from when it saw the lease
        // change (its probe time: a new leader's starts when it took over), not from the renewal.
        // Asked of overdue leases only: the snapshot of a large cluster looks at every node.
        let since = |renewed: crate::kernel::time::SimTime| {
            let heard = self.procs.node_heard_from(name);
            heard.unwrap_or(renewed).max(renewed)
        };
        Some(crate::view::NodeView {
            stale_after: renewed
                .map(|t| self.obs.secs(since(t) + settings.node_monitor_grace_period)),
            watched,
            ready: match node.ready {
                Condition::True => NodeReadiness::Ready,
                Condition::False => NodeReadiness::NotReady,
                Condition::Unknown => NodeReadiness::Unknown,
            },
            taints: node
                .taints
                .iter()
                .map(|t| t.key.name().to_string())
                .collect(),
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
