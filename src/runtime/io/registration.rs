//! What a socket type holds: its mio source, registered with one I/O
//! driver, and the readiness record the driver updates for it.
//!
//! Ground rules:
//! - A registration keeps the `Arc<Driver>` it registered with; the
//!   driver's events may be dispatched on another thread than the one
//!   polling the socket.
//! - Every operation runs as [`Registration::poll_io`] does: wait for
//!   readiness, try the non-blocking call, and on `WouldBlock` clear the
//!   readiness it saw (only if no event arrived meanwhile) and wait again.
//! - Readiness polls of operations take part in the cooperative budget
//!   (`crate::coop`): checked before each poll, spent when an operation
//!   completes. The bare readiness waits (`ready`) and `try_io` do not,
//!   as tokio's do not.
//! - Dropping a registration deregisters the source (an error is ignored:
//!   the descriptor is being closed anyway) and frees its record;
//!   [`Registration::into_inner`] does the same but hands the source back.

use std::io;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use mio::event::Source;
use mio::Interest;

use super::readiness::{Ready, ReadyEvent, ScheduledIo, WaiterKey};
use super::{current, shut_down_error, Direction, Driver};
use crate::coop;

/// A mio source registered with an I/O driver.
pub(crate) struct Registration<S: Source> {
    /// `None` only once [`into_inner`](Self::into_inner) has taken it (the
    /// registration is then being dropped).
    source: Option<S>,
    token: mio::Token,
    io: Arc<ScheduledIo>,
    driver: Arc<Driver>,
}

impl<S: Source> Registration<S> {
    /// Registers `source` for `interest` with the I/O driver entered on
    /// this thread.
    ///
    /// # Errors
    ///
    /// If that driver has shut down, or mio cannot register the source.
    ///
    /// # Panics
    ///
    /// Outside a runtime with I/O enabled (see [`current`]).
    #[track_caller]
    pub(crate) fn new(source: S, interest: Interest) -> io::Result<Registration<S>> {
        Registration::with_driver(current(), source, interest)
    }

    /// Registers `source` for `interest` with `driver`.
    pub(crate) fn with_driver(
        driver: Arc<Driver>,
        mut source: S,
        interest: Interest,
    ) -> io::Result<Registration<S>> {
        let (token, io) = driver.add()?;
        if let Err(err) = driver.registry().register(&mut source, token, interest) {
            driver.remove(token);
            return Err(err);
        }
        Ok(Registration {
            source: Some(source),
            token,
            io,
            driver,
        })
    }

    /// Marks the socket ready in `ready`'s directions before the driver's
    /// first event, as tokio does for a socket whose state is known when it
    /// is made: an accepted connection is writable and usually holds its
    /// peer's first bytes (its first event may queue behind every other
    /// connection's), and a fresh pair is writable. A wrong guess costs one
    /// `WouldBlock`, which clears the readiness again.
    pub(crate) fn assume_ready(&self, ready: Ready) {
        self.io.assume_ready(ready);
    }

    /// The source, for calls that need no readiness (addresses, options).
    pub(crate) fn get_ref(&self) -> &S {
        self.source
            .as_ref()
            .expect("a registration's source is taken only when it is consumed")
    }

    /// Deregisters the source and frees its record, handing the source
    /// back (for `into_std`).
    ///
    /// # Errors
    ///
    /// If mio cannot deregister it (the source is closed then).
    pub(crate) fn into_inner(mut self) -> io::Result<S> {
        let mut source = self
            .source
            .take()
            .expect("a registration's source is taken only when it is consumed");
        let deregistered = self.driver.registry().deregister(&mut source);
        drop(self); // frees the record
        deregistered.map(|()| source)
    }

    /// The driver this source is registered with.
    pub(crate) fn driver(&self) -> &Arc<Driver> {
        &self.driver
    }

    /// Readiness in `direction`, or `Pending` (the task is woken by the
    /// next event for it). Only the last task to poll a direction this way
    /// is woken; `async fn` operations use [`async_io`](Self::async_io).
    ///
    /// An error only if the driver has shut down.
    pub(crate) fn poll_ready(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        self.poll_ready_as(cx, direction, WaiterKey::Poll)
    }

