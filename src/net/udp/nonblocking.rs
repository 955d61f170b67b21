//! [`UdpSocket`]'s non-blocking and peeking operations, and its
//! conversion back to std.

use std::io;
use std::net::SocketAddr;

use crate::runtime::io::Direction;

use super::UdpSocket;

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

/// The sender of the datagram at the head of the queue, left there: a
/// peek of no bytes.
fn peek_sender_now(socket: &mio::net::UdpSocket) -> io::Result<SocketAddr> {
    socket.peek_from(&mut []).map(|(_, from)| from)
}
