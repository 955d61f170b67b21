//! [`UnixListener`].

use std::io;
use std::path::Path;
use std::task::{Context, Poll};

use mio::Interest;

use super::addr::{self, SocketAddr};
use super::stream::UnixStream;
use crate::net::ops;
use crate::runtime::io::{self as driver, Registration};

/// A Unix stream socket listening for connections at a path; like
/// `tokio::net::UnixListener`.
///
/// Binding creates a socket file at the path. Dropping the listener closes
/// the socket but leaves the file (as tokio and `std` do): a later
/// [`bind`](Self::bind) to the same path fails with `AddrInUse` until the
/// file is removed (`std::fs::remove_file`), and a
/// [`UnixStream::connect`] to it fails with `ConnectionRefused`.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::{UnixListener, UnixStream};
///
/// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-listener-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("echo.sock");
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = UnixListener::bind(&path)?;
///     let mut client = UnixStream::connect(&path).await?;
///     let (mut server, _) = listener.accept().await?;
///     client.write_all(b"ping").await?;
///     let mut buf = [0; 4];
///     server.read_exact(&mut buf).await?;
///     assert_eq!(&buf, b"ping");
///     Ok::<_, std::io::Error>(())
/// })?;
/// std::fs::remove_file(&path)?; // the listener is gone, its file is not
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct UnixListener {
    io: Registration<mio::net::UnixListener>,
}

impl UnixListener {
    /// Binds a listener to `path` (creating the socket file; on Linux and
    /// Android a path that starts with a NUL byte names an abstract socket
    /// instead, with no file), registered with this runtime's I/O driver.
    ///
    /// # Errors
    ///
    /// `AddrInUse` if something exists at the path (an earlier listener's
    /// file, say: remove it first); `NotFound` if its directory does not
    /// exist; `PermissionDenied`; `InvalidInput` if the path does not fit
    /// in `sun_path` (the message says the limit) or holds a NUL byte
    /// (other than an abstract name's first).
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled (before anything is
    /// created at the path).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixListener;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-bind-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("bind.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let listener = UnixListener::bind(&path)?;
    /// let taken = UnixListener::bind(&path).unwrap_err();
    /// assert_eq!(taken.kind(), std::io::ErrorKind::AddrInUse);
    /// drop(listener);
    /// std::fs::remove_file(&path)?;
    /// let _again = UnixListener::bind(&path)?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixListener> {
        let driver = driver::current();
        let addr = addr::socket_addr(path.as_ref())?;
        UnixListener::bind_with(driver, &addr)
    }

    /// A listener bound to `addr` (a path, or on Linux and Android an
    /// abstract name), registered with this runtime's I/O driver; like
    /// `tokio::net::UnixListener::bind_addr`.
    ///
    /// # Errors
    ///
    /// What `bind(2)` and `listen(2)` report (`AddrInUse` if the name is
    /// taken, say).
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled (the message names the
    /// caller's line).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::os::linux::net::SocketAddrExt;
    /// use lawn_rt::net::{unix::SocketAddr, UnixListener, UnixStream};
    ///
    /// let name = format!("lawn-rt-doc-bind-addr-{}", std::process::id());
    /// let addr: SocketAddr = std::os::unix::net::SocketAddr::from_abstract_name(&name)?.into();
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = UnixListener::bind_addr(&addr)?;
    ///     let client = UnixStream::connect_addr(&addr).await?;
    ///     let (_server, _) = listener.accept().await?;
    ///     assert_eq!(client.peer_addr()?.as_abstract_name(), Some(name.as_bytes()));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn bind_addr(addr: &SocketAddr) -> io::Result<UnixListener> {
        UnixListener::bind_with(driver::current(), &addr.0)
    }

    fn bind_with(
        driver: std::sync::Arc<crate::runtime::io::Driver>,
        addr: &std::os::unix::net::SocketAddr,
    ) -> io::Result<UnixListener> {
        let listener = mio::net::UnixListener::bind_addr(addr)?;
        let io = Registration::with_driver(driver, listener, Interest::READABLE)?;
        Ok(UnixListener { io })
    }

