//! Looking ahead and handing timers out: [`Lawn::next_deadline`],
//! [`Lawn::last_deadline_by`], [`Lawn::earliest`] and
//! [`Lawn::pop_expired`].

use super::slab::NIL;
use super::{Lawn, TimerKey};

impl<T> Lawn<T> {
    /// The earliest tick at which [`pop_expired`](Lawn::pop_expired) may have
    /// work, or `None` if the Lawn is empty. O(1).
    ///
    /// Never after the earliest deadline; equal to it unless the earliest
    /// bucket is a quantization class, where it may be earlier by about 1/64
    /// of that timer's TTL at most (see [Costs and bounds](super#costs-and-bounds)),
    /// or a timer staged by [`insert_deferred`](Lawn::insert_deferred) was
    /// cancelled while others stay staged (then it may be that timer's
    /// deadline until the staged timers are filed), or
    /// [`reset_lazily`](Lawn::reset_lazily) gave the timer a later deadline
    /// in place (then it is the timer's old
    /// key until that comes due; see [Resets](super#resets)).
    /// A value at or before [`elapsed`](Lawn::elapsed) means "due now";
    /// timers started with a `now` before `elapsed` and already due then
    /// share one bucket in start order, so among timers that are all due
    /// it may name a later deadline than the earliest.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// assert_eq!(lawn.next_deadline(), None);
    /// lawn.insert(0, 30, ());
    /// lawn.insert(0, 20, ());
    /// assert_eq!(lawn.next_deadline(), Some(20));
    /// ```
    #[inline]
    pub fn next_deadline(&self) -> Option<u64> {
        if self.is_empty() {
            return None;
        }
        let near = self.near.next().unwrap_or(u64::MAX);
        let heap = self.heap.peek().map_or(u64::MAX, |(key, _)| key);
        Some(near.min(heap).min(self.staged.min))
    }

    /// A deadline of a pending timer at or before `t`, as late as the Lawn
    /// can tell cheaply: the latest one in its near window (timers due
    /// soon, exact per tick), or the earliest bucket's key if that is later.
    /// `None` if [`next_deadline`](Lawn::next_deadline) is after `t`. A
    /// driver that may fire a batch of timers as late as `t` wakes at this
    /// tick rather than at the first deadline, and fires more at once.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// lawn.insert(0, 10, ());
    /// lawn.insert(0, 14, ());
    /// lawn.insert(0, 30, ());
    /// assert_eq!(lawn.last_deadline_by(9), None);
    /// assert_eq!(lawn.last_deadline_by(20), Some(14));
    /// ```
    pub fn last_deadline_by(&self, t: u64) -> Option<u64> {
        let near = self.near.last_by(t);
        let heap = self.heap.peek().map(|(key, _)| key).filter(|&key| key <= t);
        let staged = Some(self.staged.min).filter(|&min| min <= t && self.staged.ends.head != NIL);
        near.max(heap).max(staged)
    }

    /// The pending timer with the earliest deadline, or `None` if the Lawn
    /// is empty. Of several due at that tick it names one of them, not
    /// necessarily the one [`pop_expired`](Lawn::pop_expired) hands out
    /// first; of timers already due when they were started (a `now` before
    /// [`elapsed`](Lawn::elapsed)), it may name one that is not the
    /// earliest (see [`next_deadline`](Lawn::next_deadline)).
    ///
    /// O(buckets) (plus the timers of a class bucket that are filed with a
    /// key before the best deadline found, as are timers
    /// [`reset_lazily`](Lawn::reset_lazily) extended in place in any bucket,
    /// and the timers not yet filed by
    /// [`insert_deferred`](Lawn::insert_deferred)), where
    /// [`next_deadline`](Lawn::next_deadline) is O(1) but may be early: meant
    /// for an occasional look, not for every tick.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// lawn.insert(0, 90_000, "a");
    /// let b = lawn.insert(0, 70_001, "b");
    /// lawn.insert(0, 80_000, "c");
    /// assert_eq!(lawn.earliest(), Some(b));
    /// ```
    pub fn earliest(&self) -> Option<TimerKey> {
        // Best so far: (deadline, index). The near window's first slot is
        // exact, so its head is a candidate as it stands.
        let mut best = self
            .near
            .next()
            .map(|tick| (tick, self.near.slot(tick).head));
        let mut at = self.staged.ends.head;
        while at != NIL {
            let node = self.nodes.node(at);
            if best.is_none_or(|(deadline, _)| node.deadline < deadline) {
                best = Some((node.deadline, at));
            }
            at = node.next;
        }
        for (_, _, head) in self.heap.iter() {
            // A bucket's keys are lower bounds of its deadlines and never
            // decrease along it: stop where they reach the best deadline.
            let mut at = head;
            while at != NIL && best.is_none_or(|(deadline, _)| self.key_of(at) < deadline) {
                let node = self.nodes.node(at);
                if best.is_none_or(|(deadline, _)| node.deadline < deadline) {
                    best = Some((node.deadline, at));
                }
                at = node.next;
            }
        }
        best.map(|(_, index)| TimerKey::new(index, self.nodes.node(index).gen))
    }

