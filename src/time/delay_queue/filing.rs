//! Filing entries in the queue's Lawn (and past deadlines beside it),
//! handing them out in deadline order, and giving memory back.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::lawn::TimerKey;

use super::{stale, DelayQueue, Expired, Key};

/// it for this many ticks (a second)...
const SHRINK_AFTER_TICKS: u64 = 1_000_000;
/// ...and holds more than this many slots (a few pages).
const SHRINK_ABOVE_SLOTS: usize = 4_096;

impl<T> DelayQueue<T> {
    /// Files a value due at tick `deadline` (not before the floor).
    pub(super) fn insert_tick(&mut self, value: T, deadline: u64) -> Key {
        let (now, ttl) = self.filing(deadline);
        let key = self.lawn.insert(now, ttl, value);
        let deadline = now.saturating_add(ttl);
        if self.is_past(deadline) {
            self.file_past(deadline, key);
        }
        self.earlier(deadline);
        Key(key)
    }

    #[track_caller]
    pub(super) fn reset_tick(&mut self, key: &Key, deadline: u64, what: &str) {
        let Some(old) = self.lawn.deadline(key.0) else {
            panic!("{}", stale(what));
        };
        if self.is_past(old) {
            // Its entry in `past` goes stale (a new one is filed below if
            // it stays past).
            self.past_live -= 1;
        }
        let (now, ttl) = self.filing(deadline);
        self.lawn.reset(key.0, now, ttl);
        let deadline = now.saturating_add(ttl);
        if self.is_past(deadline) {
            self.file_past(deadline, key.0);
        }
        self.earlier(deadline);
    }

    /// The `(now, ttl)` to file an entry due at tick `deadline` with: due
    /// at `now + ttl`, which is `deadline` but not before the floor
    /// (tokio-util's rule). Usually relative to [`base`](DelayQueue::base);
    /// a deadline before it is filed relative to the Lawn's `elapsed`, so
    /// that it keeps its tick; one before that too is filed as of its own
    /// tick, which the Lawn keeps as the deadline and treats as due at
    /// once (and [`file_past`](DelayQueue::file_past) keeps it in order).
    fn filing(&self, deadline: u64) -> (u64, u64) {
        let deadline = deadline.max(self.floor);
        let base = self.base();
        if deadline >= base {
            return (base, deadline - base);
        }
        let elapsed = self.lawn.elapsed();
        if deadline >= elapsed {
            (elapsed, deadline - elapsed)
        } else {
            (deadline, 0)
        }
    }

    /// Whether an entry due at tick `deadline` is one of the past ones:
    /// due before the Lawn's `elapsed`. No other entry is (the ground rule
    /// of [`base`](DelayQueue::base)), and `elapsed` never goes back.
    pub(super) fn is_past(&self, deadline: u64) -> bool {
        deadline < self.lawn.elapsed()
    }

    /// Records the entry `key`, just filed due at tick `deadline` before
    /// the Lawn's `elapsed`, in `past`.
    ///
    /// # Past deadlines
    ///
    /// The Lawn files such entries in one bucket, in filing order, as due
    /// at once: it does not know their order. They are rare (an
    /// `insert_at` or `reset_at` with an instant already past, once the
    /// queue's clock has moved on), so `past`, a binary heap beside the
    /// Lawn, orders them, and [`pop_due`](DelayQueue::pop_due) hands them
    /// out from it, earliest first, before anything else: they are all
    /// due, and due before every other entry. The normal path pays a
    /// comparison for it. Entries removed, reset or handed out leave
    /// stale heap entries (told apart by their deadline: the Lawn's no
    /// longer matches), skipped when they come up, cleared when the queue
    /// empties, and swept out once they outnumber the live ones.
    fn file_past(&mut self, deadline: u64, key: TimerKey) {
        self.past_seq += 1;
        self.past.push(Reverse((deadline, self.past_seq, key)));
        self.past_live += 1;
        if self.past.len() > 2 * self.past_live + 32 {
            self.sweep_past();
        }
    }

    /// Drops `past`'s stale entries (and duplicates: a key reset to one
    /// past deadline, away and back, has two that match it).
    #[cold]
    fn sweep_past(&mut self) {
        let mut live = std::mem::take(&mut self.past).into_vec();
        live.retain(|Reverse((deadline, _, key))| self.lawn.deadline(*key) == Some(*deadline));
        // The latest filing of each key stays.
        live.sort_unstable_by_key(|Reverse((_, seq, key))| (*key, Reverse(*seq)));
        live.dedup_by_key(|Reverse((_, _, key))| *key);
        debug_assert_eq!(live.len(), self.past_live);
        self.past = BinaryHeap::from(live);
    }

