//! The scenario format, version 1 (contract: `docs/scenario-format.md`).
//!
//! A scenario is the whole session: topology (zones, hosts and their roles),
//! workloads, settings that override the Kubernetes/etcd defaults, and timed
//! events (faults and operator actions). The playground, the share URL and the
//! command-line runner all exchange it as JSON.
//!
//! This module models that document as plain data and owns three things:
//! - [`parse`]: JSON text → [`Scenario`], refusing anything doubtful with a
//!   [`ScenarioError`] that names the field (`hosts[3].zone: unknown zone "rack-c"`).
//!   The JSON is read into a small ordered tree and walked by hand, because serde's
//!   derived errors do not name paths, silently take the last of duplicated keys and
//!   would make "unknown field" messages vague.
//! - [`Scenario::validate`]: every semantic check (names, references, limits, the
//!   crashed/up state of each host along the events). `parse` runs it; code that
//!   builds or edits a scenario (the UI appending an event) should run it too.
//! - [`Scenario::to_json`]: the canonical form, in the field order of the contract page.
//!   For a canonical document `D`, `parse(D)?.to_json() == D` byte for byte.
//!
//! Nothing here panics on any input: a document is data from a URL.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::kernel::time::{parse_duration, Duration};

// ---------------------------------------------------------------------------------------------
// Limits. The contract requires at least 1,000 hosts, 20,000 pods, 1,000 events and 7 days of
// simulated time; beyond these a document is refused with a message naming the field.
// ---------------------------------------------------------------------------------------------

/// Largest accepted document, in bytes (before any parsing, so a huge paste costs nothing).
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;
/// Most hosts in a scenario.
pub const MAX_HOSTS: usize = 2_000;
/// Most zones in a scenario (a zone without hosts is pointless, so this is never the binding limit).
pub const MAX_ZONES: usize = MAX_HOSTS;
/// Most workloads in a scenario (CoreDNS not counted).
pub const MAX_WORKLOADS: usize = 1_000;
/// Most pods that may be desired at any time: Deployment/StatefulSet replicas, one pod of each
/// DaemonSet on every Node (standby hosts included, as they may join), and CoreDNS replicas.
pub const MAX_PODS: u32 = 20_000;
/// Most events in a scenario.
pub const MAX_EVENTS: usize = 10_000;
/// Longest simulated run (`duration`), and so the latest event time: 7 days.
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);
/// Longest scenario `name`, in characters.
pub const MAX_NAME_LEN: usize = 200;
/// Longest scenario `description`, in characters.
pub const MAX_DESCRIPTION_LEN: usize = 5_000;
/// Longest host, zone or workload name: a DNS label.
pub const MAX_LABEL_LEN: usize = 63;
/// Longest pod name in `delete_pod`: a DNS subdomain.
pub const MAX_POD_NAME_LEN: usize = 253;
/// Shortest period a periodic timer setting may have (heartbeat, lease periods, ...): shorter
/// periods would only make a run enormous in events without showing anything new.
pub const MIN_PERIOD: Duration = Duration::from_millis(1);
/// Longest value of a settings duration, except `toleration_seconds` (up to [`MAX_DURATION`]).
pub const MAX_SETTING_DURATION: Duration = Duration::from_secs(3600);

/// The only format version this build reads and writes.
pub const VERSION: u32 = 1;

/// The zone of a host that names none. It exists without being listed in `zones`.
pub const DEFAULT_ZONE: &str = "default";

/// The Deployment that runs cluster DNS; no workload may take this name.
pub const COREDNS: &str = "coredns";

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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WorkloadKind {
    Deployment,
    StatefulSet,
    DaemonSet,
}

/// How the load balancer checks apiservers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LbHealthCheck {
    /// HTTP `/readyz` (includes the etcd check): the default.
    Readyz,
    /// A plain TCP connect: keeps routing to an apiserver whose etcd lost quorum.
    Tcp,
}

/// The tunables of the simulation, with the defaults of `docs/k8s-ha-facts.md`.
///
/// `explicit` remembers which settings the document set, so that serialisation writes back
/// only those (plus any that code changed away from the default) and a document does not
/// freeze today's defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub etcd_heartbeat_interval: Duration,
    pub etcd_election_timeout: Duration,
    pub etcd_pre_vote: bool,
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_period: Duration,
    pub node_lease_renew_interval: Duration,
    pub node_monitor_period: Duration,
    pub node_monitor_grace_period: Duration,
    /// `default-not-ready/unreachable-toleration-seconds`, as a duration.
    pub toleration_seconds: Duration,
    pub lb_health_check: LbHealthCheck,
    pub dns_cache_ttl: Duration,
    pub coredns_replicas: u32,
    /// One-way network latency.
    pub network_latency: Duration,
    /// The settings the document named (written back even when equal to the default).
    pub explicit: BTreeSet<SettingKey>,
}

/// The name of one setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SettingKey {
    EtcdHeartbeatInterval,
    EtcdElectionTimeout,
    EtcdPreVote,
    LeaseDuration,
    RenewDeadline,
    RetryPeriod,
    NodeLeaseRenewInterval,
    NodeMonitorPeriod,
    NodeMonitorGracePeriod,
    TolerationSeconds,
    LbHealthCheck,
    DnsCacheTtl,
    CorednsReplicas,
    NetworkLatency,
}

/// The value of one setting, for generic access ([`Settings::get`], [`Settings::set`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingValue {
    Duration(Duration),
    Bool(bool),
    LbHealthCheck(LbHealthCheck),
    Count(u32),
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
    EtcdMemberAdd {
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

/// A refused document: the field's path (`hosts[3].zone`, empty for the whole document) and
/// what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    /// `hosts[3].zone: unknown zone "rack-c"`; just the message when the path is empty
    /// (malformed JSON, a document over the size limit).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

type R<T> = Result<T, ScenarioError>;

fn fail<T>(path: impl Into<String>, message: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(path, message))
}

// ---------------------------------------------------------------------------------------------
// Names of enum values (the document's spelling)
// ---------------------------------------------------------------------------------------------

impl Role {
    pub const ALL: [Role; 8] = [
        Role::Etcd,
        Role::ControlPlane,
        Role::Apiserver,
        Role::ControllerManager,
        Role::Scheduler,
        Role::Worker,
        Role::LoadBalancer,
        Role::Client,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Role::Etcd => "etcd",
            Role::ControlPlane => "control-plane",
            Role::Apiserver => "apiserver",
            Role::ControllerManager => "controller-manager",
            Role::Scheduler => "scheduler",
            Role::Worker => "worker",
            Role::LoadBalancer => "load-balancer",
            Role::Client => "client",
        }
    }
    pub fn from_name(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }
}

impl WorkloadKind {
    pub const ALL: [WorkloadKind; 3] = [
        WorkloadKind::Deployment,
        WorkloadKind::StatefulSet,
        WorkloadKind::DaemonSet,
    ];
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
        }
    }
    pub fn from_name(s: &str) -> Option<WorkloadKind> {
        WorkloadKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

impl LbHealthCheck {
    pub fn name(self) -> &'static str {
        match self {
            LbHealthCheck::Readyz => "readyz",
            LbHealthCheck::Tcp => "tcp",
        }
    }
    pub fn from_name(s: &str) -> Option<LbHealthCheck> {
        match s {
            "readyz" => Some(LbHealthCheck::Readyz),
            "tcp" => Some(LbHealthCheck::Tcp),
            _ => None,
        }
    }
}

impl Component {
    pub const ALL: [Component; 7] = [
        Component::Coredns,
        Component::KubeProxy,
        Component::Kubelet,
        Component::Apiserver,
        Component::Etcd,
        Component::KubeControllerManager,
        Component::KubeScheduler,
    ];
    /// The canonical name, as written back.
    pub fn name(self) -> &'static str {
        match self {
            Component::Coredns => "coredns",
            Component::KubeProxy => "kube-proxy",
            Component::Kubelet => "kubelet",
            Component::Apiserver => "apiserver",
            Component::Etcd => "etcd",
            Component::KubeControllerManager => "kube-controller-manager",
            Component::KubeScheduler => "kube-scheduler",
        }
    }
    /// The canonical name, or one of the aliases people write (`kube-apiserver`, and the role
    /// names `controller-manager`, `scheduler`), which canonicalise to the names above.
    pub fn from_name(s: &str) -> Option<Component> {
        match s {
            "kube-apiserver" => Some(Component::Apiserver),
            "controller-manager" => Some(Component::KubeControllerManager),
            "scheduler" => Some(Component::KubeScheduler),
            _ => Component::ALL.into_iter().find(|c| c.name() == s),
        }
    }
}

impl SettingKey {
    /// In the order of the contract page, which is also the order they are written in.
    pub const ALL: [SettingKey; 14] = [
        SettingKey::EtcdHeartbeatInterval,
        SettingKey::EtcdElectionTimeout,
        SettingKey::EtcdPreVote,
        SettingKey::LeaseDuration,
        SettingKey::RenewDeadline,
        SettingKey::RetryPeriod,
        SettingKey::NodeLeaseRenewInterval,
        SettingKey::NodeMonitorPeriod,
        SettingKey::NodeMonitorGracePeriod,
        SettingKey::TolerationSeconds,
        SettingKey::LbHealthCheck,
        SettingKey::DnsCacheTtl,
        SettingKey::CorednsReplicas,
        SettingKey::NetworkLatency,
    ];
    pub fn name(self) -> &'static str {
        match self {
            SettingKey::EtcdHeartbeatInterval => "etcd_heartbeat_interval",
            SettingKey::EtcdElectionTimeout => "etcd_election_timeout",
            SettingKey::EtcdPreVote => "etcd_pre_vote",
            SettingKey::LeaseDuration => "lease_duration",
            SettingKey::RenewDeadline => "renew_deadline",
            SettingKey::RetryPeriod => "retry_period",
            SettingKey::NodeLeaseRenewInterval => "node_lease_renew_interval",
            SettingKey::NodeMonitorPeriod => "node_monitor_period",
            SettingKey::NodeMonitorGracePeriod => "node_monitor_grace_period",
            SettingKey::TolerationSeconds => "toleration_seconds",
            SettingKey::LbHealthCheck => "lb_health_check",
            SettingKey::DnsCacheTtl => "dns_cache_ttl",
            SettingKey::CorednsReplicas => "coredns_replicas",
            SettingKey::NetworkLatency => "network_latency",
        }
    }
    pub fn from_name(s: &str) -> Option<SettingKey> {
        SettingKey::ALL.into_iter().find(|k| k.name() == s)
    }
    /// The accepted range of a duration setting. Periodic timers must be positive (a zero
    /// period would spin forever); the others may be zero.
    fn duration_range(self) -> (Duration, Duration) {
        match self {
            SettingKey::TolerationSeconds => (Duration::ZERO, MAX_DURATION),
            SettingKey::DnsCacheTtl | SettingKey::NetworkLatency => {
                (Duration::ZERO, MAX_SETTING_DURATION)
            }
            _ => (MIN_PERIOD, MAX_SETTING_DURATION),
        }
    }
}

