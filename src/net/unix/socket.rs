//! [`UnixSocket`]: a Unix socket made, and bound, before it becomes a
//! stream, a listener or a datagram socket; like `tokio::net::UnixSocket`.
//! Linux and Android (through `rustix`, as `TcpSocket`).

use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, IntoRawFd, OwnedFd, RawFd};
use std::path::Path;

use rustix::net::{self as sys, AddressFamily, SocketFlags, SocketType};

use super::addr;
use super::datagram::UnixDatagram;
use super::listener::UnixListener;
use super::stream::UnixStream;
use crate::runtime::io as driver;

/// A Unix domain socket not yet a [`UnixStream`], [`UnixListener`] or
/// [`UnixDatagram`]: made with [`new_stream`](UnixSocket::new_stream) or
/// [`new_datagram`](UnixSocket::new_datagram) (non-blocking,
/// close-on-exec), optionally [`bind`](UnixSocket::bind)-ed, then turned
/// into one of those; like `tokio::net::UnixSocket`. Dropping it closes
/// the socket.
///
/// # Examples
///
/// A client bound to a name of its own, so the server sees who it is:
///
/// ```
/// use lawn_rt::net::{UnixListener, UnixSocket};
///
/// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-unixsocket-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let listener = UnixSocket::new_stream()?;
///     listener.bind(dir.join("server.sock"))?;
///     let listener: UnixListener = listener.listen(16)?;
///     let client = UnixSocket::new_stream()?;
///     client.bind(dir.join("client.sock"))?;
///     let _stream = client.connect(dir.join("server.sock")).await?;
///     let (_peer, addr) = listener.accept().await?;
///     assert_eq!(addr.as_pathname(), Some(dir.join("client.sock").as_path()));
///     Ok::<_, std::io::Error>(())
/// })?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct UnixSocket {
    fd: OwnedFd,
    ty: SocketType,
}

impl UnixSocket {
    /// A new stream socket (`SOCK_STREAM`): [`listen`](UnixSocket::listen)
    /// or [`connect`](UnixSocket::connect) it next.
    ///
    /// # Errors
    ///
    /// What `socket(2)` reports (out of descriptors, say).
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    pub fn new_stream() -> io::Result<UnixSocket> {
        UnixSocket::new(SocketType::STREAM)
    }

    /// A new datagram socket (`SOCK_DGRAM`): make it a
    /// [`UnixDatagram`] with [`datagram`](UnixSocket::datagram).
    ///
    /// # Errors
    ///
    /// What `socket(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixSocket;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// let socket = UnixSocket::new_datagram()?;
    /// let datagram = socket.datagram()?;
    /// assert!(datagram.local_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new_datagram() -> io::Result<UnixSocket> {
        UnixSocket::new(SocketType::DGRAM)
    }

    fn new(ty: SocketType) -> io::Result<UnixSocket> {
        let flags = SocketFlags::NONBLOCK | SocketFlags::CLOEXEC;
        let fd = sys::socket_with(AddressFamily::UNIX, ty, flags, None)?;
        Ok(UnixSocket { fd, ty })
    }

    /// Binds the socket to `path` (on Linux and Android, a path that
    /// starts with a NUL byte names an abstract socket), as
    /// [`UnixListener::bind`] checks it.
    ///
    /// # Errors
    ///
    /// `InvalidInput` for a path too long for `sockaddr_un`; what
    /// `bind(2)` reports (`AddrInUse` if the file exists, say).
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    pub fn bind(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let addr = addr::rustix_addr(path.as_ref())?;
        Ok(sys::bind(&self.fd, &addr)?)
    }

    /// Listens for connections (at most `backlog` waiting to be accepted)
    /// and registers the listener with the runtime entered here.
    ///
    /// # Errors
    ///
    /// On a datagram socket (kind `Other`, as tokio's); what `listen(2)`
    /// reports.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled (the message names the
    /// caller's line).
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    #[track_caller]
    pub fn listen(self, backlog: u32) -> io::Result<UnixListener> {
        self.must_be(SocketType::STREAM, "listen")?;
        sys::listen(&self.fd, i32::try_from(backlog).unwrap_or(i32::MAX))?;
        UnixListener::from_std(std::os::unix::net::UnixListener::from(self.fd))
    }

    /// Connects to the listener at `path` and waits until connected.
    ///
    /// # Errors
    ///
    /// On a datagram socket (kind `Other`); what `connect(2)` reports
    /// (`ConnectionRefused` if nothing listens there, `WouldBlock` if its
    /// backlog is full).
    ///
    /// # Panics
    ///
    /// When first polled outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`UnixSocket`].
    pub async fn connect(self, path: impl AsRef<Path>) -> io::Result<UnixStream> {
        self.must_be(SocketType::STREAM, "connect")?;
        let driver = driver::current();
        let addr = addr::rustix_addr(path.as_ref())?;
        match sys::connect(&self.fd, &addr) {
            Ok(()) | Err(rustix::io::Errno::INPROGRESS) => {}
            Err(err) => return Err(err.into()),
        }
        let stream = std::os::unix::net::UnixStream::from(self.fd);
        UnixStream::connect_mio(driver, mio::net::UnixStream::from_std(stream)).await
    }

    /// The socket as a [`UnixDatagram`], registered with the runtime
    /// entered here.
    ///
    /// # Errors
    ///
    /// On a stream socket (kind `Other`, as tokio's).
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled (the message names the
    /// caller's line).
    ///
    /// # Examples
    ///
    /// See [`new_datagram`](UnixSocket::new_datagram).
    #[track_caller]
    pub fn datagram(self) -> io::Result<UnixDatagram> {
        self.must_be(SocketType::DGRAM, "datagram")?;
        UnixDatagram::from_std(std::os::unix::net::UnixDatagram::from(self.fd))
    }

    /// An error unless the socket is of type `ty`, for `call`.
    fn must_be(&self, ty: SocketType, call: &str) -> io::Result<()> {
        if self.ty == ty {
            return Ok(());
        }
        let kind = if self.ty == SocketType::DGRAM {
            "a datagram"
        } else {
            "a stream"
        };
        // tokio's words exactly: ported tests compare the whole message.
        Err(io::Error::other(format!(
            "{call} cannot be called on {kind} socket"
        )))
    }
}

impl AsRawFd for UnixSocket {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl AsFd for UnixSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl IntoRawFd for UnixSocket {
    fn into_raw_fd(self) -> RawFd {
        self.fd.into_raw_fd()
    }
}

impl From<UnixSocket> for OwnedFd {
    fn from(socket: UnixSocket) -> OwnedFd {
        socket.fd
    }
}

impl fmt::Debug for UnixSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnixSocket")
            .field("fd", &self.fd.as_raw_fd())
            .field("stream", &(self.ty == SocketType::STREAM))
            .finish()
    }
}
