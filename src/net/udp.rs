//! [`UdpSocket`].

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

use mio::Interest;

use crate::net::addr::{self, ToSocketAddrs};
use crate::runtime::io::{self as driver, Direction, Registration};

/// A UDP socket; like `tokio::net::UdpSocket`.
///
/// Every operation takes `&self`, so one socket can be shared (in an
/// `Arc`) by several tasks: say one receiving and one sending. Each
/// waiting task is woken when the socket becomes ready. Besides the
/// `async` operations there are non-blocking ones
/// ([`try_send`](Self::try_send), [`try_recv`](Self::try_recv)) to use
/// with [`writable`](Self::writable) and [`readable`](Self::readable).
///
/// # Examples
///
/// ```
/// use lawn_rt::net::UdpSocket;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let a = UdpSocket::bind("127.0.0.1:0").await?;
///     let b = UdpSocket::bind("127.0.0.1:0").await?;
///     a.send_to(b"ping", b.local_addr()?).await?;
///     let mut buf = [0; 16];
///     let (n, from) = b.recv_from(&mut buf).await?;
///     assert_eq!((&buf[..n], from), (&b"ping"[..], a.local_addr()?));
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct UdpSocket {
    io: Registration<mio::net::UdpSocket>,
}

impl UdpSocket {
    /// Binds a socket to `addr`: trying each address it resolves to in
    /// turn, the first that binds, registered with this runtime's I/O
    /// driver.
    ///
    /// # Errors
    ///
    /// The last address's error if none binds (`AddrInUse`,
    /// `AddrNotAvailable`, ...); `InvalidInput` if `addr` resolves to
    /// nothing.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = UdpSocket::bind("127.0.0.1:0").await?;
    ///     assert_ne!(socket.local_addr()?.port(), 0);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        let lookup = addr.lookup();
        let driver = driver::current();
        let addrs = addr::resolve(lookup).await?;
        addr::each(addrs, |addr| {
            let driver = driver.clone();
            async move {
                let socket = mio::net::UdpSocket::bind(addr)?;
                let interest = Interest::READABLE | Interest::WRITABLE;
                let io = Registration::with_driver(driver, socket, interest)?;
                Ok(UdpSocket { io })
            }
        })
        .await
    }

    /// A socket made from a `std` one (set to non-blocking here),
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
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let std_socket = std::net::UdpSocket::bind("127.0.0.1:0")?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let socket = UdpSocket::from_std(std_socket)?;
    /// assert!(socket.local_addr()?.ip().is_loopback());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        socket.set_nonblocking(true)?;
        let socket = mio::net::UdpSocket::from_std(socket);
        let io = Registration::new(socket, Interest::READABLE | Interest::WRITABLE)?;
        Ok(UdpSocket { io })
    }

    /// Connects the socket to `addr` (the first address that works): then
    /// [`send`](Self::send) goes there, [`recv`](Self::recv) takes
    /// datagrams from there only, and an ICMP "port unreachable" for an
    /// earlier datagram shows as a `ConnectionRefused` error.
    ///
    /// # Errors
    ///
    /// The last address's error if none works; `InvalidInput` if `addr`
    /// resolves to nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.connect(b.local_addr()?).await?;
    ///     assert_eq!(a.peer_addr()?, b.local_addr()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn connect<A: ToSocketAddrs>(&self, addr: A) -> io::Result<()> {
        let addrs = addr::resolve(addr.lookup()).await?;
        addr::each(addrs, |addr| async move { self.io.get_ref().connect(addr) }).await
    }

    /// Sends `buf` as one datagram to `target` (its first address);
    /// returns how many bytes were sent.
    ///
    /// # Errors
    ///
    /// What `sendto(2)` reports; `InvalidInput` if `target` resolves to
    /// nothing.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it has not completed, nothing was sent.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     assert_eq!(a.send_to(b"hi", b.local_addr()?).await?, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn send_to<A: ToSocketAddrs>(&self, buf: &[u8], target: A) -> io::Result<usize> {
        let target = addr::first(target.lookup()).await?;
        self.io
            .async_io(Direction::Write, |socket| socket.send_to(buf, target))
            .await
    }

    /// Waits for a datagram and copies it into `buf` (the rest of a
    /// datagram longer than `buf` is lost); returns its length and sender.
    ///
    /// # Errors
    ///
    /// What `recvfrom(2)` reports.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it has not completed, no datagram was taken.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.send_to(b"ping", b.local_addr()?).await?;
    ///     let mut buf = [0; 16];
    ///     let (n, from) = b.recv_from(&mut buf).await?;
    ///     assert_eq!((n, from), (4, a.local_addr()?));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .async_io(Direction::Read, |socket| socket.recv_from(buf))
            .await
    }

    /// The address the socket is bound to.
    ///
    /// # Errors
    ///
    /// What `getsockname(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let addr = rt.block_on(async { UdpSocket::bind("127.0.0.1:0").await?.local_addr() })?;
    /// assert!(addr.ip().is_loopback());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr()
    }

    /// The address the socket is connected to.
    ///
    /// # Errors
    ///
    /// `NotConnected` before [`connect`](Self::connect).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let err = socket.peer_addr().unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::NotConnected);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr()
    }
}

