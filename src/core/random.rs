//! The random numbers of the crate: one named generator, and independent seeds per stream.

use rand::SeedableRng;

/// The random number generator of every random choice in the crate: xoshiro256++, a named
/// algorithm, so a seed gives the same numbers on every platform and release.
pub type SgRng = rand::rngs::Xoshiro256PlusPlus;

/// A generator seeded with `seed`.
pub fn rng(seed: u64) -> SgRng {
    SgRng::seed_from_u64(seed)
}

/// An independent seed for stream `stream` of a run seeded with `seed` (SplitMix64 mixing),
/// so that e.g. the learner and the environment of one run draw unrelated numbers.
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
