//! Kubernetes API objects as plain data, reduced to the fields whose behaviour the
//! simulation reproduces. They are stored in etcd under `/registry/...` keys; the
//! key's `mod_revision` is the object's `resourceVersion`.

use crate::etcd;
use crate::kernel::time::{Duration, SimTime};
use std::sync::Arc;

/// What a key holds in this cluster's etcd: a Kubernetes object, shared, cheap to clone.
pub type Value = Arc<Object>;
/// An object as etcd stores it, with its revisions (`mod_revision` is its resourceVersion).
pub type KeyValue = etcd::kv::KeyValue<Value>;
pub type KvOp = etcd::kv::KvOp<Value>;

/// Everything that can be stored in etcd.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    /// A value with no Kubernetes meaning (the etcd write probe's key).
    Opaque(Arc<str>),
    Lease(Lease),
    Node(Node),
    Pod(Pod),
    EndpointSlice(EndpointSlice),
    Workload(Workload),
    PodDisruptionBudget(PodDisruptionBudget),
}

impl Object {
    pub fn as_node(&self) -> Option<&Node> {
        if let Object::Node(n) = self {
            Some(n)
        } else {
            None
        }
    }
    pub fn as_pod(&self) -> Option<&Pod> {
        if let Object::Pod(p) = self {
            Some(p)
        } else {
            None
        }
    }
    pub fn as_lease(&self) -> Option<&Lease> {
        if let Object::Lease(l) = self {
            Some(l)
        } else {
            None
        }
    }
    pub fn as_workload(&self) -> Option<&Workload> {
        if let Object::Workload(w) = self {
            Some(w)
        } else {
            None
        }
    }
    pub fn as_pdb(&self) -> Option<&PodDisruptionBudget> {
        if let Object::PodDisruptionBudget(b) = self {
            Some(b)
        } else {
            None
        }
    }
    pub fn as_endpoint_slice(&self) -> Option<&EndpointSlice> {
        if let Object::EndpointSlice(e) = self {
            Some(e)
        } else {
            None
        }
    }
}

pub const NODES: &str = "/registry/minions/";
pub const NODE_LEASES: &str = "/registry/leases/kube-node-lease/";
pub const PODS: &str = "/registry/pods/";
pub const ENDPOINT_SLICES: &str = "/registry/endpointslices/";
pub const WORKLOADS: &str = "/registry/workloads/";
pub const PDBS: &str = "/registry/poddisruptionbudgets/";

/// `prefix` + `name`. Keys are built on every request and lookup, and `concat` is several
/// times cheaper than `format!`.
pub fn key(prefix: &str, name: &str) -> String {
    [prefix, name].concat()
}
pub fn node_key(name: &str) -> String {
    key(NODES, name)
}
pub fn node_lease_key(name: &str) -> String {
    key(NODE_LEASES, name)
}
pub fn pod_key(name: &str) -> String {
    key(PODS, name)
}
pub fn slice_key(service: &str) -> String {
    key(ENDPOINT_SLICES, service)
}
pub fn workload_key(name: &str) -> String {
    key(WORKLOADS, name)
}
/// A workload's budget is named after it.
pub fn pdb_key(workload: &str) -> String {
    key(PDBS, workload)
}

