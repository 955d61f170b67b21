//! The halves of a byte stream, written once for every stream type:
//! [`stream_halves!`] defines, in the module it is invoked in, the
//! borrowed halves `ReadHalf` and `WriteHalf` (from `split`), the owned
//! halves `OwnedReadHalf` and `OwnedWriteHalf` (from `into_split`), and
//! `ReuniteError`, with their operations, trait impls and docs; each doc
//! example runs once per protocol.
//!
//! Ground rules: a half holds the stream (a reference, or an `Arc` shared
//! with its other half) and nothing else; a read half only reads, a write
//! half only writes, so the two never wait in the same direction. The
//! owned write half sends FIN when dropped, unless it was `forget`-ten or
//! went back into the stream by `reunite`.

/// The halves of the stream type `$stream` (see the module docs). `addr`
/// is the type its `peer_addr` and `local_addr` give; `path` the public
/// module the halves are in; `uses` the examples' `use` line; `pair` an
/// expression, inside a runtime, for two streams connected to each other.
macro_rules! stream_halves {
    (
        $stream:ident,
        addr: $addr:ty,
        path: $path:expr,
        uses: $uses:expr,
        pair: $pair:expr $(,)?
    ) => {
        /// The reading half of a stream, borrowed from it by `split`;
        /// implements `AsyncRead` (futures-io's, and with the feature
        /// `tokio-io` tokio's).
        ///
        /// # Examples
        ///
        /// ```
        /// use futures::io::AsyncReadExt;
        #[doc = $uses]
        ///
        /// let rt = lawn_rt::runtime::Runtime::new()?;
        /// rt.block_on(async {
        #[doc = concat!("    let (mut a, b) = ", $pair, ";")]
        ///     drop(b); // end of file for `a`
        #[doc = concat!("    let (mut reader, _writer) = ", stringify!($stream), "::split(&mut a);")]
        ///     assert_eq!(reader.read(&mut [0; 8]).await?, 0);
        ///     Ok::<_, std::io::Error>(())
        /// })?;
        /// # Ok::<(), std::io::Error>(())
        /// ```
        pub struct ReadHalf<'a>(&'a $stream);

        /// The writing half of a stream, borrowed from it by `split`;
        /// implements `AsyncWrite` (closing it sends FIN).
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
        #[doc = concat!("    let (_reader, mut writer) = ", stringify!($stream), "::split(&mut a);")]
        ///     writer.write_all(b"hi").await?;
        ///     writer.close().await?;
        ///     let mut got = Vec::new();
        ///     b.read_to_end(&mut got).await?;
        ///     assert_eq!(got, b"hi");
        ///     Ok::<_, std::io::Error>(())
        /// })?;
        /// # Ok::<(), std::io::Error>(())
        /// ```
        pub struct WriteHalf<'a>(&'a $stream);

        /// The reading half of a stream, owned (it may move to another
        /// task), made by `into_split`; implements `AsyncRead`.
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
        ///     let (mut reader, _writer) = a.into_split();
        ///     let reading = lawn_rt::spawn(async move {
        ///         let mut buf = [0; 5];
        ///         reader.read_exact(&mut buf).await.map(|()| buf)
        ///     });
        ///     b.write_all(b"hello").await?;
        ///     assert_eq!(&reading.await.unwrap()?, b"hello");
        ///     Ok::<_, std::io::Error>(())
        /// })?;
        /// # Ok::<(), std::io::Error>(())
        /// ```
        pub struct OwnedReadHalf(::std::sync::Arc<$stream>);

        /// The writing half of a stream, owned (it may move to another
        /// task), made by `into_split`; implements `AsyncWrite`.
        /// Dropping it (or closing it) sends FIN: the peer reads end of
        /// file. [`forget`](Self::forget) drops it without.
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
        ///     let (_reader, mut writer) = a.into_split();
        ///     writer.write_all(b"bye").await?;
        ///     drop(writer);
        ///     let mut got = Vec::new();
        ///     b.read_to_end(&mut got).await?;
        ///     assert_eq!(got, b"bye");
        ///     Ok::<_, std::io::Error>(())
        /// })?;
        /// # Ok::<(), std::io::Error>(())
        /// ```
        pub struct OwnedWriteHalf {
            stream: ::std::sync::Arc<$stream>,
            /// Cleared by `forget` and `reunite`.
            shutdown_on_drop: bool,
        }

        /// The halves given to `reunite` came from two different streams;
        /// here they are back, unchanged (read half first).
        ///
        /// # Examples
        ///
        /// ```
        #[doc = $uses]
        #[doc = concat!("use ", $path, "::ReuniteError;")]
        ///
        /// let rt = lawn_rt::runtime::Runtime::new()?;
        /// rt.block_on(async {
        #[doc = concat!("    let (a, b) = ", $pair, ";")]
        ///     let (reader_a, writer_a) = a.into_split();
        ///     let (reader_b, writer_b) = b.into_split();
        ///     let ReuniteError(reader_a, writer_b) = reader_a.reunite(writer_b).unwrap_err();
        ///     assert!(reader_a.reunite(writer_a).is_ok());
        ///     assert!(reader_b.reunite(writer_b).is_ok());
        ///     Ok::<_, std::io::Error>(())
        /// })?;
        /// # Ok::<(), std::io::Error>(())
        /// ```
        pub struct ReuniteError(pub OwnedReadHalf, pub OwnedWriteHalf);

        impl<'a> ReadHalf<'a> {
            pub(crate) fn new(stream: &'a $stream) -> ReadHalf<'a> {
                ReadHalf(stream)
            }

            fn stream(&self) -> &$stream {
                self.0
            }
        }

        impl<'a> WriteHalf<'a> {
            pub(crate) fn new(stream: &'a $stream) -> WriteHalf<'a> {
                WriteHalf(stream)
            }

            fn stream(&self) -> &$stream {
                self.0
            }
        }

        impl OwnedReadHalf {
            pub(crate) fn new(stream: ::std::sync::Arc<$stream>) -> OwnedReadHalf {
                OwnedReadHalf(stream)
            }

            fn stream(&self) -> &$stream {
                &self.0
            }

            /// Puts the stream back together from the two halves one
            /// `into_split` made.
            ///
            /// # Errors
            ///
            /// [`ReuniteError`], holding both halves unchanged, if they
            /// came from different streams.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, _b) = ", $pair, ";")]
            ///     let (reader, writer) = a.into_split();
            ///     let a = reader.reunite(writer).expect("the halves of one stream");
            ///     a.writable().await?; // a whole stream again
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn reunite(self, other: OwnedWriteHalf) -> Result<$stream, ReuniteError> {
                if !::std::sync::Arc::ptr_eq(&self.0, &other.stream) {
                    return Err(ReuniteError(self, other));
                }
                other.forget();
                Ok(::std::sync::Arc::into_inner(self.0)
                    .expect("the two halves held the only references to their stream"))
            }
        }

        impl OwnedWriteHalf {
            pub(crate) fn new(stream: ::std::sync::Arc<$stream>) -> OwnedWriteHalf {
                OwnedWriteHalf {
                    stream,
                    shutdown_on_drop: true,
                }
            }

            fn stream(&self) -> &$stream {
                &self.stream
            }

            /// Puts the stream back together from the two halves one
            /// `into_split` made (as [`OwnedReadHalf::reunite`]).
            ///
            /// # Errors
            ///
            /// [`ReuniteError`], holding both halves unchanged, if they
            /// came from different streams.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, _b) = ", $pair, ";")]
            ///     let (reader, writer) = a.into_split();
            ///     assert!(writer.reunite(reader).is_ok());
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn reunite(self, other: OwnedReadHalf) -> Result<$stream, ReuniteError> {
                other.reunite(self)
            }

            /// Drops the half without closing the write side: the peer
            /// reads end of file only once the read half is dropped too
            /// (and the stream closes).
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncReadExt;
            #[doc = $uses]
            /// use std::time::Duration;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (a, mut b) = ", $pair, ";")]
            ///     let (reader, writer) = a.into_split();
            ///     writer.forget(); // no FIN
            ///     let mut buf = [0; 1];
            ///     let quiet = lawn_rt::time::timeout(Duration::from_millis(20), b.read(&mut buf));
            ///     assert!(quiet.await.is_err(), "no end of file yet");
            ///     drop(reader); // the stream closes
            ///     assert_eq!(b.read(&mut buf).await?, 0);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn forget(mut self) {
                self.shutdown_on_drop = false;
            }
        }

        impl Drop for OwnedWriteHalf {
            fn drop(&mut self) {
                if self.shutdown_on_drop {
                    // Fails only if the connection is already gone (reset,
                    // say): nothing left to close.
                    let _ = self.stream.shutdown_write();
                }
            }
        }

        $crate::net::split::stream_halves!(@read ReadHalf<'_>,
            a: "mut a", split: concat!(stringify!($stream), "::split(&mut a)"),
            uses: $uses, pair: $pair);
        $crate::net::split::stream_halves!(@read OwnedReadHalf,
            a: "a", split: "a.into_split()", uses: $uses, pair: $pair);
        $crate::net::split::stream_halves!(@write WriteHalf<'_>,
            a: "mut a", split: concat!(stringify!($stream), "::split(&mut a)"),
            uses: $uses, pair: $pair);
        $crate::net::split::stream_halves!(@write OwnedWriteHalf,
            a: "a", split: "a.into_split()", uses: $uses, pair: $pair);
        $crate::net::split::stream_halves!(@addrs $stream, $addr, uses: $uses, pair: $pair;
            ReadHalf<'_> = "mut a", concat!(stringify!($stream), "::split(&mut a)");
            WriteHalf<'_> = "mut a", concat!(stringify!($stream), "::split(&mut a)");
            OwnedReadHalf = "a", "a.into_split()";
            OwnedWriteHalf = "a", "a.into_split()";
        );

        impl ::std::fmt::Display for ReuniteError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("lawn_rt: the halves given to `reunite` came from different streams")
            }
        }

        impl ::std::error::Error for ReuniteError {}

        impl ::std::fmt::Debug for ReuniteError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_tuple("ReuniteError").field(&self.0).field(&self.1).finish()
            }
        }

        $crate::net::split::stream_halves!(@debug
            ReadHalf<'_>, WriteHalf<'_>, OwnedReadHalf, OwnedWriteHalf);
        $crate::net::io_traits::impl_async_read!(ReadHalf<'_>, OwnedReadHalf);
        $crate::net::io_traits::impl_async_write!(WriteHalf<'_>, OwnedWriteHalf);
    };

    // The read operations of a read half; `a` and `split` say how the
    // examples make it from the stream `a`.
    (@read $half:ty, a: $a:literal, split: $split:expr, uses: $uses:expr, pair: $pair:expr) => {
        impl $half {
            /// Waits until the stream may be read, as the stream's own
            /// `readable` does; use it with [`try_read`](Self::try_read).
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: it takes nothing from the stream.
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncWriteExt;
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", mut b) = ", $pair, ";")]
            #[doc = concat!("    let (reader, _writer) = ", $split, ";")]
            ///     b.write_all(b"hi").await?;
            ///     reader.readable().await?;
            ///     assert_eq!(reader.try_read(&mut [0; 8])?, 2);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn readable(&self) -> ::std::io::Result<()> {
                self.stream().readable().await
            }

            /// Reads what has arrived into `buf` without waiting, as the
            /// stream's own `try_read` does: the number of bytes read (0
            /// once the peer has closed its side).
            ///
            /// # Errors
            ///
            /// `WouldBlock` if nothing can be read now (which clears the
            /// read readiness); what `read(2)` reports.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", b) = ", $pair, ";")]
            #[doc = concat!("    let (reader, _writer) = ", $split, ";")]
            ///     let nothing = reader.try_read(&mut [0; 8]).unwrap_err();
            ///     assert_eq!(nothing.kind(), std::io::ErrorKind::WouldBlock);
            ///     drop(b);
            ///     reader.readable().await?;
            ///     assert_eq!(reader.try_read(&mut [0; 8])?, 0); // end of file
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_read(&self, buf: &mut [u8]) -> ::std::io::Result<usize> {
                self.stream().try_read(buf)
            }

            /// [`try_read`](Self::try_read) into several buffers in
            /// order, as the stream's own `try_read_vectored` does.
            ///
            /// # Errors
            ///
            /// As [`try_read`](Self::try_read).
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncWriteExt;
            /// use std::io::IoSliceMut;
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", mut b) = ", $pair, ";")]
            #[doc = concat!("    let (reader, _writer) = ", $split, ";")]
            ///     b.write_all(b"abcd").await?;
            ///     reader.readable().await?;
            ///     let (mut x, mut y) = ([0; 2], [0; 2]);
            ///     let n = reader.try_read_vectored(&mut [IoSliceMut::new(&mut x), IoSliceMut::new(&mut y)])?;
            ///     assert_eq!((n, &x, &y), (4, b"ab", b"cd"));
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_read_vectored(
                &self,
                bufs: &mut [::std::io::IoSliceMut<'_>],
            ) -> ::std::io::Result<usize> {
                self.stream().try_read_vectored(bufs)
            }

            /// [`try_read`](Self::try_read) into a `bytes` buffer, as the
            /// stream's own `try_read_buf` does. With feature `tokio-io`.
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
            #[doc = concat!("    let (", $a, ", mut b) = ", $pair, ";")]
            #[doc = concat!("    let (reader, _writer) = ", $split, ";")]
            ///     b.write_all(b"hi").await?;
            ///     reader.readable().await?;
            ///     let mut buf = Vec::with_capacity(16);
            ///     assert_eq!(reader.try_read_buf(&mut buf)?, 2);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[cfg(feature = "tokio-io")]
            pub fn try_read_buf<B: ::bytes::BufMut>(&self, buf: &mut B) -> ::std::io::Result<usize> {
                self.stream().try_read_buf(buf)
            }
        }
    };

    // The write operations of a write half.
    (@write $half:ty, a: $a:literal, split: $split:expr, uses: $uses:expr, pair: $pair:expr) => {
        impl $half {
            /// Waits until the stream may be written, as the stream's own
            /// `writable` does; use it with [`try_write`](Self::try_write).
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: it writes nothing.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", _b) = ", $pair, ";")]
            #[doc = concat!("    let (_reader, writer) = ", $split, ";")]
            ///     writer.writable().await?;
            ///     assert_eq!(writer.try_write(b"hi")?, 2);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn writable(&self) -> ::std::io::Result<()> {
                self.stream().writable().await
            }

            /// Writes as much of `buf` as fits now, without waiting, as
            /// the stream's own `try_write` does: the number of bytes
            /// written.
            ///
            /// # Errors
            ///
            /// `WouldBlock` if nothing fits now (which clears the write
            /// readiness); what `write(2)` reports.
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncReadExt;
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", mut b) = ", $pair, ";")]
            #[doc = concat!("    let (_reader, writer) = ", $split, ";")]
            ///     writer.writable().await?;
            ///     let n = writer.try_write(b"hello")?;
            ///     let mut got = vec![0; n];
            ///     b.read_exact(&mut got).await?;
            ///     assert_eq!(got, &b"hello"[..n]);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_write(&self, buf: &[u8]) -> ::std::io::Result<usize> {
                self.stream().try_write(buf)
            }

            /// [`try_write`](Self::try_write) from several buffers in
            /// order, as the stream's own `try_write_vectored` does.
            ///
            /// # Errors
            ///
            /// As [`try_write`](Self::try_write).
            ///
            /// # Examples
            ///
            /// ```
            /// use std::io::IoSlice;
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", _b) = ", $pair, ";")]
            #[doc = concat!("    let (_reader, writer) = ", $split, ";")]
            ///     writer.writable().await?;
            ///     assert_eq!(writer.try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")])?, 4);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_write_vectored(
                &self,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::io::Result<usize> {
                self.stream().try_write_vectored(bufs)
            }
        }
    };

    // The addresses, readiness and the stream itself, for every half.
    (@addrs $stream:ident, $addr:ty, uses: $uses:expr, pair: $pair:expr;
        $($half:ty = $a:literal, $split:expr;)*) => {$(
        impl $half {
            /// The address of the peer, as the stream's own `peer_addr`
            /// gives it.
            ///
            /// # Errors
            ///
            /// `NotConnected` once the connection is gone.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", b) = ", $pair, ";")]
            #[doc = concat!("    let (reader, writer) = ", $split, ";")]
            ///     let peer = format!("{:?}", b.local_addr()?);
            ///     assert_eq!(format!("{:?}", reader.peer_addr()?), peer);
            ///     assert_eq!(format!("{:?}", writer.peer_addr()?), peer);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn peer_addr(&self) -> ::std::io::Result<$addr> {
                self.stream().peer_addr()
            }

            /// The local address of the stream, as the stream's own
            /// `local_addr` gives it.
            ///
            /// # Errors
            ///
            /// What `getsockname(2)` reports.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", b) = ", $pair, ";")]
            #[doc = concat!("    let (reader, writer) = ", $split, ";")]
            ///     let local = format!("{:?}", b.peer_addr()?);
            ///     assert_eq!(format!("{:?}", reader.local_addr()?), local);
            ///     assert_eq!(format!("{:?}", writer.local_addr()?), local);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn local_addr(&self) -> ::std::io::Result<$addr> {
                self.stream().local_addr()
            }

            /// Waits until the stream is ready for any of `interest`, as
            /// the stream's own `ready` does (so a read half may wait for
            /// writability too, and the other way round).
            ///
            /// # Errors
            ///
            /// Only once the runtime has shut down.
            ///
            /// # Cancel safety
            ///
            /// Cancel safe: it moves no data.
            ///
            /// # Examples
            ///
            /// ```
            /// use lawn_rt::io::Interest;
            #[doc = $uses]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", _b) = ", $pair, ";")]
            #[doc = concat!("    let (reader, writer) = ", $split, ";")]
            ///     assert!(writer.ready(Interest::WRITABLE).await?.is_writable());
            ///     assert!(reader.ready(Interest::WRITABLE).await?.is_writable());
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn ready(
                &self,
                interest: $crate::io::Interest,
            ) -> ::std::io::Result<$crate::io::Ready> {
                self.stream().ready(interest).await
            }
        }

        /// The stream this half belongs to, as tokio's halves give it.
        impl AsRef<$stream> for $half {
            fn as_ref(&self) -> &$stream {
                self.stream()
            }
        }
    )*};

    // `Debug`: a half shows the stream it belongs to.
    (@debug $($half:ty),*) => {$(
        impl ::std::fmt::Debug for $half {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_tuple(stringify!($half)).field(self.stream()).finish()
            }
        }
    )*};
}

pub(crate) use stream_halves;
