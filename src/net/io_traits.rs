//! `AsyncRead`/`AsyncWrite` (futures-io's, and with the feature `tokio-io`
//! tokio's) for the byte streams ([`TcpStream`](super::TcpStream), the Unix
//! stream) and their halves, written once: each impl delegates to the
//! `poll_*_priv` operations of the stream that `self.stream()` gives (the
//! stream itself, or the one a half belongs to). Those operations, and
//! `stream()`, come from `stream_api!` (`net/stream.rs`) and
//! `stream_halves!` (`net/split.rs`).
//!
//! The macros name everything by its full path: they expand in the
//! protocol modules.

/// `AsyncRead` for each type listed.
macro_rules! impl_async_read {
    ($($ty:ty),*) => {$(
        impl ::futures_io::AsyncRead for $ty {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.stream().poll_read_priv(cx, buf)
            }
        }

        #[cfg(feature = "tokio-io")]
        impl ::tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut ::tokio::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                self.stream().poll_read_buf_priv(cx, buf)
            }
        }
    )*};
}

pub(crate) use impl_async_read;

/// `AsyncWrite` for each type listed; closing (futures) or shutting down
/// (tokio) sends FIN.
macro_rules! impl_async_write {
    ($($ty:ty),*) => {$(
        impl ::futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.stream().poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.stream().poll_write_vectored_priv(cx, bufs)
            }

            /// Writes are not buffered: nothing to flush.
            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }

            /// Closes the write side (sends FIN); reading goes on.
            fn poll_close(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(self.stream().shutdown_write())
            }
        }

        #[cfg(feature = "tokio-io")]
        impl ::tokio::io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.stream().poll_write_priv(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.stream().poll_write_vectored_priv(cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            /// Writes are not buffered: nothing to flush.
            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }

            /// Closes the write side (sends FIN); reading goes on.
            fn poll_shutdown(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(self.stream().shutdown_write())
            }
        }
    )*};
}

pub(crate) use impl_async_write;
