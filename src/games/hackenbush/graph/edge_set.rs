//! [`EdgeSet`]: a set of edge ids, the edges still alive in a position. A bit set held inline
//! (no allocation) up to 128 edges and on the heap beyond, since most positions are small and
//! the solvers hash and copy millions of them.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A set of edge ids: the edges still alive in a position. A bitset of any size; sets of up to
/// 128 edges live inline without allocating. Equality, hashing and order depend only on the
/// members, not on the capacity the set was made with.
#[derive(Clone)]
pub struct EdgeSet {
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    Small([u64; 2]),
    Large(Vec<u64>),
}

pub(super) const INLINE_BITS: usize = 128;

impl EdgeSet {
    /// The empty set, with room for ids below `capacity` (it grows if needed).
    pub fn empty(capacity: usize) -> EdgeSet {
        let repr = if capacity <= INLINE_BITS {
            Repr::Small([0; 2])
        } else {
            Repr::Large(vec![0; capacity.div_ceil(64)])
        };
        EdgeSet { repr }
    }

    /// The set as 128 bits, when it is held inline.
    #[inline]
    pub(super) fn small_bits(&self) -> Option<u128> {
        match &self.repr {
            Repr::Small(w) => Some(w[0] as u128 | (w[1] as u128) << 64),
            Repr::Large(_) => None,
        }
    }

    /// The set of the ids whose bits are set.
    #[inline]
    pub(super) fn from_small_bits(bits: u128) -> EdgeSet {
        EdgeSet {
            repr: Repr::Small([bits as u64, (bits >> 64) as u64]),
        }
    }

    /// The ids `0..n`.
    pub fn full(n: usize) -> EdgeSet {
        let mut s = EdgeSet::empty(n);
        let words = s.words_mut();
        for (i, w) in words.iter_mut().enumerate() {
            let lo = i * 64;
            if lo + 64 <= n {
                *w = u64::MAX;
            } else if lo < n {
                *w = (1u64 << (n - lo)) - 1;
            }
        }
        s
    }

    /// The set of the given ids.
    pub fn from_ids(capacity: usize, ids: impl IntoIterator<Item = usize>) -> EdgeSet {
        let mut s = EdgeSet::empty(capacity);
        for i in ids {
            s.insert(i);
        }
        s
    }

    fn words(&self) -> &[u64] {
        match &self.repr {
            Repr::Small(w) => w,
            Repr::Large(v) => v,
        }
    }

    fn words_mut(&mut self) -> &mut [u64] {
        match &mut self.repr {
            Repr::Small(w) => w,
            Repr::Large(v) => v,
        }
    }

