//! The node lifecycle controller's table of the nodes it watches, kept between passes.

use crate::k8s::objects::{Condition, Node, TaintKey, NODE_LEASES};
use crate::k8s::wire::KeyValue;
use crate::kernel::keymap::{KeyMap, Slot};
use crate::kernel::members::MemberMap;
use crate::kernel::time::SimTime;

/// The node lifecycle controller's view of the nodes, one row per node in name order.
///
/// Every `node_monitor_period` it needs each node's lease version and, for a few nodes, the
/// node. Rows remember where both wait in the caches (slots hold their keys until a key is
/// added or removed, see [`crate::kernel::keymap::KeyMap::layout`]), so a pass over a thousand nodes
/// reads two resourceVersions per node instead of seeking every name in two ordered maps.
#[derive(Clone, Default)]
pub(super) struct NodeTable {
    /// The layouts of the node and lease caches the rows were made for.
    layouts: (u64, u64),
    pub(super) rows: Vec<NodeHealth>,
    /// The zones of the nodes, in name order (rows refer to them by position).
    pub(super) zones: Vec<String>,
}

#[derive(Clone)]
pub(super) struct NodeHealth {
    pub(super) name: String,
    node_slot: Slot,
    lease_slot: Option<Slot>,
    pub(super) zone: usize,
    /// The node's resourceVersion when `ready` and `tainted` were read.
    pub(super) node_rv: u64,
    pub(super) ready: Condition,
    pub(super) tainted: bool,
    /// What the controller last saw of it (None: not yet seen).
    pub(super) probe: Option<Probe>,
}

/// The controller's saved health of a node (`nodeHealthData`): the lease's resourceVersion and
/// the Ready condition last seen, and `probeTimestamp`, when the controller last saw either
/// change (a renewed lease, or a status the kubelet posted); its own writes do not count.
#[derive(Clone, Copy)]
pub(super) struct Probe {
    pub(super) lease_rv: u64,
    pub(super) ready: Condition,
    pub(super) at: SimTime,
}

impl NodeTable {
    /// The row of `name`: rows follow the node cache's keys, which differ only in the name after
    /// their common prefix, so they are in the names' order.
    pub(super) fn row(&self, name: &str) -> Option<&NodeHealth> {
        let i = (self.rows)
            .binary_search_by(|r| r.name.as_str().cmp(name))
            .ok()?;
        Some(&self.rows[i])
    }

    /// Brings the node table up to date: rebuilt when a node or a lease was added or removed,
    /// otherwise each row re-reads its node only if the node's resourceVersion moved.
    pub(super) fn refresh(
        &mut self,
        nodes: &KeyMap<KeyValue>,
        leases: &KeyMap<KeyValue>,
        probe: &mut MemberMap<String, Probe>,
    ) {
        let layouts = (nodes.layout(), leases.layout());
        let table = self;
        let mut fresh = table.layouts == layouts;
        if fresh {
            for row in &mut table.rows {
                let kv = nodes.at(row.node_slot);
                if kv.mod_revision == row.node_rv {
                    continue;
                }
                match kv.value.as_node() {
                    Some(n) if n.zone == table.zones[row.zone] => row.read(n, kv.mod_revision),
                    _ => fresh = false,
                }
            }
        }
        if fresh {
            return;
        }
        // Probe times outlive the rows: a node that comes back keeps what was seen of it.
        for row in table.rows.drain(..) {
            if let Some(p) = row.probe {
                probe.insert(row.name, p);
            }
        }
        let listed: Vec<(&Node, u64, Slot)> = nodes
            .slots()
            .filter_map(|(_, slot)| {
                let kv = nodes.at(slot);
                Some((kv.value.as_node()?, kv.mod_revision, slot))
            })
            .collect();
        let mut zones: MemberMap<&str, usize> = MemberMap::default();
        for (n, ..) in &listed {
            zones.insert(n.zone.as_str(), 0);
        }
        for (i, (_, position)) in zones.iter_mut().enumerate() {
            *position = i;
        }
        table.zones = zones.keys().map(|z| z.to_string()).collect();
        table.layouts = layouts;
        table.rows = listed
            .into_iter()
            .map(|(n, rv, node_slot)| {
                let mut row = NodeHealth {
                    name: n.name.clone(),
                    node_slot,
                    lease_slot: leases.slot(&format!("{NODE_LEASES}{}", n.name)),
                    zone: *zones.get(&n.zone.as_str()).expect("every zone listed"),
                    node_rv: rv,
                    ready: n.ready,
                    tainted: false,
                    probe: probe.get(&n.name).copied(),
                };
                row.read(n, rv);
                row
            })
            .collect();
    }
}

impl NodeHealth {
    /// The node's lease's resourceVersion in the lease cache (0: no lease).
    pub(super) fn lease_version(&self, leases: &KeyMap<KeyValue>) -> u64 {
        self.lease_slot.map_or(0, |s| leases.at(s).mod_revision)
    }

    /// The node as the node cache holds it.
    pub(super) fn node<'a>(&self, nodes: &'a KeyMap<KeyValue>) -> &'a KeyValue {
        nodes.at(self.node_slot)
    }

    pub(super) fn read(&mut self, n: &Node, rv: u64) {
        self.node_rv = rv;
        self.ready = n.ready;
        self.tainted = n.has_taint(TaintKey::Unreachable);
    }
}
