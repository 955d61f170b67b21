//! [`TcpStream`].

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::net::addr::{self, ToSocketAddrs};
use crate::net::ops;
use crate::runtime::io::{self as driver, Driver, Registration};

/// A TCP connection; like `tokio::net::TcpStream`.
///
/// Read and write it through `futures::io::{AsyncReadExt, AsyncWriteExt}`
/// (or, with the feature `tokio-io`, tokio's `AsyncReadExt` and
/// `AsyncWriteExt`, and tokio-util codecs), or with `&self` through
/// [`readable`](Self::readable) and [`try_read`](Self::try_read),
/// [`writable`](Self::writable) and [`try_write`](Self::try_write). A read
/// of 0 bytes means the peer closed its side (end of file).
///
/// To close the write side (send FIN) while still reading, as tokio's
/// `AsyncWriteExt::shutdown` does: `AsyncWriteExt::close` (futures) or
/// `shutdown` (tokio); [`OwnedWriteHalf`] does it when dropped. Dropping
/// the stream closes the connection.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::{TcpListener, TcpStream};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = TcpListener::bind("127.0.0.1:0").await?;
///     let mut client = TcpStream::connect(listener.local_addr()?).await?;
///     let (mut server, _) = listener.accept().await?;
///     client.write_all(b"hello").await?;
///     client.close().await?; // FIN: the server reads to the end
///     let mut got = Vec::new();
///     server.read_to_end(&mut got).await?;
///     assert_eq!(got, b"hello");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct TcpStream {
    io: Registration<mio::net::TcpStream>,
}

impl TcpStream {
    /// Opens a connection to `addr`: trying each address it resolves to in
    /// turn, the first that connects.
    ///
    /// # Errors
    ///
    /// The last address's error if none connects: `ConnectionRefused` when
    /// nothing listens there (reported as soon as the peer's reset
    /// arrives), `TimedOut` or `HostUnreachable` from the network;
    /// `InvalidInput` if `addr` resolves to nothing. Wrap the call in
    /// [`time::timeout`](crate::time::timeout) to bound how long it may
    /// take.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime with I/O enabled.
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
    ///     let stream = TcpStream::connect(addr).await?;
    ///     assert_eq!(stream.peer_addr()?, addr);
    ///
    ///     drop(listener); // nothing listens there any more
    ///     let refused = TcpStream::connect(addr).await.unwrap_err();
    ///     assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        let lookup = addr.lookup();
        let driver = driver::current();
        let addrs = addr::resolve(lookup).await?;
        addr::each(addrs, |addr| {
            let driver = driver.clone();
            async move { TcpStream::connect_mio(driver, mio::net::TcpStream::connect(addr)?).await }
        })
        .await
    }

    /// Registers a connecting mio stream with `driver` and waits until the
    /// connect has finished (for `connect` and `TcpSocket::connect`).
    pub(crate) async fn connect_mio(
        driver: Arc<Driver>,
        stream: mio::net::TcpStream,
    ) -> io::Result<TcpStream> {
        let io = ops::connect(driver, stream).await?;
        Ok(TcpStream { io })
    }

    /// A stream for a registered mio one (an accepted connection).
    pub(crate) fn from_registration(io: Registration<mio::net::TcpStream>) -> TcpStream {
        TcpStream { io }
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
    /// use lawn_rt::net::TcpStream;
    ///
    /// let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    /// let std_stream = std::net::TcpStream::connect(listener.local_addr()?)?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let stream = TcpStream::from_std(std_stream)?;
    /// assert_eq!(stream.peer_addr()?, listener.local_addr()?);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        stream.set_nonblocking(true)?;
        let stream = mio::net::TcpStream::from_std(stream);
        let io = ops::register_stream(driver::current(), stream)?;
        Ok(TcpStream { io })
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
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let (client, server) = rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let client = TcpStream::connect(listener.local_addr()?).await?;
    ///     Ok::<_, std::io::Error>((client, listener.accept().await?.0))
    /// })?;
    /// let (mut client, mut server) = (client.into_std()?, server.into_std()?);
    /// server.set_nonblocking(false)?;
    /// client.write_all(b"plain")?;
    /// let mut buf = [0; 5];
    /// server.read_exact(&mut buf)?;
    /// assert_eq!(&buf, b"plain");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_std(self) -> io::Result<std::net::TcpStream> {
        self.io.into_inner().map(Into::into)
    }

    /// The address of the peer.
    ///
    /// # Errors
    ///
    /// `NotConnected` once the connection is reset or closed.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = TcpStream::connect(listener.local_addr()?).await?;
    ///     assert_eq!(stream.peer_addr()?, listener.local_addr()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }

    /// The local address of this end of the connection.
    ///
    /// # Errors
    ///
    /// What `getsockname(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = TcpStream::connect(listener.local_addr()?).await?;
    ///     let (_, peer) = listener.accept().await?;
    ///     assert_eq!(stream.local_addr()?, peer);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// Sets `TCP_NODELAY`: with `true`, small writes go out at once instead
    /// of waiting to be coalesced (Nagle's algorithm).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = TcpStream::connect(listener.local_addr()?).await?;
    ///     stream.set_nodelay(true)?;
    ///     assert!(stream.nodelay()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.io.get_ref().set_nodelay(nodelay)
    }

    /// Whether `TCP_NODELAY` is set; see [`set_nodelay`](Self::set_nodelay).
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = TcpStream::connect(listener.local_addr()?).await?;
    ///     assert!(!stream.nodelay()?); // the system default
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn nodelay(&self) -> io::Result<bool> {
        self.io.get_ref().nodelay()
    }

    /// Sets `TCP_QUICKACK`: acknowledge at once rather than delay the ACK.
    /// The kernel clears it again as the connection goes on, so a caller
    /// that wants it sets it after each read. Linux and Android.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = TcpStream::connect(listener.local_addr()?).await?;
    ///     stream.set_quickack(true)?;
    ///     assert!(stream.quickack()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn set_quickack(&self, quickack: bool) -> io::Result<()> {
        Ok(rustix::net::sockopt::set_tcp_quickack(
            self.io.get_ref(),
            quickack,
        )?)
    }

    /// Whether `TCP_QUICKACK` is set now; see
    /// [`set_quickack`](Self::set_quickack). Linux and Android.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`set_quickack`](Self::set_quickack).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn quickack(&self) -> io::Result<bool> {
        Ok(rustix::net::sockopt::tcp_quickack(self.io.get_ref())?)
    }
}

