//! The scenario format, version 1 (contract: `docs/scenario-format.md`).
//!
//! A scenario is the whole session: topology (zones, hosts and their roles),
//! workloads, settings that override the Kubernetes/etcd defaults, and timed
//! events (faults and operator actions). The playground, the share URL and the
//! command-line runner all exchange it as JSON.
//!
//! This module models that document as plain data (the types below) and owns three things:
//! - [`parse`] (`json.rs`): JSON text → [`Scenario`], refusing anything doubtful with a
//!   [`ScenarioError`] that names the field (`hosts[3].zone: unknown zone "rack-c"`).
//!   The JSON is read into a small ordered tree (`tree.rs`) and walked by hand, because serde's
//!   derived errors do not name paths, silently take the last of duplicated keys and
//!   would make "unknown field" messages vague.
//! - [`Scenario::validate`] (`validate.rs`): every semantic check (names, references, limits,
//!   the crashed/up state of each host along the events). `parse` runs it; code that
//!   builds or edits a scenario (the UI appending an event) should run it too.
//! - [`Scenario::to_json`] (`json.rs`): the canonical form, in the field order of the contract
//!   page. For a canonical document `D`, `parse(D)?.to_json() == D` byte for byte.
//!
//! Beside them, `limits.rs` says how large a document may be, `defaults.rs` what a field left
//! out means, `error.rs` how a refusal names its field, and `link.rs` the share link's text form. How the document spells an enum
//! value (`Role::name`, `Component::from_name`, ...) is part of its type's JSON form, in
//! `json.rs`. Everything public is re-exported here, so `scenario::X` stays the one path to
//! every name.
//!
//! Nothing here panics on any input: a document is data from a URL.

mod defaults;
mod error;
#[cfg(test)]
mod example;
mod json;
pub mod label;
mod limits;
pub mod link;
pub mod quantity;
mod settings;
pub mod taint;
mod tree;
mod validate;

pub use defaults::{
    DEFAULT_REBOOT_DOWNTIME, DEFAULT_SEED, DEFAULT_TERMINATION_GRACE_PERIOD, DEFAULT_ZONE,
};
pub use error::ScenarioError;
pub use json::parse;
pub use limits::{
    MAX_DESCRIPTION_LEN, MAX_DURATION, MAX_EVENTS, MAX_FAULTS, MAX_FAULT_DRAWS, MAX_HOSTS,
    MAX_INPUT_BYTES, MAX_LABEL_LEN, MAX_NAME_LEN, MAX_PODS, MAX_POD_NAME_LEN, MAX_SETTING_DURATION,
    MAX_WORKLOADS, MAX_ZONES, MIN_FAULT_MEAN, MIN_PERIOD,
};
pub use quantity::{fmt_cpu, fmt_memory, parse_cpu, parse_memory, MAX_CPU_MILLI, MAX_MEMORY};
pub use settings::{Milli, Range, SettingKey, SettingValue, Settings};

use crate::kernel::time::Duration;

/// The only format version this build reads and writes.
pub const VERSION: u32 = 1;

/// The Deployment that runs cluster DNS; no workload may take this name.
pub const COREDNS: &str = "coredns";

/// kubeadm's kube-proxy DaemonSet; no workload may take this name.
pub const KUBE_PROXY: &str = "kube-proxy";

/// The control plane's static pods (their mirror pods are named after them); no workload may
/// take these names.
pub const STATIC_PODS: [&str; 4] = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
];

/// Every name kube-system's pods are named after: CoreDNS, kube-proxy and the static pods.
pub fn kube_system_names() -> impl Iterator<Item = &'static str> {
    [COREDNS, KUBE_PROXY].into_iter().chain(STATIC_PODS)
}

// ---------------------------------------------------------------------------------------------
// The data model
// ---------------------------------------------------------------------------------------------

/// A whole scenario document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Always [`VERSION`].
    pub version: u32,
    /// Free text shown to the user (never markup).
    pub name: String,
    /// Free text shown to the user (never markup).
    pub description: Option<String>,
    /// Every random draw of the run derives from it. Default 1.
    pub seed: u64,
    /// How much simulated time to run.
    pub duration: Duration,
    /// Listed failure domains; [`DEFAULT_ZONE`] exists without being listed.
    pub zones: Vec<String>,
    pub hosts: Vec<Host>,
    pub workloads: Vec<Workload>,
    pub settings: Settings,
    /// In document order; see [`Scenario::events_sorted`] for the order they apply in.
    pub events: Vec<Event>,
    /// Random fault processes, drawn from `seed` over the run like events.
    pub faults: Vec<Fault>,
}