impl Action {
    /// The action's name in the document (`"partition_oneway"`).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Crash { .. } => "crash",
            Action::Restart { .. } => "restart",
            Action::Reboot { .. } => "reboot",
            Action::Partition { .. } => "partition",
            Action::Isolate { .. } => "isolate",
            Action::PartitionOneway { .. } => "partition_oneway",
            Action::Heal => "heal",
            Action::SpotInterrupt { .. } => "spot_interrupt",
            Action::Join { .. } => "join",
            Action::EtcdMemberAdd { .. } => "etcd_member_add",
            Action::EtcdMemberRemove { .. } => "etcd_member_remove",
            Action::EtcdForceNewCluster { .. } => "etcd_force_new_cluster",
            Action::DeletePod { .. } => "delete_pod",
            Action::Scale { .. } => "scale",
            Action::RestartComponent { .. } => "restart_component",
        }
    }

    /// The host named by the `host` field, for the actions that have one.
    pub fn host(&self) -> Option<&str> {
        match self {
            Action::Crash { host }
            | Action::Restart { host }
            | Action::Reboot { host, .. }
            | Action::Isolate { host }
            | Action::SpotInterrupt { host }
            | Action::Join { host }
            | Action::EtcdMemberAdd { host }
            | Action::EtcdMemberRemove { host }
            | Action::EtcdForceNewCluster { host }
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
                | Action::EtcdMemberRemove { .. }
                | Action::EtcdForceNewCluster { .. }
                | Action::DeletePod { .. }
                | Action::Scale { .. }
        )
    }
}

/// The fields each action takes besides `at` and `action`, or `None` for an unknown action.
/// This is the list to extend when the format gains an action or an optional field.
fn action_fields(action: &str) -> Option<&'static [&'static str]> {
    Some(match action {
        "crash"
        | "restart"
        | "isolate"
        | "spot_interrupt"
        | "join"
        | "etcd_member_add"
        | "etcd_member_remove"
        | "etcd_force_new_cluster" => &["host"],
        "reboot" => &["host", "downtime"],
        "partition" => &["groups"],
        "partition_oneway" => &["from", "to"],
        "heal" => &[],
        "delete_pod" => &["pod", "force"],
        "scale" => &["workload", "replicas"],
        "restart_component" => &["host", "component"],
        _ => return None,
    })
}

/// Known fields of each object, in the order they are written back. Unknown fields are an
/// error (typos must not pass silently); a new optional field of the format goes here.
const SCENARIO_FIELDS: &[&str] = &[
    "version",
    "name",
    "description",
    "seed",
    "duration",
    "zones",
    "hosts",
    "workloads",
    "settings",
    "events",
];
const HOST_FIELDS: &[&str] = &["name", "zone", "roles", "spot", "standby"];
const WORKLOAD_FIELDS: &[&str] = &["kind", "name", "replicas", "service"];

/// Default `downtime` of a `reboot`.
/// A spot instance is terminated this long after its interruption notice (AWS: 2 minutes).
pub const SPOT_NOTICE: Duration = Duration::from_secs(120);

pub const DEFAULT_REBOOT_DOWNTIME: Duration = Duration::from_secs(30);
/// Default `seed`.
pub const DEFAULT_SEED: u64 = 1;

// ---------------------------------------------------------------------------------------------
// Defaults and queries
// ---------------------------------------------------------------------------------------------

impl Default for Settings {
    /// The defaults of `docs/k8s-ha-facts.md`.
    fn default() -> Self {
        Settings {
            etcd_heartbeat_interval: Duration::from_millis(100),
            etcd_election_timeout: Duration::from_millis(1000),
            etcd_pre_vote: true,
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            node_lease_renew_interval: Duration::from_secs(10),
            node_monitor_period: Duration::from_secs(5),
            node_monitor_grace_period: Duration::from_secs(50),
            toleration_seconds: Duration::from_secs(300),
            lb_health_check: LbHealthCheck::Readyz,
            dns_cache_ttl: Duration::from_secs(5),
            coredns_replicas: 2,
            network_latency: Duration::from_millis(1),
            explicit: BTreeSet::new(),
        }
    }
}

impl Settings {
    /// The current value of one setting.
    pub fn get(&self, key: SettingKey) -> SettingValue {
        use SettingValue as V;
        match key {
            SettingKey::EtcdHeartbeatInterval => V::Duration(self.etcd_heartbeat_interval),
            SettingKey::EtcdElectionTimeout => V::Duration(self.etcd_election_timeout),
            SettingKey::EtcdPreVote => V::Bool(self.etcd_pre_vote),
            SettingKey::LeaseDuration => V::Duration(self.lease_duration),
            SettingKey::RenewDeadline => V::Duration(self.renew_deadline),
            SettingKey::RetryPeriod => V::Duration(self.retry_period),
            SettingKey::NodeLeaseRenewInterval => V::Duration(self.node_lease_renew_interval),
            SettingKey::NodeMonitorPeriod => V::Duration(self.node_monitor_period),
            SettingKey::NodeMonitorGracePeriod => V::Duration(self.node_monitor_grace_period),
            SettingKey::TolerationSeconds => V::Duration(self.toleration_seconds),
            SettingKey::LbHealthCheck => V::LbHealthCheck(self.lb_health_check),
            SettingKey::DnsCacheTtl => V::Duration(self.dns_cache_ttl),
            SettingKey::CorednsReplicas => V::Count(self.coredns_replicas),
            SettingKey::NetworkLatency => V::Duration(self.network_latency),
        }
    }

    /// Sets one setting and marks it explicit. Returns false (and changes nothing) when the
    /// value has the wrong type for the key. Ranges are checked by [`Scenario::validate`].
    pub fn set(&mut self, key: SettingKey, value: SettingValue) -> bool {
        use SettingValue as V;
        let slot_ok = match (key, value) {
            (SettingKey::EtcdPreVote, V::Bool(b)) => {
                self.etcd_pre_vote = b;
                true
            }
            (SettingKey::LbHealthCheck, V::LbHealthCheck(c)) => {
                self.lb_health_check = c;
                true
            }
            (SettingKey::CorednsReplicas, V::Count(n)) => {
                self.coredns_replicas = n;
                true
            }
            (k, V::Duration(d)) => match self.duration_slot(k) {
                Some(slot) => {
                    *slot = d;
                    true
                }
                None => false,
            },
            _ => false,
        };
        if slot_ok {
            self.explicit.insert(key);
        }
        slot_ok
    }

    fn duration_slot(&mut self, key: SettingKey) -> Option<&mut Duration> {
        Some(match key {
            SettingKey::EtcdHeartbeatInterval => &mut self.etcd_heartbeat_interval,
            SettingKey::EtcdElectionTimeout => &mut self.etcd_election_timeout,
            SettingKey::LeaseDuration => &mut self.lease_duration,
            SettingKey::RenewDeadline => &mut self.renew_deadline,
            SettingKey::RetryPeriod => &mut self.retry_period,
            SettingKey::NodeLeaseRenewInterval => &mut self.node_lease_renew_interval,
            SettingKey::NodeMonitorPeriod => &mut self.node_monitor_period,
            SettingKey::NodeMonitorGracePeriod => &mut self.node_monitor_grace_period,
            SettingKey::TolerationSeconds => &mut self.toleration_seconds,
            SettingKey::DnsCacheTtl => &mut self.dns_cache_ttl,
            SettingKey::NetworkLatency => &mut self.network_latency,
            SettingKey::EtcdPreVote | SettingKey::LbHealthCheck | SettingKey::CorednsReplicas => {
                return None
            }
        })
    }

    /// Whether serialisation writes this setting: the document named it, or code changed it
    /// away from the default without going through [`Settings::set`].
    pub fn is_written(&self, key: SettingKey) -> bool {
        self.explicit.contains(&key) || self.get(key) != Settings::default().get(key)
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
        v.sort_by_key(|(i, e)| (e.at, *i));
        v
    }

    /// Indices of the hosts whose etcd members form the initial cluster (etcd role, not standby).
    pub fn initial_etcd_members(&self) -> Vec<usize> {
        (0..self.hosts.len())
            .filter(|&i| self.hosts[i].runs_etcd() && !self.hosts[i].standby)
            .collect()
    }

    /// Pods desired at t = 0: replicas, DaemonSet pods on every Node (standby hosts included,
    /// as an upper bound) and CoreDNS. This is what [`MAX_PODS`] bounds.
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
        nodes * daemonsets
    }
}

