//! `BTreeMap<(deadline, seq), value>` timer queue, written for the
//! benchmarks.
//!
//! * The key `(deadline, seq)` is also the timer handle; `seq` is a per-queue
//!   counter that makes keys unique (and orders equal deadlines FIFO).
//! * Insert, cancel and pop are O(log n) B-tree operations; the earliest
//!   timer is the first key.
//! * `allocated_bytes` is an estimate (std does not expose its node count):
//!   std's B-tree has up to 11 keys per node; a leaf node for
//!   `((u64, u64), u64)` is 280 bytes, an internal node 376 bytes. The
//!   estimate assumes 7 entries per leaf and 8 children per internal node,
//!   i.e. ~47 bytes per timer; the counting allocator of
//!   `benches/lawn_memory.rs` measured 39 to 49 bytes per timer for the
//!   benchmark workloads (appending in deadline order fills leaves least).

use std::collections::BTreeMap;

/// Timer handle: the map key.
pub type BTreeKey = (u64, u64);

/// B-tree timer queue; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct BTreeQueue {
    map: BTreeMap<BTreeKey, u64>,
    seq: u64,
}

const LEAF_BYTES: usize = 280;
const INTERNAL_BYTES: usize = 376;
/// Assumed average entries per leaf (capacity 11).
const AVG_LEAF_FILL: usize = 7;
/// Assumed average children per internal node (capacity 12).
const AVG_FANOUT: usize = 8;

impl BTreeQueue {
    pub fn new() -> Self {
        BTreeQueue {
            map: BTreeMap::new(),
            seq: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Estimated heap bytes (see the module docs).
    pub fn allocated_bytes(&self) -> usize {
        if self.map.is_empty() {
            return 0;
        }
        let leaves = self.map.len().div_ceil(AVG_LEAF_FILL);
        let internals = leaves.div_ceil(AVG_FANOUT);
        leaves * LEAF_BYTES + internals * INTERNAL_BYTES
    }

    /// Schedules `value` at `now + ttl` (saturating).
    #[inline]
    pub fn insert(&mut self, now: u64, ttl: u64, value: u64) -> BTreeKey {
        let key = (now.saturating_add(ttl), self.seq);
        self.seq += 1;
        self.map.insert(key, value);
        key
    }

    /// Cancels the timer; `None` if it already fired or was cancelled.
    #[inline]
    pub fn remove(&mut self, key: BTreeKey) -> Option<u64> {
        self.map.remove(&key)
    }

    /// Returns one timer with `deadline <= now`, or `None` once none is left.
    #[inline]
    pub fn pop_expired(&mut self, now: u64) -> Option<u64> {
        let entry = self.map.first_entry()?;
        if entry.key().0 > now {
            return None;
        }
        Some(entry.remove())
    }
}
