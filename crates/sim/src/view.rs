//! Plain-data views of a world at one instant, for the UI: what each host runs
//! and in which state, the network's islands, and etcd's quorum. The UI reads only
//! these (and the report), never the world's internals.

use serde::Serialize;
use std::rc::Rc;

kinds! {
    /// A host's life as drawn.
    HostState {
        Up = "up",
        /// Crashed (or between the halves of a reboot).
        Down = "down",
        /// A spot host after its termination: it never returns.
        Terminated = "terminated",
        /// Powered on, not part of the cluster until `join`.
        Standby = "standby",
    }
}

kinds! {
    /// An etcd member's role as drawn.
    MemberRole {
        Leader = "leader",
        Follower = "follower",
        Candidate = "candidate",
        PreCandidate = "pre-candidate",
        /// Removed from the cluster: etcd stopped serving.
        Removed = "removed",
        /// Its host is down.
        Stopped = "stopped",
    }
}

kinds! {
    /// A leader-elected component (controller-manager, scheduler) as drawn.
    LeaderRole {
        Leader = "leader",
        Standby = "standby",
        /// Exited (lost its lease) or its host is down: the kubelet restarts it.
        Restarting = "restarting",
    }
}

kinds! {
    /// A Node's Ready condition as the API has it.
    NodeReadiness {
        Ready = "Ready",
        NotReady = "NotReady",
        Unknown = "Unknown",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Snapshot {
    /// Report seconds (t = 0 is the settled cluster; negative while the cluster boots).
    pub t: f64,
    pub zones: Vec<String>,
    pub hosts: Vec<HostView>,
    pub etcd: EtcdView,
    /// Whether any partition, isolation or one-way fault is in force.
    pub network_faulty: bool,
    /// Pods no Node fits right now (followed with capacity or spread).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<PodView>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostView {
    pub name: String,
    pub zone: String,
    pub roles: Vec<&'static str>,
    pub state: HostState,
    /// Network island: hosts with the same island can talk (0 when nothing is partitioned).
    pub island: u32,
    pub isolated: bool,
    pub spot: bool,
    pub etcd: Option<MemberView>,
    /// Present on hosts that run an apiserver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apiserver: Option<ApiserverView>,
    /// On hosts that run the component.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_manager: Option<LeaderRole>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<LeaderRole>,
    /// The Node as the API has it (Ready condition, taints), on hosts that are Nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeView>,
    /// The pods whose containers run here, by the kubelet's own account (shared by the
    /// snapshots taken while its containers stay the same).
    pub pods: Rc<Vec<PodView>>,
    /// Pods bound here that the API shows Terminating while no container of theirs runs here
    /// (the kubelet has not confirmed: its host is down or cut off).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub terminating: Vec<PodView>,
    /// On the load balancer: each backend, whether it is in service, and its connections.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lb_backends: Vec<BackendView>,
    /// On a worker, when the scenario gives capacity: what its pods request against its
    /// allocatable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fill: Option<Fill>,
    /// It holds the API's virtual IP (kube-vip, or keepalived: two hosts during a split).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub vip: bool,
}

/// Requests of the pods on a Node against its allocatable: cpu in millicores, memory in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fill {
    pub cpu: u64,
    pub cpu_allocatable: u64,
    pub memory: u64,
    pub memory_allocatable: u64,
}

/// A load balancer's backend: an apiserver's host, whether it is in service, and how many
/// clients' connections the balancer holds to it (haproxy's current sessions).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BackendView {
    pub name: String,
    pub in_service: bool,
    pub connections: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApiserverView {
    /// The process runs (false while killed by its liveness probe and backing off).
    pub running: bool,
    /// Its watch cache is synced with etcd (a part of /readyz).
    pub ready: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeView {
    pub ready: NodeReadiness,
    /// Set when the kubelet's Node Lease is overdue (not renewed for one and a half renew
    /// intervals): the report seconds at which the node lifecycle controller's grace period
    /// runs out, counted from when it saw the lease change (after a failover, from when the new
    /// leader first saw it); its next pass then marks the Node not ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_after: Option<f64>,
    /// Whether a node lifecycle controller runs now to notice: a controller-manager leads on a
    /// host that is up, and etcd has quorum.
    pub watched: bool,
    /// Taint keys, e.g. `node.kubernetes.io/unreachable`.
    pub taints: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PodView {
    pub name: String,
    pub workload: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberView {
    pub role: MemberRole,
    pub term: u64,
    pub commit: u64,
    pub applied: u64,
    /// A voter of the current cluster (false for members of an abandoned cluster or removed ones).
    pub voter: bool,
    /// A learner of the current cluster (it replicates, does not vote, can be promoted).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub learner: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EtcdView {
    pub voters: usize,
    /// Voters up and mutually reachable in the largest connected group.
    pub connected: usize,
    pub quorum_size: usize,
    pub has_quorum: bool,
    pub leader: Option<String>,
    pub term: u64,
}

impl EtcdView {
    /// "etcd: 2 of 3 — quorum" / "etcd: 1 of 3 — NO QUORUM"
    pub fn label(&self) -> String {
        let state = if self.has_quorum {
            "quorum"
        } else {
            "NO QUORUM"
        };
        format!("etcd: {} of {} — {state}", self.connected, self.voters)
    }

    /// How many more voters may fail with the quorum kept (0 without one): two members of two,
    /// or two of three, tolerate none.
    pub fn tolerates(&self) -> usize {
        self.connected.saturating_sub(self.quorum_size)
    }
}
