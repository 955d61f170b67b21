//! [`DelayQueue`]: a queue of values that each come out at their own
//! deadline, with tokio-util 0.7's API, stored in a [`Lawn`].
//!
//! It is the shape of cache expiry, retry queues and session TTLs: insert a
//! value with a delay, keep the [`Key`] to [`remove`](DelayQueue::remove)
//! or [`reset`](DelayQueue::reset) it, and poll the queue (or use it as a
//! [`Stream`]) for the values whose time has come, each as an [`Expired`].
//!
//! ```
//! use lawn_rt::time::{DelayQueue, Duration};
//! use futures::StreamExt;
//!
//! futures::executor::block_on(async {
//!     let mut sessions = DelayQueue::new();
//!     sessions.insert("alice", Duration::from_millis(20));
//!     let bob = sessions.insert("bob", Duration::from_millis(10));
//!     sessions.insert("carol", Duration::from_millis(5));
//!     sessions.reset(&bob, Duration::from_millis(30)); // bob was active
//!
//!     let mut order = Vec::new();
//!     while let Some(expired) = sessions.next().await {
//!         order.push(expired.into_inner());
//!     }
//!     assert_eq!(order, ["carol", "alice", "bob"]);
//! });
//! ```
//!
//! # How it differs from tokio-util's
//!
//! - **No limits.** Any [`Duration`] and any `Instant` are accepted, up to
//!   `Duration::MAX` (which then never comes due), and a queue may live for
//!   any length of time; tokio-util's panics past 2^36 ms.
//! - **Microseconds, not milliseconds.** Deadlines are kept to the
//!   microsecond (rounded up: never early), and the queue is woken by one
//!   `lawn_rt` [`Sleep`] on its earliest deadline, with the driver's
//!   precision.
//! - **Memory follows the load.** Entries are 24 bytes plus the value
//!   (rounded to 8), and a queue that has used under a quarter of its
//!   memory for a second gives the rest back when it is next polled;
//!   [`compact`](DelayQueue::compact) is there for tokio-util's API and
//!   does what [`shrink_to_fit`](DelayQueue::shrink_to_fit) does. Keys
//!   never move, so no key is remapped. (An entry inserted for an instant
//!   already past takes 24 bytes more, in a heap that keeps such entries in
//!   order, until the next poll hands it out and gives that memory back.)
//! - **Any executor.** The queue's `Sleep` is a `lawn_rt` timer, so it runs
//!   under tokio, smol, `futures::executor` or `lawn_rt`'s runtime, and
//!   follows a paused clock (`time::pause`) like every `lawn_rt` timer.
//! - Entries that are due come out in deadline order, at microsecond
//!   granularity; of entries due at the same microsecond, which comes first
//!   is unspecified.
//! - **Instants already past** keep the deadline asked for, as in
//!   tokio-util, and come out earliest first. The floor below which
//!   neither sets a deadline is tokio-util's wheel time: the queue's start
//!   until a poll finds the queue empty, then the last deadline handed out
//!   (see [`insert_at`](DelayQueue::insert_at)); but tokio-util's wheel
//!   also moves it on as it cascades entries between its levels (at
//!   multiples of 64 ms, 4 s, ...), which this queue has no reason to do,
//!   so there a past instant may keep a deadline that tokio-util would
//!   have raised to such a point.
//!
//! A stale key (its entry was handed out or removed) makes
//! [`remove`](DelayQueue::remove), [`reset`](DelayQueue::reset) and
//! [`deadline`](DelayQueue::deadline) panic with a message saying so, as
//! tokio-util's do; [`try_remove`](DelayQueue::try_remove) returns `None`.

mod clock;
mod expired;
mod filing;
#[cfg(test)]
mod tests;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_core::Stream;

use crate::lawn::{Lawn, TimerKey};
use crate::time::{Instant, Sleep};

pub use expired::{Expired, Key};

