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
use crate::k8s::informer::Informer;
use crate::k8s::objects::{node_key, Condition};
use crate::k8s::wire::Ctx;
use crate::kernel::members::MemberSet;
use crate::kernel::time::{Duration, SimTime};

/// `--node-monitor-period` of the cloud node lifecycle controller.
pub const CLOUD_NODE_MONITOR_PERIOD: Duration = Duration::from_secs(5);

/// The cloud node lifecycle controller's own state: the Nodes whose instances the cloud says
/// no longer exist, and when it last looked.
#[derive(Clone)]
pub(super) struct CloudNode {
    gone: MemberSet<String>,
    last_check: SimTime,
}

impl CloudNode {
    pub(super) fn new(gone: MemberSet<String>, now: SimTime) -> Self {
        CloudNode {
            gone,
            last_check: now,
        }
    }

    /// Whether the cloud says `node`'s instance no longer exists.
    pub(super) fn is_gone(&self, node: &str) -> bool {
        self.gone.contains(node)
    }

    /// Every `CLOUD_NODE_MONITOR_PERIOD`: the deletions of the Nodes that are not Ready and
    /// whose instances are gone.
    fn deletions(&mut self, now: SimTime, nodes: &Informer) -> Vec<ApiRequest> {
        if now - self.last_check < CLOUD_NODE_MONITOR_PERIOD {
            return Vec::new();
        }
        self.last_check = now;
        (nodes.items().values())
            .filter_map(|kv| Some((kv.value.as_node()?, kv.mod_revision)))
            .filter(|(n, _)| n.ready != Condition::True && self.gone.contains(&n.name))
            .map(|(n, rv)| ApiRequest::Delete {
                key: node_key(&n.name).into(),
                resource_version: rv,
            })
            .collect()
    }
}

impl Controllers {
    pub(super) fn delete_gone_nodes(&mut self, ctx: &mut Ctx) {
        let Some(cloud) = self.cloud.as_mut() else {
            return;
        };
        for req in cloud.deletions(ctx.now, &self.nodes) {
            self.write(ctx, req);
        }
    }

    /// The cloud reports that `node`'s instance no longer exists.
    pub fn instance_gone(&mut self, node: &str) {
        if let Some(cloud) = self.cloud.as_mut() {
            cloud.gone.insert(node.to_string());
        }
    }
}
