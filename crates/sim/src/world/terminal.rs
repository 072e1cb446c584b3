//! A terminal on one host: one request at a time, sent through the simulated network from that
//! host (kubectl to the API endpoint, etcdctl to an etcd member), the world run forward until it
//! is answered or its client gives up. The console runs it on a copy of the world, so looking
//! never changes the run.
//!
//! Connecting is modelled as TCP does it: a host that is down or cannot be reached does not
//! answer, so the client's dial times out; a host that is up and reachable but runs nothing on
//! the port answers at once with a reset (connection refused). Left out: TLS, client retries.
//! A request to a Service takes the users' path (`users.rs`, [`World::service_request`]).

use super::World;
use crate::k8s::api::{ApiPayload, ApiRequest, ApiResponse, RequestId};
use crate::k8s::objects::KUBE_PROXY;
use crate::k8s::wire::{EtcdMsg, EtcdRequest, EtcdResponse, Payload};
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port, Sub};
use crate::kernel::time::Duration;
use crate::kernel::time::SimTime;
use crate::record::Operation;
use crate::scenario::{Action, Event};

/// What a terminal sends.
#[derive(Clone, Debug)]
pub enum Call {
    Api(ApiRequest),
    Etcd(EtcdRequest),
}

/// How a call ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Api(ApiResponse),
    Etcd(EtcdResponse),
    /// The host is up and reachable, nothing listens on the port: a reset, at once.
    Refused,
    /// No answer to the connection attempt within the client's dial timeout.
    DialTimeout,
    /// Connected and sent; no answer within the client's timeout.
    Timeout,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub answer: Answer,
    /// Simulated time the call took.
    pub elapsed: Duration,
    /// The apiserver that took an API request (behind a balancer or VIP, the one it reached).
    pub served_by: Option<HostId>,
}

/// The terminal's one outstanding call.
#[derive(Clone, Default)]
pub struct Terminal {
    pub(super) answer: Option<Answer>,
    pub(super) served_by: Option<HostId>,
}

/// The id of the terminal's requests (one at a time).
const CALL_ID: u64 = 1;

impl World {
    /// Sends `call` from `from` to `to` now and runs the world until it is answered, the
    /// connection is refused, or the client gives up (`dial_timeout` to connect, `timeout` for
    /// the answer). The world moves on by the time the call took.
    pub fn call(
        &mut self,
        from: HostId,
        to: Addr,
        call: Call,
        dial_timeout: Duration,
        timeout: Duration,
    ) -> Outcome {
        let start = self.now;
        let up = |w: &World, h: HostId| w.hosts.get(h as usize).is_some_and(|r| r.up && r.joined);
        // A VIP that nobody holds answers no ARP: the dial times out.
        let routed = self.route(from, to);
        let to = routed.unwrap_or(to);
        let reachable = routed.is_some()
            && up(self, from)
            && up(self, to.host)
            && self.net.connected(from, to.host);
        let ended = |w: &mut World, answer: Answer, after: Duration| {
            w.run_until(start + after, u64::MAX);
            Outcome {
                answer,
                elapsed: after,
                served_by: None,
            }
        };
        if !reachable {
            return ended(self, Answer::DialTimeout, dial_timeout);
        }
        if !self.listens(to) {
            let round_trip = Duration(2 * self.scenario.settings.network_latency.0);
            return ended(self, Answer::Refused, round_trip);
        }
        self.procs.terminal = Some(Terminal::default());
        let me = Addr {
            host: from,
            port: Port::TERMINAL,
        };
        let payload = match call {
            Call::Api(req) => Payload::Api(ApiPayload::Request {
                id: RequestId::new(Sub(0), CALL_ID),
                client: me,
                via: None,
                req,
            }),
            Call::Etcd(req) => Payload::Etcd(EtcdMsg::Request { id: CALL_ID, req }),
        };
        self.transmit(me, to, self.now, payload);
        let deadline = start + timeout;
        loop {
            if let Some(t) = self.procs.terminal.take_if(|t| t.answer.is_some()) {
                return Outcome {
                    answer: t.answer.unwrap_or(Answer::Timeout),
                    elapsed: self.now - start,
                    served_by: t.served_by,
                };
            }
            if self.queue.peek_time().is_none_or(|t| t > deadline) {
                self.procs.terminal = None;
                return ended(self, Answer::Timeout, timeout);
            }
            self.run_until(deadline, 1);
        }
    }

    /// Carries out `action` now, as the scenario's operator would (a console command with no
    /// request of its own on the wire: etcd membership changes, `kubeadm join`), and runs the
    /// world until the operation's outcome is recorded or `timeout` passes. `None`: no outcome in
    /// time (the command's client would have given up).
    pub fn operate(&mut self, action: Action, timeout: Duration) -> (Option<Operation>, Duration) {
        let start = self.now;
        let seen = self.obs.operations.len();
        let at = Duration(self.now.0.saturating_sub(self.obs.origin.0));
        self.scenario.events.push(Event { at, action });
        self.apply_scenario_event(self.scenario.events.len() - 1);
        let deadline = start + timeout;
        loop {
            if let Some(op) = self.obs.operations.get(seen) {
                return (Some(op.clone()), self.now - start);
            }
            if self.now >= deadline || self.queue.peek_time().is_none_or(|t| t > deadline) {
                self.run_until(deadline, u64::MAX);
                return (None, timeout);
            }
            self.run_until(deadline, 1);
        }
    }

