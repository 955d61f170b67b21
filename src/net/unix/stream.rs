//! [`UnixStream`].

use std::io;
use std::path::Path;

use super::addr::{self, SocketAddr};
use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::net::ops;
use crate::runtime::io::{self as driver, Ready, Registration};

/// A connected Unix stream socket; like `tokio::net::UnixStream`.
///
/// Read and write it through `futures::io::{AsyncReadExt, AsyncWriteExt}`
/// (or, with the feature `tokio-io`, tokio's `AsyncReadExt` and
/// `AsyncWriteExt`, and tokio-util codecs), or with `&self` through
/// [`readable`](Self::readable) and [`try_read`](Self::try_read),
/// [`writable`](Self::writable) and [`try_write`](Self::try_write). A read
/// of 0 bytes means the peer closed its side (end of file).
///
/// To close the write side while still reading: `AsyncWriteExt::close`
/// (futures) or `shutdown` (tokio); [`OwnedWriteHalf`] does it when
/// dropped. Dropping the stream closes the connection.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::UnixStream;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let (mut a, mut b) = UnixStream::pair()?;
///     a.write_all(b"hello").await?;
///     a.close().await?; // end of file for `b`
///     let mut got = Vec::new();
///     b.read_to_end(&mut got).await?;
///     assert_eq!(got, b"hello");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct UnixStream {
    io: Registration<mio::net::UnixStream>,
}

impl UnixStream {
    /// Connects to the listener at `path` (on Linux and Android, a path
    /// that starts with a NUL byte names an abstract socket).
    ///
    /// # Errors
    ///
    /// `NotFound` if nothing exists at the path; `ConnectionRefused` if
    /// no one listens there (a file a dropped listener left, say);
    /// `PermissionDenied`; `InvalidInput` if the path does not fit in
    /// `sun_path` (the message says the limit). On Linux a listener whose
    /// queue of connections is full makes the connect fail with
    /// `WouldBlock` rather than wait (as with tokio).
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{UnixListener, UnixStream};
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-connect-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("connect.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let missing = UnixStream::connect(&path).await.unwrap_err();
    ///     assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    ///     let _listener = UnixListener::bind(&path)?;
    ///     let stream = UnixStream::connect(&path).await?;
    ///     assert_eq!(stream.peer_addr()?.as_pathname(), Some(path.as_path()));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn connect<P: AsRef<Path>>(path: P) -> io::Result<UnixStream> {
        let driver = driver::current();
        let addr = addr::socket_addr(path.as_ref())?;
        UnixStream::connect_with(driver, &addr).await
    }

    /// Connects to the listener at `addr` (a path, or on Linux and Android
    /// an abstract name); like `tokio::net::UnixStream::connect_addr`.
    ///
    /// # Errors
    ///
    /// What `connect(2)` reports (`ConnectionRefused` if nothing listens
    /// there, say).
    ///
    /// # Panics
    ///
    /// When first polled outside a `lawn_rt` runtime with I/O enabled, as
    /// [`connect`](Self::connect).
    ///
    /// # Examples
    ///
    /// See [`UnixListener::bind_addr`](crate::net::UnixListener::bind_addr).
    pub async fn connect_addr(addr: &SocketAddr) -> io::Result<UnixStream> {
        UnixStream::connect_with(driver::current(), &addr.0).await
    }

    async fn connect_with(
        driver: std::sync::Arc<crate::runtime::io::Driver>,
        addr: &std::os::unix::net::SocketAddr,
    ) -> io::Result<UnixStream> {
        let stream = mio::net::UnixStream::connect_addr(addr)?;
        UnixStream::connect_mio(driver, stream).await
    }

    /// Registers `stream`, whose connect has been started, and waits until
    /// it is done.
    pub(crate) async fn connect_mio(
        driver: std::sync::Arc<crate::runtime::io::Driver>,
        stream: mio::net::UnixStream,
    ) -> io::Result<UnixStream> {
        let io = ops::connect(driver, stream).await?;
        Ok(UnixStream { io })
    }

