//! What the Kubernetes processes report as they run: pods, nodes, leases, the operator's
//! actions and plain notes. The world's record implements it (and checks that no two
//! processes act as leader of one lease at once).

use crate::kernel::net::HostId;
use crate::kernel::time::SimTime;

pub trait Observe {
    /// The host's name, for texts.
    fn name(&self, host: HostId) -> &str;
    /// A plain event about one host (or none), with its explanation.
    fn note(&mut self, now: SimTime, kind: &'static str, host: Option<HostId>, text: String);
    /// Something happened to a pod (`pod.started`, `pod.evicted`, `pod.deleted`, `pod.killed`).
    fn pod_event(
        &mut self,
        now: SimTime,
        kind: &'static str,
        pod: &str,
        node: &str,
        workload: &str,
        text: String,
    );
    /// A node changed readiness (`node.not_ready`, `node.ready`).
    fn node_event(&mut self, now: SimTime, kind: &'static str, node: &str, text: String);
    /// A process started acting as leader of `lease`.
    fn lease_acquired(&mut self, now: SimTime, lease: &'static str, host: HostId);
    /// A leader stopped acting: it gave up (`why` is said), or its process died with its host.
    fn lease_lost(&mut self, now: SimTime, lease: &'static str, host: HostId, why: &str);
    /// An operator action, applied or refused.
    fn operation(
        &mut self,
        now: SimTime,
        action: &str,
        host: Option<HostId>,
        result: Result<(), String>,
    );
}
