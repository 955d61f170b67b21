//! Hierarchical timing wheel, 6 levels x 64 slots (the design of tokio's
//! timer driver), written for the benchmarks.
//!
//! * Level `l` has 64 slots of `64^l` ticks each, so the wheel spans
//!   `64^6 = 2^36` ticks (~2.2 years at 1 ms). `elapsed` is the wheel's
//!   current time. A timer with deadline `d > elapsed` lives at the level
//!   given by the highest bit in which `d` and `elapsed` differ
//!   (`level = msb(d ^ elapsed) / 6`), in slot `(d >> 6*level) % 64`.
//!   Consequently every timer at level `l` is within the current
//!   `64^(l+1)`-aligned block of `elapsed`, and occupied slots of lower levels
//!   always start before those of higher levels.
//! * Each level keeps a 64-bit occupancy mask; the next slot to process is
//!   found with a rotate + `trailing_zeros` per level. The result is cached
//!   (invalidated only when that slot empties or is processed, refreshed when
//!   an earlier slot is filled), so an empty tick is O(1).
//! * When `elapsed` reaches the start of an occupied slot, the slot is taken:
//!   at level 0 every entry in it is due exactly now; at higher levels the
//!   entries are cascaded (re-inserted relative to the new `elapsed`) into
//!   lower levels, or made ready if due. `pop_expired` is exact: a timer is
//!   never returned before its deadline and everything with
//!   `deadline <= now` is returned before `None`.
//! * Every slot is a doubly linked list through a generational slab (index
//!   links), so insert and cancel are O(1); stale keys are rejected.
//! * Overflow: deadlines in a later `2^36`-tick epoch than `elapsed` (tokio
//!   instead clamps them to its maximum duration) go to an unsorted overflow
//!   list. Its minimum deadline is tracked (recomputed lazily after a removal
//!   of the minimum). The list is re-checked, moving the entries of the new
//!   epoch into the wheel, whenever `elapsed` enters a new epoch; when the
//!   wheel is empty and the overflow minimum is due, `elapsed` jumps straight
//!   to it. Each overflow entry is therefore touched once per epoch change
//!   (every ~2.2 years of 1 ms ticks), which is free in every benchmark here.

use super::list::{self, Linked, Links, List};
use super::slab::{Slab, SlabKey, NIL};

const LEVELS: usize = 6;
const SLOT_BITS: u32 = 6;
const SLOTS: usize = 1 << SLOT_BITS;
/// Bits of time covered by the whole wheel (`64^6 = 2^36` ticks).
pub const WHEEL_BITS: u32 = SLOT_BITS * LEVELS as u32;
const OVERFLOW: u32 = (LEVELS * SLOTS) as u32;
const READY: u32 = OVERFLOW + 1;
const NUM_LISTS: usize = READY as usize + 1;

#[derive(Clone, Debug)]
struct Entry {
    value: u64,
    deadline: u64,
    links: Links,
}

impl Linked for Entry {
    #[inline]
    fn links(&self) -> &Links {
        &self.links
    }
    #[inline]
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// Cached result of the next-slot search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Must be recomputed.
    Dirty,
    /// No entry in any wheel slot.
    Empty,
    /// Earliest occupied slot and the tick at which it starts.
    At { when: u64, list: u32 },
}

/// Hierarchical timing wheel; see the module docs.
#[derive(Clone, Debug)]
pub struct HierWheel {
    slab: Slab<Entry>,
    /// `LEVELS * SLOTS` slot lists (level-major), then overflow, then ready.
    lists: Vec<List>,
    occupied: [u64; LEVELS],
    /// Current wheel time: every timer with `deadline <= elapsed` is on the
    /// ready list, every timer in a slot has `deadline > elapsed`.
    elapsed: u64,
    next: Next,
    overflow_len: usize,
    /// Minimum deadline on the overflow list, `None` if it must be recomputed.
    overflow_min: Option<u64>,
}

