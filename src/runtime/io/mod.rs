//! The I/O driver: readiness for `lawn_rt::net`'s sockets, from the same
//! `mio::Poll` the park loop blocks in (docs/guide.md, "The runtime" and
//! "Networking").
//!
//! Each park loop (the current-thread runtime's one, or one per worker of
//! a multi-thread runtime) owns a `Poll`; its [`Driver`] holds a clone of
//! that poll's `Registry`, so a socket registers from any thread, and the
//! park loop hands every event whose token is not its own (tokens 0 and 1
//! are its waker and timerfd) to [`Driver::dispatch`].
//!
//! The pieces: `slots.rs` (the table of registered sockets, and their
//! tokens: slot index plus generation), `readiness.rs` (one socket's
//! readiness word and waiters, and the protocol that loses no event),
//! `registration.rs` (what a socket type holds: its mio source, its record,
//! the driver it registered with).
//!
//! Ground rules:
//! - The socket table is behind the driver's one mutex, held only to file,
//!   look up or free a record; a record is an `Arc`, so `dispatch` clones
//!   it out and updates it after releasing the table.
//! - `dispatch` runs on the park loop's thread, which need not be the
//!   thread of the task that uses the socket; no waker is called under a
//!   lock. A socket keeps the `Arc<Driver>` it registered with, so nothing
//!   here assumes one driver per process or per thread.
//! - Once [`Driver::shutdown`] has run (flag set under the table's mutex),
//!   no socket registers, and every readiness poll of a registered one
//!   fails with [`shut_down_error`].

#[cfg(loom)]
#[doc(hidden)]
pub mod model;
#[cfg(any(target_os = "linux", target_os = "android"))]
mod pipe;
mod readiness;
mod registration;
mod slots;
#[cfg(all(feature = "tokio-io", any(target_os = "linux", target_os = "android")))]
mod uninit;

use std::io;
use std::sync::Arc;

use super::context;
use crate::loom::{lock, Mutex};
use readiness::{ScheduledIo, WakeList};
use slots::Slots;

#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) use pipe::{pipe_async_read, pipe_async_write, pipe_fd_traits, PipeReader, PipeWriter};
pub(crate) use readiness::{Direction, Ready, ReadyEvent};
pub(crate) use registration::Registration;
#[allow(unused_imports)] // part of the seam the park loop is written against
pub(crate) use slots::FIRST_TOKEN;

/// What a readiness poll returns once the runtime has shut down.
const SHUT_DOWN: &str = "lawn_rt: the runtime this socket was registered with has shut down; a \
    socket cannot be used after its runtime is dropped";

/// The error of every socket operation after its runtime shut down (kind
/// `Other`, as tokio's), recognised by [`is_shut_down_error`].
pub(crate) fn shut_down_error() -> io::Error {
    io::Error::other(ShutDown(SHUT_DOWN))
}

/// An error saying `message` that [`is_shut_down_error`] (and so
/// `runtime::is_rt_shutdown_err`) recognises: for operations other than a
/// socket's refused by a runtime that has shut down (`io::stdout()`'s).
#[cfg_attr(not(feature = "tokio-io"), allow(dead_code))]
pub(crate) fn shut_down_error_saying(message: &'static str) -> io::Error {
    io::Error::other(ShutDown(message))
}

/// The most one `BufMut` read moves ([`read_into_buf_mut`]).
#[cfg(feature = "tokio-io")]
const BUF_MUT_READ: usize = 64 * 1024;

/// Runs `op`, a read of the caller's, into `buf`'s spare capacity (at most
/// [`BUF_MUT_READ`] bytes, and at most what one `chunk_mut` offers), and
/// appends the `n` bytes it reports; gives back the rest of its result.
/// The read lands in a per-thread scratch buffer first: a `BufMut`'s spare
/// capacity is uninitialised, and lending it out as `&mut [u8]` would take
/// `unsafe`; the copy costs a fraction of the system call.
#[cfg(feature = "tokio-io")]
pub(crate) fn read_into_buf_mut<B: bytes::BufMut + ?Sized, R>(
    buf: &mut B,
    op: impl FnOnce(&mut [u8]) -> io::Result<(usize, R)>,
) -> io::Result<R> {
    std::thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let len = if buf.has_remaining_mut() {
        buf.chunk_mut().len().min(BUF_MUT_READ)
    } else {
        0
    };
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        if scratch.len() < len {
            scratch.resize(len, 0);
        }
        let (n, result) = op(&mut scratch[..len])?;
        buf.put_slice(&scratch[..n.min(len)]);
        Ok(result)
    })
}