/// A queue of values, each handed out once its deadline has passed; see the
/// [module docs](self).
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{DelayQueue, Duration};
///
/// futures::executor::block_on(async {
///     let mut retries = DelayQueue::new();
///     let key = retries.insert("GET /a", Duration::from_millis(5));
///     retries.insert("GET /b", Duration::from_secs(60));
///     assert_eq!(retries.len(), 2);
///
///     let due = std::future::poll_fn(|cx| retries.poll_expired(cx)).await.unwrap();
///     assert_eq!((due.key(), due.into_inner()), (key, "GET /a"));
///     assert_eq!(retries.len(), 1);
/// });
/// ```
pub struct DelayQueue<T> {
    lawn: Lawn<T>,
    /// Tick 0 of the Lawn.
    start: Instant,
    /// The latest tick known to have passed: read from the clock, or the
    /// deadline of a sleep that completed.
    reached: u64,
    /// Wakes the poller at the tick it is armed for. `None` while the queue
    /// is empty (or was never polled).
    sleep: Option<Pin<Box<Sleep>>>,
    armed: u64,
    /// The last poller, woken when an entry arrives in a queue that has no
    /// sleep to wake it.
    waker: Option<Waker>,
    /// The tick since which the queue has used under a quarter of its
    /// slots (see [`settle_memory`](DelayQueue::settle_memory)).
    low_since: Option<u64>,
    /// No deadline is set before this tick (tokio-util's rule: its wheel's
    /// `elapsed`): `last_out` as of the last poll that found the queue
    /// empty; 0 for a new or cleared queue.
    floor: u64,
    /// The deadline of the last entry `poll_expired` handed out that was
    /// due after the floor (see [`handed_out`](DelayQueue::handed_out)).
    last_out: u64,
    /// The entries due before the Lawn's `elapsed` (see [Past
    /// deadlines](DelayQueue::file_past)), earliest first, as (deadline,
    /// sequence number, key); also stale ones, skipped when they come up.
    past: BinaryHeap<Reverse<(u64, u64, TimerKey)>>,
    /// How many live entries `past` holds (the Lawn holds them too).
    past_live: usize,
    /// Numbers `past`'s entries in filing order, so that those with one
    /// deadline come out first in, first out.
    past_seq: u64,
}

/// A queue gives its spare memory back once it has used under a quarter of
impl<T> DelayQueue<T> {
    /// An empty queue, whose clock starts now. Allocates nothing until the
    /// first insert.
    ///
    /// # Examples
    ///
    /// ```
    /// let queue: lawn_rt::time::DelayQueue<u32> = lawn_rt::time::DelayQueue::new();
    /// assert!(queue.is_empty());
    /// ```
    pub fn new() -> Self {
        DelayQueue {
            lawn: Lawn::new(),
            start: Instant::now(),
            reached: 0,
            sleep: None,
            armed: u64::MAX,
            waker: None,
            low_since: None,
            floor: 0,
            last_out: 0,
            past: BinaryHeap::new(),
            past_live: 0,
            past_seq: 0,
        }
    }

    /// An empty queue with room for `capacity` entries.
    ///
    /// # Examples
    ///
    /// ```
    /// let queue = lawn_rt::time::DelayQueue::<u32>::with_capacity(1_000);
    /// assert!(queue.capacity() >= 1_000);
    /// ```
    pub fn with_capacity(capacity: usize) -> Self {
        let mut queue = DelayQueue::new();
        queue.reserve(capacity);
        queue
    }

    /// Inserts `value`, due `timeout` from now, and returns its key. Any
    /// duration is accepted: `Duration::MAX` never comes due.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration, Instant};
    ///
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert("cache entry", Duration::from_secs(30));
    /// assert!(queue.deadline(&key) >= Instant::now() + Duration::from_secs(29));
    /// queue.insert("forever", Duration::MAX); // no panic
    /// ```
    pub fn insert(&mut self, value: T, timeout: Duration) -> Key {
        let deadline = self.tick_after(timeout);
        self.insert_tick(value, deadline)
    }

