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
//!   of one bucket lie in memory in the order they expire (an expiry
//!   walks memory forwards, not from cache miss to cache miss, in a
//!   big slab); but once 8 or more buckets are in the bucket heap (the
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
//! pays for staging on top of its filing: one more link and unlink
//! (docs/decisions/deferred-filing.md has the figures).
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
mod expiry;
mod filing;
#[cfg(test)]
mod fuzz;
mod heap;
mod key;
mod near;
mod reset;
mod slab;
mod staging;
#[cfg(test)]
pub(crate) mod tests;

use std::fmt;

use buckets::Buckets;
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
use slab::{Slab, NIL};
use staging::Staged;

pub use check::CorruptLawn;
pub use key::TimerKey;

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
}
