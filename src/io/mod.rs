//! Asynchronous I/O, as `tokio::io`: readiness ([`Interest`], [`Ready`],
//! and [`unix::AsyncFd`] for any file descriptor) on `lawn_rt`'s own park
//! loop; with feature `tokio-io`, tokio's traits and adapters, re-exported,
//! and the process's standard streams on `lawn_rt`'s blocking pool. Code
//! written against `tokio::io` ports by changing the crate path.
//!
//! # What is here
//!
//! - **Re-exported from tokio** (feature `tokio-io`; the same items, so
//!   they mix with crates built on tokio-io): the traits `AsyncRead`, `AsyncWrite`,
//!   `AsyncBufRead`, `AsyncSeek` and their extensions
//!   `AsyncReadExt`, `AsyncWriteExt`, `AsyncBufReadExt`,
//!   `AsyncSeekExt`; `ReadBuf`; the adapters `BufReader`,
//!   `BufWriter`, `BufStream`, `Lines`, `Split`, `Take`,
//!   `Chain`, `Join` and `join`, `ReadHalf`, `WriteHalf` and
//!   `split`; `copy_bidirectional`, `copy_bidirectional_with_sizes`;
//!   and std's `Error`, `ErrorKind`, `Result` and `SeekFrom`. These are
//!   plain traits and adapters: none of them needs tokio's runtime, and
//!   `lawn_rt`'s sockets and files implement the traits.
//! - **Wrapped, to count `lawn_rt`'s cooperative budget** (feature
//!   `tokio-io`): `copy`, `copy_buf`, the in-memory streams
//!   `duplex`/`DuplexStream` and `simplex`/`SimplexStream`,
//!   `empty`/`Empty`, `repeat`/`Repeat` and `sink`/`Sink`.
//!   They behave as tokio's, whose they wrap, and like tokio's each
//!   completed read or write spends a unit of the task's budget, so a
//!   loop over one that is always ready yields to the runtime now and
//!   then (tokio's count only tokio's budget, which a `lawn_rt` runtime
//!   does not set). They are `lawn_rt`'s types, not tokio's.
//! - **`lawn_rt`'s own standard streams** (feature `tokio-io`): `stdin`, `stdout`, `stderr` (`Stdin`,
//!   `Stdout`, `Stderr`), with tokio's behaviour: each blocking
//!   `std::io` call runs on the blocking pool of the `lawn_rt` runtime that
//!   polls the handle (see `Stdout`).
//! - **`lawn_rt`'s own readiness** (always, without `tokio-io`):
//!   [`Interest`] and [`Ready`], which the sockets of [`net`](crate::net)
//!   take and give (`ready`, `try_io`, `async_io`), and
//!   [`unix::AsyncFd`], which waits for readiness of any file descriptor
//!   (a pipe, an `eventfd`, a device) on the runtime's own mio poll. On
//!   Linux and Android `Interest::PRIORITY` waits for priority data
//!   (`EPOLLPRI`) on an `AsyncFd` registered for it.
//!
//! The list is explicit, not a glob of `tokio::io`: a glob would also
//! bring in tokio's `stdout()` and `AsyncFd` whenever some other crate in
//! the build enables tokio's `io-std` or `net`, and those panic inside a
//! `lawn_rt` runtime (they need tokio's).
//!
//! ```
//! use lawn_rt::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//! use lawn_rt::net::{TcpListener, TcpStream};
//!
//! let rt = lawn_rt::runtime::Runtime::new()?;
//! rt.block_on(async {
//!     let listener = TcpListener::bind("127.0.0.1:0").await?;
//!     let addr = listener.local_addr()?;
//!     let server = lawn_rt::spawn(async move {
//!         let (stream, _) = listener.accept().await?;
//!         let (read, mut write) = stream.into_split();
//!         let mut line = String::new();
//!         BufReader::new(read).read_line(&mut line).await?;
//!         write.write_all(line.to_uppercase().as_bytes()).await
//!     });
//!     let mut client = TcpStream::connect(addr).await?;
//!     client.write_all(b"ping\n").await?;
//!     let mut reply = String::new();
//!     BufReader::new(&mut client).read_line(&mut reply).await?;
//!     assert_eq!(reply, "PING\n");
//!     server.await.unwrap()
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! The standard streams, from tasks:
//!
//! ```
//! use lawn_rt::io::{self, AsyncWriteExt};
//!
//! #[lawn_rt::main]
//! async fn main() -> io::Result<()> {
//!     let task = lawn_rt::spawn(async {
//!         let mut out = io::stdout();
//!         out.write_all(b"hello from a task\n").await?;
//!         out.flush().await
//!     });
//!     task.await.unwrap()?;
//!     io::stderr().write_all(b"and a note on stderr\n").await
//! }
//! ```

#[cfg(feature = "tokio-io")]
mod blocking;
mod ready;
#[cfg(feature = "tokio-io")]
mod stdin;
#[cfg(feature = "tokio-io")]
mod stdout;
#[cfg(unix)]
pub mod unix;
#[cfg(feature = "tokio-io")]
mod util;

pub use ready::{Interest, Ready};
#[cfg(feature = "tokio-io")]
pub use stdin::{stdin, Stdin};
#[cfg(feature = "tokio-io")]
pub use stdout::{stderr, stdout, Stderr, Stdout};

#[cfg(feature = "tokio-io")]
pub use tokio::io::{
    copy_bidirectional, copy_bidirectional_with_sizes, join, split, AsyncBufRead, AsyncBufReadExt,
    AsyncRead, AsyncReadExt, AsyncSeek, AsyncSeekExt, AsyncWrite, AsyncWriteExt, BufReader,
    BufStream, BufWriter, Chain, Join, Lines, ReadBuf, ReadHalf, Split, Take, WriteHalf,
};
#[cfg(feature = "tokio-io")]
pub use util::{
    copy, copy_buf, duplex, empty, repeat, simplex, sink, DuplexStream, Empty, Repeat,
    SimplexStream, Sink,
};

// As tokio does: so that `use lawn_rt::io::{self, ...}` and `std::io` do
// not clash.
#[doc(no_inline)]
pub use std::io::{Error, ErrorKind, Result, SeekFrom};

/// The readiness types are `lawn_rt`'s own, not tokio's, even though this
/// crate's own tests build tokio with `net` (which has `io::unix::AsyncFd`,
/// `Interest` and `Ready`, bound to tokio's reactor): the first block shows
/// tokio's exist there, and the `compile_fail` blocks that ours are other
/// types (they would compile with a glob re-export of `tokio::io`).
///
/// ```
/// use tokio::io::unix::AsyncFd;
/// use tokio::io::{Interest, Ready};
///
/// use lawn_rt::io::{stdout, AsyncWrite, Stdout};
/// fn writes<W: AsyncWrite>(_: &W) {}
/// writes::<Stdout>(&stdout());
/// ```
///
/// ```compile_fail
/// let _: tokio::io::Interest = lawn_rt::io::Interest::READABLE;
/// ```
///
/// ```compile_fail
/// let _: tokio::io::Ready = lawn_rt::io::Ready::READABLE;
/// ```
///
/// ```compile_fail
/// fn ours(fd: tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>) -> lawn_rt::io::unix::AsyncFd<std::os::fd::OwnedFd> {
///     fd
/// }
/// ```
#[cfg(doctest)]
pub struct NotReexported;