    /// Notes that an entry due at tick `deadline` was handed out, for the
    /// floor's next value. tokio-util's floor becomes the time its wheel
    /// last reached, which follows the entries the wheel hands out, when a
    /// poll finds the queue empty; entries clamped to the floor come from
    /// its list of entries due at once instead, and leave that time as it
    /// is.
    fn handed_out(&mut self, deadline: u64) {
        if deadline > self.floor {
            self.last_out = deadline;
        }
    }

    /// Hands out the earliest live entry of `past`, if any.
    fn pop_past(&mut self) -> Option<Expired<T>> {
        while let Some(Reverse((deadline, _, key))) = self.past.pop() {
            if self.lawn.deadline(key) != Some(deadline) {
                continue; // stale
            }
            self.past_live -= 1;
            let data = self.lawn.remove(key).expect("a live key");
            if self.lawn.is_empty() {
                self.past.clear();
                self.disarm();
            }
            self.handed_out(deadline);
            return Some(Expired {
                data,
                deadline: self.instant_of(deadline),
                key: Key(key),
            });
        }
        debug_assert_eq!(self.past_live, 0);
        None
    }

    /// The tick the Lawn files relative to. Ground rule: every pending
    /// entry's deadline is at or after the Lawn's `elapsed`, so that
    /// `pop_expired(next_deadline)` hands out only entries due at that
    /// very tick and the queue hands them out in deadline order. Moving the
    /// Lawn's clock up to `reached` keeps the rule only when nothing in it
    /// may be due by then. The one exception, entries filed for a tick
    /// already before `elapsed`, are in `past` and handed out from there,
    /// before the Lawn is asked for anything (see
    /// [`file_past`](DelayQueue::file_past)).
    fn base(&self) -> u64 {
        let elapsed = self.lawn.elapsed();
        match self.lawn.next_deadline() {
            Some(next) if next <= self.reached => elapsed,
            _ => self.reached.max(elapsed),
        }
    }

    /// The next due entry, if one is due by the clock, in deadline order.
    pub(super) fn pop_due(&mut self) -> Option<Expired<T>> {
        if self.past_live > 0 {
            if let Some(expired) = self.pop_past() {
                return Some(expired);
            }
        }
        let next = self.lawn.next_deadline()?;
        if next > self.reached {
            self.reached = self.reached.max(self.now_tick());
            if next > self.reached {
                return None;
            }
        }
        loop {
            // `next` is at or before every deadline (the ground rule of
            // `base`; nothing live is left in `past`), so what comes out is
            // due at `next` exactly; if nothing does, the Lawn re-filed
            // early keys past `next`.
            let next = self.lawn.next_deadline()?;
            if next > self.reached {
                return None;
            }
            if let Some((key, data)) = self.lawn.pop_expired(next) {
                if self.lawn.is_empty() {
                    self.disarm();
                }
                self.handed_out(next);
                return Some(Expired {
                    data,
                    deadline: self.instant_of(next),
                    key: Key(key),
                });
            }
        }
    }

    /// Gives the spare memory back once the queue has used under a quarter
    /// of it for a second: a load that fell stays cheap, while one that
    /// empties and refills within the second keeps its pages. Called when
    /// a poll has handed out everything due, so O(1) per poll.
    pub(super) fn settle_memory(&mut self) {
        // Everything due has been handed out, so `past` holds nothing live:
        // drop the stale entries, and the heap's memory if it grew.
        debug_assert_eq!(self.past_live, 0);
        if self.past.capacity() > 64 {
            self.past = BinaryHeap::new();
        } else {
            self.past.clear();
        }
        let capacity = self.lawn.capacity();
        if capacity <= SHRINK_ABOVE_SLOTS || self.lawn.len() * 4 >= capacity {
            self.low_since = None;
            return;
        }
        match self.low_since {
            None => self.low_since = Some(self.reached),
            Some(since) if self.reached - since >= SHRINK_AFTER_TICKS => {
                self.lawn.shrink_to_fit();
                self.low_since = None;
            }
            Some(_) => {}
        }
    }
}
