//! [`Stdout`] and [`Stderr`]: the process's output streams, written on the
//! blocking pool (the engine is in `blocking.rs`).

use std::fmt;
use std::io;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::blocking::{Output, Writer};

/// A handle to the process's standard output; like `tokio::io::Stdout`.
/// Made by [`stdout`].
///
/// It implements [`AsyncWrite`](super::AsyncWrite) (and futures-io's
/// `AsyncWrite`). Each write runs `std::io::Stdout::write_all` on the
/// blocking pool of the `lawn_rt` runtime that polls it, so a task never
/// blocks its worker on a slow terminal or a full pipe:
///
/// - **A write returns once its bytes are copied** (up to 2 MiB of them:
///   a longer buffer is taken in several writes). The handle has one write
///   in flight at a time; its next write or flush waits for it and
///   returns its error, if any.
/// - **Order**: the writes of one handle reach stdout in the order they
///   were made. Each [`stdout`] call makes a *new* handle with its own
///   write in flight, and different handles are not ordered against each
///   other: make one handle and keep it (not one per line in a loop).
/// - **Whole writes**: each write (so each `write_all` of up to 2 MiB) is
///   written under std's stdout lock, so no other write of this process
///   (another handle, another task, `println!`) lands inside it. Lines
///   written with one `write_all` each are never mixed; a `write_all` of
///   more than 2 MiB may be.
/// - **Buffering**: as with `std::io::stdout`, bytes after the last
///   newline wait in std's line buffer until the next newline, a
///   [`flush`](super::AsyncWriteExt::flush), or the process's exit by a
///   return from `main`. A flush waits until they have been handed to the
///   OS.
/// - **Dropped handles**: a write the handle accepted is written even if
///   the handle, or the future that wrote, is dropped right after; the
///   runtime's shutdown waits for such writes (see
///   [`Runtime::shutdown_timeout`](crate::runtime::Runtime::shutdown_timeout)).
///   Only their errors go unheard.
/// - `shutdown()` flushes (tokio's does nothing).
///
/// # Panics
///
/// A write or flush polled outside a `lawn_rt` runtime panics, with a
/// message naming the line that called [`stdout`]. Making the handle
/// never panics: it may be made before the runtime starts.
///
/// # Examples
///
/// One handle for a whole loop, so the lines come out in order:
///
/// ```
/// use lawn_rt::io::{self, AsyncWriteExt};
///
/// #[lawn_rt::main]
/// async fn main() -> io::Result<()> {
///     let mut out = io::stdout();
///     for word in ["one", "two", "three"] {
///         out.write_all(format!("{word}\n").as_bytes()).await?;
///     }
///     out.write_all(b"no newline yet").await?;
///     out.flush().await // pushes out the last, unterminated line
/// }
/// ```
pub struct Stdout {
    writer: Writer,
    #[cfg(unix)]
    std: io::Stdout,
}

/// A new handle to the process's standard output; like
/// `tokio::io::stdout`. See [`Stdout`] for how writes behave.
///
/// Each call makes a new handle: writes through different handles are not
/// ordered against each other, and flushing one handle does not wait for
/// a write still in flight on another (so `stdout().flush()` on a fresh
/// handle flushes nothing of an earlier handle's: flush the handle you
/// wrote with).
///
/// # Panics
///
/// Never here; a write or flush polled outside a `lawn_rt` runtime
/// panics, naming the line that called `stdout`.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::AsyncWriteExt;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// let mut out = lawn_rt::io::stdout(); // may be made outside the runtime
/// rt.block_on(async {
///     out.write_all(b"hello, world\n").await?;
///     out.flush().await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn stdout() -> Stdout {
    Stdout {
        writer: Writer::new(Output::Stdout, Location::caller()),
        #[cfg(unix)]
        std: io::stdout(),
    }
}

/// A handle to the process's standard error; like `tokio::io::Stderr`.
/// Made by [`stderr`].
///
/// It behaves as [`Stdout`] does (writes on the blocking pool, one in
/// flight per handle, each write of up to 2 MiB whole under std's lock,
/// accepted writes written even if the handle is dropped), except that
/// std does not buffer stderr: once a write has finished (the next write
/// or a flush has returned), its bytes are with the OS.
///
/// # Panics
///
/// A write or flush polled outside a `lawn_rt` runtime panics, with a
/// message naming the line that called [`stderr`].
///
/// # Examples
///
/// ```
/// use lawn_rt::io::{self, AsyncWriteExt};
///
/// #[lawn_rt::main]
/// async fn main() -> io::Result<()> {
///     let mut err = io::stderr();
///     err.write_all(b"warning: something to see\n").await?;
///     err.flush().await // waits for the write and reports its error
/// }
/// ```
pub struct Stderr {
    writer: Writer,
    #[cfg(unix)]
    std: io::Stderr,
}

/// A new handle to the process's standard error; like
/// `tokio::io::stderr`. See [`Stderr`].
///
/// Each call makes a new handle: writes through different handles are not
/// ordered against each other.
///
/// # Panics
///
/// Never here; a write or flush polled outside a `lawn_rt` runtime
/// panics, naming the line that called `stderr`.
///
/// # Examples
///
/// ```
/// use lawn_rt::io::AsyncWriteExt;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let task = lawn_rt::spawn(async {
///         lawn_rt::io::stderr().write_all(b"logged from a task\n").await
///     });
///     task.await.unwrap()
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn stderr() -> Stderr {
    Stderr {
        writer: Writer::new(Output::Stderr, Location::caller()),
        #[cfg(unix)]
        std: io::stderr(),
    }
}

/// The `AsyncWrite` impls (tokio's and futures-io's) and `Debug` of each
/// output handle; `AsRawFd` and `AsFd` on Unix.
macro_rules! output_handle {
    ($($ty:ident),*) => {$(
        impl tokio::io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.get_mut().writer.poll_write(cx, buf)
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().writer.poll_flush(cx)
            }

            /// Flushes.
            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().writer.poll_flush(cx)
            }
        }

        impl futures_io::AsyncWrite for $ty {
            fn poll_write(
                self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.get_mut().writer.poll_write(cx, buf)
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().writer.poll_flush(cx)
            }

            /// Flushes.
            fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                self.get_mut().writer.poll_flush(cx)
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("busy", &self.writer.is_busy())
                    .finish_non_exhaustive()
            }
        }

        #[cfg(unix)]
        impl std::os::fd::AsRawFd for $ty {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                std::os::fd::AsRawFd::as_raw_fd(&self.std)
            }
        }

        #[cfg(unix)]
        impl std::os::fd::AsFd for $ty {
            fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
                std::os::fd::AsFd::as_fd(&self.std)
            }
        }
    )*};
}

output_handle!(Stdout, Stderr);
