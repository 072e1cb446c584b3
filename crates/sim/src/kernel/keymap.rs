//! A map from object keys (`/registry/pods/default/web-1`) that is hashed for the point
//! lookups every write makes, and ordered for the prefix lists and in-order passes.
//!
//! etcd's store and every Kubernetes cache apply one change at a time to a key they know,
//! far more often than they create, delete or list keys. A `BTreeMap<String, _>` pays a
//! string comparison, and a pointer to follow, per level for each change. Here a change
//! hashes its key once and writes its value in a slot; only creates and deletes touch the
//! ordered index. Nothing is ever iterated in hash order, so runs stay deterministic.
//!
//! Copies share what neither has changed (see [`KeyMap`]): the page keeps a copy of the world
//! for each checkpoint, and the stores are most of a world.

use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

/// A key as stores and messages carry it: shared, so that replicating a write to every
/// member and fanning its change out to every watch copies no string.
pub type Key = std::sync::Arc<str>;

/// Where a value waits: stable from insert to remove (freed slots are reused).
pub type Slot = u32;

/// A key as the hash index holds it. A lookup usually carries the very `Key` the index holds
/// (a write's key travels shared from client to store to watcher), so equal addresses decide
/// before any text is read: the text is a cache miss away in a large store.
#[derive(Clone)]
struct Held(Key);

/// A key as a lookup asks for it, compared address first.
#[repr(transparent)]
struct Asked(str);

impl Asked {
    fn new(key: &str) -> &Asked {
        // SAFETY: `Asked` is a transparent wrapper of `str`.
        unsafe { &*(key as *const str as *const Asked) }
    }
}

impl PartialEq for Asked {
    fn eq(&self, other: &Asked) -> bool {
        std::ptr::eq(&self.0, &other.0) || self.0 == other.0
    }
}
impl Eq for Asked {}

impl std::hash::Hash for Asked {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h)
    }
}

impl std::borrow::Borrow<Asked> for Held {
    fn borrow(&self) -> &Asked {
        Asked::new(&self.0)
    }
}

impl PartialEq for Held {
    fn eq(&self, other: &Held) -> bool {
        Asked::new(&self.0) == Asked::new(&other.0)
    }
}
impl Eq for Held {}

impl std::hash::Hash for Held {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        Asked::new(&self.0).hash(h)
    }
}

/// Slots per chunk of values (see [`KeyMap`]).
const CHUNK: usize = 32;

/// Copies of a map share what they have not changed since they parted: the values in chunks
/// of [`CHUNK`] slots, the keys as one index. A world is copied whole for every checkpoint the
/// page keeps, and between two checkpoints most of a store is untouched (a thousand Node
/// Leases change, the Nodes and pods do not): a write copies its chunk only while another copy
/// still holds it, a create or a delete copies the index.
#[derive(Clone)]
pub struct KeyMap<V> {
    chunks: Vec<Arc<[Option<V>]>>,
    /// Slots handed out so far (the last chunk's beyond them are empty).
    used: usize,
    free: Vec<Slot>,
    index: Arc<Index>,
    /// Bumped whenever a key is added or removed: slots handed out stay valid while it is unchanged.
    layout: u64,
}

/// The keys: hashed for point lookups, ordered for lists.
#[derive(Clone, Default)]
struct Index {
    by_key: FxHashMap<Held, Slot>,
    order: BTreeMap<Key, Slot>,
}

impl<V> Default for KeyMap<V> {
    fn default() -> Self {
        KeyMap {
            chunks: Vec::new(),
            used: 0,
            free: Vec::new(),
            index: Arc::default(),
            layout: 0,
        }
    }
}

impl<V> KeyMap<V> {
    pub fn len(&self) -> usize {
        self.index.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.order.is_empty()
    }

    pub fn clear(&mut self) {
        *self = KeyMap {
            layout: self.layout + 1,
            ..KeyMap::default()
        };
    }

    /// Changes whenever a key is added or removed (never goes back): while it stays the same,
    /// every key keeps the slot it had, so a slot remembered earlier still holds that key.
    pub fn layout(&self) -> u64 {
        self.layout
    }

    pub fn slot(&self, key: &str) -> Option<Slot> {
        self.index.by_key.get(Asked::new(key)).copied()
    }

