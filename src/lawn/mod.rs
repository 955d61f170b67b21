//! The Timer Lawn: timers in FIFO buckets keyed by TTL.
//!
//! A [`Lawn<T>`] holds timers, each a deadline (in ticks) and a value of type
//! `T`. It holds no clock: the caller says what tick it is on every call. It
//! knows nothing of wakers or threads; the timer driver builds on it.
//!
//! ```
//! use lawn_rt::lawn::Lawn;
//!
//! let mut lawn = Lawn::new();
//! let a = lawn.insert(0, 10, "request timeout");
//! let _b = lawn.insert(0, 10, "another one");
//! lawn.insert(0, 3, "retry");
//! assert_eq!(lawn.next_deadline(), Some(3));
//!
//! assert_eq!(lawn.remove(a), Some("request timeout")); // cancel: O(1)
//! assert_eq!(lawn.pop_expired(2), None);              // nothing due at tick 2
//! assert_eq!(lawn.pop_expired(3).map(|(_, v)| v), Some("retry"));
//! assert_eq!(lawn.pop_expired(10).map(|(_, v)| v), Some("another one"));
//! assert!(lawn.is_empty());
//! ```
//!
//! # The idea (Lev-Libfeld, "Timer Lawn")
//!
//! Timers with the same TTL live in one FIFO **bucket**. A timer is always
//! appended at its bucket's tail and all timers in a bucket share a TTL, so
//! the bucket is already sorted by deadline: its head is its earliest timer.
//! Start is an append and cancel an unlink, both O(1); expiry looks only at
//! bucket heads. There is no wheel: no maximum TTL, no overflow list, no
//! cascading, no walk over empty slots.
//!
//! # What this implementation adds
//!
//! **Ordered heads.** The paper scans every bucket head on each tick, O(t) for
//! t buckets. Here the buckets sit in an indexed 4-ary min-heap keyed by their
//! head, so [`next_deadline`](Lawn::next_deadline) is O(1) and an expiry is
//! O(log t). An append to a non-empty bucket does not touch the heap.
//!
//! **A bounded number of buckets.** With high-variance TTLs (say uniform over
//! 1 ms..1 h) one bucket per TTL would mean millions of buckets. So a timer
//! with `ttl` ticks left is filed in:
//!
//! 1. an **exact** bucket of its own TTL, if it has one, or if the TTL came
//!    up lately (a 64-entry table of recent TTLs) and fewer than 256 exact
//!    buckets are alive. Each is freed when it empties (after a grace: the
//!    four that emptied last stay, empty, so a TTL whose only timer is
//!    cancelled and started again keeps its bucket), so a workload of a
//!    few TTLs, whatever their size, gets exact buckets from its second
//!    timer on, while TTLs that never recur do not churn through buckets of
//!    one timer each (class buckets get the same grace when they empty);
//! 2. otherwise a **class** bucket: TTLs are quantized like a float with a
//!    6-bit mantissa, so the octave `[2^e, 2^(e+1))` splits into 64 classes,
//!    each `2^(e-6)` ticks wide (under 1/64 of the TTL). TTLs below 128 get
//!    a class of one tick each, which is exact.
//!
//! **A near window.** Timers due within 4,096 ticks of the earliest one in
//! the window go into one FIFO per deadline tick, found by a two-level bitmap
//! instead of the heap. Short timers (a few milliseconds at 1 ms ticks) and
//! the last stage of every re-filed timer land here: filing, cancelling and
//! expiring them cost no heap work at all.
//!
//! A timer filed at tick `now` in a class with smallest TTL `floor` gets the
//! *key* `now + floor`, which is never after its deadline. (In classes over
//! 2^15 ticks wide the key is rounded down to a block of a 2^15th of the
//! width, so that a node stores it as a 16-bit count before its deadline.)
//! Registration ticks never decrease, so keys along a class bucket never
//! decrease either, and the heap orders buckets by their head's key. When a head's key comes due
//! but its deadline has not, the timer is re-filed with the ticks it has left
//! (less than the class width), in a finer bucket. So timers are handed out
//! exactly when due: never early, never late.
//!
//! # Costs and bounds
//!
//! | operation | cost |
//! |---|---|
//! | [`insert`](Lawn::insert) | O(1) amortized (an append; a hash lookup for TTLs `>= 64` that miss the one-entry cache; O(log t) only if the bucket was empty) |
//! | [`insert_deferred`](Lawn::insert_deferred) | O(1): an append to the staged list; its filing, an `insert`'s work, comes later, and never for a timer cancelled first |
//! | [`remove`](Lawn::remove) | O(1); O(log t) when it removes a bucket head |
//! | [`reset`](Lawn::reset) | a remove and an insert, keeping the key |
//! | [`reset_lazily`](Lawn::reset_lazily) | two stores for a later deadline that may stay where the timer is filed (see [Resets](self#resets)); otherwise a `reset` |
//! | [`next_deadline`](Lawn::next_deadline) | O(1) |
//! | [`pop_expired`](Lawn::pop_expired) | O(log t) per timer handed out or re-filed from a bucket; O(1) from the near window |
//!
//! - Buckets alive at once: at most 256 exact plus one per class in use; for
//!   TTLs below `2^k` ticks that is at most `256 + 64·(k − 5)`: 1,344 for all
//!   TTLs up to 70 minutes at 1 ms ticks, 3,776 classes for all of `u64`;
//!   plus the near window's slots, which are not in the heap.
//! - Re-filing: a timer in a class bucket is re-filed at most
//!   `⌈(e − 5) / 7⌉` times for a TTL in `[2^e, 2^(e+1))`, as each re-file
//!   leaves it under `2^(e-6)` ticks; in practice it reaches the near window
//!   (under 4,096 ticks left) after one or two, e.g. two for an hour at 1 ms.
//!   (A timer `reset_lazily` extended in place is re-filed once more, when
//!   its old key comes due, with up to half its TTL left.)
//!   Timers in the near window are never re-filed, nor are timers in exact
//!   buckets unless [`reset_lazily`](Lawn::reset_lazily) extended them in
//!   place (see [Resets](self#resets)).
//! - [`next_deadline`](Lawn::next_deadline) is exact when the earliest bucket
//!   is exact, and otherwise a lower bound that is early by less than 1/64 of
//!   that timer's TTL (plus at most a 2^21st of it from the key's rounding);
//!   a driver that parks until it wakes at most as many extra times as that
//!   timer is re-filed. (A staged timer cancelled while others stay staged
//!   can leave it early too, until the next filing: see
//!   [Deferred filing](self#deferred-filing); and a timer `reset_lazily`
//!   extended in place can leave it early by up to half that timer's TTL,
//!   until its old key comes due: see [Resets](self#resets).)
//! - Memory: 32 bytes per timer slot for `T = u64` and 40 for a `Waker`
//!   (`24 + size_of::<T>()` rounded to 8 in general), no allocation per
//!   timer once warm, plus a small table per live bucket. Slots come in
//!   chunks of 32 and each bucket fills a chunk of its own, so the timers
//!   of one bucket lie in memory in the order they expire (with ten
//!   interleaved TTLs at 1e6 timers this cut the cost of an expiry about
//!   threefold); but once 8 or more buckets are in the bucket heap (the
//!   near window's slots not counted), a bucket takes its first 15 timers'
//!   slots from chunks all small buckets share, so a sparse Lawn does not
//!   pay a chunk per timer. A chunk is reused once half of it is free, so
//!   the slab holds at most `2 × peak timers` slots plus one partly used
//!   chunk per bucket with a chunk of its own; the slab grows by half, in
//!   whole chunks; free chunks at its end are cut off as soon as they
//!   empty, an emptied slab of more than 4 chunks starts again from its
//!   first slot, and capacity goes down to twice the peak (at least 1,024
//!   slots) when a whole epoch (as many chunk openings and cuttings as the
//!   capacity holds chunks) never used a quarter of it:
//!   memory goes back once load has stayed low for a while, while a load
//!   that empties and refills the slab keeps its pages. Slots never
//!   move (keys are indexes), so one long-lived timer near the end of the
//!   slab holds it at that length until it goes. Empty buckets are freed at
//!   once, but for the four buckets (exact or class) that emptied last,
//!   which keep their open chunk (also at the slab's end, unless free
//!   chunks wait behind it), and the near window keeps its open chunk when
//!   it empties: start-and-cancel of a lone timer then costs no bucket or
//!   chunk churn, whether its TTL recurs, never recurs, or is short.
//!
//! # Deferred filing
//!
//! Most timeouts are cancelled moments after they start: the call they
//! guard returned. [`insert_deferred`](Lawn::insert_deferred) (the timer
//! driver's way in) lets such a timer skip the buckets altogether. It
//! *stages* the timer: a slot and an append to one FIFO of the timers
//! started at the current tick. A timer cancelled while staged costs an
//! unlink and nothing more: no bucket made, kept or linked (a bucket is
//! only looked up, to place the slot), no heap work. The staged timers are
//! *filed* (put in their buckets, as `insert` would have) before anything
//! could tell the difference:
//!
//! - a deferred timer is started at a later tick, or any timer is started
//!   with `insert`;
//! - a timer is moved by a reset at a later tick (one reset in the tick
//!   it was staged at just moves to the staged list's tail; one that
//!   leaves a filed timer in place files nothing: see [Resets](self#resets)), or
//!   [`pop_expired`](Lawn::pop_expired) finds that something may be due (a
//!   re-filed timer goes in as of a later tick);
//! - more than 64 are staged: the oldest is filed (a timer that lives is
//!   filed while its slot is still in the cache).
//!
//! They are filed in the order they started and as of the tick they
//! started at, before any timer filed at a later tick, so every bucket
//! stays in deadline order, as if they had been filed at once (the bucket
//! chosen may differ: cancels in between change which buckets exist).
//! Meanwhile the Lawn sees them as pending: `next_deadline` takes the least
//! staged deadline into account (it may stay early, never late, if that
//! timer is cancelled while others stay staged: at most one early wake-up
//! until the next filing), and so do `last_deadline_by` and `earliest`.
//! Only [`bucket_count`](Lawn::bucket_count) leaves them out. A staged
//! timer takes its slot from the chunk of the bucket it will most likely
//! be filed in, when that bucket exists, so timers that live keep their
//! bucket's order in memory (otherwise from one open chunk kept for staged
//! timers). Staging needs no memory per timer: the list is linked through
//! the slots.
//!
//! A churned timeout then costs a slot and two links; a timer that lives
//! pays for staging on top of its filing, a few ns.
//!
//! # Resets
//!
//! [`reset`](Lawn::reset) moves a timer: it is unlinked and filed again for
//! its new deadline. An idle timeout is pushed back on every read, though,
//! so most of its resets are to a *later* deadline, and for those
//! [`reset_lazily`](Lawn::reset_lazily) (the timer driver's way) leaves a
//! timer filed in a bucket where it stands: it raises the node's deadline
//! and its lead (the count of blocks between its bucket key and its
//! deadline) by the same amount, so its key is unchanged, and with it the
//! bucket's order and the heap. When that key comes due,
//! [`pop_expired`](Lawn::pop_expired) finds the deadline not yet reached
//! and files the timer again for the ticks it has left, as it does for a
//! class bucket's early heads; it never hands a timer out before its
//! deadline. Two stores instead of an unlink and a filing (a bucket emptied
//! and revived, a heap update each).
//!
//! It does so only while the key is at least half the new TTL ahead, and
//! while the lead, a `u16`, can count the extension: 65,535 blocks from the
//! key in all, less the lead the timer was filed with (blocks are one tick
//! in an exact bucket, so about 65 ms at the runtime's 1 µs tick; in a
//! class over 2^15 ticks wide they are larger). Otherwise, and for an
//! earlier deadline, a staged timer or one in the near window (whose slot
//! is its deadline), the timer moves as `reset` moves it. So a timer
//! pushed back by reads less than half its TTL apart is moved now and
//! then, and its old key comes due only once the reads stop (or leave a
//! longer gap): one early look for that timer, at most half its TTL
//! before its deadline and at least half a TTL after the last read. Until
//! then [`next_deadline`](Lawn::next_deadline) may report that key (up to
//! half the TTL early), and [`earliest`](Lawn::earliest) walks past such
//! timers one by one.
//!
//! # Time
//!
//! Ticks never go backwards: the Lawn remembers the latest tick it was given
//! ([`elapsed`](Lawn::elapsed)) and treats an earlier `now` as that tick.
//! A timer's deadline is still `now + ttl` as asked, and one that is already
//! past is due at once. Deadlines saturate at `u64::MAX`, so huge TTLs never
//! overflow or panic.
//!
//! # Keys
//!
//! A [`TimerKey`] names one timer until it is removed or handed out; after
//! that every call with it returns `None` or `false`, and it never reaches
//! another timer. Keys carry a 32-bit generation per slot, so a key kept
//! across 2^32 reuses of one slot is the only way to alias.
#![forbid(unsafe_code)]

