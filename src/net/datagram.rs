//! What the datagram sockets ([`UdpSocket`](super::UdpSocket) and the
//! Unix datagram socket) share, written once: [`datagram_api!`] gives a
//! socket type its connected `send`/`recv`, their `try_` forms, its
//! readiness operations (`readable`, `writable`, `poll_recv_ready`,
//! `poll_send_ready`) and `take_error`, with their docs; each doc example
//! runs once per protocol. Addressed operations (`send_to`, `recv_from`)
//! differ in their address types and stay with each socket.
//!
//! Ground rules: the socket type has a field `io: Registration<S>` whose
//! `S` has mio's `send`, `recv` and `take_error`. Every operation takes
//! `&self`; the `async` ones wait as queued waiters (each waiting task is
//! woken), the `poll_*` ones in the socket's single slot per direction.

/// The shared operations of the datagram socket type `$socket` (see the
/// module docs). `uses` is the example's `use` line; `pair` an
/// expression, inside a runtime, for two sockets connected to each other.
macro_rules! datagram_api {
    (
        $socket:ident,
        uses: $uses:expr,
        pair: $pair:expr $(,)?
    ) => {
        $crate::net::ops::readiness_api! {
            $socket,
            poll_read: poll_recv_ready,
            poll_write: poll_send_ready,
            uses: $uses,
            pair: $pair,
            send: "b.try_send(b\"hello\")",
            recv: "a.try_recv(&mut buf)",
        }

        impl $socket {
            /// Sends `buf` as one datagram to the connected peer; returns
            /// how many bytes were sent.
            ///
            /// # Errors
            ///
            /// `NotConnected` if the socket is not connected;
            /// `ConnectionRefused` if the peer is gone (an earlier
            /// datagram found no one listening); what `send(2)` reports (a
            /// datagram too large, say).
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: if it has not completed, nothing was sent.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     assert_eq!(a.send(b"hello").await?, 5);
            ///     let mut buf = [0; 16];
            ///     assert_eq!(b.recv(&mut buf).await?, 5);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn send(&self, buf: &[u8]) -> ::std::io::Result<usize> {
                self.io
                    .async_io($crate::runtime::io::Direction::Write, |socket| {
                        socket.send(buf)
                    })
                    .await
            }

            /// Waits for a datagram from the connected peer and copies it
            /// into `buf` (the rest of a datagram longer than `buf` is
            /// lost); returns its length.
            ///
            /// # Errors
            ///
            /// `ConnectionRefused` if an earlier datagram found no one
            /// listening; what `recv(2)` reports.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: if it has not completed, no datagram was taken.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     b.send(b"hi").await?;
            ///     let mut buf = [0; 16];
            ///     let n = a.recv(&mut buf).await?;
            ///     assert_eq!(&buf[..n], b"hi");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn recv(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
                self.io
                    .async_io($crate::runtime::io::Direction::Read, |socket| {
                        socket.recv(buf)
                    })
                    .await
            }

            /// [`send`](Self::send) as a poll: `Pending` (the task woken
            /// when there is room) until the datagram can go. Only the task
            /// of the latest poll of a direction is woken; for several
            /// senders, use [`send`](Self::send).
            ///
            /// # Errors
            ///
            /// As [`send`](Self::send).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     assert_eq!(std::future::poll_fn(|cx| a.poll_send(cx, b"hi")).await?, 2);
            ///     let mut buf = [0; 16];
            ///     assert_eq!(b.recv(&mut buf).await?, 2);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn poll_send(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.io
                    .poll_io(cx, $crate::runtime::io::Direction::Write, |socket| {
                        socket.send(buf)
                    })
            }

            /// [`recv`](Self::recv) as a poll, into `buf`'s unfilled part
            /// (the rest of a longer datagram is lost). Only the task of
            /// the latest poll of a direction is woken. With feature
            /// `tokio-io` (it takes tokio's `ReadBuf`).
            ///
            /// # Errors
            ///
            /// As [`recv`](Self::recv).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            /// use lawn_rt::io::ReadBuf;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     a.send(b"pong").await?;
            ///     let mut storage = [0; 16];
            ///     let mut buf = ReadBuf::new(&mut storage);
            ///     std::future::poll_fn(|cx| b.poll_recv(cx, &mut buf)).await?;
            ///     assert_eq!(buf.filled(), b"pong");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[cfg(feature = "tokio-io")]
            pub fn poll_recv(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut ::tokio::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                self.io
                    .poll_read_buf(cx, buf, |socket, unfilled| Ok((socket.recv(unfilled)?, ())))
            }

            /// Sends `buf` as one datagram to the connected peer if it can
            /// go now, without waiting; returns how many bytes were sent.
            ///
            /// # Errors
            ///
            /// `WouldBlock` if the socket cannot send now; that clears its
            /// write readiness, so [`writable`](Self::writable) then waits.
            /// Otherwise as [`send`](Self::send).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     a.writable().await?;
            ///     assert_eq!(a.try_send(b"now")?, 3);
            ///     assert_eq!(b.recv(&mut [0; 8]).await?, 3);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_send(&self, buf: &[u8]) -> ::std::io::Result<usize> {
                self.io
                    .try_io($crate::runtime::io::Direction::Write, |socket| {
                        socket.send(buf)
                    })
            }

            /// Takes a datagram from the connected peer into `buf` if one
            /// has arrived, without waiting; returns its length.
            ///
            /// # Errors
            ///
            /// `WouldBlock` if none is there now; that clears the socket's
            /// read readiness, so [`readable`](Self::readable) then waits
            /// for the next. Otherwise as [`recv`](Self::recv).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            /// use std::io::ErrorKind::WouldBlock;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     let mut buf = [0; 16];
            ///     assert_eq!(b.try_recv(&mut buf).unwrap_err().kind(), WouldBlock);
            ///     a.send(b"one").await?;
            ///     let n = loop {
            ///         b.readable().await?;
            ///         match b.try_recv(&mut buf) {
            ///             Ok(n) => break n,
            ///             Err(err) if err.kind() == WouldBlock => continue, // stale
            ///             Err(err) => return Err(err),
            ///         }
            ///     };
            ///     assert_eq!(&buf[..n], b"one");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_recv(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
                self.io
                    .try_io($crate::runtime::io::Direction::Read, |socket| {
                        socket.recv(buf)
                    })
            }

            /// [`recv`](Self::recv) into a `bytes` buffer's spare capacity
            /// (at most 64 KiB: a longer datagram is cut there, as one cut
            /// by a short buffer), which it then counts as filled: the
            /// datagram's length. With feature `tokio-io`.
            ///
            /// # Errors
            ///
            /// As [`recv`](Self::recv).
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: a datagram is taken only by the poll that
            /// returns it.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     b.send(b"hi").await?;
            ///     let mut buf = Vec::with_capacity(64);
            ///     assert_eq!(a.recv_buf(&mut buf).await?, 2);
            ///     assert_eq!(buf, b"hi");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[cfg(feature = "tokio-io")]
            pub async fn recv_buf<B: ::bytes::BufMut>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<usize> {
                self.io
                    .async_io($crate::runtime::io::Direction::Read, |socket| {
                        $crate::runtime::io::read_into_buf_mut(&mut *buf, |dst| {
                            socket.recv(dst).map(|n| (n, n))
                        })
                    })
                    .await
            }

            /// [`try_recv`](Self::try_recv) into a `bytes` buffer, as
            /// [`recv_buf`](Self::recv_buf) fills it. With feature
            /// `tokio-io`.
            ///
            /// # Errors
            ///
            /// As [`try_recv`](Self::try_recv).
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, b) = ", $pair, ";")]
            ///     b.send(b"hi").await?;
            ///     a.readable().await?;
            ///     let mut buf = Vec::with_capacity(64);
            ///     assert_eq!(a.try_recv_buf(&mut buf)?, 2);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[cfg(feature = "tokio-io")]
            pub fn try_recv_buf<B: ::bytes::BufMut>(
                &self,
                buf: &mut B,
            ) -> ::std::io::Result<usize> {
                self.io
                    .try_io($crate::runtime::io::Direction::Read, |socket| {
                        $crate::runtime::io::read_into_buf_mut(buf, |dst| {
                            socket.recv(dst).map(|n| (n, n))
                        })
                    })
            }
        }
    };
}

pub(crate) use datagram_api;
