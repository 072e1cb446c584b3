//! Plain-data views of a world at one instant, for the UI: what each host runs
//! and in which state, the network's islands, and etcd's quorum. The UI reads only
//! these (and the report), never the world's internals.

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Snapshot {
    /// Report seconds (t = 0 is the settled cluster).
    pub t: f64,
    pub zones: Vec<String>,
    pub hosts: Vec<HostView>,
    pub etcd: EtcdView,
    /// Whether any partition, isolation or one-way fault is in force.
    pub network_faulty: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostView {
    pub name: String,
    pub zone: String,
    pub roles: Vec<&'static str>,
    /// `up`, `down` (crashed), `terminated` (spot, never returns), `standby` (not joined yet).
    pub state: &'static str,
    /// Network island: hosts with the same island can talk (0 when nothing is partitioned).
    pub island: u32,
    pub isolated: bool,
    pub spot: bool,
    pub etcd: Option<MemberView>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberView {
    /// `leader`, `follower`, `candidate`, `pre-candidate`, `removed`, or `stopped` (host down).
    pub role: &'static str,
    pub term: u64,
    pub commit: u64,
    pub applied: u64,
    /// A voter of the current cluster (false for members of an abandoned cluster or removed ones).
    pub voter: bool,
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
        let state = if self.has_quorum { "quorum" } else { "NO QUORUM" };
        format!("etcd: {} of {} — {state}", self.connected, self.voters)
    }
}
