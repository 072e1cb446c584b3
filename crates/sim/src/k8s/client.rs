//! The client side of the API (client-go's REST client, reduced): numbered requests
//! to one endpoint — the load balancer, or an apiserver — each with a timeout. The
//! owner tags each request so it knows what an answer is for.
//!
//! One timer is armed at the earliest deadline rather than one per request: answers
//! come in milliseconds, so almost every per-request timer would fire for nothing.
//! An answer that arrives after its deadline counts as a timeout, exactly as before.

use crate::k8s::api::{ApiPayload, ApiRequest};
use crate::k8s::wire::{Ctx, Payload};
use crate::kernel::inflight::InFlight;
use crate::kernel::process::{Addr, Alarm, Timer};
use crate::kernel::time::{Duration, SimTime};

/// In this order (`repr(C)`), so that a cold client is one or two cache lines to its owner.
#[derive(Clone)]
#[repr(C)]
pub struct ApiClient<T> {
    me: Addr,
    pub endpoint: Addr,
    id_base: u64,
    next_id: u64,
    /// The check timer, at the earliest deadline.
    check: Alarm,
    /// Outstanding requests: tag and deadline.
    pending: InFlight<(T, SimTime)>,
}

/// Request ids of one client fall in `[id_base, id_base + ID_SPACE)`.
pub const ID_SPACE: u64 = 1 << 40;

impl<T> ApiClient<T> {
    pub fn new(me: Addr, endpoint: Addr) -> Self {
        Self::with_id_base(me, endpoint, 0)
    }

    /// A client whose ids do not collide with those of other clients of the same process.
    pub fn with_id_base(me: Addr, endpoint: Addr, id_base: u64) -> Self {
        ApiClient {
            me,
            endpoint,
            id_base,
            next_id: id_base,
            pending: InFlight::default(),
            check: Alarm::default(),
        }
    }

    pub fn owns(&self, id: u64) -> bool {
        (self.id_base..self.id_base + ID_SPACE).contains(&id)
    }

    pub fn send(&mut self, ctx: &mut Ctx, req: ApiRequest, tag: T, timeout: Duration) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let deadline = ctx.now + timeout;
        self.pending.insert(id, (tag, deadline));
        let msg = ApiPayload::Request {
            id,
            client: self.me,
            via: None,
            req,
        };
        ctx.send(self.me.port, self.endpoint, Payload::Api(msg));
        self.check.request(
            ctx,
            self.me.port,
            deadline,
            Timer::ApiTimeout { id: self.id_base },
        );
        id
    }

    /// The tag of a request answered in time (None if unknown or past its deadline: that
    /// one is reported by `expired`).
    pub fn answered(&mut self, id: u64, now: SimTime) -> Option<T> {
        match self.pending.get(id) {
            Some((_, deadline)) if now <= *deadline => self.pending.remove(id).map(|(t, _)| t),
            _ => None,
        }
    }

    /// The check timer fired: the tags of the requests past their deadline, in id order;
    /// the timer is armed again for the next deadline.
    pub fn expired(&mut self, ctx: &mut Ctx) -> Vec<T> {
        let now = ctx.now;
        let due: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, (_, d))| *d <= now)
            .map(|(id, _)| id)
            .collect();
        let tags = due
            .into_iter()
            .filter_map(|id| self.pending.remove(id).map(|(t, _)| t))
            .collect();
        self.check.rang(now);
        if let Some(next) = self.pending.values().map(|(_, d)| *d).min() {
            self.check.request(
                ctx,
                self.me.port,
                next,
                Timer::ApiTimeout { id: self.id_base },
            );
        }
        tags
    }

    pub fn me_port(&self) -> crate::kernel::process::Port {
        self.me.port
    }

    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }
}
