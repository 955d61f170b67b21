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
//! With its own runtime, a whole program (and its tests) needs nothing else:
//!
//! ```
//! use lawn_rt::time::{sleep, timeout, Duration};
//!
//! #[lawn_rt::main]
//! async fn main() {
//!     let worker = lawn_rt::spawn(async {
//!         sleep(Duration::from_millis(2)).await;
//!         "done"
//!     });
//!     let result = timeout(Duration::from_secs(1), worker).await;
//!     assert_eq!(result.unwrap().unwrap(), "done");
//! }
//! ```
//!
//! # Layers
//!
//! | module | what |
//! |---|---|
//! | [`lawn`] | the data structure: [`Lawn<T>`](lawn::Lawn), no clock, no threads, no `unsafe` |
//! | [`driver`] | the timer driver: a Lawn of wakers per slack level behind one lock, the clock (real or paused), [`Handle`](driver::Handle); the foreign shards (a driver per thread that runs no lawn_rt runtime) and their one timer thread |
//! | [`time`] | the tokio-compatible futures: [`Sleep`](time::Sleep), [`Timeout`](time::Timeout), [`Interval`](time::Interval), [`Instant`](time::Instant), [`DelayQueue`](time::DelayQueue); the paused clock (`time::pause`, feature `test-util`); hyper's timer (`time::HyperTimer`, feature `hyper`) |
//! | [`runtime`], [`task`] | the current-thread and multi-thread schedulers (a timer shard and a mio park loop per worker), `LocalRuntime` for `!Send` tasks, the blocking pool, [`spawn`], [`JoinHandle`](task::JoinHandle), `spawn_blocking`, [`main`] and [`test`] |
//! | [`net`] | [`TcpListener`](net::TcpListener), [`TcpStream`](net::TcpStream) (futures-io and, with `tokio-io`, tokio-io `AsyncRead`/`AsyncWrite`), [`UdpSocket`](net::UdpSocket), `TcpSocket`, Unix sockets (and `UnixSocket`), pipes and FIFOs (`net::unix::pipe`), [`lookup_host`](net::lookup_host); readiness from the runtime's own mio poll |
//! | `process` | [`net`]'s twin for child processes (Linux, Android): `Command`, `Child` with async `wait`/`kill`/`output`, pipes and the exit (a pidfd) on the runtime's own mio poll |
//! | [`signal`] | [`ctrl_c`](signal::ctrl_c) and Unix signals: process-wide handlers, delivered through each runtime's park loop |
//! | `sync` | tokio's `sync` module (channels, locks, `Notify`), re-exported: runtime-free (feature `sync`, default) |
//! | [`fs`] | `std::fs` calls run on the blocking pool, and an async [`File`](fs::File) |
//! | [`io`] | readiness of any descriptor ([`AsyncFd`](io::unix::AsyncFd), [`Interest`](io::Interest), [`Ready`](io::Ready)) on the runtime's own mio poll; with `tokio-io`, tokio's io traits and adapters, re-exported, and `stdin`/`stdout`/`stderr` on the blocking pool |
//!
//! A lower layer never uses a higher one: the Lawn knows nothing of wakers,
//! the driver nothing of mio, `time` only the driver handle it finds.
//!
//! # Features
//!
//! - `macros` (default): `#[lawn_rt::main]` and `#[lawn_rt::test]`; tokio's
//!   `select!`, `join!`, `try_join!` and `pin!`, re-exported (they need no
//!   runtime), so `lawn_rt::select!` is `tokio::select!`.
//! - `test-util`: `time::pause`, `time::resume`, `time::advance` and
//!   `runtime::Builder::start_paused` (unlinked here: they exist only
//!   with the feature).
//! - `sync` (default): `sync`, tokio's `sync` module re-exported.
//! - `tokio-io`: `tokio::io::AsyncRead` and `AsyncWrite` for
//!   [`net::TcpStream`] and its halves (so tokio-util codecs work over
//!   them); pulls in tokio with no features, for its traits only.
//! - `hyper`: `time::HyperTimer`, hyper 1.x's `rt::Timer` on `lawn_rt`'s
//!   timers (header-read timeouts, keep-alive, HTTP/2 pings); pulls in
//!   hyper with no features, for its trait only.
//!
//! # Implementation
//!
//! A timer registers on its first poll: under the driver's one lock, its
//! waker is appended to the Lawn bucket of its TTL, counted in ticks
//! (1 µs by default, 1 ms for a bare [`Driver`](driver::Driver); rounded up so nothing
//! fires early), in the Lawn of its *slack level*: how late it may fire
//! to share a wake-up, a fraction of its TTL (see
//! [`TimerSlack`](runtime::TimerSlack)). Dropping it unlinks it in O(1). A
//! runtime's park loop asks the driver when to wake (as late as every
//! pending timer's slack allows, at a deadline), arms a timerfd for it and
//! blocks in epoll; when it wakes it takes the due wakers out under the
//! lock and wakes them after releasing it. Where no driver is entered on
//! the thread that first polls a timer (a tokio worker, `block_on`, a plain
//! thread), it files in that thread's own *foreign shard*; one thread,
//! `lawn-rt-timer`, started by the first registration, plans every shard
//! with the same slack rule, sleeps until the earliest wake-up, and is
//! woken early only by a registration its plan would serve too late.
//!
//! Sockets ([`net`]) register, edge-triggered, with the same mio poll the
//! park loop blocks in; the loop hands their events to the runtime's I/O
//! driver, which records the readiness in each socket's atomic word and
//! wakes the waiting tasks after releasing its locks.
#![deny(missing_docs)]
// No `unsafe` code but where a module allows it and names, in its docs, the
// benchmark that justified it, or the call no safe API makes. Two modules
// do, and one trait impl: `runtime/io/uninit.rs`, reads into a tokio `ReadBuf`'s uninitialized
// part (see docs/decisions/io-path-under-real-clients.md), and
// `sys/fork.rs`, one `pthread_atfork` call (for `driver/foreign/mod.rs`), so
// that a fork's child starts its own timer thread (see
// docs/reliability.md). `fs::File`'s `FromRawFd` passes its caller's
// contract on to std's, as tokio's does.
// The other allowance is not code (SAFETY: nothing relies on it):
// `io::unix::AsyncFd::register` and `register_with_interest` are declared
// unsafe only because tokio 1.54's are, and their bodies are safe calls.
#![deny(unsafe_code)]
#![deny(missing_debug_implementations, unreachable_pub)]
#![deny(rustdoc::broken_intra_doc_links)]
// Under loom the runtime's mio park (`runtime/park.rs`) is replaced, which
// leaves parts of the driver and of I/O unused.
#![cfg_attr(loom, allow(dead_code, unused_imports))]
#![warn(clippy::undocumented_unsafe_blocks)]

