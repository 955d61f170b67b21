//! Timers with the names, signatures and behaviour of `tokio::time`:
//! [`sleep`], [`sleep_until`], [`timeout`], [`timeout_at`], [`interval`],
//! [`interval_at`] and [`Instant`].
//!
//! Moving from tokio is a change of path. The differences are underneath:
//! timers live in a [`Lawn`](crate::lawn::Lawn), and they work in any
//! executor: where no `lawn_rt` driver is entered, a timer files in the
//! polling thread's own *foreign shard*, and one thread (`lawn-rt-timer`,
//! started by the first timer that registers) fires every thread's shard.
//!
//! ```
//! use lawn_rt::time::{interval, sleep, timeout, Duration};
//!
//! futures::executor::block_on(async {
//!     sleep(Duration::from_millis(5)).await;
//!
//!     let reply = timeout(Duration::from_secs(2), async { "pong" }).await;
//!     assert_eq!(reply, Ok("pong"));
//!
//!     let mut every = interval(Duration::from_millis(5));
//!     for _ in 0..3 {
//!         every.tick().await;
//!     }
//! });
//! ```
//!
//! # The timer contract
//!
//! - A timer never completes early: only once [`Instant::now`] has reached
//!   its deadline. Deadlines are rounded up to the driver's tick (1 µs in
//!   a runtime and a foreign shard by default; 1 ms for a bare `Driver`).
//! - A timer is late by at most its *slack* (plus the OS's wake-up
//!   latency) when the runtime is otherwise idle: in a runtime and a
//!   foreign shard, `slack(ttl)` is the largest of 0, 16, 32, 64, 128, 256, 512 µs and
//!   1 ms not above `min(ttl / 4, 1 ms)` by default, so a `sleep(1 ms)`
//!   wakes within 128 µs and nothing is later than tokio's 1 ms tick.
//!   Timers whose windows overlap share one wake-up; a lone timer is
//!   woken for at its deadline. [`Builder::timer_slack`](crate::runtime::Builder::timer_slack)
//!   sets the rule.
//! - Timers register on their first poll, not on creation, and cancel in
//!   O(1) when dropped, from any thread; a dropped timer's waker is not
//!   called after the drop returns.
//! - `reset` re-files in O(1); polling with another waker replaces the
//!   stored one.
//! - `sleep` caps its duration at 30 years, as tokio's does; other
//!   durations too long for the clock (`timeout(Duration::MAX, ..)`) are
//!   clamped to about 30 years; nothing overflows.
//! - Using a timer whose driver shut down panics with a message saying so.

pub mod delay_queue;
pub mod error;
#[cfg(feature = "hyper")]
mod hyper_timer;
mod instant;
mod interval;
#[cfg(all(feature = "test-util", not(loom)))]
mod pause;
mod sleep;
mod timeout;

#[cfg(not(loom))]
pub use crate::driver::set_foreign_timer_slack;
#[cfg(not(loom))]
pub use crate::driver::{foreign_timer_metrics, thread_timer_metrics};
pub use crate::driver::{Lateness, TimerMetrics, WakeUps};
pub use delay_queue::DelayQueue;
#[cfg(feature = "hyper")]
pub use hyper_timer::{HyperSleep, HyperTimer};
pub use instant::Instant;
pub use interval::{interval, interval_at, Interval, MissedTickBehavior};
#[cfg(all(feature = "test-util", not(loom)))]
pub use pause::{advance, pause, resume, Advance};
pub use sleep::{sleep, sleep_until, Sleep};
pub use std::time::Duration;
pub use timeout::{timeout, timeout_at, Timeout};
