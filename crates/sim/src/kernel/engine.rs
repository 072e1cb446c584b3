//! The discrete-event scheduler: a priority queue keyed by `(time, sequence)`.
//!
//! Events at the same instant run in the order they were scheduled, so a run is a
//! pure function of its inputs. The run jumps from event to event; nothing ticks
//! unless a process asked for a timer. Timers wait apart from the other events, in
//! small slots of their own (see [`EventQueue`]).

use crate::kernel::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A heap entry: `(time, sequence, slot)` packed into one number, so an ordering is one
/// comparison (sequences are unique, so the slot never decides) and an entry is 16 bytes.
/// Events stay put in a slab, where `slot` says, while only these entries move as the heap sifts.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Scheduled {
    key: u128,
}

/// Bits of the key that say where the event waits: the top one whether it is a timer,
/// the others its slot (8 million events and 8 million timers pending at once).
const SLOT_BITS: u32 = 24;
const TIMER_BIT: u32 = SLOT_BITS - 1;

impl Scheduled {
    fn is_timer(self) -> bool {
        self.key & (1 << TIMER_BIT) != 0
    }

    fn slot(self) -> usize {
        (self.key & ((1 << TIMER_BIT) - 1)) as usize
    }

    fn with_slot(self, slot: u32) -> Scheduled {
        Scheduled {
            key: self.key & !((1 << TIMER_BIT) - 1) | u128::from(slot),
        }
    }
}

/// A slot of the timer slab, two to a cache line and never across one: a timer is taken
/// seconds after it was set, when its slot has long left the cache.
#[derive(Clone)]
#[repr(align(32))]
struct TimerSlot<T>(Option<T>);

/// What the queue hands back: an event, or a timer.
pub enum Next<E, T> {
    Event(E),
    Timer(T),
}

/// A slab: values stay put where `take` finds them, freed slots are reused first.
struct Slab<S> {
    slots: Vec<S>,
    free: Vec<u32>,
}

