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

/// FNV-1a, stable across platforms and Rust versions (unlike `DefaultHasher`): for streams
/// forked by label, and for names and ids made from a text.
pub fn hash_label(label: &str) -> u64 {
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

    /// A random (version 4) UUID, as `uuid.New()` writes one.
    pub fn uuid(&mut self) -> String {
        let (a, b) = (self.next_u64(), self.next_u64());
        let a = (a & !0xf000) | 0x4000; // version 4
        let b = (b & !(0b11 << 62)) | (0b10 << 62); // RFC 4122 variant
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xffff,
            b >> 48,
            b & 0xffff_ffff_ffff
        )
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponentially distributed with mean `mean` (memoryless waiting times: MTBF, MTTR).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * ln(1.0 - self.unit())
    }
}

/// The natural logarithm of `x` > 0 from additions, multiplications and divisions only:
/// `f64::ln` calls the platform's libm, whose last bit differs between glibc and the wasm
/// build, and a run must draw the same faults natively and in the browser.
fn ln(x: f64) -> f64 {
    // x = m · 2^e with m in [√½, √2); ln m = 2 atanh(z), z = (m − 1)/(m + 1), |z| < 0.172.
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let (mut term, mut sum) = (z, 0.0);
    for k in 0..12 {
        sum += term / (2 * k + 1) as f64;
        term *= z2;
    }
    e as f64 * std::f64::consts::LN_2 + 2.0 * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_and_differ() {
        let mut r = Rng::new(7);
        let (a, b) = (r.uuid(), r.uuid());
        assert_ne!(a, b);
        for u in [a, b] {
            let groups: Vec<&str> = u.split('-').collect();
            assert_eq!(
                groups.iter().map(|g| g.len()).collect::<Vec<_>>(),
                [8, 4, 4, 4, 12]
            );
            assert!(groups[2].starts_with('4'), "{u}");
            assert!("89ab".contains(&groups[3][..1]), "{u}");
        }
    }

    #[test]
    fn the_logarithm_agrees_with_libm_and_the_mean_is_kept() {
        use std::f64::consts::FRAC_1_SQRT_2;
        for x in [
            1e-300,
            1e-9,
            0.001,
            0.3,
            0.5,
            FRAC_1_SQRT_2 - 1e-9,
            FRAC_1_SQRT_2 + 1e-9,
            0.999_999,
            1.0,
            1.5,
            1e6,
        ] {
            let (ours, libm) = (ln(x), x.ln());
            assert!(
                (ours - libm).abs() <= 4.0 * f64::EPSILON * libm.abs().max(1.0),
                "{x}: {ours} vs {libm}"
            );
        }
        let mut r = Rng::new(3);
        let n = 100_000;
        let mean = (0..n).map(|_| r.exponential(10.0)).sum::<f64>() / n as f64;
        // The standard error of the mean of n exponentials of mean 10 is 10/√n ≈ 0.03.
        assert!((mean - 10.0).abs() < 0.15, "{mean}");
    }

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
