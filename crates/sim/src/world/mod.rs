//! The world: wiring only. It holds the hosts, the network, the processes on them and the
//! scenario's events on one queue, and hands each input to the process it is addressed to;
//! what happens then is the process's business (`etcd`, `k8s`), and what is observed goes to
//! the record.
//!
//! A run starts with a boot (the cluster forming, not reported) so that t = 0 of the
//! scenario is a settled cluster; scenario events are then applied at their times.
//! `run_until` advances the run with an event budget so a UI can drive it frame by
//! frame; the report is a pure function of the scenario and the time reached.
//!
//! Where things are: [`hosts`] (hosts' lives, back-off), [`processes`] (the processes by
//! address, and their dispatch), [`lifecycle`] (crash, boot, start, exit, restart),
//! [`etcd_cluster`] and [`membership`] (members, leader, voters, member changes,
//! force-new-cluster), [`quorum`] (quorum accounting), [`pods`] (what runs where),
//! [`users`] (client traffic), [`dns`] (CoreDNS servers), [`actions`] (the scenario's
//! events), [`snapshot`] (what the UI draws).

/// The context of one input handled on `host`: the world's effects buffer and its recorder,
/// seen as the layer's observer (the binding's type says which: [`EtcdCtx`] or [`K8sCtx`]).
macro_rules! ctx {
    ($w:ident, $host:expr) => {
        crate::kernel::process::Ctx {
            now: $w.now,
            host: $host,
            effects: &mut $w.effects,
            obs: &mut $w.obs,
        }
    };
}

mod actions;
mod dns;
mod etcd_cluster;
mod faults;
mod hosts;
mod lifecycle;
mod membership;
mod pods;
mod processes;
mod quorum;
mod settled;
mod snapshot;
pub use snapshot::ViewCache;
pub mod terminal;
pub mod users;

pub use actions::taint_spec;
use membership::AfterStop;
pub use membership::MEMBER_CHANGE_TIMEOUT;
pub use settled::Quiet;

use crate::etcd::member::EtcdConfig;
use crate::etcd::probe::PROBE_TIMEOUT;
use crate::etcd::Timer as EtcdTimer;
use crate::k8s::api::ApiPayload;
use crate::k8s::lb::Peer;
use crate::k8s::leader::KUBE_VIP_LEASE;
use crate::k8s::objects::{
    pdb_key, workload_key, Budget, Kind, Object, PodDisruptionBudget, Workload, KUBE_PROXY,
};
use crate::k8s::operator::Operator;
use crate::k8s::probe::ApiProbe;
use crate::k8s::wire::{EtcdProbe, Payload, Timer as ProcessTimer, Value};
use crate::kernel::engine::{EventQueue, Next};
use crate::kernel::net::{HostId, Network};
use crate::kernel::process::{Addr, Effect, Port};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use crate::record::{EventKind, Recorder, RunRecord};
use crate::scenario::{self, ApiEndpoint, Role, Scenario, WorkloadKind, COREDNS};

/// The API's virtual IP (kube-vip, keepalived): routed to its holder's apiserver.
pub const VIP: Addr = Addr {
    host: 0,
    port: Port::VIP,
};
use etcd_cluster::EtcdCluster;
use hosts::Hosts;
use pods::PodCount;
use processes::Processes;
use quorum::QuorumClock;
use std::collections::VecDeque;
use users::Users;

/// Simulated time before t = 0 in which the cluster boots and settles (etcd elects a
/// leader, apiservers sync their caches, leases are taken).
pub const BOOT: Duration = Duration::from_secs(30);

/// What an etcd member sees of the world while handling one input.
type EtcdCtx<'a> = crate::etcd::Ctx<'a, Payload, ProcessTimer>;
/// What a Kubernetes process sees.
type K8sCtx<'a> = crate::k8s::wire::Ctx<'a>;

/// The world's timers: those its processes set, and its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timer {
    Process(ProcessTimer),
    /// The process restarts (after an exit or a kill, with the kubelet's back-off).
    Start,
    /// The probes' next write.
    ProbeWrite,
    /// The next round of a client's requests.
    ClientTick,
}

impl From<ProcessTimer> for Timer {
    fn from(t: ProcessTimer) -> Self {
        Timer::Process(t)
    }
}

impl From<crate::etcd::Timer> for Timer {
    fn from(t: crate::etcd::Timer) -> Self {
        Timer::Process(t.into())
    }
}

