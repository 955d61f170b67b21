//! [`AsyncFd`]: readiness of any Unix file descriptor on the runtime's
//! own mio poll; like `tokio::io::unix`.
//!
//! Ground rules: an `AsyncFd` is one `Registration` (`runtime::io`) of the descriptor
//! its value owns, by the rules of `runtime::io` (readiness is cleared
//! only by the caller, on `WouldBlock`; an event that arrived since the
//! caller looked is kept). The registration is dropped before the value,
//! so the descriptor leaves the poll before it is closed.

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::task::{ready, Context, Poll};

use mio::event::Source;
use mio::unix::SourceFd;

use super::{Interest, Ready};
use crate::runtime::io::{Direction, ReadyEvent, Registration};

/// The raw descriptor as a mio source (mio's `SourceFd` borrows it).
struct Fd(RawFd);

impl Source for Fd {
    fn register(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interest: mio::Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0).register(registry, token, interest)
    }

    fn reregister(
        &mut self,
        registry: &mio::Registry,
        token: mio::Token,
        interest: mio::Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0).reregister(registry, token, interest)
    }

    fn deregister(&mut self, registry: &mio::Registry) -> io::Result<()> {
        SourceFd(&self.0).deregister(registry)
    }
}

/// A value owning a file descriptor (`T: AsRawFd`), registered with the
/// I/O driver of the runtime it was made in, so that tasks can wait for
/// the descriptor to be readable or writable; like
/// `tokio::io::unix::AsyncFd`.
///
/// It does no I/O itself. A task waits for readiness
/// ([`readable`](AsyncFd::readable), [`writable`](AsyncFd::writable),
/// [`ready`](AsyncFd::ready)), gets a guard, and does its non-blocking
/// call through [`AsyncFdReadyGuard::try_io`], which clears the readiness
/// when the call says `WouldBlock`, so the next wait waits for the next
/// event. The descriptor must be in non-blocking mode, and must stay open
/// while the `AsyncFd` exists (the registration is removed on drop, before
/// the value is dropped).
///
/// # Examples
///
/// One end of a socket pair, read as data arrives:
///
/// ```
/// use std::io::{Read, Write};
/// use std::os::unix::net::UnixStream;
/// use lawn_rt::io::unix::AsyncFd;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let (ours, mut theirs) = UnixStream::pair()?;
///     ours.set_nonblocking(true)?;
///     let fd = AsyncFd::new(ours)?;
///     theirs.write_all(b"ping")?;
///     let mut buf = [0; 16];
///     let n = loop {
///         let mut guard = fd.readable().await?;
///         match guard.try_io(|fd| fd.get_ref().read(&mut buf)) {
///             Ok(result) => break result?,
///             Err(_would_block) => continue, // readiness cleared: wait again
///         }
///     };
///     assert_eq!(&buf[..n], b"ping");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct AsyncFd<T: AsRawFd> {
    // Dropped first: deregistered before `inner` may close the descriptor.
    io: Registration<Fd>,
    inner: T,
}

