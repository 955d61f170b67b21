//! [`Stdin`]: the process's standard input, read on the blocking pool (the
//! engine is in `blocking.rs`).

use std::fmt;
use std::io;
use std::panic::Location;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use super::blocking::Reader;

/// A handle to the process's standard input; like `tokio::io::Stdin`.
/// Made by [`stdin`].
///
/// It implements [`AsyncRead`](super::AsyncRead) (and futures-io's
/// `AsyncRead`); wrap it in a [`BufReader`](super::BufReader) to read
/// lines. Each read runs `std::io::Stdin::read` on the blocking pool of
/// the `lawn_rt` runtime that polls it, asking for at most the caller's
/// buffer length (and 2 MiB). One read is in flight at a time.
///
/// A blocking read cannot be cancelled. Dropping the future that reads
/// leaves the read running: its bytes stay with the handle for its next
/// read (they are lost if the handle is dropped). And a read waiting for
/// input holds a thread of the blocking pool, which the runtime's
/// shutdown waits for: on an interactive terminal that may be until the
/// user presses enter. So, as with tokio, `Stdin` suits piped input best;
/// for interactive input, read `std::io::stdin` on a thread of your own,
/// or end the runtime with
/// [`shutdown_timeout`](crate::runtime::Runtime::shutdown_timeout).
///
/// # Panics
///
/// A read polled outside a `lawn_rt` runtime panics, with a message
/// naming the line that called [`stdin`].
///
/// # Examples
///
/// Echoes its input, line by line, in upper case:
///
/// ```no_run
/// use lawn_rt::io::{self, AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// #[lawn_rt::main]
/// async fn main() -> io::Result<()> {
///     let mut lines = BufReader::new(io::stdin()).lines();
///     let mut out = io::stdout();
///     while let Some(line) = lines.next_line().await? {
///         out.write_all(format!("{}\n", line.to_uppercase()).as_bytes()).await?;
///     }
///     out.flush().await
/// }
/// ```
pub struct Stdin {
    reader: Reader,
    #[cfg(unix)]
    std: io::Stdin,
}

/// A new handle to the process's standard input; like `tokio::io::stdin`.
/// See [`Stdin`] for how reads behave.
///
/// Reads go through std's own buffered stdin, so handles (and
/// `std::io::stdin`) share it; bytes one handle has read but not yet
/// handed out are its own.
///
/// # Panics
///
/// Never here; a read polled outside a `lawn_rt` runtime panics, naming
/// the line that called `stdin`.
///
/// # Examples
///
/// Reads everything up to the end of input:
///
/// ```no_run
/// use lawn_rt::io::AsyncReadExt;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// let input = rt.block_on(async {
///     let mut input = Vec::new();
///     lawn_rt::io::stdin().read_to_end(&mut input).await?;
///     Ok::<_, std::io::Error>(input)
/// })?;
/// println!("{} bytes", input.len());
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn stdin() -> Stdin {
    Stdin {
        reader: Reader::new(Location::caller()),
        #[cfg(unix)]
        std: io::stdin(),
    }
}

impl tokio::io::AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let read = ready!(self
            .get_mut()
            .reader
            .poll_read(cx, buf.initialize_unfilled()))?;
        buf.advance(read);
        Poll::Ready(Ok(()))
    }
}

impl futures_io::AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().reader.poll_read(cx, buf)
    }
}

impl fmt::Debug for Stdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stdin")
            .field("busy", &self.reader.is_busy())
            .finish_non_exhaustive()
    }
}

#[cfg(unix)]
impl std::os::fd::AsRawFd for Stdin {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        std::os::fd::AsRawFd::as_raw_fd(&self.std)
    }
}

#[cfg(unix)]
impl std::os::fd::AsFd for Stdin {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        std::os::fd::AsFd::as_fd(&self.std)
    }
}
