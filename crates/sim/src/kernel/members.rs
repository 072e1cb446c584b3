//! `MemberMap`: a map over a cluster's few members (3, 5, 7), kept as a `Vec` sorted by key.
//!
//! Why not a `BTreeMap`: each map type instantiates the B-tree's code anew, which the page's
//! bundle pays for (a few KB per type), and a handful of members fit one cache line of keys.
//! It iterates in key order, as a `BTreeMap` does, so runs are the same.

use std::borrow::Borrow;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberMap<K, V> {
    items: Vec<(K, V)>,
}

impl<K, V> Default for MemberMap<K, V> {
    fn default() -> Self {
        MemberMap { items: Vec::new() }
    }
}

impl<'a, K, V> IntoIterator for &'a MemberMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Ord, V> MemberMap<K, V> {
    fn find<Q: Ord + ?Sized>(&self, k: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.items.binary_search_by(|(x, _)| x.borrow().cmp(k))
    }

    /// The value of `k` (a `String` key is looked up by `&str`, as in a `BTreeMap`).
    pub fn get<Q: Ord + ?Sized>(&self, k: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(k).ok().map(|i| &self.items[i].1)
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, k: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(k).ok().map(|i| &mut self.items[i].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, k: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(k).is_ok()
    }

    /// Sets `k` to `v`, returning the value it had.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(&k) {
            Ok(i) => Some(std::mem::replace(&mut self.items[i].1, v)),
            Err(i) => {
                self.items.insert(i, (k, v));
                None
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, k: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.find(k).ok().map(|i| self.items.remove(i).1)
    }

    /// The value of `k`, inserted from `v` if absent; whether it was absent.
    pub fn get_or_insert_with(&mut self, k: K, v: impl FnOnce() -> V) -> (&mut V, bool) {
        match self.find(&k) {
            Ok(i) => (&mut self.items[i].1, false),
            Err(i) => {
                self.items.insert(i, (k, v()));
                (&mut self.items[i].1, true)
            }
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.items.retain_mut(|(k, v)| keep(k, v));
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        self.items.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&K, &mut V)> + '_ {
        self.items.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.items.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.items.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> + '_ {
        self.items.iter_mut().map(|(_, v)| v)
    }
}

impl<K: Ord + Copy, V> MemberMap<K, V> {
    /// The first key after `k`.
    pub fn key_after(&self, k: &K) -> Option<K> {
        let i = match self.find(k) {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        self.items.get(i).map(|(k, _)| *k)
    }
}

/// A set kept the same way ([`MemberMap`] with no values): for sets of a few names, or of names
/// that come and go, where a `BTreeSet` type would bring its own B-tree code into the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberSet<K>(MemberMap<K, ()>);

impl<K> Default for MemberSet<K> {
    fn default() -> Self {
        MemberSet(MemberMap::default())
    }
}

impl<K: Ord> MemberSet<K> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `k`; whether it was new.
    pub fn insert(&mut self, k: K) -> bool {
        self.0.insert(k, ()).is_none()
    }

    pub fn contains<Q: Ord + ?Sized>(&self, k: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.0.contains_key(k)
    }

    /// Takes `k` out; whether it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, k: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.0.remove(k).is_some()
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.0.retain(|k, _| keep(k));
    }

    pub fn iter(&self) -> impl Iterator<Item = &K> + '_ {
        self.0.keys()
    }

    /// The keys of both, in order, each once (as `BTreeSet::union`).
    pub fn union<'a>(&'a self, other: &'a MemberSet<K>) -> impl Iterator<Item = &'a K> + 'a {
        let (mut a, mut b) = (self.iter().peekable(), other.iter().peekable());
        std::iter::from_fn(move || match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.cmp(y) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    b.next();
                    a.next()
                }
            },
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        })
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Ord> Extend<K> for MemberSet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, items: I) {
        for k in items {
            self.insert(k);
        }
    }
}

impl<K: Ord> FromIterator<K> for MemberSet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(items: I) -> Self {
        let mut s = MemberSet::new();
        s.extend(items);
        s
    }
}