mod buckets;
mod check;
#[cfg(test)]
mod fuzz;
mod heap;
mod near;
mod slab;
#[cfg(test)]
pub(crate) mod tests;

use std::fmt;
use std::num::{NonZeroU32, NonZeroU64};

use buckets::{lead_shift, Buckets, Kind};
use heap::BucketHeap;
use near::{Near, NEAR_BUCKET};

/// The owner of the slab chunks that small buckets share.
const SHARED_CHUNKS: u16 = NEAR_BUCKET - 1;
/// At most this many timers stay staged: one more files the oldest (see
/// [Deferred filing](self#deferred-filing)). A churned timer is cancelled
/// long before 64 others start; a timer that lives is filed while its slot
/// is still in the cache (64 slots are 2.5 KiB), where filing a whole
/// tick's timers at the next tick touched each slot again from memory.
const STAGED_MAX: u32 = 64;
/// The `bucket` of a staged node (see [Deferred filing](self#deferred-filing)),
/// and the owner of the chunks staged nodes take their slots from when the
/// bucket they will be filed in does not exist yet. Bucket ids stay below it.
const STAGED: u16 = NEAR_BUCKET - 2;
/// Once this many buckets are in the heap, a bucket allocates from a chunk
/// of its own only from its [`OWN_CHUNK_AT`]th timer on; before that it
/// takes slots from chunks shared by all small buckets. (A chunk per
/// bucket keeps a bucket's timers together in memory, but with many
/// buckets of a timer or two each, as a small Lawn with spread TTLs has,
/// it would cost a chunk per timer. Below this many buckets the chunks
/// cost at most 32 slots each, and a test pins that two interleaved
/// TTLs keep their timers apart.)
const SHARE_FROM_BUCKETS: usize = 8;
const OWN_CHUNK_AT: u32 = 16;
use slab::{Ends, Slab, NIL};

