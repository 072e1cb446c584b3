//! A vector whose copies share their contents: held in chunks of [`CHUNK`] values, each shared
//! by the copies that have not changed it. A copy that appends, changes or truncates copies only
//! the chunk it touches, once.
//!
//! The page keeps a copy of the world for each checkpoint, and much of a world only grows: etcd's
//! Raft log (a member holds thousands of entries between compactions) and the record's samples,
//! one a second per series. Copied whole, they made each checkpoint of a day-long run megabytes
//! larger than the last. Values can also be dropped from the front (a log's compaction).

use std::ops::{Bound, RangeBounds};
use std::rc::Rc;

/// Values per chunk (every chunk but the last is full).
const CHUNK: usize = 128;

#[derive(Clone, Debug)]
pub struct Chunked<E> {
    chunks: Vec<Rc<Vec<E>>>,
    /// Values of the first chunk dropped from the front (still held until the chunk goes).
    skip: usize,
    len: usize,
}

impl<E> Default for Chunked<E> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            skip: 0,
            len: 0,
        }
    }
}

impl<E> Chunked<E> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&E> {
        if i >= self.len {
            return None;
        }
        let at = self.skip + i;
        Some(&self.chunks[at / CHUNK][at % CHUNK])
    }

    pub fn last(&self) -> Option<&E> {
        self.get(self.len.checked_sub(1)?)
    }

    pub fn clear(&mut self) {
        *self = Chunked::default();
    }

    /// Drops the first `n` values.
    pub fn drop_front(&mut self, n: usize) {
        if n >= self.len {
            return self.clear();
        }
        self.skip += n;
        self.len -= n;
        let gone = self.skip / CHUNK;
        self.chunks.drain(..gone);
        self.skip -= gone * CHUNK;
    }

    pub fn iter(&self) -> Iter<'_, E> {
        self.range(..)
    }

    /// The values in `range` (cut at the end), in order.
    #[inline]
    pub fn range(&self, range: impl RangeBounds<usize>) -> Iter<'_, E> {
        let from = match range.start_bound() {
            Bound::Included(&i) => i,
            Bound::Excluded(&i) => i + 1,
            Bound::Unbounded => 0,
        };
        let to = match range.end_bound() {
            Bound::Included(&i) => i + 1,
            Bound::Excluded(&i) => i,
            Bound::Unbounded => self.len,
        }
        .min(self.len);
        if to <= from {
            // The common case: nothing new to hand out or send.
            return Iter {
                chunks: &[],
                within: [].iter(),
                left: 0,
            };
        }
        let at = self.skip + from;
        let (chunk, within) = (at / CHUNK, at % CHUNK);
        Iter {
            chunks: &self.chunks[chunk + 1..],
            within: self.chunks[chunk][within..].iter(),
            left: to - from,
        }
    }
}

impl<E: Clone> Chunked<E> {
    #[inline]
    pub fn push(&mut self, e: E) {
        match self.chunks.last_mut().and_then(Rc::get_mut) {
            Some(last) if last.len() < CHUNK => last.push(e),
            _ => self.push_slow(e),
        }
        self.len += 1;
    }

    /// A new chunk, or the last one copied first because a copy of the world shares it.
    #[cold]
    fn push_slow(&mut self, e: E) {
        if (self.skip + self.len).is_multiple_of(CHUNK) {
            let mut chunk = Vec::with_capacity(CHUNK);
            chunk.push(e);
            self.chunks.push(Rc::new(chunk));
        } else {
            own(self.chunks.last_mut().expect("a chunk with room")).push(e);
        }
    }

    pub fn extend(&mut self, values: impl IntoIterator<Item = E>) {
        for e in values {
            self.push(e);
        }
    }

    /// Keeps the first `n` values.
    #[inline]
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        if n == 0 {
            return self.clear();
        }
        let end = self.skip + n;
        self.chunks.truncate(end.div_ceil(CHUNK));
        let held = end - (self.chunks.len() - 1) * CHUNK;
        let last = self.chunks.last_mut().expect("n > 0 values left");
        if last.len() > held {
            own(last).truncate(held);
        }
        self.len = n;
    }

    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut E> {
        if i >= self.len {
            return None;
        }
        let at = self.skip + i;
        Some(&mut own(&mut self.chunks[at / CHUNK])[at % CHUNK])
    }

    /// Grows to `n` values with copies of `value` (never shrinks).
    pub fn resize(&mut self, n: usize, value: E) {
        while self.len < n {
            self.push(value.clone());
        }
    }

    pub fn to_vec(&self) -> Vec<E> {
        self.iter().cloned().collect()
    }
}

