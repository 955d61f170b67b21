//! Filing a timer in its bucket or in the near window, and unlinking it:
//! [`Lawn::insert`], [`Lawn::remove`], and the links every other call
//! makes.

use super::buckets::{lead_shift, Buckets, Kind};
use super::near::NEAR_BUCKET;
use super::slab::NIL;
use super::{Lawn, TimerKey, OWN_CHUNK_AT, SHARED_CHUNKS, SHARE_FROM_BUCKETS, STAGED};

impl<T> Lawn<T> {
    /// Starts a timer due at `now + ttl` (saturating) and returns its key.
    ///
    /// `ttl == 0` is due at `now`. A `now` before [`elapsed`](Lawn::elapsed)
    /// is taken as `elapsed` for filing (see [Time](super#time)).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(7, u64::MAX, ()); // saturates, no panic
    /// assert_eq!(lawn.deadline(key), Some(u64::MAX));
    /// ```
    ///
    /// # Panics
    ///
    /// If the Lawn already holds `u32::MAX - 1` timers.
    pub fn insert(&mut self, now: u64, ttl: u64, value: T) -> TimerKey {
        self.file_staged();
        let base = self.observe(now);
        let deadline = now.saturating_add(ttl);
        if self.near.admits(base, deadline) {
            let (index, gen) = self
                .nodes
                .insert(NEAR_BUCKET, &mut self.near.open, value, deadline);
            self.link_near(index, deadline);
            return TimerKey::new(index, gen);
        }
        let bucket = self.buckets.select(deadline.saturating_sub(base));
        let (owner, open) = chunk_of(
            &mut self.buckets,
            &mut self.shared_open,
            self.heap.len(),
            bucket,
        );
        let (index, gen) = self.nodes.insert(owner, open, value, deadline);
        self.link(index, bucket, base, deadline);
        TimerKey::new(index, gen)
    }

    /// Cancels a timer and returns its value; `None` if the key is stale. O(1).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(0, 10, "t");
    /// assert_eq!(lawn.remove(key), Some("t"));
    /// assert_eq!(lawn.pop_expired(10), None);
    /// ```
    #[inline]
    pub fn remove(&mut self, key: TimerKey) -> Option<T> {
        self.nodes.get(key.index(), key.gen())?;
        self.unlink(key.index());
        Some(self.nodes.remove(key.index()))
    }

    /// The key (earliest tick its bucket may hand it out) of a linked node.
    #[inline]
    pub(super) fn key_of(&self, index: u32) -> u64 {
        let node = self.nodes.node(index);
        let shift = self.buckets.get(node.bucket).lead_shift();
        ((node.deadline >> shift) - u64::from(node.lead)) << shift
    }

    /// Links an unlinked node at the tail of the bucket for the ticks it has
    /// left after `base` (the current tick). Its slot stays where it is.
    pub(super) fn file(&mut self, index: u32, base: u64) {
        let deadline = self.nodes.node(index).deadline;
        if self.near.admits(base, deadline) {
            self.link_near(index, deadline);
        } else {
            let bucket = self.buckets.select(deadline.saturating_sub(base));
            self.link(index, bucket, base, deadline);
        }
    }

    /// Links an unlinked node at the tail of its slot in the near window.
    #[inline]
    fn link_near(&mut self, index: u32, deadline: u64) {
        let slot = self.near.slot_mut(deadline);
        if self.nodes.push_back(slot, index, NEAR_BUCKET) {
            self.near.occupied(deadline);
        }
        self.nodes.node_mut(index).lead = 0;
    }

    /// Links an unlinked node due at `deadline` at the tail of `bucket`,
    /// filed at tick `base`.
    #[inline(always)]
    fn link(&mut self, index: u32, bucket: u16, base: u64, deadline: u64) {
        let b = self.buckets.get_mut(bucket);
        let (key, lead) = match b.kind {
            Kind::Exact { .. } => (deadline, 0),
            Kind::Class { floor, .. } => {
                // `min`: a deadline already past is due at once; its bucket
                // is the `ttl == 0` class, all of whose keys are then <=
                // elapsed. Rounded down to the class's lead block: still
                // never after any deadline in the bucket, and still
                // non-decreasing along it.
                let shift = lead_shift(floor);
                let blocks = (deadline >> shift) - ((base + floor).min(deadline) >> shift);
                let lead = u16::try_from(blocks).expect("lawn: a lead outside its class");
                (((deadline >> shift) - blocks) << shift, lead)
            }
        };
        b.len += 1;
        if self.nodes.push_back(&mut b.ends, index, bucket) {
            self.buckets.revive(bucket);
            self.heap.push(bucket, key, index);
        }
        self.nodes.node_mut(index).lead = lead;
    }

    /// Unlinks a linked node from its bucket, freeing the bucket if emptied.
    #[inline]
    pub(super) fn unlink(&mut self, index: u32) {
        let node = self.nodes.node(index);
        let bucket = node.bucket;
        if bucket >= STAGED {
            return self.unlink_unbucketed(index, bucket);
        }
        let b = self.buckets.get_mut(bucket);
        let (prev, next) = self.nodes.unlink_from(&mut b.ends, index);
        b.len -= 1;
        if b.len == 0 {
            self.heap.remove(bucket);
            if let Some((freed, b)) = self.buckets.retire(bucket) {
                self.nodes.close(freed, b.open);
            }
        } else if prev == NIL {
            let key = self.key_of(next);
            self.heap.update(bucket, key, next);
        }
    }

    /// [`unlink`](Lawn::unlink) for a node in no bucket: in the near window
    /// or staged.
    #[inline]
    fn unlink_unbucketed(&mut self, index: u32, bucket: u16) {
        if bucket == NEAR_BUCKET {
            return self.unlink_near(index);
        }
        debug_assert_eq!(bucket, STAGED);
        self.nodes.unlink_from(&mut self.staged.ends, index);
        self.staged.len -= 1;
        if self.staged.ends.head == NIL {
            self.staged.min = u64::MAX;
        }
    }

    /// [`unlink`](Lawn::unlink) for a node in the near window.
    fn unlink_near(&mut self, index: u32) {
        let deadline = self.nodes.node(index).deadline;
        let slot = self.near.slot_mut(deadline);
        self.nodes.unlink_from(slot, index);
        if slot.head == NIL {
            // The window keeps its open chunk when it empties, as a dormant
            // bucket does: a short timer started and cancelled over and
            // over (a 100 ms request timeout, one request at a time) would
            // otherwise close, cut off and open a chunk each time. The slab
            // still cuts the chunk off once free chunks wait behind it.
            self.near.emptied(deadline);
        }
    }
}

/// The owner and the open chunk a new timer of `bucket` takes its slot
/// from: the bucket's own, or the chunks small buckets share once the heap
/// holds [`SHARE_FROM_BUCKETS`] buckets (see [`OWN_CHUNK_AT`]).
#[inline(always)]
pub(super) fn chunk_of<'a>(
    buckets: &'a mut Buckets,
    shared_open: &'a mut u32,
    heap_len: usize,
    bucket: u16,
) -> (u16, &'a mut u32) {
    let b = buckets.get_mut(bucket);
    match b.len < OWN_CHUNK_AT && heap_len >= SHARE_FROM_BUCKETS {
        true => (SHARED_CHUNKS, shared_open),
        false => (bucket, &mut b.open),
    }
}