pub use check::CorruptLawn;

/// Names a timer in a [`Lawn`]. Cheap to copy; see [Keys](self#keys).
///
/// # Examples
///
/// ```
/// use lawn_rt::lawn::Lawn;
///
/// let mut lawn = Lawn::new();
/// let key = lawn.insert(0, 5, 'x');
/// assert_eq!(lawn.deadline(key), Some(5));
/// assert_eq!(lawn.remove(key), Some('x'));
/// assert_eq!(lawn.remove(key), None); // stale now
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerKey {
    /// The slot index in the high 32 bits, its generation (never zero) in
    /// the low 32: one word, so that a key is stored and loaded whole. (As
    /// two `u32` fields, a key returned through memory was written with two
    /// 32-bit stores and read back with one 64-bit load, which cannot be
    /// forwarded from the stores: a stall on every reset that moved a
    /// timer; docs/decisions/later-reset-in-place.md.) The order is the
    /// index's, then the generation's, as before.
    raw: NonZeroU64,
}

impl TimerKey {
    #[inline]
    fn new(index: u32, gen: NonZeroU32) -> TimerKey {
        TimerKey {
            raw: NonZeroU64::from(gen) | u64::from(index) << 32,
        }
    }

    /// The slot index.
    #[inline]
    fn index(self) -> u32 {
        (self.raw.get() >> 32) as u32
    }

