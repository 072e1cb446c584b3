//! What a document means by leaving a field out: the settings of `docs/behaviour.md`, the
//! zone of a host, the seed and a reboot's downtime.

use crate::kernel::members::MemberMap;

use super::{LbHealthCheck, Settings};
use crate::kernel::time::Duration;

/// The zone of a host that names none. It exists without being listed in `zones`.
pub const DEFAULT_ZONE: &str = "default";

/// Default `seed`.
pub const DEFAULT_SEED: u64 = 1;

/// Default `downtime` of a `reboot`.
pub const DEFAULT_REBOOT_DOWNTIME: Duration = Duration::from_secs(30);

impl Default for Settings {
    /// The defaults of `docs/behaviour.md`.
    fn default() -> Self {
        Settings {
            etcd_heartbeat_interval: Duration::from_millis(100),
            etcd_election_timeout: Duration::from_millis(1000),
            etcd_pre_vote: true,
            cloud_controller_manager: false,
            api_endpoint: super::ApiEndpoint::LoadBalancer,
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            node_lease_renew_interval: Duration::from_secs(10),
            node_monitor_period: Duration::from_secs(5),
            node_monitor_grace_period: Duration::from_secs(50),
            toleration_seconds: Duration::from_secs(300),
            lb_health_check: LbHealthCheck::Readyz,
            // kubeadm's Corefile: `ttl 30` on cluster answers, `cache 30` caps their lifetime.
            dns_cache_ttl: Duration::from_secs(30),
            coredns_replicas: 2,
            network_latency: Duration::from_millis(1),
            explicit: MemberMap::default(),
        }
    }
}