impl Default for HierWheel {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn level_for(elapsed: u64, deadline: u64) -> usize {
    let masked = (elapsed ^ deadline) | (SLOTS as u64 - 1);
    let significant = 63 - masked.leading_zeros();
    (significant / SLOT_BITS) as usize
}

#[inline]
fn slot_for(deadline: u64, level: usize) -> usize {
    ((deadline >> (SLOT_BITS as usize * level)) & (SLOTS as u64 - 1)) as usize
}

impl HierWheel {
    pub fn new() -> Self {
        HierWheel {
            slab: Slab::new(),
            lists: vec![List::EMPTY; NUM_LISTS],
            occupied: [0; LEVELS],
            elapsed: 0,
            next: Next::Empty,
            overflow_len: 0,
            overflow_min: Some(u64::MAX),
        }
    }

    pub fn len(&self) -> usize {
        self.slab.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slab.is_empty()
    }

    pub fn allocated_bytes(&self) -> usize {
        self.slab.allocated_bytes() + self.lists.capacity() * std::mem::size_of::<List>()
    }

    /// Schedules `value` at `now + ttl` (saturating).
    #[inline]
    pub fn insert(&mut self, now: u64, ttl: u64, value: u64) -> SlabKey {
        let deadline = now.saturating_add(ttl);
        let key = self.slab.insert(Entry {
            value,
            deadline,
            links: Links::unlinked(),
        });
        self.place(key.idx, deadline);
        key
    }

    /// Links entry `idx` into the list matching `deadline` and `elapsed`.
    #[inline]
    fn place(&mut self, idx: u32, deadline: u64) {
        if deadline <= self.elapsed {
            list::push_back(&mut self.slab, &mut self.lists, READY, idx);
            return;
        }
        let level = level_for(self.elapsed, deadline);
        if level >= LEVELS {
            list::push_back(&mut self.slab, &mut self.lists, OVERFLOW, idx);
            self.overflow_len += 1;
            if let Some(min) = self.overflow_min {
                self.overflow_min = Some(min.min(deadline));
            }
            return;
        }
        let slot = slot_for(deadline, level);
        let list_id = (level * SLOTS + slot) as u32;
        list::push_back(&mut self.slab, &mut self.lists, list_id, idx);
        self.occupied[level] |= 1 << slot;
        // Start of the slot: the deadline with the bits below the level cleared.
        let when = deadline & !((1u64 << (SLOT_BITS as usize * level)) - 1);
        match self.next {
            Next::Empty => {
                self.next = Next::At {
                    when,
                    list: list_id,
                }
            }
            Next::At { when: cur, .. } if when < cur => {
                self.next = Next::At {
                    when,
                    list: list_id,
                }
            }
            _ => {}
        }
    }

    /// Cancels the timer; `None` if it already fired or was cancelled.
    #[inline]
    pub fn remove(&mut self, key: SlabKey) -> Option<u64> {
        let entry = self.slab.get(key)?;
        let list_id = entry.links.list;
        let deadline = entry.deadline;
        list::unlink(&mut self.slab, &mut self.lists, key.idx);
        if list_id < OVERFLOW {
            if self.lists[list_id as usize].is_empty() {
                let level = list_id as usize / SLOTS;
                let slot = list_id as usize % SLOTS;
                self.occupied[level] &= !(1 << slot);
                if matches!(self.next, Next::At { list, .. } if list == list_id) {
                    self.next = Next::Dirty;
                }
            }
        } else if list_id == OVERFLOW {
            self.overflow_len -= 1;
            if self.overflow_min == Some(deadline) {
                self.overflow_min = None;
            }
        }
        Some(self.slab.remove_at(key.idx).value)
    }

    /// Earliest occupied slot, from the cache or by scanning the masks.
    #[inline]
    fn next_expiration(&mut self) -> Next {
        if self.next == Next::Dirty {
            self.next = self.scan_next();
        }
        self.next
    }