    /// The slot's generation when the key was made.
    #[inline]
    fn gen(self) -> NonZeroU32 {
        // Never zero (see `raw`); a zero would only make the key stale.
        NonZeroU32::new(self.raw.get() as u32).unwrap_or(NonZeroU32::MAX)
    }

    /// The key as one word (never zero): for the timer driver, which keeps
    /// one Lawn per slack level and tags the level into the index's top
    /// bits, and for a `Sleep`, which stores its key in a word.
    #[inline]
    pub(crate) fn to_bits(self) -> NonZeroU64 {
        self.raw
    }

    /// The inverse of [`to_bits`](TimerKey::to_bits). Bits that no key
    /// gave make a key that names no timer (its generation cannot match).
    #[inline]
    pub(crate) fn from_bits(bits: NonZeroU64) -> TimerKey {
        TimerKey { raw: bits }
    }
}

impl fmt::Debug for TimerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TimerKey({}v{})", self.index(), self.gen())
    }
}

/// Timers in FIFO buckets keyed by TTL; see the [module docs](self).
///
/// # Examples
///
/// ```
/// use lawn_rt::lawn::Lawn;
///
/// let mut lawn = Lawn::new();
/// for id in 0..3 {
///     lawn.insert(0, 100, id); // one TTL: one bucket
/// }
/// assert_eq!(lawn.bucket_count(), 1);
/// let due: Vec<_> = std::iter::from_fn(|| lawn.pop_expired(100)).map(|(_, v)| v).collect();
/// assert_eq!(due, [0, 1, 2]); // FIFO
/// ```
#[derive(Clone)]
pub struct Lawn<T> {
    nodes: Slab<T>,
    buckets: Buckets,
    heap: BucketHeap,
    near: Near,
    /// The chunk that buckets holding under [`OWN_CHUNK_AT`] timers
    /// allocate from, together, or `NIL`.
    shared_open: u32,
    /// Timers started by [`insert_deferred`](Lawn::insert_deferred) and not
    /// yet filed in a bucket.
    staged: Staged,
    /// The latest tick seen.
    elapsed: u64,
}