/// A random fault process (`faults[i]`): what it strikes and how often. Its draws are
/// exponential, so failures are memoryless, as MTBF/MTTR figures assume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Hosts for host failures and spot interruptions, zones for zone outages.
    pub targets: Selector,
    pub kind: FaultKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Each selected host crashes after a time with mean `mtbf` up, and restarts after a time
    /// with mean `mttr` down, independently of the others.
    HostFailures { mtbf: Duration, mttr: Duration },
    /// Each selected zone is cut off from all others for a time with mean `mttr`, after a time
    /// with mean `mtbf` connected.
    ZoneOutages { mtbf: Duration, mttr: Duration },
    /// Each selected spot host is interrupted (notice, drain, termination) after a time with
    /// mean `every`. `replace_after`: a fresh host of the same roles joins that long after.
    /// `remove_on_notice`: the automation that acts on the notice removes the host's etcd
    /// member at once, while it still answers, instead of the replacement removing it later.
    SpotInterruptions {
        every: Duration,
        replace_after: Option<Duration>,
        remove_on_notice: bool,
    },
}

/// Which hosts or zones a fault process strikes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    All,
    /// Spot hosts (for zones: zones with a spot host).
    Spot,
    /// Hosts with the role (for zones: zones with such a host).
    Role(Role),
    /// Host or zone names (a zone in a host selector stands for its hosts).
    Names(Vec<String>),
}

/// One machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// Unique, DNS-label-like.
    pub name: String,
    /// A listed zone or [`DEFAULT_ZONE`].
    pub zone: String,
    /// Non-empty, no duplicates, in document order.
    pub roles: Vec<Role>,
    /// The host can receive a `spot_interrupt`.
    pub spot: bool,
    /// Powered on but not in the cluster until a `join` event.
    pub standby: bool,
    /// The Node's allocatable cpu (millicores) and memory (bytes), when the document gives
    /// them ([`Host::allocatable`] applies the defaults).
    pub cpu: Option<u64>,
    pub memory: Option<u64>,
}

/// Compute and memory: a Node's allocatable, or what a pod requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Resources {
    /// Millicores (`"500m"`, `"4"` = 4000).
    pub cpu: u64,
    /// Bytes (`"16Gi"`).
    pub memory: u64,
}

/// A host's allocatable when the document does not say (the format's default): 4 cores, 16 GiB.
pub const DEFAULT_ALLOCATABLE: Resources = Resources {
    cpu: 4000,
    memory: 16 << 30,
};

/// What kubeadm's CoreDNS manifest requests per pod: 100m cpu, 70Mi memory.
pub const COREDNS_REQUESTS: Resources = Resources {
    cpu: 100,
    memory: 70 << 20,
};

impl Scenario {
    /// Whether the document gives capacity (a host's `cpu` or `memory`, a workload's
    /// `requests`): only then does the scheduler check room and follow Pending pods, so a
    /// document without them runs as the base format says.
    pub fn uses_capacity(&self) -> bool {
        self.hosts
            .iter()
            .any(|h| h.cpu.is_some() || h.memory.is_some())
            || self.workloads.iter().any(|w| w.requests.is_some())
    }

    /// Whether pods may be unschedulable, so that Pending pods are followed and reported:
    /// with capacity, or a topology spread constraint.
    pub fn tracks_pending(&self) -> bool {
        self.uses_capacity() || self.workloads.iter().any(|w| w.spread.is_some())
    }
}

impl Host {
    /// The Node's allocatable: the document's `cpu` and `memory`, else the defaults.
    pub fn allocatable(&self) -> Resources {
        Resources {
            cpu: self.cpu.unwrap_or(DEFAULT_ALLOCATABLE.cpu),
            memory: self.memory.unwrap_or(DEFAULT_ALLOCATABLE.memory),
        }
    }
}

/// What runs on a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// An etcd member.
    Etcd,
    /// kube-apiserver + kube-controller-manager + kube-scheduler; a registered (tainted) Node.
    ControlPlane,
    Apiserver,
    ControllerManager,
    Scheduler,
    /// kubelet, kube-proxy and pods; a registered Node.
    Worker,
    /// Fronts all apiservers, health-checked.
    LoadBalancer,
    /// Sends steady requests to every Service and measures success.
    Client,
}

