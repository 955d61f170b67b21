//! The halves of a [`TcpStream`]: borrowed ([`TcpStream::split`]) and
//! owned ([`TcpStream::into_split`]), and [`ReuniteError`]; defined by
//! `net/split.rs`, shared with the Unix stream.

use std::net::SocketAddr;

use super::stream::TcpStream;

crate::net::split::stream_halves! {
    TcpStream,
    addr: SocketAddr,
    path: "lawn_rt::net::tcp",
    uses: "use lawn_rt::net::{TcpListener, TcpStream};",
    pair: example_pair!(),
}

/// `peek` and `poll_peek` for both read halves (TCP only, as in tokio).
macro_rules! peek_halves {
    ($($half:ty = $a:literal, $split:literal;)*) => {$(
        impl $half {
            /// Waits for data and copies it into `buf` without taking it
            /// from the stream, as [`TcpStream::peek`] does.
            ///
            /// # Errors
            ///
            /// As [`TcpStream::peek`].
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::{AsyncReadExt, AsyncWriteExt};
            /// use lawn_rt::net::{TcpListener, TcpStream};
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", mut b) = ", example_pair!(), ";")]
            #[doc = concat!("    let (mut reader, _writer) = ", $split, ";")]
            ///     b.write_all(b"hi").await?;
            ///     let mut buf = [0; 8];
            ///     assert_eq!(reader.peek(&mut buf).await?, 2);
            ///     assert_eq!(reader.read(&mut buf).await?, 2); // still there
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            // `&mut self`, as tokio's: a caller's `mut` binding then
            // compiles without warnings on both.
            pub async fn peek(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.stream().peek(buf).await
            }

            /// [`peek`](Self::peek) as a poll, as [`TcpStream::poll_peek`]
            /// is. With feature `tokio-io` (it takes tokio's `ReadBuf`).
            ///
            /// # Errors
            ///
            /// As [`TcpStream::peek`].
            ///
            /// # Examples
            ///
            /// ```
            /// use futures::io::AsyncWriteExt;
            /// use lawn_rt::net::{TcpListener, TcpStream};
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            #[doc = concat!("    let (", $a, ", mut b) = ", example_pair!(), ";")]
            #[doc = concat!("    let (mut reader, _writer) = ", $split, ";")]
            ///     b.write_all(b"hi").await?;
            ///     let mut storage = [0; 8];
            ///     let mut buf = tokio::io::ReadBuf::new(&mut storage);
            ///     let n = std::future::poll_fn(|cx| reader.poll_peek(cx, &mut buf)).await?;
            ///     assert_eq!(buf.filled(), &b"hi"[..n]);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[cfg(feature = "tokio-io")]
            pub fn poll_peek(
                &mut self,
                cx: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<usize>> {
                self.stream().poll_peek(cx, buf)
            }
        }
    )*};
}

peek_halves! {
    ReadHalf<'_> = "mut a", "TcpStream::split(&mut a)";
    OwnedReadHalf = "a", "a.into_split()";
}
