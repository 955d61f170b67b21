//! [`TcpStream`].

use std::fmt;
use std::io::{self, IoSlice, Read, Write};
use std::net::{Shutdown, SocketAddr};
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use mio::Interest;

use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use crate::coop;
use crate::net::addr::{self, ToSocketAddrs};
use crate::runtime::io::{self as driver, Direction, Driver, Registration};

/// A TCP connection; like `tokio::net::TcpStream`.
///
/// Read and write it through `futures::io::{AsyncReadExt, AsyncWriteExt}`
/// (or, with the feature `tokio-io`, tokio's `AsyncReadExt` and
/// `AsyncWriteExt`, and tokio-util codecs). A read of 0 bytes means the
/// peer closed its side (end of file).
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
            async move {
                let stream = mio::net::TcpStream::connect(addr)?;
                let stream = TcpStream::registered(driver, stream)?;
                stream.connected().await?;
                Ok(stream)
            }
        })
        .await
    }

    /// Registers a connected (or connecting) mio stream with `driver`.
    pub(crate) fn registered(
        driver: Arc<Driver>,
        stream: mio::net::TcpStream,
    ) -> io::Result<TcpStream> {
        let interest = Interest::READABLE | Interest::WRITABLE;
        let io = Registration::with_driver(driver, stream, interest)?;
        Ok(TcpStream { io })
    }

    /// Waits until a non-blocking connect has finished; its error if it
    /// failed.
    async fn connected(&self) -> io::Result<()> {
        std::future::poll_fn(|cx| loop {
            let event = ready!(self.io.poll_ready(cx, Direction::Write))?;
            let stream = self.io.get_ref();
            if let Some(err) = stream.take_error()? {
                coop::made_progress();
                return Poll::Ready(Err(err));
            }
            match stream.peer_addr() {
                Ok(_) => {
                    coop::made_progress();
                    return Poll::Ready(Ok(()));
                }
                // Writable but not yet connected (a spurious wake-up):
                // wait for the next event, unless this one already said
                // the socket is closed (no other event would come).
                Err(err)
                    if err.kind() == io::ErrorKind::NotConnected && !event.is_closed_or_error() =>
                {
                    self.io.clear_readiness(event);
                }
                Err(err) => {
                    coop::made_progress();
                    return Poll::Ready(Err(err));
                }
            }
        })
        .await
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
        let io = Registration::new(stream, Interest::READABLE | Interest::WRITABLE)?;
        Ok(TcpStream { io })
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

    /// Splits the stream into a reading and a writing half that borrow it,
    /// to read and write at once (in one task, with `join` or `select`).
    ///
    /// With `futures::io::AsyncReadExt` in scope, `stream.split()` resolves
    /// to that trait's `split` (it takes the stream by value, so method
    /// lookup finds it first) and gives its lock-based halves; write
    /// `TcpStream::split(&mut stream)` for these.
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
    ///     let (mut reader, mut writer) = TcpStream::split(&mut server);
    ///     client.write_all(b"abc").await?;
    ///     let mut buf = [0; 3];
    ///     reader.read_exact(&mut buf).await?;
    ///     writer.write_all(&buf).await?;
    ///     client.read_exact(&mut buf).await?;
    ///     assert_eq!(&buf, b"abc");
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
        let stream = &*self;
        (ReadHalf::new(stream), WriteHalf::new(stream))
    }

    /// Splits the stream into owned halves, to read and write from two
    /// tasks. Dropping the [`OwnedWriteHalf`] closes the write side (the
    /// peer reads end of file); the connection closes when both halves are
    /// gone.
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
    ///     let client = TcpStream::connect(listener.local_addr()?).await?;
    ///     let (mut server, _) = listener.accept().await?;
    ///     let (mut reader, mut writer) = client.into_split();
    ///     let sender = lawn_rt::spawn(async move {
    ///         writer.write_all(b"from another task").await
    ///     }); // the half is dropped when the task ends: FIN
    ///     let mut got = String::new();
    ///     server.read_to_string(&mut got).await?;
    ///     assert_eq!(got, "from another task");
    ///     sender.await.unwrap()?;
    ///     server.write_all(b"bye").await?;
    ///     let mut buf = [0; 3];
    ///     reader.read_exact(&mut buf).await?;
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        let stream = Arc::new(self);
        (
            OwnedReadHalf::new(stream.clone()),
            OwnedWriteHalf::new(stream),
        )
    }

    // The operations behind the `AsyncRead`/`AsyncWrite` impls (of the
    // stream and of its halves): each direction keeps one waiting task.

    pub(crate) fn poll_read_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Read, |mut stream| stream.read(buf))
    }

    pub(crate) fn poll_write_priv(
        &self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |mut stream| stream.write(buf))
    }

    pub(crate) fn poll_write_vectored_priv(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io.poll_io(cx, Direction::Write, |mut stream| {
            stream.write_vectored(bufs)
        })
    }

    /// Sends FIN: the peer reads end of file; this side can still read.
    pub(crate) fn shutdown_write(&self) -> io::Result<()> {
        self.io.get_ref().shutdown(Shutdown::Write)
    }
}

impl fmt::Debug for TcpStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpStream")
            .field("local_addr", &self.local_addr().ok())
            .field("peer_addr", &self.peer_addr().ok())
            .finish_non_exhaustive()
    }
}
