//! A small seeded PRNG (SplitMix64), forked per host and subsystem.
//!
//! Forking derives a child stream from the parent's seed and a label, not from the
//! parent's position, so adding a host or a subsystem never shifts the draws of
//! the others. No ambient randomness exists anywhere in the core.

/// A deterministic random stream.
#[derive(Clone, Debug)]
pub struct Rng {
    seed: u64,
    state: u64,
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a, stable across platforms and Rust versions (unlike `DefaultHasher`).
fn hash_label(label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng {
            seed,
            state: mix(seed),
        }
    }

    /// An independent stream named by `label` (e.g. `"etcd/etcd-1"`).
    pub fn fork(&self, label: &str) -> Rng {
        Rng::new(mix(self.seed ^ hash_label(label)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.state)
    }

    /// Uniform in `[0, n)`; `n` must be > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        // Multiply-shift: unbiased enough for a simulation and branch-free.
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `[lo, hi)`; returns `lo` when the range is empty.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            lo + self.below(hi - lo)
        }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn forks_are_independent_of_parent_position() {
        let parent = Rng::new(7);
        let mut moved = parent.clone();
        moved.next_u64();
        assert_eq!(
            parent.fork("etcd-1").next_u64(),
            moved.fork("etcd-1").next_u64()
        );
        assert_ne!(
            parent.fork("etcd-1").next_u64(),
            parent.fork("etcd-2").next_u64()
        );
    }

    #[test]
    fn range_stays_in_bounds() {
        let mut r = Rng::new(1);
        for _ in 0..10_000 {
            let x = r.range(10, 20);
            assert!((10..20).contains(&x));
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
