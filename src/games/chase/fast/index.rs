//! The layered solver's dense index: the pawn sets numbered layer by layer (a position is
//! `set_index * squares + runner`, each layer one contiguous range), one bit per dense index
//! with a popcount directory for compact ids, and the work units the sweeps split a layer into.

use std::sync::atomic::AtomicU64;

use super::Chase;

/// Bits per parallel work unit (a multiple of 64).
pub(super) const CHUNK_BITS: u64 = 1 << 12;

/// The pawn sets of a board numbered layer by layer.
pub(super) struct PawnSets {
    pub(super) k: usize,
    pub(super) squares: usize,
    /// C(s, i) for s <= squares, i <= k, at `s * (k + 1) + i`.
    pub(super) binom: Vec<u64>,
    /// Colex rank -> layer-major index.
    pub(super) perm: Vec<u32>,
    /// Layer-major index -> set, packed by [`pack`]: 8 bytes where the `u128` would take 16.
    pub(super) packed: Vec<u64>,
    /// Layer P holds indices `offsets[P]..offsets[P + 1]`.
    pub(super) offsets: Vec<usize>,
}

/// A set of at most 8 squares below 128 as its squares in ascending order, 7 bits each.
#[inline]
pub(super) fn pack(mut set: u128) -> u64 {
    let mut packed = 0u64;
    let mut shift = 0;
    while set != 0 {
        packed |= (set.trailing_zeros() as u64) << shift;
        shift += 7;
        set &= set - 1;
    }
    packed
}

impl PawnSets {
    /// Memory per set, all the solve long: its place in the layer order (4 bytes) and the set
    /// packed (8). Nothing else is allocated per set.
    pub(super) const BYTES_PER_SET: u64 = 4 + 8;

    pub(super) fn new(chase: &Chase) -> PawnSets {
        let geo = chase.geometry();
        let (k, squares, half) = (geo.pawn_count, geo.squares, geo.half);
        debug_assert!(k <= 8 && squares <= 128, "a set packs into 56 bits");
        let mut binom = vec![0u64; (squares + 1) * (k + 1)];
        for s in 0..=squares {
            for i in 0..=k {
                binom[s * (k + 1) + i] = super::super::binomial(s as u64, i as u64).expect("fits");
            }
        }
        let total = binom[squares * (k + 1) + k] as usize;
        let layer = |set: u128| -> usize {
            let (mut p, mut b) = (0, set);
            while b != 0 {
                p += b.trailing_zeros() as usize / half;
                b &= b - 1;
            }
            p
        };
        let layers = k * (geo.size - 1) + 1;
        let first: u128 = if k == 0 { 0 } else { (1u128 << k) - 1 };
        // Two walks over the sets (the layer is computed twice rather than stored: a byte a
        // set is 156 MB on 12x12).
        let mut counts = vec![0usize; layers + 1];
        let mut set = first;
        for _ in 0..total {
            counts[layer(set) + 1] += 1;
            set = next_combination(set);
        }
        for l in 0..layers {
            counts[l + 1] += counts[l];
        }
        let offsets = counts.clone();
        let mut next = counts;
        let mut perm = vec![0u32; total];
        let mut packed = vec![0u64; total];
        let mut set = first;
        for place in perm.iter_mut() {
            let l = layer(set);
            let i = next[l];
            next[l] += 1;
            *place = i as u32;
            packed[i] = pack(set);
            set = next_combination(set);
        }
        PawnSets {
            k,
            squares,
            binom,
            perm,
            packed,
            offsets,
        }
    }

    /// The set with layer-major index `i`.
    #[inline]
    pub(super) fn set(&self, i: usize) -> u128 {
        let mut packed = self.packed[i];
        let mut set = 0u128;
        for _ in 0..self.k {
            set |= 1u128 << (packed & 127);
            packed >>= 7;
        }
        set
    }

    #[inline]
    pub(super) fn index(&self, mut set: u128) -> usize {
        let mut rank = 0;
        let mut i = 1;
        while set != 0 {
            let s = set.trailing_zeros() as usize;
            rank += self.binom[s * (self.k + 1) + i];
            i += 1;
            set &= set - 1;
        }
        self.perm[rank as usize] as usize
    }

    pub(super) fn layers(&self) -> usize {
        self.offsets.len() - 1
    }

    pub(super) fn len(&self) -> usize {
        self.packed.len()
    }
}