    fn scan_next(&self) -> Next {
        for level in 0..LEVELS {
            let occupied = self.occupied[level];
            if occupied == 0 {
                continue;
            }
            let shift = SLOT_BITS as usize * level;
            let now_slot = slot_for(self.elapsed, level);
            // Entries never sit in a slot behind `elapsed` (see module docs),
            // so the rotation never wraps; it just skips the past slots.
            let zeros = occupied.rotate_right(now_slot as u32).trailing_zeros() as usize;
            let slot = (now_slot + zeros) % SLOTS;
            debug_assert!(slot >= now_slot);
            let level_start = if shift + SLOT_BITS as usize >= 64 {
                0
            } else {
                self.elapsed & !((1u64 << (shift + SLOT_BITS as usize)) - 1)
            };
            let when = level_start + ((slot as u64) << shift);
            return Next::At {
                when,
                list: (level * SLOTS + slot) as u32,
            };
        }
        Next::Empty
    }

    fn overflow_min(&mut self) -> u64 {
        if let Some(min) = self.overflow_min {
            return min;
        }
        let mut min = u64::MAX;
        let mut idx = self.lists[OVERFLOW as usize].head;
        while idx != NIL {
            let e = self.slab.at(idx);
            min = min.min(e.deadline);
            idx = e.links.next;
        }
        self.overflow_min = Some(min);
        min
    }

    /// Moves overflow entries that now fall in `elapsed`'s epoch into the wheel.
    fn rehome_overflow(&mut self) {
        let mut idx = list::take(&mut self.lists, OVERFLOW);
        self.overflow_len = 0;
        self.overflow_min = Some(u64::MAX);
        while idx != NIL {
            let e = self.slab.at(idx);
            let (next, deadline) = (e.links.next, e.deadline);
            self.place(idx, deadline);
            idx = next;
        }
    }

    /// Takes slot `list_id` (which starts at `elapsed`) and re-places its
    /// entries: due ones go to the ready list, the rest cascade down.
    fn process(&mut self, list_id: u32) {
        let level = list_id as usize / SLOTS;
        let slot = list_id as usize % SLOTS;
        self.occupied[level] &= !(1 << slot);
        self.next = Next::Dirty;
        let mut idx = list::take(&mut self.lists, list_id);
        while idx != NIL {
            let e = self.slab.at(idx);
            let (next, deadline) = (e.links.next, e.deadline);
            self.place(idx, deadline);
            idx = next;
        }
    }

    /// Returns one timer with `deadline <= now`, or `None` once none is left.
    #[inline]
    pub fn pop_expired(&mut self, now: u64) -> Option<u64> {
        // Fast path for an empty tick: nothing ready, no overflow, and the
        // cached next slot starts after `now`.
        if self.lists[READY as usize].head == NIL && self.overflow_len == 0 {
            let idle = match self.next {
                Next::At { when, .. } => when > now,
                Next::Empty => true,
                Next::Dirty => false,
            };
            if idle {
                self.elapsed = self.elapsed.max(now);
                return None;
            }
        }
        self.pop_slow(now)
    }

    fn pop_slow(&mut self, now: u64) -> Option<u64> {
        loop {
            let head = self.lists[READY as usize].head;
            if head != NIL {
                list::unlink(&mut self.slab, &mut self.lists, head);
                return Some(self.slab.remove_at(head).value);
            }
            if let Next::At { when, list } = self.next_expiration() {
                if when <= now {
                    self.elapsed = when;
                    self.process(list);
                    continue;
                }
            }
            if self.overflow_len > 0 {
                // Only reachable with an empty wheel: overflow deadlines lie
                // in a later epoch than every wheel entry.
                let min = self.overflow_min();
                if min <= now {
                    debug_assert!(self.next_expiration() == Next::Empty);
                    self.elapsed = min;
                    self.rehome_overflow();
                    continue;
                }
            }
            if now > self.elapsed {
                let old = self.elapsed;
                self.elapsed = now;
                if (old ^ now) >> WHEEL_BITS != 0 && self.overflow_len > 0 {
                    self.rehome_overflow();
                }
            }
            return None;
        }
    }
}