    /// Inserts `value`, due at `when`, and returns its key.
    ///
    /// A `when` in the past is due at once, but keeps its deadline, as in
    /// tokio-util: entries already due come out earliest first, and
    /// [`deadline`](DelayQueue::deadline) and [`Expired::deadline`] report
    /// `when`. Only two floors apply, tokio-util's: the queue's start, and,
    /// once a poll has found the queue empty, the deadline of the last
    /// entry handed out before (not counting entries that were due at the
    /// floor itself). A `when` before the floor is due at the floor.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration, Instant};
    ///
    /// let mut queue = DelayQueue::new();
    /// let when = Instant::now() + Duration::from_millis(50);
    /// let key = queue.insert_at("flush", when);
    /// assert!(queue.deadline(&key) >= when);
    /// ```
    ///
    /// Instants already past:
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration, Instant};
    /// use std::future::poll_fn;
    ///
    /// futures::executor::block_on(async {
    ///     let mut queue = DelayQueue::new();
    ///     let start = Instant::now();
    ///     std::thread::sleep(Duration::from_millis(5));
    ///     queue.insert("later", Duration::from_secs(60));
    ///     let (b_at, a_at) = (start + Duration::from_millis(3), start + Duration::from_millis(1));
    ///     let b = queue.insert_at("b", b_at);
    ///     queue.insert_at("a", a_at);
    ///     assert!(queue.deadline(&b) - b_at < Duration::from_micros(1)); // not "now"
    ///     let first = poll_fn(|cx| queue.poll_expired(cx)).await.unwrap();
    ///     assert_eq!(*first.get_ref(), "a"); // earliest first
    ///     assert!(first.deadline() - a_at < Duration::from_micros(1));
    /// });
    /// ```
    pub fn insert_at(&mut self, value: T, when: Instant) -> Key {
        let deadline = self.tick_of(when);
        self.insert_tick(value, deadline)
    }

    /// Removes the entry `key` names and returns it, due or not.
    ///
    /// # Panics
    ///
    /// If the key is stale: its entry was handed out or removed (as
    /// tokio-util's does). [`try_remove`](DelayQueue::try_remove) returns
    /// `None` instead.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert("retry", Duration::from_secs(1));
    /// assert_eq!(queue.remove(&key).into_inner(), "retry");
    /// assert!(queue.is_empty());
    /// ```
    #[track_caller]
    pub fn remove(&mut self, key: &Key) -> Expired<T> {
        match self.try_remove(key) {
            Some(expired) => expired,
            None => panic!("{}", stale("remove")),
        }
    }

    /// Removes the entry `key` names and returns it, or `None` if the key
    /// is stale.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert(1, Duration::from_secs(1));
    /// assert!(queue.try_remove(&key).is_some());
    /// assert!(queue.try_remove(&key).is_none());
    /// ```
    pub fn try_remove(&mut self, key: &Key) -> Option<Expired<T>> {
        let deadline = self.lawn.deadline(key.0)?;
        if self.is_past(deadline) {
            // Its entry in `past` goes stale.
            self.past_live -= 1;
        }
        let data = self.lawn.remove(key.0)?;
        if self.lawn.is_empty() {
            self.past.clear();
            // Nothing left to wait for: the poller's next poll ends the
            // stream (`Ready(None)`), as tokio-util's does, so wake it.
            self.disarm();
            self.wake_poller();
        }
        Some(Expired {
            data,
            deadline: self.instant_of(deadline),
            key: *key,
        })
    }

    /// Moves an entry to `timeout` from now (earlier or later), keeping its
    /// key; an entry that was due but not yet handed out waits again.
    ///
    /// # Panics
    ///
    /// If the key is stale (its entry was handed out or removed).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration, Instant};
    ///
    /// let mut idle = DelayQueue::new();
    /// let key = idle.insert("conn 7", Duration::from_secs(10));
    /// idle.reset(&key, Duration::from_secs(60)); // activity
    /// assert!(idle.deadline(&key) >= Instant::now() + Duration::from_secs(59));
    /// ```
    #[track_caller]
    pub fn reset(&mut self, key: &Key, timeout: Duration) {
        let deadline = self.tick_after(timeout);
        self.reset_tick(key, deadline, "reset");
    }

    /// Moves an entry to `when` (earlier or later), keeping its key. A
    /// `when` in the past is due at once but keeps its deadline, as for
    /// [`insert_at`](DelayQueue::insert_at).
    ///
    /// # Panics
    ///
    /// If the key is stale (its entry was handed out or removed).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration, Instant};
    ///
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert((), Duration::from_secs(10));
    /// let when = Instant::now() + Duration::from_secs(1);
    /// queue.reset_at(&key, when);
    /// assert!(queue.deadline(&key) >= when);
    /// assert!(queue.deadline(&key) < when + Duration::from_millis(1));
    /// ```
    #[track_caller]
    pub fn reset_at(&mut self, key: &Key, when: Instant) {
        let deadline = self.tick_of(when);
        self.reset_tick(key, deadline, "reset_at");
    }

    /// The key of the entry due first, or `None` if the queue is empty. Of
    /// entries due at the same microsecond it names one. O(buckets of the
    /// queue's Lawn), or O(entries inserted with instants already past)
    /// while there are any: meant for an occasional look.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// queue.insert("later", Duration::from_secs(10));
    /// let soon = queue.insert("soon", Duration::from_secs(5));
    /// assert_eq!(queue.peek(), Some(soon));
    /// ```
    pub fn peek(&self) -> Option<Key> {
        if self.past_live > 0 {
            // All due before anything else: the earliest live one.
            return self
                .past
                .iter()
                .map(|Reverse(entry)| entry)
                .filter(|(deadline, _, key)| self.lawn.deadline(*key) == Some(*deadline))
                .min()
                .map(|(_, _, key)| Key(*key));
        }
        self.lawn.earliest().map(Key)
    }

    /// The deadline of the entry `key` names, rounded up to the
    /// microsecond: the instant it was inserted or reset for, or the
    /// queue's floor if that was later (see [`insert_at`](DelayQueue::insert_at)).
    ///
    /// # Panics
    ///
    /// If the key is stale (its entry was handed out or removed).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// let a = queue.insert((), Duration::from_secs(1));
    /// let b = queue.insert((), Duration::from_secs(2));
    /// assert!(queue.deadline(&a) < queue.deadline(&b));
    /// ```
    #[track_caller]
    pub fn deadline(&self, key: &Key) -> Instant {
        match self.lawn.deadline(key.0) {
            Some(tick) => self.instant_of(tick),
            None => panic!("{}", stale("deadline")),
        }
    }

    /// Hands out the next entry whose deadline has passed: `Ready(Some)`.
    /// `Pending` if entries wait but none is due (the task is woken when
    /// one is, when an earlier one is inserted, and when a remove empties
    /// the queue); `Ready(None)` if the queue is empty (the task is still
    /// woken by the next insert).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    /// use std::future::poll_fn;
    ///
    /// futures::executor::block_on(async {
    ///     let mut queue = DelayQueue::new();
    ///     queue.insert("b", Duration::from_millis(4));
    ///     queue.insert("a", Duration::from_millis(2));
    ///     let a = poll_fn(|cx| queue.poll_expired(cx)).await.unwrap();
    ///     let b = poll_fn(|cx| queue.poll_expired(cx)).await.unwrap();
    ///     assert_eq!([a.into_inner(), b.into_inner()], ["a", "b"]);
    ///     assert!(poll_fn(|cx| queue.poll_expired(cx)).await.is_none());
    /// });
    /// ```
    pub fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<Option<Expired<T>>> {
        if !self.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            self.waker = Some(cx.waker().clone());
        }
        loop {
            if let Some(expired) = self.pop_due() {
                return Poll::Ready(Some(expired));
            }
            self.settle_memory();
            let Some(next) = self.lawn.next_deadline() else {
                self.disarm();
                // tokio-util's wheel moves its `elapsed` on when a poll
                // finds it empty; deadlines asked for later are not set
                // before it.
                self.floor = self.floor.max(self.last_out);
                return Poll::Ready(None);
            };
            self.arm(next);
            let sleep = self.sleep.as_mut().expect("armed just now");
            match sleep.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                // The clock has passed the sleep's deadline, the start of
                // tick `next`: entries due by then may go.
                Poll::Ready(()) => self.reached = self.reached.max(next),
            }
        }
    }

    /// Number of entries in the queue, due or not.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// queue.insert((), Duration::from_secs(1));
    /// assert_eq!(queue.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.lawn.len()
    }

    /// Whether the queue holds no entry.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(lawn_rt::time::DelayQueue::<()>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.lawn.is_empty()
    }

    /// Removes every entry (every key becomes stale) and gives the memory
    /// back. A task waiting on the queue is woken, to find it empty.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// let key = queue.insert((), Duration::from_secs(1));
    /// queue.clear();
    /// assert!(queue.is_empty() && queue.try_remove(&key).is_none());
    /// ```
    pub fn clear(&mut self) {
        let had_entries = !self.lawn.is_empty();
        self.lawn.clear();
        self.past = BinaryHeap::new();
        self.past_live = 0;
        // As tokio-util's, whose cleared wheel starts again from its start.
        self.floor = 0;
        self.disarm();
        if had_entries {
            self.wake_poller();
        }
    }

    /// How many entries the queue has room for without allocating (roughly:
    /// room is kept in blocks of 32 per deadline group).
    ///
    /// # Examples
    ///
    /// ```
    /// let queue = lawn_rt::time::DelayQueue::<u8>::with_capacity(64);
    /// assert!(queue.capacity() >= 64);
    /// ```
    pub fn capacity(&self) -> usize {
        self.lawn.capacity()
    }

    /// Makes room for at least `additional` more entries. Room that stays
    /// unused is given back after a while, as entries' memory is.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut queue = lawn_rt::time::DelayQueue::<u8>::new();
    /// queue.reserve(500);
    /// assert!(queue.capacity() >= 500);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        self.lawn.reserve(additional);
    }

    /// Gives back the spare memory now. The queue also does so by itself
    /// once it has used under a quarter of its memory for a second (checked
    /// when it is polled).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// let keys: Vec<_> = (0..10_000).map(|i| queue.insert(i, Duration::from_secs(9))).collect();
    /// let full = queue.allocated_bytes();
    /// for key in &keys[5_000..] {
    ///     queue.remove(key);
    /// }
    /// queue.shrink_to_fit();
    /// assert!(queue.allocated_bytes() <= full / 2 + 4096);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.lawn.shrink_to_fit();
    }

    /// tokio-util's name for giving memory back after many removals. Keys
    /// never move here, so this is [`shrink_to_fit`](DelayQueue::shrink_to_fit):
    /// every key stays valid.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// let a = queue.insert('a', Duration::from_secs(1));
    /// let b = queue.insert('b', Duration::from_secs(1));
    /// queue.remove(&a);
    /// queue.compact();
    /// assert_eq!(queue.remove(&b).into_inner(), 'b');
    /// ```
    pub fn compact(&mut self) {
        self.shrink_to_fit();
    }

    /// Heap memory the queue holds for its entries, in bytes (capacity, not
    /// just use).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{DelayQueue, Duration};
    ///
    /// let mut queue = DelayQueue::new();
    /// for i in 0..100_000u64 {
    ///     queue.insert(i, Duration::from_secs(60));
    /// }
    /// assert!(queue.allocated_bytes() / queue.len() <= 48);
    /// ```
    pub fn allocated_bytes(&self) -> usize {
        self.lawn.allocated_bytes()
            + self.past.capacity() * std::mem::size_of::<Reverse<(u64, u64, TimerKey)>>()
    }
}

fn stale(what: &str) -> String {
    format!(
        "lawn_rt: `DelayQueue::{what}`: the key names no entry of this queue \
         (its entry was already handed out by `poll_expired` or removed)"
    )
}

impl<T> Default for DelayQueue<T> {
    fn default() -> Self {
        DelayQueue::new()
    }
}

// The values are never pinned: the queue moves them freely.
impl<T> Unpin for DelayQueue<T> {}

impl<T> fmt::Debug for DelayQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DelayQueue")
            .field("len", &self.len())
            .field("start", &self.start)
            .field("next_tick", &self.lawn.next_deadline())
            .finish_non_exhaustive()
    }
}

/// The queue as a stream of [`Expired`] entries, from
/// [`poll_expired`](DelayQueue::poll_expired). It yields `None` whenever the
/// queue is empty, and may yield more after later inserts.
impl<T> Stream for DelayQueue<T> {
    type Item = Expired<T>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Expired<T>>> {
        self.get_mut().poll_expired(cx)
    }
}