/// Non-blocking and peeking operations, the socket's conversion back to
/// std, and its options; like tokio's.
impl UdpSocket {
    /// Sends `buf` to `target` if the socket can send now, without
    /// waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if it cannot (which clears the write readiness, so
    /// [`writable`](Self::writable) waits for room); what `sendto(2)`
    /// reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.writable().await?;
    ///     assert_eq!(a.try_send_to(b"hi", b.local_addr()?)?, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_send_to(&self, buf: &[u8], target: SocketAddr) -> io::Result<usize> {
        self.io
            .try_io(Direction::Write, |socket| socket.send_to(buf, target))
    }

    /// Takes a datagram that has arrived, without waiting: its length and
    /// sender.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none has (which clears the read readiness, so
    /// [`readable`](Self::readable) waits for one); what `recvfrom(2)`
    /// reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let mut buf = [0; 16];
    ///     assert_eq!(b.try_recv_from(&mut buf).unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
    ///     a.send_to(b"hi", b.local_addr()?).await?;
    ///     b.readable().await?;
    ///     assert_eq!(b.try_recv_from(&mut buf)?, (2, a.local_addr()?));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .try_io(Direction::Read, |socket| socket.recv_from(buf))
    }

    /// [`recv_from`](Self::recv_from) into a `bytes` buffer's spare
    /// capacity (at most 64 KiB, more than a UDP datagram holds), which it
    /// then counts as filled: the datagram's length and sender. With
    /// feature `tokio-io`.
    ///
    /// # Errors
    ///
    /// As [`recv_from`](Self::recv_from).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a datagram is taken only by the poll that returns it.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.send_to(b"ping", b.local_addr()?).await?;
    ///     let mut buf = Vec::with_capacity(1500);
    ///     let (n, from) = b.recv_buf_from(&mut buf).await?;
    ///     assert_eq!((n, from, &buf[..]), (4, a.local_addr()?, &b"ping"[..]));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub async fn recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.io
            .async_io(Direction::Read, |socket| {
                crate::runtime::io::read_into_buf_mut(&mut *buf, |dst| {
                    socket.recv_from(dst).map(|(n, from)| (n, (n, from)))
                })
            })
            .await
    }

    /// [`try_recv_from`](Self::try_recv_from) into a `bytes` buffer, as
    /// [`recv_buf_from`](Self::recv_buf_from) fills it. With feature
    /// `tokio-io`.
    ///
    /// # Errors
    ///
    /// As [`try_recv_from`](Self::try_recv_from).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.send_to(b"ping", b.local_addr()?).await?;
    ///     b.readable().await?;
    ///     let mut buf = Vec::with_capacity(1500);
    ///     assert_eq!(b.try_recv_buf_from(&mut buf)?, (4, a.local_addr()?));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub fn try_recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        self.io.try_io(Direction::Read, |socket| {
            crate::runtime::io::read_into_buf_mut(buf, |dst| {
                socket.recv_from(dst).map(|(n, from)| (n, (n, from)))
            })
        })
    }

    /// Waits for a datagram and copies it into `buf` without taking it:
    /// the next receive gets it again. Its length and sender.
    ///
    /// # Errors
    ///
    /// What `recvfrom(2)` with `MSG_PEEK` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.send_to(b"hi", b.local_addr()?).await?;
    ///     let mut buf = [0; 16];
    ///     assert_eq!(b.peek_from(&mut buf).await?, (2, a.local_addr()?));
    ///     assert_eq!(b.recv_from(&mut buf).await?, (2, a.local_addr()?));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .async_io(Direction::Read, |socket| socket.peek_from(buf))
            .await
    }

    /// [`peek_from`](Self::peek_from) without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if no datagram has arrived (which clears the read
    /// readiness); what `recvfrom(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let mut buf = [0; 16];
    ///     assert_eq!(b.try_peek_from(&mut buf).unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_peek_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        self.io
            .try_io(Direction::Read, |socket| socket.peek_from(buf))
    }

    /// Waits for a datagram from the connected peer and copies it into
    /// `buf` without taking it.
    ///
    /// # Errors
    ///
    /// What `recv(2)` with `MSG_PEEK` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     b.connect(a.local_addr()?).await?;
    ///     a.send_to(b"hi", b.local_addr()?).await?;
    ///     let mut buf = [0; 16];
    ///     assert_eq!(b.peek(&mut buf).await?, 2);
    ///     assert_eq!(b.recv(&mut buf).await?, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io
            .async_io(Direction::Read, |socket| socket.peek(buf))
            .await
    }

    /// [`peek`](Self::peek) without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if no datagram has arrived (which clears the read
    /// readiness); what `recv(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.connect("127.0.0.1:9").await?;
    ///     let mut buf = [0; 16];
    ///     assert_eq!(a.try_peek(&mut buf).unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_peek(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |socket| socket.peek(buf))
    }

    /// Sends `buf` to `target` once the socket can send, as a poll:
    /// `Pending` (the task woken when there is room) until then. Only the
    /// task of the latest poll of a direction is woken; for several
    /// senders, use [`send_to`](Self::send_to).
    ///
    /// # Errors
    ///
    /// What `sendto(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let to = UdpSocket::bind("127.0.0.1:0").await?.local_addr()?;
    ///     let n = std::future::poll_fn(|cx| a.poll_send_to(cx, b"hi", to)).await?;
    ///     assert_eq!(n, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_send_to(
        &self,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
        target: SocketAddr,
    ) -> std::task::Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |socket| socket.send_to(buf, target))
    }

    /// Receives a datagram into `buf` once one has arrived, as a poll:
    /// its sender, with the datagram in `buf`'s filled part (the rest of a
    /// longer one is lost). Only the task of the latest poll is woken; for
    /// several receivers, use [`recv_from`](Self::recv_from). With feature
    /// `tokio-io` (it takes tokio's `ReadBuf`).
    ///
    /// # Errors
    ///
    /// What `recvfrom(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::ReadBuf;
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.send_to(b"ping", b.local_addr()?).await?;
    ///     let mut storage = [0; 16];
    ///     let mut buf = ReadBuf::new(&mut storage);
    ///     let from = std::future::poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await?;
    ///     assert_eq!((buf.filled(), from), (&b"ping"[..], a.local_addr()?));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub fn poll_recv_from(
        &self,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<SocketAddr>> {
        self.io
            .poll_read_buf(cx, buf, |socket, unfilled| socket.recv_from(unfilled))
    }

    /// [`poll_recv_from`](Self::poll_recv_from) without taking the
    /// datagram (the next receive gets it again). With feature `tokio-io`.
    ///
    /// # Errors
    ///
    /// What `recvfrom(2)` with `MSG_PEEK` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::ReadBuf;
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.send_to(b"ping", b.local_addr()?).await?;
    ///     let mut storage = [0; 16];
    ///     let mut buf = ReadBuf::new(&mut storage);
    ///     std::future::poll_fn(|cx| b.poll_peek_from(cx, &mut buf)).await?;
    ///     assert_eq!(buf.filled(), b"ping");
    ///     assert_eq!(b.try_recv_from(&mut [0; 16])?.0, 4); // still there
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub fn poll_peek_from(
        &self,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<SocketAddr>> {
        self.io
            .poll_read_buf(cx, buf, |socket, unfilled| socket.peek_from(unfilled))
    }

    /// [`peek`](Self::peek) as a poll, into `buf`'s unfilled part (the
    /// connected peer's datagram stays for the next receive). Only the task
    /// of the latest read-direction poll is woken. With feature `tokio-io`.
    ///
    /// # Errors
    ///
    /// What `recv(2)` with `MSG_PEEK` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::ReadBuf;
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     b.connect(a.local_addr()?).await?;
    ///     a.send_to(b"ping", b.local_addr()?).await?;
    ///     let mut storage = [0; 16];
    ///     let mut buf = ReadBuf::new(&mut storage);
    ///     std::future::poll_fn(|cx| b.poll_peek(cx, &mut buf)).await?;
    ///     assert_eq!(buf.filled(), b"ping");
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub fn poll_peek(
        &self,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        self.io.poll_read_buf(cx, buf, |socket, unfilled| {
            socket.peek(unfilled).map(|n| (n, ()))
        })
    }

    /// Waits for a datagram and gives its sender, without taking it (a
    /// peek of no bytes).
    ///
    /// # Errors
    ///
    /// What `recvfrom(2)` with `MSG_PEEK` reports.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: it takes nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let a = UdpSocket::bind("127.0.0.1:0").await?;
    ///     let b = UdpSocket::bind("127.0.0.1:0").await?;
    ///     a.send_to(b"ping", b.local_addr()?).await?;
    ///     assert_eq!(b.peek_sender().await?, a.local_addr()?);
    ///     assert_eq!(b.try_peek_sender()?, a.local_addr()?); // still there
    ///     let from = std::future::poll_fn(|cx| b.poll_peek_sender(cx)).await?;
    ///     assert_eq!(from, a.local_addr()?);
    ///     assert_eq!(b.recv_from(&mut [0; 16]).await?, (4, from));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn peek_sender(&self) -> io::Result<SocketAddr> {
        self.io.async_io(Direction::Read, peek_sender_now).await
    }

    /// [`peek_sender`](Self::peek_sender) as a poll. Only the task of the
    /// latest read-direction poll is woken.
    ///
    /// # Errors
    ///
    /// As [`peek_sender`](Self::peek_sender).
    ///
    /// # Examples
    ///
    /// See [`peek_sender`](Self::peek_sender).
    pub fn poll_peek_sender(
        &self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<SocketAddr>> {
        self.io.poll_io(cx, Direction::Read, peek_sender_now)
    }

    /// [`peek_sender`](Self::peek_sender) without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if no datagram is there now; as
    /// [`peek_sender`](Self::peek_sender).
    ///
    /// # Examples
    ///
    /// See [`peek_sender`](Self::peek_sender).
    pub fn try_peek_sender(&self) -> io::Result<SocketAddr> {
        self.io.try_io(Direction::Read, peek_sender_now)
    }

    /// The socket as a `std::net::UdpSocket`, out of the runtime's poll
    /// (still non-blocking: set it blocking if need be).
    ///
    /// # Errors
    ///
    /// If it cannot be taken out of the poll.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let socket = rt.block_on(UdpSocket::bind("127.0.0.1:0"))?;
    /// let std_socket = socket.into_std()?;
    /// std_socket.set_nonblocking(false)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_std(self) -> io::Result<std::net::UdpSocket> {
        self.io.into_inner().map(Into::into)
    }
}