/// The timers [`Lawn::insert_deferred`] started at one tick and has not yet
/// filed (see [Deferred filing](self#deferred-filing)): a FIFO linked
/// through the slab like a bucket, in the order they were started.
#[derive(Clone, Debug)]
struct Staged {
    ends: Ends,
    /// The tick they were started at (only meaningful while `ends` is not
    /// empty).
    base: u64,
    /// How many there are (at most [`STAGED_MAX`]).
    len: u32,
    /// No staged timer is due before this (`u64::MAX` when none is staged):
    /// the least deadline staged since the list last emptied, so a
    /// cancelled one may leave it early, never late.
    min: u64,
    /// The chunk staged timers take slots from when the bucket they will be
    /// filed in does not exist yet, or `NIL`.
    open: u32,
}

impl Staged {
    const fn new() -> Staged {
        Staged {
            ends: Ends::EMPTY,
            base: 0,
            len: 0,
            min: u64::MAX,
            open: NIL,
        }
    }
}

impl<T> Default for Lawn<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> fmt::Debug for Lawn<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lawn")
            .field("len", &self.len())
            .field("buckets", &self.bucket_count())
            .field("elapsed", &self.elapsed)
            .field("next_deadline", &self.next_deadline())
            .finish()
    }
}

impl<T> Lawn<T> {
    /// An empty Lawn at tick 0. Allocates nothing until the first insert.
    ///
    /// # Examples
    ///
    /// ```
    /// let lawn: lawn_rt::lawn::Lawn<()> = lawn_rt::lawn::Lawn::new();
    /// assert!(lawn.is_empty());
    /// ```
    pub fn new() -> Self {
        Lawn {
            nodes: Slab::new(),
            buckets: Buckets::new(),
            heap: BucketHeap::new(),
            near: Near::new(),
            shared_open: NIL,
            staged: Staged::new(),
            elapsed: 0,
        }
    }