    /// Hands out one timer whose deadline is at or before `now`, or `None`
    /// when no timer is due. Call it until `None` to expire everything due.
    ///
    /// Due timers come out in deadline order within a bucket and roughly in
    /// deadline order across buckets; every due timer comes out, no timer
    /// comes out early.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// lawn.insert(0, 1_000_000, "long");
    /// lawn.insert(0, 5, "short");
    /// assert_eq!(lawn.pop_expired(4), None);
    /// assert_eq!(lawn.pop_expired(5).map(|(_, v)| v), Some("short"));
    /// assert_eq!(lawn.pop_expired(999_999), None);
    /// assert_eq!(lawn.pop_expired(1_000_000).map(|(_, v)| v), Some("long"));
    /// ```
    #[inline]
    pub fn pop_expired(&mut self, now: u64) -> Option<(TimerKey, T)> {
        self.pop_expired_with_deadline(now)
            .map(|(key, value, _)| (key, value))
    }

    /// [`pop_expired`](Lawn::pop_expired), with the deadline the timer
    /// was due at (at or before `now`): how late it comes out is `now`
    /// minus that.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// lawn.insert(0, 5, "short");
    /// assert_eq!(lawn.pop_expired_with_deadline(8).map(|(_, v, due)| (v, due)), Some(("short", 5)));
    /// ```
    #[inline]
    pub fn pop_expired_with_deadline(&mut self, now: u64) -> Option<(TimerKey, T, u64)> {
        let now = self.observe(now);
        // The common tick has nothing due: keep that check small enough to
        // inline into the caller's loop, and the work out of line.
        match self.next_deadline() {
            Some(next) if next <= now => self.pop_due(now),
            _ => None,
        }
    }

    /// The part of [`pop_expired`](Lawn::pop_expired) that does work.
    fn pop_due(&mut self, now: u64) -> Option<(TimerKey, T, u64)> {
        // Filed first: a timer re-filed below goes in as of `now`, after
        // the staged ones, which were started earlier.
        self.file_staged();
        loop {
            let index = match (self.near.next(), self.heap.top()) {
                (Some(near), heap) if heap.is_none_or(|(key, _)| near <= key) => {
                    // The window's slots are exact: its head is due or nothing is.
                    if near > now {
                        return None;
                    }
                    let index = self.near.slot(near).head;
                    return Some(self.take(index));
                }
                (_, Some((key, head))) if key <= now => head,
                _ => return None,
            };
            if self.nodes.node(index).deadline <= now {
                return Some(self.take(index));
            }
            // A class bucket hands it out before its deadline: re-file it
            // with the ticks it has left. Its new key is after `now`, so this
            // loop never sees it again.
            self.unlink(index);
            self.file(index, now);
        }
    }

    /// Unlinks and frees a linked node, returning its key, value and
    /// deadline.
    #[inline]
    fn take(&mut self, index: u32) -> (TimerKey, T, u64) {
        let node = self.nodes.node(index);
        let (gen, deadline) = (node.gen, node.deadline);
        self.unlink(index);
        (
            TimerKey::new(index, gen),
            self.nodes.remove(index),
            deadline,
        )
    }
}