impl TcpStream {
    /// Waits for data and copies it into `buf` without taking it: the
    /// next read gets it again. The number of bytes copied (0 once the
    /// peer has closed its side).
    ///
    /// # Errors
    ///
    /// What `recv(2)` with `MSG_PEEK` reports.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: it takes nothing from the stream.
    ///
    /// # Examples
    ///
    /// ```
    /// use futures::io::{AsyncReadExt, AsyncWriteExt};
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let mut a = TcpStream::connect(listener.local_addr()?).await?;
    ///     let (mut b, _) = listener.accept().await?;
    ///     b.write_all(b"hello").await?;
    ///     let mut buf = [0; 16];
    ///     let n = a.peek(&mut buf).await?;
    ///     assert_eq!(&buf[..n], &b"hello"[..n]);
    ///     a.read_exact(&mut buf[..5]).await?; // still there
    ///     assert_eq!(&buf[..5], b"hello");
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .async_io(driver::Direction::Read, |stream| stream.peek(buf))
            .await
    }

    /// [`peek`](Self::peek) as a poll, into `buf`'s unfilled part: the
    /// number of bytes copied (0 at the end of the stream). Only the task
    /// of the latest read-direction poll is woken. With feature
    /// `tokio-io` (it takes tokio's `ReadBuf`).
    ///
    /// # Errors
    ///
    /// What `recv(2)` with `MSG_PEEK` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::{AsyncWriteExt, ReadBuf};
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let a = TcpStream::connect(listener.local_addr()?).await?;
    ///     let (mut b, _) = listener.accept().await?;
    ///     b.write_all(b"x").await?;
    ///     let mut storage = [0; 8];
    ///     let mut buf = ReadBuf::new(&mut storage);
    ///     let n = std::future::poll_fn(|cx| a.poll_peek(cx, &mut buf)).await?;
    ///     assert_eq!((n, buf.filled()), (1, &b"x"[..]));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub fn poll_peek(
        &self,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<usize>> {
        self.io.poll_read_buf(cx, buf, |stream, unfilled| {
            let n = stream.peek(unfilled)?;
            Ok((n, n))
        })
    }

    /// `IP_TTL`: the time-to-live of the packets this stream sends.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = TcpStream::connect(listener.local_addr()?).await?;
    ///     stream.set_ttl(33)?;
    ///     assert_eq!(stream.ttl()?, 33);
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

    /// `SO_LINGER`: how long a close waits to send what is still buffered
    /// (`None`: the close returns at once and the kernel sends it in the
    /// background, the default). Linux and Android.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use lawn_rt::net::{TcpListener, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = TcpStream::connect(listener.local_addr()?).await?;
    ///     assert_eq!(stream.linger()?, None);
    ///     stream.set_zero_linger()?;
    ///     assert_eq!(stream.linger()?, Some(Duration::ZERO));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn linger(&self) -> io::Result<Option<std::time::Duration>> {
        Ok(rustix::net::sockopt::socket_linger(self.io.get_ref())?)
    }

    /// Sets `SO_LINGER` (whole seconds). Deprecated as tokio's is: with a
    /// non-zero linger the kernel's close, which the stream's drop makes,
    /// blocks the dropping thread (a runtime worker) until the data is sent
    /// or the time is up. For a close that resets the connection use
    /// [`set_zero_linger`](Self::set_zero_linger); it is kept for ports.
    /// Linux and Android.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = lawn_rt::net::TcpListener::bind("127.0.0.1:0").await?;
    ///     let stream = lawn_rt::net::TcpStream::connect(listener.local_addr()?).await?;
    ///     stream.set_linger(None)?; // the default: never blocks
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[deprecated = "`SO_LINGER` makes the stream's drop block the thread; see `set_zero_linger`"]
    pub fn set_linger(&self, linger: Option<std::time::Duration>) -> io::Result<()> {
        Ok(rustix::net::sockopt::set_socket_linger(
            self.io.get_ref(),
            linger,
        )?)
    }

    /// Sets `SO_LINGER` to zero: closing (dropping) the stream then
    /// discards what is unsent and resets the connection (`RST`) at once,
    /// never blocking. Linux and Android.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`linger`](Self::linger).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    pub fn set_zero_linger(&self) -> io::Result<()> {
        Ok(rustix::net::sockopt::set_socket_linger(
            self.io.get_ref(),
            Some(std::time::Duration::ZERO),
        )?)
    }
}

crate::net::ops::socket_traits!(TcpStream(std::net::TcpStream): local_addr, peer_addr);

crate::net::stream::stream_api! {
    TcpStream,
    uses: "use lawn_rt::net::{TcpListener, TcpStream};",
    pair: example_pair!(),
}
