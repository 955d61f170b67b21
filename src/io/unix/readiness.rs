//! Waiting for an [`AsyncFd`]'s readiness, and I/O that clears it on
//! `WouldBlock`.

use std::io;
use std::os::fd::AsRawFd;
use std::task::{ready, Context, Poll};

use super::{AsyncFd, AsyncFdReadyGuard, AsyncFdReadyMutGuard};
use crate::io::Interest;
use crate::runtime::io::{Direction, ReadyEvent};

impl<T: AsRawFd> AsyncFd<T> {
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
