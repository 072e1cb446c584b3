//! Stable sorting with one compiled copy of the algorithm for every element type.
//!
//! The standard library's sorts are instantiated per element type and comparator, each
//! several kilobytes of wasm; the browser bundle has a size budget and none of these sorts is
//! hot. So the order is computed once, on indices, through a comparator behind a pointer, and
//! only the final move of the elements is generic. Equal elements keep their order.

use std::cmp::Ordering;

/// Sorts `v` stably by the key `key` gives each element.
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably in its natural order.
pub fn sort<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, T::cmp);
}

/// Sorts `v` stably by `cmp`.
pub fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = stable_order(v.len(), &|i, j| cmp(&v[i], &v[j]) == Ordering::Greater);
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    v.extend(
        order
            .into_iter()
            .map(|i| slots[i].take().expect("an order is a permutation")),
    );
}

/// The positions of `0..n` in stable sorted order, by a bottom-up merge sort.
fn stable_order(n: usize, greater: &dyn Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut b = vec![0; n];
    let mut width = 1;
    while width < n {
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j) = (lo, mid);
            for slot in &mut b[lo..hi] {
                // Take from the right run only when it is strictly smaller: that keeps ties in order.
                if j < hi && (i == mid || greater(a[i], a[j])) {
                    *slot = a[j];
                    j += 1;
                } else {
                    *slot = a[i];
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::rng::Rng;

    #[test]
    fn agrees_with_the_standard_stable_sort() {
        let mut rng = Rng::new(7);
        for n in 0..70 {
            let v: Vec<(u8, usize)> = (0..n).map(|i| ((rng.next_u64() % 5) as u8, i)).collect();
            let mut ours = v.clone();
            sort_by_key(&mut ours, |e| e.0);
            let mut std_sorted = v;
            std_sorted.sort_by_key(|e| e.0);
            assert_eq!(ours, std_sorted, "n = {n}");
        }
    }
}