#[derive(Clone)]
enum Ev {
    Deliver {
        from: Addr,
        to: Addr,
        generation: u64,
        payload: Payload,
    },
    Scenario(usize),
    /// The draw of the scenario's fault processes with this index is due.
    Fault(u32),
    /// The changes the world scheduled for a host (`HostRt::boot_at`, `terminate_at`): the
    /// second half of a `reboot`, the end of a spot notice.
    Boot(HostId),
    Terminate(HostId),
    /// Poll whether an operator's membership change has committed.
    MemberChangeCheck {
        op: usize,
    },
    /// kubeadm's next attempt to add the learner of its join.
    AddLearner {
        host: HostId,
        attempt: u32,
    },
    /// kubeadm's next attempt to promote the learner its join added.
    Promote {
        host: HostId,
        attempt: u32,
    },
    /// A rebooting machine goes down (after its goodbye messages left).
    PowerOff {
        h: HostId,
        downtime: Duration,
    },
    /// Poll whether the etcd member stopping cleanly on `h` has handed its leadership over.
    EtcdStopping {
        h: HostId,
        then: AfterStop,
        deadline: SimTime,
    },
    Sample,
}

/// A timer set by a process, for the life of the process it was set in.
#[derive(Clone)]
struct TimerEv {
    to: Addr,
    generation: u64,
    timer: Timer,
}

// The queue keeps timers two to a cache line (`engine::TimerSlot`).
const _: () = assert!(std::mem::size_of::<Option<TimerEv>>() <= 32);

pub struct World {
    now: SimTime,
    queue: EventQueue<Ev, TimerEv>,
    net: Network,
    hosts: Hosts,
    procs: Processes,
    etcd: EtcdCluster,
    pods: PodCount,
    users: Users,
    quorum: QuorumClock,
    scenario: Scenario,
    /// What the run observed; the processes report to it through their layer's `Observe`.
    pub obs: Recorder,
    /// The effects of the input being handled, taken from the front as they are applied.
    effects: VecDeque<Effect<Payload, ProcessTimer>>,
}

impl Clone for World {
    /// Not inlined (a derived `clone` is): the page's crates would each carry their own copy of
    /// it, 4 KB of its download apiece.
    #[inline(never)]
    fn clone(&self) -> World {
        World {
            now: self.now,
            queue: self.queue.clone(),
            net: self.net.clone(),
            hosts: self.hosts.clone(),
            procs: self.procs.clone(),
            etcd: self.etcd.clone(),
            pods: self.pods.clone(),
            users: self.users.clone(),
            quorum: self.quorum.clone(),
            scenario: self.scenario.clone(),
            obs: self.obs.clone(),
            effects: self.effects.clone(),
        }
    }
}