/// A workload and whether a Service fronts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    pub kind: WorkloadKind,
    /// Unique, DNS-label-like, not [`COREDNS`].
    pub name: String,
    /// Set for Deployment and StatefulSet, `None` for DaemonSet.
    pub replicas: Option<u32>,
    pub service: bool,
    /// What each pod requests (`None`: nothing, as in the base format).
    pub requests: Option<Resources>,
    /// A PodDisruptionBudget over the workload's pods.
    pub pdb: Option<Budget>,
    /// A topology spread constraint over its pods (maxSkew 1, DoNotSchedule).
    pub spread: Option<Spread>,
    /// `terminationGracePeriodSeconds`: how long a pod may take to stop after SIGTERM.
    pub termination_grace_period: Duration,
    /// How long its app takes to stop after SIGTERM (at most the grace period; the simulated
    /// echo server stops at once). It serves meanwhile.
    pub stop_takes: Duration,
}

/// The topology a workload's pods are spread over: `topology.kubernetes.io/zone` or
/// `kubernetes.io/hostname`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    Zone,
    Host,
}

impl Spread {
    pub fn name(self) -> &'static str {
        match self {
            Spread::Zone => "zone",
            Spread::Host => "host",
        }
    }
}

/// A PodDisruptionBudget's one rule (`minAvailable` or `maxUnavailable`, as a count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    MinAvailable(u32),
    MaxUnavailable(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WorkloadKind {
    Deployment,
    StatefulSet,
    DaemonSet,
}

/// How clients and kubelets reach the apiservers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ApiEndpoint {
    /// The `load-balancer` host (base format; without one, the first apiserver).
    LoadBalancer,
    /// A virtual IP held by the control-plane host that holds kube-vip's Lease.
    KubeVip,
    /// A virtual IP moved by VRRP among the control-plane hosts.
    Keepalived,
}

impl ApiEndpoint {
    pub const ALL: [ApiEndpoint; 3] = [
        ApiEndpoint::LoadBalancer,
        ApiEndpoint::KubeVip,
        ApiEndpoint::Keepalived,
    ];
    pub fn name(self) -> &'static str {
        match self {
            ApiEndpoint::LoadBalancer => "load-balancer",
            ApiEndpoint::KubeVip => "kube-vip",
            ApiEndpoint::Keepalived => "keepalived",
        }
    }
    pub fn from_name(s: &str) -> Option<ApiEndpoint> {
        ApiEndpoint::ALL.into_iter().find(|e| e.name() == s)
    }
}

/// What the load balancer balances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LbBalance {
    /// haproxy `mode tcp` (kubeadm's example): a client's connection stays on the backend it
    /// was given when it dialled; the default.
    Connection,
    /// Every request balanced anew (an HTTP-level balancer without connection reuse).
    Request,
}

impl LbBalance {
    pub fn name(self) -> &'static str {
        match self {
            LbBalance::Connection => "connection",
            LbBalance::Request => "request",
        }
    }
    pub fn from_name(s: &str) -> Option<LbBalance> {
        [LbBalance::Connection, LbBalance::Request]
            .into_iter()
            .find(|b| b.name() == s)
    }
}

/// How the load balancer checks apiservers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LbHealthCheck {
    /// HTTP `/readyz` (includes the etcd check): the default.
    Readyz,
    /// A plain TCP connect: keeps routing to an apiserver whose etcd lost quorum.
    Tcp,
}

/// One timed event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Simulated time from the start of the run, ≤ the scenario's `duration`.
    pub at: Duration,
    pub action: Action,
}

