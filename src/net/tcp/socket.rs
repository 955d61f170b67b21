//! [`TcpSocket`] (Linux and Android: `std` cannot make a socket without
//! binding or connecting it, so this one is made and configured through
//! rustix's safe `socket`, `setsockopt`, `bind`, `listen` and `connect`).

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};

use rustix::net::{self as sys, sockopt, AddressFamily, SocketFlags, SocketType};

use super::listener::TcpListener;
use super::stream::TcpStream;
use crate::runtime::io as driver;

/// A TCP socket not yet listening or connected, to set options on first
/// (`SO_REUSEADDR`, `SO_REUSEPORT`, buffer sizes, the listen backlog) and
/// then turn into a [`TcpListener`] ([`listen`](Self::listen)) or a
/// [`TcpStream`] ([`connect`](Self::connect)); like
/// `tokio::net::TcpSocket`. Linux and Android only.
///
/// Unlike [`TcpListener::bind`], which sets `SO_REUSEADDR`, a new socket
/// has the system's defaults: set what you need.
///
/// Making and configuring a socket needs no runtime; `listen` and
/// `connect` register it with the runtime's I/O driver.
///
/// # Examples
///
/// ```
/// use lawn_rt::net::{TcpSocket, TcpStream};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let socket = TcpSocket::new_v4()?;
///     socket.set_reuseaddr(true)?;
///     socket.bind("127.0.0.1:0".parse().unwrap())?;
///     let listener = socket.listen(1024)?;
///     let client = TcpStream::connect(listener.local_addr()?).await?;
///     let (_server, peer) = listener.accept().await?;
///     assert_eq!(peer, client.local_addr()?);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct TcpSocket {
    fd: OwnedFd,
}

impl TcpSocket {
    /// A new IPv4 TCP socket (`socket(2)` with `AF_INET`, non-blocking,
    /// close-on-exec).
    ///
    /// # Errors
    ///
    /// What `socket(2)` reports (too many open files, say).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// assert!(socket.local_addr()?.is_ipv4()); // 0.0.0.0:0 until bound
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new_v4() -> io::Result<TcpSocket> {
        TcpSocket::new(AddressFamily::INET)
    }

    /// A new IPv6 TCP socket (`socket(2)` with `AF_INET6`, non-blocking,
    /// close-on-exec).
    ///
    /// # Errors
    ///
    /// What `socket(2)` reports (`EAFNOSUPPORT` on a system without IPv6,
    /// say).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v6()?;
    /// assert!(socket.local_addr()?.is_ipv6()); // [::]:0 until bound
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new_v6() -> io::Result<TcpSocket> {
        TcpSocket::new(AddressFamily::INET6)
    }

    fn new(family: AddressFamily) -> io::Result<TcpSocket> {
        let flags = SocketFlags::NONBLOCK | SocketFlags::CLOEXEC;
        let fd = sys::socket_with(family, SocketType::STREAM, flags, Some(sys::ipproto::TCP))?;
        Ok(TcpSocket { fd })
    }

