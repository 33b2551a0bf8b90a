//! FNV-1a, the hash of fingerprints and seeds that must not move: the same on every platform
//! and release (a config's hash, a bootstrap's seed, a game's id across the Python front).

/// The starting state of FNV-1a (64 bits).
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of `bytes` continued from state `h` (start from [`FNV_OFFSET`]): a hash that
/// is the same on every platform and release, for fingerprints and seeds that must not move.
pub fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
