//! Moving a timer: [`Lawn::reset`], and [`Lawn::reset_lazily`], which
//! may leave it where it is filed (see [Resets](super#resets)).

use super::{Lawn, TimerKey, STAGED};

impl<T> Lawn<T> {
    /// Moves a timer to the deadline `now + ttl` (earlier or later), keeping
    /// its key. Returns `false` if the key is stale. O(1) like an insert.
    /// (For a timer pushed back over and over, see
    /// [`reset_lazily`](Lawn::reset_lazily).)
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(0, 10, "idle");
    /// assert!(lawn.reset(key, 8, 10)); // activity at tick 8: due at 18 now
    /// assert_eq!(lawn.pop_expired(10), None);
    /// assert_eq!(lawn.pop_expired(18), Some((key, "idle")));
    /// assert!(!lawn.reset(key, 18, 10)); // handed out: stale
    /// ```
    pub fn reset(&mut self, key: TimerKey, now: u64, ttl: u64) -> bool {
        let Some(node) = self.nodes.get(key.index(), key.gen()) else {
            return false;
        };
        let bucket = node.bucket;
        self.move_to(key, bucket, now, ttl);
        true
    }

    /// [`reset`](Lawn::reset), but a later deadline may leave the timer
    /// where it is filed, to be filed again only when its old place comes
    /// due (see [Resets](super#resets)): two stores instead of an unlink
    /// and a filing, for an idle timeout pushed back on every read. That
    /// happens while its key is at least half the new TTL ahead, so a
    /// timer pushed back often is still moved now and then, and its old
    /// place comes due only once it is no longer pushed back. Meanwhile
    /// [`next_deadline`](Lawn::next_deadline) may report that old place,
    /// and [`earliest`](Lawn::earliest) looks at such timers one by one.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(0, 10_000, "idle");
    /// assert!(lawn.reset_lazily(key, 1, 10_000)); // a read at tick 1
    /// assert_eq!(lawn.deadline(key), Some(10_001));
    /// assert!(lawn.next_deadline() <= Some(10_000)); // still its old place
    /// assert_eq!(lawn.pop_expired(10_000), None); // filed again, not handed out
    /// assert_eq!(lawn.pop_expired(10_001), Some((key, "idle")));
    /// ```
    #[inline]
    pub fn reset_lazily(&mut self, key: TimerKey, now: u64, ttl: u64) -> bool {
        let Some(node) = self.nodes.get(key.index(), key.gen()) else {
            return false;
        };
        let bucket = node.bucket;
        if bucket < STAGED {
            let base = self.observe(now);
            // Only while the old place is at least half the TTL ahead: a
            // timer pushed back on every read then never comes due there.
            let far = self.key_of(key.index()).saturating_sub(base) >= ttl / 2;
            if far && self.extend_in_place(key.index(), bucket, now.saturating_add(ttl)) {
                return true;
            }
        }
        self.move_to(key, bucket, now, ttl);
        true
    }

    /// The move of [`reset`](Lawn::reset): `key` is live and in `bucket`.
    fn move_to(&mut self, key: TimerKey, bucket: u16, now: u64, ttl: u64) {
        let base = self.observe(now);
        let deadline = now.saturating_add(ttl);
        let staged = bucket == STAGED;
        if staged && base == self.staged.base {
            // Still in the tick it was staged at: it moves to the tail of
            // the staged list, as a cancel and a deferred start would.
            self.unlink(key.index());
            self.nodes.node_mut(key.index()).deadline = deadline;
            self.stage(key.index(), deadline);
            return;
        }
        self.file_staged();
        self.unlink(key.index());
        self.nodes.node_mut(key.index()).deadline = deadline;
        self.file(key.index(), base);
    }

    /// Gives a timer filed in a bucket the later `deadline` where it
    /// stands (see [Resets](super#resets)): its key stays, since its lead
    /// grows by as much as its deadline, so its bucket still hands it out
    /// no later than before, and [`pop_expired`](Lawn::pop_expired) then
    /// files it again for the ticks it has left. `false`, changing
    /// nothing, for an earlier deadline or one the lead cannot reach.
    #[inline]
    fn extend_in_place(&mut self, index: u32, bucket: u16, deadline: u64) -> bool {
        let shift = self.buckets.get(bucket).lead_shift();
        let node = self.nodes.node_mut(index);
        let Some(more) = deadline.checked_sub(node.deadline) else {
            return false;
        };
        // In lead blocks: what `deadline >> shift` gains. Zero for a
        // deadline in the same block (the key is unchanged either way).
        let blocks = (deadline >> shift) - (node.deadline >> shift);
        debug_assert!(more > 0 || blocks == 0);
        match u16::try_from(blocks)
            .ok()
            .and_then(|b| node.lead.checked_add(b))
        {
            Some(lead) => {
                node.deadline = deadline;
                node.lead = lead;
                true
            }
            None => false,
        }
    }
}