    /// A listener made from a `std` one (set to non-blocking here),
    /// registered with this runtime's I/O driver.
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
    /// use lawn_rt::net::UnixListener;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-lfromstd-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("from_std.sock");
    /// let std_listener = std::os::unix::net::UnixListener::bind(&path)?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let listener = UnixListener::from_std(std_listener)?;
    /// assert_eq!(listener.local_addr()?.as_pathname(), Some(path.as_path()));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn from_std(listener: std::os::unix::net::UnixListener) -> io::Result<UnixListener> {
        listener.set_nonblocking(true)?;
        let listener = mio::net::UnixListener::from_std(listener);
        let io = Registration::new(listener, Interest::READABLE)?;
        Ok(UnixListener { io })
    }

    /// The `std` listener of this one, deregistered from the runtime;
    /// still non-blocking (call `set_nonblocking(false)` for blocking
    /// use).
    ///
    /// # Errors
    ///
    /// If the socket cannot be deregistered.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixListener;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-lintostd-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("into_std.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let listener = rt.block_on(async { UnixListener::bind(&path) })?;
    /// let std_listener = listener.into_std()?;
    /// std_listener.set_nonblocking(false)?;
    /// let _client = std::os::unix::net::UnixStream::connect(&path)?;
    /// let (_server, _) = std_listener.accept()?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixListener> {
        self.io.into_inner().map(Into::into)
    }

    /// Waits for a connection and returns it with its peer's address
    /// (usually unnamed: a connecting socket is rarely bound). The new
    /// stream registers with the I/O driver of the thread that accepts it
    /// (in a multi-worker runtime: that worker's).
    ///
    /// Several tasks may wait on one listener (share it in an `Arc`): each
    /// is woken when a connection comes in, and one gets it.
    ///
    /// # Errors
    ///
    /// What `accept(2)` reports (too many open files, say: the listener
    /// stays usable), or that the runtime has shut down.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a connection is taken from the queue only by the call
    /// that returns it.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{UnixListener, UnixStream};
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-accept-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("accept.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = UnixListener::bind(&path)?;
    ///     let client = lawn_rt::spawn(UnixStream::connect(path.clone()));
    ///     let (stream, peer) = listener.accept().await?;
    ///     assert!(peer.is_unnamed());
    ///     assert_eq!(stream.local_addr()?.as_pathname(), Some(path.as_path()));
    ///     client.await.unwrap()?;
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn accept(&self) -> io::Result<(UnixStream, SocketAddr)> {
        let (io, peer) = ops::accept(&self.io).await?;
        Ok((UnixStream::from_registration(io), SocketAddr(peer)))
    }

    /// Polls for a connection: `Ready` with it and its peer's address, or
    /// `Pending` (the task is woken when one comes in). Only the task of
    /// the latest call is woken; for several waiting tasks, use
    /// [`accept`](Self::accept).
    ///
    /// # Errors
    ///
    /// As [`accept`](Self::accept).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{UnixListener, UnixStream};
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-poll-accept-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("poll_accept.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = UnixListener::bind(&path)?;
    ///     let _client = UnixStream::connect(&path).await?;
    ///     let (_stream, _peer) = std::future::poll_fn(|cx| listener.poll_accept(cx)).await?;
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(UnixStream, SocketAddr)>> {
        ops::poll_accept(&self.io, cx)
            .map_ok(|(io, peer)| (UnixStream::from_registration(io), SocketAddr(peer)))
    }

    /// The address the listener is bound to.
    ///
    /// # Errors
    ///
    /// What `getsockname(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixListener;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-llocal-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("local.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let listener = UnixListener::bind(&path)?;
    /// assert_eq!(listener.local_addr()?.as_pathname(), Some(path.as_path()));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr().map(SocketAddr)
    }

    /// Takes the socket's pending error (`SO_ERROR`), if any, clearing it.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixListener;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-ltake-error-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let listener = UnixListener::bind(dir.join("take_error.sock"))?;
    /// assert!(listener.take_error()?.is_none());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
    }
}

crate::net::ops::socket_traits!(UnixListener(std::os::unix::net::UnixListener): local_addr);
