//! [`UnixDatagram`].

use std::io;
use std::net::Shutdown;
use std::path::Path;

use mio::Interest;

use super::addr::{self, SocketAddr};
use crate::runtime::io::{self as driver, Direction, Driver, Ready, Registration};

/// A Unix datagram socket; like `tokio::net::UnixDatagram`.
///
/// Datagrams keep their boundaries and, unlike UDP's, are never lost or
/// reordered on the way: a sender waits while the receiver's queue is
/// full. Every operation takes `&self`, so one socket can be shared (in
/// an `Arc`) by several tasks; each waiting task is woken when the socket
/// becomes ready.
///
/// A socket bound to a path leaves its file there when dropped, as
/// [`UnixListener`](crate::net::UnixListener) does: remove it before binding
/// the path again.
///
/// # Examples
///
/// ```
/// use lawn_rt::net::UnixDatagram;
///
/// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-dgram-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let server_path = dir.join("server.sock");
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let server = UnixDatagram::bind(&server_path)?;
///     let client = UnixDatagram::bind(dir.join("client.sock"))?;
///     client.send_to(b"ping", &server_path).await?;
///     let mut buf = [0; 16];
///     let (n, from) = server.recv_from(&mut buf).await?;
///     server.send_to(&buf[..n], from.as_pathname().unwrap()).await?; // echo
///     let n = client.recv(&mut buf).await?;
///     assert_eq!(&buf[..n], b"ping");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct UnixDatagram {
    io: Registration<mio::net::UnixDatagram>,
}

impl UnixDatagram {
    fn registered(
        driver: std::sync::Arc<Driver>,
        socket: mio::net::UnixDatagram,
    ) -> io::Result<UnixDatagram> {
        let io =
            Registration::with_driver(driver, socket, Interest::READABLE | Interest::WRITABLE)?;
        Ok(UnixDatagram { io })
    }

    /// A socket bound to `path` (creating the socket file; on Linux and
    /// Android a path that starts with a NUL byte names an abstract
    /// socket instead, with no file), registered with this runtime's I/O
    /// driver.
    ///
    /// # Errors
    ///
    /// `AddrInUse` if something exists at the path; `NotFound` if its
    /// directory does not exist; `PermissionDenied`; `InvalidInput` if
    /// the path does not fit in `sun_path` (the message says the limit).
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled (before anything is
    /// created at the path).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-dbind-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("bound.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let socket = UnixDatagram::bind(&path)?;
    /// assert_eq!(socket.local_addr()?.as_pathname(), Some(path.as_path()));
    /// let taken = UnixDatagram::bind(&path).unwrap_err();
    /// assert_eq!(taken.kind(), std::io::ErrorKind::AddrInUse);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn bind<P: AsRef<Path>>(path: P) -> io::Result<UnixDatagram> {
        let driver = driver::current();
        let addr = addr::socket_addr(path.as_ref())?;
        UnixDatagram::registered(driver, mio::net::UnixDatagram::bind_addr(&addr)?)
    }

    /// A socket bound to no address: it can send (to a path, or after
    /// [`connect`](Self::connect)), and receive replies only through a
    /// connection, since no one can address it.
    ///
    /// # Errors
    ///
    /// What `socket(2)` reports (too many open files, say), or if the
    /// socket cannot be registered.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-unbound-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("inbox.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let inbox = UnixDatagram::bind(&path)?;
    ///     let sender = UnixDatagram::unbound()?;
    ///     sender.send_to(b"note", &path).await?;
    ///     let mut buf = [0; 16];
    ///     let (n, from) = inbox.recv_from(&mut buf).await?;
    ///     assert_eq!(&buf[..n], b"note");
    ///     assert!(from.is_unnamed()); // no address to reply to
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn unbound() -> io::Result<UnixDatagram> {
        let driver = driver::current();
        UnixDatagram::registered(driver, mio::net::UnixDatagram::unbound()?)
    }

