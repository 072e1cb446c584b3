//! Users' traffic, as the scenario format defines it: a `client` host sends a request
//! per Service every 100 ms. It resolves the Service name through cluster DNS (answers
//! cached for the record TTL; a failed lookup is a failed request), sends to a NodePort
//! of a worker it can reach, and that worker's kube-proxy picks one of the endpoints in
//! its current rules; the request succeeds only if that pod's container runs and its
//! node is reachable from the worker.
//!
//! The path is evaluated when the request is sent (latency is a millisecond, far below
//! anything that changes the outcome); everything it consults is a process's own state:
//! the kube-proxy's rules, the CoreDNS pod's cache, the kubelet's containers.

use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};

pub const REQUEST_PERIOD: Duration = Duration::from_millis(100);

#[derive(Clone)]
pub struct Client {
    pub rng: Rng,
    /// Draws of the uncached lookup made every round for the DNS row, apart from `rng` so
    /// that watching does not change which routes the requests take.
    pub probe: Rng,
    /// DNS answers cached until, per Service.
    pub dns_cache: crate::kernel::members::MemberMap<String, SimTime>,
}