    fn poll_ready_as(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: WaiterKey,
    ) -> Poll<io::Result<ReadyEvent>> {
        ready!(coop::poll_proceed(cx));
        let polled = ready!(self.io.poll_ready(cx, direction, key));
        Poll::Ready(polled.map_err(|_| shut_down_error()))
    }

    /// Forgets the readiness `event` reported, after an operation found
    /// the source not ready after all (`WouldBlock`); kept if an event
    /// arrived since `event` was read.
    pub(crate) fn clear_readiness(&self, event: ReadyEvent) {
        self.io.clear(event);
    }

    /// Runs the non-blocking `op` once the source is ready in `direction`,
    /// waiting again each time it says `WouldBlock`.
    pub(crate) fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        op: impl FnMut(&S) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        self.poll_io_as(cx, direction, WaiterKey::Poll, op)
    }

    fn poll_io_as<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: WaiterKey,
        op: impl FnMut(&S) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        self.poll_io_until_drained(cx, direction, key, op, |_| false)
    }

    /// [`poll_io`](Self::poll_io) for a byte stream's read or write of
    /// `len` bytes. A transfer that moves some bytes but fewer than asked
    /// has drained the receive buffer (a read) or filled the send buffer (a
    /// write), so it clears the readiness it used: the next operation waits
    /// for the edge-triggered event that reports new data or room, instead
    /// of first making a call that can only say `WouldBlock`. (Not for
    /// datagrams: a short datagram says nothing of what is queued behind
    /// it.)
    pub(crate) fn poll_transfer(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        len: usize,
        op: impl FnMut(&S) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        let drained = |&n: &usize| n > 0 && n < len;
        self.poll_io_until_drained(cx, direction, WaiterKey::Poll, op, drained)
    }

    /// The loop behind [`poll_io`](Self::poll_io): after an operation
    /// that succeeds and `drained` says has used up the readiness, only the
    /// readable or writable bit it saw is cleared (a closed half or an
    /// error stays for the next operation to report), and only if no event
    /// arrived meanwhile.
    fn poll_io_until_drained<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        key: WaiterKey,
        mut op: impl FnMut(&S) -> io::Result<R>,
        drained: impl Fn(&R) -> bool,
    ) -> Poll<io::Result<R>> {
        loop {
            let event = ready!(self.poll_ready_as(cx, direction, key))?;
            match op(self.get_ref()) {
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                    self.clear_readiness(event);
                }
                done => {
                    if matches!(&done, Ok(out) if drained(out)) {
                        self.clear_readiness(event.only(Ready::READABLE | Ready::WRITABLE));
                    }
                    coop::made_progress();
                    return Poll::Ready(done);
                }
            }
        }
    }

    /// [`poll_io`](Self::poll_io) for a read into `buf`'s unfilled part
    /// (initialized first, so no `unsafe`): `op` gets the source and that
    /// slice and returns the bytes it read with a result of its own (a
    /// sender's address, say), which is returned once `buf` is advanced.
    /// For the `poll_*` reads that take tokio's `ReadBuf`.
    #[cfg(feature = "tokio-io")]
    pub(crate) fn poll_read_buf<R>(
        &self,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
        mut op: impl FnMut(&S, &mut [u8]) -> io::Result<(usize, R)>,
    ) -> Poll<io::Result<R>> {
        let (n, result) = ready!(self.poll_io(cx, Direction::Read, |source| {
            op(source, buf.initialize_unfilled())
        }))?;
        buf.advance(n);
        Poll::Ready(Ok(result))
    }

    /// A stream socket's read into `buf`, as tokio's `AsyncRead` asks for
    /// it, through [`poll_transfer`](Self::poll_transfer): into `buf`'s
    /// uninitialized part as it is (see `uninit.rs`) where the platform
    /// has `recv(2)` through rustix, else zeroed first.
    #[cfg(feature = "tokio-io")]
    pub(crate) fn poll_read_stream(
        &self,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>>
    where
        for<'a> &'a S: io::Read,
        S: std::os::fd::AsFd,
    {
        let len = buf.remaining();
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let read = self.poll_transfer(cx, Direction::Read, len, |source| {
            super::uninit::recv_into(source, buf)
        });
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let read = self.poll_transfer(cx, Direction::Read, len, |mut source| {
            let n = io::Read::read(&mut source, buf.initialize_unfilled())?;
            buf.advance(n);
            Ok(n)
        });
        ready!(read)?;
        Poll::Ready(Ok(()))
    }

    /// Runs the non-blocking `op` once if the source is ready in
    /// `direction` now, without waiting (a `WouldBlock` error if it is
    /// not); on `WouldBlock` from `op`, clears the readiness it saw, as
    /// [`poll_io`](Self::poll_io) does. For the `try_*` operations; never
    /// a shutdown error, and outside the budget, as tokio's `try_io`.
    pub(crate) fn try_io<R>(
        &self,
        direction: Direction,
        op: impl FnOnce(&S) -> io::Result<R>,
    ) -> io::Result<R> {
        // As tokio's: the readiness bits decide, also once the driver has
        // shut down (a socket with readiness left still gives its queued
        // bytes; one without says `WouldBlock`, while `poll_*` and `async
        // fn` operations report the shutdown).
        let Some(event) = self.io.ready_now(direction) else {
            return Err(io::ErrorKind::WouldBlock.into());
        };
        match op(self.get_ref()) {
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                self.clear_readiness(event);
                Err(err)
            }
            done => done,
        }
    }

    /// Waits until the source is ready in `direction`, as an `async fn`
    /// waiter (any number may wait at once; each is woken): the readiness
    /// seen, for the caller to clear if its operation finds it stale.
    ///
    /// Outside the cooperative budget, as tokio's `readable()`,
    /// `writable()` and `ready()` are: a loop of `writable().await` and
    /// `try_write` never goes `Pending` while the socket is ready (the
    /// operations that move data count: `poll_*`, `async_io`).
    pub(crate) async fn ready(&self, direction: Direction) -> io::Result<ReadyEvent> {
        let mut waiter = Queued {
            io: &self.io,
            key: self.io.queued_key(),
            stored: false,
        };
        std::future::poll_fn(|cx| {
            let polled = self.io.poll_ready(cx, direction, waiter.key);
            waiter.stored |= polled.is_pending();
            polled.map(|ready| ready.map_err(|_| shut_down_error()))
        })
        .await
    }

    /// [`poll_io`](Self::poll_io) as a future, for `&self` operations that
    /// several tasks may await at once on one socket: each is woken (none
    /// replaces another's waker).
    pub(crate) async fn async_io<R>(
        &self,
        direction: Direction,
        mut op: impl FnMut(&S) -> io::Result<R>,
    ) -> io::Result<R> {
        let mut waiter = Queued {
            io: &self.io,
            key: self.io.queued_key(),
            stored: false,
        };
        std::future::poll_fn(|cx| {
            let polled = self.poll_io_as(cx, direction, waiter.key, &mut op);
            waiter.stored |= polled.is_pending();
            polled
        })
        .await
    }
}

/// An `async fn` waiter: removes its waker when done or dropped.
struct Queued<'a> {
    io: &'a ScheduledIo,
    key: WaiterKey,
    /// Whether a waker may be stored under `key`.
    stored: bool,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        if self.stored {
            self.io.forget(self.key);
        }
    }
}

impl<S: Source> Drop for Registration<S> {
    fn drop(&mut self) {
        // Fails only if the descriptor is already unusable; it is being
        // closed either way. (No source: `into_inner` deregistered it.)
        if let Some(source) = &mut self.source {
            let _ = self.driver.registry().deregister(source);
        }
        self.driver.remove(self.token);
    }
}

impl<S: Source + std::fmt::Debug> std::fmt::Debug for Registration<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("source", &self.source)
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}