// ---------------------------------------------------------------------------------------------
// The JSON tree: like serde_json::Value, but objects keep their key order and duplicated keys,
// so "duplicate field" can be reported and output order does not depend on serde_json features.
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum J {
    Null,
    Bool(bool),
    U(u64),
    I(i64),
    F(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    /// "found ..." in a type error. Values are not echoed: they may be huge.
    fn found(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::U(_) => "a number",
            J::I(_) => "a negative number",
            J::F(_) => "a fractional number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
    fn obj(fields: Vec<(&str, J)>) -> J {
        J::Obj(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }
    fn str(s: &str) -> J {
        J::Str(s.to_string())
    }
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<J, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = J;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<J, E> {
                Ok(J::Null)
            }
            fn visit_none<E>(self) -> Result<J, E> {
                Ok(J::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
                J::deserialize(d)
            }
            fn visit_bool<E>(self, b: bool) -> Result<J, E> {
                Ok(J::Bool(b))
            }
            fn visit_u64<E>(self, n: u64) -> Result<J, E> {
                Ok(J::U(n))
            }
            fn visit_i64<E>(self, n: i64) -> Result<J, E> {
                Ok(if n >= 0 { J::U(n as u64) } else { J::I(n) })
            }
            fn visit_f64<E>(self, n: f64) -> Result<J, E> {
                Ok(J::F(n))
            }
            fn visit_str<E>(self, s: &str) -> Result<J, E> {
                Ok(J::Str(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<J, E> {
                Ok(J::Str(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element::<J>()? {
                    v.push(x);
                }
                Ok(J::Arr(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
                let mut v = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    let x = map.next_value::<J>()?;
                    v.push((k, x));
                }
                Ok(J::Obj(v))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Null => s.serialize_unit(),
            J::Bool(b) => s.serialize_bool(*b),
            J::U(n) => s.serialize_u64(*n),
            J::I(n) => s.serialize_i64(*n),
            J::F(n) => s.serialize_f64(*n),
            J::Str(x) => s.serialize_str(x),
            J::Arr(v) => {
                let mut seq = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            J::Obj(v) => {
                let mut map = s.serialize_map(Some(v.len()))?;
                for (k, x) in v {
                    map.serialize_entry(k, x)?;
                }
                map.end()
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Paths and quoting in messages
// ---------------------------------------------------------------------------------------------

/// A user string inside a message: JSON-quoted (so control characters and quotes are escaped)
/// and cut to 40 characters, so a hostile 10k-character name gives a one-line message.
fn quote(s: &str) -> String {
    const MAX: usize = 40;
    let mut t: String = s.chars().take(MAX).collect();
    if s.chars().nth(MAX).is_some() {
        t.push('…');
    }
    serde_json::to_string(&t).unwrap_or_default()
}

/// `parent.key`, or `parent["odd key"]` when the key is not a plain identifier.
fn key_path(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key.len() <= 64
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    match (parent.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{parent}.{key}"),
        (_, false) => format!("{parent}[{}]", quote(key)),
    }
}

fn index_path(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

// ---------------------------------------------------------------------------------------------
// Walking the tree: typed access with path-naming errors
// ---------------------------------------------------------------------------------------------

/// An object being read: duplicates are refused up front, fields are looked up by name.
struct Obj<'a> {
    path: String,
    items: &'a [(String, J)],
}

impl<'a> Obj<'a> {
    /// `what` names the expected object in the type error ("a host object").
    fn new(j: &'a J, path: &str, what: &str) -> R<Obj<'a>> {
        let J::Obj(items) = j else {
            return fail(path, format!("expected {what}, found {}", j.found()));
        };
        let mut seen = BTreeSet::new();
        for (k, _) in items {
            if !seen.insert(k.as_str()) {
                return fail(key_path(path, k), "duplicate field");
            }
        }
        Ok(Obj {
            path: path.to_string(),
            items,
        })
    }

    /// Refuses fields outside `known`.
    fn only(&self, known: &[&str], context: &str) -> R<()> {
        for (k, _) in self.items {
            if !known.contains(&k.as_str()) {
                let list = if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
                return fail(
                    self.at(k),
                    format!("unknown field{context} (known: {list})"),
                );
            }
        }
        Ok(())
    }

    fn get(&self, key: &str) -> Option<&'a J> {
        self.items.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn req(&self, key: &str) -> R<&'a J> {
        self.get(key)
            .ok_or_else(|| ScenarioError::new(self.at(key), "missing required field"))
    }

    fn at(&self, key: &str) -> String {
        key_path(&self.path, key)
    }
}

fn as_str<'a>(j: &'a J, path: &str, what: &str) -> R<&'a str> {
    match j {
        J::Str(s) => Ok(s),
        _ => fail(path, format!("expected {what}, found {}", j.found())),
    }
}

fn as_string(j: &J, path: &str) -> R<String> {
    as_str(j, path, "a string").map(str::to_string)
}

fn as_bool(j: &J, path: &str) -> R<bool> {
    match j {
        J::Bool(b) => Ok(*b),
        _ => fail(path, format!("expected true or false, found {}", j.found())),
    }
}

fn as_u64(j: &J, path: &str) -> R<u64> {
    match j {
        J::U(n) => Ok(*n),
        _ => fail(
            path,
            format!("expected a whole number ≥ 0, found {}", j.found()),
        ),
    }
}

fn as_u32(j: &J, path: &str) -> R<u32> {
    let n = as_u64(j, path)?;
    u32::try_from(n).map_err(|_| ScenarioError::new(path, format!("{n} is too large")))
}

fn as_arr<'a>(j: &'a J, path: &str, what: &str) -> R<&'a [J]> {
    match j {
        J::Arr(v) => Ok(v),
        _ => fail(path, format!("expected {what}, found {}", j.found())),
    }
}

/// An array, refused beyond `max` entries before any entry is read.
fn as_bounded_arr<'a>(j: &'a J, path: &str, what: &str, max: usize, noun: &str) -> R<&'a [J]> {
    let v = as_arr(j, path, what)?;
    check_count(path, v.len(), max, noun)?;
    Ok(v)
}

fn check_count(path: &str, n: usize, max: usize, noun: &str) -> R<()> {
    if n > max {
        return fail(path, format!("{n} {noun} exceed the limit of {max}"));
    }
    Ok(())
}

/// A Go-form duration string (`"1h30m"`); `parse_duration` refuses negatives, missing units
/// and absurd sizes. Its messages quote the input, so odd inputs are refused before it.
fn as_duration(j: &J, path: &str) -> R<Duration> {
    let s = as_str(j, path, "a duration string like \"40s\"")?;
    if s.chars().count() > 64 || s.chars().any(char::is_control) {
        return fail(path, format!("invalid duration {}", quote(s)));
    }
    parse_duration(s).map_err(|m| ScenarioError::new(path, m))
}

/// A list of names: a string (one name) or a non-empty array of strings.
fn as_names(j: &J, path: &str) -> R<Vec<String>> {
    match j {
        J::Str(s) => Ok(vec![s.clone()]),
        J::Arr(v) => {
            check_count(path, v.len(), MAX_HOSTS + MAX_ZONES, "names")?;
            if v.is_empty() {
                return fail(path, "must name at least one zone or host");
            }
            v.iter()
                .enumerate()
                .map(|(i, x)| as_string(x, &index_path(path, i)))
                .collect()
        }
        _ => fail(
            path,
            format!(
                "expected a zone or host name, or an array of them, found {}",
                j.found()
            ),
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// Parses and validates a scenario document.
pub fn parse(json: &str) -> Result<Scenario, ScenarioError> {
    // Editors on some systems save a byte-order mark; it is not an error worth a message.
    let json = json.strip_prefix('\u{feff}').unwrap_or(json);
    if json.len() > MAX_INPUT_BYTES {
        return fail(
            "",
            format!(
                "the document is {} bytes; the limit is {MAX_INPUT_BYTES}",
                json.len()
            ),
        );
    }
    let tree: J = serde_json::from_str(json)
        .map_err(|e| ScenarioError::new("", format!("invalid JSON: {e}")))?;
    let scenario = from_tree(&tree)?;
    scenario.validate()?;
    Ok(scenario)
}

fn from_tree(tree: &J) -> R<Scenario> {
    let o = Obj::new(tree, "", "a JSON object (the scenario)")?;
    // The version first: a document of a later format is reported as such, not as a list of
    // unknown fields.
    let version_j = o.req("version")?;
    let version = match version_j {
        J::U(n) => *n,
        _ => {
            return fail(
                "version",
                format!("expected the number 1, found {}", version_j.found()),
            )
        }
    };
    if version != VERSION as u64 {
        return fail("version", unsupported_version(version));
    }
    o.only(SCENARIO_FIELDS, "")?;

    let name = as_string(o.req("name")?, "name")?;
    let description = match o.get("description") {
        None => None,
        Some(j) => Some(as_string(j, "description")?),
    };
    let seed = match o.get("seed") {
        None => DEFAULT_SEED,
        Some(j) => as_u64(j, "seed")?,
    };
    let duration = as_duration(o.req("duration")?, "duration")?;

    let zones = match o.get("zones") {
        None => Vec::new(),
        Some(j) => as_bounded_arr(j, "zones", "an array of zone names", MAX_ZONES, "zones")?
            .iter()
            .enumerate()
            .map(|(i, z)| as_string(z, &index_path("zones", i)))
            .collect::<R<_>>()?,
    };

    let hosts = as_bounded_arr(
        o.req("hosts")?,
        "hosts",
        "an array of hosts",
        MAX_HOSTS,
        "hosts",
    )?
    .iter()
    .enumerate()
    .map(|(i, h)| host_from(h, &index_path("hosts", i)))
    .collect::<R<_>>()?;

    let workloads = match o.get("workloads") {
        None => Vec::new(),
        Some(j) => as_bounded_arr(
            j,
            "workloads",
            "an array of workloads",
            MAX_WORKLOADS,
            "workloads",
        )?
        .iter()
        .enumerate()
        .map(|(i, w)| workload_from(w, &index_path("workloads", i)))
        .collect::<R<_>>()?,
    };

    let settings = match o.get("settings") {
        None => Settings::default(),
        Some(j) => settings_from(j, "settings")?,
    };

    let events = match o.get("events") {
        None => Vec::new(),
        Some(j) => as_bounded_arr(j, "events", "an array of events", MAX_EVENTS, "events")?
            .iter()
            .enumerate()
            .map(|(i, e)| event_from(e, &index_path("events", i)))
            .collect::<R<_>>()?,
    };

    Ok(Scenario {
        version: version as u32,
        name,
        description,
        seed,
        duration,
        zones,
        hosts,
        workloads,
        settings,
        events,
    })
}

fn unsupported_version(v: u64) -> String {
    format!("unsupported version {v}; this program reads version {VERSION}")
}

fn host_from(j: &J, path: &str) -> R<Host> {
    let o = Obj::new(j, path, "a host object")?;
    o.only(HOST_FIELDS, "")?;
    let name = as_string(o.req("name")?, &o.at("name"))?;
    let zone = match o.get("zone") {
        None => DEFAULT_ZONE.to_string(),
        Some(z) => as_string(z, &o.at("zone"))?,
    };
    let roles_path = o.at("roles");
    let mut roles = Vec::new();
    // At most one of each role, so anything longer is refused as a duplicate below.
    for (i, r) in as_arr(o.req("roles")?, &roles_path, "an array of role names")?
        .iter()
        .enumerate()
    {
        let p = index_path(&roles_path, i);
        let s = as_str(r, &p, "a role name")?;
        match Role::from_name(s) {
            Some(role) if roles.contains(&role) => {
                return fail(p, format!("duplicate role {}", quote(s)))
            }
            Some(role) => roles.push(role),
            None => {
                let known: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
                return fail(
                    p,
                    format!("unknown role {} (known: {})", quote(s), known.join(", ")),
                );
            }
        }
    }
    let spot = match o.get("spot") {
        None => false,
        Some(b) => as_bool(b, &o.at("spot"))?,
    };
    let standby = match o.get("standby") {
        None => false,
        Some(b) => as_bool(b, &o.at("standby"))?,
    };
    Ok(Host {
        name,
        zone,
        roles,
        spot,
        standby,
    })
}

fn workload_from(j: &J, path: &str) -> R<Workload> {
    let o = Obj::new(j, path, "a workload object")?;
    o.only(WORKLOAD_FIELDS, "")?;
    let kind_path = o.at("kind");
    let kind_s = as_str(o.req("kind")?, &kind_path, "a workload kind")?;
    let kind = WorkloadKind::from_name(kind_s).ok_or_else(|| {
        ScenarioError::new(
            &kind_path,
            format!(
                "unknown kind {} (known: Deployment, StatefulSet, DaemonSet)",
                quote(kind_s)
            ),
        )
    })?;
    let name = as_string(o.req("name")?, &o.at("name"))?;
    let replicas = match o.get("replicas") {
        None => None,
        Some(n) => Some(as_u32(n, &o.at("replicas"))?),
    };
    let service = match o.get("service") {
        None => false,
        Some(b) => as_bool(b, &o.at("service"))?,
    };
    Ok(Workload {
        kind,
        name,
        replicas,
        service,
    })
}

fn settings_from(j: &J, path: &str) -> R<Settings> {
    let o = Obj::new(j, path, "an object of settings")?;
    let mut s = Settings::default();
    for (k, v) in o.items {
        let p = o.at(k);
        let Some(key) = SettingKey::from_name(k) else {
            return fail(p, "unknown setting");
        };
        let value = match key {
            SettingKey::EtcdPreVote => SettingValue::Bool(as_bool(v, &p)?),
            SettingKey::CorednsReplicas => SettingValue::Count(as_u32(v, &p)?),
            SettingKey::LbHealthCheck => {
                let name = as_str(v, &p, "\"readyz\" or \"tcp\"")?;
                match LbHealthCheck::from_name(name) {
                    Some(c) => SettingValue::LbHealthCheck(c),
                    None => {
                        return fail(
                            p,
                            format!("unknown health check {} (known: readyz, tcp)", quote(name)),
                        )
                    }
                }
            }
            // The Kubernetes flag is an integer number of seconds; accept that form too.
            SettingKey::TolerationSeconds => match v {
                J::U(n) if *n <= MAX_DURATION.as_micros() / 1_000_000 => {
                    SettingValue::Duration(Duration::from_secs(*n))
                }
                J::U(n) => {
                    return fail(p, format!("{n}s exceeds the limit of {MAX_DURATION}"));
                }
                _ => SettingValue::Duration(as_duration(v, &p)?),
            },
            _ => SettingValue::Duration(as_duration(v, &p)?),
        };
        s.set(key, value);
    }
    Ok(s)
}

fn event_from(j: &J, path: &str) -> R<Event> {
    let o = Obj::new(j, path, "an event object")?;
    let action_path = o.at("action");
    let name = as_str(o.req("action")?, &action_path, "an action name")?;
    let Some(fields) = action_fields(name) else {
        return fail(action_path, format!("unknown action {}", quote(name)));
    };
    let mut known = vec!["at", "action"];
    known.extend_from_slice(fields);
    o.only(&known, &format!(" for action {}", quote(name)))?;
    let at = as_duration(o.req("at")?, &o.at("at"))?;

    let host = || -> R<String> { as_string(o.req("host")?, &o.at("host")) };
    let action = match name {
        "crash" => Action::Crash { host: host()? },
        "restart" => Action::Restart { host: host()? },
        "reboot" => Action::Reboot {
            host: host()?,
            downtime: match o.get("downtime") {
                None => DEFAULT_REBOOT_DOWNTIME,
                Some(d) => as_duration(d, &o.at("downtime"))?,
            },
        },
        "partition" => {
            let gpath = o.at("groups");
            let groups = as_arr(
                o.req("groups")?,
                &gpath,
                "an array of groups (arrays of names)",
            )?;
            check_count(&gpath, groups.len(), MAX_HOSTS + MAX_ZONES, "groups")?;
            let mut out = Vec::with_capacity(groups.len());
            for (gi, g) in groups.iter().enumerate() {
                let gp = index_path(&gpath, gi);
                let names = as_arr(g, &gp, "an array of zone or host names")?;
                check_count(&gp, names.len(), MAX_HOSTS + MAX_ZONES, "names")?;
                let group = names
                    .iter()
                    .enumerate()
                    .map(|(ni, n)| as_string(n, &index_path(&gp, ni)))
                    .collect::<R<Vec<_>>>()?;
                out.push(group);
            }
            Action::Partition { groups: out }
        }
        "isolate" => Action::Isolate { host: host()? },
        "partition_oneway" => Action::PartitionOneway {
            from: as_names(o.req("from")?, &o.at("from"))?,
            to: as_names(o.req("to")?, &o.at("to"))?,
        },
        "heal" => Action::Heal,
        "spot_interrupt" => Action::SpotInterrupt { host: host()? },
        "join" => Action::Join { host: host()? },
        "etcd_member_add" => Action::EtcdMemberAdd { host: host()? },
        "etcd_member_remove" => Action::EtcdMemberRemove { host: host()? },
        "etcd_force_new_cluster" => Action::EtcdForceNewCluster { host: host()? },
        "delete_pod" => Action::DeletePod {
            pod: as_string(o.req("pod")?, &o.at("pod"))?,
            force: match o.get("force") {
                None => false,
                Some(b) => as_bool(b, &o.at("force"))?,
            },
        },
        "scale" => Action::Scale {
            workload: as_string(o.req("workload")?, &o.at("workload"))?,
            replicas: as_u32(o.req("replicas")?, &o.at("replicas"))?,
        },
        "restart_component" => {
            let host = host()?;
            let cpath = o.at("component");
            let c = as_str(o.req("component")?, &cpath, "a component name")?;
            let component = Component::from_name(c).ok_or_else(|| {
                let known: Vec<&str> = Component::ALL.iter().map(|c| c.name()).collect();
                ScenarioError::new(
                    &cpath,
                    format!(
                        "unknown component {} (known: {})",
                        quote(c),
                        known.join(", ")
                    ),
                )
            })?;
            Action::RestartComponent { host, component }
        }
        // action_fields() above knows exactly the names matched here.
        _ => return fail(action_path, format!("unknown action {}", quote(name))),
    };
    Ok(Event { at, action })
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/// A DNS-label-like name: lowercase letters, digits and '-', starting and ending with a letter
/// or digit, 1 to `max` characters.
fn check_label(path: &str, what: &str, s: &str, max: usize) -> R<()> {
    let n = s.chars().count();
    if n == 0 {
        return fail(path, format!("{what} must not be empty"));
    }
    if n > max {
        return fail(
            path,
            format!("{what} is {n} characters long; the limit is {max}"),
        );
    }
    let b = s.as_bytes();
    let ok = b
        .iter()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-';
    if !ok {
        return fail(
            path,
            format!(
                "invalid {what} {}: use lowercase letters, digits and '-', starting and ending \
                 with a letter or digit (like a DNS label)",
                quote(s)
            ),
        );
    }
    Ok(())
}

/// Free text: bounded, and without control characters (but line breaks and tabs where the
/// text may span lines).
fn check_text(path: &str, s: &str, max: usize, multiline: bool) -> R<()> {
    let n = s.chars().count();
    if n > max {
        return fail(path, format!("{n} characters; the limit is {max}"));
    }
    if s.chars()
        .any(|c| c.is_control() && !(multiline && matches!(c, '\n' | '\t' | '\r')))
    {
        return fail(path, "must not contain control characters");
    }
    Ok(())
}

impl Scenario {
    /// Every semantic check of the format. [`parse`] runs it; run it after building or editing a
    /// scenario in code. Errors name the field as the JSON document would (`events[2].host`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.version != VERSION {
            return fail("version", unsupported_version(self.version as u64));
        }
        if self.name.trim().is_empty() {
            return fail("name", "must not be empty");
        }
        check_text("name", &self.name, MAX_NAME_LEN, false)?;
        if let Some(d) = &self.description {
            check_text("description", d, MAX_DESCRIPTION_LEN, true)?;
        }
        if self.duration > MAX_DURATION {
            return fail(
                "duration",
                format!(
                    "{} exceeds the limit of {MAX_DURATION} (7 days)",
                    self.duration
                ),
            );
        }

        // Zones.
        check_count("zones", self.zones.len(), MAX_ZONES, "zones")?;
        let mut zones: BTreeSet<&str> = BTreeSet::new();
        for (i, z) in self.zones.iter().enumerate() {
            let p = index_path("zones", i);
            check_label(&p, "zone name", z, MAX_LABEL_LEN)?;
            if !zones.insert(z) {
                return fail(p, format!("duplicate zone {}", quote(z)));
            }
        }
        zones.insert(DEFAULT_ZONE);

        // Hosts.
        check_count("hosts", self.hosts.len(), MAX_HOSTS, "hosts")?;
        if self.hosts.is_empty() {
            return fail("hosts", "a scenario needs at least one host");
        }
        let mut hosts: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, h) in self.hosts.iter().enumerate() {
            let p = index_path("hosts", i);
            let np = format!("{p}.name");
            check_label(&np, "host name", &h.name, MAX_LABEL_LEN)?;
            if hosts.insert(&h.name, i).is_some() {
                return fail(np, format!("duplicate host name {}", quote(&h.name)));
            }
            // Partition groups name zones and hosts alike, so one name must not mean both.
            if zones.contains(h.name.as_str()) {
                return fail(
                    np,
                    format!(
                        "{} is also a zone name; partitions name hosts and zones alike",
                        quote(&h.name)
                    ),
                );
            }
            if !zones.contains(h.zone.as_str()) {
                return fail(
                    format!("{p}.zone"),
                    format!("unknown zone {}", quote(&h.zone)),
                );
            }
            let rp = format!("{p}.roles");
            if h.roles.is_empty() {
                return fail(rp, "a host needs at least one role");
            }
            for (ri, r) in h.roles.iter().enumerate() {
                if h.roles[..ri].contains(r) {
                    return fail(
                        index_path(&rp, ri),
                        format!("duplicate role \"{}\"", r.name()),
                    );
                }
            }
        }
        // t = 0 is a running cluster: etcd must have a leader, so at least one initial member.
        if self.initial_etcd_members().is_empty() {
            return fail(
                "hosts",
                "no host runs etcd (outside standby hosts); the cluster needs at least one etcd member",
            );
        }

        // Workloads.
        check_count(
            "workloads",
            self.workloads.len(),
            MAX_WORKLOADS,
            "workloads",
        )?;
        let mut workloads: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, w) in self.workloads.iter().enumerate() {
            let p = index_path("workloads", i);
            let np = format!("{p}.name");
            check_label(&np, "workload name", &w.name, MAX_LABEL_LEN)?;
            if w.name == COREDNS {
                return fail(np, "\"coredns\" is reserved for cluster DNS");
            }
            if workloads.insert(&w.name, i).is_some() {
                return fail(np, format!("duplicate workload name {}", quote(&w.name)));
            }
            // A Service name is an RFC 1035 label: it must start with a letter.
            if w.service && !w.name.starts_with(|c: char| c.is_ascii_lowercase()) {
                return fail(
                    np,
                    format!(
                        "{} cannot name a Service: it must start with a letter",
                        quote(&w.name)
                    ),
                );
            }
            let rp = format!("{p}.replicas");
            match (w.kind, w.replicas) {
                (WorkloadKind::DaemonSet, Some(_)) => {
                    return fail(
                        rp,
                        "a DaemonSet has no replicas: it runs one pod on every node",
                    )
                }
                (WorkloadKind::DaemonSet, None) => {}
                (kind, None) => {
                    return fail(
                        rp,
                        format!("missing required field (a {} needs replicas)", kind.name()),
                    )
                }
                (_, Some(n)) if n > MAX_PODS => {
                    return fail(rp, format!("{n} exceeds the limit of {MAX_PODS} pods"))
                }
                (_, Some(_)) => {}
            }
        }

        self.validate_settings()?;

        let pods = self.pod_count();
        if pods > MAX_PODS as u64 {
            return fail("workloads", too_many_pods(pods));
        }

        self.validate_events(&zones, &hosts, &workloads)
    }

    fn validate_settings(&self) -> R<()> {
        let s = &self.settings;
        let path = |k: SettingKey| format!("settings.{}", k.name());
        for key in SettingKey::ALL {
            if let SettingValue::Duration(d) = s.get(key) {
                let (min, max) = key.duration_range();
                if d < min {
                    return fail(path(key), format!("must be at least {min} (found {d})"));
                }
                if d > max {
                    return fail(path(key), format!("must be at most {max} (found {d})"));
                }
            }
        }
        if s.coredns_replicas > MAX_PODS {
            return fail(
                path(SettingKey::CorednsReplicas),
                format!(
                    "{} exceeds the limit of {MAX_PODS} pods",
                    s.coredns_replicas
                ),
            );
        }
        // client-go refuses these combinations (leaderelection.NewLeaderElector): the leader
        // must give up before others may take over, and retries must fit in the deadline.
        // The message names the setting the document changed.
        if s.renew_deadline >= s.lease_duration {
            return fail(
                if s.explicit.contains(&SettingKey::RenewDeadline) {
                    path(SettingKey::RenewDeadline)
                } else {
                    path(SettingKey::LeaseDuration)
                },
                format!(
                    "renew_deadline ({}) must be shorter than lease_duration ({})",
                    s.renew_deadline, s.lease_duration
                ),
            );
        }
        // renew_deadline > 1.2 × retry_period (client-go's JitterFactor), in integers.
        if s.renew_deadline.as_micros() * 5 <= s.retry_period.as_micros() * 6 {
            return fail(
                if s.explicit.contains(&SettingKey::RetryPeriod) {
                    path(SettingKey::RetryPeriod)
                } else {
                    path(SettingKey::RenewDeadline)
                },
                format!(
                    "renew_deadline ({}) must be longer than 1.2 × retry_period ({})",
                    s.renew_deadline, s.retry_period
                ),
            );
        }
        Ok(())
    }

    fn validate_events(
        &self,
        zones: &BTreeSet<&str>,
        hosts: &BTreeMap<&str, usize>,
        workloads: &BTreeMap<&str, usize>,
    ) -> R<()> {
        check_count("events", self.events.len(), MAX_EVENTS, "events")?;
        let exists = |n: &str| hosts.contains_key(n) || zones.contains(n);

        // First, what each event says on its own, in list order.
        for (i, ev) in self.events.iter().enumerate() {
            let p = index_path("events", i);
            let at = |f: &str| format!("{p}.{f}");
            if ev.at > self.duration {
                return fail(
                    at("at"),
                    format!(
                        "{} is after the end of the scenario (duration {})",
                        ev.at, self.duration
                    ),
                );
            }
            let host = match ev.action.host() {
                None => None,
                Some(name) => match hosts.get(name) {
                    Some(&hi) => Some(&self.hosts[hi]),
                    None => return fail(at("host"), format!("unknown host {}", quote(name))),
                },
            };
            let hq = host.map(|h| quote(&h.name)).unwrap_or_default();
            match &ev.action {
                Action::Reboot { downtime, .. } if *downtime > MAX_DURATION => {
                    return fail(
                        at("downtime"),
                        format!("{downtime} exceeds the limit of {MAX_DURATION}"),
                    );
                }
                Action::Partition { groups } => {
                    let gp = at("groups");
                    if groups.is_empty() {
                        return fail(gp, "a partition needs at least one group");
                    }
                    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
                    for (gi, g) in groups.iter().enumerate() {
                        let gpi = index_path(&gp, gi);
                        if g.is_empty() {
                            return fail(gpi, "empty group");
                        }
                        for (ni, n) in g.iter().enumerate() {
                            let np = index_path(&gpi, ni);
                            if !exists(n) {
                                return fail(np, format!("unknown host or zone {}", quote(n)));
                            }
                            if let Some(prev) = seen.insert(n, gi) {
                                return fail(
                                    np,
                                    format!("{} is already in group {prev}", quote(n)),
                                );
                            }
                        }
                    }
                }
                Action::PartitionOneway { from, to } => {
                    for (field, names) in [("from", from), ("to", to)] {
                        if names.is_empty() {
                            return fail(at(field), "must name at least one zone or host");
                        }
                        for (ni, n) in names.iter().enumerate() {
                            let np = if names.len() == 1 {
                                at(field)
                            } else {
                                index_path(&at(field), ni)
                            };
                            if !exists(n) {
                                return fail(np, format!("unknown host or zone {}", quote(n)));
                            }
                            if field == "to" && from.contains(n) {
                                return fail(np, format!("{} is on both sides", quote(n)));
                            }
                        }
                    }
                }
                Action::SpotInterrupt { .. } if host.is_some_and(|h| !h.spot) => {
                    return fail(
                        at("host"),
                        format!("host {hq} is not a spot host (it needs \"spot\": true)"),
                    );
                }
                Action::Join { .. } if host.is_some_and(|h| !h.standby) => {
                    return fail(
                        at("host"),
                        format!(
                            "host {hq} is not a standby host; only hosts with \"standby\": true can join"
                        ),
                    );
                }
                Action::EtcdMemberAdd { .. }
                | Action::EtcdMemberRemove { .. }
                | Action::EtcdForceNewCluster { .. }
                    if host.is_some_and(|h| !h.runs_etcd()) =>
                {
                    return fail(at("host"), format!("host {hq} does not have the etcd role"));
                }
                Action::RestartComponent { component, .. }
                    if host.is_some_and(|h| !h.can_run(*component)) =>
                {
                    return fail(
                        at("component"),
                        format!("host {hq} does not run {}", component.name()),
                    );
                }
                Action::DeletePod { pod, .. } => {
                    let pp = at("pod");
                    check_label(&pp, "pod name", pod, MAX_POD_NAME_LEN)?;
                    // Pods are named after their workload (`web-7d4b9-x2x`, `db-0`).
                    let owned = workloads.keys().copied().chain([COREDNS]).any(|w| {
                        pod.len() > w.len() + 1
                            && pod.starts_with(w)
                            && pod.as_bytes()[w.len()] == b'-'
                    });
                    if !owned {
                        return fail(
                            pp,
                            format!(
                                "pod {} belongs to no workload (a pod's name starts with its workload's name and '-')",
                                quote(pod)
                            ),
                        );
                    }
                }
                Action::Scale { workload, replicas } => {
                    let wp = at("workload");
                    if workload != COREDNS {
                        let Some(&wi) = workloads.get(workload.as_str()) else {
                            return fail(wp, format!("unknown workload {}", quote(workload)));
                        };
                        if self.workloads[wi].kind == WorkloadKind::DaemonSet {
                            return fail(
                                wp,
                                format!(
                                    "{} is a DaemonSet: it runs one pod on every node and has no replicas to scale",
                                    quote(workload)
                                ),
                            );
                        }
                    }
                    if *replicas > MAX_PODS {
                        return fail(
                            at("replicas"),
                            format!("{replicas} exceeds the limit of {MAX_PODS} pods"),
                        );
                    }
                }
                _ => {}
            }
        }

        // Then the state of each host along the events in the order they apply: an event that
        // cannot take effect (crash of a crashed host) is an error, not a silent no-op.
        let mut crashed_by: Vec<Option<usize>> = vec![None; self.hosts.len()];
        // (the interrupting event, when the instance is terminated: 2 minutes after the notice)
        let mut terminated_by: Vec<Option<(usize, Duration)>> = vec![None; self.hosts.len()];
        let mut join_tried: Vec<bool> = vec![false; self.hosts.len()];
        let mut replicas: Vec<u64> = self
            .workloads
            .iter()
            .map(|w| w.replicas.unwrap_or(0) as u64)
            .collect();
        let mut coredns = self.settings.coredns_replicas as u64;
        let fixed_pods = self.daemonset_pods();
        for (i, ev) in self.events_sorted_indexed() {
            let p = index_path("events", i);
            let t = ev.at;
            if let Some(name) = ev.action.host() {
                // Checked to exist in the first pass.
                let Some(&hi) = hosts.get(name) else { continue };
                let hp = format!("{p}.host");
                let hq = quote(name);
                if let Some((by, end)) = terminated_by[hi] {
                    if t >= end || matches!(ev.action, Action::SpotInterrupt { .. }) {
                        return fail(
                            hp,
                            format!(
                                "host {hq} was terminated at {end} by the spot interruption notice at {} (events[{by}]); it never comes back",
                                self.events[by].at
                            ),
                        );
                    }
                }
                let crashed = crashed_by[hi];
                let crashed_msg = |by: usize, is: &str, what: &str| {
                    format!(
                        "host {hq} is {is}crashed at {t} (events[{by}] crashed it at {}){what}",
                        self.events[by].at
                    )
                };
                match (&ev.action, crashed) {
                    (Action::Crash { .. }, Some(by)) => {
                        return fail(hp, crashed_msg(by, "already ", ""));
                    }
                    (Action::Crash { .. }, None) => crashed_by[hi] = Some(i),
                    (Action::Restart { .. }, None) => {
                        return fail(
                            hp,
                            format!(
                                "host {hq} is not crashed at {t}; only a crashed host can restart"
                            ),
                        );
                    }
                    (Action::Restart { .. }, Some(_)) => crashed_by[hi] = None,
                    (Action::Reboot { .. }, Some(by)) => {
                        return fail(hp, crashed_msg(by, "", "; use restart"));
                    }
                    (
                        Action::Join { .. }
                        | Action::EtcdForceNewCluster { .. }
                        | Action::RestartComponent { .. },
                        Some(by),
                    ) => {
                        let what = format!("; {} cannot take effect", ev.action.name());
                        return fail(hp, crashed_msg(by, "", &what));
                    }
                    (Action::SpotInterrupt { .. }, _) => {
                        terminated_by[hi] = Some((i, t + SPOT_NOTICE))
                    }
                    (Action::Join { .. }, None) => join_tried[hi] = true,
                    // A standby host runs no component before its first join (whether a join
                    // succeeds is only known at run time, so after one the check stops).
                    (Action::RestartComponent { component, .. }, None)
                        if self.hosts[hi].standby && !join_tried[hi] =>
                    {
                        return fail(
                            format!("{p}.component"),
                            format!(
                                "host {hq} is a standby host that has not joined at {t}; it runs no {}",
                                component.name()
                            ),
                        );
                    }
                    _ => {}
                }
            }
            if let Action::Scale {
                workload,
                replicas: n,
            } = &ev.action
            {
                match workloads.get(workload.as_str()) {
                    Some(&wi) => replicas[wi] = *n as u64,
                    None => coredns = *n as u64,
                }
                let total = replicas.iter().sum::<u64>() + fixed_pods + coredns;
                if total > MAX_PODS as u64 {
                    return fail(format!("{p}.replicas"), too_many_pods(total));
                }
            }
        }
        Ok(())
    }
}

fn too_many_pods(n: u64) -> String {
    format!(
        "{n} pods in total (replicas, one pod of each DaemonSet on every node, and CoreDNS) \
         exceed the limit of {MAX_PODS}"
    )
}

// ---------------------------------------------------------------------------------------------
// Serialisation: the canonical form
// ---------------------------------------------------------------------------------------------

fn dur(d: Duration) -> J {
    J::Str(d.to_string())
}

/// One name as a string, several as an array (the `from`/`to` of `partition_oneway`).
fn names(v: &[String]) -> J {
    match v {
        [one] => J::str(one),
        _ => J::Arr(v.iter().map(|s| J::str(s)).collect()),
    }
}

impl Settings {
    fn tree(&self) -> J {
        let mut fields = Vec::new();
        for key in SettingKey::ALL {
            if !self.is_written(key) {
                continue;
            }
            let v = match self.get(key) {
                SettingValue::Duration(d) => dur(d),
                SettingValue::Bool(b) => J::Bool(b),
                SettingValue::LbHealthCheck(c) => J::str(c.name()),
                SettingValue::Count(n) => J::U(n as u64),
            };
            fields.push((key.name(), v));
        }
        J::obj(fields)
    }
}

impl Host {
    fn tree(&self) -> J {
        let mut f = vec![
            ("name", J::str(&self.name)),
            ("zone", J::str(&self.zone)),
            (
                "roles",
                J::Arr(self.roles.iter().map(|r| J::str(r.name())).collect()),
            ),
        ];
        if self.spot {
            f.push(("spot", J::Bool(true)));
        }
        if self.standby {
            f.push(("standby", J::Bool(true)));
        }
        J::obj(f)
    }
}

impl Workload {
    fn tree(&self) -> J {
        let mut f = vec![
            ("kind", J::str(self.kind.name())),
            ("name", J::str(&self.name)),
        ];
        if let Some(n) = self.replicas {
            f.push(("replicas", J::U(n as u64)));
        }
        if self.service {
            f.push(("service", J::Bool(true)));
        }
        J::obj(f)
    }
}

impl Event {
    fn tree(&self) -> J {
        let mut f = vec![("at", dur(self.at)), ("action", J::str(self.action.name()))];
        match &self.action {
            Action::Crash { host }
            | Action::Restart { host }
            | Action::Isolate { host }
            | Action::SpotInterrupt { host }
            | Action::Join { host }
            | Action::EtcdMemberAdd { host }
            | Action::EtcdMemberRemove { host }
            | Action::EtcdForceNewCluster { host } => f.push(("host", J::str(host))),
            Action::Reboot { host, downtime } => {
                f.push(("host", J::str(host)));
                f.push(("downtime", dur(*downtime)));
            }
            Action::Partition { groups } => f.push((
                "groups",
                J::Arr(
                    groups
                        .iter()
                        .map(|g| J::Arr(g.iter().map(|n| J::str(n)).collect()))
                        .collect(),
                ),
            )),
            Action::PartitionOneway { from, to } => {
                f.push(("from", names(from)));
                f.push(("to", names(to)));
            }
            Action::Heal => {}
            Action::DeletePod { pod, force } => {
                f.push(("pod", J::str(pod)));
                if *force {
                    f.push(("force", J::Bool(true)));
                }
            }
            Action::Scale { workload, replicas } => {
                f.push(("workload", J::str(workload)));
                f.push(("replicas", J::U(*replicas as u64)));
            }
            Action::RestartComponent { host, component } => {
                f.push(("host", J::str(host)));
                f.push(("component", J::str(component.name())));
            }
        }
        J::obj(f)
    }
}

impl Scenario {
    /// The canonical tree. Every top-level field is written (`description` when present),
    /// with `zone`, `seed` and a reboot's `downtime` spelled out; flags (`spot`, `standby`,
    /// `service`, `force`) only when true; settings only those the document named or that
    /// differ from the default. Order: that of the contract page.
    fn tree(&self) -> J {
        let mut f = vec![
            ("version", J::U(self.version as u64)),
            ("name", J::str(&self.name)),
        ];
        if let Some(d) = &self.description {
            f.push(("description", J::str(d)));
        }
        f.push(("seed", J::U(self.seed)));
        f.push(("duration", dur(self.duration)));
        f.push((
            "zones",
            J::Arr(self.zones.iter().map(|z| J::str(z)).collect()),
        ));
        f.push(("hosts", J::Arr(self.hosts.iter().map(Host::tree).collect())));
        f.push((
            "workloads",
            J::Arr(self.workloads.iter().map(Workload::tree).collect()),
        ));
        f.push(("settings", self.settings.tree()));
        f.push((
            "events",
            J::Arr(self.events.iter().map(Event::tree).collect()),
        ));
        debug_assert!(f.iter().all(|(k, _)| SCENARIO_FIELDS.contains(k)));
        J::obj(f)
    }

    /// The canonical document: pretty-printed with 2-space indentation, no trailing newline.
    pub fn to_json(&self) -> String {
        // Serialising a tree of strings, numbers and string-keyed maps cannot fail.
        serde_json::to_string_pretty(&self.tree()).unwrap_or_default()
    }

    /// The canonical document as a `serde_json::Value` (key order then follows serde_json's
    /// map type; use [`Scenario::to_json`] for the canonical text).
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self.tree()).unwrap_or(serde_json::Value::Null)
    }
}

/// Writes the canonical form, so a scenario can sit inside other serialised data.
impl Serialize for Scenario {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.tree().serialize(s)
    }
}

/// Reads through the same checks as [`parse`]; the error text is the `path: message` line.
impl<'de> Deserialize<'de> for Scenario {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scenario, D::Error> {
        let tree = J::deserialize(d)?;
        let scenario = from_tree(&tree).map_err(de::Error::custom)?;
        scenario.validate().map_err(de::Error::custom)?;
        Ok(scenario)
    }
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the contract page, verbatim.
    const EXAMPLE: &str = r#"{
  "version": 1,
  "name": "Rack split with external etcd",
  "description": "Two racks, etcd 2+1 ...",
  "seed": 7,
  "duration": "15m",
  "zones": ["rack-a", "rack-b", "outside"],
  "hosts": [
    {"name": "etcd-1", "zone": "rack-a", "roles": ["etcd"]},
    {"name": "etcd-2", "zone": "rack-a", "roles": ["etcd"]},
    {"name": "etcd-3", "zone": "rack-b", "roles": ["etcd"]},
    {"name": "m1", "zone": "rack-a", "roles": ["control-plane"]},
    {"name": "m2", "zone": "rack-b", "roles": ["control-plane"]},
    {"name": "w1", "zone": "rack-a", "roles": ["worker"]},
    {"name": "w2", "zone": "rack-b", "roles": ["worker"], "spot": true},
    {"name": "lb", "zone": "outside", "roles": ["load-balancer"]},
    {"name": "users", "zone": "outside", "roles": ["client"]}
  ],
  "workloads": [
    {"kind": "Deployment", "name": "web", "replicas": 2, "service": true},
    {"kind": "StatefulSet", "name": "db", "replicas": 1},
    {"kind": "DaemonSet", "name": "agent"}
  ],
  "settings": {"node_monitor_grace_period": "40s"},
  "events": [
    {"at": "2m", "action": "partition", "groups": [["rack-a", "outside"], ["rack-b"]]},
    {"at": "10m", "action": "heal"}
  ]
}"#;

    fn example_value() -> serde_json::Value {
        serde_json::from_str(EXAMPLE).unwrap()
    }

    /// The example with one edit applied to its JSON value.
    fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v = example_value();
        edit(&mut v);
        serde_json::to_string(&v).unwrap()
    }

    fn err_of(doc: &str) -> String {
        match parse(doc) {
            Ok(_) => panic!("accepted: {doc}"),
            Err(e) => e.to_string(),
        }
    }

    fn with_events(events: serde_json::Value) -> String {
        edited(|v| v["events"] = events)
    }

    #[test]
    fn example_parses() {
        let s = parse(EXAMPLE).unwrap();
        assert_eq!(s.name, "Rack split with external etcd");
        assert_eq!(s.seed, 7);
        assert_eq!(s.duration, Duration::from_secs(900));
        assert_eq!(s.zones, ["rack-a", "rack-b", "outside"]);
        assert_eq!(s.hosts.len(), 9);
        assert!(s.hosts[6].spot && !s.hosts[5].spot);
        assert_eq!(s.hosts[3].roles, [Role::ControlPlane]);
        assert_eq!(s.workloads[0].replicas, Some(2));
        assert!(s.workloads[0].service);
        assert_eq!(s.workloads[2].kind, WorkloadKind::DaemonSet);
        assert_eq!(
            s.settings.node_monitor_grace_period,
            Duration::from_secs(40)
        );
        assert_eq!(s.settings.lease_duration, Duration::from_secs(15));
        assert_eq!(s.settings.explicit.len(), 1);
        assert_eq!(
            s.events[0].action,
            Action::Partition {
                groups: vec![
                    vec!["rack-a".into(), "outside".into()],
                    vec!["rack-b".into()]
                ]
            }
        );
        assert_eq!(
            s.events[1],
            Event {
                at: Duration::from_secs(600),
                action: Action::Heal
            }
        );
    }

    #[test]
    fn round_trip_is_byte_exact_after_one_canonicalisation() {
        let canonical = parse(EXAMPLE).unwrap().to_json();
        assert_eq!(parse(&canonical).unwrap().to_json(), canonical);
        assert_eq!(parse(&canonical).unwrap(), parse(EXAMPLE).unwrap());
        // Field order as on the contract page.
        let order = [
            "\"version\"",
            "\"name\"",
            "\"description\"",
            "\"seed\"",
            "\"duration\"",
            "\"zones\"",
            "\"hosts\"",
            "\"workloads\"",
            "\"settings\"",
            "\"events\"",
        ];
        let pos: Vec<usize> = order.iter().map(|k| canonical.find(k).unwrap()).collect();
        assert!(pos.windows(2).all(|w| w[0] < w[1]), "{canonical}");
        assert!(canonical.starts_with("{\n  \"version\": 1,\n  \"name\""));
        assert!(
            canonical.contains("\"settings\": {\n    \"node_monitor_grace_period\": \"40s\"\n  }")
        );
        // Only the named setting is written back.
        assert!(!canonical.contains("lease_duration"));
    }

    #[test]
    fn every_action_round_trips() {
        let doc = r#"{
          "version": 1, "name": "all actions", "duration": "2h",
          "zones": ["a", "b"],
          "hosts": [
            {"name": "e1", "zone": "a", "roles": ["etcd", "control-plane"]},
            {"name": "w1", "zone": "b", "roles": ["worker"], "spot": true},
            {"name": "w2", "roles": ["worker"]},
            {"name": "s1", "zone": "b", "roles": ["worker", "etcd"], "standby": true}
          ],
          "workloads": [{"kind": "Deployment", "name": "web", "replicas": 2, "service": true}],
          "settings": {"toleration_seconds": 60, "etcd_pre_vote": false, "lb_health_check": "tcp",
                       "coredns_replicas": 3, "lease_duration": "15s"},
          "events": [
            {"at": "1m", "action": "crash", "host": "w2"},
            {"at": "2m", "action": "restart", "host": "w2"},
            {"at": "3m", "action": "reboot", "host": "w2"},
            {"at": "4m", "action": "reboot", "host": "w2", "downtime": "90s"},
            {"at": "5m", "action": "partition", "groups": [["a"], ["w2"]]},
            {"at": "6m", "action": "isolate", "host": "e1"},
            {"at": "7m", "action": "partition_oneway", "from": "a", "to": ["b", "w2"]},
            {"at": "8m", "action": "heal"},
            {"at": "9m", "action": "join", "host": "s1"},
            {"at": "10m", "action": "etcd_member_add", "host": "s1"},
            {"at": "11m", "action": "etcd_member_remove", "host": "s1"},
            {"at": "12m", "action": "etcd_force_new_cluster", "host": "e1"},
            {"at": "13m", "action": "delete_pod", "pod": "web-0", "force": true},
            {"at": "14m", "action": "scale", "workload": "web", "replicas": 5},
            {"at": "15m", "action": "scale", "workload": "coredns", "replicas": 1},
            {"at": "16m", "action": "restart_component", "host": "w2", "component": "kube-proxy"},
            {"at": "17m", "action": "restart_component", "host": "e1", "component": "kube-apiserver"},
            {"at": "1h", "action": "spot_interrupt", "host": "w1"}
          ]
        }"#;
        let s = parse(doc).unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.hosts[2].zone, "default");
        assert_eq!(s.settings.toleration_seconds, Duration::from_secs(60));
        assert_eq!(
            s.events[3].action,
            Action::Reboot {
                host: "w2".into(),
                downtime: Duration::from_secs(90)
            }
        );
        assert_eq!(
            s.events[16].action,
            Action::RestartComponent {
                host: "e1".into(),
                component: Component::Apiserver
            }
        );
        let canonical = s.to_json();
        assert_eq!(parse(&canonical).unwrap(), s);
        assert_eq!(parse(&canonical).unwrap().to_json(), canonical);
        assert!(canonical.contains("\"toleration_seconds\": \"1m\""));
        assert!(canonical.contains("\"component\": \"apiserver\""));
        assert!(canonical.contains("\"from\": \"a\""));
        // The Serialize impl writes the same canonical form.
        assert_eq!(serde_json::to_string_pretty(&s).unwrap(), canonical);
        let back: Scenario = serde_json::from_str(&canonical).unwrap();
        assert_eq!(back, s);
        assert_eq!(
            s.to_json_value(),
            serde_json::from_str::<serde_json::Value>(&canonical).unwrap()
        );
    }

    #[test]
    fn bad_inputs_name_the_field() {
        use serde_json::json;
        let mut host_2001 = example_value();
        host_2001["hosts"] = json!((0..2001)
            .map(|i| json!({"name": format!("h{i}"), "roles": ["etcd"]}))
            .collect::<Vec<_>>());
        let long_name = "a".repeat(10_000);
        let cases: Vec<(String, &str)> = vec![
            ("{\"version\": 1,\n \"name\": }".into(),
             "invalid JSON: expected value at line 2 column 10"),
            (edited(|v| v["hosts"][0]["roles"] = json!("etcd")),
             "hosts[0].roles: expected an array of role names, found a string"),
            (edited(|v| v["hosts"][0]["roles"] = json!(["master"])),
             "hosts[0].roles[0]: unknown role \"master\" (known: etcd, control-plane, apiserver, controller-manager, scheduler, worker, load-balancer, client)"),
            (edited(|v| v["hosts"][3]["zone"] = json!("rack-c")),
             "hosts[3].zone: unknown zone \"rack-c\""),
            (edited(|v| v["hosts"][4]["name"] = json!("m1")),
             "hosts[4].name: duplicate host name \"m1\""),
            (edited(|v| v["hosts"][0]["name"] = json!("<script>")),
             "hosts[0].name: invalid host name \"<script>\": use lowercase letters, digits and '-', starting and ending with a letter or digit (like a DNS label)"),
            (edited(|v| v["hosts"][0]["name"] = json!(long_name)),
             "hosts[0].name: host name is 10000 characters long; the limit is 63"),
            (edited(|v| v["hosts"][0]["name"] = json!("web server")),
             "hosts[0].name: invalid host name \"web server\": use lowercase letters, digits and '-', starting and ending with a letter or digit (like a DNS label)"),
            (edited(|v| v["settings"]["foo"] = json!(1)), "settings.foo: unknown setting"),
            (edited(|v| v["hosts"][2]["zon"] = json!("rack-a")),
             "hosts[2].zon: unknown field (known: name, zone, roles, spot, standby)"),
            (with_events(json!([{"at": "1m", "action": "explode"}])),
             "events[0].action: unknown action \"explode\""),
            (with_events(json!([{"at": "1m", "action": "crash"}])),
             "events[0].host: missing required field"),
            (with_events(json!([{"at": "1m", "action": "heal", "host": "m1"}])),
             "events[0].host: unknown field for action \"heal\" (known: at, action)"),
            (edited(|v| { v.as_object_mut().unwrap().remove("duration"); }),
             "duration: missing required field"),
            (edited(|v| v["duration"] = json!("5x")),
             "duration: invalid duration \"5x\": unknown unit \"x\""),
            (with_events(json!([{"at": "-5s", "action": "heal"}])),
             "events[0].at: negative duration \"-5s\""),
            (edited(|v| v["duration"] = json!("99999999999h")),
             "duration: duration \"99999999999h\" is absurdly large"),
            (edited(|v| v["duration"] = json!("200h")),
             "duration: 200h exceeds the limit of 168h (7 days)"),
            (edited(|v| v["duration"] = json!(900)),
             "duration: expected a duration string like \"40s\", found a number"),
            (serde_json::to_string(&host_2001).unwrap(),
             "hosts: 2001 hosts exceed the limit of 2000"),
            (with_events(json!([{"at": "20m", "action": "heal"}])),
             "events[0].at: 20m is after the end of the scenario (duration 15m)"),
            (with_events(json!([
                {"at": "3m", "action": "crash", "host": "m1"},
                {"at": "2m", "action": "crash", "host": "m1"}])),
             "events[0].host: host \"m1\" is already crashed at 3m (events[1] crashed it at 2m)"),
            (with_events(json!([
                {"at": "2m", "action": "crash", "host": "m1"},
                {"at": "3m", "action": "reboot", "host": "m1"}])),
             "events[1].host: host \"m1\" is crashed at 3m (events[0] crashed it at 2m); use restart"),
            (edited(|v| v["hosts"][0]["x<y>.z"] = json!(1)),
             "hosts[0][\"x<y>.z\"]: unknown field (known: name, zone, roles, spot, standby)"),
            (edited(|v| {
                let spare = json!({"name": "s1", "zone": "rack-a", "roles": ["worker"], "standby": true});
                v["hosts"].as_array_mut().unwrap().push(spare);
                v["events"] = json!([{"at": "1m", "action": "restart_component", "host": "s1", "component": "kubelet"}]);
            }),
             "events[0].component: host \"s1\" is a standby host that has not joined at 1m; it runs no kubelet"),
            (edited(|v| v["hosts"][8]["zone"] = json!(7)),
             "hosts[8].zone: expected a string, found a number"),
            (with_events(json!([{"at": "1m", "action": "partition", "groups": [["rack-a"], ["rack-a"]]}])),
             "events[0].groups[1][0]: \"rack-a\" is already in group 0"),
            (with_events(json!([{"at": "3m", "action": "restart", "host": "m1"}])),
             "events[0].host: host \"m1\" is not crashed at 3m; only a crashed host can restart"),
            (with_events(json!([{"at": "3m", "action": "join", "host": "w1"}])),
             "events[0].host: host \"w1\" is not a standby host; only hosts with \"standby\": true can join"),
            (with_events(json!([{"at": "3m", "action": "spot_interrupt", "host": "w1"}])),
             "events[0].host: host \"w1\" is not a spot host (it needs \"spot\": true)"),
            (with_events(json!([
                {"at": "3m", "action": "spot_interrupt", "host": "w2"},
                {"at": "9m", "action": "restart", "host": "w2"}])),
             "events[1].host: host \"w2\" was terminated at 5m by the spot interruption notice at 3m (events[0]); it never comes back"),
            (with_events(json!([{"at": "3m", "action": "scale", "workload": "api", "replicas": 3}])),
             "events[0].workload: unknown workload \"api\""),
            (with_events(json!([{"at": "3m", "action": "scale", "workload": "agent", "replicas": 3}])),
             "events[0].workload: \"agent\" is a DaemonSet: it runs one pod on every node and has no replicas to scale"),
            (edited(|v| v["workloads"][2]["replicas"] = json!(3)),
             "workloads[2].replicas: a DaemonSet has no replicas: it runs one pod on every node"),
            (edited(|v| { v["workloads"][0].as_object_mut().unwrap().remove("replicas"); }),
             "workloads[0].replicas: missing required field (a Deployment needs replicas)"),
            (edited(|v| v["workloads"][1]["name"] = json!("coredns")),
             "workloads[1].name: \"coredns\" is reserved for cluster DNS"),
            (edited(|v| v["version"] = json!(2)),
             "version: unsupported version 2; this program reads version 1"),
            (edited(|v| v["seed"] = json!(-1)),
             "seed: expected a whole number ≥ 0, found a negative number"),
            (edited(|v| v["settings"]["renew_deadline"] = json!("20s")),
             "settings.renew_deadline: renew_deadline (20s) must be shorter than lease_duration (15s)"),
            (edited(|v| v["settings"]["etcd_heartbeat_interval"] = json!("0s")),
             "settings.etcd_heartbeat_interval: must be at least 1ms (found 0s)"),
            (edited(|v| v["settings"]["etcd_election_timeout"] = json!("2h")),
             "settings.etcd_election_timeout: must be at most 1h (found 2h)"),
            (with_events(json!([{"at": "1m", "action": "partition", "groups": [["rack-a"], ["rack-z"]]}])),
             "events[0].groups[1][0]: unknown host or zone \"rack-z\""),
            (with_events(json!([{"at": "1m", "action": "restart_component", "host": "lb", "component": "kube-proxy"}])),
             "events[0].component: host \"lb\" does not run kube-proxy"),
            (with_events(json!([{"at": "1m", "action": "delete_pod", "pod": "nginx-1"}])),
             "events[0].pod: pod \"nginx-1\" belongs to no workload (a pod's name starts with its workload's name and '-')"),
            (edited(|v| v["zones"] = json!(["rack-a", "rack-b", "outside", "rack-a"])),
             "zones[3]: duplicate zone \"rack-a\""),
            ("[1, 2]".into(), "expected a JSON object (the scenario), found an array"),
            ("{\"version\": 1, \"version\": 1}".into(), "version: duplicate field"),
        ];
        let mut wrong = Vec::new();
        for (doc, want) in cases {
            let got = err_of(&doc);
            if got != want {
                wrong.push(format!("want {want}\n got {got}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

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
        // web 2 + db 1 + agent on 4 nodes (m1, m2, w1, w2) + coredns 2.
        assert_eq!(s.pod_count(), 9);
    }

    #[test]
    fn settings_are_written_back_only_when_named_or_changed() {
        let mut s = parse(EXAMPLE).unwrap();
        s.settings.retry_period = Duration::from_secs(3);
        assert!(s.settings.set(
            SettingKey::DnsCacheTtl,
            SettingValue::Duration(Duration::from_secs(5))
        ));
        assert!(!s
            .settings
            .set(SettingKey::EtcdPreVote, SettingValue::Count(1)));
        let again = parse(&s.to_json()).unwrap();
        let written: Vec<SettingKey> = again.settings.explicit.iter().copied().collect();
        assert_eq!(
            written,
            [
                SettingKey::RetryPeriod,
                SettingKey::NodeMonitorGracePeriod,
                SettingKey::DnsCacheTtl
            ]
        );
    }

    /// Truncations at every byte and single-byte substitutions of the example: parse may
    /// refuse them, never panic. Accepted variants must round-trip.
    #[test]
    fn mutated_documents_never_panic() {
        let bytes = EXAMPLE.as_bytes();
        let mut variants: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[..n].to_vec()).collect();
        let subs = b"\"{}[],:0-9aZ \\\x00x.";
        for i in 0..bytes.len() {
            let mut v = bytes.to_vec();
            v[i] = subs[i % subs.len()];
            variants.push(v);
        }
        assert!(variants.len() >= 2_000);
        let mut accepted = 0;
        for v in &variants {
            let Ok(text) = std::str::from_utf8(v) else {
                continue;
            };
            if let Ok(s) = parse(text) {
                accepted += 1;
                let canonical = s.to_json();
                assert_eq!(parse(&canonical).as_ref(), Ok(&s), "{text}");
            }
        }
        assert!(accepted > 0);
    }
}
