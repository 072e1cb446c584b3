//! The cloud node lifecycle controller of a cloud-controller-manager (setting
//! `cloud_controller_manager`): every 5 s, a Node that is not Ready and whose instance the cloud
//! says no longer exists (a spot instance reclaimed) is deleted. Its pods are then orphans, which
//! the pod garbage collector (`pod_gc`) deletes 40 to 60 s later, so their controllers replace
//! them without waiting for the 300 s taint-based eviction.
//!
//! Left out: the cloud-controller-manager as a process of its own with its own lease (it runs
//! here with the controller-manager's leader), shutdown taints, and instances that come back.

use super::Controllers;
use crate::k8s::api::ApiRequest;
use crate::k8s::objects::{node_key, Condition};
use crate::k8s::wire::Ctx;
use crate::kernel::time::Duration;

/// `--node-monitor-period` of the cloud node lifecycle controller.
pub const CLOUD_NODE_MONITOR_PERIOD: Duration = Duration::from_secs(5);

impl Controllers {
    pub(super) fn delete_gone_nodes(&mut self, ctx: &mut Ctx) {
        let Some(gone) = self.cloud.as_ref() else {
            return;
        };
        if ctx.now - self.last_cloud_check < CLOUD_NODE_MONITOR_PERIOD {
            return;
        }
        self.last_cloud_check = ctx.now;
        let mut writes = Vec::new();
        for kv in self.nodes.items().values() {
            let Some(n) = kv.value.as_node() else {
                continue;
            };
            if n.ready == Condition::True || !gone.contains(&n.name) {
                continue;
            }
            writes.push(ApiRequest::Delete {
                key: node_key(&n.name).into(),
                resource_version: kv.mod_revision,
            });
        }
        for req in writes {
            self.write(ctx, req);
        }
    }

    /// The cloud reports that `node`'s instance no longer exists.
    pub fn instance_gone(&mut self, node: &str) {
        if let Some(gone) = self.cloud.as_mut() {
            gone.insert(node.to_string());
        }
    }
}