impl<S> Default for Slab<S> {
    fn default() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<S> Slab<S> {
    fn put(&mut self, value: S) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                // A freed slot holds nothing to drop (`take` emptied it): it is written without
                // a look at what was there, so a cold slot costs a store, not a wait for memory.
                std::mem::forget(std::mem::replace(&mut self.slots[slot as usize], value));
                slot
            }
            None => {
                self.slots.push(value);
                (self.slots.len() - 1) as u32
            }
        }
    }

    fn take(&mut self, slot: usize) -> &mut S {
        self.free.push(slot as u32);
        &mut self.slots[slot]
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

/// Pending events and timers in `(time, sequence)` order.
///
/// Two heaps hold them: messages in flight (due within milliseconds) and the long timers
/// (due in seconds). Most events are messages, so most pushes and pops sift a heap of tens
/// of entries instead of hundreds. Both heaps share the `(time, sequence)` key, so taking the
/// smaller of their tops gives exactly the order of one heap.
///
/// Events (`E`, large: a message and its payload) and timers (`T`, a few words) wait in two
/// slabs, so that a timer taken from the queue reads one cache line, not an event's two or three.
pub struct EventQueue<E, T> {
    soon: BinaryHeap<Scheduled>,
    later: BinaryHeap<Scheduled>,
    events: Slab<Option<E>>,
    timers: Slab<TimerSlot<T>>,
    seq: u64,
    /// The time of the last event taken.
    now: u64,
    /// Events and timers taken so far.
    popped: u64,
}

/// A copy holds only what waits: the slabs keep the room of their busiest moment (the
/// thousands of messages of a large cluster's start), which the page's checkpoints need not
/// keep. The copy's slots are numbered anew; a slot never decides the order, so the copy runs
/// as the original does.
impl<E: Clone, T: Clone> Clone for EventQueue<E, T> {
    fn clone(&self) -> Self {
        let (mut events, mut timers) = (Slab::default(), Slab::default());
        let mut copy = |heap: &BinaryHeap<Scheduled>| -> BinaryHeap<Scheduled> {
            let entries = heap.iter().map(|&s| {
                let slot = if s.is_timer() {
                    timers.put(self.timers.slots[s.slot()].clone())
                } else {
                    events.put(self.events.slots[s.slot()].clone())
                };
                s.with_slot(slot)
            });
            BinaryHeap::from(entries.collect::<Vec<_>>())
        };
        let (soon, later) = (copy(&self.soon), copy(&self.later));
        EventQueue {
            soon,
            later,
            events,
            timers,
            seq: self.seq,
            now: self.now,
            popped: self.popped,
        }
    }
}

impl<E, T> Default for EventQueue<E, T> {
    fn default() -> Self {
        EventQueue {
            soon: BinaryHeap::new(),
            later: BinaryHeap::new(),
            events: Slab::default(),
            timers: Slab::default(),
            seq: 0,
            now: 0,
            popped: 0,
        }
    }
}

impl<E, T> EventQueue<E, T> {
    pub fn push(&mut self, at: SimTime, event: E) {
        let slot = self.events.put(Some(event));
        self.schedule(at, slot, false);
    }

    pub fn push_timer(&mut self, at: SimTime, timer: T) {
        let slot = self.timers.put(TimerSlot(Some(timer)));
        self.schedule(at, slot, true);
    }

    fn schedule(&mut self, at: SimTime, slot: u32, timer: bool) {
        self.seq += 1;
        // Sequences take the 40 bits above the slot: a trillion events per run.
        assert!(
            slot < 1 << TIMER_BIT && self.seq < 1 << 40,
            "too many events"
        );
        let entry = Scheduled {
            key: (u128::from(at.0) << 64)
                | (u128::from(self.seq) << SLOT_BITS)
                | (u128::from(timer) << TIMER_BIT)
                | u128::from(slot),
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

    /// The next event or timer, if it is due at `until` or earlier.
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, Next<E, T>)> {
        let heap = if self.next_is_later() {
            &mut self.later
        } else {
            &mut self.soon
        };
        if heap.peek()?.key >> 64 > u128::from(until.0) {
            return None;
        }
        let s = heap.pop().expect("peeked");
        self.now = (s.key >> 64) as u64;
        self.popped += 1;
        let next = if s.is_timer() {
            Next::Timer(
                self.timers
                    .take(s.slot())
                    .0
                    .take()
                    .expect("a queued slot holds its timer"),
            )
        } else {
            Next::Event(
                self.events
                    .take(s.slot())
                    .take()
                    .expect("a queued slot holds its event"),
            )
        };
        Some((SimTime(self.now), next))
    }

    /// Events and timers taken so far.
    pub fn popped(&self) -> u64 {
        self.popped
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

    /// What was taken, events and timers alike.
    fn value<V>(next: Next<V, V>) -> V {
        match next {
            Next::Event(v) | Next::Timer(v) => v,
        }
    }

    #[test]
    fn pops_in_time_then_insertion_order_up_to_a_bound() {
        let mut q = EventQueue::default();
        q.push(SimTime(5), "c");
        q.push_timer(SimTime(1), "a");
        q.push_timer(SimTime(5), "d");
        q.push(SimTime(3), "b");
        q.push(SimTime(7), "e");
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime(5)))
            .map(|(_, e)| value(e))
            .collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
        assert!(matches!(
            q.pop_until(SimTime(7)),
            Some((SimTime(7), Next::Event("e")))
        ));
    }

    proptest::proptest! {
        /// Against a sorted reference: pushes of events and timers at or after the last one
        /// taken (near or far ahead: the queue keeps two heaps), pops up to a bound, peeks.
        #[test]
        fn matches_a_sorted_reference(ops in proptest::collection::vec((0u8..10, 0u32..30, proptest::num::u64::ANY), 0..2_000)) {
            let mut q = EventQueue::default();
            // (time, insertion number, a timer?)
            let mut reference: Vec<(u64, u64, bool)> = Vec::new();
            let (mut now, mut n) = (0u64, 0u64);
            for (op, scale, draw) in ops {
                let ahead = draw % (1u64 << scale);
                match op {
                    0..=5 => {
                        let at = now + ahead;
                        n += 1;
                        let timer = draw % 2 == 0;
                        if timer {
                            q.push_timer(SimTime(at), n);
                        } else {
                            q.push(SimTime(at), n);
                        }
                        reference.push((at, n, timer));
                    }
                    6 => {
                        reference.sort();
                        proptest::prop_assert_eq!(q.peek_time().map(|t| t.0), reference.first().map(|r| r.0));
                    }
                    _ => {
                        // Sometimes a bound before the next event: nothing is taken then.
                        reference.sort();
                        let until = now + ahead;
                        let due = reference.first().is_some_and(|r| r.0 <= until);
                        let expected = due.then(|| reference.remove(0));
                        let got = q.pop_until(SimTime(until)).map(|(t, e)| match e {
                            Next::Event(v) => (t.0, v, false),
                            Next::Timer(v) => (t.0, v, true),
                        });
                        proptest::prop_assert_eq!(got, expected);
                        if let Some((t, ..)) = got {
                            now = t;
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
        }
    }
}