impl<T: AsRawFd> AsyncFd<T> {
    /// Registers `inner`'s descriptor for reading and writing with the
    /// I/O driver of the runtime entered here.
    ///
    /// # Errors
    ///
    /// If the driver has shut down, or the kernel refuses the descriptor
    /// (`EPERM` for a regular file, which `epoll` does not take; `EEXIST`
    /// if it is registered already). `inner` is dropped then; see
    /// [`try_new`](AsyncFd::try_new) to keep it.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled (the message names the
    /// caller's line).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// a.set_nonblocking(true)?;
    /// let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    /// # drop(fd);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn new(inner: T) -> io::Result<AsyncFd<T>> {
        AsyncFd::with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// [`new`](AsyncFd::new), registered only for `interest`.
    ///
    /// # Errors
    ///
    /// As [`new`](AsyncFd::new).
    ///
    /// # Panics
    ///
    /// As [`new`](AsyncFd::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// a.set_nonblocking(true)?;
    /// let fd = AsyncFd::with_interest(a, Interest::READABLE)?;
    /// # drop(fd);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn with_interest(inner: T, interest: Interest) -> io::Result<AsyncFd<T>> {
        AsyncFd::try_with_interest(inner, interest).map_err(AsyncFdRegisterError::into_cause)
    }

    /// [`new`](AsyncFd::new), giving `inner` back with the error.
    ///
    /// # Errors
    ///
    /// As [`new`](AsyncFd::new), with `inner`.
    ///
    /// # Panics
    ///
    /// As [`new`](AsyncFd::new).
    ///
    /// # Examples
    ///
    /// A regular file cannot be polled; the file comes back:
    ///
    /// ```
    /// use lawn_rt::io::unix::AsyncFd;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// let file = std::fs::File::open("Cargo.toml")?;
    /// let (file, err) = AsyncFd::try_new(file).unwrap_err().into_parts();
    /// assert_eq!(err.raw_os_error(), Some(1)); // EPERM
    /// # drop(file);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn try_new(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::try_with_interest(inner, Interest::READABLE | Interest::WRITABLE)
    }

    /// [`with_interest`](AsyncFd::with_interest), giving `inner` back with
    /// the error.
    ///
    /// # Errors
    ///
    /// As [`new`](AsyncFd::new), with `inner`.
    ///
    /// # Panics
    ///
    /// As [`new`](AsyncFd::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// a.set_nonblocking(true)?;
    /// let fd = AsyncFd::try_with_interest(a, Interest::WRITABLE).map_err(|e| e.into_parts().1)?;
    /// # drop(fd);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn try_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        let driver = crate::runtime::io::current();
        match Registration::with_driver(driver, Fd(inner.as_raw_fd()), interest.to_mio()) {
            Ok(io) => Ok(AsyncFd { io, inner }),
            Err(cause) => Err(AsyncFdRegisterError { inner, cause }),
        }
    }

    /// [`try_new`](AsyncFd::try_new) under tokio 1.54's name for it.
    ///
    /// tokio 1.54 deprecated its safe constructors for this `unsafe` one,
    /// because its `AsyncFd` lends out the descriptor as a `BorrowedFd`
    /// (`AsFd`), which needs the descriptor to stay open. lawn_rt's
    /// `AsyncFd` lends out only the value, so its safe constructors stay
    /// sound and are not deprecated; this one exists so that code written
    /// for tokio 1.54 compiles unchanged.
    ///
    /// # Safety
    ///
    /// tokio's contract, which lawn_rt itself does not rely on: while
    /// `inner` is in the `AsyncFd`, `inner.as_raw_fd()` returns one open
    /// descriptor that stays open.
    ///
    /// # Errors
    ///
    /// As [`try_new`](AsyncFd::try_new).
    ///
    /// # Panics
    ///
    /// As [`new`](AsyncFd::new).
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = lawn_rt::runtime::Runtime::new()?;
    /// # let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// a.set_nonblocking(true)?;
    /// // SAFETY: `a` owns its descriptor for as long as the AsyncFd holds it.
    /// let fd = unsafe { lawn_rt::io::unix::AsyncFd::register(a) }?;
    /// # drop(fd);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    // SAFETY: `unsafe` here only for tokio's signature: the body is safe
    // code and relies on none of the caller's promises.
    #[allow(unsafe_code)]
    #[track_caller]
    pub unsafe fn register(inner: T) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::try_new(inner)
    }

    /// [`try_with_interest`](AsyncFd::try_with_interest) under tokio
    /// 1.54's name for it; see [`register`](AsyncFd::register).
    ///
    /// # Safety
    ///
    /// As [`register`](AsyncFd::register).
    ///
    /// # Errors
    ///
    /// As [`try_new`](AsyncFd::try_new).
    ///
    /// # Panics
    ///
    /// As [`new`](AsyncFd::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// # let rt = lawn_rt::runtime::Runtime::new()?;
    /// # let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// a.set_nonblocking(true)?;
    /// // SAFETY: `a` owns its descriptor for as long as the AsyncFd holds it.
    /// let fd = unsafe { AsyncFd::register_with_interest(a, Interest::READABLE) }?;
    /// # drop(fd);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    // SAFETY: as `register`'s: a safe body under tokio's signature.
    #[allow(unsafe_code)]
    #[track_caller]
    pub unsafe fn register_with_interest(
        inner: T,
        interest: Interest,
    ) -> Result<AsyncFd<T>, AsyncFdRegisterError<T>> {
        AsyncFd::try_with_interest(inner, interest)
    }

    /// The value.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = lawn_rt::runtime::Runtime::new()?;
    /// # let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    /// assert!(fd.get_ref().peer_addr().is_ok());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_ref(&self) -> &T {
        &self.inner
    }

    /// The value, mutably. (Replacing its descriptor leaves the old one
    /// registered: don't.)
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = lawn_rt::runtime::Runtime::new()?;
    /// # let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    /// fd.get_mut().set_nonblocking(true)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// Removes the descriptor from the poll and gives the value back.
    ///
    /// # Examples
    ///
    /// ```
    /// # let rt = lawn_rt::runtime::Runtime::new()?;
    /// # let _guard = rt.enter();
    /// let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    /// let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    /// let a = fd.into_inner();
    /// # drop(a);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_inner(self) -> T {
        let AsyncFd { io, inner } = self;
        // An error means the descriptor is no longer usable; it is out of
        // the poll either way.
        let _ = io.into_inner();
        inner
    }

    /// Polls for read readiness: a guard once the descriptor is readable
    /// (or read-closed, or in error), else `Pending` and the task is woken
    /// when that changes. Only the task of the latest call is woken; for
    /// several waiting tasks, use [`readable`](AsyncFd::readable).
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     b.write_all(b"x")?;
    ///     let guard = std::future::poll_fn(|cx| fd.poll_read_ready(cx)).await?;
    ///     assert!(guard.ready().is_readable());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_read_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let event = ready!(self.poll_event(cx, Direction::Read))?;
        Poll::Ready(Ok(AsyncFdReadyGuard::new(self, event)))
    }

    /// [`poll_read_ready`](AsyncFd::poll_read_ready) with a guard that
    /// lends the value mutably.
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     b.write_all(b"x")?;
    ///     // The guard borrows `fd` mutably: use it inside the poll.
    ///     let readable = std::future::poll_fn(|cx| {
    ///         let polled = fd.poll_read_ready_mut(cx);
    ///         polled.map(|guard| guard.map(|guard| guard.ready().is_readable()))
    ///     })
    ///     .await?;
    ///     assert!(readable);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_read_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.poll_event(cx, Direction::Read))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, event)))
    }

    /// Polls for write readiness, as
    /// [`poll_read_ready`](AsyncFd::poll_read_ready) for reads.
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let guard = std::future::poll_fn(|cx| fd.poll_write_ready(cx)).await?;
    ///     assert!(guard.ready().is_writable());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_write_ready<'a>(
        &'a self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyGuard<'a, T>>> {
        let event = ready!(self.poll_event(cx, Direction::Write))?;
        Poll::Ready(Ok(AsyncFdReadyGuard::new(self, event)))
    }

    /// [`poll_write_ready`](AsyncFd::poll_write_ready) with a guard that
    /// lends the value mutably.
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let writable = std::future::poll_fn(|cx| {
    ///         let polled = fd.poll_write_ready_mut(cx);
    ///         polled.map(|guard| guard.map(|guard| guard.ready().is_writable()))
    ///     })
    ///     .await?;
    ///     assert!(writable);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_write_ready_mut<'a>(
        &'a mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<AsyncFdReadyMutGuard<'a, T>>> {
        let event = ready!(self.poll_event(cx, Direction::Write))?;
        Poll::Ready(Ok(AsyncFdReadyMutGuard::new(self, event)))
    }

    fn poll_event(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
    ) -> Poll<io::Result<ReadyEvent>> {
        let event = ready!(self.io.poll_ready(cx, direction))?;
        crate::coop::made_progress();
        Poll::Ready(Ok(event))
    }

    /// Waits until the descriptor is ready for any of `interest`; the
    /// guard says which ([`AsyncFdReadyGuard::ready`]). Any number of
    /// tasks may wait at once; each is woken.
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: it takes nothing from the descriptor.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = AsyncFd::new(a)?;
    ///     let guard = fd.ready(Interest::READABLE | Interest::WRITABLE).await?;
    ///     assert!(guard.ready().is_writable() && !guard.ready().is_readable());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn ready(&self, interest: Interest) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = self.io.ready(interest.direction()).await?;
        Ok(AsyncFdReadyGuard::new(self, event))
    }

    /// [`ready`](AsyncFd::ready) with a guard that lends the value
    /// mutably.
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = AsyncFd::new(a)?;
    ///     let mut guard = fd.ready_mut(Interest::WRITABLE).await?;
    ///     guard.get_inner_mut().set_nonblocking(true)?;
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn ready_mut(
        &mut self,
        interest: Interest,
    ) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = self.io.ready(interest.direction()).await?;
        Ok(AsyncFdReadyMutGuard::new(self, event))
    }

    /// [`ready`](AsyncFd::ready) for reading (or read-closed, or an
    /// error).
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// See [`AsyncFd`].
    pub async fn readable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = self.io.ready(Direction::Read).await?;
        Ok(AsyncFdReadyGuard::new(self, event))
    }

    /// [`readable`](AsyncFd::readable) with a guard that lends the value
    /// mutably.
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{Read, Write};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair()?;
    ///     a.set_nonblocking(true)?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     b.write_all(b"hi")?;
    ///     let mut buf = [0; 4];
    ///     let mut guard = fd.readable_mut().await?;
    ///     let n = guard.try_io(|fd| fd.get_mut().read(&mut buf)).unwrap()?;
    ///     assert_eq!(&buf[..n], b"hi");
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn readable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = self.io.ready(Direction::Read).await?;
        Ok(AsyncFdReadyMutGuard::new(self, event))
    }

    /// [`ready`](AsyncFd::ready) for writing (or write-closed, or an
    /// error).
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     a.set_nonblocking(true)?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let mut guard = fd.writable().await?;
    ///     let n = guard.try_io(|fd| fd.get_ref().write(b"out")).unwrap()?;
    ///     assert_eq!(n, 3);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn writable(&self) -> io::Result<AsyncFdReadyGuard<'_, T>> {
        let event = self.io.ready(Direction::Write).await?;
        Ok(AsyncFdReadyGuard::new(self, event))
    }

    /// [`writable`](AsyncFd::writable) with a guard that lends the value
    /// mutably.
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let guard = fd.writable_mut().await?;
    ///     assert!(guard.ready().is_writable());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn writable_mut(&mut self) -> io::Result<AsyncFdReadyMutGuard<'_, T>> {
        let event = self.io.ready(Direction::Write).await?;
        Ok(AsyncFdReadyMutGuard::new(self, event))
    }

    /// Runs the non-blocking `f` once the descriptor is ready for
    /// `interest`, and again after each wait while it says `WouldBlock`
    /// (which clears the readiness it saw): its first other result.
    ///
    /// # Errors
    ///
    /// What `f` returns other than `WouldBlock`; an error once the
    /// runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{Read, Write};
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, mut b) = std::os::unix::net::UnixStream::pair()?;
    ///     a.set_nonblocking(true)?;
    ///     let fd = AsyncFd::new(a)?;
    ///     let writer = std::thread::spawn(move || b.write_all(b"late"));
    ///     let mut buf = [0; 8];
    ///     let n = fd.async_io(Interest::READABLE, |a| (&*a).read(&mut buf)).await?;
    ///     assert_eq!(&buf[..n], b"late");
    ///     writer.join().unwrap()
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn async_io<R>(
        &self,
        interest: Interest,
        mut f: impl FnMut(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = &self.inner;
        self.io.async_io(interest.direction(), |_| f(inner)).await
    }

    /// [`async_io`](AsyncFd::async_io) with the value lent mutably.
    ///
    /// # Errors
    ///
    /// As [`async_io`](AsyncFd::async_io).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     a.set_nonblocking(true)?;
    ///     let mut fd = AsyncFd::new(a)?;
    ///     let n = fd.async_io_mut(Interest::WRITABLE, |a| a.write(b"hi")).await?;
    ///     assert_eq!(n, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn async_io_mut<R>(
        &mut self,
        interest: Interest,
        mut f: impl FnMut(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let AsyncFd { io, inner } = self;
        io.async_io(interest.direction(), |_| f(inner)).await
    }

    /// Runs `f` on the value if the descriptor is ready for `interest` now
    /// (no wait), as a guard's `try_io` does: a `WouldBlock` from `f`
    /// clears that readiness, so the next wait waits for a new event; like
    /// `tokio::io::unix::AsyncFd::try_io`.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the descriptor is not ready for `interest` (`f` is
    /// not called) or `f` said so; whatever else `f` returns; an error of
    /// kind `Other` once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{ErrorKind, Read};
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     a.set_nonblocking(true)?;
    ///     let fd = AsyncFd::new(a)?;
    ///     let err = fd.try_io(Interest::READABLE, |a| (&*a).read(&mut [0; 4])).unwrap_err();
    ///     assert_eq!(err.kind(), ErrorKind::WouldBlock); // nothing came
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce(&T) -> io::Result<R>,
    ) -> io::Result<R> {
        self.io.try_io(interest.direction(), |_| f(&self.inner))
    }

    /// [`try_io`](AsyncFd::try_io) with the value lent mutably.
    ///
    /// # Errors
    ///
    /// As [`try_io`](AsyncFd::try_io).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    /// use lawn_rt::io::{unix::AsyncFd, Interest};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     a.set_nonblocking(true)?;
    ///     let mut fd = AsyncFd::new(a)?;
    ///     fd.writable().await?.retain_ready();
    ///     assert_eq!(fd.try_io_mut(Interest::WRITABLE, |a| a.write(b"hi"))?, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_io_mut<R>(
        &mut self,
        interest: Interest,
        f: impl FnOnce(&mut T) -> io::Result<R>,
    ) -> io::Result<R> {
        let inner = &mut self.inner;
        self.io.try_io(interest.direction(), |_| f(inner))
    }
}