    /// The value in a slot that [`KeyMap::slot`] or [`KeyMap::insert`] gave out.
    pub fn at(&self, slot: Slot) -> &V {
        let s = slot as usize;
        self.chunks[s / CHUNK][s % CHUNK]
            .as_ref()
            .expect("a slot handed out holds its value until removed")
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.index.by_key.contains_key(Asked::new(key))
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.slot(key).map(|s| self.at(s))
    }

    /// Every entry in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&Key, &V)> + '_ {
        self.index.order.iter().map(|(k, &s)| (k, self.at(s)))
    }

    /// Every key and its slot, in key order.
    pub fn slots(&self) -> impl Iterator<Item = (&Key, Slot)> + '_ {
        self.index.order.iter().map(|(k, &s)| (k, s))
    }

    /// Every value in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.index.order.values().map(|&s| self.at(s))
    }

    /// The entries whose key starts with `prefix`, in key order.
    pub fn range_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a Key, &'a V)> {
        self.index
            .order
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(move |(k, _)| k.starts_with(prefix))
            .map(|(k, &s)| (k, self.at(s)))
    }
}

impl<V: Clone> KeyMap<V> {
    /// A slot's place, to change it (its chunk copied first if another copy of the map holds it).
    fn place(&mut self, slot: Slot) -> &mut Option<V> {
        let s = slot as usize;
        &mut Arc::make_mut(&mut self.chunks[s / CHUNK])[s % CHUNK]
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        let s = self.slot(key)?;
        self.place(s).as_mut()
    }

    /// Sets `key`; returns its slot and its previous value.
    pub fn insert(&mut self, key: &Key, value: V) -> (Slot, Option<V>) {
        if let Some(s) = self.slot(key) {
            return (s, self.place(s).replace(value));
        }
        let s = match self.free.pop() {
            Some(s) => s,
            None => {
                if self.used == self.chunks.len() * CHUNK {
                    self.chunks.push((0..CHUNK).map(|_| None).collect());
                }
                self.used += 1;
                (self.used - 1) as Slot
            }
        };
        *self.place(s) = Some(value);
        let index = Arc::make_mut(&mut self.index);
        index.by_key.insert(Held(key.clone()), s);
        index.order.insert(key.clone(), s);
        self.layout += 1;
        (s, None)
    }

    pub fn remove(&mut self, key: &str) -> Option<V> {
        let s = self.slot(key)?;
        let index = Arc::make_mut(&mut self.index);
        index.by_key.remove(Asked::new(key));
        index.order.remove(key);
        self.layout += 1;
        self.free.push(s);
        self.place(s).take()
    }
}

/// A set of keys, hashed: what a component has in flight (writes, bindings, pods it expects to
/// see), thousands at once in a large cluster, where a sorted vector shifted them all on every
/// answer. It shares `KeyMap`'s hash index, code and all (a value of 0 per key), so the page's
/// bundle pays no second hash table. It only answers counts and membership, so its hash order
/// cannot leak into a run.
#[derive(Default)]
pub struct KeySet(FxHashMap<Held, Slot>);

/// A copy holds only the keys: the set keeps the room of its fullest moment (a large cluster's
/// thousands of pods created at its start), which copies of the world need not keep.
impl Clone for KeySet {
    fn clone(&self) -> Self {
        KeySet(self.0.iter().map(|(k, &v)| (k.clone(), v)).collect())
    }
}

impl KeySet {
    /// Adds `key`; whether it was absent.
    pub fn insert(&mut self, key: Key) -> bool {
        self.0.insert(Held(key), 0).is_none()
    }

    /// Removes `key`; whether it was present.
    pub fn remove(&mut self, key: &str) -> bool {
        self.0.remove(Asked::new(key)).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(Asked::new(key))
    }

    /// Keeps the keys `keep` accepts (asked in no particular order: it must not care).
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.0.retain(|k, _| keep(&k.0))
    }

    /// How many keys start with `prefix`.
    pub fn count_prefixed(&self, prefix: &str) -> usize {
        self.0.keys().filter(|k| k.0.starts_with(prefix)).count()
    }
}

impl<V: Clone> FromIterator<(Key, V)> for KeyMap<V> {
    fn from_iter<I: IntoIterator<Item = (Key, V)>>(entries: I) -> Self {
        let mut map = KeyMap::default();
        for (k, v) in entries {
            map.insert(&k, v);
        }
        map
    }
}