// Lets `::lawn_rt::…` paths (the macros' expansions) resolve inside the
// crate's own tests too.
extern crate self as lawn_rt;

mod coop;
pub mod driver;
#[cfg(not(loom))]
pub mod fs;
pub mod io;
pub mod lawn;
mod loom;
pub mod net;
#[cfg(all(any(target_os = "linux", target_os = "android"), not(loom)))]
pub mod process;
pub mod runtime;
#[cfg(unix)]
pub mod signal;
#[cfg(feature = "sync")]
pub mod sync;
mod sys;
pub mod task;
pub mod time;

pub use task::spawn;

#[cfg(all(feature = "macros", not(loom)))]
pub use lawn_rt_macros::{main, test};

// tokio's own macros, runtime-free: `select!` and `join!` poll futures of
// any kind (ours included) in the task that awaits them. See the guide,
// "Tasks, signals, files, processes".
#[cfg(all(feature = "macros", not(loom)))]
#[doc(no_inline)]
pub use tokio::{join, pin, select, try_join};

/// Misuse of the macros is a compile error that says what is wrong (these
/// run as `compile_fail` doc tests).
///
/// ```compile_fail
/// #[lawn_rt::main]
/// fn main() {} // the `async` keyword is missing
/// ```
///
/// ```compile_fail
/// #[lawn_rt::test(start_paused = "yes")] // takes `true` or `false`
/// async fn t() {}
/// ```
///
/// ```compile_fail
/// #[lawn_rt::test(flavor = "threaded")] // unknown flavor
/// async fn t() {}
/// ```
///
/// ```compile_fail
/// #[lawn_rt::main]
/// async fn main(args: Vec<String>) {} // main takes no arguments
/// ```
///
/// ```compile_fail
/// #[lawn_rt::test(worker_threads = 2)] // needs the multi_thread flavor
/// async fn t() {}
/// ```
///
/// ```compile_fail
/// #[lawn_rt::main(start_paused = true)] // main is multi_thread by default
/// async fn main() {}
/// ```
///
/// And correct use compiles and runs:
///
/// ```
/// #[lawn_rt::main(flavor = "current_thread", start_paused = true)]
/// async fn main() -> Result<(), std::io::Error> {
///     // An hour of paused time: no real wait.
///     lawn_rt::time::sleep(lawn_rt::time::Duration::from_secs(3600)).await;
///     Ok(())
/// }
/// ```
#[cfg(all(doctest, feature = "macros"))]
struct MacroMisuse;

/// The README's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The guide's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide.md")]
struct GuideDoctests;
