//! The world: hosts, the network, the processes on them, and the scenario's faults
//! and operator actions, driven by one event queue.
//!
//! A run starts with a boot (the cluster forming, not reported) so that t = 0 of the
//! scenario is a settled cluster; scenario events are then applied at their times.
//! `run_until` advances the run with an event budget so a UI can drive it frame by
//! frame; the report is a pure function of the scenario and the time reached.

use crate::etcd::member::EtcdConfig;
use crate::etcd::probe::PROBE_TIMEOUT;
use crate::etcd::quorum;
use crate::etcd::raft::{ConfChange, MemberId, Role as RaftRole};
use crate::k8s::api::ApiPayload;
use crate::k8s::apiserver::{Apiserver, Verdict};
use crate::k8s::controllers::{Controllers, ControllersSpec, NodeTimings};
use crate::k8s::kubelet::Kubelet;
use crate::k8s::lb::{HealthCheck, LoadBalancer};
use crate::k8s::leader::{LeaderElector, LeaseTimings, Transition, KCM_LEASE, SCHEDULER_LEASE};
use crate::k8s::leading::Leading;
use crate::k8s::objects::{workload_key, Kind, Object, Workload};
use crate::k8s::operator::Operator;
use crate::k8s::probe::ApiProbe;
use crate::k8s::proxy::{DnsServer, DnsServers, KubeProxy};
use crate::k8s::scheduler::{Scheduler, SchedulerSpec};
use crate::k8s::traffic::Client;
use crate::k8s::wire::{EtcdMember, EtcdProbe, Payload, Value};
use crate::k8s::Observe as _;
use crate::kernel::engine::{EventQueue, Next};
use crate::kernel::keymap::KeyMap;
use crate::kernel::net::{HostId, Network};
use crate::kernel::process::{Addr, Ctx, Effect, Port, Timer};
use crate::kernel::rng::Rng;
use crate::kernel::time::{Duration, SimTime};
use crate::record::{Event, Recorder, RunRecord, Series, Traffic};
use crate::scenario::{
    Action, Component, LbHealthCheck, Role, Scenario, WorkloadKind, COREDNS, SPOT_NOTICE,
};
use std::collections::{BTreeMap, VecDeque};

/// What an etcd member sees of the world while handling one input.
type EtcdCtx<'a> = crate::etcd::Ctx<'a, Payload>;
/// What a Kubernetes process sees.
type K8sCtx<'a> = crate::k8s::wire::Ctx<'a>;

/// The context of one input handled on `host`: the world's effects buffer and its recorder,
/// seen as the layer's observer (the binding's type says which).
macro_rules! ctx {
    ($w:ident, $host:expr) => {
        Ctx {
            now: $w.now,
            host: $host,
            effects: &mut $w.effects,
            obs: &mut $w.obs,
        }
    };
}

/// Simulated time before t = 0 in which the cluster boots and settles (etcd elects a
/// leader, apiservers sync their caches, leases are taken).
pub const BOOT: Duration = Duration::from_secs(30);
/// The kubelet's restart back-off for a container that exited: 10 s, doubling, at most 5 min.
const RESTART_BACKOFF: Duration = Duration::from_secs(10);
const RESTART_BACKOFF_MAX: Duration = Duration::from_secs(300);

