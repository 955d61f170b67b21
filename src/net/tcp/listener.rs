//! [`TcpListener`].

use std::io;
use std::net::SocketAddr;
use std::task::{Context, Poll};

use mio::Interest;

use super::stream::TcpStream;
use crate::net::addr::{self, ToSocketAddrs};
use crate::net::ops;
use crate::runtime::io::{self as driver, Registration};

/// A TCP socket listening for connections; like `tokio::net::TcpListener`.
///
/// # Examples
///
/// ```
/// use lawn_rt::net::{TcpListener, TcpStream};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
///     let client = TcpStream::connect(listener.local_addr()?).await?;
///     let (server_side, peer) = listener.accept().await?;
///     assert_eq!(peer, client.local_addr()?);
///     assert_eq!(server_side.peer_addr()?, client.local_addr()?);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct TcpListener {
    io: Registration<mio::net::TcpListener>,
}

impl TcpListener {
    /// Binds a listener to `addr`: trying each address it resolves to in
    /// turn, the first that binds (`SO_REUSEADDR` set, as by `std` and
    /// tokio on Unix), registered with this runtime's I/O driver.
    ///
    /// # Errors
    ///
    /// The last address's error if none binds: `AddrInUse` for a port
    /// another socket listens on, `AddrNotAvailable` for an address of no
    /// local interface, `PermissionDenied` for a privileged port; and
    /// `InvalidInput` if `addr` resolves to nothing.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpListener;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let port = listener.local_addr()?.port();
    ///     assert_ne!(port, 0); // the system picked one
    ///     let taken = TcpListener::bind(("127.0.0.1", port)).await;
    ///     assert_eq!(taken.unwrap_err().kind(), std::io::ErrorKind::AddrInUse);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        let lookup = addr.lookup();
        let driver = driver::current();
        let addrs = addr::resolve(lookup).await?;
        addr::each(addrs, |addr| {
            let driver = driver.clone();
            async move {
                let listener = mio::net::TcpListener::bind(addr)?;
                let io = Registration::with_driver(driver, listener, Interest::READABLE)?;
                Ok(TcpListener { io })
            }
        })
        .await
    }

    /// Waits for a connection and returns it with its peer's address. The
    /// new stream registers with the I/O driver of the thread that accepts
    /// it (in a multi-worker runtime: that worker's).
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
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let addr = listener.local_addr()?;
    ///     let client = lawn_rt::spawn(async move { TcpStream::connect(addr).await });
    ///     let (stream, peer) = listener.accept().await?;
    ///     assert_eq!(peer, client.await.unwrap()?.local_addr()?);
    ///     # drop(stream);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let (io, peer) = ops::accept(&self.io).await?;
        Ok((TcpStream::from_registration(io), peer))
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
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let client = TcpStream::connect(listener.local_addr()?).await?;
    ///     let (_stream, peer) = std::future::poll_fn(|cx| listener.poll_accept(cx)).await?;
    ///     assert_eq!(peer, client.local_addr()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        ops::poll_accept(&self.io, cx).map_ok(|(io, peer)| (TcpStream::from_registration(io), peer))
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
    /// use lawn_rt::net::TcpListener;
    ///
    /// let std_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let listener = TcpListener::from_std(std_listener)?;
    /// assert!(listener.local_addr()?.ip().is_loopback());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        listener.set_nonblocking(true)?;
        let listener = mio::net::TcpListener::from_std(listener);
        let io = Registration::new(listener, Interest::READABLE)?;
        Ok(TcpListener { io })
    }

    /// The address the listener is bound to (with the port the system
    /// picked, if it was bound to port 0).
    ///
    /// # Errors
    ///
    /// What `getsockname(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpListener;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let addr = rt.block_on(async { TcpListener::bind("127.0.0.1:0").await?.local_addr() })?;
    /// assert_eq!(addr.ip(), std::net::Ipv4Addr::LOCALHOST);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// `IP_TTL`: the time-to-live of the packets the accepted connections
    /// start with.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = lawn_rt::net::TcpListener::bind("127.0.0.1:0").await?;
    ///     listener.set_ttl(100)?;
    ///     assert_eq!(listener.ttl()?, 100);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn ttl(&self) -> io::Result<u32> {
        self.io.get_ref().ttl()
    }

    /// Sets `IP_TTL`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`ttl`](Self::ttl).
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_ttl(ttl)
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
    /// use lawn_rt::net::TcpListener;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     assert!(listener.take_error()?.is_none());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        self.io.get_ref().take_error()
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
    /// use lawn_rt::net::TcpListener;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let listener = rt.block_on(TcpListener::bind("127.0.0.1:0"))?;
    /// let std_listener = listener.into_std()?;
    /// std_listener.set_nonblocking(false)?;
    /// let client = std::net::TcpStream::connect(std_listener.local_addr()?)?;
    /// let (_server, peer) = std_listener.accept()?;
    /// assert_eq!(peer, client.local_addr()?);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_std(self) -> io::Result<std::net::TcpListener> {
        self.io.into_inner().map(Into::into)
    }
}

crate::net::ops::socket_traits!(TcpListener(std::net::TcpListener): local_addr);
