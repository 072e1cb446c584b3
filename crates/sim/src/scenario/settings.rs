//! The tunables of a scenario: every default of `docs/behaviour.md` an operator can change in a
//! real cluster, named after its flag or manifest field in snake_case. One table below is the
//! only list of them: the struct's fields, the key names of the document, the defaults, the
//! accepted ranges and the generic access the editor and the parser use all come from it.

use super::{ApiEndpoint, LbBalance, LbHealthCheck};
use crate::kernel::members::MemberMap;
use crate::kernel::time::Duration;

/// What a setting's value may be, besides its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Range {
    /// A period of a timer: at least [`MIN_PERIOD`](super::MIN_PERIOD), at most an hour.
    Period,
    /// A wait that may be zero, at most an hour.
    Wait,
    /// A long wait, zero to the longest run; the document may give it as whole seconds, as the
    /// Kubernetes flag does.
    Seconds,
    /// A whole number from `.0` to `.1` (`.2` names what is counted in the refusal).
    Count(u32, u32, &'static str),
    /// A decimal from `.0` to `.1` thousandths.
    Milli(u32, u32),
    /// One of the enum's words.
    Word,
}

/// A decimal with three places, exact (so that a document reads back as it was written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Milli(pub u32);

impl Milli {
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }

    /// From a decimal number, if it has at most three places.
    pub fn from_f64(x: f64) -> Option<Milli> {
        let m = (x * 1000.0).round();
        ((x * 1000.0 - m).abs() < 1e-6 && (0.0..=u32::MAX as f64).contains(&m))
            .then_some(Milli(m as u32))
    }
}

