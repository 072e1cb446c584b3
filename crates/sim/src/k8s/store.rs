//! A cache of API objects by key, with the one secondary index the cluster needs: pods by
//! the node they are bound to. client-go's informers keep such an indexer, and the
//! apiserver's watch cache serves the kubelets' `spec.nodeName` field selector from one,
//! so a kubelet's list or a controller's look at one node never scans every pod.
//!
//! A store can also keep, per workload, how many of its pods are not being deleted (as a
//! ReplicaSet's status does) and how many changes its endpoints (serving pods) have seen, so
//! that a controller sees a workload at its replica count, or its endpoints unchanged, without
//! looking at every pod.

use crate::k8s::objects::Pod;
use crate::k8s::wire::{Key, KeyValue};
use crate::kernel::keymap::{KeyMap, Slot};
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Clone, Default)]
pub struct Store {
    items: KeyMap<KeyValue>,
    /// Where each node's bound pods wait in `items`, in key order: a pod updated on the
    /// node it was on (most changes) leaves this index alone. Shared, node by node, with the
    /// copies of the world the page keeps as checkpoints: the first binding after a copy copies
    /// the map of nodes (a pointer and a shared name each) and that node's entry.
    by_node: Rc<BTreeMap<Rc<str>, NodePods>>,
    /// Per workload, when counted.
    workloads: Option<BTreeMap<String, WorkloadPods>>,
}

/// One node's bound pods: their keys, and where each waits in the store's items.
type NodePods = Rc<BTreeMap<Key, Slot>>;

#[derive(Clone, Copy, Default)]
struct WorkloadPods {
    /// Pods without a deletion timestamp.
    active: usize,
    /// Changes to its endpoints: a pod starting or ceasing to serve, or serving on another
    /// node (never reset, so that an equal count means no change).
    endpoint_changes: u64,
}

impl Store {
    /// An empty store that counts each workload's pods (see [`Store::active_pods`] and
    /// [`Store::endpoint_changes`]).
    pub fn counting_pods() -> Self {
        Store {
            workloads: Some(BTreeMap::new()),
            ..Store::default()
        }
    }

    pub fn items(&self) -> &KeyMap<KeyValue> {
        &self.items
    }

    /// How many pods of `workload` have no deletion timestamp (None if this store does not count).
    pub fn active_pods(&self, workload: &str) -> Option<usize> {
        Some(self.counts(workload)?.active)
    }

    /// How many times the endpoints of `workload` changed (None if this store does not count).
    pub fn endpoint_changes(&self, workload: &str) -> Option<u64> {
        Some(self.counts(workload)?.endpoint_changes)
    }

    fn counts(&self, workload: &str) -> Option<WorkloadPods> {
        let counts = self.workloads.as_ref()?;
        Some(counts.get(workload).copied().unwrap_or_default())
    }

    /// Starts over from a full list.
    pub fn replace(&mut self, items: impl IntoIterator<Item = (Key, KeyValue)>) {
        self.items.clear();
        self.by_node = Rc::default();
        for c in self.workloads.iter_mut().flat_map(|w| w.values_mut()) {
            c.active = 0;
            c.endpoint_changes += 1;
        }
        for (key, kv) in items {
            self.apply(&key, Some(&kv));
        }
    }

    /// Sets (Some) or deletes (None) one object; returns its previous state.
    pub fn apply(&mut self, key: &Key, kv: Option<&KeyValue>) -> Option<KeyValue> {
        let (slot, old) = match kv {
            Some(kv) => {
                let (slot, old) = self.items.insert(key, kv.clone());
                (Some(slot), old)
            }
            None => (None, self.items.remove(key)),
        };
        if let Some(counts) = &mut self.workloads {
            let was = old.as_ref().and_then(|kv| kv.value.as_pod());
            let now = kv.and_then(|kv| kv.value.as_pod());
            if let Some(p) = was {
                counted(counts, &p.workload).active -= usize::from(p.deletion.is_none());
            }
            if let Some(p) = now {
                counted(counts, &p.workload).active += usize::from(p.deletion.is_none());
            }
            // Most pod updates (status, binding, a deletion timestamp on a pod not serving)
            // leave every endpoint where it was.
            let (was, now) = (was.and_then(endpoint), now.and_then(endpoint));
            if was != now {
                for (workload, _) in [was, now].into_iter().flatten() {
                    counted(counts, workload).endpoint_changes += 1;
                }
            }
        }
        let (was, now) = (old.as_ref().and_then(bound_node), kv.and_then(bound_node));
        if was == now {
            return old;
        }
        let by_node = Rc::make_mut(&mut self.by_node);
        if let Some(pods) = was.and_then(|node| by_node.get_mut(node)) {
            Rc::make_mut(pods).remove(key);
        }
        if let (Some(node), Some(slot)) = (now, slot) {
            if !by_node.contains_key(node) {
                by_node.insert(node.into(), Rc::default());
            }
            let pods = by_node.get_mut(node).expect("inserted");
            Rc::make_mut(pods).insert(key.clone(), slot);
        }
        old
    }

