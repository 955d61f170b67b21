//! `std::collections::BinaryHeap` timer queue with lazy deletion, written for
//! the benchmarks.
//!
//! * The heap holds `(deadline, slab index, generation)` triples (16 bytes)
//!   ordered by deadline (min-heap through `Reverse`); the values live in a
//!   generational slab, whose key is the timer handle.
//! * Cancelling only frees the slab slot (O(1)); the heap element becomes a
//!   tombstone that is recognised by its stale generation and skipped when it
//!   reaches the top. Insert and pop are O(log n).
//! * To keep memory and heap depth bounded under heavy cancellation, the heap
//!   is rebuilt without tombstones (`retain`, O(n)) once tombstones outnumber
//!   live timers, which keeps cancel amortised O(1) and the heap at most
//!   twice the number of live timers.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::slab::{Slab, SlabKey};

/// Rebuild is not attempted below this many tombstones.
const MIN_COMPACT: usize = 64;

/// Lazy-deletion binary heap; see the module docs.
#[derive(Clone, Debug)]
pub struct HeapQueue {
    heap: BinaryHeap<Reverse<(u64, u32, u32)>>,
    values: Slab<u64>,
    tombstones: usize,
}

impl Default for HeapQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl HeapQueue {
    pub fn new() -> Self {
        HeapQueue {
            heap: BinaryHeap::new(),
            values: Slab::new(),
            tombstones: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn allocated_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Reverse<(u64, u32, u32)>>()
            + self.values.allocated_bytes()
    }

    /// Schedules `value` at `now + ttl` (saturating).
    #[inline]
    pub fn insert(&mut self, now: u64, ttl: u64, value: u64) -> SlabKey {
        let deadline = now.saturating_add(ttl);
        let key = self.values.insert(value);
        self.heap.push(Reverse((deadline, key.idx, key.gen)));
        key
    }

    /// Cancels the timer; `None` if it already fired or was cancelled.
    #[inline]
    pub fn remove(&mut self, key: SlabKey) -> Option<u64> {
        let value = self.values.remove(key)?;
        self.tombstones += 1;
        if self.tombstones >= MIN_COMPACT && self.tombstones > self.values.len() {
            let values = &self.values;
            self.heap.retain(|Reverse((_, idx, gen))| {
                values.contains(SlabKey {
                    idx: *idx,
                    gen: *gen,
                })
            });
            self.tombstones = 0;
        }
        Some(value)
    }

    /// Returns one timer with `deadline <= now`, or `None` once none is left.
    #[inline]
    pub fn pop_expired(&mut self, now: u64) -> Option<u64> {
        while let Some(&Reverse((deadline, idx, gen))) = self.heap.peek() {
            if deadline > now {
                return None;
            }
            self.heap.pop();
            match self.values.remove(SlabKey { idx, gen }) {
                Some(value) => return Some(value),
                None => self.tombstones -= 1,
            }
        }
        None
    }
}
