//! The machines of a run: each host's life (up or down, its incarnation, how often each of
//! its processes was restarted), names to ids, and the kubelet's restart back-off. Messages
//! and timers carry the life they were sent in; one addressed to an earlier life is dropped.
//! Also what the random fault processes took down.

use crate::k8s::scheduler::{Capacity, Resources};
use crate::kernel::keymap::KeyMap;
use crate::kernel::members::MemberMap;
use crate::kernel::net::HostId;
use crate::kernel::process::{Addr, Port};
use crate::kernel::time::{Duration, SimTime};
use crate::scenario::{self, Scenario, COREDNS, COREDNS_REQUESTS};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// How many ports the world's processes use (the client's is the last), for tables by port.
const PORTS: usize = Port::CLIENT.index() + 1;

/// The kubelet's restart back-off for a container that exited: the first restart at once, then
/// 10 s, doubling, at most 5 min; forgotten once the container has run for 10 min.
const RESTART_BACKOFF: Duration = Duration::from_secs(10);
const RESTART_BACKOFF_MAX: Duration = Duration::from_secs(300);
const RESTART_BACKOFF_RESET: Duration = Duration::from_secs(600);

/// A host's life. Every event looks at `up`, `incarnation` and one of `process_generation`: they come
/// first, in one cache line of their own (at a thousand hosts, each event would otherwise
/// miss the cache on the host's state more than once).
#[derive(Clone)]
#[repr(C, align(64))]
pub struct HostRt {
    pub up: bool,
    /// Standby hosts take part only after `join`; spot hosts after termination never return.
    pub joined: bool,
    pub terminated: bool,
    /// A machine replacing a reclaimed spot host, until it has joined (then its Node, cordoned
    /// by the reclaimed machine's drain, is made schedulable again).
    pub replacing: bool,
    /// Bumped on every crash, so messages and timers addressed to a previous life are dropped.
    pub incarnation: u64,
    /// Per process: how many times it was stopped or restarted (see `generation`).
    pub process_generation: [u32; PORTS],
    pub name: String,
    /// The changes the world has scheduled for this host: a reboot's boot, a spot notice's
    /// termination. A study's skip brings them earlier (see `World::skip`); the queued event
    /// whose time no longer matches is then ignored.
    pub boot_at: Option<SimTime>,
    pub terminate_at: Option<SimTime>,
}

/// Every host's life, in scenario order (the slice this derefs to), and how to find them.
#[derive(Clone)]
pub struct Hosts {
    rt: Vec<HostRt>,
    index: KeyMap<HostId>,
    /// Worker host names in host order: the scheduler's tie-break.
    pub worker_order: Vec<String>,
    pub worker_ids: Vec<HostId>,
    /// What the scheduler's fit check reads, when the scenario gives capacity.
    pub capacity: Option<Arc<Capacity>>,
    /// The hidden observer host that runs the probes and the operator; it is never crashed or
    /// partitioned away.
    pub probe: HostId,
    /// Per (host, process) since the host booted, for the restart back-off: restarts counted,
    /// and when the process last started.
    restarts: MemberMap<(HostId, Port), (u32, SimTime)>,
    /// What the scenario's fault processes did to the hosts (see `faults.rs`).
    pub faults: super::faults::FaultState,
}

impl Deref for Hosts {
    type Target = [HostRt];
    fn deref(&self) -> &[HostRt] {
        &self.rt
    }
}

impl DerefMut for Hosts {
    fn deref_mut(&mut self) -> &mut [HostRt] {
        &mut self.rt
    }
}