impl<T: AsRawFd> AsRawFd for AsyncFd<T> {
    fn as_raw_fd(&self) -> RawFd {
        self.inner.as_raw_fd()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFd<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFd")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

/// Readiness an [`AsyncFd`] wait found, lending the `AsyncFd`; like
/// tokio's. Dropping the guard keeps the readiness (the next wait returns
/// at once); [`try_io`](AsyncFdReadyGuard::try_io) and
/// [`clear_ready`](AsyncFdReadyGuard::clear_ready) clear it.
///
/// # Examples
///
/// See [`AsyncFd`].
pub struct AsyncFdReadyGuard<'a, T: AsRawFd> {
    async_fd: &'a AsyncFd<T>,
    seen: Seen,
}

/// The guard's error from [`try_io`](AsyncFdReadyGuard::try_io): the call
/// said `WouldBlock`, and the readiness has been cleared.
#[derive(Debug)]
pub struct TryIoError(());

/// What both guards keep: the readiness their wait saw, until cleared or
/// retained (`None`), and the rules for clearing it.
struct Seen(Option<ReadyEvent>);

impl Seen {
    fn clear(&mut self, io: &Registration<Fd>) {
        if let Some(event) = self.0.take() {
            io.clear_readiness(event);
        }
    }

    fn clear_matching(&mut self, io: &Registration<Fd>, ready: Ready) {
        if let Some(event) = self.0.as_mut() {
            io.clear_readiness(event.only(ready.bits()));
            *event = event.only(event.ready.without(ready.bits()));
        }
    }

