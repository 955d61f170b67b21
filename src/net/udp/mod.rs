//! [`UdpSocket`].

mod nonblocking;
mod options;

use std::io;
use std::net::SocketAddr;

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