    /// Starts a timer due at `now + ttl` (saturating) and returns its key.
    ///
    /// `ttl == 0` is due at `now`. A `now` before [`elapsed`](Lawn::elapsed)
    /// is taken as `elapsed` for filing (see [Time](self#time)).
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

    /// Starts a timer like [`insert`](Lawn::insert), but files it in its
    /// bucket only later: when a timer is started at a later tick, or
    /// before any other call that files or hands out timers. A timer
    /// cancelled before then (a timeout around a call that returned at
    /// once) never touches a bucket or the bucket heap: its start and
    /// cancel cost a slot and a link. See
    /// [Deferred filing](self#deferred-filing).
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
    fn stage(&mut self, index: u32, deadline: u64) {
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
    /// bucket stays in deadline order (see [Deferred filing](self#deferred-filing)).
    #[inline]
    fn file_staged(&mut self) {
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
    /// due (see [Resets](self#resets)): two stores instead of an unlink
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
    /// stands (see [Resets](self#resets)): its key stays, since its lead
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

    /// The value of a pending timer.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(0, 1, 42);
    /// assert_eq!(lawn.get(key), Some(&42));
    /// ```
    pub fn get(&self, key: TimerKey) -> Option<&T> {
        self.nodes.get(key.index(), key.gen()).map(|n| &n.value)
    }

    /// The value of a pending timer, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(0, 1, 1);
    /// *lawn.get_mut(key).unwrap() += 1;
    /// assert_eq!(lawn.remove(key), Some(2));
    /// ```
    pub fn get_mut(&mut self, key: TimerKey) -> Option<&mut T> {
        self.nodes
            .get_mut(key.index(), key.gen())
            .map(|n| &mut n.value)
    }

    /// The tick at which a pending timer is due.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(5, 10, ());
    /// assert_eq!(lawn.deadline(key), Some(15));
    /// ```
    pub fn deadline(&self, key: TimerKey) -> Option<u64> {
        self.nodes.get(key.index(), key.gen()).map(|n| n.deadline)
    }

    /// The earliest tick at which [`pop_expired`](Lawn::pop_expired) may have
    /// work, or `None` if the Lawn is empty. O(1).
    ///
    /// Never after the earliest deadline; equal to it unless the earliest
    /// bucket is a quantization class, where it may be earlier by about 1/64
    /// of that timer's TTL at most (see [Costs and bounds](self#costs-and-bounds)),
    /// or a timer staged by [`insert_deferred`](Lawn::insert_deferred) was
    /// cancelled while others stay staged (then it may be that timer's
    /// deadline until the staged timers are filed), or
    /// [`reset_lazily`](Lawn::reset_lazily) gave the timer a later deadline
    /// in place (then it is the timer's old
    /// key until that comes due; see [Resets](self#resets)).
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
        let now = self.observe(now);
        // The common tick has nothing due: keep that check small enough to
        // inline into the caller's loop, and the work out of line.
        match self.next_deadline() {
            Some(next) if next <= now => self.pop_due(now),
            _ => None,
        }
    }

    /// The part of [`pop_expired`](Lawn::pop_expired) that does work.
    fn pop_due(&mut self, now: u64) -> Option<(TimerKey, T)> {
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

    /// Unlinks and frees a linked node, returning its key and value.
    #[inline]
    fn take(&mut self, index: u32) -> (TimerKey, T) {
        let gen = self.nodes.node(index).gen;
        self.unlink(index);
        (TimerKey::new(index, gen), self.nodes.remove(index))
    }

    /// Number of pending timers.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// lawn.insert(0, 1, ());
    /// assert_eq!(lawn.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no timer is pending.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::lawn::Lawn::<u8>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of live (non-empty) buckets. Timers staged by
    /// [`insert_deferred`](Lawn::insert_deferred) are in none until filed.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// lawn.insert(0, 10, ());
    /// lawn.insert(0, 10, ());
    /// lawn.insert(0, 20, ());
    /// assert_eq!(lawn.bucket_count(), 2);
    /// ```
    pub fn bucket_count(&self) -> usize {
        self.heap.len() + self.near.live()
    }

    /// The latest tick the Lawn has been given (see [Time](self#time)).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::<()>::new();
    /// lawn.pop_expired(9);
    /// lawn.pop_expired(3); // time does not go back
    /// assert_eq!(lawn.elapsed(), 9);
    /// ```
    pub fn elapsed(&self) -> u64 {
        self.elapsed
    }

    /// Drops every timer, keeping [`elapsed`](Lawn::elapsed); every key
    /// issued so far becomes stale. Gives the memory back.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let key = lawn.insert(0, 1, ());
    /// lawn.clear();
    /// assert!(lawn.is_empty() && lawn.get(key).is_none());
    /// ```
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.buckets.clear();
        self.heap.clear();
        self.near = Near::new();
        self.shared_open = NIL;
        self.staged = Staged::new();
    }

    /// How many timers the slab has slots for (some are kept per bucket, so
    /// a new bucket may still allocate before `len` reaches it).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::<u32>::new();
    /// lawn.reserve(1_000);
    /// assert!(lawn.capacity() >= 1_000);
    /// ```
    pub fn capacity(&self) -> usize {
        self.nodes.capacity()
    }

    /// Makes room for at least `additional` more timers than are pending
    /// (and some more, for the partly filled chunks of their buckets), in
    /// one allocation. A reservation that stays unused is given back
    /// after a while, like any spare capacity (see
    /// [Costs and bounds](self#costs-and-bounds)).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// lawn.reserve(100);
    /// let cap = lawn.capacity();
    /// for i in 0..100 {
    ///     lawn.insert(0, 10, i);
    /// }
    /// assert_eq!(lawn.capacity(), cap);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    /// Gives back all spare capacity of the timer slab now, and frees the
    /// empty buckets kept for their TTL's next timer. (The Lawn already
    /// gives slab capacity back by itself once the spare part exceeds three
    /// quarters.) Pending timers keep their keys.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// let keys: Vec<_> = (0..10_000).map(|i| lawn.insert(0, 10, i)).collect();
    /// let full = lawn.allocated_bytes();
    /// for key in &keys[2_500..] {
    ///     lawn.remove(*key); // three quarters go
    /// }
    /// lawn.shrink_to_fit();
    /// assert!(lawn.allocated_bytes() <= full / 2);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        // Dormant buckets go too (they are only kept for speed), so that an
        // emptied bucket table can be given back.
        while let Some((id, bucket)) = self.buckets.release_dormant() {
            self.nodes.close(id, bucket.open);
        }
        self.nodes.shrink_to_fit();
    }