impl World {
    pub fn new(scenario: Scenario) -> World {
        let n = scenario.hosts.len();
        let rng = Rng::new(scenario.seed);
        let s = &scenario.settings;
        let etcd_cfg = EtcdConfig {
            heartbeat_interval: s.etcd_heartbeat_interval,
            election_timeout: s.etcd_election_timeout,
            pre_vote: s.etcd_pre_vote,
        };
        let mut names: Vec<String> = scenario.hosts.iter().map(|h| h.name.clone()).collect();
        names.push("probe".into());
        let mut hosts = Hosts::new(&scenario);
        let mut net = Network::new(n + 1, s.network_latency, &rng);
        net.set_omni(hosts.probe);
        let with_role = |role: Role, standby: bool| -> Vec<HostId> {
            scenario
                .hosts
                .iter()
                .enumerate()
                .filter(|(_, h)| h.has_role(role) && (standby || !h.standby))
                .map(|(i, _)| i as HostId)
                .collect()
        };
        let initial = with_role(Role::Etcd, false);
        let probe = EtcdProbe::new(with_role(Role::Etcd, true), probe_value);
        let etcd = EtcdCluster::new(&names, &initial, etcd_cfg, rng.clone(), probe);
        let origin = SimTime::ZERO + BOOT;
        let mut obs = Recorder::new(names);
        obs.capacity = scenario.tracks_pending();
        obs.origin = origin;
        obs.horizon = origin + scenario.duration;
        let services = scenario
            .workloads
            .iter()
            .filter(|w| w.service)
            .map(|w| w.name.clone())
            .collect();
        let workloads = scenario
            .workloads
            .iter()
            .map(|w| w.name.clone())
            .chain([COREDNS.to_string()])
            .collect();
        hosts.faults = faults::draw(&scenario);
        let mut w = World {
            now: SimTime::ZERO,
            queue: EventQueue::default(),
            net,
            procs: Processes::new(n, rng.clone()),
            etcd,
            pods: PodCount::new(workloads, n),
            users: Users::new(services, rng),
            quorum: QuorumClock::new(origin),
            hosts,
            scenario,
            obs,
            effects: VecDeque::new(),
        };
        for &h in &initial {
            w.start_etcd_ticks(h);
        }
        if let Some(endpoint) = w.api_endpoint() {
            let probe_host = w.hosts.probe;
            let me = Addr {
                host: probe_host,
                port: Port::API_PROBE,
            };
            w.procs.api_probe = Some(ApiProbe::new(me, endpoint));
            let me = Addr {
                host: probe_host,
                port: Port::OPERATOR,
            };
            let mut operator = Operator::new(me, endpoint, w.manifests());
            let mut ctx: K8sCtx = ctx!(w, probe_host);
            operator.start(&mut ctx);
            w.procs.operator = Some(operator);
            w.apply_effects(probe_host);
        }
        for h in 0..n as HostId {
            if w.hosts[h as usize].joined {
                w.start_k8s_processes(h);
            }
        }
        w.queue.push(origin, Ev::Sample);
        let mut sorted_events: Vec<usize> = (0..w.scenario.events.len()).collect();
        crate::kernel::sort::sort_by_key(&mut sorted_events, |&i| w.scenario.events[i].at); // stable: ties keep list order
        for i in sorted_events {
            w.queue
                .push(origin + w.scenario.events[i].at, Ev::Scenario(i));
        }
        w.queue_next_fault();
        w
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Report seconds reached so far.
    pub fn elapsed_s(&self) -> f64 {
        self.obs.secs(self.now).max(0.0)
    }

    pub fn events_processed(&self) -> u64 {
        self.queue.popped()
    }

    /// Whether the etcd member `id` was ever started (it has published its name, which the
    /// cluster keeps even after the member's machine is gone).
    pub fn etcd_member_started(&self, id: crate::etcd::raft::MemberId) -> bool {
        self.etcd.started(id)
    }

    /// The id of the etcd member whose data is on host `h`, if any.
    pub fn etcd_member_on(&self, h: HostId) -> Option<crate::etcd::raft::MemberId> {
        let m = self.etcd.members.get(h as usize)?.as_ref()?;
        Some(m.raft.id())
    }

    /// Whether an apiserver runs on host `h` with its watch cache synced (what `/readyz` checks
    /// of it besides etcd).
    pub fn apiserver_ready(&self, h: HostId) -> bool {
        self.host_is_up(h)
            && (self.procs.on.get(h as usize))
                .and_then(|p| p.apiserver.as_ref())
                .is_some_and(|a| a.cache_synced())
    }

    /// The Raft term of the etcd member on host `h`, if any.
    pub fn etcd_member_term(&self, h: HostId) -> Option<u64> {
        let m = self.etcd.members.get(h as usize)?.as_ref()?;
        Some(m.raft.term())
    }

    /// The revision of the store of the etcd member on host `h`, if any.
    pub fn etcd_member_revision(&self, h: HostId) -> Option<u64> {
        let m = self.etcd.members.get(h as usize)?.as_ref()?;
        Some(m.kv.revision())
    }

    /// The id the next `member add` of host `h` gives its new member.
    pub fn etcd_next_member_id(&self, h: HostId) -> crate::etcd::raft::MemberId {
        self.etcd.next_member_id(h)
    }

    /// Whether host `h` runs now (up, and part of the cluster).
    pub fn host_is_up(&self, h: HostId) -> bool {
        self.hosts.get(h as usize).is_some_and(|r| r.up && r.joined)
    }

    /// Powered on and not terminated, in the cluster or not (a standby host waiting to join).
    pub fn host_is_running(&self, h: HostId) -> bool {
        self.hosts
            .get(h as usize)
            .is_some_and(|r| r.up && !r.terminated)
    }

    /// Part of the cluster: not a standby host that has not joined, nor a terminated one.
    pub fn host_is_joined(&self, h: HostId) -> bool {
        self.hosts.get(h as usize).is_some_and(|r| r.joined)
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The end of the scenario (absolute simulated time).
    pub fn end(&self) -> SimTime {
        self.obs.horizon
    }

    /// Runs the whole scenario, plus the probe timeout so every write sent by the end is resolved.
    pub fn run_to_end(&mut self) {
        while self.run_until(self.end(), u64::MAX) {}
        self.resolve_probes();
    }

    /// Runs on for the probes' timeout, so every write sent by now has its outcome.
    pub fn resolve_probes(&mut self) {
        let stop = self.now + PROBE_TIMEOUT;
        while self.run_until(stop, u64::MAX) {}
    }

    /// Processes events up to and including time `until` (absolute), at most `budget` of them.
    /// Returns true if it stopped because of the budget, false once `until` is reached.
    pub fn run_until(&mut self, until: SimTime, budget: u64) -> bool {
        let mut left = budget;
        loop {
            if left == 0 {
                if self.queue.peek_time().is_some_and(|at| at <= until) {
                    return true;
                }
                break;
            }
            let Some((at, next)) = self.queue.pop_until(until) else {
                break;
            };
            left -= 1;
            self.now = at;
            match next {
                Next::Event(ev) => self.handle(ev),
                Next::Timer(TimerEv {
                    to,
                    generation,
                    timer,
                }) => {
                    if self.hosts.alive(to, generation) {
                        self.fire(to, timer);
                    }
                }
            }
        }
        self.now = self.now.max(until);
        false
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Deliver {
                from,
                to,
                generation,
                payload,
            } => {
                if self.hosts.alive(to, generation) && self.net.can_send(from.host, to.host) {
                    self.deliver(from, to, payload);
                }
            }
            Ev::Scenario(i) => self.apply_scenario_event(i),
            Ev::Fault(i) => self.fault_due(i),
            Ev::Boot(h) => {
                let rt = &mut self.hosts[h as usize];
                if rt.boot_at == Some(self.now) {
                    rt.boot_at = None;
                    self.boot_host(h);
                }
            }
            Ev::Terminate(h) => {
                let rt = &mut self.hosts[h as usize];
                if rt.terminate_at == Some(self.now) {
                    rt.terminate_at = None;
                    self.terminate(h);
                }
            }
            Ev::MemberChangeCheck { op } => self.check_member_change(op),
            Ev::EtcdStopping { h, then, deadline } => self.check_etcd_stopping(h, then, deadline),
            Ev::PowerOff { h, downtime } => self.power_off(h, downtime),
            Ev::AddLearner { host, attempt } => self.add_joining_learner(host, attempt),
            Ev::Promote { host, attempt } => self.promote_joined_learner(host, attempt),
            Ev::Sample => self.sample(),
        }
    }

    /// A message reaches its process: etcd's own traffic goes to the member or the probe, the
    /// rest to the Kubernetes process at the address.
    fn deliver(&mut self, from: Addr, to: Addr, payload: Payload) {
        let containers_before = self.containers_touched_by(to);
        let exited = match (to.port, payload) {
            (Port::ETCD, Payload::Etcd(msg)) => {
                if let Some(m) = self.etcd.members[to.host as usize].as_mut() {
                    let mut ctx: EtcdCtx = ctx!(self, to.host);
                    m.on_message(&mut ctx, from, msg);
                }
                false
            }
            (Port::ETCD_PROBE, Payload::Etcd(msg)) => {
                let mut ctx: EtcdCtx = ctx!(self, to.host);
                self.etcd.probe.on_message(&mut ctx, msg);
                false
            }
            (Port::TERMINAL, payload) => {
                self.terminal_answer(payload);
                false
            }
            (Port::ETCD | Port::ETCD_PROBE | Port::CLIENT, _) => false,
            (_, payload) => {
                if let (Port::APISERVER, Payload::Api(ApiPayload::Request { client, .. })) =
                    (to.port, &payload)
                {
                    if client.port == Port::TERMINAL {
                        self.terminal_request_at(to.host);
                    }
                }
                match self.procs.get(to) {
                    Some(p) => {
                        let mut ctx: K8sCtx = ctx!(self, to.host);
                        p.on_message(&mut ctx, payload)
                    }
                    None => false,
                }
            }
        };
        self.after_input(to, containers_before, exited);
    }

    /// A timer a process set has come.
    fn fire(&mut self, to: Addr, timer: Timer) {
        if timer == Timer::Start {
            self.start_process(to.host, to.port);
            return;
        }
        let containers_before = self.containers_touched_by(to);
        let exited = match (to.port, timer) {
            (Port::ETCD, Timer::Process(ProcessTimer::Etcd(EtcdTimer::RaftTick))) => {
                if let Some(m) = self.etcd.members[to.host as usize].as_mut() {
                    let mut ctx: EtcdCtx = ctx!(self, to.host);
                    m.on_tick(&mut ctx);
                }
                false
            }
            (Port::ETCD_PROBE, Timer::ProbeWrite) => {
                let second =
                    crate::etcd::probe::EtcdProbe::<Value>::second_of(self.now, self.obs.origin);
                let mut ctx: EtcdCtx = ctx!(self, to.host);
                self.etcd.probe.write(&mut ctx, second);
                if let Some(p) = self.procs.api_probe.as_mut() {
                    let mut ctx: K8sCtx = ctx!(self, to.host);
                    p.write(&mut ctx, second);
                }
                false
            }
            (
                Port::ETCD_PROBE,
                Timer::Process(ProcessTimer::Etcd(EtcdTimer::ProbeTimeout { id })),
            ) => {
                let mut ctx: EtcdCtx = ctx!(self, to.host);
                self.etcd.probe.on_timeout(&mut ctx, id);
                false
            }
            (Port::CLIENT, Timer::ClientTick) => {
                self.client_tick(to.host);
                return;
            }
            (Port::ETCD | Port::ETCD_PROBE | Port::CLIENT, _) => false,
            (_, Timer::Process(timer)) => match self.procs.get(to) {
                Some(p) => {
                    let mut ctx: K8sCtx = ctx!(self, to.host);
                    p.on_timer(&mut ctx, timer)
                }
                None => false,
            },
            (_, _) => false,
        };
        self.after_input(to, containers_before, exited);
    }

    /// What follows every message or timer a process handled: its effects, the DNS servers and
    /// the next sample's recount if its kubelet's containers changed, its restart if it exited.
    /// Kept in both callers (out of line it cost 2 % more instructions on the hot path).
    #[inline(always)]
    fn after_input(&mut self, to: Addr, containers_before: Option<(u64, u64)>, exited: bool) {
        self.apply_effects(to.host);
        if self.containers_touched_by(to) != containers_before {
            self.sync_dns_servers(to.host);
            self.pods.touch(to.host);
        }
        if exited {
            self.process_exited(to.host, to.port);
        }
    }

    /// The containers' version of the host if `to` is its kubelet, the only process that
    /// changes them (compared before and after an input, to keep the DNS servers in step).
    fn containers_touched_by(&self, to: Addr) -> Option<(u64, u64)> {
        (to.port == Port::KUBELET)
            .then(|| self.procs.containers_version(&self.hosts, to.host))
            .flatten()
    }

    fn apply_effects(&mut self, host: HostId) {
        while let Some(effect) = self.effects.pop_front() {
            match effect {
                Effect::Send { from, to, payload } => {
                    let from = Addr { host, port: from };
                    self.transmit(from, to, self.now, payload);
                }
                Effect::Timer { port, after, timer } => {
                    let to = Addr { host, port };
                    self.set_timer(self.now + after, to, Timer::Process(timer));
                }
                Effect::HangUp { port } => self.hang_up(Addr { host, port }),
            }
        }
        // Emptied: back to the start of the buffer, whose first slots stay in cache.
        self.effects.clear();
    }

    /// A message leaving `from` at `departs`, if the network lets it go; one for the load
    /// balancer is relayed at once (see `relay`).
    fn transmit(&mut self, from: Addr, to: Addr, departs: SimTime, payload: Payload) {
        let Some(to) = self.route(from.host, to) else {
            return;
        };
        if to.host as usize >= self.net.hosts() || !self.net.can_send(from.host, to.host) {
            return;
        }
        let at = self.net.arrival(departs, from.host, to.host);
        if to.port == Port::LB {
            self.relay(from, to, at, payload);
        } else {
            self.send_at(from, to, at, payload);
        }
    }

    fn send_at(&mut self, from: Addr, to: Addr, at: SimTime, payload: Payload) {
        let generation = self.hosts.generation(to);
        self.queue.push(
            at,
            Ev::Deliver {
                from,
                to,
                generation,
                payload,
            },
        );
    }

    /// A message for the load balancer that it passes on is relayed as it is sent, saving the
    /// balancer an event per message: it reaches the balancer at `at` (the balancer must be
    /// running now), which picks where it goes; the second hop leaves from there like any
    /// message and is checked for partitions on arrival.
    fn relay(&mut self, from: Addr, lb: Addr, at: SimTime, payload: Payload) {
        let msg = match payload {
            Payload::Api(msg) => msg,
            other => return self.send_at(from, lb, at, other),
        };
        let running = self.hosts.get(lb.host as usize).is_some_and(|h| h.up);
        let procs = self.procs.on.get(lb.host as usize);
        if !procs
            .and_then(|p| p.lb.as_ref())
            .is_some_and(|b| b.relays(&msg))
        {
            return self.send_at(from, lb, at, Payload::Api(msg));
        }
        if !running {
            return;
        }
        let next = if matches!(msg, ApiPayload::Request { .. }) {
            self.route_request(lb.host, msg, from, at)
        } else {
            // An answer or a watch stream, on to its client.
            msg.client().map(|client| (client, msg))
        };
        if let Some((next, msg)) = next {
            self.transmit(lb, next, at, Payload::Api(msg));
        }
    }

    /// The balancer on `lb` routes a request, looking at its backends' hosts as it dials.
    fn route_request(
        &mut self,
        lb: HostId,
        msg: ApiPayload,
        from: Addr,
        at: SimTime,
    ) -> Option<(Addr, ApiPayload)> {
        // Out for the moment, so that the hosts' processes can be looked at.
        let mut balancer = self.procs.on[lb as usize].lb.take()?;
        let peer = |h: HostId| {
            let up = self.hosts.get(h as usize).is_some_and(|x| x.up);
            let listens = self.procs.on[h as usize].apiserver.is_some();
            Peer {
                up,
                reachable: self.net.connected(lb, h),
                listening: up && listens,
                life: self.hosts.generation(Addr {
                    host: h,
                    port: Port::APISERVER,
                }),
            }
        };
        let next = balancer.route(msg, self.hosts.generation(from), at, peer);
        self.procs.on[lb as usize].lb = Some(balancer);
        next
    }

    /// `client` (a kubelet) closed its connections: the load balancer forgets the one it had,
    /// and the next request is balanced anew.
    fn hang_up(&mut self, client: Addr) {
        let Some(lb) = self.api_endpoint().filter(|e| e.port == Port::LB) else {
            return;
        };
        let balancer = self.procs.on[lb.host as usize].lb.as_mut();
        let Some(backend) = balancer.and_then(|b| b.hang_up(client)) else {
            return;
        };
        let text = format!(
            "the kubelet on {} closes its connection to the apiserver on {}: an update of its Node Lease failed again; its next request dials again, and the load balancer picks the next apiserver in service for it",
            self.hosts.name(client.host),
            self.hosts.name(backend)
        );
        let kind = EventKind::KubeletConnectionsClosed;
        self.obs.note(self.now, kind, Some(client.host), text);
    }

    /// Queues `timer` for the process at `to`, in its current life.
    #[inline]
    fn set_timer(&mut self, at: SimTime, to: Addr, timer: impl Into<Timer>) {
        let timer = timer.into();
        let generation = self.hosts.generation(to);
        self.queue.push_timer(
            at,
            TimerEv {
                to,
                generation,
                timer,
            },
        );
    }

    /// What the operator applies before t = 0: every workload of the scenario with its
    /// PodDisruptionBudget, and kubeadm's add-ons: CoreDNS and kube-proxy.
    fn manifests(&self) -> Vec<(String, Value)> {
        let kind = |k: WorkloadKind| match k {
            WorkloadKind::Deployment => Kind::Deployment,
            WorkloadKind::StatefulSet => Kind::StatefulSet,
            WorkloadKind::DaemonSet => Kind::DaemonSet,
        };
        let coredns = Workload {
            kind: Kind::Deployment,
            name: COREDNS.into(),
            replicas: self.scenario.settings.coredns_replicas,
            // The kube-dns Service.
            service: true,
            created: SimTime(0),
        };
        // Its pods are the Nodes' kube-proxies as the API lists them; the rules on each host are
        // kept by a process of the host's own (`Port::KUBE_PROXY`).
        let kube_proxy = Workload {
            kind: Kind::DaemonSet,
            name: KUBE_PROXY.into(),
            replicas: 0,
            service: false,
            created: SimTime(0),
        };
        self.scenario
            .workloads
            .iter()
            .map(|w| Workload {
                kind: kind(w.kind),
                name: w.name.clone(),
                replicas: w.replicas.unwrap_or(0),
                service: w.service,
                created: SimTime(0),
            })
            .chain([coredns, kube_proxy])
            .map(|w| (workload_key(&w.name), Value::new(Object::Workload(w))))
            .chain(self.scenario.workloads.iter().filter_map(|w| {
                let budget = match w.pdb? {
                    scenario::Budget::MinAvailable(n) => Budget::MinAvailable(n),
                    scenario::Budget::MaxUnavailable(n) => Budget::MaxUnavailable(n),
                };
                let pdb = PodDisruptionBudget {
                    name: w.name.clone(),
                    budget,
                    observed: false,
                    expected_pods: 0,
                    current_healthy: 0,
                    desired_healthy: 0,
                    disruptions_allowed: 0,
                    disrupted_pods: Vec::new(),
                    created: SimTime(0),
                };
                let key = pdb_key(&w.name);
                Some((key, Value::new(Object::PodDisruptionBudget(pdb))))
            }))
            .collect()
    }

    /// Where a message from `from` to `to` goes: the VIP to the apiserver of a host that holds
    /// it now, the one `from` can reach if a split left two (None: nobody answers for it), any
    /// other address to itself.
    pub(super) fn route(&self, from: HostId, to: Addr) -> Option<Addr> {
        if to.port != Port::VIP {
            return Some(to);
        }
        let mut first = None;
        for h in 0..self.hosts.len() as HostId {
            if self.holds_vip(h) {
                if self.net.connected(from, h) {
                    first = Some(h);
                    break;
                }
                first = first.or(Some(h));
            }
        }
        first.map(|host| Addr {
            host,
            port: Port::APISERVER,
        })
    }

    /// Whether `h` runs and answers for the VIP: a kube-vip acting as its lease's holder (two
    /// would be a violation), or a keepalived VRRP master (two are during a split).
    pub(super) fn holds_vip(&self, h: HostId) -> bool {
        self.hosts[h as usize].up
            && (self.obs.acts(KUBE_VIP_LEASE, h) || self.procs.on[h as usize].vrrp_master())
    }

    /// The endpoint kubelets, the API probe and kubeconfigs use: the VIP with kube-vip or
    /// keepalived, else the load balancer, else the first apiserver.
    pub fn api_endpoint(&self) -> Option<Addr> {
        let hosts = &self.scenario.hosts;
        if self.scenario.settings.api_endpoint != ApiEndpoint::LoadBalancer {
            return Some(VIP);
        }
        if let Some(lb) = hosts.iter().position(|h| h.has_role(Role::LoadBalancer)) {
            return Some(Addr {
                host: lb as HostId,
                port: Port::LB,
            });
        }
        hosts.iter().position(|h| h.runs_apiserver()).map(|h| Addr {
            host: h as HostId,
            port: Port::APISERVER,
        })
    }

    /// Whether an API request from `h` through the endpoint kubelets use would be served now:
    /// the endpoint reachable from `h`, and behind it (a load balancer's backend in service, or
    /// the endpoint itself) a ready apiserver whose etcd has a leader.
    fn api_serves_from(&self, h: HostId) -> bool {
        let Some(endpoint) = self.api_endpoint().and_then(|e| self.route(h, e)) else {
            return false;
        };
        let e = endpoint.host;
        let ready = |a: HostId| self.apiserver_ready(a);
        if !self.hosts[e as usize].up || !self.net.connected(h, e) {
            return false;
        }
        if endpoint.port != Port::LB {
            return ready(e);
        }
        let backends = self.procs.on[e as usize]
            .lb
            .as_ref()
            .map(|lb| lb.backends())
            .unwrap_or_default();
        backends
            .into_iter()
            .any(|(b, in_service)| in_service && self.net.connected(e, b) && ready(b))
    }

    /// The apiserver a control-plane component talks to: the one on its own host (kubeadm),
    /// else the API endpoint.
    fn local_apiserver(&self, h: HostId) -> Option<Addr> {
        if self.scenario.hosts[h as usize].runs_apiserver() {
            Some(Addr {
                host: h,
                port: Port::APISERVER,
            })
        } else {
            self.api_endpoint()
        }
    }

    fn update_quorum(&mut self) {
        let voters = self.etcd.connected_voters(&self.net);
        self.quorum.update(self.now, voters, &mut self.obs);
    }

    /// Once a second: the quorum, who leads, what runs; then the probes' next writes.
    fn sample(&mut self) {
        self.update_quorum();
        let t = self.obs.secs(self.now);
        let leader = self.etcd.leader(&self.hosts);
        if self.obs.series.t.is_empty() {
            // t = 0: what the boot established appears as events at t = 0.
            if let Some(h) = leader {
                let term = self.etcd.term(Some(h));
                self.obs.etcd_leader_at_start(self.now, h, term);
            }
            self.obs.leases_at_start(self.now);
            for h in 0..self.hosts.len() as HostId {
                if !(self.hosts[h as usize].up && self.procs.on[h as usize].vrrp_master()) {
                    continue;
                }
                let text = format!(
                    "{} holds the API's virtual IP (keepalived's VRRP master since the cluster booted)",
                    self.hosts.name(h)
                );
                self.push_event(EventKind::VipMoved, Some(h), text);
            }
        }
        let lease_leader = |lease| self.obs.lease_leader(lease).map(|h| self.hosts.name(h));
        let (kcm, sched) = (
            lease_leader(crate::k8s::leader::KCM_LEASE),
            lease_leader(crate::k8s::leader::SCHEDULER_LEASE),
        );
        let series = &mut self.obs.series;
        series.controller_manager_leader.push(kcm);
        series.scheduler_leader.push(sched);
        if self.procs.api_probe.is_some() {
            self.pods
                .sample(&self.procs, &self.hosts, self.now, &mut self.obs);
            if self.obs.capacity {
                self.obs.sample_pending(&self.pods.workloads);
            }
        }
        let series = &mut self.obs.series;
        series.t.push(t.round());
        series.etcd_quorum.push(self.quorum.quorum == Some(true));
        series.etcd_leader.push(leader.map(|h| self.hosts.name(h)));
        series.etcd_term.push(self.etcd.term(leader));
        // The probe writes once per second, right after the sample.
        let probe = Addr {
            host: self.hosts.probe,
            port: Port::ETCD_PROBE,
        };
        self.set_timer(self.now, probe, Timer::ProbeWrite);
        if self.now + Duration::from_secs(1) <= self.end() {
            self.queue
                .push(self.now + Duration::from_secs(1), Ev::Sample);
        }
    }

    /// What the run observed up to now, for the report.
    pub fn record(&self) -> RunRecord<'_> {
        RunRecord {
            recorder: &self.obs,
            series: &self.obs.series,
            traffic: &self.users.traffic,
            etcd_writes: &self.etcd.probe.outcomes,
            api_writes: self.procs.api_probe.as_ref().map(|p| &p.outcomes),
            workloads: self.workload_counts(),
            quorum_lost_s: self.quorum_lost_s(),
        }
    }

    pub fn quorum_lost_s(&self) -> f64 {
        self.quorum.lost_s(self.now, self.end(), self.obs.origin)
    }

    /// Per workload (scenario order, CoreDNS last): name, most running at once, running now.
    pub fn workload_counts(&self) -> Vec<(String, u32, u32)> {
        self.pods.counts(&self.procs, &self.hosts)
    }

    /// Every CoreDNS pod's server: (host, pod, whether it has synced with the API since it started).
    pub fn coredns_servers(&self) -> Vec<(String, String, bool)> {
        let mut out = Vec::new();
        for (i, p) in self.procs.on.iter().enumerate() {
            for (pod, d) in &p.dns {
                out.push((self.hosts[i].name.clone(), pod.clone(), d.synced()));
            }
        }
        out
    }

    /// The absolute simulated time of report second `t` (clamped to the run).
    pub fn at_report_secs(&self, t: f64) -> SimTime {
        let us = (t.max(0.0) * 1e6).round() as u64;
        (self.obs.origin + Duration(us)).min(self.end())
    }
}

/// What the etcd write probe writes at a report second.
fn probe_value(second: i64) -> Value {
    Value::new(Object::from(second.to_string().as_str()))
}
