//! `lawn_rt`: an async timer driver built on a **Timer Lawn**.
//!
//! Timers live in FIFO buckets keyed by their duration (TTL), so starting and
//! cancelling a timer are O(1) and there is no timing wheel to overflow,
//! cascade or walk tick by tick. The goal of the crate is a drop-in for
//! `tokio::time` (`sleep`, `timeout`, `interval`, ...) on top of that data
//! structure, driven by a mio park loop.
//!
//! # Layers
//!
//! | module | what | status |
//! |---|---|---|
//! | [`lawn`] | the data structure: [`Lawn<T>`](lawn::Lawn), no clock, no threads, no `unsafe` | done |
//! | `driver`, `time` | the timer driver and the tokio-compatible futures | planned |
//! | `runtime`, `net` | the scheduler and its mio park loop, TCP/UDP | planned |
//!
//! A lower layer never uses a higher one: the Lawn knows nothing of wakers,
//! the driver nothing of mio.
//!
//! # Example
//!
//! ```
//! use lawn_rt::lawn::Lawn;
//!
//! // Ticks are whatever the caller counts; here, milliseconds.
//! let mut timers = Lawn::new();
//! let request = timers.insert(0, 2_000, "request 1 timed out");
//! timers.insert(0, 60_000, "connection idle");
//!
//! timers.remove(request); // the reply came in time
//! assert_eq!(timers.pop_expired(59_999), None);
//! assert_eq!(timers.pop_expired(60_000).map(|(_, what)| what), Some("connection idle"));
//! ```
//!
//! # Implementation
//!
//! Today the crate is the [`lawn`] layer: the caller owns the clock and calls
//! [`pop_expired`](lawn::Lawn::pop_expired) when it likes, parking until
//! [`next_deadline`](lawn::Lawn::next_deadline) in between. The driver that
//! comes next does exactly that in a mio/epoll park loop, at a configurable
//! tick resolution (1 ms by default).
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod driver;
pub mod lawn;
mod loom;
pub mod time;