    /// A socket made from a `std` stream that is not connected yet (made
    /// with another library, with options this type does not set). It is
    /// made non-blocking when it listens or connects.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// // A socket `std` made for us (a connected one would fail to listen).
    /// let std_stream: std::net::TcpStream = std::os::fd::OwnedFd::from(TcpSocket::new_v4()?).into();
    /// let socket = TcpSocket::from_std_stream(std_stream);
    /// socket.bind("127.0.0.1:0".parse().unwrap())?;
    /// assert_ne!(socket.local_addr()?.port(), 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn from_std_stream(std_stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket {
            fd: OwnedFd::from(std_stream),
        }
    }

    /// Sets `SO_LINGER`: how long a close waits to send what is still
    /// buffered (`None`, the default: the close returns at once; whole
    /// seconds). Deprecated as tokio's is: a non-zero linger makes the
    /// close in the stream's drop block the thread; see
    /// [`set_zero_linger`](Self::set_zero_linger).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// let socket = lawn_rt::net::TcpSocket::new_v4()?;
    /// socket.set_linger(None)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[deprecated = "`SO_LINGER` makes the stream's drop block the thread; see `set_zero_linger`"]
    pub fn set_linger(&self, linger: Option<std::time::Duration>) -> io::Result<()> {
        Ok(sockopt::set_socket_linger(&self.fd, linger)?)
    }

    /// Sets `SO_LINGER` to zero: a close then resets the connection at
    /// once, discarding what is unsent.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// See [`linger`](Self::linger).
    pub fn set_zero_linger(&self) -> io::Result<()> {
        Ok(sockopt::set_socket_linger(
            &self.fd,
            Some(std::time::Duration::ZERO),
        )?)
    }

    /// `SO_LINGER`: `None` (the default) or the linger set.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let socket = lawn_rt::net::TcpSocket::new_v4()?;
    /// assert_eq!(socket.linger()?, None);
    /// socket.set_zero_linger()?;
    /// assert_eq!(socket.linger()?, Some(Duration::ZERO));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn linger(&self) -> io::Result<Option<std::time::Duration>> {
        Ok(sockopt::socket_linger(&self.fd)?)
    }

    /// Sets `SO_REUSEADDR`: with `true`, the socket may bind a local
    /// address that connections of an earlier socket still hold (in
    /// `TIME_WAIT` after a close), so a restarted server binds its port
    /// at once. It does not let two sockets listen on one port (that is
    /// [`set_reuseport`](Self::set_reuseport)). Set it before
    /// [`bind`](Self::bind).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// socket.set_reuseaddr(true)?;
    /// assert!(socket.reuseaddr()?);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_reuseaddr(&self, reuseaddr: bool) -> io::Result<()> {
        Ok(sockopt::set_socket_reuseaddr(&self.fd, reuseaddr)?)
    }

    /// Whether `SO_REUSEADDR` is set; see
    /// [`set_reuseaddr`](Self::set_reuseaddr).
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// assert!(!TcpSocket::new_v4()?.reuseaddr()?); // the system default
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn reuseaddr(&self) -> io::Result<bool> {
        Ok(sockopt::socket_reuseaddr(&self.fd)?)
    }

    /// Sets `SO_REUSEPORT`: sockets of one user that all set it may bind
    /// (and listen on) the same address and port; the system spreads
    /// incoming connections over them. Set it before
    /// [`bind`](Self::bind).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let first = TcpSocket::new_v4()?;
    /// first.set_reuseport(true)?;
    /// first.bind("127.0.0.1:0".parse().unwrap())?;
    /// let addr = first.local_addr()?;
    /// let second = TcpSocket::new_v4()?;
    /// second.set_reuseport(true)?;
    /// second.bind(addr)?; // the same port
    /// let (_a, _b) = (first.listen(128)?, second.listen(128)?);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_reuseport(&self, reuseport: bool) -> io::Result<()> {
        Ok(sockopt::set_socket_reuseport(&self.fd, reuseport)?)
    }

    /// Whether `SO_REUSEPORT` is set; see
    /// [`set_reuseport`](Self::set_reuseport).
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// assert!(!socket.reuseport()?);
    /// socket.set_reuseport(true)?;
    /// assert!(socket.reuseport()?);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn reuseport(&self) -> io::Result<bool> {
        Ok(sockopt::socket_reuseport(&self.fd)?)
    }

    /// Sets `TCP_NODELAY` for the connection this socket makes: with
    /// `true`, small writes go out at once instead of waiting to be
    /// coalesced (Nagle's algorithm).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// socket.set_nodelay(true)?;
    /// assert!(socket.nodelay()?);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        Ok(sockopt::set_tcp_nodelay(&self.fd, nodelay)?)
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
    /// use lawn_rt::net::TcpSocket;
    ///
    /// assert!(!TcpSocket::new_v4()?.nodelay()?); // the system default
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn nodelay(&self) -> io::Result<bool> {
        Ok(sockopt::tcp_nodelay(&self.fd)?)
    }

    /// Sets `SO_KEEPALIVE`: with `true`, the system probes an idle
    /// connection and reports it broken if the peer stops answering.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// socket.set_keepalive(true)?;
    /// assert!(socket.keepalive()?);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_keepalive(&self, keepalive: bool) -> io::Result<()> {
        Ok(sockopt::set_socket_keepalive(&self.fd, keepalive)?)
    }

    /// Whether `SO_KEEPALIVE` is set; see
    /// [`set_keepalive`](Self::set_keepalive).
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// assert!(!TcpSocket::new_v4()?.keepalive()?); // the system default
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn keepalive(&self) -> io::Result<bool> {
        Ok(sockopt::socket_keepalive(&self.fd)?)
    }

    /// Asks for a send buffer of `size` bytes (`SO_SNDBUF`). The system
    /// may adjust it: Linux doubles it (for its bookkeeping) and keeps it
    /// within its limits; read back what it chose with
    /// [`send_buffer_size`](Self::send_buffer_size).
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// socket.set_send_buffer_size(64 * 1024)?;
    /// assert!(socket.send_buffer_size()? >= 64 * 1024);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_send_buffer_size(&self, size: u32) -> io::Result<()> {
        Ok(sockopt::set_socket_send_buffer_size(&self.fd, widen(size))?)
    }

    /// The send buffer size (`SO_SNDBUF`), as the system set it.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// assert!(TcpSocket::new_v4()?.send_buffer_size()? > 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn send_buffer_size(&self) -> io::Result<u32> {
        Ok(narrow(sockopt::socket_send_buffer_size(&self.fd)?))
    }

    /// Asks for a receive buffer of `size` bytes (`SO_RCVBUF`); the
    /// system may adjust it, as with
    /// [`set_send_buffer_size`](Self::set_send_buffer_size). Set it
    /// before connecting or listening: the TCP window is negotiated then.
    ///
    /// # Errors
    ///
    /// What `setsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// socket.set_recv_buffer_size(64 * 1024)?;
    /// assert!(socket.recv_buffer_size()? >= 64 * 1024);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn set_recv_buffer_size(&self, size: u32) -> io::Result<()> {
        Ok(sockopt::set_socket_recv_buffer_size(&self.fd, widen(size))?)
    }

    /// The receive buffer size (`SO_RCVBUF`), as the system set it.
    ///
    /// # Errors
    ///
    /// What `getsockopt(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// assert!(TcpSocket::new_v4()?.recv_buffer_size()? > 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn recv_buffer_size(&self) -> io::Result<u32> {
        Ok(narrow(sockopt::socket_recv_buffer_size(&self.fd)?))
    }

    /// The address the socket is bound to (the unspecified address and
    /// port 0 before [`bind`](Self::bind), unless a connect bound it).
    ///
    /// # Errors
    ///
    /// What `getsockname(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let socket = TcpSocket::new_v4()?;
    /// socket.bind("127.0.0.1:0".parse().unwrap())?;
    /// let addr = socket.local_addr()?;
    /// assert!(addr.ip().is_loopback());
    /// assert_ne!(addr.port(), 0); // the system picked one
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(SocketAddr::try_from(sys::getsockname(&self.fd)?)?)
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
    /// use lawn_rt::net::TcpSocket;
    ///
    /// assert!(TcpSocket::new_v4()?.take_error()?.is_none());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn take_error(&self) -> io::Result<Option<io::Error>> {
        Ok(sockopt::socket_error(&self.fd)?.err().map(io::Error::from))
    }

    /// Binds the socket to `addr` (port 0: the system picks a free one).
    ///
    /// # Errors
    ///
    /// `AddrInUse` if another socket holds the address (see
    /// [`set_reuseaddr`](Self::set_reuseaddr) and
    /// [`set_reuseport`](Self::set_reuseport)), `AddrNotAvailable` for an
    /// address of no local interface, `PermissionDenied` for a privileged
    /// port, `InvalidInput` if the socket is already bound or `addr` is of
    /// the other IP version.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::TcpSocket;
    ///
    /// let holder = std::net::TcpListener::bind("127.0.0.1:0")?;
    /// let socket = TcpSocket::new_v4()?;
    /// let taken = socket.bind(holder.local_addr()?).unwrap_err();
    /// assert_eq!(taken.kind(), std::io::ErrorKind::AddrInUse);
    /// socket.bind("127.0.0.1:0".parse().unwrap())?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn bind(&self, addr: SocketAddr) -> io::Result<()> {
        Ok(sys::bind(&self.fd, &addr)?)
    }

    /// Turns the socket into a listener (`listen(2)`), registered with
    /// this runtime's I/O driver. `backlog` bounds the connections the
    /// system queues until they are accepted (it caps it further, at
    /// `net.core.somaxconn` on Linux); beyond it, new ones are refused or
    /// wait.
    ///
    /// An unbound socket listens on a port the system picks, on every
    /// interface.
    ///
    /// # Errors
    ///
    /// What `listen(2)` reports (`AddrInUse` if another socket listens on
    /// the same port, say); or if the socket cannot be registered.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::{TcpSocket, TcpStream};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let socket = TcpSocket::new_v4()?;
    ///     socket.bind("127.0.0.1:0".parse().unwrap())?;
    ///     let listener = socket.listen(16)?;
    ///     let _client = TcpStream::connect(listener.local_addr()?).await?;
    ///     listener.accept().await?;
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        sys::listen(&self.fd, i32::try_from(backlog).unwrap_or(i32::MAX))?;
        TcpListener::from_std(std::net::TcpListener::from(self.fd))
    }

    /// Connects the socket to `addr` and gives the stream, registered
    /// with this runtime's I/O driver, once the connection is made.
    ///
    /// # Errors
    ///
    /// `ConnectionRefused` when nothing listens there (reported as soon
    /// as the peer's reset arrives), `TimedOut` or `HostUnreachable` from
    /// the network, what else `connect(2)` reports. Wrap the call in
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
    /// use lawn_rt::net::{TcpListener, TcpSocket};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let listener = TcpListener::bind("127.0.0.1:0").await?;
    ///     let socket = TcpSocket::new_v4()?;
    ///     socket.set_nodelay(true)?;
    ///     let stream = socket.connect(listener.local_addr()?).await?;
    ///     assert!(stream.nodelay()?);
    ///     assert_eq!(stream.peer_addr()?, listener.local_addr()?);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        let driver = driver::current();
        let stream = std::net::TcpStream::from(self.fd);
        stream.set_nonblocking(true)?;
        match sys::connect(&stream, &addr) {
            Ok(()) | Err(rustix::io::Errno::INPROGRESS) => {}
            Err(err) => return Err(err.into()),
        }
        TcpStream::connect_mio(driver, mio::net::TcpStream::from_std(stream)).await
    }
}

