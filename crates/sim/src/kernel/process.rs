//! The contract between processes and the world: addresses, messages, timers and effects.
//!
//! Processes are sans-IO state machines (as in quinn-proto or raft-rs): the world
//! hands them a message or a fired timer together with a [`Ctx`], and they answer
//! only by pushing effects (send a message, set a timer) and observations into it.
//! They never see the queue, the network or the clock beyond `ctx.now`.
//!
//! The kernel knows no message or observer type: a world chooses its payload `P` (the
//! union of what its processes say to each other) and the observer `O` its processes
//! report to; each layer above names the part it needs (etcd its own messages and
//! `etcd::Observe`, Kubernetes the whole payload and `k8s::Observe`).

use crate::kernel::net::HostId;
use crate::kernel::time::{Duration, SimTime};
use std::collections::VecDeque;

/// Which process on a host a message or timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// kube-vip beside a control-plane host's apiserver.
    KubeVip,
    /// keepalived beside a control-plane host's apiserver.
    Keepalived,
    /// The API's virtual IP: not a process, an address the world routes to whoever holds it.
    Vip,
    /// A `client` host's traffic.
    Client,
    /// A person's terminal on a host (kubectl, etcdctl): see `world::terminal`.
    Terminal,
    /// The operator: applies the scenario's workloads at boot and its operator actions.
    Operator,
}

impl Port {
    /// How many ports there are (`Operator` is the last variant), for tables indexed by port.
    pub const COUNT: usize = Port::Operator as usize + 1;
}

/// A sub-address inside a process: which of its clients (its own, an informer of its, …) a
/// reply or a timeout is for. The process names its sub-addresses; the world never looks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sub(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Addr {
    pub host: HostId,
    pub port: Port,
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
    /// An API request of the client at this sub-address is overdue.
    ApiTimeout {
        sub: Sub,
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
pub enum Effect<P> {
    Send {
        from: Port,
        to: Addr,
        payload: P,
    },
    Timer {
        port: Port,
        after: Duration,
        timer: Timer,
    },
    /// The process closes its connections: its next request dials again.
    HangUp {
        port: Port,
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
    pub fn request<P, O: ?Sized>(
        &mut self,
        ctx: &mut Ctx<P, O>,
        port: Port,
        at: SimTime,
        timer: Timer,
    ) {
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
pub struct Ctx<'a, P, O: ?Sized> {
    pub now: SimTime,
    pub host: HostId,
    pub effects: &'a mut VecDeque<Effect<P>>,
    pub obs: &'a mut O,
}

impl<P, O: ?Sized> Ctx<'_, P, O> {
    pub fn send(&mut self, from: Port, to: Addr, payload: impl Into<P>) {
        let payload = payload.into();
        self.effects.push_back(Effect::Send { from, to, payload });
    }

    pub fn set_timer(&mut self, port: Port, after: Duration, timer: Timer) {
        self.effects.push_back(Effect::Timer { port, after, timer });
    }

    pub fn hang_up(&mut self, port: Port) {
        self.effects.push_back(Effect::HangUp { port });
    }
}
