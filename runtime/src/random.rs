//! Deterministic random tensor data: SplitMix64 streams, one per fixed-size chunk of
//! elements, so the values depend only on the seed (never on how many threads filled
//! them) and large tensors fill in parallel.

use kir::Element;

use crate::element::{encode, is_float};

/// Elements per independently seeded chunk.
const CHUNK: usize = 1 << 16;

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// Standard normal (integers: the normal value times 16, truncated).
    Normal,
    /// Uniform in [0, 1) (integers: uniform in 0..128).
    Uniform,
}

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct Generator(u64);

impl Generator {
    /// A generator whose stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Generator(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in [0, 1), with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Two independent standard normal values (Box-Muller).
    pub fn normal_pair(&mut self) -> (f64, f64) {
        let radius = (-2.0 * (1.0 - self.uniform()).ln()).sqrt();
        let (sin, cos) = (std::f64::consts::TAU * self.uniform()).sin_cos();
        (radius * cos, radius * sin)
    }
}

/// SplitMix64's finaliser: a bijection that scatters nearby inputs.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A seed from a name (FNV-1a), so each test draws its own data, the same every run.
pub fn seed_of(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// `count` elements of `element` drawn from `distribution`, encoded.
pub fn fill(element: Element, count: usize, distribution: Distribution, seed: u64) -> Vec<u8> {
    let width = element.bytes();
    let mut bytes = vec![0u8; count * width];
    let chunks: Vec<(usize, &mut [u8])> = bytes.chunks_mut(CHUNK * width).enumerate().collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(chunks.len().max(1));
    let mut shares: Vec<Vec<(usize, &mut [u8])>> = (0..threads).map(|_| Vec::new()).collect();
    for (index, chunk) in chunks {
        shares[index % threads].push((index, chunk));
    }
    std::thread::scope(|scope| {
        for share in shares {
            scope.spawn(move || {
                for (index, chunk) in share {
                    fill_chunk(element, distribution, seed ^ mix(index as u64 + 1), chunk);
                }
            });
        }
    });
    bytes
}

fn fill_chunk(element: Element, distribution: Distribution, seed: u64, chunk: &mut [u8]) {
    let mut generator = Generator::new(seed);
    let float = is_float(element);
    let mut spare = None;
    let mut normal = |generator: &mut Generator| {
        spare.take().unwrap_or_else(|| {
            let (first, second) = generator.normal_pair();
            spare = Some(second);
            first
        })
    };
    for out in chunk.chunks_exact_mut(element.bytes()) {
        let value = match (distribution, float) {
            (Distribution::Normal, true) => normal(&mut generator),
            (Distribution::Normal, false) => (normal(&mut generator) * 16.0).trunc(),
            (Distribution::Uniform, true) => generator.uniform(),
            (Distribution::Uniform, false) => (generator.next_u64() % 128) as f64,
        };
        encode(element, value, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::decode;

    #[test]
    fn the_same_seed_draws_the_same_data_and_another_does_not() {
        let a = fill(Element::F32, 200_000, Distribution::Normal, 7);
        let b = fill(Element::F32, 200_000, Distribution::Normal, 7);
        let c = fill(Element::F32, 200_000, Distribution::Normal, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn normal_data_has_mean_zero_and_variance_one_and_no_zeros() {
        let bytes = fill(Element::F32, 100_000, Distribution::Normal, 1);
        let values: Vec<f64> = bytes
            .chunks_exact(4)
            .map(|b| decode(Element::F32, b))
            .collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!((variance - 1.0).abs() < 0.03, "variance {variance}");
        assert!(values.iter().all(|v| v.is_finite() && *v != 0.0));
    }

    #[test]
    fn uniform_data_lies_in_the_unit_interval() {
        let bytes = fill(Element::BF16, 10_000, Distribution::Uniform, 3);
        let values: Vec<f64> = bytes
            .chunks_exact(2)
            .map(|b| decode(Element::BF16, b))
            .collect();
        assert!(values.iter().all(|v| (0.0..=1.0).contains(v)));
        assert!(values.iter().any(|v| *v > 0.9) && values.iter().any(|v| *v < 0.1));
    }

    #[test]
    fn seeds_differ_per_name() {
        assert_ne!(seed_of("copy_is_exact"), seed_of("copy_is_exact2"));
        assert_eq!(seed_of("x"), seed_of("x"));
    }
}
