//! The near window: one FIFO per deadline tick for timers due soon.
//!
//! Timers whose deadline is within [`NEAR`] ticks of the earliest one in the
//! window are filed in slot `deadline % NEAR`, found through a two-level
//! bitmap. Every timer in a slot has the same deadline, so a slot is an exact
//! bucket that costs no heap traffic: filing and expiring are O(1), and the
//! next deadline is a bitmap scan of at most a few words.
//!
//! Ground rule: every deadline in the window lies in `[min, min + NEAR)`,
//! where `min` is the window's earliest deadline. [`Near::admits`] enforces
//! it, which is what makes `deadline % NEAR` unique per slot and lets a scan
//! that starts at `min` find the next deadline by position alone.
//!
//! This is where the last stage of a re-filed timer lands (under 1/64 of its
//! TTL is left), and where short timers (sleeps of a few milliseconds) go
//! straight away; long TTLs stay in the Lawn's buckets.

use super::slab::{Ends, NIL};

/// The `bucket` of a node in the window (never a real bucket id).
pub(super) const NEAR_BUCKET: u16 = u16::MAX - 1;

/// Ticks covered by the window (a power of two, at most 64 * 64).
pub(super) const NEAR: u64 = 4096;
const WORDS: usize = (NEAR / 64) as usize;

#[derive(Debug, Clone)]
pub(super) struct Near {
    /// Allocated on first use.
    slots: Vec<Ends>,
    /// Bit `i % 64` of word `i / 64`: slot `i` is non-empty.
    words: [u64; WORDS],
    /// Bit `w`: word `w` is non-zero.
    summary: u64,
    /// Earliest deadline in the window, `u64::MAX` when empty.
    min: u64,
    /// Non-empty slots.
    live: usize,
    /// The slab chunk near timers are allocated from.
    pub(super) open: u32,
}

impl Near {
    pub(super) const fn new() -> Self {
        Near {
            slots: Vec::new(),
            words: [0; WORDS],
            summary: 0,
            min: u64::MAX,
            live: 0,
            open: NIL,
        }
    }

    /// Earliest deadline in the window, if any.
    #[inline]
    pub(super) fn next(&self) -> Option<u64> {
        (self.min != u64::MAX).then_some(self.min)
    }

    /// Non-empty slots (each is a bucket).
    pub(super) fn live(&self) -> usize {
        self.live
    }

    /// Whether a timer due at `deadline` (no earlier than `base`, the current
    /// tick) may be filed here without breaking the ground rule.
    #[inline]
    pub(super) fn admits(&self, base: u64, deadline: u64) -> bool {
        let window = if self.min == u64::MAX { base } else { self.min };
        // `u64::MAX` is the empty marker; saturated deadlines stay out.
        deadline >= window && deadline - window < NEAR && deadline >= base && deadline < u64::MAX
    }

    /// The slot for `deadline`, which must be admitted or already present.
    #[inline]
    pub(super) fn slot(&self, deadline: u64) -> Ends {
        self.slots[(deadline % NEAR) as usize]
    }

    #[inline]
    pub(super) fn slot_mut(&mut self, deadline: u64) -> &mut Ends {
        if self.slots.is_empty() {
            self.slots = vec![Ends::EMPTY; NEAR as usize];
        }
        &mut self.slots[(deadline % NEAR) as usize]
    }

    /// Records that the slot for `deadline` went from empty to non-empty.
    #[inline]
    pub(super) fn occupied(&mut self, deadline: u64) {
        let i = (deadline % NEAR) as usize;
        self.words[i / 64] |= 1 << (i % 64);
        self.summary |= 1 << (i / 64);
        self.live += 1;
        self.min = self.min.min(deadline);
    }

    /// Records that the slot for `deadline` emptied.
    #[inline]
    pub(super) fn emptied(&mut self, deadline: u64) {
        let i = (deadline % NEAR) as usize;
        self.words[i / 64] &= !(1 << (i % 64));
        if self.words[i / 64] == 0 {
            self.summary &= !(1 << (i / 64));
        }
        self.live -= 1;
        if deadline == self.min {
            self.min = match self.first_from(i) {
                // Slot positions past `min` map to deadlines in order.
                Some(j) => deadline + ((j + NEAR as usize - i) % NEAR as usize) as u64,
                None => u64::MAX,
            };
        }
    }

