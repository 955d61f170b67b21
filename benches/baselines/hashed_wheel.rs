//! Hashed timing wheel with round counters (the Netty `HashedWheelTimer` /
//! go-zero `TimingWheel` design), written for the benchmarks.
//!
//! * `SLOTS` = 512 slots, one tick per slot. A timer with deadline `d` goes
//!   into slot `d % 512` and records how many more times the cursor has to
//!   pass that slot before it fires (`rounds`).
//! * Every slot is a doubly linked list threaded through a generational slab
//!   by index, so insert and cancel are O(1) and a stale key is rejected.
//! * Advancing the cursor by one tick visits exactly one slot and walks its
//!   whole list: entries with `rounds == 0` are due *now* (their deadline is
//!   exactly that tick) and are moved to a FIFO `ready` list, every other
//!   entry has its `rounds` decremented. This walk is the characteristic
//!   cost of the design: an empty tick still costs O(entries in the slot),
//!   i.e. about `len / 512`.
//! * `pop_expired(now)` first drains the ready list, then processes ticks
//!   `cursor..=now` one at a time until something is ready. Firing is exact:
//!   never before the deadline, and everything with `deadline <= now` is
//!   returned before `None`.
//! * Fast forward (an addition to the classic design, needed because callers
//!   may jump far ahead instead of ticking every millisecond): if at least
//!   two full rotations separate the cursor from `now`, every entry is
//!   visited once and `R` rotations are applied at once (`rounds < R` fires,
//!   otherwise `rounds -= R`). This is O(len) instead of O(R * len) and leaves
//!   exactly the state that ticking would have produced. Benchmarks that tick
//!   every millisecond never take this path.
//!
//! `now` must stay below `u64::MAX` (saturated deadlines of `u64::MAX` are
//! kept but can never be reached).

use super::list::{self, Linked, Links, List};
use super::slab::{Slab, SlabKey, NIL};

const SLOT_BITS: u32 = 9;
/// Number of wheel slots (one tick each).
pub const SLOTS: usize = 1 << SLOT_BITS;
const MASK: u64 = SLOTS as u64 - 1;
/// List index of the ready (already due) FIFO.
const READY: u32 = SLOTS as u32;

#[derive(Clone, Debug)]
struct Entry {
    value: u64,
    /// Remaining visits of the cursor to this entry's slot before it fires.
    rounds: u64,
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

/// Hashed timing wheel; see the module docs.
#[derive(Clone, Debug)]
pub struct HashedWheel {
    slab: Slab<Entry>,
    /// `SLOTS` slot lists followed by the ready list.
    lists: Vec<List>,
    /// Next tick to process: every tick `< cursor` has been visited.
    cursor: u64,
    /// Entries on slot lists (i.e. not on the ready list).
    in_wheel: usize,
}

impl Default for HashedWheel {
    fn default() -> Self {
        Self::new()
    }
}

impl HashedWheel {
    pub fn new() -> Self {
        HashedWheel {
            slab: Slab::new(),
            lists: vec![List::EMPTY; SLOTS + 1],
            cursor: 0,
            in_wheel: 0,
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
        let (list_id, rounds) = if deadline < self.cursor {
            // The tick was already processed: due immediately.
            (READY, 0)
        } else {
            self.in_wheel += 1;
            (
                (deadline & MASK) as u32,
                (deadline - self.cursor) >> SLOT_BITS,
            )
        };
        let key = self.slab.insert(Entry {
            value,
            rounds,
            links: Links::unlinked(),
        });
        list::push_back(&mut self.slab, &mut self.lists, list_id, key.idx);
        key
    }

    /// Cancels the timer; `None` if it already fired or was cancelled.
    #[inline]
    pub fn remove(&mut self, key: SlabKey) -> Option<u64> {
        let entry = self.slab.get(key)?;
        if entry.links.list != READY {
            self.in_wheel -= 1;
        }
        list::unlink(&mut self.slab, &mut self.lists, key.idx);
        Some(self.slab.remove_at(key.idx).value)
    }

    /// Returns one timer with `deadline <= now`, or `None` once none is left.
    #[inline]
    pub fn pop_expired(&mut self, now: u64) -> Option<u64> {
        debug_assert!(now < u64::MAX);
        loop {
            let head = self.lists[READY as usize].head;
            if head != NIL {
                list::unlink(&mut self.slab, &mut self.lists, head);
                return Some(self.slab.remove_at(head).value);
            }
            if self.cursor > now {
                return None;
            }
            if self.in_wheel == 0 {
                self.cursor = now + 1;
                return None;
            }
            let rotations = (now - self.cursor + 1) >> SLOT_BITS;
            if rotations >= 2 {
                self.fast_forward(rotations);
            } else {
                self.process_tick();
            }
        }
    }

    /// Visits the slot of tick `cursor`, then advances the cursor by one.
    #[inline]
    fn process_tick(&mut self) {
        let slot = (self.cursor & MASK) as usize;
        let mut idx = self.lists[slot].head;
        while idx != NIL {
            let entry = self.slab.at_mut(idx);
            let next = entry.links.next;
            if entry.rounds == 0 {
                list::unlink(&mut self.slab, &mut self.lists, idx);
                list::push_back(&mut self.slab, &mut self.lists, READY, idx);
                self.in_wheel -= 1;
            } else {
                entry.rounds -= 1;
            }
            idx = next;
        }
        self.cursor += 1;
    }

    /// Applies `rotations` full turns of the wheel in one pass over the slab.
    fn fast_forward(&mut self, rotations: u64) {
        for idx in 0..self.slab.slots() as u32 {
            let Some(entry) = self.slab.try_at_mut(idx) else {
                continue;
            };
            if entry.links.list == READY {
                continue;
            }
            if entry.rounds < rotations {
                list::unlink(&mut self.slab, &mut self.lists, idx);
                list::push_back(&mut self.slab, &mut self.lists, READY, idx);
                self.in_wheel -= 1;
            } else {
                entry.rounds -= rotations;
            }
        }
        self.cursor += rotations << SLOT_BITS;
    }
}
