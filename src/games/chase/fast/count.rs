//! The layered solver's game counters: how many games lie below a position, counted exactly in
//! the narrowest type that holds them.

use crate::truth::GameCount;

/// An exact game counter: `u128` where it provably suffices (checked), [`GameCount`] on larger
/// boards, `()` when counts are off (a cell in flight shrinks from 66 bytes to 2, which is
/// what lets the largest boards fit).
pub(super) trait Count: Copy + Default + Send + Sync {
    const ONE: Self;
    fn checked_add(self, other: Self) -> Option<Self>;
    fn wrapping_add(self, other: Self) -> Self;
    fn wide(self) -> Option<GameCount>;
}

impl Count for u128 {
    const ONE: u128 = 1;
    #[inline]
    fn checked_add(self, other: u128) -> Option<u128> {
        u128::checked_add(self, other)
    }
    #[inline]
    fn wrapping_add(self, other: u128) -> u128 {
        u128::wrapping_add(self, other)
    }
    fn wide(self) -> Option<GameCount> {
        Some(GameCount::from(self))
    }
}

impl Count for GameCount {
    const ONE: GameCount = GameCount::ONE;
    #[inline]
    fn checked_add(self, other: GameCount) -> Option<GameCount> {
        GameCount::checked_add(self, other)
    }
    #[inline]
    fn wrapping_add(self, other: GameCount) -> GameCount {
        GameCount::wrapping_add(self, other)
    }
    fn wide(self) -> Option<GameCount> {
        Some(self)
    }
}

impl Count for () {
    const ONE: () = ();
    #[inline]
    fn checked_add(self, _: ()) -> Option<()> {
        Some(())
    }
    #[inline]
    fn wrapping_add(self, _: ()) {}
    fn wide(self) -> Option<GameCount> {
        None
    }
}