/// A buffer size for `setsockopt`.
fn widen(size: u32) -> usize {
    usize::try_from(size).unwrap_or(usize::MAX)
}

/// A buffer size from `getsockopt` (which never exceeds `i32::MAX`).
fn narrow(size: usize) -> u32 {
    u32::try_from(size).unwrap_or(u32::MAX)
}

impl From<TcpSocket> for OwnedFd {
    fn from(socket: TcpSocket) -> OwnedFd {
        socket.fd
    }
}

impl AsRawFd for TcpSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl AsFd for TcpSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl fmt::Debug for TcpSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TcpSocket")
            .field("fd", &self.fd.as_raw_fd())
            .field("local_addr", &self.local_addr().ok())
            .finish()
    }
}

crate::net::ops::traffic_class!(
    TcpSocket,
    |this| &this.fd,
    example: "use lawn_rt::net::TcpSocket;

let rt = lawn_rt::runtime::Runtime::new()?;
let _guard = rt.enter();
let v4 = TcpSocket::new_v4()?;
v4.set_tos_v4(0x10)?;
assert_eq!(v4.tos_v4()?, 0x10);
if let Ok(v6) = TcpSocket::new_v6() {
    v6.set_tclass_v6(0x20)?;
    assert_eq!(v6.tclass_v6()?, 0x20);
} // else: no IPv6 on this machine
# Ok::<(), std::io::Error>(())"
);