    /// How many of the objects are pods bound to a node.
    pub fn bound_pods(&self) -> usize {
        self.by_node.values().map(|pods| pods.len()).sum()
    }

    /// The nodes that have pods bound to them, in name order.
    pub fn bound_nodes(&self) -> impl Iterator<Item = &str> {
        (self.by_node.iter())
            .filter(|(_, pods)| !pods.is_empty())
            .map(|(node, _)| &**node)
    }

    /// The pods bound to `node`, in key order.
    pub fn pods_on<'a>(&'a self, node: &str) -> impl Iterator<Item = (&'a Key, &'a KeyValue)> {
        self.by_node
            .get(node)
            .into_iter()
            .flat_map(|pods| pods.iter())
            .map(|(k, &slot)| (k, self.items.at(slot)))
    }
}

/// Walks one name-ordered sequence beside another: skips the items named before `name` and
/// takes the one named `name`, if it is next.
pub fn seek<I: Iterator>(
    items: &mut std::iter::Peekable<I>,
    name: &str,
    name_of: impl Fn(&I::Item) -> &str,
) -> Option<I::Item> {
    while items.next_if(|i| name_of(i) < name).is_some() {}
    items.next_if(|i| name_of(i) == name)
}

fn bound_node(kv: &KeyValue) -> Option<&str> {
    kv.value.as_pod()?.node.as_deref()
}

/// Where a pod serves, and for which workload.
fn endpoint(p: &Pod) -> Option<(&str, &str)> {
    Some((p.workload.as_str(), p.endpoint_node()?))
}