impl<V: PartialEq> PartialEq for KeyMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<V: std::fmt::Debug> std::fmt::Debug for KeyMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many chunks of values two copies hold in common, and whether they share the keys.
    fn shared<V>(a: &KeyMap<V>, b: &KeyMap<V>) -> (usize, bool) {
        let chunks = (a.chunks.iter().zip(&b.chunks)).filter(|(x, y)| Arc::ptr_eq(x, y));
        (chunks.count(), Arc::ptr_eq(&a.index, &b.index))
    }

    #[test]
    fn copies_share_what_neither_changed_and_change_apart() {
        let keys: Vec<Key> = (0..100)
            .map(|i| Key::from(format!("/leases/n{i:03}")))
            .collect();
        let mut a: KeyMap<u64> = keys.iter().map(|k| (k.clone(), 0)).collect();
        let mut b = a.clone();
        assert_eq!(
            shared(&a, &b),
            (4, true),
            "100 values in 4 chunks, all shared"
        );
        // A renewal in the copy: its chunk alone is copied, the keys stay shared.
        b.insert(&keys[40], 1);
        *b.get_mut("/leases/n041").unwrap() = 2;
        assert_eq!(shared(&a, &b), (3, true));
        assert_eq!(
            (a.get("/leases/n040"), b.get("/leases/n040")),
            (Some(&0), Some(&1))
        );
        // A new key and a removed one: the copy's index parts too.
        b.insert(&Key::from("/leases/z"), 7);
        b.remove("/leases/n000");
        assert!(!shared(&a, &b).1);
        assert_eq!((a.len(), b.len()), (100, 100));
        assert_eq!(a.get("/leases/n000"), Some(&0));
        assert_eq!(a.get("/leases/z"), None);
        // The original changes apart from the copy as well.
        a.insert(&keys[99], 9);
        assert_eq!(
            (a.get("/leases/n099"), b.get("/leases/n099")),
            (Some(&9), Some(&0))
        );
        // A copy of a copy reads the same entries in the same order.
        let c = b.clone();
        assert!(c == b && c.iter().eq(b.iter()));
        // Slots freed in one copy are reused there only.
        let (s, _) = b.insert(&Key::from("/leases/y"), 3);
        assert_eq!(s, 0, "the slot /leases/n000 left");
        assert_eq!(a.at(0), &0);
    }

    #[test]
    fn key_set() {
        let mut s = KeySet::default();
        assert!(s.insert(Key::from("web-1")));
        assert!(!s.insert(Key::from("web-1")));
        assert!(s.insert(Key::from("web-2")) && s.insert(Key::from("db-0")));
        assert!(s.contains("web-2") && !s.contains("web-3"));
        assert_eq!(s.count_prefixed("web-"), 2);
        assert!(s.remove("web-2") && !s.remove("web-2"));
        s.retain(|k| k != "db-0");
        assert_eq!((s.count_prefixed(""), s.contains("web-1")), (1, true));
    }

    #[test]
    fn lookups_order_and_reused_slots() {
        let mut m = KeyMap::default();
        for (i, k) in ["/pods/b", "/nodes/x", "/pods/a", "/podsz"]
            .iter()
            .enumerate()
        {
            assert_eq!(m.insert(&Key::from(*k), i), (i as Slot, None));
        }
        // Found by its text (another allocation) and by the very key it holds.
        assert_eq!(m.get("/pods/a"), Some(&2));
        let held = m
            .slots()
            .find(|(k, _)| &***k == "/pods/a")
            .unwrap()
            .0
            .clone();
        assert_eq!(m.get(&held), Some(&2));
        assert_eq!(m.get("/pods/"), None);
        assert_eq!(m.insert(&Key::from("/pods/a"), 9), (2, Some(2)));
        *m.get_mut("/nodes/x").unwrap() += 10;
        let all: Vec<_> = m.iter().map(|(k, v)| (&**k, *v)).collect();
        assert_eq!(
            all,
            [
                ("/nodes/x", 11),
                ("/pods/a", 9),
                ("/pods/b", 0),
                ("/podsz", 3)
            ]
        );
        let pods: Vec<_> = m.range_prefix("/pods/").map(|(_, v)| *v).collect();
        assert_eq!(pods, [9, 0]);
        assert_eq!(m.remove("/pods/b"), Some(0));
        assert_eq!(m.remove("/pods/b"), None);
        assert!(!m.contains_key("/pods/b"));
        // The freed slot is reused, and the other slots have not moved.
        assert_eq!(m.insert(&Key::from("/pods/c"), 5), (0, None));
        assert_eq!(m.slot("/podsz"), Some(3));
        assert_eq!(m.values().copied().collect::<Vec<_>>(), [11, 9, 5, 3]);
        assert_eq!(m.len(), 4);
        let mut same: KeyMap<_> = m.iter().map(|(k, v)| (k.clone(), *v)).collect();
        assert_eq!(m, same);
        same.clear();
        assert!(same.is_empty() && same.get("/pods/a").is_none());
    }

    #[test]
    fn the_layout_changes_with_keys_added_or_removed_only() {
        let mut m = KeyMap::default();
        let mut last = m.layout();
        let mut step = |m: &KeyMap<u32>, changed: bool| {
            assert_eq!(m.layout() != last, changed);
            assert!(m.layout() >= last, "the layout never goes back");
            last = m.layout();
        };
        m.insert(&Key::from("/a"), 1);
        step(&m, true);
        m.insert(&Key::from("/a"), 2);
        step(&m, false);
        m.insert(&Key::from("/b"), 3);
        step(&m, true);
        assert_eq!(
            m.slots().map(|(k, s)| (&**k, s)).collect::<Vec<_>>(),
            [("/a", 0), ("/b", 1)]
        );
        m.remove("/c");
        step(&m, false);
        m.remove("/a");
        step(&m, true);
        m.clear();
        step(&m, true);
    }
}