/// What happens at an event (the table of the contract page).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Every process on the host dies; its network is silent.
    Crash {
        host: String,
    },
    /// A crashed host boots again.
    Restart {
        host: String,
    },
    /// Crash, then restart after `downtime` (default 30 s).
    Reboot {
        host: String,
        downtime: Duration,
    },
    /// Hosts in different groups cannot talk; each name is a zone or a host.
    Partition {
        groups: Vec<Vec<String>>,
    },
    /// The host can talk to nobody.
    Isolate {
        host: String,
    },
    /// Messages from `from` to `to` are dropped. Each side is one or more zone or host names
    /// (written as a string when there is one).
    PartitionOneway {
        from: Vec<String>,
        to: Vec<String>,
    },
    /// All partitions and isolations end.
    Heal,
    /// Two-minute notice, cordon and drain, then terminated for good.
    SpotInterrupt {
        host: String,
    },
    /// `kubeadm join` of a standby host.
    Join {
        host: String,
    },
    /// `etcdctl member add`; `learner`: as a non-voting member (`--learner`), to be promoted.
    EtcdMemberAdd {
        host: String,
        learner: bool,
    },
    /// `etcdctl member promote`: a learner becomes a voter once it has caught up.
    EtcdMemberPromote {
        host: String,
    },
    EtcdMemberRemove {
        host: String,
    },
    EtcdForceNewCluster {
        host: String,
    },
    DeletePod {
        pod: String,
        force: bool,
    },
    /// Marks the host's Node unschedulable (`kubectl cordon`).
    Cordon {
        host: String,
    },
    /// Marks it schedulable again (`kubectl uncordon`).
    Uncordon {
        host: String,
    },
    /// `kubectl drain --ignore-daemonsets`: cordon, then evict through the Eviction API.
    Drain {
        host: String,
    },
    /// `kubectl taint nodes HOST key[=value]:Effect --overwrite`: an operator's taint.
    Taint {
        host: String,
        taint: String,
    },
    /// `kubectl taint nodes HOST key[:Effect]-`: takes an operator's taint away.
    Untaint {
        host: String,
        taint: String,
    },
    /// `kubectl label nodes HOST key=value --overwrite`.
    Label {
        host: String,
        label: String,
    },
    /// `kubectl label nodes HOST key-`.
    Unlabel {
        host: String,
        label: String,
    },
    /// Desired replicas of a Deployment or StatefulSet (or `coredns`).
    Scale {
        workload: String,
        replicas: u32,
    },
    RestartComponent {
        host: String,
        component: Component,
    },
}

/// A process that `restart_component` can restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    Coredns,
    KubeProxy,
    Kubelet,
    Apiserver,
    Etcd,
    KubeControllerManager,
    KubeScheduler,
}

// ---------------------------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------------------------

impl Action {
    /// The host named by the `host` field, for the actions that have one.
    pub fn host(&self) -> Option<&str> {
        match self {
            Action::Crash { host }
            | Action::Restart { host }
            | Action::Reboot { host, .. }
            | Action::Isolate { host }
            | Action::SpotInterrupt { host }
            | Action::Join { host }
            | Action::EtcdMemberAdd { host, .. }
            | Action::EtcdMemberPromote { host }
            | Action::EtcdMemberRemove { host }
            | Action::EtcdForceNewCluster { host }
            | Action::Cordon { host }
            | Action::Uncordon { host }
            | Action::Drain { host }
            | Action::Taint { host, .. }
            | Action::Untaint { host, .. }
            | Action::Label { host, .. }
            | Action::Unlabel { host, .. }
            | Action::RestartComponent { host, .. } => Some(host),
            Action::Partition { .. }
            | Action::PartitionOneway { .. }
            | Action::Heal
            | Action::DeletePod { .. }
            | Action::Scale { .. } => None,
        }
    }

    /// An operator action the cluster may refuse at run time; the report records each as an
    /// `operation` (applied or refused). Faults (crash, partition, ...) are not operations.
    pub fn is_operation(&self) -> bool {
        matches!(
            self,
            Action::Join { .. }
                | Action::EtcdMemberAdd { .. }
                | Action::EtcdMemberPromote { .. }
                | Action::EtcdMemberRemove { .. }
                | Action::EtcdForceNewCluster { .. }
                | Action::DeletePod { .. }
                | Action::Scale { .. }
                | Action::Cordon { .. }
                | Action::Uncordon { .. }
                | Action::Drain { .. }
                | Action::Taint { .. }
                | Action::Untaint { .. }
                | Action::Label { .. }
                | Action::Unlabel { .. }
        )
    }
}