    /// Two streams connected to each other (`socketpair(2)`), registered
    /// with this runtime's I/O driver: a channel to a task, or (through
    /// [`into_std`](Self::into_std)) to a child process.
    ///
    /// # Errors
    ///
    /// What `socketpair(2)` reports (too many open files, say), or if the
    /// streams cannot be registered.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use futures::io::{AsyncReadExt, AsyncWriteExt};
    /// use lawn_rt::net::UnixStream;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (mut a, mut b) = UnixStream::pair()?;
    ///     let echo = lawn_rt::spawn(async move {
    ///         let mut buf = [0; 4];
    ///         b.read_exact(&mut buf).await?;
    ///         b.write_all(&buf).await
    ///     });
    ///     a.write_all(b"ping").await?;
    ///     let mut buf = [0; 4];
    ///     a.read_exact(&mut buf).await?;
    ///     assert_eq!(&buf, b"ping");
    ///     echo.await.unwrap()
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn pair() -> io::Result<(UnixStream, UnixStream)> {
        let driver = driver::current();
        let (a, b) = mio::net::UnixStream::pair()?;
        let a = ops::register_stream(driver.clone(), a)?;
        let b = ops::register_stream(driver, b)?;
        // Empty buffers: writable now, readable once the peer writes.
        a.assume_ready(Ready::WRITABLE);
        b.assume_ready(Ready::WRITABLE);
        Ok((UnixStream { io: a }, UnixStream { io: b }))
    }

    /// A stream for a registered mio one (an accepted connection).
    pub(crate) fn from_registration(io: Registration<mio::net::UnixStream>) -> UnixStream {
        UnixStream { io }
    }

    /// A stream made from a connected `std` one (set to non-blocking
    /// here), registered with this runtime's I/O driver.
    ///
    /// # Errors
    ///
    /// If the socket cannot be made non-blocking or registered (the
    /// runtime has shut down, say).
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    ///
    /// let (std_a, _std_b) = std::os::unix::net::UnixStream::pair()?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let a = UnixStream::from_std(std_a)?;
    /// assert!(a.peer_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn from_std(stream: std::os::unix::net::UnixStream) -> io::Result<UnixStream> {
        stream.set_nonblocking(true)?;
        let stream = mio::net::UnixStream::from_std(stream);
        let io = ops::register_stream(driver::current(), stream)?;
        Ok(UnixStream { io })
    }

    /// The `std` stream of this one, deregistered from the runtime; still
    /// non-blocking (call `set_nonblocking(false)` for blocking use).
    ///
    /// # Errors
    ///
    /// If the socket cannot be deregistered.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::{Read, Write};
    /// use lawn_rt::net::UnixStream;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let (a, b) = rt.block_on(async { UnixStream::pair() })?;
    /// let (mut a, mut b) = (a.into_std()?, b.into_std()?);
    /// b.set_nonblocking(false)?;
    /// a.write_all(b"plain")?;
    /// let mut buf = [0; 5];
    /// b.read_exact(&mut buf)?;
    /// assert_eq!(&buf, b"plain");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixStream> {
        self.io.into_inner().map(Into::into)
    }

    /// The local address of this end (unnamed unless it was accepted by a
    /// listener bound to a path: then that path).
    ///
    /// # Errors
    ///
    /// What `getsockname(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let (a, _b) = UnixStream::pair()?;
    /// assert!(a.local_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr().map(SocketAddr)
    }

    /// The address of the peer (the listener's path, for a stream that
    /// connected to one; unnamed for most accepted streams).
    ///
    /// # Errors
    ///
    /// What `getpeername(2)` reports (`NotConnected` once the connection
    /// is gone, on some systems).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let (a, _b) = UnixStream::pair()?;
    /// assert!(a.peer_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr().map(SocketAddr)
    }

    /// The credentials of the peer process (`SO_PEERCRED`): its process,
    /// user and group ids, as they were when the connection was made.
    /// Linux and Android only.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixStream;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let (a, _b) = UnixStream::pair()?;
    /// assert_eq!(a.peer_cred()?.pid(), Some(std::process::id() as i32));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn peer_cred(&self) -> io::Result<super::UCred> {
        super::ucred::peer_cred(self.io.get_ref())
    }
}

crate::net::ops::socket_traits!(UnixStream(std::os::unix::net::UnixStream): local_addr, peer_addr);

crate::net::stream::stream_api! {
    UnixStream,
    uses: "use lawn_rt::net::UnixStream;",
    pair: "UnixStream::pair()?",
}
