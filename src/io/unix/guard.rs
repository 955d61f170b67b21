//! The guards an [`AsyncFd`] wait returns, and what both keep of the
//! readiness they saw.

use std::fmt;
use std::io;
use std::os::fd::AsRawFd;

use super::{AsyncFd, Fd};
use crate::io::Ready;
use crate::runtime::io::{ReadyEvent, Registration};

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
    pub(super) fn new(async_fd: &'a AsyncFd<T>, event: ReadyEvent) -> Self {
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
    pub(super) fn new(async_fd: &'a mut AsyncFd<T>, event: ReadyEvent) -> Self {
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