/// `chunk`, to write to: while a copy of the world shares it, this one copies it first (with room
/// for a whole chunk) and writes to its own from then on.
#[inline]
fn own<E: Clone>(chunk: &mut Rc<Vec<E>>) -> &mut Vec<E> {
    if Rc::get_mut(chunk).is_none() {
        let mut mine = Vec::with_capacity(CHUNK);
        mine.extend_from_slice(chunk);
        *chunk = Rc::new(mine);
    }
    Rc::get_mut(chunk).expect("not shared")
}

/// A run of a [`Chunked`]'s values, lent.
pub struct Iter<'a, E> {
    /// The chunks after the one being read.
    chunks: &'a [Rc<Vec<E>>],
    within: std::slice::Iter<'a, E>,
    left: usize,
}

impl<'a, E> Iterator for Iter<'a, E> {
    type Item = &'a E;

    fn next(&mut self) -> Option<&'a E> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if let Some(e) = self.within.next() {
            return Some(e);
        }
        let (next, rest) = self.chunks.split_first()?;
        self.chunks = rest;
        self.within = next.iter();
        self.within.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<E> ExactSizeIterator for Iter<'_, E> {}

impl<E> std::ops::Index<usize> for Chunked<E> {
    type Output = E;
    fn index(&self, i: usize) -> &E {
        self.get(i).expect("index within the vector")
    }
}

impl<E: Clone> std::ops::IndexMut<usize> for Chunked<E> {
    fn index_mut(&mut self, i: usize) -> &mut E {
        self.get_mut(i).expect("index within the vector")
    }
}

impl<E: Clone> FromIterator<E> for Chunked<E> {
    fn from_iter<I: IntoIterator<Item = E>>(values: I) -> Self {
        let mut v = Chunked::default();
        v.extend(values);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(log: &Chunked<u32>) -> Vec<u32> {
        log.iter().copied().collect()
    }

    /// The same operations on a `Vec` and on a `Chunked` (appends, truncations, drops from the
    /// front, writes), across chunk boundaries and with a copy taken before each, give the same
    /// values, and each copy keeps its own.
    #[test]
    fn a_chunked_vector_behaves_as_a_vector_and_its_copies_keep_their_values() {
        let mut log = Chunked::default();
        let mut vec = Vec::new();
        let mut copies = Vec::new();
        let mut next = 0u32;
        for round in 0..40usize {
            for _ in 0..(round * 37 % 300) {
                log.push(next);
                vec.push(next);
                next += 1;
            }
            copies.push((log.clone(), vec.clone()));
            match round % 4 {
                0 => {
                    let n = vec.len() * 2 / 3;
                    log.truncate(n);
                    vec.truncate(n);
                }
                1 => {
                    let n = vec.len() / 2;
                    log.drop_front(n);
                    vec.drain(..n);
                }
                2 => {
                    let n = (round * 53) % (vec.len() + 1);
                    log.drop_front(n);
                    vec.drain(..n);
                }
                _ => {
                    // Writes into chunks the copy just taken shares.
                    for i in (0..vec.len()).step_by(97) {
                        log[i] += 1_000_000;
                        vec[i] += 1_000_000;
                    }
                }
            }
            assert_eq!(all(&log), vec, "round {round}");
            assert_eq!(log.last(), vec.last());
            assert_eq!(log.get(vec.len()), None);
            let (a, b) = (vec.len() / 3, vec.len() / 2);
            assert_eq!(log.range(a..b).len(), b - a);
            assert_eq!(log.range(a..b).copied().collect::<Vec<_>>(), vec[a..b]);
            assert_eq!(log.range(a..).copied().collect::<Vec<_>>(), vec[a..]);
        }
        for (log, vec) in &copies {
            assert_eq!(&all(log), vec);
        }
        log.truncate(0);
        assert!(log.is_empty() && all(&log).is_empty());
    }
}
