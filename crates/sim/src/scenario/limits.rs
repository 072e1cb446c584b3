//! How large a document may be. The contract requires at least 1,000 hosts, 20,000 pods,
//! 1,000 events and 7 days of simulated time; beyond these a document is refused with a
//! message naming the field.

use super::error::{fail, R};
use crate::kernel::time::Duration;

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
/// Most fault processes in a scenario.
pub const MAX_FAULTS: usize = 100;
/// Most faults the processes of a run may be expected to draw (a fault and its repair count
/// as two): more would make a run enormous without showing anything new.
pub const MAX_FAULT_DRAWS: f64 = 100_000.0;
/// Shortest mean time between faults or to repair.
pub const MIN_FAULT_MEAN: Duration = Duration::from_secs(1);
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

/// The one wording of every count limit, whether reading or validation finds it exceeded.
pub(super) fn check_count(path: &str, n: usize, max: usize, noun: &str) -> R<()> {
    if n > max {
        return fail(path, format!("{n} {noun} exceed the limit of {max}"));
    }
    Ok(())
}
