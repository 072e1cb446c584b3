//! The discrete-event scheduler: a priority queue keyed by `(time, sequence)`.
//!
//! Events at the same instant run in the order they were scheduled, so a run is a
//! pure function of its inputs. The run jumps from event to event; nothing ticks
//! unless a process asked for a timer.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A heap entry: `(time, sequence, slot)` packed into one number, so an ordering is one
/// comparison (sequences are unique, so the slot never decides) and an entry is 16 bytes.
/// Events stay put in a slab, where `slot` says, while only these entries move as the heap sifts.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Scheduled {
    key: u128,
}

/// Bits of the key that say where the event waits: 16 million events pending at once.
const SLOT_BITS: u32 = 24;

impl Scheduled {
    fn slot(self) -> usize {
        (self.key & ((1 << SLOT_BITS) - 1)) as usize
    }
}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Events due within this long of the last event taken go to the small heap.
const SOON: u64 = 10_000; // µs

/// Pending events in `(time, sequence)` order.
///
/// Two heaps hold them: messages in flight (due within milliseconds) and the long timers
/// (due in seconds). Most events are messages, so most pushes and pops sift a heap of tens
/// of entries instead of hundreds. Both heaps share the `(time, sequence)` key, so taking the
/// smaller of their tops gives exactly the order of one heap.
#[derive(Clone)]
pub struct EventQueue<E> {
    soon: BinaryHeap<Scheduled>,
    later: BinaryHeap<Scheduled>,
    slots: Vec<Option<E>>,
    free: Vec<u32>,
    seq: u64,
    /// The time of the last event taken.
    now: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            soon: BinaryHeap::new(),
            later: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            seq: 0,
            now: 0,
        }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, at: SimTime, event: E) {
        self.seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(event);
                slot
            }
            None => {
                self.slots.push(Some(event));
                (self.slots.len() - 1) as u32
            }
        };
        // Sequences take the 40 bits above the slot: a trillion events per run.
        assert!(
            slot < 1 << SLOT_BITS && self.seq < 1 << 40,
            "too many events"
        );
        let entry = Scheduled {
            key: (u128::from(at.0) << 64) | (u128::from(self.seq) << SLOT_BITS) | u128::from(slot),
        };
        if at.0 < self.now.saturating_add(SOON) {
            self.soon.push(entry);
        } else {
            self.later.push(entry);
        }
    }

    /// Whether the next event waits among the long timers (their top has the smaller key).
    fn next_is_later(&self) -> bool {
        match (self.soon.peek(), self.later.peek()) {
            (Some(a), Some(b)) => b.key < a.key,
            (a, _) => a.is_none(),
        }
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        let heap = if self.next_is_later() {
            &self.later
        } else {
            &self.soon
        };
        heap.peek().map(|s| SimTime((s.key >> 64) as u64))
    }

    /// The next event, if it is due at `until` or earlier.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        let heap = if self.next_is_later() {
            &mut self.later
        } else {
            &mut self.soon
        };
        if heap.peek()?.key >> 64 > u128::from(until.0) {
            return None;
        }
        let s = heap.pop().expect("peeked");
        self.free.push(s.slot() as u32);
        let event = self.slots[s.slot()]
            .take()
            .expect("a queued slot holds its event");
        self.now = (s.key >> 64) as u64;
        Some((SimTime(self.now), event))
    }

    pub fn len(&self) -> usize {
        self.soon.len() + self.later.len()
    }

    pub fn is_empty(&self) -> bool {
        self.soon.is_empty() && self.later.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order_up_to_a_bound() {
        let mut q = EventQueue::default();
        q.push(SimTime(5), "c");
        q.push(SimTime(1), "a");
        q.push(SimTime(5), "d");
        q.push(SimTime(3), "b");
        q.push(SimTime(7), "e");
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime(5)))
            .map(|(_, e)| e)
            .collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
        assert_eq!(
            q.pop_until(SimTime(7)).map(|(t, e)| (t.0, e)),
            Some((7, "e"))
        );
    }

    /// Against a sorted reference: random pushes at or after the last event taken, pops and peeks.
    #[test]
    fn matches_a_sorted_reference_under_random_use() {
        let mut rng = crate::rng::Rng::new(7);
        let mut q = EventQueue::default();
        let mut reference: Vec<(u64, u64)> = Vec::new(); // (time, insertion number)
        let (mut now, mut n) = (0u64, 0u64);
        for _ in 0..20_000 {
            match rng.below(10) {
                0..=5 => {
                    let scale = 1 << rng.below(30);
                    let at = now + rng.below(scale);
                    n += 1;
                    q.push(SimTime(at), n);
                    reference.push((at, n));
                }
                6 => {
                    reference.sort();
                    assert_eq!(q.peek_time().map(|t| t.0), reference.first().map(|r| r.0));
                }
                _ => {
                    // Sometimes a bound before the next event: nothing is taken then.
                    reference.sort();
                    let scale = 1 << rng.below(30);
                    let until = now + rng.below(scale);
                    let due = reference.first().is_some_and(|r| r.0 <= until);
                    let expected = due.then(|| reference.remove(0));
                    let got = q.pop_until(SimTime(until)).map(|(t, e)| (t.0, e));
                    assert_eq!(got, expected);
                    if let Some((t, _)) = got {
                        now = t;
                    }
                }
            }
            assert_eq!(q.len(), reference.len());
        }
    }
}
