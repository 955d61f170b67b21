//! Deferred filing (see [the module docs](super#deferred-filing)): the
//! staged list and [`Lawn::insert_deferred`].

use super::filing::chunk_of;
use super::near::NEAR_BUCKET;
use super::slab::{Ends, NIL};
use super::{Lawn, TimerKey, STAGED, STAGED_MAX};

/// The timers [`Lawn::insert_deferred`] started at one tick and has not yet
/// filed (see [Deferred filing](super#deferred-filing)): a FIFO linked
/// through the slab like a bucket, in the order they were started.
#[derive(Clone, Debug)]
pub(super) struct Staged {
    pub(super) ends: Ends,
    /// The tick they were started at (only meaningful while `ends` is not
    /// empty).
    pub(super) base: u64,
    /// How many there are (at most [`STAGED_MAX`]).
    pub(super) len: u32,
    /// No staged timer is due before this (`u64::MAX` when none is staged):
    /// the least deadline staged since the list last emptied, so a
    /// cancelled one may leave it early, never late.
    pub(super) min: u64,
    /// The chunk staged timers take slots from when the bucket they will be
    /// filed in does not exist yet, or `NIL`.
    pub(super) open: u32,
}

impl Staged {
    pub(super) const fn new() -> Staged {
        Staged {
            ends: Ends::EMPTY,
            base: 0,
            len: 0,
            min: u64::MAX,
            open: NIL,
        }
    }
}

impl<T> Lawn<T> {
    /// Starts a timer like [`insert`](Lawn::insert), but files it in its
    /// bucket only later: when a timer is started at a later tick, or
    /// before any other call that files or hands out timers. A timer
    /// cancelled before then (a timeout around a call that returned at
    /// once) never touches a bucket or the bucket heap: its start and
    /// cancel cost a slot and a link. See
    /// [Deferred filing](super#deferred-filing).
    ///
    /// Every other call sees the timer as pending from the start: `get`,
    /// `deadline`, `remove`, `reset`, `len`, `next_deadline`, `earliest`
    /// and `pop_expired` (which hands it out when due, never early).
    /// [`bucket_count`](Lawn::bucket_count) does not count it until it is
    /// filed.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let a = lawn.insert_deferred(0, 10, "a");
    /// let b = lawn.insert_deferred(0, 10, "b");
    /// assert_eq!((lawn.len(), lawn.bucket_count()), (2, 0)); // staged
    /// assert_eq!(lawn.next_deadline(), Some(10));
    /// assert_eq!(lawn.remove(a), Some("a")); // cancelled: never filed
    /// lawn.insert_deferred(1, 10, "c"); // a later tick files "b"
    /// assert_eq!(lawn.bucket_count(), 1);
    /// assert_eq!(lawn.pop_expired(10), Some((b, "b")));
    /// assert_eq!(lawn.pop_expired(11).map(|(_, v)| v), Some("c"));
    /// ```
    ///
    /// # Panics
    ///
    /// If the Lawn already holds `u32::MAX - 1` timers.
    #[inline]
    pub fn insert_deferred(&mut self, now: u64, ttl: u64, value: T) -> TimerKey {
        let base = self.observe(now);
        if base != self.staged.base {
            self.file_staged();
            self.staged.base = base;
        }
        let deadline = now.saturating_add(ttl);
        // The slot comes from the chunk of the bucket it will be filed in,
        // if that bucket exists, so that timers which live keep their
        // bucket's order in memory (see `slab.rs`); this is only where the
        // slot is, and filing chooses the bucket again.
        let (owner, open) = if self.near.admits(base, deadline) {
            (NEAR_BUCKET, &mut self.near.open)
        } else {
            match self.buckets.find(deadline.saturating_sub(base)) {
                Some(id) => chunk_of(
                    &mut self.buckets,
                    &mut self.shared_open,
                    self.heap.len(),
                    id,
                ),
                None => (STAGED, &mut self.staged.open),
            }
        };
        let (index, gen) = self.nodes.insert(owner, open, value, deadline);
        self.stage(index, deadline);
        if self.staged.len > STAGED_MAX {
            self.file_oldest_staged();
        }
        TimerKey::new(index, gen)
    }

    /// Appends an unlinked node due at `deadline` to the staged list.
    #[inline]
    pub(super) fn stage(&mut self, index: u32, deadline: u64) {
        self.nodes.push_back(&mut self.staged.ends, index, STAGED);
        self.staged.min = self.staged.min.min(deadline);
        self.staged.len += 1;
    }

    /// Files the staged timer that started first (the others keep their
    /// place after it: filing stays in start order).
    #[inline(never)]
    fn file_oldest_staged(&mut self) {
        let index = self.staged.ends.head;
        self.nodes.unlink_from(&mut self.staged.ends, index);
        self.staged.len -= 1;
        self.file(index, self.staged.base);
    }

    /// Files every staged timer in its bucket, in the order they were
    /// started and as of the tick they were started at, so that each
    /// bucket stays in deadline order (see [Deferred filing](super#deferred-filing)).
    #[inline]
    pub(super) fn file_staged(&mut self) {
        if self.staged.ends.head != NIL {
            self.file_staged_now();
        }
    }

    #[inline(never)]
    fn file_staged_now(&mut self) {
        while self.staged.ends.head != NIL {
            self.file_oldest_staged();
        }
        self.staged.min = u64::MAX;
    }
}
