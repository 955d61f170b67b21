//! What the byte streams ([`TcpStream`](super::TcpStream) and the Unix
//! stream) share, written once: [`stream_api!`] gives a stream type its
//! readiness operations (`readable`, `writable`, `poll_read_ready`,
//! `poll_write_ready`, `take_error`: from `readiness_api!`), the
//! non-blocking `try_read`/`try_write` family, `split`/`into_split`, and
//! the futures-io and tokio-io traits, with their docs; each doc example
//! runs once per protocol.
//!
//! Ground rules: the stream type has a field `io: Registration<S>` whose
//! `&S` is `Read + Write` and whose `S` has mio's `shutdown` and
//! `take_error`; its halves (from `stream_halves!`) are in scope where the
//! macro is invoked. Every read waits in the read direction, every write
//! in the write direction, by the rules of `runtime::io`.

/// The shared operations of the stream type `$stream` (see the module
/// docs). `uses` is the example's `use` line; `pair` an expression,
/// inside a runtime, for two streams connected to each other.
macro_rules! stream_api {
    (
        $stream:ident,
        uses: $uses:expr,
        pair: $pair:expr $(,)?
    ) => {
        $crate::net::ops::readiness_api! {
            $stream,
            poll_read: poll_read_ready,
            poll_write: poll_write_ready,
            uses: $uses,
            pair: $pair,
            send: "b.try_write(b\"hello\")",
            recv: "a.try_read(&mut buf)",
        }

        impl $stream {
            /// Reads what has arrived into `buf`, without waiting: the
            /// number of bytes read (0 once the peer has closed its side,
            /// or if `buf` is empty).
            ///
            /// # Errors
            ///
            /// `WouldBlock` if nothing can be read now; that clears the
            /// stream's read readiness, so [`readable`](Self::readable)
            /// then waits for more. What `read(2)` reports (the peer reset
            /// the connection, say); an error of kind `Other` once the
            /// runtime has shut down.
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncWriteExt;
            #[doc = $uses]
            /// use std::io::ErrorKind::WouldBlock;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, mut b) = ", $pair, ";")]
            ///     let mut buf = [0; 16];
            ///     assert_eq!(a.try_read(&mut buf).unwrap_err().kind(), WouldBlock);
            ///     b.write_all(b"hi").await?;
            ///     a.readable().await?;
            ///     assert_eq!(a.try_read(&mut buf)?, 2);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
                self.io.try_io($crate::runtime::io::Direction::Read, |mut stream| {
                    ::std::io::Read::read(&mut stream, buf)
                })
            }

            /// [`try_read`](Self::try_read) into several buffers, filled
            /// in order (`readv(2)`).
            ///
            /// # Errors
            ///
            /// As [`try_read`](Self::try_read).
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncWriteExt;
            #[doc = $uses]
            /// use std::io::IoSliceMut;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, mut b) = ", $pair, ";")]
            ///     b.write_all(b"headbody").await?;
            ///     a.readable().await?;
            ///     let (mut head, mut body) = ([0; 4], [0; 4]);
            ///     let mut bufs = [IoSliceMut::new(&mut head), IoSliceMut::new(&mut body)];
            ///     assert_eq!(a.try_read_vectored(&mut bufs)?, 8);
            ///     assert_eq!((&head, &body), (b"head", b"body"));
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_read_vectored(
                &self,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::io::Result<usize> {
                self.io.try_io($crate::runtime::io::Direction::Read, |mut stream| {
                    ::std::io::Read::read_vectored(&mut stream, bufs)
                })
            }

            /// [`try_read`](Self::try_read) into a `bytes` buffer's spare
            /// capacity (at most 64 KiB at a time), which it then counts as
            /// filled: the number of bytes read. With feature `tokio-io`.
            ///
            /// # Errors
            ///
            /// As [`try_read`](Self::try_read).
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncWriteExt;
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, mut b) = ", $pair, ";")]
            ///     b.write_all(b"hello").await?;
            ///     let mut buf = Vec::with_capacity(64); // or a `bytes::BytesMut`
            ///     a.readable().await?;
            ///     assert_eq!(a.try_read_buf(&mut buf)?, 5);
            ///     assert_eq!(buf, b"hello");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[cfg(feature = "tokio-io")]
            pub fn try_read_buf<B: ::bytes::BufMut>(&self, buf: &mut B) -> ::std::io::Result<usize> {
                self.io.try_io($crate::runtime::io::Direction::Read, |mut stream| {
                    $crate::runtime::io::read_into_buf_mut(buf, |dst| {
                        ::std::io::Read::read(&mut stream, dst).map(|n| (n, n))
                    })
                })
            }

            /// Writes as much of `buf` as fits now, without waiting: the
            /// number of bytes written.
            ///
            /// # Errors
            ///
            /// `WouldBlock` if nothing fits now; that clears the stream's
            /// write readiness, so [`writable`](Self::writable) then waits
            /// for room. What `write(2)` reports (`BrokenPipe` once the
            /// peer is gone, say); an error of kind `Other` once the
            /// runtime has shut down.
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncReadExt;
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, mut b) = ", $pair, ";")]
            ///     let mut sent = 0;
            ///     while sent < 3 {
            ///         a.writable().await?;
            ///         match a.try_write(&b"abc"[sent..]) {
            ///             Ok(n) => sent += n,
            ///             Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
            ///             Err(err) => return Err(err),
            ///         }
            ///     }
            ///     let mut buf = [0; 3];
            ///     b.read_exact(&mut buf).await?;
            ///     assert_eq!(&buf, b"abc");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
                self.io.try_io($crate::runtime::io::Direction::Write, |mut stream| {
                    ::std::io::Write::write(&mut stream, buf)
                })
            }

            /// [`try_write`](Self::try_write) from several buffers, taken
            /// in order (`writev(2)`).
            ///
            /// # Errors
            ///
            /// As [`try_write`](Self::try_write).
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncReadExt;
            #[doc = $uses]
            /// use std::io::IoSlice;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, mut b) = ", $pair, ";")]
            ///     a.writable().await?;
            ///     let bufs = [IoSlice::new(b"head"), IoSlice::new(b"body")];
            ///     assert_eq!(a.try_write_vectored(&bufs)?, 8);
            ///     let mut got = [0; 8];
            ///     b.read_exact(&mut got).await?;
            ///     assert_eq!(&got, b"headbody");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_write_vectored(
                &self,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::io::Result<usize> {
                self.io.try_io($crate::runtime::io::Direction::Write, |mut stream| {
                    ::std::io::Write::write_vectored(&mut stream, bufs)
                })
            }

            /// Splits the stream into a reading and a writing half that
            /// borrow it, to read and write at once (in one task, with
            /// `join` or `select`).
            ///
            /// With `futures::io::AsyncReadExt` in scope, `stream.split()`
            /// resolves to that trait's `split` (it takes the stream by
            /// value, so method lookup finds it first) and gives its
            /// lock-based halves; write `Stream::split(&mut stream)` for
            /// these.
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::{AsyncReadExt, AsyncWriteExt};
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (mut a, mut b) = ", $pair, ";")]
            #[doc = concat!("    let (mut reader, mut writer) = ", stringify!($stream), "::split(&mut a);")]
            ///     b.write_all(b"abc").await?;
            ///     let mut buf = [0; 3];
            ///     reader.read_exact(&mut buf).await?;
            ///     writer.write_all(&buf).await?; // echo
            ///     b.read_exact(&mut buf).await?;
            ///     assert_eq!(&buf, b"abc");
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn split(&mut self) -> (ReadHalf<'_>, WriteHalf<'_>) {
                let stream = &*self;
                (ReadHalf::new(stream), WriteHalf::new(stream))
            }

            /// Splits the stream into owned halves, to read and write from
            /// two tasks. Dropping the [`OwnedWriteHalf`] closes the write
            /// side (the peer reads end of file); the connection closes
            /// when both halves are gone. [`OwnedReadHalf::reunite`] puts
            /// the stream back together.
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::{AsyncReadExt, AsyncWriteExt};
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, mut b) = ", $pair, ";")]
            ///     let (mut reader, mut writer) = a.into_split();
            ///     let sender = lawn_rt::spawn(async move {
            ///         writer.write_all(b"from another task").await
            ///     }); // the half is dropped when the task ends: end of file
            ///     let mut got = String::new();
            ///     b.read_to_string(&mut got).await?;
            ///     assert_eq!(got, "from another task");
            ///     sender.await.unwrap()?;
            ///     b.write_all(b"bye").await?;
            ///     let mut buf = [0; 3];
            ///     reader.read_exact(&mut buf).await?;
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn into_split(self) -> (OwnedReadHalf, OwnedWriteHalf) {
                let stream = ::std::sync::Arc::new(self);
                (
                    OwnedReadHalf::new(stream.clone()),
                    OwnedWriteHalf::new(stream),
                )
            }

            /// The stream itself, for the trait impls (which the halves
            /// share).
            fn stream(&self) -> &$stream {
                self
            }

            // The operations behind the `AsyncRead`/`AsyncWrite` impls (of
            // the stream and of its halves): each direction keeps one
            // waiting task.

            pub(crate) fn poll_read_priv(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let len = buf.len();
                self.io.poll_transfer(cx, $crate::runtime::io::Direction::Read, len, |mut stream| {
                    ::std::io::Read::read(&mut stream, buf)
                })
            }

            #[cfg(feature = "tokio-io")]
            pub(crate) fn poll_read_buf_priv(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut ::tokio::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                self.io.poll_read_stream(cx, buf)
            }

            pub(crate) fn poll_write_priv(
                &self,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                let len = buf.len();
                self.io.poll_transfer(cx, $crate::runtime::io::Direction::Write, len, |mut stream| {
                    ::std::io::Write::write(&mut stream, buf)
                })
            }

            pub(crate) fn poll_write_vectored_priv(
                &self,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                // A call writes at most IOV_MAX slices (16 at the least,
                // by POSIX): past that, a short write says nothing of the
                // send buffer, and 0 turns the clearing off.
                let len = match bufs.len() <= 16 {
                    true => bufs.iter().map(|buf| buf.len()).sum(),
                    false => 0,
                };
                self.io.poll_transfer(cx, $crate::runtime::io::Direction::Write, len, |mut stream| {
                    ::std::io::Write::write_vectored(&mut stream, bufs)
                })
            }

            /// Sends FIN: the peer reads end of file; this side can still
            /// read. A connection the peer already reset (the kernel says
            /// `NotConnected`) counts as shut down, as in tokio: whether
            /// the reset or the shutdown comes first is a race the caller
            /// cannot see.
            pub(crate) fn shutdown_write(&self) -> ::std::io::Result<()> {
                match self.io.get_ref().shutdown(::std::net::Shutdown::Write) {
                    Err(err) if err.kind() == ::std::io::ErrorKind::NotConnected => Ok(()),
                    result => result,
                }
            }
        }

        $crate::net::io_traits::impl_async_read!($stream);
        $crate::net::io_traits::impl_async_write!($stream);
    };
}

pub(crate) use stream_api;
