//! What etcd says on the wire: Raft traffic between members and the client API (the etcd
//! v3 API reduced to writes, ranges and watches). Values are the store's type parameter:
//! etcd carries them and never looks inside.

use super::kv::{KeyValue, KvOp, KvResult, KvStore};
use super::raft;
use crate::kernel::keymap::Key;
use crate::kernel::net::HostId;
use std::sync::Arc;

/// A command replicated through etcd's Raft log: who asked (so that member answers) and what.
/// Log entries and the messages that carry them share one copy of each command.
pub type EtcdCmd<V> = Arc<Cmd<V>>;

#[derive(Clone, Debug, PartialEq)]
pub struct Cmd<V> {
    pub origin: HostId,
    pub ctx: u64,
    pub op: KvOp<V>,
}

/// Client requests to an etcd member.
#[derive(Clone, Debug, PartialEq)]
pub enum EtcdRequest<V> {
    Write(KvOp<V>),
    /// Range over a key prefix; `linearizable` goes through ReadIndex, otherwise served locally (serializable).
    Read {
        prefix: String,
        linearizable: bool,
    },
    /// A linearizable range of `prefix`, then every later change under it, streamed as
    /// [`Msg::Watch`] (etcd's list-then-watch, with `WithRequireLeader`).
    Watch {
        prefix: String,
    },
    /// The members this member knows (`etcdctl member list`): its local view, no quorum needed.
    MemberList,
    /// This member's Raft state (`etcdctl endpoint status`): local, no quorum needed.
    Status,
}

/// One change seen by an etcd watch: the key's new state, or None when deleted.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchEvent<V> {
    pub key: Key,
    pub kv: Option<KeyValue<V>>,
    pub revision: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EtcdResponse<V> {
    Written(KvResult),
    Read {
        revision: u64,
        kvs: Vec<(Key, KeyValue<V>)>,
    },
    /// A watch started: the range at `revision`; changes after it follow.
    WatchStarted {
        revision: u64,
        kvs: Vec<(Key, KeyValue<V>)>,
    },
    /// The cluster's members as this member knows them: (member, is a learner).
    /// Member ids (see [`super::member::member_id`]) and whether each is a learner.
    Members(Vec<(super::raft::MemberId, bool)>),
    Status(MemberStatus),
    Failed(EtcdError),
}

/// A member's answer to [`EtcdRequest::Status`], as etcd's Maintenance.Status gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberStatus {
    pub leader: Option<HostId>,
    pub term: u64,
    pub commit_index: u64,
    pub applied_index: u64,
    pub learner: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtcdError {
    /// "etcdserver: no leader"
    NoLeader,
    /// The member was removed from the cluster or is not serving.
    NotServing,
    /// "etcdserver: request timed out": a linearizable read found no leader to confirm it in
    /// time (5 s + 2 × election timeout).
    Timeout,
}

/// A message to or from an etcd member.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg<V> {
    /// Raft traffic between members; `cluster` is the cluster id (changed by force-new-cluster),
    /// messages of another cluster are dropped as etcd does.
    Raft {
        cluster: u64,
        msg: raft::Message<EtcdCmd<V>>,
    },
    /// A Raft `Snapshot` message and the store it covers (etcd sends its database file beside it).
    RaftSnapshot {
        cluster: u64,
        msg: Box<raft::Message<EtcdCmd<V>>>,
        store: Arc<KvStore<V>>,
    },
    Request {
        id: u64,
        req: EtcdRequest<V>,
    },
    Response {
        id: u64,
        resp: EtcdResponse<V>,
    },
    /// Changes for the watch opened by request `id`; an empty batch is a progress notification.
    Watch {
        id: u64,
        events: Vec<WatchEvent<V>>,
    },
    /// The member cancelled the watch (no leader for too long, or it stopped serving).
    WatchCancelled {
        id: u64,
    },
    /// The member's process stopped cleanly: the watch stream's connection closed, and the
    /// client may open it again from its last revision (clientv3 does, on any endpoint).
    WatchReset {
        id: u64,
    },
    /// A member's peer link to each peer it knows (etcd's rafthttp streams): sent when it
    /// (re)starts, then as the link's heartbeat every [`LINK_HEARTBEAT`](super::member::LINK_HEARTBEAT).
    Dial {
        from: super::raft::MemberId,
    },
    /// A peer's answer to a member it has recorded as removed (etcd's `410 removed member`).
    Removed {
        to: super::raft::MemberId,
    },
}