    /// First non-empty slot at or after `from`, wrapping around.
    fn first_from(&self, from: usize) -> Option<usize> {
        let (w, b) = (from / 64, from % 64);
        let here = self.words[w] & (u64::MAX << b);
        if here != 0 {
            return Some(w * 64 + here.trailing_zeros() as usize);
        }
        let later = if w == 63 {
            0
        } else {
            self.summary & (u64::MAX << (w + 1))
        };
        let word = if later != 0 {
            later.trailing_zeros() as usize
        } else if self.summary != 0 {
            // Wrap: the lowest non-empty word (possibly `w` itself, below `b`).
            self.summary.trailing_zeros() as usize
        } else {
            return None;
        };
        Some(word * 64 + self.words[word].trailing_zeros() as usize)
    }

    /// The latest deadline in the window at or before `t`, if any.
    pub(super) fn last_by(&self, t: u64) -> Option<u64> {
        if self.min == u64::MAX || t < self.min {
            return None;
        }
        let hi_abs = t.min(self.min.saturating_add(NEAR - 1));
        let (lo, hi) = ((self.min % NEAR) as usize, (hi_abs % NEAR) as usize);
        let near = NEAR as usize;
        let offset = if lo <= hi {
            self.last_set_in(lo, hi)? - lo
        } else {
            // The range wraps: its later part is slots 0..=hi.
            match self.last_set_in(0, hi) {
                Some(j) => near - lo + j,
                None => self.last_set_in(lo, near - 1)? - lo,
            }
        };
        Some(self.min + offset as u64)
    }

    /// The last non-empty slot in `lo..=hi` (no wrapping).
    fn last_set_in(&self, lo: usize, hi: usize) -> Option<usize> {
        let (first, last) = (lo / 64, hi / 64);
        for w in (first..=last).rev() {
            if self.summary & (1 << w) == 0 {
                continue;
            }
            let mut word = self.words[w];
            if w == last && hi % 64 != 63 {
                word &= (1 << (hi % 64 + 1)) - 1;
            }
            if w == first {
                word &= u64::MAX << (lo % 64);
            }
            if word != 0 {
                return Some(w * 64 + 63 - word.leading_zeros() as usize);
            }
        }
        None
    }

    /// Deadlines of the non-empty slots, earliest first (for the self-check).
    pub(super) fn deadlines(&self) -> Vec<u64> {
        if self.min == u64::MAX {
            return Vec::new();
        }
        let start = (self.min % NEAR) as usize;
        (0..NEAR as usize)
            .map(|k| (start + k) % NEAR as usize)
            .filter(|&i| self.words[i / 64] & (1 << (i % 64)) != 0)
            .map(|i| self.min + ((i + NEAR as usize - start) % NEAR as usize) as u64)
            .collect()
    }

    /// Checks the bitmaps against each other and against the slots.
    pub(super) fn check(&self) -> Result<(), String> {
        for (w, &word) in self.words.iter().enumerate() {
            if (word != 0) != (self.summary & (1 << w) != 0) {
                return Err(format!("near summary bit {w} is stale"));
            }
        }
        let set: usize = self.words.iter().map(|w| w.count_ones() as usize).sum();
        if set != self.live {
            return Err(format!(
                "near window: {set} slots marked, {} live",
                self.live
            ));
        }
        for (i, slot) in self.slots.iter().enumerate() {
            let marked = self.words[i / 64] & (1 << (i % 64)) != 0;
            if marked != (slot.head != NIL) || (slot.head == NIL) != (slot.tail == NIL) {
                return Err(format!("near slot {i} disagrees with its bit"));
            }
        }
        if (self.min == u64::MAX) != (self.live == 0) {
            return Err("near window min is stale".into());
        }
        Ok(())
    }

    pub(super) fn allocated_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Ends>()
    }
}
