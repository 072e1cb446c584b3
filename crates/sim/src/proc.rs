//! The contract between processes and the world: addresses, messages, timers and effects.
//!
//! Processes are sans-IO state machines (as in quinn-proto or raft-rs): the world
//! hands them a message or a fired timer together with a [`Ctx`], and they answer
//! only by pushing effects (send a message, set a timer) and observations into it.
//! They never see the queue, the network or the clock beyond `ctx.now`.

use crate::etcd::kv::{KeyValue, KvOp, KvResult};
use crate::etcd::raft;
use crate::net::HostId;
use crate::observe::Observer;
use crate::time::{Duration, SimTime};
use std::collections::VecDeque;

/// Which process on a host a message or timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Port {
    Etcd,
    /// The steady etcd client that measures write availability.
    EtcdProbe,
    Apiserver,
    Lb,
    ControllerManager,
    Scheduler,
    /// The steady API client that measures API write availability.
    ApiProbe,
    Kubelet,
    KubeProxy,
    /// The CoreDNS pods running on a host.
    CoreDns,
    /// A `client` host's traffic.
    Client,
    /// The operator: applies the scenario's workloads at boot and its operator actions.
    Operator,
}

impl Port {
    /// How many ports there are (`Operator` is the last variant), for tables indexed by port.
    pub const COUNT: usize = Port::Operator as usize + 1;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Addr {
    pub host: HostId,
    pub port: Port,
}

/// A command replicated through etcd's Raft log: who asked (so that member answers) and what.
/// Log entries and the messages that carry them share one copy of each command.
pub type EtcdCmd = std::sync::Arc<Cmd>;

#[derive(Clone, Debug, PartialEq)]
pub struct Cmd {
    pub origin: HostId,
    pub ctx: u64,
    pub op: KvOp,
}

/// Client requests to an etcd member (the etcd v3 API, reduced).
#[derive(Clone, Debug, PartialEq)]
pub enum EtcdRequest {
    Write(KvOp),
    /// Range over a key prefix; `linearizable` goes through ReadIndex, otherwise served locally (serializable).
    Read {
        prefix: String,
        linearizable: bool,
    },
    /// A linearizable range of `prefix`, then every later change under it, streamed as
    /// [`Payload::EtcdWatch`] (etcd's list-then-watch, with `WithRequireLeader`).
    Watch {
        prefix: String,
    },
}

/// One change seen by an etcd watch: the key's new state, or None when deleted.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchEvent {
    pub key: crate::etcd::kv::Key,
    pub kv: Option<KeyValue>,
    pub revision: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EtcdResponse {
    Written(KvResult),
    Read {
        revision: u64,
        kvs: Vec<(crate::etcd::kv::Key, KeyValue)>,
    },
    /// A watch started: the range at `revision`; changes after it follow.
    WatchStarted {
        revision: u64,
        kvs: Vec<(crate::etcd::kv::Key, KeyValue)>,
    },
    Failed(EtcdError),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtcdError {
    /// "etcdserver: no leader"
    NoLeader,
    /// The member was removed from the cluster or is not serving.
    NotServing,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// Raft traffic between members; `cluster` is the cluster id (changed by force-new-cluster),
    /// messages of another cluster are dropped as etcd does.
    Raft {
        cluster: u64,
        msg: raft::Message<EtcdCmd>,
    },
    /// A Raft `Snapshot` message and the store it covers (etcd sends its database file beside it).
    RaftSnapshot {
        cluster: u64,
        msg: Box<raft::Message<EtcdCmd>>,
        store: std::sync::Arc<crate::etcd::kv::KvStore>,
    },
    EtcdReq {
        id: u64,
        req: EtcdRequest,
    },
    EtcdResp {
        id: u64,
        resp: EtcdResponse,
    },
    /// Changes for the watch opened by request `id`; an empty batch is a progress notification.
    EtcdWatch {
        id: u64,
        events: Vec<WatchEvent>,
    },
    /// The member cancelled the watch (no leader for too long, or it stopped serving).
    EtcdWatchCancelled {
        id: u64,
    },
    /// Kubernetes API traffic.
    Api(crate::k8s::api::ApiPayload),
}

/// Timers a process can set; the world hands them back when due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// etcd's Raft tick (every heartbeat interval).
    RaftTick,
    /// The etcd probe's next write.
    ProbeWrite,
    /// A probe request is overdue.
    ProbeTimeout {
        id: u64,
    },
    /// The apiserver's earliest etcd request deadline has come.
    EtcdTimeouts,
    /// A process's periodic housekeeping.
    Housekeeping,
    /// The kubelet's liveness probe of the apiserver.
    Livez,
    LbCheck,
    LbCheckTimeout {
        id: u64,
    },
    /// An API request of a client is overdue.
    ApiTimeout {
        id: u64,
    },
    /// Leader election: the next try to acquire or renew.
    LeaderElection,
    /// The process restarts (after an exit or a kill, with the kubelet's back-off).
    Start,
    /// A one-shot nudge to re-check state (not a loop).
    Wake,
    /// The kubelet's node lease renewal.
    NodeLease,
    /// The next round of a client's requests.
    ClientTick,
}

#[derive(Clone)]
pub enum Effect {
    Send {
        from: Port,
        to: Addr,
        payload: Payload,
    },
    Timer {
        port: Port,
        after: Duration,
        timer: Timer,
    },
}

/// A wake-up at the earliest moment a process asked for, with one timer in flight rather
/// than one per request. Timers cannot be cancelled: one that was superseded fires for
/// nothing, and the process just checks again.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alarm {
    at: Option<SimTime>,
}

impl Alarm {
    /// Makes sure `timer` fires on `port` at `at` or earlier.
    pub fn request(&mut self, ctx: &mut Ctx, port: Port, at: SimTime, timer: Timer) {
        if self.at.is_none_or(|t| at < t) {
            self.at = Some(at);
            ctx.set_timer(port, at.saturating_sub(ctx.now), timer);
        }
    }

    /// A timer fired: the alarm is no longer set once its moment has come.
    pub fn rang(&mut self, now: SimTime) {
        if self.at.is_some_and(|t| t <= now) {
            self.at = None;
        }
    }
}

/// What a process sees while handling one input.
pub struct Ctx<'a> {
    pub now: SimTime,
    pub host: HostId,
    pub effects: &'a mut VecDeque<Effect>,
    pub obs: &'a mut Observer,
}

impl Ctx<'_> {
    pub fn send(&mut self, from: Port, to: Addr, payload: Payload) {
        self.effects.push_back(Effect::Send { from, to, payload });
    }

    pub fn set_timer(&mut self, port: Port, after: Duration, timer: Timer) {
        self.effects.push_back(Effect::Timer { port, after, timer });
    }
}