impl Hosts {
    pub fn new(scenario: &Scenario) -> Hosts {
        let n = scenario.hosts.len();
        Hosts {
            rt: scenario
                .hosts
                .iter()
                .map(|h| HostRt {
                    name: h.name.clone(),
                    up: true,
                    incarnation: 0,
                    joined: !h.standby,
                    terminated: false,
                    replacing: false,
                    process_generation: [0; PORTS],
                    boot_at: None,
                    terminate_at: None,
                })
                .collect(),
            index: scenario
                .hosts
                .iter()
                .enumerate()
                .map(|(i, h)| (h.name.as_str().into(), i as HostId))
                .collect(),
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
            capacity: scenario.uses_capacity().then(|| {
                let k8s = |r: scenario::Resources| Resources {
                    cpu: r.cpu,
                    memory: r.memory,
                };
                let requests = scenario
                    .workloads
                    .iter()
                    .map(|w| (w.name.as_str().into(), k8s(w.requests.unwrap_or_default())))
                    .chain([(COREDNS.into(), k8s(COREDNS_REQUESTS))])
                    .collect();
                Arc::new(Capacity {
                    allocatable: scenario
                        .hosts
                        .iter()
                        .filter(|h| h.is_worker())
                        .map(|h| k8s(h.allocatable()))
                        .collect(),
                    requests,
                })
            }),
            probe: n as HostId,
            restarts: MemberMap::default(),
            faults: Default::default(),
        }
    }

    pub fn id(&self, name: &str) -> Option<HostId> {
        self.index.get(name).copied()
    }

    /// Host ids by name.
    pub fn index(&self) -> &KeyMap<HostId> {
        &self.index
    }

    pub fn name(&self, h: HostId) -> &str {
        &self.rt[h as usize].name
    }

    /// Hosts named directly, or all hosts of a named zone.
    pub fn resolve(&self, scenario: &Scenario, names: &[String]) -> Vec<HostId> {
        let mut out = Vec::new();
        for name in names {
            if let Some(h) = self.id(name) {
                out.push(h);
            } else {
                out.extend(
                    scenario
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

    /// The life of a process: its host's incarnation and the process's own restarts. Messages
    /// and timers addressed to an earlier life are dropped (a restarted process starts afresh).
    pub fn generation(&self, to: Addr) -> u64 {
        self.rt.get(to.host as usize).map_or(0, |h| {
            (h.incarnation << 32) | u64::from(h.process_generation[to.port.index()])
        })
    }

    /// Whether a message or timer addressed to `generation` still finds its process.
    pub fn alive(&self, to: Addr, generation: u64) -> bool {
        to.host == self.probe
            || (self.rt.get(to.host as usize).is_some_and(|rt| rt.up)
                && self.generation(to) == generation)
    }

    pub fn incarnation(&self, h: HostId) -> u64 {
        self.rt.get(h as usize).map_or(0, |h| h.incarnation)
    }

    /// A process started (its container, for the kubelet's back-off).
    pub fn started(&mut self, h: HostId, port: Port, now: SimTime) {
        self.restarts
            .get_or_insert_with((h, port), || (0, now))
            .0
             .1 = now;
    }

    /// A process exited at `now`: its next life begins after the kubelet's back-off for it.
    pub fn exited(&mut self, h: HostId, port: Port, now: SimTime) -> Duration {
        self.rt[h as usize].process_generation[port.index()] += 1;
        let (n, started) = self.restarts.get_or_insert_with((h, port), || (0, now)).0;
        if now.saturating_sub(*started) >= RESTART_BACKOFF_RESET {
            *n = 0;
        }
        let backoff = match *n {
            0 => Duration::ZERO,
            k => Duration(
                (RESTART_BACKOFF.as_micros() << (k - 1).min(16))
                    .min(RESTART_BACKOFF_MAX.as_micros()),
            ),
        };
        *n += 1;
        backoff
    }

    /// How many times the process restarted since its host booted, and when it last started.
    pub fn restarts(&self, h: HostId, port: Port) -> Option<(u32, SimTime)> {
        self.restarts.get(&(h, port)).copied()
    }

    /// The host booted: its processes' back-offs start again.
    pub fn booted(&mut self, h: HostId) {
        self.restarts.retain(|(host, _), _| *host != h);
    }
}
