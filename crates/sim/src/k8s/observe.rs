//! What the Kubernetes processes report as they run: pods, nodes, leases, the operator's
//! actions and plain notes. The world's record implements it (and checks that no two
//! processes act as leader of one lease at once).

use crate::kernel::net::HostId;
use crate::kernel::time::SimTime;

/// What happened to a pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodChange {
    /// Its containers started on its node.
    Started,
    /// Deleted by taint-based eviction (involuntary: no budget consulted).
    Evicted,
    /// Deleted through the Eviction API (a drain): its budget allowed it.
    EvictedByApi,
    /// Its API object was deleted.
    Deleted,
    /// Its node's kubelet stopped its containers.
    Killed,
}

/// A node's readiness as the node lifecycle controller sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeChange {
    NotReady,
    Ready,
}

/// Other notable changes of the Kubernetes processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    LbBackendUp,
    LbBackendDown,
    ApiserverKilled,
    ApiserverCacheLost,
    /// keepalived: a host became VRRP master (the lease holders of kube-vip go through leases).
    VipMoved,
}

pub trait Observe {
    /// The host's name, for texts.
    fn name(&self, host: HostId) -> &str;
    /// A plain event about one host (or none), with its explanation.
    fn note(&mut self, now: SimTime, kind: Note, host: Option<HostId>, text: String);
    /// Something happened to a pod.
    fn pod_event(
        &mut self,
        now: SimTime,
        kind: PodChange,
        pod: &str,
        node: &str,
        workload: &str,
        text: String,
    );
    /// The pods the scheduler found no room for in its last pass (name, workload, why), when
    /// the scenario gives capacity: the ones not already unschedulable become `pod.pending`.
    fn unschedulable(&mut self, now: SimTime, pods: Vec<(String, String, String)>);
    /// The Eviction API refused to evict a pod (429: its disruption budget); `reason` is the
    /// server's message.
    fn eviction_refused(&mut self, now: SimTime, pod: &str, workload: &str, reason: &str);
    /// A node changed readiness.
    fn node_event(&mut self, now: SimTime, kind: NodeChange, node: &str, text: String);
    /// A process started acting as leader of `lease`.
    fn lease_acquired(&mut self, now: SimTime, lease: &'static str, host: HostId);
    /// A leader stopped acting: it gave up (`why` is said), or its process died with its host.
    fn lease_lost(&mut self, now: SimTime, lease: &'static str, host: HostId, why: &str);
    /// A component's Event reached the API at `posted` (see [`super::events`]).
    fn api_event(&mut self, posted: SimTime, event: super::events::Event);
    /// An operator action, applied or refused.
    fn operation(
        &mut self,
        now: SimTime,
        action: &str,
        host: Option<HostId>,
        result: Result<(), String>,
    );
}

/// An observer that sees nothing, for tests of one process driven by hand.
#[cfg(test)]
pub struct Blind;

#[cfg(test)]
impl Observe for Blind {
    fn name(&self, _: HostId) -> &str {
        "host"
    }
    fn note(&mut self, _: SimTime, _: Note, _: Option<HostId>, _: String) {}
    fn pod_event(&mut self, _: SimTime, _: PodChange, _: &str, _: &str, _: &str, _: String) {}
    fn unschedulable(&mut self, _: SimTime, _: Vec<(String, String, String)>) {}
    fn eviction_refused(&mut self, _: SimTime, _: &str, _: &str, _: &str) {}
    fn node_event(&mut self, _: SimTime, _: NodeChange, _: &str, _: String) {}
    fn lease_acquired(&mut self, _: SimTime, _: &'static str, _: HostId) {}
    fn lease_lost(&mut self, _: SimTime, _: &'static str, _: HostId, _: &str) {}
    fn api_event(&mut self, _: SimTime, _: super::events::Event) {}
    fn operation(&mut self, _: SimTime, _: &str, _: Option<HostId>, _: Result<(), String>) {}
}

/// Runs `f` as a process handling one input at `now` on host 1, seen by no one: what it
/// returned, and the effects it pushed (sends, timers), for a test to read.
#[cfg(test)]
pub fn blind_step<R>(
    now: SimTime,
    f: impl FnOnce(&mut super::wire::Ctx) -> R,
) -> (
    R,
    std::collections::VecDeque<
        crate::kernel::process::Effect<super::wire::Payload, super::wire::Timer>,
    >,
) {
    let mut effects = std::collections::VecDeque::new();
    let mut obs = Blind;
    let mut ctx = super::wire::Ctx {
        now,
        host: 1,
        effects: &mut effects,
        obs: &mut obs,
    };
    let r = f(&mut ctx);
    (r, effects)
}