impl Host {
    pub fn has_role(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }
    pub fn runs_etcd(&self) -> bool {
        self.has_role(Role::Etcd)
    }
    /// `control-plane` or `apiserver`.
    pub fn runs_apiserver(&self) -> bool {
        self.has_role(Role::ControlPlane) || self.has_role(Role::Apiserver)
    }
    /// `control-plane` or `controller-manager`.
    pub fn runs_controller_manager(&self) -> bool {
        self.has_role(Role::ControlPlane) || self.has_role(Role::ControllerManager)
    }
    /// `control-plane` or `scheduler`.
    pub fn runs_scheduler(&self) -> bool {
        self.has_role(Role::ControlPlane) || self.has_role(Role::Scheduler)
    }
    pub fn is_control_plane(&self) -> bool {
        self.has_role(Role::ControlPlane)
    }
    pub fn is_worker(&self) -> bool {
        self.has_role(Role::Worker)
    }
    /// A registered Node (kubelet, kube-proxy): every worker and every control-plane host.
    pub fn is_node(&self) -> bool {
        self.is_worker() || self.is_control_plane()
    }
    pub fn is_load_balancer(&self) -> bool {
        self.has_role(Role::LoadBalancer)
    }
    pub fn is_client(&self) -> bool {
        self.has_role(Role::Client)
    }
    /// The static pods kubeadm writes on this host when it is a Node ([`STATIC_PODS`] names):
    /// etcd's where it runs an etcd member, and each control-plane component it runs.
    pub fn static_pods(&self) -> impl Iterator<Item = &'static str> {
        let [etcd, apiserver, controller_manager, scheduler] = STATIC_PODS;
        let runs = [
            (etcd, self.runs_etcd()),
            (apiserver, self.runs_apiserver()),
            (controller_manager, self.runs_controller_manager()),
            (scheduler, self.runs_scheduler()),
        ];
        (runs.into_iter()).filter_map(|(pod, runs)| runs.then_some(pod))
    }

    /// An apiserver with a local etcd member: it talks to that member only.
    pub fn is_stacked(&self) -> bool {
        self.runs_apiserver() && self.runs_etcd()
    }
    /// Whether the host's roles let it run `component`. CoreDNS pods run on workers, though
    /// which workers hold one is only known at run time.
    pub fn can_run(&self, component: Component) -> bool {
        match component {
            Component::Coredns => self.is_worker(),
            Component::KubeProxy | Component::Kubelet => self.is_node(),
            Component::Apiserver => self.runs_apiserver(),
            Component::Etcd => self.runs_etcd(),
            Component::KubeControllerManager => self.runs_controller_manager(),
            Component::KubeScheduler => self.runs_scheduler(),
        }
    }
}

impl Scenario {
    /// The host with this name and its index in `hosts`.
    pub fn host(&self, name: &str) -> Option<(usize, &Host)> {
        self.hosts.iter().enumerate().find(|(_, h)| h.name == name)
    }

    /// The workload with this name and its index in `workloads` (CoreDNS is not one).
    pub fn workload(&self, name: &str) -> Option<(usize, &Workload)> {
        self.workloads
            .iter()
            .enumerate()
            .find(|(_, w)| w.name == name)
    }

    /// Whether a zone exists: listed, or the implicit [`DEFAULT_ZONE`].
    pub fn has_zone(&self, name: &str) -> bool {
        name == DEFAULT_ZONE || self.zones.iter().any(|z| z == name)
    }