/// The name part of a key (`/registry/pods/web-1` -> `web-1`).
pub fn name_of(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    True,
    False,
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TaintKey {
    /// `node-role.kubernetes.io/control-plane`
    ControlPlane,
    /// `node.kubernetes.io/unreachable`
    Unreachable,
    /// `node.kubernetes.io/not-ready`
    NotReady,
    /// `node.kubernetes.io/unschedulable` (cordon)
    Unschedulable,
    /// Any other key: an operator's (`kubectl taint`), which no pod here tolerates.
    Other(Arc<str>),
}

impl TaintKey {
    pub fn of(key: &str) -> TaintKey {
        [
            TaintKey::ControlPlane,
            TaintKey::Unreachable,
            TaintKey::NotReady,
            TaintKey::Unschedulable,
        ]
        .into_iter()
        .find(|k| k.name() == key)
        .unwrap_or_else(|| TaintKey::Other(key.into()))
    }

    pub fn name(&self) -> &str {
        match self {
            TaintKey::ControlPlane => "node-role.kubernetes.io/control-plane",
            TaintKey::Unreachable => "node.kubernetes.io/unreachable",
            TaintKey::NotReady => "node.kubernetes.io/not-ready",
            TaintKey::Unschedulable => "node.kubernetes.io/unschedulable",
            TaintKey::Other(key) => key,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    NoSchedule,
    NoExecute,
}

impl Effect {
    pub fn name(self) -> &'static str {
        match self {
            Effect::NoSchedule => "NoSchedule",
            Effect::NoExecute => "NoExecute",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taint {
    pub key: TaintKey,
    /// Empty for the taints Kubernetes sets itself.
    pub value: String,
    pub effect: Effect,
    pub time_added: SimTime,
}

impl Taint {
    /// As kubectl prints it (`key=value:Effect`, `key:Effect`).
    pub fn text(&self) -> String {
        taint_text(self.key.name(), &self.value, Some(self.effect))
    }
}

/// An operator's change of a taint (`kubectl taint`): with an effect, the taint to add; to
/// remove, the key and, if given, the effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaintSpec {
    pub key: String,
    pub value: String,
    pub effect: Option<Effect>,
}

impl TaintSpec {
    /// As kubectl prints it (`key=value:Effect`, `key:Effect`, `key`).
    pub fn text(&self) -> String {
        taint_text(&self.key, &self.value, self.effect)
    }
}

fn taint_text(key: &str, value: &str, effect: Option<Effect>) -> String {
    let mut out = key.to_string();
    if !value.is_empty() {
        out.push('=');
        out.push_str(value);
    }
    if let Some(e) = effect {
        out.push(':');
        out.push_str(e.name());
    }
    out
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    /// `topology.kubernetes.io/zone`
    pub zone: String,
    pub control_plane: bool,
    pub ready: Condition,
    /// The Ready condition's `lastTransitionTime`.
    pub ready_since: SimTime,
    pub taints: Vec<Taint>,
    /// The labels an operator set (`kubectl label`); the kubelet's and kubeadm's own (hostname,
    /// architecture, OS, zone, control-plane role) follow from the host.
    pub labels: std::collections::BTreeMap<String, String>,
    /// `metadata.creationTimestamp` (as the kubelet that registered it sent it).
    pub created: SimTime,
}

impl Node {
    pub fn has_taint(&self, key: TaintKey) -> bool {
        self.taints.iter().any(|t| t.key == key)
    }

    /// Whether a DaemonSet's pod may run here: its pods tolerate Kubernetes' own taints, not an
    /// operator's.
    pub fn admits_daemon_pods(&self) -> bool {
        !self
            .taints
            .iter()
            .any(|t| matches!(t.key, TaintKey::Other(_)))
    }

    /// An operator's taint that no pod here tolerates (a DaemonSet's neither), with the
    /// effects it has: none may be scheduled, and with `NoExecute` none may stay.
    pub fn untolerated(&self, effect: Effect) -> Option<&Taint> {
        self.taints
            .iter()
            .find(|t| t.effect == effect && matches!(t.key, TaintKey::Other(_)))
    }

    /// Adds `spec` (replacing a taint of the same key and effect, as `--overwrite` does) or,
    /// with `remove`, takes away the taints of its key (and effect, if it names one). Says
    /// whether anything matched what was removed.
    pub fn apply_taint(&mut self, spec: &TaintSpec, remove: bool, now: SimTime) -> bool {
        let key = TaintKey::of(&spec.key);
        let matches = |t: &Taint| t.key == key && spec.effect.is_none_or(|e| e == t.effect);
        if remove {
            let before = self.taints.len();
            self.taints.retain(|t| !matches(t));
            return self.taints.len() != before;
        }
        let Some(effect) = spec.effect else {
            return false;
        };
        let taint = Taint {
            key: key.clone(),
            value: spec.value.clone(),
            effect,
            time_added: now,
        };
        match self.taints.iter_mut().find(|t| matches(t)) {
            Some(t) => *t = taint,
            None => self.taints.push(taint),
        }
        true
    }
    /// Cordons (`on`) or uncordons: the `unschedulable` mark, kept as its NoSchedule taint.
    pub fn set_unschedulable(&mut self, on: bool, now: SimTime) {
        if self.has_taint(TaintKey::Unschedulable) == on {
            return;
        }
        self.taints.retain(|t| t.key != TaintKey::Unschedulable);
        if on {
            self.taints.push(Taint {
                key: TaintKey::Unschedulable,
                value: String::new(),
                effect: Effect::NoSchedule,
                time_added: now,
            });
        }
    }

    /// Whether an ordinary workload pod may be scheduled here.
    pub fn schedulable(&self) -> bool {
        self.ready == Condition::True && self.taints.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Deployment,
    StatefulSet,
    DaemonSet,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Deployment => "Deployment",
            Kind::StatefulSet => "StatefulSet",
            Kind::DaemonSet => "DaemonSet",
        }
    }
}

/// A workload's spec as stored (so that `scale` goes through the API like `kubectl scale`).
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    pub kind: Kind,
    pub name: String,
    pub replicas: u32,
    pub service: bool,
    /// `metadata.creationTimestamp` (stamped by the operator as it applies the manifest).
    pub created: SimTime,
}

/// kubeadm's CoreDNS Deployment in `kube-system` (the world adds it under the scenario's name
/// for it, the same).
pub const COREDNS: &str = "coredns";

/// kubeadm's kube-proxy DaemonSet in `kube-system`: a pod on every Node, tolerating every taint.
pub const KUBE_PROXY: &str = "kube-proxy";

/// The static pods kubeadm writes on a control-plane host (etcd's only where etcd is stacked),
/// each mirrored in the API as `NAME-NODE` in `kube-system`.
pub const STATIC_PODS: [&str; 4] = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
];

/// Whether a workload's pods live in `kube-system`: kubeadm's add-ons and static pods.
pub fn is_system(workload: &str) -> bool {
    workload == COREDNS || workload == KUBE_PROXY || STATIC_PODS.contains(&workload)
}

/// The alphabet of generated names (apimachinery's `util/rand`): no vowels, no 0, 1 or 3, so
/// that no word and no look-alike characters appear in a name.
pub const ALPHANUMS: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";

/// A `generateName` suffix: five characters of [`ALPHANUMS`], drawn as one number below 27⁵.
pub const SUFFIXES: u64 = 27u64.pow(5);
pub fn name_suffix(mut n: u64) -> String {
    (0..5)
        .map(|_| {
            let c = ALPHANUMS[(n % 27) as usize] as char;
            n /= 27;
            c
        })
        .collect()
}

impl Workload {
    /// A Deployment's ReplicaSet (see [`replica_set_name`]).
    pub fn replica_set(&self) -> String {
        replica_set_name(&self.name)
    }
}

/// A Deployment's ReplicaSet, `NAME-HASH`. The Deployment controller names it after the pod
/// template's FNV-32a hash written digit by digit in [`ALPHANUMS`] (`SafeEncodeString`), which
/// is why real hashes hold only `456789bcdf`. The template here is the workload's name alone (no
/// image is modelled), so the hash is not the one a real cluster computes. The controller of this
/// simulation plays both parts: it keeps the ReplicaSet's pods.
pub fn replica_set_name(deployment: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for b in deployment.bytes() {
        hash = (hash ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    let digits = hash.to_string();
    let encoded: String = digits
        .bytes()
        .map(|d| ALPHANUMS[d as usize % 27] as char)
        .collect();
    format!("{deployment}-{encoded}")
}

/// A budget's one rule, as a count of pods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    MinAvailable(u32),
    MaxUnavailable(u32),
}

/// `policy/v1` PodDisruptionBudget over one workload's pods: the spec the operator applies and
/// the status the disruption controller keeps, which the Eviction API reads and decrements.
#[derive(Clone, Debug, PartialEq)]
pub struct PodDisruptionBudget {
    /// The workload's name (the budget selects its pods).
    pub name: String,
    pub budget: Budget,
    /// `status.observedGeneration` has caught up with the spec: until the controller has
    /// computed the status once, every eviction is refused.
    pub observed: bool,
    pub expected_pods: u32,
    pub current_healthy: u32,
    pub desired_healthy: u32,
    pub disruptions_allowed: u32,
    /// `status.disruptedPods`: pods the Eviction API let go that the controller has not yet
    /// seen terminating, with when; they do not count as healthy meanwhile.
    pub disrupted_pods: Vec<(String, SimTime)>,
    pub created: SimTime,
}

impl PodDisruptionBudget {
    /// The healthy pods this budget needs out of `expected` (`desiredHealthy`).
    pub fn desired(&self, expected: u32) -> u32 {
        match self.budget {
            Budget::MinAvailable(n) => n,
            Budget::MaxUnavailable(n) => expected.saturating_sub(n),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pod {
    pub name: String,
    pub workload: String,
    /// The kind of the workload whose controller owns it; `None` for a static pod's mirror (the
    /// kubelet runs the pod from a file on its host and keeps a copy in the API, owned by its
    /// Node).
    pub kind: Option<Kind>,
    /// `spec.nodeName`: None until the scheduler binds it.
    pub node: Option<String>,
    /// The kubelet reported its containers running.
    pub running: bool,
    /// The Ready condition (false again when its node is unreachable).
    pub ready: bool,
    /// `metadata.deletionTimestamp`: graceful deletion asked; the kubelet confirms by deleting.
    pub deletion: Option<SimTime>,
    /// `metadata.creationTimestamp` (as its creator sent it).
    pub created: SimTime,
}

impl Pod {
    /// DaemonSet pods tolerate not-ready and unreachable forever (and the control-plane taint),
    /// and so do kubeadm's static pods (`NoExecute`, `operator: Exists`): no eviction and no
    /// drain touches them.
    pub fn tolerates_everything(&self) -> bool {
        matches!(self.kind, Some(Kind::DaemonSet) | None)
    }

    /// kubeadm's pods of a Node itself rather than of a workload: the static pods' mirrors and
    /// kube-proxy's. They tolerate an operator's taint too (`operator: Exists`) and use the
    /// Node's own network (`hostNetwork`).
    pub fn of_its_node(&self) -> bool {
        self.kind.is_none() || self.workload == KUBE_PROXY
    }

    /// The node where this pod serves its Service's traffic: a bound, running, ready pod
    /// that is not being deleted is an endpoint.
    pub fn endpoint_node(&self) -> Option<&str> {
        if self.ready && self.running && self.deletion.is_none() {
            self.node.as_deref()
        } else {
            None
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    pub pod: String,
    pub node: String,
}

/// The ready endpoints of one Service.
#[derive(Clone, Debug, PartialEq)]
pub struct EndpointSlice {
    pub service: String,
    pub endpoints: Vec<Endpoint>,
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
    /// `metadata.creationTimestamp`: kept by every update.
    pub created: SimTime,
}

pub fn lease_key(namespace: &str, name: &str) -> String {
    ["/registry/leases/", namespace, "/", name].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_sets_and_generated_names_use_kubernetes_alphabet() {
        let w = |name: &str| Workload {
            kind: Kind::Deployment,
            name: name.into(),
            replicas: 1,
            service: false,
            created: SimTime::ZERO,
        };
        // FNV-32a("a") = 0xe40c292c = 3826002220, each digit d written as ALPHANUMS[(d + 48) % 27].
        assert_eq!(w("a").replica_set(), "a-7d6b446664");
        let hash = w("web").replica_set();
        assert!(
            hash["web-".len()..]
                .bytes()
                .all(|b| b"456789bcdf".contains(&b)),
            "{hash}"
        );
        assert_eq!(name_suffix(0), "bbbbb");
        assert_eq!(name_suffix(SUFFIXES - 1), "99999");
        assert_eq!(name_suffix(27 + 2), "dcbbb");
    }
}
