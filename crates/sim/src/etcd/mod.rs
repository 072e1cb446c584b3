//! etcd: a Raft-replicated key-value store with revisions, as a set of processes over the
//! kernel. It knows nothing of Kubernetes: what it stores is a type parameter it never looks
//! inside, it speaks its own wire types ([`wire`]) and reports through its own [`Observe`].

pub mod kv;
pub mod member;
pub mod observe;
pub mod probe;
pub mod quorum;
pub mod raft;
pub mod wire;

pub use observe::Observe;
pub use wire::Msg;

use crate::kernel::process::Port;

/// The ports of etcd's processes, the first of the world's.
impl Port {
    /// An etcd member: its peers' Raft traffic and its clients' requests.
    pub const ETCD: Port = Port::FIRST;
    /// The steady etcd client that measures write availability.
    pub const ETCD_PROBE: Port = Port::ETCD.next();
}

/// The timers etcd's processes set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// A member's Raft tick (every heartbeat interval).
    RaftTick,
    /// A probe request is overdue.
    ProbeTimeout { id: u64 },
}

/// What an etcd process sees while handling one input: the world's payload `P` (into which
/// etcd's [`Msg`] converts), its timers `T` (into which etcd's [`Timer`] converts) and an
/// observer seen only as [`Observe`].
pub type Ctx<'a, P, T> = crate::kernel::process::Ctx<'a, P, T, dyn Observe + 'a>;
