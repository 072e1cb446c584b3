//! Kubernetes API objects as plain data, reduced to the fields whose behaviour the
//! simulation reproduces. They are stored in etcd under `/registry/...` keys; the
//! key's `mod_revision` is the object's `resourceVersion`.

use crate::time::{Duration, SimTime};
use std::sync::Arc;

/// Everything that can be stored in etcd.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    /// A value with no Kubernetes meaning (the etcd write probe's key).
    Opaque(Arc<str>),
    Lease(Lease),
}

impl From<&str> for Object {
    fn from(s: &str) -> Self {
        Object::Opaque(s.into())
    }
}

/// `coordination.k8s.io/Lease`: leader election of the controller-manager and the scheduler,
/// and the node heartbeats in `kube-node-lease`.
#[derive(Clone, Debug, PartialEq)]
pub struct Lease {
    pub holder: String,
    pub lease_duration: Duration,
    pub acquire_time: SimTime,
    pub renew_time: SimTime,
    pub transitions: u32,
}

pub fn lease_key(namespace: &str, name: &str) -> String {
    format!("/registry/leases/{namespace}/{name}")
}
