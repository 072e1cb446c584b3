//! Requests waiting for their answer, by request id.
//!
//! Every requester in the cluster (an API client, an apiserver calling etcd, an etcd member
//! waiting for its proposals to apply) numbers its requests with a counter, and answers
//! mostly come back in the order asked. So the waiting requests are a ring buffer sorted by
//! id: a request is appended at the back, and an answer finds its entry by binary search,
//! usually at the front, where taking it out moves nothing. A B-tree paid for rebalancing on
//! almost every answer.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct InFlight<V> {
    entries: VecDeque<(u64, V)>,
}

impl<V> Default for InFlight<V> {
    fn default() -> Self {
        InFlight {
            entries: VecDeque::new(),
        }
    }
}

impl<V> InFlight<V> {
    /// Adds request `id` (normally above every id waiting); replaces one with the same id.
    pub fn insert(&mut self, id: u64, v: V) {
        match self.entries.back() {
            Some(&(last, _)) if last >= id => match self.find(id) {
                Ok(i) => self.entries[i].1 = v,
                Err(i) => self.entries.insert(i, (id, v)),
            },
            _ => self.entries.push_back((id, v)),
        }
    }

    pub fn get(&self, id: u64) -> Option<&V> {
        self.find(id).ok().map(|i| &self.entries[i].1)
    }

    pub fn remove(&mut self, id: u64) -> Option<V> {
        self.find(id)
            .ok()
            .and_then(|i| self.entries.remove(i))
            .map(|(_, v)| v)
    }

    /// The waiting requests, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        self.entries.iter().map(|(id, v)| (*id, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn find(&self, id: u64) -> Result<usize, usize> {
        self.entries.binary_search_by_key(&id, |&(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_any_order_find_their_request() {
        let mut w = InFlight::default();
        for id in [3, 4, 7, 9] {
            w.insert(id, id * 10);
        }
        // An id below the newest one still lands in order; the same id replaces.
        w.insert(5, 50);
        w.insert(7, 71);
        assert_eq!(
            w.iter().collect::<Vec<_>>(),
            [(3, &30), (4, &40), (5, &50), (7, &71), (9, &90)]
        );
        assert_eq!(w.remove(9), Some(90));
        assert_eq!(w.remove(3), Some(30));
        assert_eq!(w.remove(3), None);
        assert_eq!(w.remove(6), None);
        assert_eq!(w.get(5), Some(&50));
        assert_eq!(w.get(9), None);
        assert_eq!(w.values().copied().collect::<Vec<_>>(), [40, 50, 71]);
        w.insert(10, 100);
        assert_eq!(w.len(), 4);
        w.clear();
        assert!(w.is_empty());
    }
}
