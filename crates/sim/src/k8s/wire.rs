//! What travels between the processes of a Kubernetes cluster: the API's messages and etcd's,
//! over one payload. etcd stores Kubernetes objects here; it is this layer, not etcd, that
//! says so, by choosing etcd's value type.

use super::api::ApiPayload;
use super::observe::Observe;
use crate::etcd;
use crate::kernel::process::{Port, Sub};

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

/// The ports of the cluster's processes, numbered on from etcd's.
impl Port {
    pub const APISERVER: Port = Port::ETCD_PROBE.next();
    /// The load balancer in front of the apiservers.
    pub const LB: Port = Port::APISERVER.next();
    pub const CONTROLLER_MANAGER: Port = Port::LB.next();
    pub const SCHEDULER: Port = Port::CONTROLLER_MANAGER.next();
    /// The steady API client that measures API write availability.
    pub const API_PROBE: Port = Port::SCHEDULER.next();
    pub const KUBELET: Port = Port::API_PROBE.next();
    pub const KUBE_PROXY: Port = Port::KUBELET.next();
    /// The CoreDNS pods running on a host.
    pub const COREDNS: Port = Port::KUBE_PROXY.next();
    /// kube-vip beside a control-plane host's apiserver.
    pub const KUBE_VIP: Port = Port::COREDNS.next();
    /// keepalived beside a control-plane host's apiserver.
    pub const KEEPALIVED: Port = Port::KUBE_VIP.next();
    /// The API's virtual IP: not a process, an address the world routes to whoever holds it.
    pub const VIP: Port = Port::KEEPALIVED.next();
    /// A person's terminal on a host (kubectl, etcdctl): one connection per command.
    pub const TERMINAL: Port = Port::VIP.next();
    /// The operator: applies the scenario's workloads at boot and its operator actions.
    pub const OPERATOR: Port = Port::TERMINAL.next();
}

/// The timers the cluster's processes set: etcd's, and Kubernetes' own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    Etcd(etcd::Timer),
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
    /// A one-shot nudge to re-check state (not a loop).
    Wake,
    /// The kubelet's node lease renewal.
    NodeLease,
}

impl From<etcd::Timer> for Timer {
    fn from(t: etcd::Timer) -> Self {
        Timer::Etcd(t)
    }
}

/// What a Kubernetes process sees while handling one input.
pub type Ctx<'a> = crate::kernel::process::Ctx<'a, Payload, Timer, dyn Observe + 'a>;