/// The Kubernetes processes of one host (etcd lives apart: its disk outlives its process).
#[derive(Clone, Default)]
struct Procs {
    apiserver: Option<Apiserver>,
    lb: Option<LoadBalancer>,
    kcm: Option<Leading<Controllers>>,
    scheduler: Option<Leading<Scheduler>>,
    kubelet: Option<Kubelet>,
    proxy: Option<KubeProxy>,
    dns: DnsServers,
}
/// How long the operator's `etcdctl member add/remove` waits for the change to commit (its command timeout).
pub const MEMBER_CHANGE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone)]
enum Ev {
    Deliver {
        from: Addr,
        to: Addr,
        generation: u64,
        payload: Payload,
    },
    Scenario(usize),
    /// The second half of a `reboot`, and the end of a spot notice.
    Boot(HostId),
    Terminate(HostId),
    /// Poll whether an operator's membership change has committed.
    MemberChangeCheck {
        op: usize,
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

/// A host's life. Every event looks at `up`, `incarnation` and one of `process_generation`: they come
/// first, in one cache line of their own (at a thousand hosts, each event would otherwise
/// miss the cache on the host's state more than once).
#[derive(Clone)]
#[repr(C, align(64))]
struct HostRt {
    up: bool,
    /// Standby hosts take part only after `join`; spot hosts after termination never return.
    joined: bool,
    terminated: bool,
    /// Bumped on every crash, so messages and timers addressed to a previous life are dropped.
    incarnation: u64,
    /// Per process: how many times it was stopped or restarted (see `generation`).
    process_generation: [u32; Port::COUNT],
    name: String,
}

/// What one host's containers add up to, and for which state of its kubelet.
#[derive(Clone, Default)]
struct HostPods {
    version: Option<(u64, u64)>,
    /// Per workload, in `workload_names` order.
    running: Vec<u32>,
    stateful: Vec<String>,
}

#[derive(Clone)]
struct MemberChange {
    action: &'static str,
    host: HostId,
    leader: HostId,
    change: ConfChange,
    deadline: SimTime,
}

#[derive(Clone)]
pub struct World {
    now: SimTime,
    end: SimTime,
    queue: EventQueue<Ev, TimerEv>,
    net: Network,
    hosts: Vec<HostRt>,
    etcd: Vec<Option<EtcdMember>>,
    /// The hosts with a member in `etcd`, ascending, so scans for the leader or the voters
    /// need not look at every host.
    etcd_hosts: Vec<HostId>,
    etcd_cfg: EtcdConfig,
    procs: Vec<Procs>,
    /// Exits of each (host, process) since the host booted, for the restart back-off.
    restarts: BTreeMap<(HostId, Port), u32>,
    dns_counter: u64,
    api_probe: Option<ApiProbe>,
    operator: Option<Operator>,
    /// Worker host names in host order: the scheduler's tie-break.
    worker_order: Vec<String>,
    worker_ids: Vec<HostId>,
    clients: BTreeMap<HostId, Client>,
    traffic: Traffic,
    /// Workloads in scenario order (CoreDNS last), and the most pods of each seen running at once.
    workload_names: Vec<String>,
    workload_index: BTreeMap<String, usize>,
    host_index: KeyMap<HostId>,
    max_running: Vec<u32>,
    /// Containers running per workload as of the last sample.
    running_now: Vec<u32>,
    reported_doubles: std::collections::BTreeSet<String>,
    host_pods: Vec<HostPods>,
    /// Hosts whose containers may have changed since the last sample (a kubelet handled an
    /// input, or a process started or stopped, or the host crashed), so a sample recounts only those.
    recount: std::collections::BTreeSet<HostId>,
    rng: Rng,
    /// The hidden observer host that runs the probe; it is never crashed or partitioned away.
    probe_host: HostId,
    probe: EtcdProbe,
    scenario: Scenario,
    sorted_events: Vec<usize>,
    cluster_counter: u64,
    current_cluster: u64,
    member_changes: Vec<MemberChange>,
    pub obs: Recorder,
    series: Series,
    quorum: Option<bool>,
    quorum_since: SimTime,
    quorum_lost_us: u64,
    events_processed: u64,
    /// The effects of the input being handled, taken from the front as they are applied.
    effects: VecDeque<Effect<Payload>>,
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
        let mut net = Network::new(n + 1, s.network_latency, &rng);
        let probe_host = n as HostId;
        net.set_omni(probe_host);
        let hosts = scenario
            .hosts
            .iter()
            .map(|h| HostRt {
                name: h.name.clone(),
                up: true,
                incarnation: 0,
                joined: !h.standby,
                terminated: false,
                process_generation: [0; Port::COUNT],
            })
            .collect();
        let initial: Vec<HostId> = scenario
            .hosts
            .iter()
            .enumerate()
            .filter(|(_, h)| h.has_role(Role::Etcd) && !h.standby)
            .map(|(i, _)| i as HostId)
            .collect();
        let etcd_hosts: Vec<HostId> = scenario
            .hosts
            .iter()
            .enumerate()
            .filter(|(_, h)| h.has_role(Role::Etcd))
            .map(|(i, _)| i as HostId)
            .collect();
        let etcd: Vec<_> = (0..n as HostId)
            .map(|h| {
                initial.contains(&h).then(|| {
                    EtcdMember::bootstrap(
                        h,
                        &initial,
                        etcd_cfg,
                        rng.fork(&format!("etcd/{}", names[h as usize])),
                    )
                })
            })
            .collect();
        let mut sorted_events: Vec<usize> = (0..scenario.events.len()).collect();
        sorted_events.sort_by_key(|&i| scenario.events[i].at); // stable: ties keep list order
        let end = SimTime::ZERO + BOOT + scenario.duration;
        let mut obs = Recorder::new(names);
        obs.origin = SimTime::ZERO + BOOT;
        obs.horizon = end;
        let mut w = World {
            now: SimTime::ZERO,
            end,
            queue: EventQueue::default(),
            net,
            hosts,
            etcd_hosts: (0..n as HostId)
                .filter(|&h| etcd[h as usize].is_some())
                .collect(),
            etcd,
            etcd_cfg,
            procs: (0..n).map(|_| Procs::default()).collect(),
            restarts: BTreeMap::new(),
            dns_counter: 0,
            api_probe: None,
            operator: None,
            worker_order: scenario
                .hosts
                .iter()
                .filter(|h| h.is_worker())
                .map(|h| h.name.clone())
                .collect(),
            worker_ids: (0..n)
                .filter(|&i| scenario.hosts[i].is_worker())
                .map(|i| i as HostId)
                .collect(),
            clients: BTreeMap::new(),
            traffic: Traffic::new(
                scenario
                    .workloads
                    .iter()
                    .filter(|w| w.service)
                    .map(|w| w.name.clone())
                    .collect(),
            ),
            workload_names: scenario
                .workloads
                .iter()
                .map(|w| w.name.clone())
                .chain([COREDNS.to_string()])
                .collect(),
            workload_index: scenario
                .workloads
                .iter()
                .map(|w| w.name.clone())
                .chain([COREDNS.to_string()])
                .enumerate()
                .map(|(i, w)| (w, i))
                .collect(),
            host_index: scenario
                .hosts
                .iter()
                .enumerate()
                .map(|(i, h)| (h.name.as_str().into(), i as HostId))
                .collect(),
            max_running: vec![0; scenario.workloads.len() + 1],
            running_now: vec![0; scenario.workloads.len() + 1],
            reported_doubles: Default::default(),
            host_pods: vec![HostPods::default(); n],
            recount: (0..n as HostId).collect(),
            rng,
            probe_host,
            probe: EtcdProbe::new(etcd_hosts, probe_value),
            sorted_events,
            scenario,
            cluster_counter: 1,
            current_cluster: 1,
            member_changes: Vec::new(),
            obs,
            series: Series::default(),
            quorum: None,
            quorum_since: SimTime::ZERO + BOOT,
            quorum_lost_us: 0,
            events_processed: 0,
            effects: VecDeque::new(),
        };
        for &h in &initial {
            w.start_etcd_ticks(h);
        }
        if let Some(endpoint) = w.api_endpoint() {
            let me = Addr {
                host: probe_host,
                port: Port::ApiProbe,
            };
            w.api_probe = Some(ApiProbe::new(me, endpoint));
            let me = Addr {
                host: probe_host,
                port: Port::Operator,
            };
            let mut operator = Operator::new(me, endpoint, w.manifests());
            let mut ctx: K8sCtx = ctx!(w, probe_host);
            operator.start(&mut ctx);
            w.operator = Some(operator);
            w.apply_effects(probe_host);
        }
        for h in 0..n as HostId {
            if w.hosts[h as usize].joined {
                w.start_k8s_processes(h);
            }
        }
        let origin = w.obs.origin;
        w.queue.push(origin, Ev::Sample);
        for &i in &w.sorted_events {
            w.queue
                .push(origin + w.scenario.events[i].at, Ev::Scenario(i));
        }
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
        self.events_processed
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Runs the whole scenario, plus the probe timeout so every write sent by the end is resolved.
    pub fn run_to_end(&mut self) {
        let stop = self.end + PROBE_TIMEOUT;
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
            self.events_processed += 1;
            match next {
                Next::Event(ev) => self.handle(ev),
                Next::Timer(TimerEv {
                    to,
                    generation,
                    timer,
                }) => {
                    if self.alive(to, generation) {
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
                if self.alive(to, generation) && self.net.can_send(from.host, to.host) {
                    self.deliver(from, to, payload);
                }
            }
            Ev::Scenario(i) => self.apply_scenario_event(i),
            Ev::Boot(h) => self.boot_host(h),
            Ev::Terminate(h) => {
                self.crash_host(
                    h,
                    "its spot instance was reclaimed after the 2-minute notice",
                );
                self.hosts[h as usize].terminated = true;
            }
            Ev::MemberChangeCheck { op } => self.check_member_change(op),
            Ev::Sample => self.sample(),
        }
    }

    fn deliver(&mut self, from: Addr, to: Addr, payload: Payload) {
        let h = to.host as usize;
        let containers_before = self.containers_touched_by(to);
        let mut exited = false;
        if let Payload::Etcd(msg) = payload {
            let mut ctx: EtcdCtx = ctx!(self, to.host);
            match to.port {
                Port::Etcd => {
                    if let Some(m) = self.etcd[h].as_mut() {
                        m.on_message(&mut ctx, from, msg);
                    }
                }
                Port::EtcdProbe => self.probe.on_message(&mut ctx, msg),
                Port::Apiserver => {
                    if let Some(a) = self.procs[h].apiserver.as_mut() {
                        let mut ctx: K8sCtx = ctx!(self, to.host);
                        a.on_message(&mut ctx, Payload::Etcd(msg));
                        exited = a.verdict == Verdict::KilledByLiveness;
                    }
                }
                _ => {}
            }
            return self.after_input(to, containers_before, exited);
        }
        let mut ctx: K8sCtx = ctx!(self, to.host);
        match to.port {
            Port::Etcd | Port::EtcdProbe => {}
            Port::ApiProbe => {
                if let (Some(p), Payload::Api(ApiPayload::Response { id, resp, .. })) =
                    (self.api_probe.as_mut(), payload)
                {
                    p.on_response(id, &resp, ctx.now);
                }
            }
            Port::Apiserver => {
                if let Some(a) = self.procs[h].apiserver.as_mut() {
                    a.on_message(&mut ctx, payload);
                    exited = a.verdict == Verdict::KilledByLiveness;
                }
            }
            Port::Lb => {
                if let Some(lb) = self.procs[h].lb.as_mut() {
                    lb.on_message(&mut ctx, payload);
                }
            }
            Port::ControllerManager => {
                if let Some(p) = self.procs[h].kcm.as_mut() {
                    exited = p.on_message(&mut ctx, payload) == Transition::Lost;
                }
            }
            Port::Scheduler => {
                if let Some(p) = self.procs[h].scheduler.as_mut() {
                    exited = p.on_message(&mut ctx, payload) == Transition::Lost;
                }
            }
            Port::Kubelet => {
                if let Some(k) = self.procs[h].kubelet.as_mut() {
                    k.on_message(&mut ctx, payload);
                }
            }
            Port::KubeProxy => {
                if let (Some(p), Payload::Api(msg)) = (self.procs[h].proxy.as_mut(), &payload) {
                    p.on_api(&mut ctx, msg);
                }
            }
            Port::CoreDns => {
                if let Payload::Api(msg) = &payload {
                    for d in self.procs[h].dns.values_mut() {
                        if d.on_api(&mut ctx, msg) {
                            break;
                        }
                    }
                }
            }
            Port::Operator => {
                if let (Some(o), Payload::Api(msg)) = (self.operator.as_mut(), payload) {
                    o.on_api(&mut ctx, msg);
                }
            }
            Port::Client => {}
        }
        self.after_input(to, containers_before, exited);
    }

    fn fire(&mut self, to: Addr, timer: Timer) {
        let origin = self.obs.origin;
        let h = to.host as usize;
        if timer == Timer::Start {
            self.start_process(to.host, to.port);
            return;
        }
        let containers_before = self.containers_touched_by(to);
        match (to.port, timer) {
            (Port::Etcd, Timer::RaftTick) => {
                if let Some(m) = self.etcd[h].as_mut() {
                    let mut ctx: EtcdCtx = ctx!(self, to.host);
                    m.on_tick(&mut ctx);
                }
                return self.after_input(to, containers_before, false);
            }
            (Port::EtcdProbe, Timer::ProbeWrite) => {
                let second = EtcdProbe::second_of(self.now, origin);
                let mut ctx: EtcdCtx = ctx!(self, to.host);
                self.probe.write(&mut ctx, second);
                if let Some(p) = self.api_probe.as_mut() {
                    let mut ctx: K8sCtx = ctx!(self, to.host);
                    p.write(&mut ctx, second);
                }
                return self.after_input(to, containers_before, false);
            }
            (Port::EtcdProbe, Timer::ProbeTimeout { id }) => {
                let mut ctx: EtcdCtx = ctx!(self, to.host);
                self.probe.on_timeout(&mut ctx, id);
                return self.after_input(to, containers_before, false);
            }
            _ => {}
        }
        let mut ctx: K8sCtx = ctx!(self, to.host);
        let mut exited = false;
        match (to.port, timer) {
            (Port::ApiProbe, Timer::ApiTimeout { .. }) => {
                if let Some(p) = self.api_probe.as_mut() {
                    p.on_timeout(&mut ctx);
                }
            }
            (Port::Apiserver, t) => {
                if let Some(a) = self.procs[h].apiserver.as_mut() {
                    match t {
                        Timer::EtcdTimeouts => a.on_etcd_timeouts(&mut ctx),
                        Timer::Housekeeping => a.on_housekeeping(&mut ctx),
                        Timer::Livez => a.on_livez(&mut ctx),
                        _ => {}
                    }
                    exited = a.verdict == Verdict::KilledByLiveness;
                }
            }
            (Port::Lb, t) => {
                if let Some(lb) = self.procs[h].lb.as_mut() {
                    match t {
                        Timer::LbCheck => lb.on_check_timer(&mut ctx),
                        Timer::LbCheckTimeout { id } => lb.on_check_timeout(&mut ctx, id),
                        _ => {}
                    }
                }
            }
            (Port::ControllerManager, t) => {
                if let Some(p) = self.procs[h].kcm.as_mut() {
                    exited = p.on_timer(&mut ctx, t) == Transition::Lost;
                }
            }
            (Port::Scheduler, t) => {
                if let Some(p) = self.procs[h].scheduler.as_mut() {
                    exited = p.on_timer(&mut ctx, t) == Transition::Lost;
                }
            }
            (Port::Kubelet, t) => {
                if let Some(k) = self.procs[h].kubelet.as_mut() {
                    k.on_timer(&mut ctx, t);
                }
            }
            (Port::KubeProxy, t) => {
                if let Some(p) = self.procs[h].proxy.as_mut() {
                    match t {
                        Timer::Housekeeping => p.on_sync(&mut ctx),
                        Timer::ApiTimeout { id } => p.on_timeout(&mut ctx, id),
                        _ => {}
                    }
                }
            }
            (Port::CoreDns, t) => match t {
                Timer::Housekeeping => {
                    for d in self.procs[h].dns.values_mut() {
                        d.tick(&mut ctx);
                    }
                    if !self.procs[h].dns.is_empty() {
                        ctx.set_timer(Port::CoreDns, Duration::from_secs(1), Timer::Housekeeping);
                    }
                }
                Timer::ApiTimeout { id } => {
                    if let Some(d) = self.procs[h].dns.values_mut().find(|d| d.owns(id)) {
                        d.on_timeout(&mut ctx, id);
                    }
                }
                _ => {}
            },
            (Port::Operator, t) => {
                if let Some(o) = self.operator.as_mut() {
                    match t {
                        Timer::Housekeeping => o.on_tick(&mut ctx),
                        Timer::ApiTimeout { id } => o.on_timeout(&mut ctx, id),
                        _ => {}
                    }
                }
            }
            (Port::Client, Timer::ClientTick) => {
                self.client_tick(to.host);
                return;
            }
            _ => {}
        }
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
            self.recount.insert(to.host);
        }
        if exited {
            self.process_exited(to.host, to.port);
        }
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
                    self.set_timer(self.now + after, to, timer);
                }
            }
        }
        // Emptied: back to the start of the buffer, whose first slots stay in cache.
        self.effects.clear();
    }

    /// A message leaving `from` at `departs`, if the network lets it go; one for the load
    /// balancer is relayed at once (see `relay`).
    fn transmit(&mut self, from: Addr, to: Addr, departs: SimTime, payload: Payload) {
        if to.host as usize >= self.net.hosts() || !self.net.can_send(from.host, to.host) {
            return;
        }
        let at = self.net.arrival(departs, from.host, to.host);
        if to.port == Port::Lb {
            self.relay(from, to, at, payload);
        } else {
            self.send_at(from, to, at, payload);
        }
    }

    fn send_at(&mut self, from: Addr, to: Addr, at: SimTime, payload: Payload) {
        let generation = self.generation(to);
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
        let balancer = self
            .procs
            .get_mut(lb.host as usize)
            .and_then(|p| p.lb.as_mut())
            .filter(|b| b.relays(&msg));
        let Some(balancer) = balancer else {
            return self.send_at(from, lb, at, Payload::Api(msg));
        };
        if !running {
            return;
        }
        if let Some((next, msg)) = balancer.route(msg) {
            self.transmit(lb, next, at, Payload::Api(msg));
        }
    }

    /// Queues `timer` for the process at `to`, in its current life.
    #[inline]
    fn set_timer(&mut self, at: SimTime, to: Addr, timer: Timer) {
        let generation = self.generation(to);
        self.queue.push_timer(
            at,
            TimerEv {
                to,
                generation,
                timer,
            },
        );
    }

    /// The life of a process: its host's incarnation and the process's own restarts. Messages
    /// and timers addressed to an earlier life are dropped (a restarted process starts afresh).
    fn generation(&self, to: Addr) -> u64 {
        self.hosts.get(to.host as usize).map_or(0, |h| {
            (h.incarnation << 32) | u64::from(h.process_generation[to.port as usize])
        })
    }

    /// Whether a message or timer addressed to `generation` still finds its process.
    fn alive(&self, to: Addr, generation: u64) -> bool {
        to.host == self.probe_host
            || (self.hosts.get(to.host as usize).is_some_and(|rt| rt.up)
                && self.generation(to) == generation)
    }

    fn incarnation(&self, h: HostId) -> u64 {
        self.hosts.get(h as usize).map_or(0, |h| h.incarnation)
    }

    fn start_etcd_ticks(&mut self, h: HostId) {
        // Members start their tick loops at slightly different instants, as real processes do.
        let offset = Duration(
            self.rng
                .fork(&format!("tick/{h}/{}", self.incarnation(h)))
                .below(self.etcd_cfg.heartbeat_interval.as_micros()),
        );
        let to = Addr {
            host: h,
            port: Port::Etcd,
        };
        self.set_timer(self.now + offset, to, Timer::RaftTick);
    }

    /// What the operator applies before t = 0: every workload of the scenario, and CoreDNS.
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
        };
        self.scenario
            .workloads
            .iter()
            .map(|w| Workload {
                kind: kind(w.kind),
                name: w.name.clone(),
                replicas: w.replicas.unwrap_or(0),
                service: w.service,
            })
            .chain([coredns])
            .map(|w| {
                (
                    workload_key(&w.name),
                    std::sync::Arc::new(Object::Workload(w)),
                )
            })
            .collect()
    }

    /// The containers' version of the host if `to` is its kubelet, the only process that
    /// changes them (compared before and after an input, to keep the DNS servers in step).
    fn containers_touched_by(&self, to: Addr) -> Option<(u64, u64)> {
        (to.port == Port::Kubelet)
            .then(|| self.containers_version(to.host))
            .flatten()
    }

    /// Which state of its containers the host's kubelet is in (None without a kubelet).
    fn containers_version(&self, h: HostId) -> Option<(u64, u64)> {
        let k = self.procs.get(h as usize)?.kubelet.as_ref()?;
        let to = Addr {
            host: h,
            port: Port::Kubelet,
        };
        Some((self.generation(to), k.containers_version))
    }

    /// Keeps one DNS server per CoreDNS container the host's kubelet runs.
    fn sync_dns_servers(&mut self, h: HostId) {
        let procs = &mut self.procs[h as usize];
        let running: Vec<String> = procs
            .kubelet
            .as_ref()
            .map(|k| {
                k.containers
                    .iter()
                    .filter(|(_, c)| c.workload == COREDNS)
                    .map(|(p, _)| p.clone())
                    .collect()
            })
            .unwrap_or_default();
        let before = procs.dns.len();
        procs.dns.retain(|p, _| running.contains(p));
        let new: Vec<String> = running
            .into_iter()
            .filter(|p| !procs.dns.contains_key(p))
            .collect();
        if new.is_empty() {
            return;
        }
        let Some(api) = self.api_endpoint() else {
            return;
        };
        let me = Addr {
            host: h,
            port: Port::CoreDns,
        };
        for pod in new {
            self.dns_counter += 1;
            let server = DnsServer::new(
                me,
                api,
                self.dns_counter * crate::k8s::client::ID_SPACE,
                self.now,
            );
            self.procs[h as usize].dns.insert(pod, server);
        }
        if before == 0 {
            let to = Addr {
                host: h,
                port: Port::CoreDns,
            };
            self.set_timer(self.now, to, Timer::Housekeeping);
        }
    }

    /// One round of a client's requests: one per Service.
    fn client_tick(&mut self, h: HostId) {
        let second = self.obs.secs(self.now).floor();
        if second >= 0.0 && self.now <= self.end {
            // The names are lent out of `traffic` for the round, which `request` does not touch.
            let services = std::mem::take(&mut self.traffic.services);
            for (i, service) in services.iter().enumerate() {
                let ok = self.request(h, service);
                self.traffic.record(i, second as usize, ok);
            }
            self.traffic.services = services;
        }
        let to = Addr {
            host: h,
            port: Port::Client,
        };
        self.set_timer(
            self.now + crate::k8s::traffic::REQUEST_PERIOD,
            to,
            Timer::ClientTick,
        );
    }

    /// A worker the client can reach whose kube-proxy runs, chosen uniformly (by rejection:
    /// draws among all workers until one is reachable, then a full scan if none was found).
    fn pick_worker(&mut self, client: HostId) -> Option<HostId> {
        let usable = |w: &World, h: HostId| {
            w.procs[h as usize].proxy.is_some() && w.net.connected(client, h)
        };
        if !self.clients.contains_key(&client) {
            let rng = self.rng.fork(&format!("client/{client}"));
            self.clients.insert(
                client,
                Client {
                    rng,
                    dns_cache: BTreeMap::new(),
                },
            );
        }
        let n = self.worker_ids.len() as u64;
        for _ in 0..16.min(n) {
            let i = self.clients.get_mut(&client)?.rng.below(n) as usize;
            let h = self.worker_ids[i];
            if usable(self, h) {
                return Some(h);
            }
        }
        let reachable: Vec<HostId> = self
            .scenario
            .hosts
            .iter()
            .enumerate()
            .filter(|(i, h)| {
                h.is_worker()
                    && self.procs[*i].proxy.is_some()
                    && self.net.connected(client, *i as HostId)
            })
            .map(|(i, _)| i as HostId)
            .collect();
        if reachable.is_empty() {
            return None;
        }
        let c = self.clients.entry(client).or_insert_with(|| Client {
            rng: self.rng.fork(&format!("client/{client}")),
            dns_cache: BTreeMap::new(),
        });
        Some(reachable[c.rng.below(reachable.len() as u64) as usize])
    }

    fn request(&mut self, client: HostId, service: &str) -> bool {
        let now = self.now;
        let cached = self
            .clients
            .get(&client)
            .and_then(|c| c.dns_cache.get(service))
            .is_some_and(|&t| t > now);
        if !cached {
            let answered = (|| {
                let worker = self.pick_worker(client)?;
                let rng = &mut self.clients.get_mut(&client)?.rng;
                let (pod, host) =
                    pick_endpoint(&self.procs, &self.host_index, rng, worker, COREDNS)?;
                if !self.net.connected(worker, host) {
                    return None;
                }
                let server = self.procs[host as usize].dns.get(pod)?;
                (server.resolve(service, now) == crate::k8s::proxy::DnsAnswer::Answer).then_some(())
            })();
            if answered.is_none() {
                return false;
            }
            let ttl = self.scenario.settings.dns_cache_ttl;
            if let Some(c) = self.clients.get_mut(&client) {
                c.dns_cache.insert(service.to_string(), now + ttl);
            }
        }
        let Some(worker) = self.pick_worker(client) else {
            return false;
        };
        let Some(rng) = self.clients.get_mut(&client).map(|c| &mut c.rng) else {
            return false;
        };
        let Some((pod, host)) = pick_endpoint(&self.procs, &self.host_index, rng, worker, service)
        else {
            return false;
        };
        self.net.connected(worker, host)
            && self.procs[host as usize]
                .kubelet
                .as_ref()
                .is_some_and(|k| k.containers.contains_key(pod))
    }

    /// What each host's containers add up to, recomputed only for the hosts marked for a
    /// recount whose containers did change (this is sampled every second, and looking at every
    /// host each time is a hot spot at a thousand nodes); `running_now` follows the changes.
    /// Returns whether any host's containers changed.
    fn refresh_host_pods(&mut self) -> bool {
        let mut changed = false;
        for h in std::mem::take(&mut self.recount) {
            let h = h as usize;
            if self.host_pods[h].version == self.containers_version(h as HostId) {
                continue;
            }
            let fresh = self.count_host_pods(h as HostId);
            let old = std::mem::replace(&mut self.host_pods[h], fresh);
            for (i, total) in self.running_now.iter_mut().enumerate() {
                *total = *total + self.host_pods[h].running[i]
                    - old.running.get(i).copied().unwrap_or(0);
            }
            changed = true;
        }
        debug_assert_eq!(self.running_now, self.running_per_workload());
        changed
    }

    fn count_host_pods(&self, h: HostId) -> HostPods {
        let mut running = vec![0u32; self.workload_names.len()];
        let mut stateful = Vec::new();
        if let Some(k) = &self.procs[h as usize].kubelet {
            for (pod, c) in &k.containers {
                if let Some(&i) = self.workload_index.get(&c.workload) {
                    running[i] += 1;
                }
                if c.kind == Kind::StatefulSet {
                    stateful.push(pod.clone());
                }
            }
        }
        HostPods {
            version: self.containers_version(h),
            running,
            stateful,
        }
    }

    /// At most one pod per StatefulSet ordinal may run: two containers of one pod name on two
    /// nodes (a force-delete while the old node was only cut off) is a violation.
    fn check_statefulset_ordinals(&mut self) {
        let mut seen: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (i, p) in self.host_pods.iter().enumerate() {
            for pod in &p.stateful {
                seen.entry(pod.as_str())
                    .or_default()
                    .push(self.hosts[i].name.as_str());
            }
        }
        let doubles: Vec<(String, String)> = seen
            .into_iter()
            .filter(|(_, hosts)| hosts.len() > 1)
            .map(|(pod, hosts)| (pod.to_string(), hosts.join(" and ")))
            .collect();
        for (pod, hosts) in doubles {
            if self.reported_doubles.insert(pod.clone()) {
                let text = format!(
                    "{pod} runs twice, on {hosts}: a StatefulSet ordinal must run at most once"
                );
                self.obs.violation(self.now, "statefulset.two_pods", text);
            }
        }
    }

    /// Containers running per workload right now, anywhere (isolated nodes included).
    fn running_per_workload(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.workload_names.len()];
        for (h, cached) in self.host_pods.iter().enumerate() {
            let fresh;
            let p = if cached.version == self.containers_version(h as HostId) {
                cached
            } else {
                fresh = self.count_host_pods(h as HostId);
                &fresh
            };
            for (c, r) in counts.iter_mut().zip(&p.running) {
                *c += r;
            }
        }
        counts
    }

    /// The endpoint kubelets and the API probe use: the load balancer, else the first apiserver.
    fn api_endpoint(&self) -> Option<Addr> {
        let hosts = &self.scenario.hosts;
        if let Some(lb) = hosts.iter().position(|h| h.has_role(Role::LoadBalancer)) {
            return Some(Addr {
                host: lb as HostId,
                port: Port::Lb,
            });
        }
        hosts.iter().position(|h| h.runs_apiserver()).map(|h| Addr {
            host: h as HostId,
            port: Port::Apiserver,
        })
    }

    /// The apiserver a control-plane component talks to: the one on its own host (kubeadm),
    /// else the API endpoint.
    fn local_apiserver(&self, h: HostId) -> Option<Addr> {
        if self.scenario.hosts[h as usize].runs_apiserver() {
            Some(Addr {
                host: h,
                port: Port::Apiserver,
            })
        } else {
            self.api_endpoint()
        }
    }

    /// Starts every Kubernetes process the host's roles call for (at boot and when it joins).
    fn start_k8s_processes(&mut self, h: HostId) {
        let host = &self.scenario.hosts[h as usize];
        let ports: Vec<Port> = [
            (host.runs_apiserver(), Port::Apiserver),
            (host.has_role(Role::LoadBalancer), Port::Lb),
            (host.runs_controller_manager(), Port::ControllerManager),
            (host.runs_scheduler(), Port::Scheduler),
            (host.is_node(), Port::Kubelet),
            (host.is_worker(), Port::KubeProxy),
            (host.has_role(Role::Client), Port::Client),
        ]
        .into_iter()
        .filter(|(runs, _)| *runs)
        .map(|(_, p)| p)
        .collect();
        for port in ports {
            self.start_process(h, port);
        }
    }

    /// A fresh copy of one process starts on a host that is up.
    fn start_process(&mut self, h: HostId, port: Port) {
        if !self.hosts[h as usize].up {
            return;
        }
        self.recount.insert(h);
        let s = &self.scenario.settings;
        let timings = LeaseTimings {
            lease_duration: s.lease_duration,
            renew_deadline: s.renew_deadline,
            retry_period: s.retry_period,
        };
        let name = self.hosts[h as usize].name.clone();
        let life = self.generation(Addr { host: h, port });
        let me = Addr { host: h, port };
        let api = self.local_apiserver(h);
        let api_for_nodes = self.api_endpoint();
        let mut ctx: K8sCtx = ctx!(self, h);
        let procs = &mut self.procs[h as usize];
        match port {
            Port::Apiserver => {
                let endpoints = if self.scenario.hosts[h as usize].has_role(Role::Etcd) {
                    vec![h]
                } else {
                    self.scenario
                        .hosts
                        .iter()
                        .enumerate()
                        .filter(|(_, x)| x.has_role(Role::Etcd))
                        .map(|(i, _)| i as HostId)
                        .collect()
                };
                let mut a = Apiserver::new(h, endpoints);
                a.start(&mut ctx);
                procs.apiserver = Some(a);
            }
            Port::Lb => {
                let backends = self
                    .scenario
                    .hosts
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| x.runs_apiserver())
                    .map(|(i, _)| i as HostId)
                    .collect();
                let check = match s.lb_health_check {
                    LbHealthCheck::Readyz => HealthCheck::Readyz,
                    LbHealthCheck::Tcp => HealthCheck::Tcp,
                };
                let mut lb = LoadBalancer::new(h, backends, check);
                lb.start(&mut ctx);
                procs.lb = Some(lb);
            }
            Port::ControllerManager | Port::Scheduler => {
                let Some(api) = api else { return };
                let lease = if port == Port::ControllerManager {
                    KCM_LEASE
                } else {
                    SCHEDULER_LEASE
                };
                let rng = self.rng.fork(&format!("{lease}/{name}/{life}"));
                let elector =
                    LeaderElector::new(lease, h, name.clone(), me, api, timings, rng.clone());
                if port == Port::ControllerManager {
                    let nt = NodeTimings {
                        node_monitor_period: s.node_monitor_period,
                        node_monitor_grace_period: s.node_monitor_grace_period,
                        toleration_seconds: s.toleration_seconds,
                    };
                    let spec = ControllersSpec {
                        me,
                        api,
                        timings: nt,
                        rng,
                    };
                    let mut p = Leading::new(elector, port, spec);
                    p.start(&mut ctx);
                    procs.kcm = Some(p);
                } else {
                    let order = self.worker_order.clone();
                    let spec = SchedulerSpec { me, api, order };
                    let mut p = Leading::new(elector, port, spec);
                    p.start(&mut ctx);
                    procs.scheduler = Some(p);
                }
            }
            Port::Kubelet => {
                let Some(api) = api_for_nodes else { return };
                let host = &self.scenario.hosts[h as usize];
                let mut k = Kubelet::new(
                    h,
                    name,
                    host.zone.clone(),
                    host.is_control_plane(),
                    api,
                    s.node_lease_renew_interval,
                );
                k.start(&mut ctx);
                procs.kubelet = Some(k);
            }
            Port::KubeProxy => {
                let Some(api) = api_for_nodes else { return };
                let mut p = KubeProxy::new(me, api);
                p.start(&mut ctx);
                procs.proxy = Some(p);
            }
            Port::Client => {
                ctx.set_timer(Port::Client, Duration::ZERO, Timer::ClientTick);
            }
            _ => {}
        }
        self.apply_effects(h);
    }

    /// A process exited (lost its lease) or was killed (liveness): the kubelet restarts it
    /// after its back-off.
    fn process_exited(&mut self, h: HostId, port: Port) {
        self.recount.insert(h);
        let procs = &mut self.procs[h as usize];
        match port {
            Port::Apiserver => procs.apiserver = None,
            Port::ControllerManager => procs.kcm = None,
            Port::KubeProxy => procs.proxy = None,
            Port::Kubelet => procs.kubelet = None,
            Port::Scheduler => procs.scheduler = None,
            _ => return,
        }
        self.hosts[h as usize].process_generation[port as usize] += 1;
        let n = self.restarts.entry((h, port)).or_default();
        *n += 1;
        let backoff = Duration(
            (RESTART_BACKOFF.as_micros() << (*n - 1).min(16)).min(RESTART_BACKOFF_MAX.as_micros()),
        );
        let to = Addr { host: h, port };
        self.set_timer(self.now + backoff, to, Timer::Start);
    }

    // ---- scenario events -------------------------------------------------------------

    fn host_id(&self, name: &str) -> Option<HostId> {
        self.host_index.get(name).copied()
    }

    /// Hosts named directly, or all hosts of a named zone.
    fn resolve(&self, names: &[String]) -> Vec<HostId> {
        let mut out = Vec::new();
        for name in names {
            if let Some(h) = self.host_id(name) {
                out.push(h);
            } else {
                out.extend(
                    self.scenario
                        .hosts
                        .iter()
                        .enumerate()
                        .filter(|(_, h)| &h.zone == name)
                        .map(|(i, _)| i as HostId),
                );
            }
        }
        out
    }

    fn apply_scenario_event(&mut self, i: usize) {
        let action = self.scenario.events[i].action.clone();
        match action {
            Action::Crash { host } => {
                if let Some(h) = self.host_id(&host) {
                    self.crash_host(h, "the scenario crashed it");
                }
            }
            Action::Restart { host } => {
                if let Some(h) = self.host_id(&host) {
                    self.boot_host(h);
                }
            }
            Action::Reboot { host, downtime } => {
                if let Some(h) = self.host_id(&host) {
                    self.crash_host(h, "it is rebooting");
                    self.queue.push(self.now + downtime, Ev::Boot(h));
                }
            }
            Action::Partition { groups } => {
                let ids: Vec<Vec<HostId>> = groups.iter().map(|g| self.resolve(g)).collect();
                let mut ids = ids;
                // The hidden probe host sees everybody.
                ids.iter_mut()
                    .for_each(|g| g.retain(|&h| h != self.probe_host));
                self.net.partition(&ids);
                let desc: Vec<String> = groups
                    .iter()
                    .map(|g| format!("[{}]", g.join(", ")))
                    .collect();
                self.push_event(
                    "net.partition",
                    None,
                    format!("the network splits into {}", desc.join(" | ")),
                );
            }
            Action::Isolate { host } => {
                if let Some(h) = self.host_id(&host) {
                    self.net.isolate(h);
                    self.push_event(
                        "net.isolate",
                        Some(h),
                        format!("{host} is cut off from every other host"),
                    );
                }
            }
            Action::PartitionOneway { from, to } => {
                let f = self.resolve(&from);
                let d = self.resolve(&to);
                self.net.partition_oneway(&f, &d);
                let (from, to) = (from.join(", "), to.join(", "));
                self.push_event(
                    "net.partition_oneway",
                    None,
                    format!("messages from {from} to {to} are dropped; the other direction works"),
                );
            }
            Action::Heal => {
                self.net.heal();
                self.push_event(
                    "net.heal",
                    None,
                    "every partition and isolation ends".to_string(),
                );
            }
            Action::SpotInterrupt { host } => {
                if let Some(h) = self.host_id(&host) {
                    self.push_event(
                        "host.spot_notice",
                        Some(h),
                        format!("{host} got a spot interruption notice: it is cordoned and drained, and will be terminated in 2 minutes"),
                    );
                    self.queue.push(self.now + SPOT_NOTICE, Ev::Terminate(h));
                    if self.scenario.hosts[h as usize].is_node() {
                        self.with_operator(|o, ctx| o.drain(ctx, &host));
                    }
                }
            }
            Action::Join { host } => {
                if let Some(h) = self.host_id(&host) {
                    if self.scenario.hosts[h as usize].has_role(Role::Etcd) {
                        self.start_member_change("join", h, ConfChange::AddVoter(h as MemberId));
                    } else {
                        self.hosts[h as usize].joined = true;
                        self.obs.operation(self.now, "join", Some(h), Ok(()));
                        self.start_k8s_processes(h);
                    }
                }
            }
            Action::EtcdMemberAdd { host } => {
                if let Some(h) = self.host_id(&host) {
                    self.start_member_change(
                        "etcd_member_add",
                        h,
                        ConfChange::AddVoter(h as MemberId),
                    );
                }
            }
            Action::EtcdMemberRemove { host } => {
                if let Some(h) = self.host_id(&host) {
                    self.start_member_change(
                        "etcd_member_remove",
                        h,
                        ConfChange::Remove(h as MemberId),
                    );
                }
            }
            Action::EtcdForceNewCluster { host } => {
                if let Some(h) = self.host_id(&host) {
                    self.force_new_cluster(h);
                }
            }
            Action::DeletePod { pod, force } => {
                self.with_operator(|o, ctx| o.delete_pod(ctx, &pod, force))
            }
            Action::Scale { workload, replicas } => {
                self.with_operator(|o, ctx| o.scale(ctx, &workload, replicas))
            }
            Action::RestartComponent { host, component } => {
                if let Some(h) = self.host_id(&host) {
                    self.restart_component(h, component);
                }
            }
        }
        self.update_quorum();
    }

    /// Runs an operator action through the API (the operator exists when an apiserver does).
    fn with_operator(&mut self, f: impl FnOnce(&mut Operator, &mut K8sCtx)) {
        let Some(o) = self.operator.as_mut() else {
            return;
        };
        let mut ctx: K8sCtx = ctx!(self, self.probe_host);
        f(o, &mut ctx);
        self.apply_effects(self.probe_host);
    }

    /// `restart_component`: one process restarts at once, with what that process keeps:
    /// a restarted kubelet adopts the running containers; kube-proxy and CoreDNS start with
    /// empty caches until they can list from the API; etcd keeps its disk.
    fn restart_component(&mut self, h: HostId, component: Component) {
        let name = self.hosts[h as usize].name.clone();
        let (port, what) = match component {
            Component::Etcd => {
                if let Some(m) = self.etcd[h as usize].as_mut() {
                    m.restart();
                    self.hosts[h as usize].process_generation[Port::Etcd as usize] += 1;
                    self.start_etcd_ticks(h);
                }
                self.push_event(
                    "component.restarted",
                    Some(h),
                    format!("etcd on {name} restarted: it keeps its data and rejoins"),
                );
                return;
            }
            Component::Coredns => {
                let pods: Vec<String> = self.procs[h as usize].dns.keys().cloned().collect();
                self.procs[h as usize].dns.clear();
                self.hosts[h as usize].process_generation[Port::CoreDns as usize] += 1;
                self.sync_dns_servers(h);
                let text = format!("CoreDNS on {name} ({}) restarted: it must list Services from the API before it can answer", pods.join(", "));
                self.push_event("component.restarted", Some(h), text);
                return;
            }
            Component::KubeProxy => (
                Port::KubeProxy,
                "kube-proxy restarted: it has no rules until it lists EndpointSlices from the API",
            ),
            Component::Kubelet => (
                Port::Kubelet,
                "the kubelet restarted: its containers keep running",
            ),
            Component::Apiserver => (Port::Apiserver, "the apiserver restarted"),
            Component::KubeControllerManager => {
                (Port::ControllerManager, "kube-controller-manager restarted")
            }
            Component::KubeScheduler => (Port::Scheduler, "kube-scheduler restarted"),
        };
        let containers = self.procs[h as usize]
            .kubelet
            .as_ref()
            .map(|k| k.containers.clone());
        let lease = match port {
            Port::ControllerManager => Some(KCM_LEASE),
            Port::Scheduler => Some(SCHEDULER_LEASE),
            _ => None,
        };
        if let Some(lease) = lease {
            self.obs
                .lease_lost(self.now, lease, h, "its process restarted");
        }
        match port {
            Port::KubeProxy => self.procs[h as usize].proxy = None,
            Port::Kubelet => self.procs[h as usize].kubelet = None,
            Port::Apiserver => self.procs[h as usize].apiserver = None,
            Port::ControllerManager => self.procs[h as usize].kcm = None,
            Port::Scheduler => self.procs[h as usize].scheduler = None,
            _ => {}
        }
        self.hosts[h as usize].process_generation[port as usize] += 1;
        self.start_process(h, port);
        if let (Some(containers), Some(k)) = (containers, self.procs[h as usize].kubelet.as_mut()) {
            k.containers = containers;
        }
        self.push_event("component.restarted", Some(h), format!("on {name}, {what}"));
    }

    fn push_event(&mut self, kind: &'static str, host: Option<HostId>, text: String) {
        let mut e = Event::new(self.obs.secs(self.now), kind, text);
        e.host = host.map(|h| self.obs.name(h).to_string());
        self.obs.push(self.now, e);
    }

    fn crash_host(&mut self, h: HostId, why: &str) {
        let rt = &mut self.hosts[h as usize];
        if !rt.up {
            return;
        }
        rt.up = false;
        rt.incarnation += 1;
        self.net.set_up(h, false);
        self.recount.insert(h);
        let name = rt.name.clone();
        self.push_event("host.crashed", Some(h), format!("{name} went down: {why}"));
        self.procs[h as usize] = Procs::default();
        for lease in [KCM_LEASE, SCHEDULER_LEASE] {
            self.obs.lease_lost(self.now, lease, h, "");
        }
        self.update_quorum();
    }

    fn boot_host(&mut self, h: HostId) {
        let rt = &mut self.hosts[h as usize];
        if rt.up || rt.terminated {
            return;
        }
        rt.up = true;
        rt.incarnation += 1;
        self.net.set_up(h, true);
        let name = rt.name.clone();
        self.push_event(
            "host.started",
            Some(h),
            format!("{name} is up again; its processes start fresh"),
        );
        if let Some(m) = self.etcd[h as usize].as_mut() {
            m.restart();
            self.start_etcd_ticks(h);
        }
        self.restarts.retain(|(host, _), _| *host != h);
        if self.hosts[h as usize].joined {
            self.start_k8s_processes(h);
        }
        self.update_quorum();
    }

    /// The up leader of the current cluster with the highest term (a stale leader in a
    /// minority may still believe it leads until CheckQuorum demotes it).
    fn etcd_leader(&self) -> Option<HostId> {
        self.members()
            .filter(|(h, m)| {
                self.hosts[*h as usize].up && m.cluster == self.current_cluster && !m.removed
            })
            .filter(|(_, m)| m.raft.role() == RaftRole::Leader)
            .max_by_key(|(h, m)| (m.raft.term(), std::cmp::Reverse(*h)))
            .map(|(h, _)| h)
    }

    fn start_member_change(&mut self, action: &'static str, host: HostId, change: ConfChange) {
        let Some(leader) = self.etcd_leader() else {
            self.obs.operation(
                self.now,
                action,
                Some(host),
                Err("no etcd leader: no quorum".into()),
            );
            return;
        };
        // Raft sends the proposal's messages from its outbox on the member's next tick.
        let proposed = self.etcd[leader as usize]
            .as_mut()
            .expect("leader exists")
            .propose_member_change(change);
        match proposed {
            Err(reason) => self
                .obs
                .operation(self.now, action, Some(host), Err(reason.into())),
            Ok(()) => {
                let op = self.member_changes.len();
                self.member_changes.push(MemberChange {
                    action,
                    host,
                    leader,
                    change,
                    deadline: self.now + MEMBER_CHANGE_TIMEOUT,
                });
                self.queue.push(
                    self.now + Duration::from_millis(100),
                    Ev::MemberChangeCheck { op },
                );
            }
        }
    }

    fn check_member_change(&mut self, op: usize) {
        let c = &self.member_changes[op];
        let (host, leader, change, deadline, action) =
            (c.host, c.leader, c.change, c.deadline, c.action);
        let applied = self.etcd[leader as usize].as_ref().is_some_and(|m| {
            self.hosts[leader as usize].up
                && match change {
                    ConfChange::AddVoter(id) | ConfChange::PromoteLearner(id) => {
                        m.raft.voters().contains(&id)
                    }
                    ConfChange::AddLearner(id) => m.raft.learners().contains(&id),
                    ConfChange::Remove(id) => {
                        !m.raft.voters().contains(&id) && !m.raft.learners().contains(&id)
                    }
                }
        });
        if applied {
            self.obs.operation(self.now, action, Some(host), Ok(()));
            if let ConfChange::AddVoter(_) | ConfChange::AddLearner(_) = change {
                // The operator starts etcd on the new host with an empty data dir (`--initial-cluster-state=existing`).
                let rng = self.rng.fork(&format!(
                    "etcd/{}/join/{}",
                    self.hosts[host as usize].name, op
                ));
                self.etcd[host as usize] = Some(EtcdMember::joining(
                    host,
                    self.current_cluster,
                    self.etcd_cfg,
                    rng,
                ));
                if let Err(i) = self.etcd_hosts.binary_search(&host) {
                    self.etcd_hosts.insert(i, host);
                }
                let newly_joined = !self.hosts[host as usize].joined;
                self.hosts[host as usize].joined = true;
                if self.hosts[host as usize].up {
                    self.start_etcd_ticks(host);
                    if newly_joined && action == "join" {
                        self.start_k8s_processes(host);
                    }
                }
            }
            self.update_quorum();
        } else if self.now >= deadline {
            self.obs.operation(
                self.now,
                action,
                Some(host),
                Err("timed out: the change did not commit (no quorum)".into()),
            );
        } else {
            self.queue.push(
                self.now + Duration::from_millis(100),
                Ev::MemberChangeCheck { op },
            );
        }
    }

    fn force_new_cluster(&mut self, h: HostId) {
        let action = "etcd_force_new_cluster";
        if !self.hosts[h as usize].up {
            self.obs
                .operation(self.now, action, Some(h), Err("the host is down".into()));
            return;
        }
        let Some(m) = self.etcd[h as usize].as_mut() else {
            self.obs.operation(
                self.now,
                action,
                Some(h),
                Err("no etcd member on this host".into()),
            );
            return;
        };
        self.cluster_counter += 1;
        let new_cluster = self.cluster_counter;
        let old_cluster = m.cluster;
        let keep = m.raft.commit_index();
        let discarded = m.force_new_cluster(new_cluster);
        self.current_cluster = new_cluster;
        self.obs.etcd_forked(old_cluster, new_cluster, keep);
        self.obs.operation(self.now, action, Some(h), Ok(()));
        if discarded > 0 {
            let mut e = Event::new(
                self.obs.secs(self.now),
                "etcd.entries_discarded",
                format!(
                    "{} discarded {discarded} log entries it had not seen committed: --force-new-cluster keeps only its committed data",
                    self.hosts[h as usize].name
                ),
            );
            e.host = Some(self.hosts[h as usize].name.clone());
            e.count = Some(discarded);
            self.obs.push(self.now, e);
        }
        self.update_quorum();
    }

    // ---- observation -----------------------------------------------------------------

    /// The hosts with an etcd member, and their members, in host order.
    fn members(&self) -> impl Iterator<Item = (HostId, &EtcdMember)> {
        self.etcd_hosts
            .iter()
            .filter_map(|&h| self.etcd[h as usize].as_ref().map(|m| (h, m)))
    }

    /// Voting members of the current cluster, from the member that has applied the most.
    fn voters(&self) -> Vec<HostId> {
        self.members()
            .map(|(_, m)| m)
            .filter(|m| m.cluster == self.current_cluster)
            .max_by_key(|m| (m.raft.applied_index(), std::cmp::Reverse(m.host)))
            .map(|m| m.raft.voters().iter().map(|&id| id as HostId).collect())
            .unwrap_or_default()
    }

    /// Whether a majority of the voting members is up and mutually reachable.
    fn has_quorum_now(&self) -> bool {
        let (connected, voters) = self.connected_voters();
        quorum::has_quorum(connected, voters)
    }

    /// (voters up and mutually reachable in the largest group, all voters).
    fn connected_voters(&self) -> (usize, usize) {
        let voters = self.voters();
        let reachable: Vec<HostId> = voters
            .iter()
            .copied()
            .filter(|&h| {
                self.net.island_of(h).is_some()
                    && self.etcd[h as usize]
                        .as_ref()
                        .is_some_and(|m| !m.removed && m.cluster == self.current_cluster)
            })
            .collect();
        (
            largest_clique(&reachable, |a, b| self.net.connected(a, b)),
            voters.len(),
        )
    }

    fn update_quorum(&mut self) {
        let now_ok = self.has_quorum_now();
        let origin = self.obs.origin;
        let at = self.now.max(origin);
        if self.quorum == Some(false) && self.now >= origin {
            self.quorum_lost_us += (at - self.quorum_since.max(origin)).as_micros();
        }
        if self.quorum != Some(now_ok) {
            if self.quorum.is_some() {
                let (kind, text) = if now_ok {
                    (
                        "etcd.quorum_regained",
                        "a majority of etcd members can reach each other again".to_string(),
                    )
                } else {
                    let (connected, n) = self.connected_voters();
                    (
                        "etcd.quorum_lost",
                        format!(
                            "only {connected} of the {n} etcd members are up and connected, and a quorum needs {}: etcd cannot commit writes",
                            quorum::quorum(n)
                        ),
                    )
                };
                let e = Event::new(self.obs.secs(self.now), kind, text);
                self.obs.push(self.now, e);
            }
            self.quorum = Some(now_ok);
        }
        self.quorum_since = at;
    }

    fn sample(&mut self) {
        self.update_quorum();
        let t = self.obs.secs(self.now);
        let leader = self.etcd_leader();
        if self.series.t.is_empty() {
            // t = 0: what the boot established appears as events at t = 0.
            if let Some(h) = leader {
                let term = self.etcd[h as usize].as_ref().map_or(0, |m| m.raft.term());
                self.obs.etcd_leader_at_start(self.now, h, term);
            }
            self.obs.leases_at_start(self.now);
        }
        let lease_leader = |lease| {
            self.obs
                .lease_leader(lease)
                .map(|h| self.hosts[h as usize].name.clone())
        };
        let (kcm, sched) = (lease_leader(KCM_LEASE), lease_leader(SCHEDULER_LEASE));
        self.series.controller_manager_leader.push(kcm);
        self.series.scheduler_leader.push(sched);
        if self.api_probe.is_some() {
            // Recounted only when some host's containers changed (a scan of every host
            // each second is a hot spot at a thousand nodes).
            if self.refresh_host_pods() {
                self.check_statefulset_ordinals();
            }
            for (i, &r) in self.running_now.iter().enumerate() {
                self.max_running[i] = self.max_running[i].max(r);
                let name = &self.workload_names[i];
                match self.series.running_pods.get_mut(name) {
                    Some(series) => series.push(r),
                    None => {
                        self.series.running_pods.insert(name.clone(), vec![r]);
                    }
                }
            }
        }
        self.series.t.push(t.round());
        self.series.etcd_quorum.push(self.quorum == Some(true));
        self.series
            .etcd_leader
            .push(leader.map(|h| self.hosts[h as usize].name.clone()));
        self.series.etcd_term.push(
            leader
                .and_then(|h| self.etcd[h as usize].as_ref())
                .map_or(0, |m| m.raft.term()),
        );
        // The probe writes once per second, right after the sample.
        let probe = Addr {
            host: self.probe_host,
            port: Port::EtcdProbe,
        };
        self.set_timer(self.now, probe, Timer::ProbeWrite);
        if self.now + Duration::from_secs(1) <= self.end {
            self.queue
                .push(self.now + Duration::from_secs(1), Ev::Sample);
        }
    }

    /// What the run observed up to now, for the report.
    pub fn record(&self) -> RunRecord<'_> {
        RunRecord {
            recorder: &self.obs,
            series: &self.series,
            traffic: &self.traffic,
            etcd_writes: &self.probe.outcomes,
            api_writes: self.api_probe.as_ref().map(|p| p.outcomes.as_slice()),
            workloads: self.workload_counts(),
            quorum_lost_s: self.quorum_lost_s(),
        }
    }

    // Accessors for the UI.
    pub fn series(&self) -> &Series {
        &self.series
    }
    pub fn quorum_lost_s(&self) -> f64 {
        let mut us = self.quorum_lost_us;
        if self.quorum == Some(false) {
            let until = self.now.min(self.end);
            us += until
                .saturating_sub(self.quorum_since.max(self.obs.origin))
                .as_micros();
        }
        us as f64 / 1e6
    }
    /// Per workload (scenario order, CoreDNS last): name, most running at once, running now.
    pub fn workload_counts(&self) -> Vec<(String, u32, u32)> {
        let now = self.running_per_workload();
        self.workload_names
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), self.max_running[i].max(now[i]), now[i]))
            .collect()
    }
    /// Every CoreDNS pod's server: (host, pod, whether it has synced with the API since it started).
    pub fn coredns_servers(&self) -> Vec<(String, String, bool)> {
        let mut out = Vec::new();
        for (i, p) in self.procs.iter().enumerate() {
            for (pod, d) in &p.dns {
                out.push((self.hosts[i].name.clone(), pod.clone(), d.synced()));
            }
        }
        out
    }
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// The absolute simulated time of report second `t` (clamped to the run).
    pub fn at_report_secs(&self, t: f64) -> SimTime {
        let us = (t.max(0.0) * 1e6).round() as u64;
        (self.obs.origin + Duration(us)).min(self.end)
    }

    /// What the UI draws at the current instant.
    pub fn snapshot(&self) -> crate::view::Snapshot {
        use crate::view::{ApiserverView, EtcdView, HostView, MemberView, PodView, Snapshot};
        let voters = self.voters();
        let hosts = self
            .scenario
            .hosts
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let rt = &self.hosts[i];
                let id = i as HostId;
                let state = if rt.terminated {
                    "terminated"
                } else if !rt.joined {
                    "standby"
                } else if rt.up {
                    "up"
                } else {
                    "down"
                };
                let etcd = self.etcd[i].as_ref().map(|m| MemberView {
                    role: if !rt.up {
                        "stopped"
                    } else if m.removed {
                        "removed"
                    } else {
                        match m.raft.role() {
                            RaftRole::Leader => "leader",
                            RaftRole::Follower => "follower",
                            RaftRole::Candidate => "candidate",
                            RaftRole::PreCandidate => "pre-candidate",
                        }
                    },
                    term: m.raft.term(),
                    commit: m.raft.commit_index(),
                    applied: m.raft.applied_index(),
                    voter: m.cluster == self.current_cluster && voters.contains(&id),
                });
                let procs = &self.procs[i];
                let up = rt.up && rt.joined;
                let leading = |lease: &str, runs: bool, running: bool| {
                    runs.then(
                        || match (up && running, self.obs.lease_leader(lease) == Some(id)) {
                            (true, true) => "leader",
                            (true, false) => "standby",
                            _ => "restarting",
                        },
                    )
                };
                HostView {
                    name: h.name.clone(),
                    zone: h.zone.clone(),
                    roles: h.roles.iter().map(|r| r.name()).collect(),
                    state,
                    island: self.net.island(id),
                    isolated: self.net.is_isolated(id),
                    spot: h.spot,
                    etcd,
                    apiserver: h.runs_apiserver().then(|| ApiserverView {
                        running: up && procs.apiserver.is_some(),
                        ready: up && procs.apiserver.as_ref().is_some_and(|a| a.cache_synced()),
                    }),
                    controller_manager: leading(
                        KCM_LEASE,
                        h.runs_controller_manager(),
                        procs.kcm.is_some(),
                    ),
                    scheduler: leading(
                        SCHEDULER_LEASE,
                        h.runs_scheduler(),
                        procs.scheduler.is_some(),
                    ),
                    node: h.is_node().then(|| self.node_view(&h.name)).flatten(),
                    pods: procs
                        .kubelet
                        .as_ref()
                        .map(|k| {
                            k.containers
                                .iter()
                                .map(|(p, c)| PodView {
                                    name: p.clone(),
                                    workload: c.workload.clone(),
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    lb_backends: procs
                        .lb
                        .as_ref()
                        .map(|lb| {
                            lb.backends()
                                .into_iter()
                                .map(|(b, up)| (self.hosts[b as usize].name.clone(), up))
                                .collect()
                        })
                        .unwrap_or_default(),
                }
            })
            .collect();
        let (connected, n) = self.connected_voters();
        let leader = self.etcd_leader();
        Snapshot {
            t: self.obs.secs(self.now).max(0.0),
            zones: self.zone_names(),
            hosts,
            etcd: EtcdView {
                voters: n,
                connected,
                quorum_size: quorum::quorum(n),
                has_quorum: quorum::has_quorum(connected, n),
                leader: leader.map(|h| self.hosts[h as usize].name.clone()),
                term: leader
                    .and_then(|h| self.etcd[h as usize].as_ref())
                    .map_or(0, |m| m.raft.term()),
            },
            network_faulty: self.net.is_faulty(),
        }
    }

    /// The Node object as the most up-to-date etcd member stores it.
    fn node_view(&self, name: &str) -> Option<crate::view::NodeView> {
        use crate::k8s::objects::{node_key, Condition};
        let member = self
            .etcd
            .iter()
            .flatten()
            .filter(|m| m.cluster == self.current_cluster)
            .max_by_key(|m| (m.raft.applied_index(), std::cmp::Reverse(m.host)))?;
        let kv = member.kv.get(&node_key(name))?;
        let node = kv.value.as_node()?;
        Some(crate::view::NodeView {
            ready: match node.ready {
                Condition::True => "Ready",
                Condition::False => "NotReady",
                Condition::Unknown => "Unknown",
            },
            taints: node.taints.iter().map(|t| t.key.name()).collect(),
        })
    }

    /// Declared zones, then any zone only hosts name (`default`), in first-seen order.
    fn zone_names(&self) -> Vec<String> {
        let mut zones = self.scenario.zones.clone();
        for h in &self.scenario.hosts {
            if !zones.contains(&h.zone) {
                zones.push(h.zone.clone());
            }
        }
        zones
    }
}

/// What the etcd write probe writes at a report second.
fn probe_value(second: i64) -> Value {
    Value::new(Object::from(second.to_string().as_str()))
}

/// Size of the largest set of hosts that are pairwise connected. Exact for up to 16 hosts
/// (etcd clusters are small); beyond that, the largest group of hosts connected to a first one.
fn largest_clique(hosts: &[HostId], connected: impl Fn(HostId, HostId) -> bool) -> usize {
    let n = hosts.len();
    if n <= 16 {
        let mut best = 0;
        for mask in 1u32..(1 << n) {
            let size = mask.count_ones() as usize;
            if size <= best {
                continue;
            }
            let members: Vec<HostId> = (0..n)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| hosts[i])
                .collect();
            let ok = members
                .iter()
                .enumerate()
                .all(|(i, &a)| members[i + 1..].iter().all(|&b| connected(a, b)));
            if ok {
                best = size;
            }
        }
        best
    } else {
        hosts
            .iter()
            .map(|&a| hosts.iter().filter(|&&b| a == b || connected(a, b)).count())
            .max()
            .unwrap_or(0)
    }
}

/// The endpoint a worker's kube-proxy picks for a Service, as (pod, host of the pod).
fn pick_endpoint<'a>(
    procs: &'a [Procs],
    host_index: &KeyMap<HostId>,
    rng: &mut Rng,
    worker: HostId,
    service: &str,
) -> Option<(&'a str, HostId)> {
    let rules = procs[worker as usize].proxy.as_ref()?.rules(service);
    if rules.is_empty() {
        return None;
    }
    let e = &rules[rng.below(rules.len() as u64) as usize];
    Some((e.pod.as_str(), *host_index.get(&e.node)?))
}
