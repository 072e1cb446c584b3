//! Requests waiting for their answer, by request id.
//!
//! Every requester in the cluster (an API client, an apiserver calling etcd, an etcd member
//! waiting for its proposals to apply) numbers its requests with a counter, and answers
//! mostly come back in the order asked. So the waiting requests are a ring buffer sorted by
//! id: a request is appended at the back, and an answer finds its entry by binary search and
//! leaves a hole, which is dropped once it reaches either end. Requests that are never
//! answered (an etcd member keeps them) would pin the holes behind them, so the buffer is
//! compacted once holes are half of it. A B-tree paid for rebalancing on every answer, and
//! shifting the entries on every removal cost as much with a thousand kubelets.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct InFlight<V> {
    entries: VecDeque<(u64, Option<V>)>,
    holes: usize,
}

impl<V> Default for InFlight<V> {
    fn default() -> Self {
        InFlight {
            entries: VecDeque::new(),
            holes: 0,
        }
    }
}

impl<V> InFlight<V> {
    /// Adds request `id` (normally above every id waiting); replaces one with the same id.
    pub fn insert(&mut self, id: u64, v: V) {
        match self.entries.back() {
            Some(&(last, _)) if last >= id => match self.find(id) {
                Ok(i) => {
                    if self.entries[i].1.replace(v).is_none() {
                        self.holes -= 1;
                    }
                }
                Err(i) => self.entries.insert(i, (id, Some(v))),
            },
            _ => self.entries.push_back((id, Some(v))),
        }
    }

    pub fn get(&self, id: u64) -> Option<&V> {
        self.find(id).ok().and_then(|i| self.entries[i].1.as_ref())
    }

    pub fn remove(&mut self, id: u64) -> Option<V> {
        let i = self.find(id).ok()?;
        let v = self.entries[i].1.take()?;
        self.holes += 1;
        while self.entries.front().is_some_and(|e| e.1.is_none()) {
            self.entries.pop_front();
            self.holes -= 1;
        }
        while self.entries.back().is_some_and(|e| e.1.is_none()) {
            self.entries.pop_back();
            self.holes -= 1;
        }
        if self.holes * 2 > self.entries.len() {
            self.entries.retain(|e| e.1.is_some());
            self.holes = 0;
        }
        Some(v)
    }

    /// The waiting requests, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &V)> {
        self.entries
            .iter()
            .filter_map(|(id, v)| v.as_ref().map(|v| (*id, v)))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().filter_map(|(_, v)| v.as_ref())
    }

    pub fn len(&self) -> usize {
        self.entries.len() - self.holes
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.holes = 0;
    }

    /// Takes every waiting request out, in id order.
    pub fn drain(&mut self) -> impl Iterator<Item = V> {
        self.holes = 0;
        std::mem::take(&mut self.entries)
            .into_iter()
            .filter_map(|(_, v)| v)
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

    #[test]
    fn a_request_never_answered_does_not_pin_the_answered_ones() {
        let mut w = InFlight::default();
        w.insert(1, "never answered");
        for id in 2..10_000 {
            w.insert(id, "answered");
            assert_eq!(w.remove(id), Some("answered"));
            w.insert(id + 100_000, "answered out of order");
            assert_eq!(w.get(id + 100_000), Some(&"answered out of order"));
            assert!(w.entries.len() <= 4, "holes pile up: {}", w.entries.len());
            assert_eq!(w.remove(id + 100_000), Some("answered out of order"));
        }
        assert_eq!(w.iter().collect::<Vec<_>>(), [(1, &"never answered")]);
        // Answered oldest first behind it: holes are compacted before they outnumber requests.
        for id in 20_000..20_100 {
            w.insert(id, "queued");
        }
        for id in 20_000..20_099 {
            assert_eq!(w.remove(id), Some("queued"));
            assert!(w.entries.len() <= 2 * w.len() + 1);
        }
        assert_eq!(w.len(), 2);
        assert_eq!(w.remove(20_099), Some("queued"));
        assert_eq!(w.len(), 1);
        // A hole taken by a new request with its id is no longer a hole.
        w.insert(5, "a");
        w.insert(6, "b");
        w.remove(5);
        w.insert(5, "again");
        assert_eq!(w.len(), 3);
        assert_eq!(
            w.values().copied().collect::<Vec<_>>(),
            ["never answered", "again", "b"]
        );
    }
}