    /// Hosts in a zone, with their indices.
    pub fn hosts_in_zone<'a>(
        &'a self,
        zone: &'a str,
    ) -> impl Iterator<Item = (usize, &'a Host)> + 'a {
        self.hosts
            .iter()
            .enumerate()
            .filter(move |(_, h)| h.zone == zone)
    }

    /// Indices of the hosts a partition name means: the host of that name, else every host of
    /// the zone of that name (host and zone names never collide in a valid scenario).
    /// The hosts a fault process strikes (indices, in host order, no duplicates).
    pub fn selected_hosts(&self, sel: &Selector) -> Vec<usize> {
        let mut picked = vec![false; self.hosts.len()];
        match sel {
            Selector::Names(names) => names
                .iter()
                .flat_map(|n| self.resolve_hosts(n))
                .for_each(|i| picked[i] = true),
            _ => (0..self.hosts.len()).for_each(|i| picked[i] = self.matches(sel, i)),
        }
        (0..picked.len()).filter(|&i| picked[i]).collect()
    }

    /// The zones a fault process strikes, in the order zones first appear among the hosts.
    pub fn selected_zones(&self, sel: &Selector) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for (i, h) in self.hosts.iter().enumerate() {
            let hit = match sel {
                Selector::Names(names) => names.contains(&h.zone),
                _ => self.matches(sel, i),
            };
            if hit && !out.contains(&h.zone.as_str()) {
                out.push(&h.zone);
            }
        }
        out
    }

    fn matches(&self, sel: &Selector, i: usize) -> bool {
        let h = &self.hosts[i];
        match sel {
            Selector::All => true,
            Selector::Spot => h.spot,
            Selector::Role(r) => h.has_role(*r),
            Selector::Names(names) => names.contains(&h.name),
        }
    }

    pub fn resolve_hosts(&self, name: &str) -> Vec<usize> {
        match self.host(name) {
            Some((i, _)) => vec![i],
            None => self.hosts_in_zone(name).map(|(i, _)| i).collect(),
        }
    }

    /// Events in the order they apply: by time, ties in list order (a stable sort).
    pub fn events_sorted(&self) -> Vec<&Event> {
        self.events_sorted_indexed()
            .into_iter()
            .map(|(_, e)| e)
            .collect()
    }

    /// Like [`Scenario::events_sorted`], with each event's index in `events`.
    pub fn events_sorted_indexed(&self) -> Vec<(usize, &Event)> {
        let mut v: Vec<(usize, &Event)> = self.events.iter().enumerate().collect();
        crate::kernel::sort::sort_by_key(&mut v, |(_, e)| e.at);
        v
    }

    /// Indices of the hosts whose etcd members form the initial cluster (etcd role, not standby).
    pub fn initial_etcd_members(&self) -> Vec<usize> {
        (0..self.hosts.len())
            .filter(|&i| self.hosts[i].runs_etcd() && !self.hosts[i].standby)
            .collect()
    }

    /// Pods desired at t = 0: replicas, DaemonSet pods on every Node (kube-proxy's included;
    /// standby hosts too, as an upper bound), the control plane's static pods and CoreDNS. This
    /// is what [`MAX_PODS`] bounds.
    pub fn pod_count(&self) -> u64 {
        let replicas = self
            .workloads
            .iter()
            .map(|w| w.replicas.unwrap_or(0) as u64)
            .sum::<u64>();
        replicas + self.daemonset_pods() + self.settings.coredns_replicas as u64
    }

    fn daemonset_pods(&self) -> u64 {
        let nodes = self.hosts.iter().filter(|h| h.is_node()).count() as u64;
        let daemonsets = self
            .workloads
            .iter()
            .filter(|w| w.kind == WorkloadKind::DaemonSet)
            .count() as u64;
        // kube-proxy's pods, and the mirrors of the static pods on control-plane Nodes.
        let system = (self.hosts.iter().filter(|h| h.is_node()))
            .map(|h| 1 + h.static_pods().count() as u64)
            .sum::<u64>();
        nodes * daemonsets + system
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::example::{with_events, EXAMPLE};
    use super::*;

    #[test]
    fn events_sort_by_time_then_list_order() {
        let doc = with_events(serde_json::json!([
            {"at": "5m", "action": "heal"},
            {"at": "1m", "action": "crash", "host": "w1"},
            {"at": "5m", "action": "isolate", "host": "m1"},
            {"at": "1m", "action": "restart", "host": "w1"}]));
        let s = parse(&doc).unwrap();
        let names: Vec<&str> = s.events_sorted().iter().map(|e| e.action.name()).collect();
        assert_eq!(names, ["crash", "restart", "heal", "isolate"]);
    }

    #[test]
    fn queries() {
        let s = parse(EXAMPLE).unwrap();
        let (i, m1) = s.host("m1").unwrap();
        assert_eq!(i, 3);
        assert!(m1.runs_apiserver() && m1.runs_controller_manager() && m1.is_node());
        assert!(!m1.runs_etcd() && !m1.is_stacked());
        assert!(s.host("etcd-1").unwrap().1.runs_etcd());
        assert!(s.host("nope").is_none());
        assert_eq!(s.resolve_hosts("rack-b"), [2, 4, 6]);
        assert_eq!(s.resolve_hosts("lb"), [7]);
        assert_eq!(s.initial_etcd_members(), [0, 1, 2]);
        // web 2 + db 1 + agent and kube-proxy on 4 nodes (m1, m2, w1, w2) + coredns 2 + the
        // static pods of m1 and m2 (apiserver, controller-manager, scheduler: etcd is external).
        assert_eq!(s.pod_count(), 2 + 1 + 2 * 4 + 2 + 2 * 3);
    }
}