/// Against an ordered map: any sequence of writes, removals, clears and copies.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u8, u32),
        Remove(u8),
        Change(u8, u32),
        Clear,
        /// Go on with a copy; the map left behind must stay as it was.
        Copy,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (any::<u8>(), any::<u32>()).prop_map(|(k, v)| Op::Insert(k, v)),
            3 => any::<u8>().prop_map(Op::Remove),
            3 => (any::<u8>(), any::<u32>()).prop_map(|(k, v)| Op::Change(k, v)),
            1 => Just(Op::Clear),
            2 => Just(Op::Copy),
        ]
    }

    /// Keys in a few prefixes, so that prefix lists have something to find.
    fn key(k: u8) -> Key {
        Key::from(format!(
            "/{}/k{k}",
            ["pods", "leases", "nodes"][k as usize % 3]
        ))
    }

    proptest! {
        #[test]
        fn behaves_as_an_ordered_map_and_copies_change_apart(ops in prop::collection::vec(op(), 0..200)) {
            let mut map: KeyMap<u32> = KeyMap::default();
            let mut model: BTreeMap<Key, u32> = BTreeMap::new();
            let mut left: Vec<(KeyMap<u32>, BTreeMap<Key, u32>)> = Vec::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        let (slot, old) = map.insert(&key(k), v);
                        prop_assert_eq!(old, model.insert(key(k), v));
                        prop_assert_eq!(map.at(slot), &v);
                    }
                    Op::Remove(k) => prop_assert_eq!(map.remove(&key(k)), model.remove(&key(k))),
                    Op::Change(k, v) => {
                        if let Some(x) = map.get_mut(&key(k)) {
                            *x = v;
                        }
                        if let Some(x) = model.get_mut(&key(k)) {
                            *x = v;
                        }
                    }
                    Op::Clear => {
                        map.clear();
                        model.clear();
                    }
                    Op::Copy => {
                        left.push((map.clone(), model.clone()));
                    }
                }
                prop_assert_eq!(map.len(), model.len());
            }
            let listed = |m: &KeyMap<u32>, prefix: &str| -> Vec<(Key, u32)> {
                m.range_prefix(prefix).map(|(k, v)| (k.clone(), *v)).collect()
            };
            for (m, model) in left.iter().chain([(map, model)].iter()) {
                prop_assert_eq!(m.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>(),
                    model.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>());
                for prefix in ["/pods/", "/leases/k1", "/nodes/k2", "/none/"] {
                    let want: Vec<(Key, u32)> = model.iter()
                        .filter(|(k, _)| k.starts_with(prefix))
                        .map(|(k, v)| (k.clone(), *v)).collect();
                    prop_assert_eq!(listed(m, prefix), want);
                }
                for k in 0..=u8::MAX {
                    prop_assert_eq!(m.get(&key(k)), model.get(&key(k)));
                }
            }
        }
    }
}
