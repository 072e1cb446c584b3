//! The contract between processes and the world: addresses, messages, timers and effects.
//!
//! Processes are sans-IO state machines (as in quinn-proto or raft-rs): the world
//! hands them a message or a fired timer together with a [`Ctx`], and they answer
//! only by pushing effects (send a message, set a timer) and observations into it.
//! They never see the queue, the network or the clock beyond `ctx.now`.
//!
//! The kernel knows no process, message, timer or observer: a world chooses its payload `P`
//! (the union of what its processes say to each other), its timers `T` and the observer `O`
//! its processes report to, and numbers its ports; each layer above names the part it needs
//! (etcd its own messages, timers, ports and `etcd::Observe`, Kubernetes the whole payload,
//! its timers and `k8s::Observe`).

use crate::kernel::net::HostId;
use crate::kernel::time::{Duration, SimTime};
use std::collections::VecDeque;
use std::num::NonZeroU8;

/// Which process on a host a message or timer is for. The kernel gives ports no meaning: each
/// layer names the ports of its own processes (`Port::ETCD` in etcd, `Port::APISERVER` in
/// Kubernetes, …), numbered on from the layer below's, and the world sizes its tables by the last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
// Never zero: the spare value lets the enums around an address (a queued message, an answer's
// client) keep their tag in it, 8 bytes less on every message in flight.
pub struct Port(NonZeroU8);

impl Port {
    /// The first port, the lowest layer's first process's.
    pub const FIRST: Port = Port(NonZeroU8::MIN);

    /// The port numbered after this one: where the next process (or layer) starts.
    pub const fn next(self) -> Port {
        match self.0.checked_add(1) {
            Some(n) => Port(n),
            None => panic!("more than 255 ports"),
        }
    }

    /// Where this port's entry is in a table indexed by port (the first's is 0).
    pub const fn index(self) -> usize {
        self.0.get() as usize - 1
    }
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

#[derive(Clone)]
/// What a process asks of the world. `T` is the world's timer type, as `P` is its payload: each
/// layer names its own timers and the world's type holds them all.
pub enum Effect<P, T> {
    Send {
        from: Port,
        to: Addr,
        payload: P,
    },
    Timer {
        port: Port,
        after: Duration,
        timer: T,
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
    pub fn request<P, T, O: ?Sized>(
        &mut self,
        ctx: &mut Ctx<P, T, O>,
        port: Port,
        at: SimTime,
        timer: impl Into<T>,
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
pub struct Ctx<'a, P, T, O: ?Sized> {
    pub now: SimTime,
    pub host: HostId,
    pub effects: &'a mut VecDeque<Effect<P, T>>,
    pub obs: &'a mut O,
}

impl<P, T, O: ?Sized> Ctx<'_, P, T, O> {
    pub fn send(&mut self, from: Port, to: Addr, payload: impl Into<P>) {
        let payload = payload.into();
        self.effects.push_back(Effect::Send { from, to, payload });
    }

    pub fn set_timer(&mut self, port: Port, after: Duration, timer: impl Into<T>) {
        let timer = timer.into();
        self.effects.push_back(Effect::Timer { port, after, timer });
    }

    pub fn hang_up(&mut self, port: Port) {
        self.effects.push_back(Effect::HangUp { port });
    }
}