impl std::fmt::Display for Milli {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let (whole, part) = (self.0 / 1000, self.0 % 1000);
        if part == 0 {
            return write!(f, "{whole}");
        }
        let digits = format!("{part:03}");
        write!(f, "{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// The value of one setting, for generic access ([`Settings::get`], [`Settings::set`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingValue {
    Duration(Duration),
    Bool(bool),
    Count(u32),
    Milli(Milli),
    LbHealthCheck(LbHealthCheck),
    LbBalance(LbBalance),
    ApiEndpoint(ApiEndpoint),
}

/// A type a setting can have: how it goes in and out of a [`SettingValue`].
trait SettingType: Sized {
    fn wrap(self) -> SettingValue;
    fn unwrap(v: SettingValue) -> Option<Self>;
}

macro_rules! setting_types {
    ($($ty:ident => $variant:ident),*) => {$(
        impl SettingType for $ty {
            fn wrap(self) -> SettingValue {
                SettingValue::$variant(self)
            }
            fn unwrap(v: SettingValue) -> Option<Self> {
                match v {
                    SettingValue::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    )*};
}
setting_types!(
    Duration => Duration,
    Milli => Milli,
    LbHealthCheck => LbHealthCheck,
    LbBalance => LbBalance,
    ApiEndpoint => ApiEndpoint,
    bool => Bool,
    u32 => Count
);

macro_rules! settings {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident / $key:ident: $ty:ty = $default:expr, $range:expr;
    )*) => {
        /// The tunables of the simulation, with the defaults of `docs/behaviour.md`.
        ///
        /// `explicit` remembers which settings the document set, so that serialisation writes
        /// back only those (plus any that code changed away from the default) and a document
        /// does not freeze today's defaults.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Settings {
            $( $(#[doc = $doc])* pub $field: $ty, )*
            /// The settings the document named (written back even when equal to the default).
            pub explicit: MemberMap<SettingKey, ()>,
        }

        /// The name of one setting.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum SettingKey { $($key,)* }

        impl SettingKey {
            /// Every setting, in the order the document writes them.
            pub const ALL: &'static [SettingKey] = &[$(SettingKey::$key,)*];

            /// Its key in the document.
            pub fn name(self) -> &'static str {
                match self { $(SettingKey::$key => stringify!($field),)* }
            }

            pub fn from_name(s: &str) -> Option<SettingKey> {
                SettingKey::ALL.iter().copied().find(|k| k.name() == s)
            }

            /// What its value may be.
            pub fn range(self) -> Range {
                match self { $(SettingKey::$key => $range,)* }
            }
        }

        impl Default for Settings {
            /// The defaults of `docs/behaviour.md`.
            fn default() -> Self {
                Settings { $($field: $default,)* explicit: MemberMap::default() }
            }
        }

        impl Settings {
            /// The current value of one setting.
            pub fn get(&self, key: SettingKey) -> SettingValue {
                match key { $(SettingKey::$key => self.$field.wrap(),)* }
            }

            /// Sets one setting and marks it explicit. Returns false (and changes nothing) when
            /// the value has the wrong type for the key. Ranges are checked by
            /// [`Scenario::validate`](super::Scenario::validate).
            pub fn set(&mut self, key: SettingKey, value: SettingValue) -> bool {
                let ok = match key {
                    $(SettingKey::$key => match <$ty>::unwrap(value) {
                        Some(v) => {
                            self.$field = v;
                            true
                        }
                        None => false,
                    },)*
                };
                if ok {
                    self.explicit.insert(key, ());
                }
                ok
            }
        }
    };
}

const fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

const fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

settings! {
    /// etcd `--heartbeat-interval`.
    etcd_heartbeat_interval / EtcdHeartbeatInterval: Duration = millis(100), Range::Period;
    /// etcd `--election-timeout`.
    etcd_election_timeout / EtcdElectionTimeout: Duration = millis(1000), Range::Period;
    /// etcd `--pre-vote`.
    etcd_pre_vote / EtcdPreVote: bool = true, Range::Word;
    /// The controller-manager's and scheduler's `--leader-elect-lease-duration`.
    lease_duration / LeaseDuration: Duration = secs(15), Range::Period;
    /// `--leader-elect-renew-deadline`.
    renew_deadline / RenewDeadline: Duration = secs(10), Range::Period;
    /// `--leader-elect-retry-period`.
    retry_period / RetryPeriod: Duration = secs(2), Range::Period;
    /// The kubelet's Node Lease renewal period (`nodeLeaseDurationSeconds` / 4).
    node_lease_renew_interval / NodeLeaseRenewInterval: Duration = secs(10), Range::Period;
    /// kube-controller-manager `--node-monitor-period`.
    node_monitor_period / NodeMonitorPeriod: Duration = secs(5), Range::Period;
    /// kube-controller-manager `--node-monitor-grace-period`.
    node_monitor_grace_period / NodeMonitorGracePeriod: Duration = secs(50), Range::Period;
    /// `default-not-ready/unreachable-toleration-seconds`, as a duration.
    toleration_seconds / TolerationSeconds: Duration = secs(300), Range::Seconds;
    /// How the load balancer checks apiservers.
    lb_health_check / LbHealthCheck: LbHealthCheck = LbHealthCheck::Readyz, Range::Word;
    /// How long a client keeps a name's answer (kubeadm's Corefile: `ttl 30`, `cache 30`).
    dns_cache_ttl / DnsCacheTtl: Duration = secs(30), Range::Wait;
    /// kubeadm's CoreDNS Deployment's replicas.
    coredns_replicas / CorednsReplicas: u32 = 2, Range::Count(0, crate::scenario::MAX_PODS, "pods");
    /// One-way network latency.
    network_latency / NetworkLatency: Duration = millis(1), Range::Wait;
    /// A cloud-controller-manager deletes the Node of a terminated spot instance.
    cloud_controller_manager / CloudControllerManager: bool = false, Range::Word;
    /// How clients and kubelets reach the apiservers.
    api_endpoint / ApiEndpoint: ApiEndpoint = ApiEndpoint::LoadBalancer, Range::Word;
    /// kube-vip's `vip_leaseduration` (kube-vip ≥ 1.1.0 manifests; kubeadm's example: 5 s).
    kube_vip_lease_duration / KubeVipLeaseDuration: Duration = secs(15), Range::Period;
    /// kube-vip's `vip_renewdeadline` (kubeadm's example: 3 s).
    kube_vip_renew_deadline / KubeVipRenewDeadline: Duration = secs(10), Range::Period;
    /// kube-vip's `vip_retryperiod` (kubeadm's example: 1 s).
    kube_vip_retry_period / KubeVipRetryPeriod: Duration = secs(2), Range::Period;
    /// haproxy's `inter`: how often the load balancer checks each apiserver.
    lb_check_interval / LbCheckInterval: Duration = secs(2), Range::Period;
    /// haproxy's `fall`: failed checks in a row that take a backend out.
    lb_fall / LbFall: u32 = 3, Range::Count(1, 100, "checks");
    /// haproxy's `rise`: passed checks in a row that put it back.
    lb_rise / LbRise: u32 = 2, Range::Count(1, 100, "checks");
    /// What the load balancer balances: clients' connections (haproxy `mode tcp`) or requests.
    lb_balance / LbBalance: LbBalance = LbBalance::Connection, Range::Word;
    /// haproxy's `on-marked-down shutdown-sessions`: a backend taken out loses its connections.
    lb_shutdown_sessions / LbShutdownSessions: bool = false, Range::Word;
    /// The Node Lease's `leaseDurationSeconds` (the kubelet's `nodeLeaseDurationSeconds`).
    node_lease_duration / NodeLeaseDuration: Duration = secs(40), Range::Period;
    /// kube-controller-manager `--node-eviction-rate`, nodes per second.
    node_eviction_rate / NodeEvictionRate: Milli = Milli(100), Range::Milli(0, 1_000_000);
    /// `--secondary-node-eviction-rate`, in a partially disrupted large zone.
    secondary_node_eviction_rate / SecondaryNodeEvictionRate: Milli = Milli(10), Range::Milli(0, 1_000_000);
    /// `--unhealthy-zone-threshold`: the share of NotReady nodes of a partially disrupted zone.
    unhealthy_zone_threshold / UnhealthyZoneThreshold: Milli = Milli(550), Range::Milli(0, 1000);
    /// `--large-cluster-size-threshold`: above it a partially disrupted zone is still tainted,
    /// at the secondary rate.
    large_cluster_size_threshold / LargeClusterSizeThreshold: u32 = 50, Range::Count(0, crate::scenario::MAX_HOSTS as u32, "nodes");
    /// kubeadm's liveness probe of the apiserver: failures in a row (every 10 s) before the
    /// kubelet kills it.
    apiserver_liveness_failure_threshold / ApiserverLivenessFailureThreshold: u32 = 8, Range::Count(1, 1000, "failures");
    /// kubeadm's startup probe of the apiserver: failures in a row before it is killed.
    apiserver_startup_failure_threshold / ApiserverStartupFailureThreshold: u32 = 24, Range::Count(1, 1000, "failures");
    /// The warning time before a spot host is terminated.
    spot_notice / SpotNotice: Duration = secs(120), Range::Wait;
}

impl Settings {
    /// Whether serialisation writes this setting: the document named it, or code changed it
    /// away from the default without going through [`Settings::set`].
    pub fn is_written(&self, key: SettingKey) -> bool {
        self.explicit.contains_key(&key) || self.get(key) != Settings::default().get(key)
    }
}

impl SettingValue {
    /// A value of the same kind as this one, from its words (`"10s"`, `"true"`, `"tcp"`,
    /// `"0.55"`); Err says what was expected.
    pub fn parse_like(self, text: &str) -> Result<SettingValue, String> {
        let t = text.trim();
        let quoted = super::error::quote(t);
        Ok(match self {
            SettingValue::Duration(_) => {
                SettingValue::Duration(crate::kernel::time::parse_duration(t)?)
            }
            SettingValue::Bool(_) => SettingValue::Bool(match t {
                "true" => true,
                "false" => false,
                _ => return Err(format!("expected true or false, found {quoted}")),
            }),
            SettingValue::Count(_) => SettingValue::Count(
                t.parse()
                    .map_err(|_| format!("expected a whole number, found {quoted}"))?,
            ),
            SettingValue::Milli(_) => SettingValue::Milli(
                crate::kernel::decimal::parse_decimal(t)
                    .and_then(Milli::from_f64)
                    .ok_or_else(|| {
                        format!("expected a number with at most three decimals, found {quoted}")
                    })?,
            ),
            SettingValue::LbHealthCheck(_) => SettingValue::LbHealthCheck(
                LbHealthCheck::from_name(t)
                    .ok_or_else(|| format!("unknown health check {quoted} (known: readyz, tcp)"))?,
            ),
            SettingValue::LbBalance(_) => {
                SettingValue::LbBalance(LbBalance::from_name(t).ok_or_else(|| {
                    format!("unknown balance {quoted} (known: connection, request)")
                })?)
            }
            SettingValue::ApiEndpoint(_) => {
                SettingValue::ApiEndpoint(ApiEndpoint::from_name(t).ok_or_else(|| {
                    format!(
                        "unknown endpoint {quoted} (known: load-balancer, kube-vip, keepalived)"
                    )
                })?)
            }
        })
    }

    /// Its words, as [`SettingValue::parse_like`] reads them.
    pub fn words(self) -> String {
        match self {
            SettingValue::Duration(d) => d.to_string(),
            SettingValue::Bool(b) => b.to_string(),
            SettingValue::Count(n) => n.to_string(),
            SettingValue::Milli(m) => m.to_string(),
            SettingValue::LbHealthCheck(c) => c.name().to_string(),
            SettingValue::LbBalance(b) => b.name().to_string(),
            SettingValue::ApiEndpoint(e) => e.name().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_reads_back_its_default_words() {
        let d = Settings::default();
        for &key in SettingKey::ALL {
            let v = d.get(key);
            assert_eq!(v.parse_like(&v.words()), Ok(v), "{}", key.name());
            assert_eq!(SettingKey::from_name(key.name()), Some(key));
        }
    }

    #[test]
    fn a_milli_keeps_three_places_exactly() {
        assert_eq!(Milli::from_f64(0.55), Some(Milli(550)));
        assert_eq!(
            Milli::from_f64(0.01).map(|m| m.to_string()),
            Some("0.01".into())
        );
        assert_eq!(Milli(1000).to_string(), "1");
        assert_eq!(Milli::from_f64(0.0005), None);
        assert_eq!(Milli::from_f64(-1.0), None);
    }
}
