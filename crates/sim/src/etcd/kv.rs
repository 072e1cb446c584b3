//! etcd's MVCC key-value store, reduced to what the cluster needs: a global
//! revision counter, per-key create/mod revisions and versions, and transactions
//! that compare a key's `mod_revision` before writing (the compare-and-swap that
//! the apiserver's `resourceVersion` is built on).
//!
//! Left out: history of old revisions (no watch replay from the past), compaction,
//! leases with TTLs, range queries beyond prefixes.

pub use crate::kernel::keymap::Key;
use crate::kernel::keymap::KeyMap;

/// What a key holds is the store's type parameter `V`: etcd never looks inside a value, it only
/// keeps and hands out copies, so `V` should be cheap to clone (a shared handle).
#[derive(Clone, Debug, PartialEq)]
pub struct KeyValue<V> {
    pub value: V,
    pub create_revision: u64,
    pub mod_revision: u64,
    pub version: u64,
}

/// One write request, as replicated through the Raft log.
#[derive(Clone, Debug, PartialEq)]
pub enum KvOp<V> {
    Put {
        key: Key,
        value: V,
    },
    Delete {
        key: Key,
    },
    /// Write only if the key's `mod_revision` equals `expected` (0 = the key must not exist).
    CompareAndSwap {
        key: Key,
        expected: u64,
        value: V,
    },
    /// Delete only if the key's `mod_revision` equals `expected` (a delete with a precondition).
    CompareAndDelete {
        key: Key,
        expected: u64,
    },
}

impl<V> KvOp<V> {
    pub fn key(&self) -> &Key {
        match self {
            KvOp::Put { key, .. } | KvOp::Delete { key } | KvOp::CompareAndSwap { key, .. } => key,
            KvOp::CompareAndDelete { key, .. } => key,
        }
    }
}

/// The outcome of applying a [`KvOp`].
#[derive(Clone, Debug, PartialEq)]
pub enum KvResult {
    /// Applied; the store's revision after the write.
    Ok { revision: u64 },
    /// A compare failed; the key's current `mod_revision` (0 if absent).
    Conflict { current: u64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct KvStore<V> {
    revision: u64,
    keys: KeyMap<KeyValue<V>>,
}

impl<V> Default for KvStore<V> {
    fn default() -> Self {
        KvStore {
            revision: 0,
            keys: KeyMap::default(),
        }
    }
}

impl<V: Clone> KvStore<V> {
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn get(&self, key: &str) -> Option<&KeyValue<V>> {
        self.keys.get(key)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Every key starting with `prefix`, in key order.
    pub fn range_prefix<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = (&'a Key, &'a KeyValue<V>)> + 'a {
        self.keys.range_prefix(prefix)
    }

    /// Applies one write; returns its outcome and, if it succeeded, the key's new state (None
    /// once deleted: a shared handle), so a watch notification needs no second lookup.
    pub fn apply(&mut self, op: &KvOp<V>) -> (KvResult, Option<KeyValue<V>>) {
        let (key, expected, value) = match op {
            KvOp::Put { key, value } => (key, None, Some(value)),
            KvOp::Delete { key } => (key, None, None),
            KvOp::CompareAndSwap {
                key,
                expected,
                value,
            } => (key, Some(*expected), Some(value)),
            KvOp::CompareAndDelete { key, expected } => (key, Some(*expected), None),
        };
        let Some(value) = value else {
            let current = self.keys.get(key).map_or(0, |kv| kv.mod_revision);
            if expected.is_some_and(|e| e != current || current == 0) {
                return (KvResult::Conflict { current }, None);
            }
            if self.keys.remove(key).is_some() {
                self.revision += 1;
            }
            let revision = self.revision;
            return (KvResult::Ok { revision }, None);
        };
        // One lookup for the common case, an update of a key that exists.
        if let Some(kv) = self.keys.get_mut(key) {
            if expected.is_some_and(|e| e != kv.mod_revision) {
                let current = kv.mod_revision;
                return (KvResult::Conflict { current }, None);
            }
            self.revision += 1;
            kv.value = value.clone();
            kv.mod_revision = self.revision;
            kv.version += 1;
            return (
                KvResult::Ok {
                    revision: self.revision,
                },
                Some(kv.clone()),
            );
        }
        if expected.is_some_and(|e| e != 0) {
            return (KvResult::Conflict { current: 0 }, None);
        }
        self.revision += 1;
        let revision = self.revision;
        let kv = KeyValue {
            value: value.clone(),
            create_revision: revision,
            mod_revision: revision,
            version: 1,
        };
        self.keys.insert(key, kv.clone());
        (KvResult::Ok { revision }, Some(kv))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Value = std::sync::Arc<str>;

    fn v(s: &str) -> Value {
        s.into()
    }

    #[test]
    fn revisions_count_every_write() {
        let mut kv = KvStore::<Value>::default();
        assert_eq!(
            kv.apply(&KvOp::Put {
                key: "a".into(),
                value: v("1")
            })
            .0,
            KvResult::Ok { revision: 1 }
        );
        assert_eq!(
            kv.apply(&KvOp::Put {
                key: "b".into(),
                value: v("1")
            })
            .0,
            KvResult::Ok { revision: 2 }
        );
        assert_eq!(
            kv.apply(&KvOp::Put {
                key: "a".into(),
                value: v("2")
            })
            .0,
            KvResult::Ok { revision: 3 }
        );
        let a = kv.get("a").unwrap();
        assert_eq!((a.create_revision, a.mod_revision, a.version), (1, 3, 2));
    }

    #[test]
    fn compare_and_swap_detects_a_concurrent_writer() {
        let mut kv = KvStore::<Value>::default();
        // Create-if-absent succeeds once.
        let cas = KvOp::CompareAndSwap {
            key: "lease".into(),
            expected: 0,
            value: v("m1"),
        };
        assert_eq!(kv.apply(&cas).0, KvResult::Ok { revision: 1 });
        assert_eq!(kv.apply(&cas).0, KvResult::Conflict { current: 1 });
        // The holder renews with the revision it read; a stale writer loses.
        let renew = KvOp::CompareAndSwap {
            key: "lease".into(),
            expected: 1,
            value: v("m1"),
        };
        assert_eq!(kv.apply(&renew).0, KvResult::Ok { revision: 2 });
        let stale = KvOp::CompareAndSwap {
            key: "lease".into(),
            expected: 1,
            value: v("m2"),
        };
        assert_eq!(kv.apply(&stale).0, KvResult::Conflict { current: 2 });
        assert_eq!(&*kv.get("lease").unwrap().value, "m1");
    }

    #[test]
    fn prefix_ranges() {
        let mut kv = KvStore::<Value>::default();
        for k in ["/pods/a", "/pods/b", "/nodes/x", "/podsz"] {
            kv.apply(&KvOp::Put {
                key: k.into(),
                value: v(""),
            });
        }
        let keys: Vec<_> = kv.range_prefix("/pods/").map(|(k, _)| &**k).collect();
        assert_eq!(keys, ["/pods/a", "/pods/b"]);
        kv.apply(&KvOp::Delete {
            key: "/pods/a".into(),
        });
        assert_eq!(kv.range_prefix("/pods/").count(), 1);
        assert_eq!(kv.revision(), 5);
    }
}
