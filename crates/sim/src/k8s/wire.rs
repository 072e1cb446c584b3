//! What travels between the processes of a Kubernetes cluster: the API's messages and etcd's,
//! over one payload. etcd stores Kubernetes objects here; it is this layer, not etcd, that
//! says so, by choosing etcd's value type.

use super::api::ApiPayload;
use super::observe::Observe;
use crate::etcd;

pub use super::objects::{KeyValue, KvOp, Value};
pub use crate::etcd::kv::{Key, KvResult};
pub use crate::etcd::wire::EtcdError;
pub type EtcdMsg = etcd::Msg<Value>;
pub type EtcdRequest = etcd::wire::EtcdRequest<Value>;
pub type EtcdResponse = etcd::wire::EtcdResponse<Value>;
pub type WatchEvent = etcd::wire::WatchEvent<Value>;
pub type EtcdMember = etcd::member::EtcdMember<Value>;
pub type EtcdProbe = etcd::probe::EtcdProbe<Value>;

/// Every message of the cluster.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// Raft between etcd members, and etcd's client API (the apiservers and the probe).
    Etcd(EtcdMsg),
    /// The Kubernetes API.
    Api(ApiPayload),
    /// keepalived's VRRP advertisements.
    Vrrp(Advert),
}

/// A VRRP advertisement (keepalived's): who is master, with which priority.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advert {
    pub from: crate::kernel::net::HostId,
    pub priority: u32,
}

impl From<EtcdMsg> for Payload {
    fn from(m: EtcdMsg) -> Self {
        Payload::Etcd(m)
    }
}

impl From<ApiPayload> for Payload {
    fn from(m: ApiPayload) -> Self {
        Payload::Api(m)
    }
}

/// What a Kubernetes process sees while handling one input.
pub type Ctx<'a> = crate::kernel::process::Ctx<'a, Payload, dyn Observe + 'a>;
