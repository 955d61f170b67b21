//! [`AsyncFd`]: readiness of any Unix file descriptor on the runtime's
//! own mio poll; like `tokio::io::unix`.
//!
//! Ground rules: an `AsyncFd` is one `Registration` (`runtime::io`) of the descriptor
//! its value owns, by the rules of `runtime::io` (readiness is cleared
//! only by the caller, on `WouldBlock`; an event that arrived since the
//! caller looked is kept). The registration is dropped before the value,
//! so the descriptor leaves the poll before it is closed.

mod guard;
mod readiness;

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, RawFd};

use mio::event::Source;
use mio::unix::SourceFd;

use super::Interest;
use crate::runtime::io::Registration;

pub use guard::{AsyncFdReadyGuard, AsyncFdReadyMutGuard, TryIoError};

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
