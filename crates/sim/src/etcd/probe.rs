//! A steady etcd client that writes one key once per simulated second and counts
//! the writes that succeed within 2 s: the measure of write availability.
//!
//! Like `etcdctl` or clientv3 given every member as an endpoint, it sends to one
//! pinned endpoint and moves to the next after a failure or a timeout, so it finds
//! the majority side of a partition by itself. It sits outside every fault (an
//! observer with a view of every host), so what it measures is etcd, not its own link.

use super::kv::{KvOp, KvResult};
use super::wire::{EtcdRequest, EtcdResponse, Msg};
use super::Ctx;
use super::Timer;
use crate::kernel::chunked::Chunked;
use crate::kernel::members::MemberMap;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port};
use crate::kernel::time::{Duration, SimTime};

pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub struct EtcdProbe<V> {
    /// The value written at a report second (etcd's values are its user's type).
    value_of: fn(i64) -> V,
    endpoints: Vec<HostId>,
    pinned: usize,
    next_id: u64,
    /// Outstanding writes: id -> (the report second they were sent at, the endpoint's index).
    outstanding: MemberMap<u64, (i64, usize)>,
    /// Outcome of the write sent at each report second (index = second); None until known.
    /// Shared by the copies of the world (see [`Chunked`]).
    pub outcomes: Chunked<Option<bool>>,
}

impl<V> EtcdProbe<V> {
    pub fn new(endpoints: Vec<HostId>, value_of: fn(i64) -> V) -> Self {
        EtcdProbe {
            value_of,
            endpoints,
            pinned: 0,
            next_id: 0,
            outstanding: MemberMap::default(),
            outcomes: Chunked::default(),
        }
    }

    /// Sends the write for report second `second` (writes before t = 0 are not counted).
    pub fn write<P: From<Msg<V>>, T: From<Timer>>(&mut self, ctx: &mut Ctx<P, T>, second: i64) {
        if self.endpoints.is_empty() {
            return;
        }
        self.next_id += 1;
        let id = self.next_id;
        self.outstanding.insert(id, (second, self.pinned));
        let to = Addr {
            host: self.endpoints[self.pinned],
            port: Port::ETCD,
        };
        let op = KvOp::Put {
            key: "/probe".into(),
            value: (self.value_of)(second),
        };
        ctx.send(
            Port::ETCD_PROBE,
            to,
            Msg::Request {
                id,
                req: EtcdRequest::Write(op),
            },
        );
        ctx.set_timer(Port::ETCD_PROBE, PROBE_TIMEOUT, Timer::ProbeTimeout { id });
    }

    pub fn on_message<P, T>(&mut self, ctx: &mut Ctx<P, T>, msg: Msg<V>) {
        if let Msg::Response { id, resp } = msg {
            let ok = matches!(resp, EtcdResponse::Written(KvResult::Ok { .. }));
            self.resolve(ctx, id, ok);
        }
    }

    pub fn on_timeout<P, T>(&mut self, ctx: &mut Ctx<P, T>, id: u64) {
        self.resolve(ctx, id, false);
    }

    fn resolve<P, T>(&mut self, ctx: &mut Ctx<P, T>, id: u64, ok: bool) {
        let Some((second, sent_to)) = self.outstanding.remove(&id) else {
            return;
        };
        // clientv3 moves to another endpoint after an error, from the endpoint that failed: a
        // late timeout of a write sent to an earlier endpoint does not move it off a good one.
        if !ok && sent_to == self.pinned {
            self.pinned = (self.pinned + 1) % self.endpoints.len();
        }
        if !record_outcome(&mut self.outcomes, second, ok) {
            return;
        }
        ctx.obs.etcd_probe_write(ok);
    }

    /// The report second of an instant, given t = 0 at `origin`.
    pub fn second_of(now: SimTime, origin: SimTime) -> i64 {
        (now.0 as i64 - origin.0 as i64).div_euclid(1_000_000)
    }
}

/// Records the outcome of the probe write sent at report second `second` (writes sent during
/// the boot, before t = 0, are not reported). Returns whether it was recorded.
pub fn record_outcome(outcomes: &mut Chunked<Option<bool>>, second: i64, ok: bool) -> bool {
    let Ok(i) = usize::try_from(second) else {
        return false;
    };
    outcomes.resize(i + 1, None);
    outcomes[i] = Some(ok);
    true
}