/// The socket's options (`setsockopt(2)`), each with its getter; like
/// tokio's.
impl UdpSocket {
    /// `SO_BROADCAST`: whether datagrams may go to a broadcast address.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use lawn_rt::net::UdpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = UdpSocket::bind("0.0.0.0:0").await?;
    ///     socket.set_broadcast(true)?;
    ///     assert!(socket.broadcast()?);
    ///     socket.set_ttl(42)?;
    ///     assert_eq!(socket.ttl()?, 42);
    ///     socket.set_multicast_ttl_v4(3)?;
    ///     assert_eq!(socket.multicast_ttl_v4()?, 3);
    ///     socket.set_multicast_loop_v4(false)?;
    ///     assert!(!socket.multicast_loop_v4()?);
    ///     let group = Ipv4Addr::new(239, 1, 2, 3);
    ///     if socket.join_multicast_v4(group, Ipv4Addr::LOCALHOST).is_ok() {
    ///         socket.leave_multicast_v4(group, Ipv4Addr::LOCALHOST)?;
    ///     } // else: no multicast on this machine's loopback
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn broadcast(&self) -> io::Result<bool> {
        self.io.get_ref().broadcast()
    }

    /// Sets `SO_BROADCAST`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_broadcast(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_broadcast(on)
    }

    /// `IP_TTL`: the time-to-live of outgoing datagrams.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
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
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_ttl(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_ttl(ttl)
    }

    /// `IP_MULTICAST_LOOP`: whether this host's own IPv4 multicast comes
    /// back to it.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn multicast_loop_v4(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v4()
    }

    /// Sets `IP_MULTICAST_LOOP`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_multicast_loop_v4(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v4(on)
    }

    /// `IP_MULTICAST_TTL`: the time-to-live of outgoing IPv4 multicast.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn multicast_ttl_v4(&self) -> io::Result<u32> {
        self.io.get_ref().multicast_ttl_v4()
    }

    /// Sets `IP_MULTICAST_TTL`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn set_multicast_ttl_v4(&self, ttl: u32) -> io::Result<()> {
        self.io.get_ref().set_multicast_ttl_v4(ttl)
    }

    /// `IPV6_MULTICAST_LOOP`: whether this host's own IPv6 multicast comes
    /// back to it.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports (an IPv4 socket has no such option).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = lawn_rt::net::UdpSocket::bind("[::1]:0").await?;
    ///     socket.set_multicast_loop_v6(false)?;
    ///     assert!(!socket.multicast_loop_v6()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn multicast_loop_v6(&self) -> io::Result<bool> {
        self.io.get_ref().multicast_loop_v6()
    }

    /// Sets `IPV6_MULTICAST_LOOP`.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`multicast_loop_v6`](Self::multicast_loop_v6).
    pub fn set_multicast_loop_v6(&self, on: bool) -> io::Result<()> {
        self.io.get_ref().set_multicast_loop_v6(on)
    }

    /// Joins the IPv4 multicast group `group` on the interface with
    /// address `interface` (`UNSPECIFIED`: the system's choice).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports (no multicast route, say).
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn join_multicast_v4(&self, group: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().join_multicast_v4(&group, &interface)
    }

    /// Leaves an IPv4 multicast group joined with
    /// [`join_multicast_v4`](Self::join_multicast_v4).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`broadcast`](Self::broadcast), which sets each IPv4 option.
    pub fn leave_multicast_v4(&self, group: Ipv4Addr, interface: Ipv4Addr) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v4(&group, &interface)
    }

    /// Joins the IPv6 multicast group `group` on interface number
    /// `interface` (0: the system's choice).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::net::Ipv6Addr;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = lawn_rt::net::UdpSocket::bind("[::]:0").await?;
    ///     let group = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, 0x1234);
    ///     if socket.join_multicast_v6(&group, 0).is_ok() {
    ///         socket.leave_multicast_v6(&group, 0)?;
    ///     } // else: no IPv6 multicast route on this machine
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn join_multicast_v6(&self, group: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().join_multicast_v6(group, interface)
    }

    /// Leaves an IPv6 multicast group joined with
    /// [`join_multicast_v6`](Self::join_multicast_v6).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`join_multicast_v6`](Self::join_multicast_v6).
    pub fn leave_multicast_v6(&self, group: &Ipv6Addr, interface: u32) -> io::Result<()> {
        self.io.get_ref().leave_multicast_v6(group, interface)
    }
}