    /// Two unnamed sockets connected to each other (`socketpair(2)`),
    /// registered with this runtime's I/O driver.
    ///
    /// # Errors
    ///
    /// What `socketpair(2)` reports, or if the sockets cannot be
    /// registered.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, b) = UnixDatagram::pair()?;
    ///     a.send(b"one").await?;
    ///     a.send(b"two").await?;
    ///     let mut buf = [0; 16];
    ///     assert_eq!(b.recv(&mut buf).await?, 3); // boundaries are kept
    ///     assert_eq!(b.recv(&mut buf).await?, 3);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn pair() -> io::Result<(UnixDatagram, UnixDatagram)> {
        let driver = driver::current();
        let (a, b) = mio::net::UnixDatagram::pair()?;
        let (a, b) = (
            UnixDatagram::registered(driver.clone(), a)?,
            UnixDatagram::registered(driver, b)?,
        );
        // Empty buffers: writable now, readable once the peer sends.
        a.io.assume_ready(Ready::WRITABLE);
        b.io.assume_ready(Ready::WRITABLE);
        Ok((a, b))
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
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let (std_a, _std_b) = std::os::unix::net::UnixDatagram::pair()?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let a = UnixDatagram::from_std(std_a)?;
    /// assert!(a.local_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn from_std(socket: std::os::unix::net::UnixDatagram) -> io::Result<UnixDatagram> {
        socket.set_nonblocking(true)?;
        let driver = driver::current();
        UnixDatagram::registered(driver, mio::net::UnixDatagram::from_std(socket))
    }

    /// The `std` socket of this one, deregistered from the runtime; still
    /// non-blocking (call `set_nonblocking(false)` for blocking use).
    ///
    /// # Errors
    ///
    /// If the socket cannot be deregistered.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let (a, b) = rt.block_on(async { UnixDatagram::pair() })?;
    /// let (a, b) = (a.into_std()?, b.into_std()?);
    /// b.set_nonblocking(false)?;
    /// a.send(b"plain")?;
    /// assert_eq!(b.recv(&mut [0; 8])?, 5);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn into_std(self) -> io::Result<std::os::unix::net::UnixDatagram> {
        self.io.into_inner().map(Into::into)
    }

    /// Connects the socket to the socket bound at `path`: then
    /// [`send`](Self::send) goes there and [`recv`](Self::recv) takes
    /// datagrams from there only.
    ///
    /// # Errors
    ///
    /// `NotFound` if nothing exists at the path; `ConnectionRefused` if no
    /// socket is bound there; `InvalidInput` if the path does not fit in
    /// `sun_path` (the message says the limit) or holds a NUL byte
    /// (abstract names are not taken here, as with tokio).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-dconnect-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("peer.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let peer = UnixDatagram::bind(&path)?;
    ///     let socket = UnixDatagram::unbound()?;
    ///     socket.connect(&path)?;
    ///     assert_eq!(socket.peer_addr()?.as_pathname(), Some(path.as_path()));
    ///     socket.send(b"hi").await?;
    ///     assert_eq!(peer.recv(&mut [0; 8]).await?, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn connect<P: AsRef<Path>>(&self, path: P) -> io::Result<()> {
        let path = path.as_ref();
        addr::check_path(path)?;
        self.io.get_ref().connect(path)
    }

    /// Sends `buf` as one datagram to the socket bound at `target`;
    /// returns how many bytes were sent. Waits while the receiver's queue
    /// is full.
    ///
    /// # Errors
    ///
    /// `NotFound` if nothing exists at the path; `ConnectionRefused` if no
    /// socket is bound there; `InvalidInput` if the path does not fit in
    /// `sun_path` (the message says the limit); what `sendto(2)` reports
    /// (a datagram too large, say).
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: if it has not completed, nothing was sent.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-send-to-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("target.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let target = UnixDatagram::bind(&path)?;
    ///     let socket = UnixDatagram::unbound()?;
    ///     assert_eq!(socket.send_to(b"hello", &path).await?, 5);
    ///     assert_eq!(target.recv(&mut [0; 8]).await?, 5);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn send_to<P: AsRef<Path>>(&self, buf: &[u8], target: P) -> io::Result<usize> {
        let target = target.as_ref();
        addr::check_path(target)?;
        self.io
            .async_io(Direction::Write, |socket| socket.send_to(buf, target))
            .await
    }

    /// Waits for a datagram and copies it into `buf` (the rest of a
    /// datagram longer than `buf` is lost); returns its length and the
    /// sender's address (unnamed if the sender is not bound).
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
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-recv-from-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let (a_path, b_path) = (dir.join("a.sock"), dir.join("b.sock"));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, b) = (UnixDatagram::bind(&a_path)?, UnixDatagram::bind(&b_path)?);
    ///     a.send_to(b"ping", &b_path).await?;
    ///     let mut buf = [0; 16];
    ///     let (n, from) = b.recv_from(&mut buf).await?;
    ///     assert_eq!((n, from.as_pathname()), (4, Some(a_path.as_path())));
    ///     # drop(a);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let (n, from) = self
            .io
            .async_io(Direction::Read, |socket| socket.recv_from(buf))
            .await?;
        Ok((n, SocketAddr(from)))
    }

    /// Sends `buf` as one datagram to the socket bound at `target` if it
    /// can go now, without waiting; returns how many bytes were sent.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the socket cannot send now (which clears its write
    /// readiness); otherwise as [`send_to`](Self::send_to).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-try-send-to-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("target.sock");
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let target = UnixDatagram::bind(&path)?;
    ///     let socket = UnixDatagram::unbound()?;
    ///     socket.writable().await?;
    ///     assert_eq!(socket.try_send_to(b"now", &path)?, 3);
    ///     assert_eq!(target.recv(&mut [0; 8]).await?, 3);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_send_to<P: AsRef<Path>>(&self, buf: &[u8], target: P) -> io::Result<usize> {
        let target = target.as_ref();
        addr::check_path(target)?;
        self.io
            .try_io(Direction::Write, |socket| socket.send_to(buf, target))
    }

    /// Takes a datagram into `buf` if one has arrived, without waiting;
    /// returns its length and the sender's address.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if none is there now (which clears the socket's read
    /// readiness); what `recvfrom(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, b) = UnixDatagram::pair()?;
    ///     a.send(b"x").await?;
    ///     b.readable().await?;
    ///     let (n, from) = b.try_recv_from(&mut [0; 8])?;
    ///     assert_eq!(n, 1);
    ///     assert!(from.is_unnamed());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, SocketAddr)> {
        let (n, from) = self
            .io
            .try_io(Direction::Read, |socket| socket.recv_from(buf))?;
        Ok((n, SocketAddr(from)))
    }

    /// [`recv_from`](Self::recv_from) into a `bytes` buffer's spare
    /// capacity (at most 64 KiB: a longer datagram is cut there, as one
    /// cut by a short buffer), which it then counts as filled: the
    /// datagram's length and sender. With feature `tokio-io`.
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
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, b) = UnixDatagram::pair()?;
    ///     a.send(b"ping").await?;
    ///     let mut buf = Vec::with_capacity(64);
    ///     let (n, _from) = b.recv_buf_from(&mut buf).await?;
    ///     assert_eq!((n, &buf[..]), (4, &b"ping"[..]));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub async fn recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        let (n, from) = self
            .io
            .async_io(Direction::Read, |socket| {
                crate::runtime::io::read_into_buf_mut(&mut *buf, |dst| {
                    socket.recv_from(dst).map(|(n, from)| (n, (n, from)))
                })
            })
            .await?;
        Ok((n, SocketAddr(from)))
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
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, b) = UnixDatagram::pair()?;
    ///     a.send(b"ping").await?;
    ///     b.readable().await?;
    ///     let mut buf = Vec::with_capacity(64);
    ///     assert_eq!(b.try_recv_buf_from(&mut buf)?.0, 4);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub fn try_recv_buf_from<B: bytes::BufMut>(
        &self,
        buf: &mut B,
    ) -> io::Result<(usize, SocketAddr)> {
        let (n, from) = self.io.try_io(Direction::Read, |socket| {
            crate::runtime::io::read_into_buf_mut(buf, |dst| {
                socket.recv_from(dst).map(|(n, from)| (n, (n, from)))
            })
        })?;
        Ok((n, SocketAddr(from)))
    }

    /// [`send_to`](Self::send_to) as a poll: `Pending` (the task woken
    /// when there is room) until the datagram can go. Only the task of the
    /// latest poll of a direction is woken.
    ///
    /// # Errors
    ///
    /// As [`send_to`](Self::send_to).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let dir = std::env::temp_dir().join(format!("lawn-rt-dgram-poll-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let bound = UnixDatagram::bind(dir.join("s"))?;
    ///     let sender = UnixDatagram::unbound()?;
    ///     let n = std::future::poll_fn(|cx| sender.poll_send_to(cx, b"hi", dir.join("s"))).await?;
    ///     assert_eq!(n, 2);
    ///     assert_eq!(bound.recv(&mut [0; 4]).await?, 2);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_send_to<P: AsRef<Path>>(
        &self,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
        target: P,
    ) -> std::task::Poll<io::Result<usize>> {
        let target = target.as_ref();
        addr::check_path(target)?;
        self.io
            .poll_io(cx, Direction::Write, |socket| socket.send_to(buf, target))
    }

    /// [`recv_from`](Self::recv_from) as a poll, into `buf`'s unfilled
    /// part: the sender's address. Only the task of the latest poll of a
    /// direction is woken. With feature `tokio-io` (it takes tokio's
    /// `ReadBuf`).
    ///
    /// # Errors
    ///
    /// As [`recv_from`](Self::recv_from).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::io::ReadBuf;
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, b) = UnixDatagram::pair()?;
    ///     a.send(b"ping").await?;
    ///     let mut storage = [0; 16];
    ///     let mut buf = ReadBuf::new(&mut storage);
    ///     let from = std::future::poll_fn(|cx| b.poll_recv_from(cx, &mut buf)).await?;
    ///     assert_eq!(buf.filled(), b"ping");
    ///     assert!(from.is_unnamed());
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
        self.io.poll_read_buf(cx, buf, |socket, unfilled| {
            let (n, from) = socket.recv_from(unfilled)?;
            Ok((n, SocketAddr(from)))
        })
    }

    /// The address the socket is bound to (unnamed if it is not).
    ///
    /// # Errors
    ///
    /// What `getsockname(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// assert!(UnixDatagram::unbound()?.local_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().local_addr().map(SocketAddr)
    }

    /// The address the socket is connected to.
    ///
    /// # Errors
    ///
    /// `NotConnected` if it is not connected.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _entered = rt.enter();
    /// let err = UnixDatagram::unbound()?.peer_addr().unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::NotConnected);
    /// let (a, _b) = UnixDatagram::pair()?;
    /// assert!(a.peer_addr()?.is_unnamed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.io.get_ref().peer_addr().map(SocketAddr)
    }

    /// Shuts down the reading side, the writing side or both
    /// (`shutdown(2)`): a receive then gives 0 at once, a send fails with
    /// `BrokenPipe`.
    ///
    /// # Errors
    ///
    /// What `shutdown(2)` reports.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::UnixDatagram;
    /// use std::net::Shutdown;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (a, _b) = UnixDatagram::pair()?;
    ///     a.shutdown(Shutdown::Write)?;
    ///     let err = a.send(b"late").await.unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.io.get_ref().shutdown(how)
    }
}

crate::net::ops::socket_traits!(UnixDatagram(std::os::unix::net::UnixDatagram): local_addr, peer_addr);

crate::net::datagram::datagram_api! {
    UnixDatagram,
    uses: "use lawn_rt::net::UnixDatagram;",
    pair: "UnixDatagram::pair()?",
}
