//! The Kubernetes API as messages: requests from clients (through the load balancer
//! or straight to an apiserver), responses, and watch streams.
//!
//! Keys are etcd keys (`/registry/...`); an object's `resourceVersion` is its etcd
//! `mod_revision`. Updates carry the resourceVersion they read, so a concurrent
//! writer makes them fail with a conflict (optimistic concurrency).

use crate::k8s::objects::{KeyValue, Value};
use crate::kernel::keymap::Key;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Sub};

/// An API request as its sender numbers it: the sub-address of the client that sent it (a
/// process's own client, one of its informers, …) and its number there. Answers, watch
/// events and timeouts are routed by the sub-address.
///
/// Packed in one word (the sub-address above the number's 40 bits): every API message
/// carries one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestId(u64);

impl RequestId {
    const SEQ_BITS: u32 = 40;

    pub fn new(sub: Sub, seq: u64) -> RequestId {
        debug_assert!(seq < 1 << Self::SEQ_BITS);
        RequestId((u64::from(sub.0) << Self::SEQ_BITS) | seq)
    }

    /// The client that sent it.
    pub fn sub(self) -> Sub {
        Sub((self.0 >> Self::SEQ_BITS) as u32)
    }

    /// Its number among that client's requests.
    pub fn seq(self) -> u64 {
        self.0 & ((1 << Self::SEQ_BITS) - 1)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ApiRequest {
    /// A consistent read of one object (a quorum read in etcd).
    Get { key: Key },
    /// A read of one object from the apiserver's watch cache (`resourceVersion=0`).
    GetCached { key: Key },
    /// An unconditional update (no resourceVersion precondition).
    Put { key: Key, value: Value },
    /// Create if absent.
    Create { key: Key, value: Value },
    /// Replace if the object still has `resource_version`.
    Update {
        key: Key,
        value: Value,
        resource_version: u64,
    },
    /// Delete if the object still has `resource_version`.
    Delete { key: Key, resource_version: u64 },
    /// `POST pods/NAME/eviction`: a graceful deletion that a PodDisruptionBudget may refuse.
    Evict { key: Key },
    /// List then watch everything under `prefix`, served from the apiserver's watch cache;
    /// `node` keeps only pods bound to that node (the kubelet's `spec.nodeName` field selector).
    Watch {
        prefix: String,
        node: Option<String>,
    },
    /// A consistent list (no `resourceVersion`, as `kubectl get` asks): a quorum read of the
    /// prefix in etcd.
    ListConsistent { prefix: String },
    /// A list from the watch cache (`resourceVersion=0`), optionally of the pods on one node.
    List {
        prefix: String,
        node: Option<String>,
    },
    /// `GET /readyz`: answered `Ready(true)` only if the etcd check passes within 2 s.
    Readyz,
    /// `GET /readyz?verbose` (and `/livez?verbose`): each check the simulation models, answered
    /// [`ApiResponse::Checks`].
    Checks,
    /// A TCP connect check: answered at once by a running apiserver.
    Tcp,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ApiResponse {
    Object(Option<KeyValue>),
    /// The write was applied; the object's new resourceVersion.
    Written {
        resource_version: u64,
    },
    /// 409: the object changed since it was read (or exists already, for a create).
    Conflict,
    /// 5xx or timeout on the server side, with a reason for the event log.
    Failed(&'static str),
    /// 429: an eviction the pod's disruption budget does not allow now, with the server's words.
    TooManyRequests(std::sync::Arc<str>),
    /// The watch is open on `backend`: the current objects, then [`ApiPayload::WatchEvents`].
    WatchStarted {
        backend: HostId,
        revision: u64,
        items: Vec<(Key, KeyValue)>,
    },
    Ready(bool),
    /// The etcd check (a quorum read within 2 s) and whether the watch cache has synced.
    Checks {
        etcd: bool,
        synced: bool,
    },
    List {
        items: Vec<(Key, KeyValue)>,
    },
}

/// Messages of the API, carried by `Payload::Api`.
#[derive(Clone, Debug, PartialEq)]
pub enum ApiPayload {
    /// A request from `client`; `via` is the load balancer that forwarded it, if any, and
    /// responses go back the same way.
    Request {
        id: RequestId,
        client: Addr,
        via: Option<Addr>,
        req: ApiRequest,
    },
    Response {
        id: RequestId,
        client: Addr,
        resp: ApiResponse,
    },
    /// Changes for the watch opened by request `id`; an empty batch is a heartbeat.
    WatchEvents {
        id: RequestId,
        client: Addr,
        events: Vec<(Key, Option<KeyValue>)>,
    },
    /// The apiserver closed the watch (its own etcd watch broke): the client must re-list.
    WatchClosed { id: RequestId, client: Addr },
}

impl ApiPayload {
    /// The request this message is, answers, or is a watch of.
    pub fn id(&self) -> RequestId {
        match self {
            ApiPayload::Request { id, .. }
            | ApiPayload::Response { id, .. }
            | ApiPayload::WatchEvents { id, .. }
            | ApiPayload::WatchClosed { id, .. } => *id,
        }
    }

    /// The client a server-to-client message is for (None for requests).
    pub fn client(&self) -> Option<Addr> {
        match self {
            ApiPayload::Request { .. } => None,
            ApiPayload::Response { client, .. }
            | ApiPayload::WatchEvents { client, .. }
            | ApiPayload::WatchClosed { client, .. } => Some(*client),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_tells_its_client_and_its_number() {
        let a = RequestId::new(Sub(17), 5);
        assert_eq!((a.sub(), a.seq()), (Sub(17), 5));
        // Within one client, later requests sort after earlier ones (clients keep them in order).
        assert!(RequestId::new(Sub(17), 6) > a);
        assert_ne!(RequestId::new(Sub(0), 5), RequestId::new(Sub(1), 5));
    }
}