    /// The words without trailing zero words: what equality, hashing and order look at.
    fn trimmed(&self) -> &[u64] {
        let w = self.words();
        let mut n = w.len();
        while n > 0 && w[n - 1] == 0 {
            n -= 1;
        }
        &w[..n]
    }

    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        let w = self.words();
        i / 64 < w.len() && (w[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Adds `i`; whether it was new.
    #[inline]
    pub fn insert(&mut self, i: usize) -> bool {
        if let Repr::Small(w) = &mut self.repr
            && i < INLINE_BITS
        {
            let bit = 1u64 << (i % 64);
            let new = w[i / 64] & bit == 0;
            w[i / 64] |= bit;
            return new;
        }
        if i / 64 >= self.words().len() {
            let mut v = self.words().to_vec();
            v.resize(i / 64 + 1, 0);
            self.repr = Repr::Large(v);
        }
        let w = &mut self.words_mut()[i / 64];
        let bit = 1u64 << (i % 64);
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    /// Removes `i`; whether it was there.
    #[inline]
    pub fn remove(&mut self, i: usize) -> bool {
        if !self.contains(i) {
            return false;
        }
        self.words_mut()[i / 64] &= !(1u64 << (i % 64));
        true
    }

    pub fn count(&self) -> usize {
        self.words().iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words().iter().all(|&w| w == 0)
    }

    /// The smallest member.
    pub fn first(&self) -> Option<usize> {
        self.iter().next()
    }

    /// The members in increasing order.
    pub fn iter(&self) -> EdgeSetIter<'_> {
        let words = self.words();
        EdgeSetIter {
            words,
            index: 0,
            current: words.first().copied().unwrap_or(0),
        }
    }

    /// Whether every member of `self` is in `other`.
    pub fn is_subset(&self, other: &EdgeSet) -> bool {
        let o = other.words();
        self.words()
            .iter()
            .enumerate()
            .all(|(i, &w)| w & !o.get(i).copied().unwrap_or(0) == 0)
    }

    /// The members of both.
    pub fn intersection(&self, other: &EdgeSet) -> EdgeSet {
        let mut out = self.clone();
        let o = other.words();
        for (i, w) in out.words_mut().iter_mut().enumerate() {
            *w &= o.get(i).copied().unwrap_or(0);
        }
        out
    }

    /// The members of either.
    pub fn union(&self, other: &EdgeSet) -> EdgeSet {
        let (mut out, small) = if self.words().len() >= other.words().len() {
            (self.clone(), other)
        } else {
            (other.clone(), self)
        };
        for (w, s) in out.words_mut().iter_mut().zip(small.words()) {
            *w |= s;
        }
        out
    }
}

/// The members of an [`EdgeSet`], increasing.
pub struct EdgeSetIter<'a> {
    words: &'a [u64],
    index: usize,
    current: u64,
}

impl Iterator for EdgeSetIter<'_> {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.current != 0 {
                let bit = self.current.trailing_zeros() as usize;
                self.current &= self.current - 1;
                return Some(self.index * 64 + bit);
            }
            self.index += 1;
            self.current = *self.words.get(self.index)?;
        }
    }
}

impl PartialEq for EdgeSet {
    fn eq(&self, other: &EdgeSet) -> bool {
        self.trimmed() == other.trimmed()
    }
}

impl Eq for EdgeSet {}

impl Hash for EdgeSet {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.trimmed().hash(state);
    }
}

impl Ord for EdgeSet {
    /// Some total order consistent with equality (lexicographic on the 64-bit words).
    fn cmp(&self, other: &EdgeSet) -> Ordering {
        self.trimmed().cmp(other.trimmed())
    }
}

impl PartialOrd for EdgeSet {
    fn partial_cmp(&self, other: &EdgeSet) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for EdgeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_sets() {
        let mut s = EdgeSet::empty(10);
        assert!(s.is_empty());
        assert!(s.insert(3));
        assert!(!s.insert(3));
        assert!(s.insert(200));
        assert!(s.contains(200) && s.contains(3) && !s.contains(4));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 200]);
        assert_eq!(s.count(), 2);
        assert!(s.remove(200));
        // Equal to a small set with the same members despite the wider storage.
        let t = EdgeSet::from_ids(10, [3]);
        assert_eq!(s, t);
        let hash = |x: &EdgeSet| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            x.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&s), hash(&t));
        assert_eq!(s.cmp(&t), Ordering::Equal);
        assert_eq!(EdgeSet::full(130).count(), 130);
        assert_eq!(EdgeSet::full(128).count(), 128);
        assert_eq!(EdgeSet::full(64).iter().last(), Some(63));
        let a = EdgeSet::from_ids(300, [1, 299]);
        let b = EdgeSet::from_ids(5, [1, 2]);
        assert_eq!(a.union(&b).iter().collect::<Vec<_>>(), vec![1, 2, 299]);
        assert_eq!(a.intersection(&b).iter().collect::<Vec<_>>(), vec![1]);
        assert!(EdgeSet::from_ids(5, [1]).is_subset(&a));
        assert!(!b.is_subset(&a));
        assert_eq!(format!("{:?}", b), "{1, 2}");
    }
}