impl<'a, K> IntoIterator for &'a MemberSet<K> {
    type Item = &'a K;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, ())>, fn(&'a (K, ())) -> &'a K>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.items.iter().map(|(k, _)| k)
    }
}

impl<K> IntoIterator for MemberSet<K> {
    type Item = K;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(K, ())>, fn((K, ())) -> K>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.items.into_iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::MemberMap;

    #[test]
    fn behaves_as_an_ordered_map() {
        let mut m = MemberMap::default();
        assert_eq!(m.insert(5u32, 'e'), None);
        assert_eq!(m.insert(1, 'a'), None);
        assert_eq!(m.insert(3, 'c'), None);
        assert_eq!(m.insert(3, 'C'), Some('c'));
        assert_eq!(m.keys().copied().collect::<Vec<_>>(), [1, 3, 5]);
        assert_eq!(m.get(&3), Some(&'C'));
        assert_eq!(m.key_after(&1), Some(3));
        assert_eq!(m.key_after(&2), Some(3));
        assert_eq!(m.key_after(&5), None);
        let (v, new) = m.get_or_insert_with(4, || 'd');
        assert!(new && *v == 'd');
        let (v, new) = m.get_or_insert_with(4, || 'x');
        assert!(!new && *v == 'd');
        assert_eq!(m.remove(&4), Some('d'));
        assert_eq!(m.remove(&4), None);
        m.insert(4, 'd');
        m.retain(|k, _| k % 2 == 1);
        assert_eq!(
            m.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(),
            [(1, 'a'), (3, 'C'), (5, 'e')]
        );
        assert!(m.contains_key(&5) && !m.contains_key(&4));
        *m.get_mut(&1).unwrap() = 'A';
        m.iter_mut().for_each(|(_, v)| *v = v.to_ascii_lowercase());
        assert_eq!(m.get(&1), Some(&'a'));
        m.clear();
        assert_eq!(m.iter().count(), 0);
    }
}

/// Against the standard ordered map and set: any sequence of their operations.
#[cfg(test)]
mod properties {
    use super::{MemberMap, MemberSet};
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    proptest! {
        #[test]
        fn a_member_map_is_an_ordered_map(ops in prop::collection::vec((0u8..4, 0u8..40, any::<u16>()), 0..300)) {
            let mut m = MemberMap::default();
            let mut model = BTreeMap::new();
            for (op, k, v) in ops {
                match op {
                    0 => prop_assert_eq!(m.insert(k, v), model.insert(k, v)),
                    1 => prop_assert_eq!(m.remove(&k), model.remove(&k)),
                    2 => {
                        let (got, new) = m.get_or_insert_with(k, || v);
                        prop_assert_eq!(new, !model.contains_key(&k));
                        prop_assert_eq!(*got, *model.entry(k).or_insert(v));
                    }
                    _ => {
                        m.retain(|key, _| key % 3 != k % 3);
                        model.retain(|key, _| key % 3 != k % 3);
                    }
                }
                prop_assert_eq!(m.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(),
                    model.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>());
                prop_assert_eq!(m.key_after(&k), model.range(k + 1..).next().map(|(k, _)| *k));
            }
        }

        #[test]
        fn a_member_set_is_an_ordered_set(ops in prop::collection::vec((0u8..3, 0u8..40), 0..300), other in prop::collection::btree_set(0u8..40, 0..20)) {
            let mut s = MemberSet::new();
            let mut model = BTreeSet::new();
            for (op, k) in ops {
                match op {
                    0 => prop_assert_eq!(s.insert(k), model.insert(k)),
                    1 => prop_assert_eq!(s.remove(&k), model.remove(&k)),
                    _ => {
                        s.retain(|key| key % 4 != k % 4);
                        model.retain(|key| key % 4 != k % 4);
                    }
                }
                prop_assert_eq!(s.iter().copied().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(s.len(), model.len());
            }
            let mut o = MemberSet::new();
            for k in &other {
                o.insert(*k);
            }
            prop_assert_eq!(s.union(&o).copied().collect::<Vec<_>>(),
                model.union(&other).copied().collect::<Vec<_>>());
        }
    }
}
