//! [`File`]'s `futures-io` traits and, with the feature `tokio-io`,
//! tokio's: the `Pin<&mut Self>` operations, which need no gate.

use std::io::{self, SeekFrom};
use std::pin::Pin;
#[cfg(feature = "tokio-io")]
use std::task::ready;
use std::task::{Context, Poll};

#[cfg(feature = "tokio-io")]
use super::state::{finish, Op, State};
use super::File;

impl futures_io::AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_read(std, cx, buf)
    }
}

impl futures_io::AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write(std, cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write_vectored(std, cx, bufs)
    }

    /// Waits for the write in flight; reports its error.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }

    /// Flushes (a file has nothing to shut down).
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }
}

impl futures_io::AsyncSeek for File {
    fn poll_seek(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        let (std, inner) = self.parts();
        inner.poll_seek(std, cx, pos)
    }
}

#[cfg(feature = "tokio-io")]
impl tokio::io::AsyncRead for File {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let (std, inner) = self.parts();
        let read = ready!(inner.poll_read(std, cx, buf.initialize_unfilled()))?;
        buf.advance(read);
        Poll::Ready(Ok(()))
    }
}

#[cfg(feature = "tokio-io")]
impl tokio::io::AsyncWrite for File {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write(std, cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let (std, inner) = self.parts();
        inner.poll_write_vectored(std, cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    /// Waits for the write in flight; reports its error.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }

    /// Flushes (a file has nothing to shut down).
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.parts().1.poll_flush(cx)
    }
}

#[cfg(feature = "tokio-io")]
impl tokio::io::AsyncSeek for File {
    /// Starts a seek; an error if an operation is in flight (call
    /// `poll_complete` first), as with tokio.
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        let (std, inner) = self.parts();
        if let State::Busy(_) = inner.state {
            return Err(io::Error::other(
                "lawn_rt: `File::start_seek` while another operation of the file is in flight; \
                 call `poll_complete` first",
            ));
        }
        inner.seeking = None;
        inner.start_seek(std, pos);
        Ok(())
    }

    /// Waits for the operation in flight; the position the last seek gave.
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let inner = self.parts().1;
        while let State::Busy(_) = inner.state {
            match ready!(finish(&mut inner.state, cx))? {
                Op::Seek(result) => {
                    if let Ok(at) = result {
                        inner.pos = at;
                    }
                    return Poll::Ready(result);
                }
                other => inner.absorb(other),
            }
        }
        Poll::Ready(Ok(inner.pos))
    }
}