    /// Heap memory held by the Lawn, in bytes: capacity, not just use, so
    /// right after the slab grows it is up to 1.5 times the slots in use.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut lawn = lawn_rt::lawn::Lawn::new();
    /// for i in 0..120_000u64 {
    ///     lawn.insert(0, 5_000 + i % 10, i);
    /// }
    /// assert!(lawn.allocated_bytes() / lawn.len() <= 48);
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.nodes.allocated_bytes()
            + self.buckets.allocated_bytes()
            + self.heap.allocated_bytes()
            + self.near.allocated_bytes()
    }

    /// Advances [`elapsed`](Lawn::elapsed) to `now` if later; returns it.
    #[inline(always)]
    fn observe(&mut self, now: u64) -> u64 {
        self.elapsed = self.elapsed.max(now);
        self.elapsed
    }

    /// The key (earliest tick its bucket may hand it out) of a linked node.
    #[inline]
    fn key_of(&self, index: u32) -> u64 {
        let node = self.nodes.node(index);
        let shift = self.buckets.get(node.bucket).lead_shift();
        ((node.deadline >> shift) - u64::from(node.lead)) << shift
    }

    /// Links an unlinked node at the tail of the bucket for the ticks it has
    /// left after `base` (the current tick). Its slot stays where it is.
    fn file(&mut self, index: u32, base: u64) {
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
    fn unlink(&mut self, index: u32) {
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
fn chunk_of<'a>(
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
