//! Kubernetes Events (`core/v1` Event): what the kubelet, the scheduler and the controllers tell
//! about the objects they act on, as `kubectl get events` lists them.
//!
//! A component's event recorder (client-go `tools/record`) hands each event to a broadcaster
//! that writes it through the API, retrying up to 12 times 10 s apart, and drops it after that:
//! an event reaches the API only if its component can write there within about two minutes.
//! Here an event is posted when the write it reports succeeded (the pod created, the binding
//! made, the lease taken), and a kubelet's events when its next write succeeds within that
//! window. The apiserver keeps an Event one hour after its last write (`--event-ttl`); here only
//! the newest [`EVENTS_KEPT`] are kept, for memory.
//!
//! Left out: Events are not written into the simulated etcd (they would be most of its
//! writes at startup and most of its memory); the correlator's aggregation of repeated events
//! into one with a count; the kubelet's image and node events; Events of the `events.k8s.io`
//! API (`kubectl events`).

use crate::kernel::time::{Duration, SimTime};

/// What an event says, by the reason the component gives (`kubectl get events` REASON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// default-scheduler, on a Pod: "Successfully assigned NS/POD to NODE".
    Scheduled,
    /// A workload controller created a pod (on its ReplicaSet, StatefulSet or DaemonSet).
    SuccessfulCreate,
    /// A workload controller deleted a pod (scaled down).
    SuccessfulDelete,
    /// kubelet, on a Pod: its container started.
    Started,
    /// kubelet, on a Pod: its container is being stopped.
    Killing,
    /// node-controller, on a Node: its Ready condition went Unknown.
    NodeNotReady,
    /// node-controller, on a Pod of a node gone NotReady (a warning).
    PodNodeNotReady,
    /// taint-eviction-controller, on a Pod: deleted after its toleration of the taint ran out.
    TaintManagerEviction,
    /// A component took its leader Lease.
    LeaderElection,
}

impl Reason {
    /// The REASON column.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Scheduled => "Scheduled",
            Reason::SuccessfulCreate => "SuccessfulCreate",
            Reason::SuccessfulDelete => "SuccessfulDelete",
            Reason::Started => "Started",
            Reason::Killing => "Killing",
            Reason::NodeNotReady | Reason::PodNodeNotReady => "NodeNotReady",
            Reason::TaintManagerEviction => "TaintManagerEviction",
            Reason::LeaderElection => "LeaderElection",
        }
    }

    /// `Warning` or `Normal` (the event's `type`).
    pub fn event_type(self) -> &'static str {
        match self {
            Reason::PodNodeNotReady => "Warning",
            _ => "Normal",
        }
    }
}

/// One Event as the API holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub reason: Reason,
    /// `involvedObject`: its kind (`Pod`, `Node`, `ReplicaSet`, …) and name.
    pub kind: &'static str,
    pub name: String,
    /// The namespace the event lives in (a Node's events go to `default`).
    pub namespace: &'static str,
    /// The message, as the component writes it.
    pub message: String,
    /// When the component recorded it (`firstTimestamp` = `lastTimestamp`).
    pub at: SimTime,
}

impl Event {
    /// `source.component`: the recorder's name (describe's From column).
    pub fn source(&self) -> &'static str {
        match (self.reason, self.kind) {
            (Reason::Scheduled, _) => "default-scheduler",
            (Reason::SuccessfulCreate | Reason::SuccessfulDelete, "StatefulSet") => {
                "statefulset-controller"
            }
            (Reason::SuccessfulCreate | Reason::SuccessfulDelete, "DaemonSet") => {
                "daemonset-controller"
            }
            (Reason::SuccessfulCreate | Reason::SuccessfulDelete, _) => "replicaset-controller",
            (Reason::Started | Reason::Killing, _) => "kubelet",
            (Reason::NodeNotReady | Reason::PodNodeNotReady, _) => "node-controller",
            (Reason::TaintManagerEviction, _) => "taint-eviction-controller",
            (Reason::LeaderElection, _) if self.name == "kube-scheduler" => "default-scheduler",
            (Reason::LeaderElection, _) => "kube-controller-manager",
        }
    }

    /// An event about a pod of `workload`.
    pub fn on_pod(
        reason: Reason,
        pod: &str,
        workload: &str,
        message: String,
        at: SimTime,
    ) -> Event {
        Event {
            reason,
            kind: "Pod",
            name: pod.to_string(),
            namespace: namespace_of(workload),
            message,
            at,
        }
    }
}

/// The namespace of a workload's pods: kubeadm's add-ons and static pods run in `kube-system`.
pub fn namespace_of(workload: &str) -> &'static str {
    if crate::k8s::objects::is_system(workload) {
        "kube-system"
    } else {
        "default"
    }
}

/// How long the broadcaster keeps trying to write an event: 12 tries, 10 s apart.
pub const RETRY_WINDOW: Duration = Duration::from_secs(12 * 10);
/// How long the apiserver keeps an Event after it was written (`--event-ttl`, default 1 h).
pub const EVENT_TTL: Duration = Duration::from_secs(3_600);
/// The newest Events kept, whatever their age: every copy of the world (the page keeps a
/// dozen checkpoints) holds them, and a 100-worker cluster records 3,500 at startup alone.
/// A real apiserver keeps them all for the hour.
pub const EVENTS_KEPT: usize = 1_000;

/// The events a component recorded whose write has not yet gone through: posted with its next
/// successful write, dropped once older than [`RETRY_WINDOW`].
#[derive(Clone, Debug, Default)]
pub struct Pending(Vec<Event>);

impl Pending {
    pub fn record(&mut self, event: Event) {
        self.0.push(event);
    }

    /// A write of the component succeeded at `now`: the events still in their retry window.
    pub fn deliverable(&mut self, now: SimTime) -> Vec<Event> {
        let mut out = std::mem::take(&mut self.0);
        out.retain(|e| now - e.at <= RETRY_WINDOW);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_events_go_with_the_next_write_within_two_minutes() {
        let ev = |t: u64| Event {
            reason: Reason::Started,
            kind: "Pod",
            name: "web-1".into(),
            namespace: "default",
            message: "Started container web".into(),
            at: SimTime(t * 1_000_000),
        };
        let mut p = Pending::default();
        p.record(ev(0));
        p.record(ev(100));
        // 120 s after the first: both still go; then nothing is left.
        assert_eq!(p.deliverable(SimTime(120_000_000)).len(), 2);
        assert!(p.deliverable(SimTime(121_000_000)).is_empty());
        p.record(ev(0));
        p.record(ev(10));
        // The broadcaster gave the first up after its twelfth try.
        let late = p.deliverable(SimTime(125_000_000));
        assert_eq!(late, vec![ev(10)]);
    }
}
