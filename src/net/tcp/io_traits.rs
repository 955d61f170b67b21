//! `AsyncRead`/`AsyncWrite` (futures-io's, and with the feature `tokio-io`
//! tokio's) for [`TcpStream`] and its halves: each delegates to the
//! stream's `poll_*_priv` operations.

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::split::{OwnedReadHalf, OwnedWriteHalf, ReadHalf, WriteHalf};
use super::stream::TcpStream;

macro_rules! impl_async_read {
    ($($ty:ty),*) => {$(
        impl futures_io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut [u8],
            ) -> Poll<io::Result<usize>> {
                self.stream().poll_read_priv(cx, buf)
            }
        }

        #[cfg(feature = "tokio-io")]
        impl tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                let read = std::task::ready!(self
                    .stream()
                    .poll_read_priv(cx, buf.initialize_unfilled()))?;
                buf.advance(read);
                Poll::Ready(Ok(()))
            }
        }
    )*};
}

macro_rules! impl_async_write {
    ($($ty:ty),*) => {$(
        impl futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.stream().poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.stream().poll_write_vectored_priv(cx, bufs)
            }

            /// Writes are not buffered: nothing to flush.
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }

            /// Closes the write side (sends FIN); reading goes on.
            fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(self.stream().shutdown_write())
            }
        }

        #[cfg(feature = "tokio-io")]
        impl tokio::io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.stream().poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                bufs: &[IoSlice<'_>],
            ) -> Poll<io::Result<usize>> {
                self.stream().poll_write_vectored_priv(cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            /// Writes are not buffered: nothing to flush.
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }

            /// Closes the write side (sends FIN); reading goes on.
            fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(self.stream().shutdown_write())
            }
        }
    )*};
}

impl TcpStream {
    /// The stream itself (what the halves give too).
    fn stream(&self) -> &TcpStream {
        self
    }
}

impl_async_read!(TcpStream, ReadHalf<'_>, OwnedReadHalf);
impl_async_write!(TcpStream, WriteHalf<'_>, OwnedWriteHalf);
