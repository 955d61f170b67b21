//! The queue's clock: ticks of its Lawn against instants, and the sleep
//! that wakes the poller at the earliest deadline.

use std::time::Duration;

use crate::time::{sleep_until, Instant};

use super::DelayQueue;

/// Nanoseconds per tick of a queue's Lawn, and ticks per second.
const TICK_NS: u64 = 1_000;
const TICKS_PER_SEC: u64 = 1_000_000;

impl<T> DelayQueue<T> {
    /// Points the sleep at tick `next`, in place if there is one.
    pub(super) fn arm(&mut self, next: u64) {
        let at = self.instant_of(next);
        match &mut self.sleep {
            Some(_) if self.armed == next => {}
            Some(sleep) => sleep.as_mut().reset(at),
            None => self.sleep = Some(Box::pin(sleep_until(at))),
        }
        self.armed = next;
    }

    /// An entry is now due at `deadline`: if that is before the sleep, move
    /// the sleep (it keeps the poller's waker); with no sleep, wake the
    /// poller so that it arms one.
    pub(super) fn earlier(&mut self, deadline: u64) {
        match &mut self.sleep {
            None => self.wake_poller(),
            // The common case: not the earliest.
            Some(_) if deadline >= self.armed => {}
            Some(sleep) => {
                let at = self.start.saturating_add(Duration::from_micros(deadline));
                sleep.as_mut().reset(at);
                self.armed = deadline;
            }
        }
    }

    /// Wakes the task that last polled the queue, if it is waiting: its
    /// next poll hands out, arms the sleep or ends the stream.
    pub(super) fn wake_poller(&mut self) {
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }

    /// Drops the sleep: nothing is left to wake the poller for.
    pub(super) fn disarm(&mut self) {
        self.sleep = None;
        self.armed = u64::MAX;
    }

    /// `when` in ticks, rounded up (never early), saturating.
    pub(super) fn tick_of(&self, when: Instant) -> u64 {
        ticks_ceil(when.saturating_duration_since(self.start))
    }

    /// Now plus `timeout` in ticks: now and `timeout` each rounded up, so
    /// never early, and a fixed `timeout` files with one TTL relative to
    /// the floor of now (the Lawn keeps one exact bucket for it) however
    /// now falls within its microsecond.
    pub(super) fn tick_after(&mut self, timeout: Duration) -> u64 {
        let now = Instant::now().saturating_duration_since(self.start);
        self.reached = self.reached.max(ticks_floor(now));
        ticks_ceil(now).saturating_add(ticks_ceil(timeout))
    }

    /// The clock now, in whole ticks.
    pub(super) fn now_tick(&self) -> u64 {
        ticks_floor(Instant::now().saturating_duration_since(self.start))
    }

    /// The start of tick `tick`.
    pub(super) fn instant_of(&self, tick: u64) -> Instant {
        self.start.saturating_add(Duration::from_micros(tick))
    }
}

/// `d` in whole ticks, rounded up, saturating (no 128-bit division: this
/// is on every insert).
fn ticks_ceil(d: Duration) -> u64 {
    let part = u64::from(d.subsec_nanos()).div_ceil(TICK_NS);
    d.as_secs()
        .saturating_mul(TICKS_PER_SEC)
        .saturating_add(part)
}

/// `d` in whole ticks, rounded down, saturating.
fn ticks_floor(d: Duration) -> u64 {
    let part = u64::from(d.subsec_nanos()) / TICK_NS;
    d.as_secs()
        .saturating_mul(TICKS_PER_SEC)
        .saturating_add(part)
}