/// Whether `err` is [`shut_down_error`]'s.
pub(crate) fn is_shut_down_error(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::Other && err.get_ref().is_some_and(|inner| inner.is::<ShutDown>())
}

/// The inner error of [`shut_down_error`]: [`SHUT_DOWN`] (or another
/// message), as a type of its own so that it can be told from other
/// errors.
#[derive(Debug)]
struct ShutDown(&'static str);

impl std::fmt::Display for ShutDown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for ShutDown {}

/// The I/O side of one park loop.
pub(crate) struct Driver {
    registry: mio::Registry,
    state: Mutex<State>,
}

struct State {
    slots: Slots,
    shut_down: bool,
}

impl Driver {
    pub(crate) fn new(registry: mio::Registry) -> Driver {
        Driver {
            registry,
            state: Mutex::new(State {
                slots: Slots::default(),
                shut_down: false,
            }),
        }
    }

    /// Where sockets register (any thread may use it).
    pub(crate) fn registry(&self) -> &mio::Registry {
        &self.registry
    }

    /// Files a readiness record for a new socket and gives its token.
    fn add(&self) -> io::Result<(mio::Token, Arc<ScheduledIo>)> {
        let mut state = lock(&self.state);
        if state.shut_down {
            return Err(shut_down_error());
        }
        state.slots.insert().ok_or_else(|| {
            io::Error::other(format!(
                "lawn_rt: cannot register another socket: this runtime's I/O driver already \
                 holds {} (its limit)",
                slots::MAX_SOCKETS
            ))
        })
    }

    /// Frees the record of `token` (a socket deregistered); a later event
    /// carrying that token is ignored.
    fn remove(&self, token: mio::Token) {
        lock(&self.state).slots.remove(token);
    }

    /// How many sockets are registered.
    #[cfg(test)]
    fn registered(&self) -> usize {
        lock(&self.state).slots.len()
    }

    /// Hands one readiness event (a token at or above [`FIRST_TOKEN`]) to
    /// the socket it belongs to, waking the tasks it concerns. An event for
    /// a socket that is gone is ignored. Called by the park loop after each
    /// poll.
    pub(crate) fn dispatch(&self, event: &mio::event::Event) {
        let io = lock(&self.state).slots.get(event.token()).cloned();
        if let Some(io) = io {
            io.set(Ready::from_event(event));
        }
    }

    /// The runtime is shutting down: every socket's pending and later
    /// readiness polls fail (with [`shut_down_error`], not a hang), every
    /// stored waker is woken, and no new socket registers.
    pub(crate) fn shutdown(&self) {
        let records: Vec<Arc<ScheduledIo>> = {
            let mut state = lock(&self.state);
            state.shut_down = true;
            state.slots.iter().cloned().collect()
        };
        let mut woken = WakeList::default();
        for io in &records {
            io.shut_down(&mut woken);
        }
        woken.wake_all();
    }
}

/// The I/O driver entered on this thread.
///
/// # Panics
///
/// Outside a `lawn_rt` runtime, or inside one built without I/O, with a
/// message saying so (at the caller's line).
#[track_caller]
pub(crate) fn current() -> Arc<Driver> {
    match context::io() {
        Some(context::Io::Driver(driver)) => driver,
        Some(context::Io::Disabled) => panic!(
            "A Tokio 1.x context was found, but IO is disabled. Call `enable_io` on the runtime \
             builder to enable IO. (lawn_rt: sockets need the I/O driver, and this runtime was \
             built without it; call `enable_io()` or `enable_all()` on its `Builder`.)"
        ),
        None => panic!(
            "there is no reactor running, must be called from the context of a Tokio 1.x \
             runtime (lawn_rt: sockets need a lawn_rt runtime with I/O enabled: use them \
             inside `Runtime::block_on`, a spawned task, or after `Runtime::enter`)"
        ),
    }
}

/// The I/O driver entered on this thread, if there is one.
pub(crate) fn try_current() -> Option<Arc<Driver>> {
    match context::io() {
        Some(context::Io::Driver(driver)) => Some(driver),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