    fn ready(&self) -> Ready {
        self.0
            .map_or(Ready::EMPTY, |event| Ready::from_bits(event.ready))
    }

    /// A `try_io` result: `WouldBlock` clears and becomes [`TryIoError`].
    fn after<R>(
        &mut self,
        io: &Registration<Fd>,
        result: io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        match result {
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                self.clear(io);
                Err(TryIoError(()))
            }
            result => Ok(result),
        }
    }
}

impl<'a, T: AsRawFd> AsyncFdReadyGuard<'a, T> {
    fn new(async_fd: &'a AsyncFd<T>, event: ReadyEvent) -> Self {
        AsyncFdReadyGuard {
            async_fd,
            seen: Seen(Some(event)),
        }
    }

    /// Forgets the readiness this guard saw (unless an event arrived since
    /// it was seen): the next wait waits for the next event. Call it when
    /// a non-blocking call said `WouldBlock` outside
    /// [`try_io`](AsyncFdReadyGuard::try_io).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let mut guard = fd.writable().await?;
    ///     guard.clear_ready();
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn clear_ready(&mut self) {
        self.seen.clear(&self.async_fd.io);
    }

    /// Forgets only the `ready` part of what this guard saw (the closed
    /// halves are never forgotten: they do not reopen).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::Ready;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let mut guard = fd.writable().await?;
    ///     guard.clear_ready_matching(Ready::WRITABLE);
    ///     assert!(!guard.ready().is_writable());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn clear_ready_matching(&mut self, ready: Ready) {
        self.seen.clear_matching(&self.async_fd.io, ready);
    }

    /// Keeps the readiness (what dropping the guard does too).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     fd.writable().await?.retain_ready();
    ///     let _still = fd.writable().await?; // at once
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn retain_ready(&mut self) {
        self.seen.0 = None;
    }

    /// What the wait found (empty once cleared or retained).
    ///
    /// # Examples
    ///
    /// See [`AsyncFd::ready`].
    #[must_use]
    pub fn ready(&self) -> Ready {
        self.seen.ready()
    }

    /// Runs the non-blocking `f`: `Err(TryIoError)` if it said
    /// `WouldBlock`, having cleared the readiness (wait again), else
    /// `Ok` with its result.
    ///
    /// # Errors
    ///
    /// [`TryIoError`] when `f` said `WouldBlock`.
    ///
    /// # Examples
    ///
    /// See [`AsyncFd`].
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&'a AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = f(self.async_fd);
        self.seen.after(&self.async_fd.io, result)
    }

    /// The `AsyncFd`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let guard = fd.writable().await?;
    ///     assert!(std::ptr::eq(guard.get_ref(), &fd));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    pub fn get_ref(&self) -> &'a AsyncFd<T> {
        self.async_fd
    }

    /// The value inside the `AsyncFd`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let guard = fd.writable().await?;
    ///     assert!(guard.get_inner().peer_addr().is_ok());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    pub fn get_inner(&self) -> &'a T {
        self.async_fd.get_ref()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFdReadyGuard")
            .field("async_fd", &self.async_fd)
            .field("ready", &self.ready())
            .finish()
    }
}

