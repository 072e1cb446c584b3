//! What a document means by leaving a field out: the zone of a host, the seed and a reboot's
//! downtime (the settings' defaults are in `settings.rs`).

use crate::kernel::time::Duration;

/// The zone of a host that names none. It exists without being listed in `zones`.
pub const DEFAULT_ZONE: &str = "default";

/// Default `seed`.
pub const DEFAULT_SEED: u64 = 1;

/// Default `termination_grace_period` of a workload (Kubernetes' `terminationGracePeriodSeconds`).
pub const DEFAULT_TERMINATION_GRACE_PERIOD: Duration = Duration::from_secs(30);

/// Default `downtime` of a `reboot`.
pub const DEFAULT_REBOOT_DOWNTIME: Duration = Duration::from_secs(30);