    /// Whether a process listens at `to` (its host is up): an etcd member still in its cluster, or
    /// the process the world dispatches to at that address.
    fn listens(&mut self, to: Addr) -> bool {
        match to.port {
            Port::ETCD => self.etcd.members[to.host as usize]
                .as_ref()
                .is_some_and(|m| !m.removed),
            _ => self.procs.get(to).is_some(),
        }
    }

    /// The life of the process at `at` (see `Hosts::generation`) while it runs: a connection to
    /// it lasts as long as this stays the same.
    pub fn process_life(&mut self, at: Addr) -> Option<u64> {
        let up = self.hosts.get(at.host as usize).is_some_and(|h| h.up);
        (up && self.listens(at)).then(|| self.hosts.generation(at))
    }

    /// Whether the process that had life `life` (from [`World::process_life`]) still runs: every
    /// exit, restart and reboot starts a new life.
    pub fn still_runs(&self, at: Addr, life: u64) -> bool {
        self.hosts.alive(at, life)
    }

    /// Whether packets pass between two hosts that are up (no partition between them).
    pub fn reachable(&self, a: HostId, b: HostId) -> bool {
        self.host_is_up(a) && self.host_is_up(b) && self.net.connected(a, b)
    }

    /// Whether the kubelet on `h` runs a container of `pod`.
    pub fn runs_pod(&self, h: HostId, pod: &str) -> bool {
        self.procs.on.get(h as usize).is_some_and(|p| {
            p.kubelet
                .as_ref()
                .is_some_and(|k| k.containers.contains_key(pod))
        })
    }

    /// The containers the container runtime of `h` runs now, as `crictl ps` lists them: the
    /// kubeadm static pods of a control-plane host (etcd, apiserver, controller-manager,
    /// scheduler, kube-vip), kube-proxy, and the pods' containers. Empty on a host that is no
    /// Node (no kubelet, no container runtime) or is down.
    pub fn running_containers(&self, h: HostId) -> Vec<RunningContainer> {
        let (Some(host), Some(procs)) = (
            self.scenario.hosts.get(h as usize),
            self.procs.on.get(h as usize),
        ) else {
            return Vec::new();
        };
        if !host.is_node() || !self.host_is_up(h) {
            return Vec::new();
        }
        let name = self.hosts.name(h);
        let etcd = self.etcd.members[h as usize]
            .as_ref()
            .is_some_and(|m| !m.removed);
        let system = [
            (Port::ETCD, "etcd", etcd),
            (Port::APISERVER, "kube-apiserver", procs.apiserver.is_some()),
            (
                Port::CONTROLLER_MANAGER,
                "kube-controller-manager",
                procs.kcm.is_some(),
            ),
            (Port::SCHEDULER, "kube-scheduler", procs.scheduler.is_some()),
            (Port::KUBE_VIP, "kube-vip", procs.kube_vip.is_some()),
            (Port::KUBE_PROXY, "kube-proxy", procs.proxy.is_some()),
        ];
        let mut out: Vec<RunningContainer> = system
            .into_iter()
            .filter(|&(_, _, runs)| runs)
            .filter_map(|(port, container, _)| {
                let (attempt, created) = self.hosts.restarts(h, port)?;
                // kube-proxy's DaemonSet and the static pods alike name their pods after the host.
                let pod = format!("{container}-{name}");
                Some(RunningContainer {
                    name: container.to_string(),
                    pod,
                    namespace: "kube-system",
                    created,
                    attempt,
                })
            })
            .collect();
        if let Some(kubelet) = &procs.kubelet {
            // kube-proxy's container is the host's kube-proxy process, listed above.
            let pods = kubelet
                .containers
                .iter()
                .filter(|(_, c)| c.workload != KUBE_PROXY);
            for (pod, c) in pods {
                let coredns = c.workload == crate::scenario::COREDNS;
                // A restarted CoreDNS is a new container of the same pod.
                let server = procs.dns.get(pod.as_str()).filter(|_| coredns);
                let created = server.map_or(c.started, |s| s.started().max(c.started));
                let attempt = u32::from(created > c.started);
                out.push(RunningContainer {
                    name: c.workload.clone(),
                    pod: pod.clone(),
                    namespace: crate::k8s::events::namespace_of(&c.workload),
                    created,
                    attempt,
                });
            }
        }
        out
    }

    /// An apiserver took the terminal's request.
    pub(super) fn terminal_request_at(&mut self, h: HostId) {
        if let Some(t) = self.procs.terminal.as_mut() {
            t.served_by = Some(h);
        }
    }

    /// An answer for the terminal on `host`.
    pub(super) fn terminal_answer(&mut self, payload: Payload) {
        let answer = match payload {
            Payload::Api(ApiPayload::Response { resp, .. }) => Answer::Api(resp),
            Payload::Etcd(EtcdMsg::Response { id: CALL_ID, resp }) => Answer::Etcd(resp),
            _ => return,
        };
        if let Some(t) = self.procs.terminal.as_mut() {
            t.answer = Some(answer);
        }
    }
}

/// A container as the runtime lists it (`World::running_containers`).
#[derive(Clone, Debug, PartialEq)]
pub struct RunningContainer {
    pub name: String,
    pub pod: String,
    pub namespace: &'static str,
    pub created: SimTime,
    /// Restarts of the container in its pod.
    pub attempt: u32,
}