/// [`AsyncFdReadyGuard`], lending the [`AsyncFd`] mutably.
///
/// # Examples
///
/// See [`AsyncFd::readable_mut`].
pub struct AsyncFdReadyMutGuard<'a, T: AsRawFd> {
    async_fd: &'a mut AsyncFd<T>,
    seen: Seen,
}

impl<'a, T: AsRawFd> AsyncFdReadyMutGuard<'a, T> {
    fn new(async_fd: &'a mut AsyncFd<T>, event: ReadyEvent) -> Self {
        AsyncFdReadyMutGuard {
            async_fd,
            seen: Seen(Some(event)),
        }
    }

    /// As [`AsyncFdReadyGuard::clear_ready`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     fd.writable_mut().await?.clear_ready();
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn clear_ready(&mut self) {
        self.seen.clear(&self.async_fd.io);
    }

    /// As [`AsyncFdReadyGuard::clear_ready_matching`].
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::Ready;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     fd.writable_mut().await?.clear_ready_matching(Ready::WRITABLE);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn clear_ready_matching(&mut self, ready: Ready) {
        self.seen.clear_matching(&self.async_fd.io, ready);
    }

    /// As [`AsyncFdReadyGuard::retain_ready`].
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     fd.writable_mut().await?.retain_ready();
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn retain_ready(&mut self) {
        self.seen.0 = None;
    }

