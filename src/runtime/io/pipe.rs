//! One end of a pipe registered with the I/O driver: the reads, writes and
//! hand-backs that `net::unix::pipe`'s ends and `process`'s child streams
//! share, and the `AsyncRead`/`AsyncWrite` impls they all have (written
//! once, by [`pipe_async_read!`] and [`pipe_async_write!`]).
//!
//! By the rules of this module's parent: every operation waits for
//! readiness, tries, and on `WouldBlock` clears what it saw and waits
//! again.

use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::Arc;
use std::task::{Context, Poll};

use mio::unix::pipe as mio_pipe;
use mio::Interest;

use super::{Direction, Driver, Registration};

/// The reading end of a pipe.
pub(crate) struct PipeReader {
    io: Registration<mio_pipe::Receiver>,
}

/// The writing end of a pipe.
pub(crate) struct PipeWriter {
    io: Registration<mio_pipe::Sender>,
}

impl PipeReader {
    /// Registers `pipe` (as it is: blocking or not) with `driver`.
    pub(crate) fn new(pipe: mio_pipe::Receiver, driver: Arc<Driver>) -> io::Result<PipeReader> {
        let io = Registration::with_driver(driver, pipe, Interest::READABLE)?;
        Ok(PipeReader { io })
    }

    pub(crate) fn registration(&self) -> &Registration<mio_pipe::Receiver> {
        &self.io
    }

    pub(crate) fn poll_read(
        &self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Read, |mut pipe| pipe.read(buf))
    }

    #[cfg(feature = "tokio-io")]
    pub(crate) fn poll_read_buf(
        &self,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.io
            .poll_read_buf(cx, buf, |mut pipe, dst| pipe.read(dst).map(|n| (n, ())))
    }

    pub(crate) fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |mut pipe| pipe.read(buf))
    }

    #[cfg(feature = "tokio-io")]
    pub(crate) fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.io.try_io(Direction::Read, |mut pipe| {
            super::read_into_buf_mut(buf, |dst| pipe.read(dst).map(|n| (n, n)))
        })
    }

    pub(crate) fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Read, |mut pipe| pipe.read_vectored(bufs))
    }

    /// Deregisters the end and gives back its descriptor, made blocking
    /// again if `blocking`.
    pub(crate) fn into_fd(self, blocking: bool) -> io::Result<OwnedFd> {
        let pipe = self.io.into_inner()?;
        if blocking {
            pipe.set_nonblocking(false)?;
        }
        Ok(OwnedFd::from(pipe))
    }
}

impl PipeWriter {
    /// Registers `pipe` (as it is: blocking or not) with `driver`.
    pub(crate) fn new(pipe: mio_pipe::Sender, driver: Arc<Driver>) -> io::Result<PipeWriter> {
        let io = Registration::with_driver(driver, pipe, Interest::WRITABLE)?;
        Ok(PipeWriter { io })
    }

    pub(crate) fn registration(&self) -> &Registration<mio_pipe::Sender> {
        &self.io
    }

    pub(crate) fn poll_write(&self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |mut pipe| pipe.write(buf))
    }

    pub(crate) fn poll_write_vectored(
        &self,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.io
            .poll_io(cx, Direction::Write, |mut pipe| pipe.write_vectored(bufs))
    }

    pub(crate) fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.io.try_io(Direction::Write, |mut pipe| pipe.write(buf))
    }

    pub(crate) fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.io
            .try_io(Direction::Write, |mut pipe| pipe.write_vectored(bufs))
    }

    /// Deregisters the end and gives back its descriptor, made blocking
    /// again if `blocking`.
    pub(crate) fn into_fd(self, blocking: bool) -> io::Result<OwnedFd> {
        let pipe = self.io.into_inner()?;
        if blocking {
            pipe.set_nonblocking(false)?;
        }
        Ok(OwnedFd::from(pipe))
    }
}

impl AsRawFd for PipeReader {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl AsFd for PipeReader {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

impl AsRawFd for PipeWriter {
    fn as_raw_fd(&self) -> RawFd {
        self.io.get_ref().as_raw_fd()
    }
}

impl AsFd for PipeWriter {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.io.get_ref().as_fd()
    }
}

/// `AsyncRead` (futures-io's, and tokio's with `tokio-io`), `AsRawFd`,
/// `AsFd` and a `Debug` that shows the descriptor, for each type listed,
/// whose field `pipe` is a [`PipeReader`].
macro_rules! pipe_async_read {
    ($($ty:ty),*) => {$(
        impl ::futures_io::AsyncRead for $ty {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut [u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.pipe.poll_read(cx, buf)
            }
        }

        #[cfg(feature = "tokio-io")]
        impl ::tokio::io::AsyncRead for $ty {
            fn poll_read(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &mut ::tokio::io::ReadBuf<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                self.pipe.poll_read_buf(cx, buf)
            }
        }

        $crate::runtime::io::pipe_fd_traits!($ty);
    )*};
}

/// `AsyncWrite` (futures-io's, and tokio's with `tokio-io`), `AsRawFd`,
/// `AsFd` and `Debug`, for each type listed, whose field `pipe` is a
/// [`PipeWriter`]. Writes are not buffered, so a flush does nothing; and
/// so does a close or shutdown, as in tokio: the reading end sees the end
/// of the stream when the writer is dropped.
macro_rules! pipe_async_write {
    ($($ty:ty),*) => {$(
        impl ::futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.pipe.poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.pipe.poll_write_vectored(cx, bufs)
            }

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }

            fn poll_close(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }
        }

        #[cfg(feature = "tokio-io")]
        impl ::tokio::io::AsyncWrite for $ty {
            fn poll_write(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                buf: &[u8],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.pipe.poll_write(cx, buf)
            }

            fn poll_write_vectored(
                self: ::std::pin::Pin<&mut Self>,
                cx: &mut ::std::task::Context<'_>,
                bufs: &[::std::io::IoSlice<'_>],
            ) -> ::std::task::Poll<::std::io::Result<usize>> {
                self.pipe.poll_write_vectored(cx, bufs)
            }

            fn is_write_vectored(&self) -> bool {
                true
            }

            fn poll_flush(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }

            fn poll_shutdown(
                self: ::std::pin::Pin<&mut Self>,
                _: &mut ::std::task::Context<'_>,
            ) -> ::std::task::Poll<::std::io::Result<()>> {
                ::std::task::Poll::Ready(Ok(()))
            }
        }

        $crate::runtime::io::pipe_fd_traits!($ty);
    )*};
}

/// `AsRawFd`, `AsFd` and `Debug` for a type whose field `pipe` is a pipe
/// end.
macro_rules! pipe_fd_traits {
    ($ty:ty) => {
        impl ::std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> ::std::os::fd::RawFd {
                self.pipe.as_raw_fd()
            }
        }

        impl ::std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> ::std::os::fd::BorrowedFd<'_> {
                self.pipe.as_fd()
            }
        }

        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("fd", &::std::os::fd::AsRawFd::as_raw_fd(self))
                    .finish()
            }
        }
    };
}

pub(crate) use {pipe_async_read, pipe_async_write, pipe_fd_traits};