/// The next larger integer with the same number of ones (colex order of sets).
#[inline]
pub(super) fn next_combination(x: u128) -> u128 {
    if x == 0 {
        return 0;
    }
    let c = x & x.wrapping_neg();
    let r = x.wrapping_add(c);
    if r == 0 {
        return 0;
    }
    (((r ^ x) >> 2) / c) | r
}

/// One bit per dense index, with a popcount directory for compact ids.
pub(super) struct Bits {
    pub(super) words: Vec<u64>,
    /// The directory, per block of 8 words (and one past the last word): the set bits before
    /// the block, and those before each of its words 1..7 within it, 9 bits each. A quarter of
    /// the bits' own size (a count per word would double them: 2.8 GB on 12x12).
    pub(super) blocks: Vec<[u64; 2]>,
    pub(super) ones: u64,
}

impl Bits {
    /// Directory bytes for `words` words.
    pub(super) fn directory_bytes(words: u64) -> u64 {
        (words / 8 + 1) * std::mem::size_of::<[u64; 2]>() as u64
    }

    pub(super) fn from_atomic(words: Vec<AtomicU64>) -> Bits {
        // Collected in place (same size and alignment): no second copy of the bits.
        let words: Vec<u64> = words.into_iter().map(AtomicU64::into_inner).collect();
        let mut blocks = Vec::with_capacity(words.len() / 8 + 1);
        let mut ones = 0u64;
        for b in 0..=words.len() / 8 {
            let block = &words[(8 * b).min(words.len())..(8 * b + 8).min(words.len())];
            let (mut within, mut inside) = (0u64, 0u64);
            for j in 0..8 {
                if j > 0 {
                    within |= inside << (9 * (j - 1));
                }
                inside += block.get(j).map_or(0, |w| w.count_ones() as u64);
            }
            blocks.push([ones, within]);
            ones += inside;
        }
        Bits {
            words,
            blocks,
            ones,
        }
    }
    #[inline]
    pub(super) fn get(&self, i: u64) -> bool {
        self.words[(i >> 6) as usize] >> (i & 63) & 1 != 0
    }
    /// Set bits before position `i` (`i` up to the number of bits).
    #[inline]
    pub(super) fn rank(&self, i: u64) -> u64 {
        let w = (i >> 6) as usize;
        let [before, within] = self.blocks[w >> 3];
        let j = w & 7;
        let inside = if j == 0 {
            0
        } else {
            within >> (9 * (j - 1)) & 0x1ff
        };
        let low = i & 63;
        let partial = if low == 0 {
            0
        } else {
            (self.words[w] << (64 - low)).count_ones() as u64
        };
        before + inside + partial
    }
    /// The compact id of a set bit.
    #[inline]
    pub(super) fn id(&self, i: u64) -> Option<u64> {
        self.get(i).then(|| self.rank(i))
    }
    pub(super) fn ones(&self) -> u64 {
        self.ones
    }
}

/// Calls `f(index)` for every set bit in `range`, in ascending order.
#[inline]
pub(super) fn for_ones(words: &[u64], range: std::ops::Range<u64>, f: impl FnMut(u64)) {
    for_ones_with(|w| words[w], range, f)
}

/// [`for_ones`] over words read by `word(i)`.
#[inline]
pub(super) fn for_ones_with(
    word: impl Fn(usize) -> u64,
    range: std::ops::Range<u64>,
    mut f: impl FnMut(u64),
) {
    if range.start >= range.end {
        return;
    }
    let (first, last) = (range.start >> 6, (range.end - 1) >> 6);
    for w in first..=last {
        let mut bits = word(w as usize);
        if w == first {
            bits &= u64::MAX << (range.start & 63);
        }
        if w == last {
            let end = range.end - (w << 6);
            if end < 64 {
                bits &= (1u64 << end) - 1;
            }
        }
        while bits != 0 {
            f((w << 6) + bits.trailing_zeros() as u64);
            bits &= bits - 1;
        }
    }
}

pub(super) fn chunks(range: std::ops::Range<u64>) -> Vec<std::ops::Range<u64>> {
    let mut out = Vec::new();
    let mut a = range.start;
    while a < range.end {
        let b = ((a / CHUNK_BITS + 1) * CHUNK_BITS).min(range.end);
        out.push(a..b);
        a = b;
    }
    out
}

/// Splits `slice` into consecutive pieces of the given lengths.
pub(super) fn split_lengths<'a, T>(mut slice: &'a mut [T], lengths: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(lengths.len());
    for &n in lengths {
        let (a, b) = slice.split_at_mut(n);
        out.push(a);
        slice = b;
    }
    out
}