    /// As [`AsyncFdReadyGuard::ready`].
    ///
    /// # Examples
    ///
    /// See [`AsyncFd::poll_read_ready_mut`].
    #[must_use]
    pub fn ready(&self) -> Ready {
        self.seen.ready()
    }

    /// As [`AsyncFdReadyGuard::try_io`], with the `AsyncFd` lent mutably.
    ///
    /// # Errors
    ///
    /// [`TryIoError`] when `f` said `WouldBlock`.
    ///
    /// # Examples
    ///
    /// See [`AsyncFd::readable_mut`].
    pub fn try_io<R>(
        &mut self,
        f: impl FnOnce(&mut AsyncFd<T>) -> io::Result<R>,
    ) -> Result<io::Result<R>, TryIoError> {
        let result = f(self.async_fd);
        self.seen.after(&self.async_fd.io, result)
    }

    /// The `AsyncFd`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let guard = fd.writable_mut().await?;
    ///     assert!(guard.get_ref().get_ref().peer_addr().is_ok());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    pub fn get_ref(&self) -> &AsyncFd<T> {
        self.async_fd
    }

    /// The `AsyncFd`, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let mut guard = fd.writable_mut().await?;
    ///     guard.get_mut().get_mut().set_nonblocking(true)?;
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn get_mut(&mut self) -> &mut AsyncFd<T> {
        self.async_fd
    }

    /// The value inside the `AsyncFd`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = std::os::unix::net::UnixStream::pair()?;
    ///     let mut fd = lawn_rt::io::unix::AsyncFd::new(a)?;
    ///     let guard = fd.writable_mut().await?;
    ///     assert!(guard.get_inner().peer_addr().is_ok());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    pub fn get_inner(&self) -> &T {
        self.async_fd.get_ref()
    }

    /// The value inside the `AsyncFd`, mutably.
    ///
    /// # Examples
    ///
    /// See [`AsyncFd::ready_mut`].
    pub fn get_inner_mut(&mut self) -> &mut T {
        self.async_fd.get_mut()
    }
}