crate::net::ops::socket_traits!(UdpSocket(std::net::UdpSocket): local_addr);

crate::net::datagram::datagram_api! {
    UdpSocket,
    uses: "use lawn_rt::net::UdpSocket;",
    pair: "{
        let a = UdpSocket::bind(\"127.0.0.1:0\").await?;
        let b = UdpSocket::bind(\"127.0.0.1:0\").await?;
        a.connect(b.local_addr()?).await?;
        b.connect(a.local_addr()?).await?;
        (a, b)
    }",
}

#[cfg(any(target_os = "linux", target_os = "android"))]
crate::net::ops::traffic_class!(
    UdpSocket,
    |this| this.io.get_ref(),
    example: "let rt = lawn_rt::runtime::Runtime::new()?;
rt.block_on(async {
    let v4 = lawn_rt::net::UdpSocket::bind(\"127.0.0.1:0\").await?;
    v4.set_tos_v4(0x10)?;
    assert_eq!(v4.tos_v4()?, 0x10);
    v4.set_tos_v4(0x110)?; // the low byte is kept, as the kernel keeps it
    assert_eq!(v4.tos_v4()?, 0x10);
    if let Ok(v6) = lawn_rt::net::UdpSocket::bind(\"[::1]:0\").await {
        v6.set_tclass_v6(0x20)?;
        assert_eq!(v6.tclass_v6()?, 0x20);
    } // else: no IPv6 on this machine
    Ok::<_, std::io::Error>(())
})?;
# Ok::<(), std::io::Error>(())"
);

/// The sender of the datagram at the head of the queue, left there: a
/// peek of no bytes.
fn peek_sender_now(socket: &mio::net::UdpSocket) -> io::Result<SocketAddr> {
    socket.peek_from(&mut []).map(|(_, from)| from)
}
