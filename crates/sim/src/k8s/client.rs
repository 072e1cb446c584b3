//! The client side of the API (client-go's REST client, reduced): numbered requests
//! to one endpoint — the load balancer, or an apiserver — each with a timeout. The
//! owner tags each request so it knows what an answer is for.
//!
//! One timer is armed at the earliest deadline rather than one per request: answers
//! come in milliseconds, so almost every per-request timer would fire for nothing.
//! An answer that arrives after its deadline counts as a timeout, exactly as before.

use crate::k8s::api::{ApiPayload, ApiRequest, RequestId};
use crate::k8s::wire::Timer;
use crate::k8s::wire::{Ctx, Payload};
use crate::kernel::inflight::InFlight;
use crate::kernel::process::{Addr, Alarm, Port, Sub};
use crate::kernel::time::{Duration, SimTime};

/// client-go's HTTP/2 health check: a connection it read nothing on for 30 s is pinged, and
/// closed when 15 s more pass without the answer.
pub const HTTP2_HEALTH_CHECK: Duration = Duration::from_secs(45);

/// Whether the process at `port` keeps one connection to the API endpoint for all its requests
/// (client-go's programs: the kubelet, kube-proxy, the controllers, the operator) or dials anew
/// for each (kubectl and curl at a terminal, the API write probe).
pub fn keeps_its_connection(port: Port) -> bool {
    !matches!(port, Port::API_PROBE | Port::TERMINAL)
}

/// In this order (`repr(C)`), so that a cold client is one or two cache lines to its owner.
#[derive(Clone)]
#[repr(C)]
pub struct ApiClient<T> {
    me: Addr,
    pub endpoint: Addr,
    /// Which of its owner's clients this is: answers and timeouts come back to it by this.
    sub: Sub,
    next_seq: u64,
    /// The check timer, at the earliest deadline.
    check: Alarm,
    /// Outstanding requests: tag and deadline.
    pending: InFlight<(T, SimTime)>,
}

impl<T> ApiClient<T> {
    /// The process's own client (sub-address 0).
    pub fn new(me: Addr, endpoint: Addr) -> Self {
        Self::at(me, endpoint, Sub::default())
    }

    /// One of several clients of a process, at its own sub-address.
    pub fn at(me: Addr, endpoint: Addr, sub: Sub) -> Self {
        ApiClient {
            me,
            endpoint,
            sub,
            next_seq: 0,
            pending: InFlight::default(),
            check: Alarm::default(),
        }
    }

    pub fn sub(&self) -> Sub {
        self.sub
    }

    /// Whether an answer or a timeout for `sub` is this client's.
    pub fn owns(&self, sub: Sub) -> bool {
        sub == self.sub
    }

    pub fn send(&mut self, ctx: &mut Ctx, req: ApiRequest, tag: T, timeout: Duration) -> RequestId {
        self.next_seq += 1;
        let id = RequestId::new(self.sub, self.next_seq);
        let deadline = ctx.now + timeout;
        self.pending.insert(id.seq(), (tag, deadline));
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
            Timer::ApiTimeout { sub: self.sub },
        );
        id
    }

    /// The tag of a request answered in time (None if unknown or past its deadline: that
    /// one is reported by `expired`).
    pub fn answered(&mut self, id: RequestId, now: SimTime) -> Option<T> {
        if id.sub() != self.sub {
            return None;
        }
        let seq = id.seq();
        match self.pending.get(seq) {
            Some((_, deadline)) if now <= *deadline => self.pending.remove(seq).map(|(t, _)| t),
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
            self.check
                .request(ctx, self.me.port, next, Timer::ApiTimeout { sub: self.sub });
        }
        tags
    }

    /// Its connections are closed: every request in flight fails (their tags, in id order); an
    /// answer that still comes is ignored.
    pub fn close(&mut self) -> Vec<T> {
        self.pending.drain().map(|(t, _)| t).collect()
    }

    pub fn me_port(&self) -> crate::kernel::process::Port {
        self.me.port
    }

    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }
}