impl<T: AsRawFd + fmt::Debug> fmt::Debug for AsyncFdReadyMutGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncFdReadyMutGuard")
            .field("async_fd", &self.async_fd)
            .field("ready", &self.ready())
            .finish()
    }
}

impl fmt::Display for TryIoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the operation would block; readiness cleared")
    }
}

impl std::error::Error for TryIoError {}

/// [`AsyncFd::try_new`]'s (and [`AsyncFd::register`]'s) error: the value,
/// and why it could not be registered.
///
/// # Examples
///
/// See [`AsyncFd::try_new`].
pub struct AsyncFdRegisterError<T> {
    inner: T,
    cause: io::Error,
}

/// The error's name before tokio 1.54.
#[deprecated(note = "renamed `AsyncFdRegisterError`, as in tokio 1.54")]
pub type AsyncFdTryNewError<T> = AsyncFdRegisterError<T>;

impl<T> AsyncFdRegisterError<T> {
    /// The value and the error.
    ///
    /// # Examples
    ///
    /// See [`AsyncFd::try_new`].
    pub fn into_parts(self) -> (T, io::Error) {
        (self.inner, self.cause)
    }

    fn into_cause(self) -> io::Error {
        self.cause
    }
}

impl<T> fmt::Display for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.cause, f)
    }
}

impl<T> fmt::Debug for AsyncFdRegisterError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.cause, f)
    }
}

impl<T> std::error::Error for AsyncFdRegisterError<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}

impl<T> From<AsyncFdRegisterError<T>> for io::Error {
    fn from(err: AsyncFdRegisterError<T>) -> io::Error {
        err.cause
    }
}