fn counted<'a>(
    counts: &'a mut BTreeMap<String, WorkloadPods>,
    workload: &str,
) -> &'a mut WorkloadPods {
    if !counts.contains_key(workload) {
        counts.insert(workload.to_string(), WorkloadPods::default());
    }
    counts.get_mut(workload).expect("inserted")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::objects::{Kind, Object, Pod};
    use std::sync::Arc;

    fn pod(name: &str, node: Option<&str>) -> KeyValue {
        KeyValue {
            value: Arc::new(Object::Pod(Pod {
                name: name.to_string(),
                workload: "web".to_string(),
                kind: Some(Kind::Deployment),
                node: node.map(str::to_string),
                running: false,
                ready: false,
                deletion: None,
                created: crate::kernel::time::SimTime(0),
            })),
            create_revision: 1,
            mod_revision: 1,
            version: 1,
        }
    }

    fn on(store: &Store, node: &str) -> Vec<String> {
        store.pods_on(node).map(|(k, _)| k.to_string()).collect()
    }

    #[test]
    fn the_node_index_follows_binding_moves_and_deletes() {
        let mut s = Store::default();
        s.replace([
            ("p/b".into(), pod("b", Some("n1"))),
            ("p/a".into(), pod("a", Some("n1"))),
            ("p/c".into(), pod("c", None)),
        ]);
        assert_eq!(on(&s, "n1"), ["p/a", "p/b"]);
        assert_eq!(s.bound_pods(), 2);
        // An update on the same node is what the index hands out afterwards.
        let mut newer = pod("b", Some("n1"));
        newer.mod_revision = 7;
        s.apply(&"p/b".into(), Some(&newer));
        let revisions: Vec<u64> = s.pods_on("n1").map(|(_, kv)| kv.mod_revision).collect();
        assert_eq!(revisions, [1, 7]);
        s.apply(&"p/c".into(), Some(&pod("c", Some("n2"))));
        s.apply(&"p/a".into(), Some(&pod("a", Some("n2"))));
        assert_eq!(on(&s, "n1"), ["p/b"]);
        assert_eq!(on(&s, "n2"), ["p/a", "p/c"]);
        assert_eq!(s.bound_pods(), 3);
        let old = s.apply(&"p/b".into(), None);
        assert!(old.is_some());
        assert!(on(&s, "n1").is_empty());
        assert_eq!(s.bound_pods(), 2);
        // A new pod takes the freed slot; the index still hands out each node's own pods.
        s.apply(&"p/e".into(), Some(&pod("e", Some("n1"))));
        assert_eq!(on(&s, "n1"), ["p/e"]);
        assert_eq!(on(&s, "n2"), ["p/a", "p/c"]);
        s.apply(&"p/e".into(), None);
        s.replace([("p/d".into(), pod("d", Some("n2")))]);
        assert_eq!(on(&s, "n2"), ["p/d"]);
        assert_eq!(s.items().len(), 1);
    }

    #[test]
    fn pods_are_counted_per_workload_through_updates_deletions_and_relists() {
        let mut s = Store::counting_pods();
        let key = |n: &str| -> Key { format!("p/{n}").into() };
        let with = |name: &str, workload: &str, deleting: bool| {
            let mut kv = pod(name, Some("n1"));
            let mut p = kv.value.as_pod().unwrap().clone();
            p.workload = workload.to_string();
            p.deletion = deleting.then_some(crate::kernel::time::SimTime(5));
            kv.value = Arc::new(Object::Pod(p));
            kv
        };
        let active = |s: &Store| (s.active_pods("web"), s.active_pods("db"));
        s.apply(&key("a"), Some(&with("a", "web", false)));
        s.apply(&key("b"), Some(&with("b", "web", false)));
        s.apply(&key("c"), Some(&with("c", "db", false)));
        assert_eq!(active(&s), (Some(2), Some(1)));
        // A deletion timestamp takes the pod out of the count.
        s.apply(&key("b"), Some(&with("b", "web", true)));
        assert_eq!(s.active_pods("web"), Some(1));
        // Deleting a pod already being deleted changes nothing; deleting an active one does.
        s.apply(&key("b"), None);
        s.apply(&key("c"), None);
        assert_eq!(active(&s), (Some(1), Some(0)));
        assert_eq!(s.active_pods("never-seen"), Some(0));
        s.replace([(key("d"), with("d", "db", false))]);
        assert_eq!(active(&s), (Some(0), Some(1)));
        // A store that does not count says so.
        assert_eq!(Store::default().active_pods("web"), None);
        assert_eq!(Store::default().endpoint_changes("web"), None);
    }

    #[test]
    fn endpoint_changes_count_pods_starting_moving_and_ceasing_to_serve() {
        let mut s = Store::counting_pods();
        let key = |n: &str| -> Key { format!("p/{n}").into() };
        let with = |name: &str, workload: &str, node: Option<&str>, serving: bool| {
            let mut kv = pod(name, node);
            let mut p = kv.value.as_pod().unwrap().clone();
            p.workload = workload.to_string();
            (p.running, p.ready) = (serving, serving);
            kv.value = Arc::new(Object::Pod(p));
            kv
        };
        let changes = |s: &Store| {
            (
                s.endpoint_changes("web").unwrap(),
                s.endpoint_changes("db").unwrap(),
            )
        };
        // Each step, and which workloads' endpoints it changes (web, db).
        let mut deleting = with("a", "web", Some("n2"), false);
        let mut p = deleting.value.as_pod().unwrap().clone();
        p.deletion = Some(crate::kernel::time::SimTime(5));
        deleting.value = Arc::new(Object::Pod(p));
        let steps = [
            // Created, bound, started: no endpoint yet.
            ("a", Some(with("a", "web", None, false)), (false, false)),
            (
                "a",
                Some(with("a", "web", Some("n1"), false)),
                (false, false),
            ),
            ("c", Some(with("c", "db", Some("n1"), true)), (false, true)),
            // Ready: an endpoint of web, and of no other workload.
            ("a", Some(with("a", "web", Some("n1"), true)), (true, false)),
            // A new revision of a serving pod, serving as before, is no change.
            (
                "a",
                Some(with("a", "web", Some("n1"), true)),
                (false, false),
            ),
            // Serving elsewhere (a recreated pod of the same name) is.
            ("a", Some(with("a", "web", Some("n2"), true)), (true, false)),
            // Not ready, then being deleted, then gone: only the first leaves the endpoints.
            (
                "a",
                Some(with("a", "web", Some("n2"), false)),
                (true, false),
            ),
            ("a", Some(deleting), (false, false)),
            ("a", None, (false, false)),
            // A serving pod deleted outright (a forced delete) leaves its workload's endpoints.
            ("c", None, (false, true)),
        ];
        for (i, (name, kv, expected)) in steps.into_iter().enumerate() {
            let before = changes(&s);
            s.apply(&key(name), kv.as_ref());
            let after = changes(&s);
            assert_eq!(
                (after.0 > before.0, after.1 > before.1),
                expected,
                "step {i}"
            );
            assert!(after.0 >= before.0 && after.1 >= before.1, "step {i}");
        }
        // A relist changes every workload, even one whose pods are all gone.
        let before = changes(&s);
        s.replace([(key("d"), with("d", "db", Some("n1"), false))]);
        let after = changes(&s);
        assert!(after.0 > before.0 && after.1 > before.1);
    }

    #[test]
    fn seek_skips_names_before_and_takes_the_one_asked_for() {
        let mut names = ["a", "c", "d", "f"].into_iter().peekable();
        assert_eq!(seek(&mut names, "c", |n| n), Some("c"));
        // "e" is missing: "d" is skipped, "f" stays for the next look.
        assert_eq!(seek(&mut names, "e", |n| n), None);
        assert_eq!(seek(&mut names, "f", |n| n), Some("f"));
        assert_eq!(seek(&mut names, "g", |n| n), None);
    }
}
