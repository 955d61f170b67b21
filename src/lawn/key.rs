//! [`TimerKey`]: the name of one timer in a [`Lawn`].

use std::fmt;
use std::num::{NonZeroU32, NonZeroU64};

// For the intra-doc links of the docs below.
#[cfg(doc)]
use super::Lawn;

/// Names a timer in a [`Lawn`]. Cheap to copy; see [Keys](super#keys).
///
/// # Examples
///
/// ```
/// use lawn_rt::lawn::Lawn;
///
/// let mut lawn = Lawn::new();
/// let key = lawn.insert(0, 5, 'x');
/// assert_eq!(lawn.deadline(key), Some(5));
/// assert_eq!(lawn.remove(key), Some('x'));
/// assert_eq!(lawn.remove(key), None); // stale now
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerKey {
    /// The slot index in the high 32 bits, its generation (never zero) in
    /// the low 32: one word, so that a key is stored and loaded whole. (As
    /// two `u32` fields, a key returned through memory was written with two
    /// 32-bit stores and read back with one 64-bit load, which cannot be
    /// forwarded from the stores: a stall on every reset that moved a
    /// timer; docs/decisions/later-reset-in-place.md.) The order is the
    /// index's, then the generation's, as before.
    raw: NonZeroU64,
}

impl TimerKey {
    #[inline]
    pub(super) fn new(index: u32, gen: NonZeroU32) -> TimerKey {
        TimerKey {
            raw: NonZeroU64::from(gen) | u64::from(index) << 32,
        }
    }

    /// The slot index.
    #[inline]
    pub(super) fn index(self) -> u32 {
        (self.raw.get() >> 32) as u32
    }

    /// The slot's generation when the key was made.
    #[inline]
    pub(super) fn gen(self) -> NonZeroU32 {
        // Never zero (see `raw`); a zero would only make the key stale.
        NonZeroU32::new(self.raw.get() as u32).unwrap_or(NonZeroU32::MAX)
    }

    /// The key as one word (never zero): for the timer driver, which keeps
    /// one Lawn per slack level and tags the level into the index's top
    /// bits, and for a `Sleep`, which stores its key in a word.
    #[inline]
    pub(crate) fn to_bits(self) -> NonZeroU64 {
        self.raw
    }

    /// The inverse of [`to_bits`](TimerKey::to_bits). Bits that no key
    /// gave make a key that names no timer (its generation cannot match).
    #[inline]
    pub(crate) fn from_bits(bits: NonZeroU64) -> TimerKey {
        TimerKey { raw: bits }
    }
}

impl fmt::Debug for TimerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TimerKey({}v{})", self.index(), self.gen())
    }
}
