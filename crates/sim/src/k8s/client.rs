//! The client side of the API (client-go's REST client, reduced): numbered requests
//! to one endpoint — the load balancer, or an apiserver — each with a timeout. The
//! owner tags each request so it knows what an answer is for.

use crate::k8s::api::{ApiPayload, ApiRequest};
use crate::proc::{Addr, Ctx, Payload, Timer};
use crate::time::Duration;
use std::collections::BTreeMap;

#[derive(Clone)]
pub struct ApiClient<T> {
    me: Addr,
    pub endpoint: Addr,
    id_base: u64,
    next_id: u64,
    pending: BTreeMap<u64, T>,
}

/// Request ids of one client fall in `[id_base, id_base + ID_SPACE)`.
pub const ID_SPACE: u64 = 1 << 40;

impl<T> ApiClient<T> {
    pub fn new(me: Addr, endpoint: Addr) -> Self {
        Self::with_id_base(me, endpoint, 0)
    }

    /// A client whose ids do not collide with those of other clients of the same process.
    pub fn with_id_base(me: Addr, endpoint: Addr, id_base: u64) -> Self {
        ApiClient { me, endpoint, id_base, next_id: id_base, pending: BTreeMap::new() }
    }

    pub fn owns(&self, id: u64) -> bool {
        (self.id_base..self.id_base + ID_SPACE).contains(&id)
    }

    pub fn send(&mut self, ctx: &mut Ctx, req: ApiRequest, tag: T, timeout: Duration) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.pending.insert(id, tag);
        let msg = ApiPayload::Request { id, client: self.me, via: None, req };
        ctx.send(self.me.port, self.endpoint, Payload::Api(msg));
        ctx.set_timer(self.me.port, timeout, Timer::ApiTimeout { id });
        id
    }

    /// The tag of an answered request (None if it already timed out).
    pub fn answered(&mut self, id: u64) -> Option<T> {
        self.pending.remove(&id)
    }

    /// The tag of a request that timed out (None if it was answered in time).
    pub fn timed_out(&mut self, id: u64) -> Option<T> {
        self.pending.remove(&id)
    }

    pub fn me_port(&self) -> crate::proc::Port {
        self.me.port
    }

    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }
}
