//! The Lawn's self-check: walks every structure and cross-checks them.

use std::fmt;

use super::near::{NEAR, NEAR_BUCKET};
use super::slab::NIL;
use super::Lawn;

/// What [`Lawn::check`] found wrong: a bug in the Lawn, never bad input.
///
/// # Examples
///
/// ```
/// let lawn = lawn_rt::lawn::Lawn::<()>::new();
/// let result: Result<(), lawn_rt::lawn::CorruptLawn> = lawn.check();
/// assert!(result.is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptLawn(String);

impl fmt::Display for CorruptLawn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "corrupt lawn: {}", self.0)
    }
}

impl std::error::Error for CorruptLawn {}

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

impl<T> Lawn<T> {
    /// Walks the whole Lawn and checks its invariants; O(timers + buckets).
    ///
    /// For tests and debugging: every bucket is a well-linked FIFO whose keys
    /// never decrease (so nothing due can hide behind something that is not),
    /// no key is after its deadline, the heap holds each live bucket once
    /// keyed by its head, the lookup tables and free lists are consistent,
    /// and every timer is in exactly one bucket.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// for ttl in 1..500 {
    ///     lawn.insert(0, ttl * 997, ttl);
    /// }
    /// lawn.check().expect("a consistent lawn");
    /// ```
    ///
    /// # Errors
    ///
    /// [`CorruptLawn`] names the first broken invariant.
    pub fn check(&self) -> Result<(), CorruptLawn> {
        self.check_all().map_err(CorruptLawn)
    }

    fn check_all(&self) -> Result<(), String> {
        let mut open: Vec<(u16, u32)> = self.buckets.live().map(|(id, b)| (id, b.open)).collect();
        open.push((NEAR_BUCKET, self.near.open));
        open.push((super::SHARED_CHUNKS, self.shared_open));
        open.push((super::STAGED, self.staged.open));
        self.nodes.check(&open)?;
        self.buckets.check()?;
        self.heap.check()?;
        let mut seen = std::collections::HashSet::new();
        let mut linked = 0usize;
        let mut heads = std::collections::HashMap::new();
        for (id, bucket) in self.buckets.live() {
            ensure!(
                bucket.len > 0 || self.buckets.is_dormant(id),
                "bucket {id} is empty but alive"
            );
            let mut prev = NIL;
            let mut prev_key = 0;
            let mut index = bucket.ends.head;
            for position in 0..bucket.len {
                ensure!(
                    index != NIL,
                    "bucket {id} ends after {position} of {}",
                    bucket.len
                );
                ensure!(seen.insert(index), "node {index} is linked twice");
                let node = self.nodes.node(index);
                ensure!(
                    node.bucket == id,
                    "node {index} in bucket {id} says {}",
                    node.bucket
                );
                ensure!(node.prev == prev, "node {index} has a stale prev link");
                let key = self.key_of(index);
                ensure!(
                    key <= node.deadline,
                    "node {index} key {key} after its deadline"
                );
                ensure!(
                    position == 0 || prev_key <= key || prev_key <= self.elapsed,
                    "bucket {id} keys out of order at node {index}: {prev_key} then {key}"
                );
                // No bound on the lead beyond its `u16`: filed, it is under
                // the class width (nothing in an exact bucket), but a reset
                // to a later deadline may have raised it since (see
                // `Lawn::reset_lazily`). What matters is checked above: the key is
                // not after the deadline, and keys do not decrease.
                if position == 0 {
                    heads.insert(id, (key, index));
                }
                prev_key = key;
                prev = index;
                index = node.next;
            }
            ensure!(index == NIL, "bucket {id} is longer than its len");
            ensure!(bucket.ends.tail == prev, "bucket {id} tail is stale");
            linked += bucket.len as usize;
        }
        linked += self.check_near(&mut seen)?;
        linked += self.check_staged(&mut seen)?;
        ensure!(
            linked == self.nodes.len(),
            "{linked} linked of {} timers",
            self.nodes.len()
        );
        ensure!(
            heads.len() == self.heap.len(),
            "heap holds {} of {} buckets",
            self.heap.len(),
            heads.len()
        );
        for (id, key, head) in self.heap.iter() {
            ensure!(
                heads.get(&id) == Some(&(key, head)),
                "heap entry of bucket {id} is stale"
            );
        }
        let filed = match (self.heap.peek(), self.near.next()) {
            (Some((key, _)), Some(near)) => Some(key.min(near)),
            (heap, near) => heap.map(|(key, _)| key).or(near),
        };
        let earliest = match self.staged.ends.head {
            NIL => filed,
            _ => Some(filed.unwrap_or(u64::MAX).min(self.staged.min)),
        };
        ensure!(self.next_deadline() == earliest, "next_deadline is stale");
        Ok(())
    }

    /// Walks the staged timers; returns how many there are.
    fn check_staged(&self, seen: &mut std::collections::HashSet<u32>) -> Result<usize, String> {
        let (mut prev, mut index, mut count) = (NIL, self.staged.ends.head, 0);
        while index != NIL {
            ensure!(seen.insert(index), "node {index} is linked twice");
            let node = self.nodes.node(index);
            ensure!(node.bucket == super::STAGED, "node {index} is not staged");
            ensure!(node.prev == prev, "staged node {index} is mislinked");
            ensure!(
                self.staged.min <= node.deadline,
                "staged node {index} is due before the staged minimum"
            );
            ensure!(
                self.staged.base <= self.elapsed,
                "staged timers started after the latest tick"
            );
            count += 1;
            (prev, index) = (index, node.next);
        }
        ensure!(
            self.staged.ends.tail == prev,
            "the staged list's tail is stale"
        );
        ensure!(
            count > 0 || self.staged.min == u64::MAX,
            "no timer is staged, but the staged minimum is set"
        );
        ensure!(
            count == self.staged.len as usize && count <= super::STAGED_MAX as usize,
            "{count} staged timers, {} counted",
            self.staged.len
        );
        Ok(count)
    }

    /// Walks the near window's slots; returns how many timers it holds.
    fn check_near(&self, seen: &mut std::collections::HashSet<u32>) -> Result<usize, String> {
        self.near.check()?;
        let deadlines = self.near.deadlines();
        if let (Some(&min), Some(&max)) = (deadlines.first(), deadlines.last()) {
            ensure!(max - min < NEAR, "near window spans {min}..={max}");
        }
        let mut count = 0;
        for deadline in deadlines {
            let slot = self.near.slot(deadline);
            let (mut prev, mut index) = (NIL, slot.head);
            while index != NIL {
                ensure!(seen.insert(index), "node {index} is linked twice");
                let node = self.nodes.node(index);
                ensure!(
                    node.bucket == NEAR_BUCKET,
                    "node {index} is not a near node"
                );
                ensure!(
                    node.deadline == deadline,
                    "node {index} in the slot for {deadline}"
                );
                ensure!(
                    node.prev == prev && node.lead == 0,
                    "near node {index} is mislinked"
                );
                count += 1;
                (prev, index) = (index, node.next);
            }
            ensure!(
                slot.tail == prev,
                "near slot for {deadline} has a stale tail"
            );
        }
        Ok(count)
    }
}
