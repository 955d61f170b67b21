//! `lawn_rt`: an async timer driver built on a **Timer Lawn**, with the API
//! of `tokio::time`.
//!
//! Timers live in FIFO buckets keyed by their duration (TTL), so starting and
//! cancelling a timer are O(1) and there is no timing wheel to overflow,
//! cascade or walk tick by tick. [`time`] has the names, signatures and
//! behaviour of `tokio::time` (`sleep`, `timeout`, `interval`, `Instant`),
//! and works under any executor.
//!
//! ```
//! use lawn_rt::time::{sleep, timeout, Duration, Instant};
//!
//! // No lawn_rt runtime needed: any executor will do.
//! futures::executor::block_on(async {
//!     let start = Instant::now();
//!     sleep(Duration::from_millis(10)).await;
//!     assert!(start.elapsed() >= Duration::from_millis(10));
//!
//!     let slow = std::future::pending::<()>();
//!     assert!(timeout(Duration::from_millis(5), slow).await.is_err());
//! });
//! ```
//!
//! # Layers
//!
//! | module | what | status |
//! |---|---|---|
//! | [`lawn`] | the data structure: [`Lawn<T>`](lawn::Lawn), no clock, no threads, no `unsafe` | done |
//! | [`driver`] | the timer driver: a Lawn of wakers behind one lock, the clock (real or paused), [`Handle`](driver::Handle), the fallback driver thread | done |
//! | [`time`] | the tokio-compatible futures: [`Sleep`](time::Sleep), [`Timeout`](time::Timeout), [`Interval`](time::Interval), [`Instant`](time::Instant) | done |
//! | `runtime`, `net` | the scheduler and its mio park loop, TCP/UDP | planned |
//!
//! A lower layer never uses a higher one: the Lawn knows nothing of wakers,
//! the driver nothing of mio.
//!
//! # Implementation
//!
//! A timer registers on its first poll: under the driver's one lock, its
//! waker is appended to the Lawn bucket of its TTL, counted in ticks
//! (1 ms by default, rounded up so nothing fires early). Dropping it unlinks
//! it in O(1). Whoever drives the driver calls
//! [`Driver::process`](driver::Driver::process) when the earliest deadline
//! comes: it takes the due wakers out under the lock and wakes them after
//! releasing it. Where no driver is entered on the thread that creates a
//! timer, a fallback driver serves it: a thread named `lawn-rt-timer`,
//! started by the first registration, that parks on a condition variable
//! until the next deadline and is woken early only by a registration due
//! before it. The runtime of a later issue will park in mio instead.
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

// Lets `::lawn_rt::…` paths (the macros' expansions) resolve inside the
// crate's own tests too.
extern crate self as lawn_rt;

mod coop;
pub mod driver;
pub mod lawn;
mod loom;
#[cfg(not(loom))]
pub mod runtime;
#[cfg(not(loom))]
pub mod task;
pub mod time;

#[cfg(not(loom))]
pub use task::spawn;

#[cfg(all(feature = "macros", not(loom)))]
pub use lawn_rt_macros::{main, test};

/// The README's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
