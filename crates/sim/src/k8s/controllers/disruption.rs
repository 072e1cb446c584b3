//! The disruption controller: the status of every PodDisruptionBudget, which the Eviction API
//! reads and spends.
//!
//! - expected pods: the workload's `replicas` (a DaemonSet: its pods);
//! - healthy pods: running, Ready, not terminating, and not listed in `disruptedPods`;
//! - desired healthy: `minAvailable`, or expected − `maxUnavailable`;
//! - disruptions allowed: healthy − desired, at least 0.
//!
//! `disruptedPods` holds pods the Eviction API let go: an entry stays until its pod is seen
//! terminating or gone, or for [`DELETION_TIMEOUT`] (then the controller looks again), so a pod
//! just evicted is not counted healthy while its deletion is still on its way.
//!
//! Left out: budgets over several workloads, percentages, the `DisruptionAllowed` condition.

use super::Controllers;
use crate::k8s::api::ApiRequest;
use crate::k8s::objects::{pdb_key, workload_key, Kind, Object, PodDisruptionBudget};
use crate::k8s::wire::Ctx;
use crate::kernel::time::{Duration, SimTime};
use std::sync::Arc;

/// How long an evicted pod stays in `disruptedPods` without being seen terminating.
pub const DELETION_TIMEOUT: Duration = Duration::from_secs(120);

impl Controllers {
    pub(super) fn sync_budgets(&mut self, ctx: &mut Ctx) {
        let Some(budgets) = self.budgets.as_ref().filter(|b| b.synced) else {
            return;
        };
        let pods = self.pods.items();
        let mut writes = Vec::new();
        let mut due: Option<SimTime> = None;
        for kv in budgets.items().values() {
            let Some(b) = kv.value.as_pdb() else {
                continue;
            };
            let workload = self
                .workloads
                .items()
                .get(&workload_key(&b.name))
                .and_then(|w| w.value.as_workload());
            let mine: Vec<_> = pods
                .values()
                .filter_map(|p| p.value.as_pod())
                .filter(|p| p.workload == b.name)
                .collect();
            let expected = match workload {
                Some(w) if w.kind != Kind::DaemonSet => w.replicas,
                _ => mine.len() as u32,
            };
            let disrupted: Vec<(String, SimTime)> = b
                .disrupted_pods
                .iter()
                .filter(|(name, at)| {
                    *at + DELETION_TIMEOUT > ctx.now
                        && mine.iter().any(|p| p.name == *name && p.deletion.is_none())
                })
                .cloned()
                .collect();
            for (_, at) in &disrupted {
                let expiry = *at + DELETION_TIMEOUT;
                due = Some(due.map_or(expiry, |d| d.min(expiry)));
            }
            let healthy = mine
                .iter()
                .filter(|p| p.running && p.ready && p.deletion.is_none())
                .filter(|p| !disrupted.iter().any(|(n, _)| *n == p.name))
                .count() as u32;
            let desired = b.desired(expected);
            let status = PodDisruptionBudget {
                observed: true,
                expected_pods: expected,
                current_healthy: healthy,
                desired_healthy: desired,
                disruptions_allowed: healthy.saturating_sub(desired),
                disrupted_pods: disrupted,
                ..b.clone()
            };
            if status != *b {
                writes.push(ApiRequest::Update {
                    key: pdb_key(&b.name).into(),
                    value: Arc::new(Object::PodDisruptionBudget(status)),
                    resource_version: kv.mod_revision,
                });
            }
        }
        self.budgets_due = due;
        for w in writes {
            self.write(ctx, w);
        }
    }
}
