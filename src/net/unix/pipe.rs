//! Unix pipes and FIFOs on the runtime's park loop, like
//! `tokio::net::unix::pipe`: [`pipe`] makes an anonymous pipe,
//! [`OpenOptions`] opens a named one (a FIFO), and [`Sender`] and
//! [`Receiver`] are its two ends, each one mio pipe end registered with the
//! I/O driver of the runtime entered where it was made. Linux and Android.
//!
//! Ground rules (those of `runtime::io`): every operation waits for
//! readiness, tries the call, and on `WouldBlock` clears the readiness it
//! saw and waits again. A [`Receiver`] reads 0 bytes once every writer has
//! closed the pipe (its readiness says read-closed); a [`Sender`] whose
//! readers have all gone fails with `BrokenPipe` (readiness: an error).
//! Shutting a `Sender` down through `AsyncWrite` does nothing, as in tokio:
//! the reader sees the end when the `Sender` is dropped.
//!
//! ```
//! use futures::io::{AsyncReadExt, AsyncWriteExt};
//! use lawn_rt::net::unix::pipe;
//!
//! let rt = lawn_rt::runtime::Runtime::new()?;
//! rt.block_on(async {
//!     let (mut tx, mut rx) = pipe::pipe()?;
//!     let writer = lawn_rt::spawn(async move {
//!         tx.write_all(b"hello").await?;
//!         Ok::<_, std::io::Error>(()) // dropping `tx` ends the stream
//!     });
//!     let mut text = String::new();
//!     rx.read_to_string(&mut text).await?;
//!     assert_eq!(text, "hello");
//!     writer.await.unwrap()
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::File;
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::task::{Context, Poll};

use mio::unix::pipe as mio_pipe;
use rustix::fs::OFlags;

use crate::io::{Interest, Ready};
use crate::net::ops;
use crate::runtime::io::{
    current, pipe_async_read, pipe_async_write, Direction, PipeReader, PipeWriter,
};

/// Makes an anonymous pipe and registers both ends with the runtime
/// entered here; like `tokio::net::unix::pipe::pipe`.
///
/// For a child process's standard streams, `Stdio::piped()` with
/// [`process::Command`](crate::process::Command) is the shorter way; a
/// pipe end goes to a child as a `Stdio` through
/// [`Sender::into_blocking_fd`] or [`Receiver::into_blocking_fd`].
///
/// # Errors
///
/// If the system cannot make the pipe (out of descriptors, say) or the
/// runtime's driver has shut down.
///
/// # Panics
///
/// Outside a `lawn_rt` runtime with I/O enabled (the message names the
/// caller's line).
///
/// # Examples
///
/// A child writes into the pipe; the task reads it:
///
/// ```
/// use futures::io::AsyncReadExt;
/// use lawn_rt::net::unix::pipe;
/// use lawn_rt::process::Command;
///
/// #[lawn_rt::main]
/// async fn main() -> std::io::Result<()> {
///     let (tx, mut rx) = pipe::pipe()?;
///     let status = Command::new("echo").arg("hi").stdout(tx.into_blocking_fd()?).status();
///     let mut text = String::new();
///     rx.read_to_string(&mut text).await?;
///     assert!(status.await?.success());
///     assert_eq!(text, "hi\n");
///     Ok(())
/// }
/// ```
#[track_caller]
pub fn pipe() -> io::Result<(Sender, Receiver)> {
    let (tx, rx) = mio_pipe::new()?;
    Ok((Sender::register(tx)?, Receiver::register(rx)?))
}

/// How [`OpenOptions::open_sender`] and [`OpenOptions::open_receiver`]
/// open a FIFO (a named pipe); like `tokio::net::unix::pipe::OpenOptions`.
///
/// The file is opened non-blocking and close-on-exec, then (unless
/// [`unchecked`](OpenOptions::unchecked)) checked to be a FIFO. A
/// `Receiver` opens at once whether or not a writer has the FIFO open; a
/// `Sender` opened while no reader has it fails with the system's `ENXIO`,
/// unless [`read_write`](OpenOptions::read_write) is set.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::unix::pipe::OpenOptions;
///
/// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-fifo-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let path = dir.join("fifo");
/// std::process::Command::new("mkfifo").arg(&path).status()?;
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let mut rx = OpenOptions::new().open_receiver(&path)?; // first: a reader
///     let mut tx = OpenOptions::new().open_sender(&path)?;
///     tx.write_all(b"via the fifo").await?;
///     drop(tx);
///     let mut text = String::new();
///     rx.read_to_string(&mut text).await?;
///     assert_eq!(text, "via the fifo");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    read_write: bool,
    unchecked: bool,
}

/// Which end a FIFO is opened as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Sender,
    Receiver,
}

impl OpenOptions {
    /// The default options: open only for the end's own direction, and
    /// check that the file is a FIFO.
    ///
    /// # Examples
    ///
    /// ```
    /// let options = lawn_rt::net::unix::pipe::OpenOptions::new();
    /// # drop(options);
    /// ```
    #[must_use]
    pub fn new() -> OpenOptions {
        OpenOptions::default()
    }

    /// Opens the FIFO for reading and writing (Linux's behaviour; POSIX
    /// leaves it undefined). A `Sender` then opens with no reader present
    /// (its writes wait until one comes, as the pipe fills), and a
    /// `Receiver` never sees the end of the stream, since it holds a
    /// writer itself.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::unix::pipe::OpenOptions;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-fifo-rw-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("fifo");
    /// std::process::Command::new("mkfifo").arg(&path).status()?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// // No reader yet: only a read-write open succeeds.
    /// assert!(OpenOptions::new().open_sender(&path).is_err());
    /// let tx = OpenOptions::new().read_write(true).open_sender(&path)?;
    /// # drop(tx);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_write(&mut self, value: bool) -> &mut OpenOptions {
        self.read_write = value;
        self
    }

    /// Skips the check that the opened file is a FIFO (for a caller that
    /// just made it, say).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::unix::pipe::OpenOptions;
    ///
    /// # let dir = std::env::temp_dir().join(format!("lawn-rt-doc-fifo-u-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("fifo");
    /// std::process::Command::new("mkfifo").arg(&path).status()?;
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// let rx = OpenOptions::new().unchecked(true).open_receiver(&path)?;
    /// # drop(rx);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn unchecked(&mut self, value: bool) -> &mut OpenOptions {
        self.unchecked = value;
        self
    }

    /// Opens the FIFO at `path` for reading and registers it with the
    /// runtime entered here.
    ///
    /// # Errors
    ///
    /// What `open(2)` says, or `InvalidInput` (unless
    /// [`unchecked`](OpenOptions::unchecked)) if the file is not a FIFO.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// A regular file is refused:
    ///
    /// ```
    /// use lawn_rt::net::unix::pipe::OpenOptions;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let _guard = rt.enter();
    /// let err = OpenOptions::new().open_receiver("Cargo.toml").unwrap_err();
    /// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn open_receiver(&self, path: impl AsRef<Path>) -> io::Result<Receiver> {
        let file = self.open(path.as_ref(), End::Receiver)?;
        Receiver::register(file)
    }

    /// Opens the FIFO at `path` for writing and registers it with the
    /// runtime entered here.
    ///
    /// # Errors
    ///
    /// What `open(2)` says (`raw_os_error()` is `ENXIO`, 6, if no reader
    /// has the FIFO open and [`read_write`](OpenOptions::read_write) is
    /// not set), or `InvalidInput` (unless
    /// [`unchecked`](OpenOptions::unchecked)) if the file is not a FIFO.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// See [`OpenOptions`].
    #[track_caller]
    pub fn open_sender(&self, path: impl AsRef<Path>) -> io::Result<Sender> {
        let file = self.open(path.as_ref(), End::Sender)?;
        Sender::register(file)
    }

    fn open(&self, path: &Path, end: End) -> io::Result<File> {
        let mut options = std::fs::OpenOptions::new();
        options
            .read(end == End::Receiver || self.read_write)
            .write(end == End::Sender || self.read_write)
            .custom_flags(OFlags::NONBLOCK.bits() as i32);
        let file = options.open(path)?;
        if !self.unchecked {
            check_fifo(&file)?;
        }
        Ok(file)
    }
}

/// `InvalidInput` unless `file` is a pipe or a FIFO.
fn check_fifo(file: &File) -> io::Result<()> {
    if file.metadata()?.file_type().is_fifo() {
        Ok(())
    } else {
        Err(io::Error::new(io::ErrorKind::InvalidInput, "not a pipe"))
    }
}

/// Takes `fd` if it is a pipe open for `end`'s direction, and makes it
/// non-blocking.
fn checked(fd: OwnedFd, end: End) -> io::Result<OwnedFd> {
    let file = File::from(fd);
    check_fifo(&file)?;
    let mode = rustix::fs::fcntl_getfl(&file)? & OFlags::ACCMODE;
    let (wanted, name) = match end {
        End::Sender => (OFlags::WRONLY, "O_WRONLY"),
        End::Receiver => (OFlags::RDONLY, "O_RDONLY"),
    };
    if mode != wanted && mode != OFlags::RDWR {
        let msg = format!("not in {name} or O_RDWR access mode");
        return Err(io::Error::new(io::ErrorKind::InvalidInput, msg));
    }
    let fd = OwnedFd::from(file);
    rustix::fs::fcntl_setfl(&fd, rustix::fs::fcntl_getfl(&fd)? | OFlags::NONBLOCK)?;
    Ok(fd)
}

/// The writing end of a pipe; like `tokio::net::unix::pipe::Sender`.
///
/// Writes wait on the runtime's park loop while the pipe is full. See the
/// [module](self) for what happens when the readers go.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncWriteExt};
/// use lawn_rt::net::unix::pipe;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let (mut tx, mut rx) = pipe::pipe()?;
///     tx.write_all(b"ping").await?;
///     let mut buf = [0; 4];
///     rx.read_exact(&mut buf).await?;
///     assert_eq!(&buf, b"ping");
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Sender {
    pipe: PipeWriter,
}

/// The reading end of a pipe; like `tokio::net::unix::pipe::Receiver`.
///
/// Reads wait on the runtime's park loop until data comes; a read of 0
/// bytes means every writer has closed the pipe.
///
/// # Examples
///
/// ```
/// use futures::io::AsyncReadExt;
/// use lawn_rt::net::unix::pipe;
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let (tx, mut rx) = pipe::pipe()?;
///     drop(tx);
///     let mut buf = [0; 4];
///     assert_eq!(rx.read(&mut buf).await?, 0); // no writer left
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Receiver {
    pipe: PipeReader,
}

/// What both ends have, by the same rules: construction from a file or a
/// descriptor, readiness, `try_io`, and giving the descriptor back.
/// `$end` is the type (and its mio type's name), `$core` the pipe end it
/// holds, `$which` its [`End`], `$direction` the `Direction` its
/// operations wait for, `$mode` the access mode it needs, and `$this` the
/// end's name in the examples (where `pipe::pipe()` gives `(tx, rx)`).
macro_rules! pipe_end {
    (
        $end:ident,
        $core:ident,
        $which:expr,
        $direction:expr,
        $mode:literal,
        this: $this:literal $(,)?
    ) => {
        impl $end {
            #[track_caller]
            fn register(fd: impl Into<OwnedFd>) -> io::Result<$end> {
                let pipe = <mio_pipe::$end>::from(fd.into());
                Ok($end {
                    pipe: $core::new(pipe, current())?,
                })
            }

            #[doc = concat!("Takes over `file`, which must be a pipe or a FIFO open")]
            #[doc = concat!("in ", $mode, " or `O_RDWR` mode, makes it non-blocking and")]
            /// registers it with the runtime entered here.
            ///
            /// # Errors
            ///
            /// `InvalidInput` if it is not a pipe or not open in that mode
            /// (`file` is closed then); or if it cannot be registered.
            ///
            /// # Panics
            ///
            /// Outside a `lawn_rt` runtime with I/O enabled.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use lawn_rt::net::unix::pipe::", stringify!($end), ";")]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// let _guard = rt.enter();
            /// let file = std::fs::File::open("Cargo.toml")?;
            #[doc = concat!("let err = ", stringify!($end), "::from_file(file).unwrap_err();")]
            /// assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[track_caller]
            pub fn from_file(file: File) -> io::Result<$end> {
                $end::from_owned_fd(file.into())
            }

            /// [`from_file`](Self::from_file) for a descriptor.
            ///
            /// # Errors
            ///
            /// As [`from_file`](Self::from_file).
            ///
            /// # Panics
            ///
            /// Outside a `lawn_rt` runtime with I/O enabled.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use lawn_rt::net::unix::pipe::{self, ", stringify!($end), "};")]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// let _guard = rt.enter();
            /// let (tx, rx) = pipe::pipe()?;
            #[doc = concat!("let fd = ", $this, ".into_blocking_fd()?;")]
            #[doc = concat!("let again = ", stringify!($end), "::from_owned_fd(fd)?; // non-blocking again")]
            /// # drop(again);
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[track_caller]
            pub fn from_owned_fd(fd: OwnedFd) -> io::Result<$end> {
                $end::register(checked(fd, $which)?)
            }

            /// Takes over `file` as it is: the caller makes sure it is the
            #[doc = concat!("right end of a pipe (", $mode, " or `O_RDWR`), already")]
            /// non-blocking.
            ///
            /// # Errors
            ///
            /// If it cannot be registered.
            ///
            /// # Panics
            ///
            /// Outside a `lawn_rt` runtime with I/O enabled.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use lawn_rt::net::unix::pipe::{self, ", stringify!($end), "};")]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// let _guard = rt.enter();
            /// let (tx, rx) = pipe::pipe()?;
            #[doc = concat!("let file = std::fs::File::from(", $this, ".into_nonblocking_fd()?);")]
            #[doc = concat!("let again = ", stringify!($end), "::from_file_unchecked(file)?;")]
            /// # drop(again);
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[track_caller]
            pub fn from_file_unchecked(file: File) -> io::Result<$end> {
                $end::register(file)
            }

            /// [`from_file_unchecked`](Self::from_file_unchecked) for a
            /// descriptor.
            ///
            /// # Errors
            ///
            /// If it cannot be registered.
            ///
            /// # Panics
            ///
            /// Outside a `lawn_rt` runtime with I/O enabled.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use lawn_rt::net::unix::pipe::{self, ", stringify!($end), "};")]
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// let _guard = rt.enter();
            /// let (tx, rx) = pipe::pipe()?;
            #[doc = concat!("let fd = ", $this, ".into_nonblocking_fd()?;")]
            #[doc = concat!("let again = ", stringify!($end), "::from_owned_fd_unchecked(fd)?;")]
            /// # drop(again);
            /// # Ok::<(), std::io::Error>(())
            /// ```
            #[track_caller]
            pub fn from_owned_fd_unchecked(fd: OwnedFd) -> io::Result<$end> {
                $end::register(fd)
            }

            /// Waits until the pipe end is ready for any of `interest`,
            /// and says what it found (which may be stale: a `try_*` call
            /// that gets `WouldBlock` clears it). Any number of tasks may
            /// wait at once; each is woken.
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
            /// use lawn_rt::net::unix::pipe;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            ///     let (tx, rx) = pipe::pipe()?;
            ///     assert!(tx.ready(Interest::WRITABLE).await?.is_writable());
            ///     drop(tx);
            ///     assert!(rx.ready(Interest::READABLE).await?.is_read_closed());
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub async fn ready(&self, interest: Interest) -> io::Result<Ready> {
                let event = self.pipe.registration().ready(interest.direction()).await?;
                Ok(Ready::from_bits(event.ready))
            }

            /// Runs `f`, a non-blocking call of the caller's own on the
            /// pipe's descriptor, if the end is ready now. A `WouldBlock`
            /// from `f` clears that readiness, so that the next wait
            /// waits for a new event.
            ///
            /// # Errors
            ///
            /// `WouldBlock` if the end is not ready (`f` is not called) or
            /// `f` said so; whatever else `f` returns; an error of kind
            /// `Other` once the runtime has shut down.
            ///
            /// # Examples
            ///
            /// ```
            /// use lawn_rt::net::unix::pipe;
            ///
            /// let rt = lawn_rt::runtime::Runtime::new()?;
            /// rt.block_on(async {
            ///     let (tx, _rx) = pipe::pipe()?;
            ///     tx.writable().await?;
            ///     assert_eq!(tx.try_io(|| Ok(7))?, 7);
            ///     Ok::<_, std::io::Error>(())
            /// })?;
            /// # Ok::<(), std::io::Error>(())
            /// ```
            pub fn try_io<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
                self.pipe.registration().try_io($direction, |_| f())
            }

            /// Deregisters the end and gives back its descriptor, in
            /// blocking mode again (for a child process's standard
            /// stream, say).
            ///
            /// # Errors
            ///
            /// If it cannot be deregistered or made blocking.
            ///
            /// # Examples
            ///
            /// See [`pipe`].
            pub fn into_blocking_fd(self) -> io::Result<OwnedFd> {
                self.pipe.into_fd(true)
            }

            /// Deregisters the end and gives back its descriptor, still
            /// non-blocking.
            ///
            /// # Errors
            ///
            /// If it cannot be deregistered.
            ///
            /// # Examples
            ///
            /// See [`from_owned_fd_unchecked`](Self::from_owned_fd_unchecked).
            pub fn into_nonblocking_fd(self) -> io::Result<OwnedFd> {
                self.pipe.into_fd(false)
            }
        }

    };
}

pipe_end!(
    Sender,
    PipeWriter,
    End::Sender,
    Direction::Write,
    "`O_WRONLY`",
    this: "tx",
);
pipe_end!(
    Receiver,
    PipeReader,
    End::Receiver,
    Direction::Read,
    "`O_RDONLY`",
    this: "rx",
);
pipe_async_write!(Sender);
pipe_async_read!(Receiver);

impl Sender {
    /// Waits until the pipe has room for a write, or every reader has
    /// gone (the write then fails). Use it with
    /// [`try_write`](Sender::try_write).
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
    /// See [`try_write`](Sender::try_write).
    pub async fn writable(&self) -> io::Result<()> {
        ops::ready(self.pipe.registration(), Direction::Write).await
    }

    /// Polls for write readiness: `Ready(Ok(()))` when
    /// [`writable`](Sender::writable) would return, else `Pending`, and
    /// the task is woken when that changes. Only the task of the latest
    /// call is woken (the slot `AsyncWrite` uses too).
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::unix::pipe;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (tx, _rx) = pipe::pipe()?;
    ///     std::future::poll_fn(|cx| tx.poll_write_ready(cx)).await?;
    ///     assert_eq!(tx.try_write(b"x")?, 1);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_write_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ops::poll_ready(self.pipe.registration(), cx, Direction::Write)
    }

    /// Writes what fits of `buf` now, without waiting.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the pipe is full (the readiness is cleared, so
    /// [`writable`](Sender::writable) waits for room); `BrokenPipe` once
    /// every reader has gone.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::ErrorKind::WouldBlock;
    /// use lawn_rt::net::unix::pipe;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (tx, _rx) = pipe::pipe()?;
    ///     let mut sent = 0;
    ///     loop {
    ///         tx.writable().await?;
    ///         match tx.try_write(b"hello") {
    ///             Ok(n) => sent += n,
    ///             Err(e) if e.kind() == WouldBlock => break, // full: nobody reads
    ///             Err(e) => return Err(e),
    ///         }
    ///     }
    ///     assert!(sent >= 4096);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_write(&self, buf: &[u8]) -> io::Result<usize> {
        self.pipe.try_write(buf)
    }

    /// [`try_write`](Sender::try_write) from several buffers in order.
    ///
    /// # Errors
    ///
    /// As [`try_write`](Sender::try_write).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::IoSlice;
    /// use lawn_rt::net::unix::pipe;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (tx, _rx) = pipe::pipe()?;
    ///     tx.writable().await?;
    ///     assert_eq!(tx.try_write_vectored(&[IoSlice::new(b"ab"), IoSlice::new(b"cd")])?, 4);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_write_vectored(&self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.pipe.try_write_vectored(bufs)
    }
}

impl Receiver {
    /// Waits until the pipe holds data, or every writer has closed it
    /// (a read then returns 0). Use it with
    /// [`try_read`](Receiver::try_read).
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: it reads nothing.
    ///
    /// # Examples
    ///
    /// See [`try_read`](Receiver::try_read).
    pub async fn readable(&self) -> io::Result<()> {
        ops::ready(self.pipe.registration(), Direction::Read).await
    }

    /// Polls for read readiness: `Ready(Ok(()))` when
    /// [`readable`](Receiver::readable) would return, else `Pending`, and
    /// the task is woken when that changes. Only the task of the latest
    /// call is woken (the slot `AsyncRead` uses too).
    ///
    /// # Errors
    ///
    /// Only once the runtime has shut down.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::unix::pipe;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (tx, rx) = pipe::pipe()?;
    ///     tx.writable().await?;
    ///     tx.try_write(b"x")?;
    ///     std::future::poll_fn(|cx| rx.poll_read_ready(cx)).await?;
    ///     let mut buf = [0; 4];
    ///     assert_eq!(rx.try_read(&mut buf)?, 1);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ops::poll_ready(self.pipe.registration(), cx, Direction::Read)
    }

    /// Reads what the pipe holds into `buf` now, without waiting; 0 once
    /// every writer has closed it.
    ///
    /// # Errors
    ///
    /// `WouldBlock` if the pipe is empty (the readiness is cleared, so
    /// [`readable`](Receiver::readable) waits for more).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::ErrorKind::WouldBlock;
    /// use lawn_rt::net::unix::pipe;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (tx, rx) = pipe::pipe()?;
    ///     lawn_rt::spawn(async move {
    ///         tx.writable().await?;
    ///         tx.try_write(b"hello")
    ///     });
    ///     let mut buf = [0; 16];
    ///     let n = loop {
    ///         rx.readable().await?;
    ///         match rx.try_read(&mut buf) {
    ///             Ok(n) => break n,
    ///             Err(e) if e.kind() == WouldBlock => continue, // stale
    ///             Err(e) => return Err(e),
    ///         }
    ///     };
    ///     assert_eq!(&buf[..n], b"hello");
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_read(&self, buf: &mut [u8]) -> io::Result<usize> {
        self.pipe.try_read(buf)
    }

    /// [`try_read`](Receiver::try_read) into several buffers in order.
    ///
    /// # Errors
    ///
    /// As [`try_read`](Receiver::try_read).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::IoSliceMut;
    /// use lawn_rt::net::unix::pipe;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (tx, rx) = pipe::pipe()?;
    ///     tx.writable().await?;
    ///     tx.try_write(b"abcd")?;
    ///     rx.readable().await?;
    ///     let (mut a, mut b) = ([0; 2], [0; 2]);
    ///     let n = rx.try_read_vectored(&mut [IoSliceMut::new(&mut a), IoSliceMut::new(&mut b)])?;
    ///     assert_eq!((n, &a, &b), (4, b"ab", b"cd"));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn try_read_vectored(&self, bufs: &mut [IoSliceMut<'_>]) -> io::Result<usize> {
        self.pipe.try_read_vectored(bufs)
    }

    /// [`try_read`](Receiver::try_read) into a `bytes` buffer's spare
    /// capacity (at most 64 KiB at a time), which it then counts as
    /// filled. With feature `tokio-io`.
    ///
    /// # Errors
    ///
    /// As [`try_read`](Receiver::try_read).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::net::unix::pipe;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let (tx, rx) = pipe::pipe()?;
    ///     tx.writable().await?;
    ///     tx.try_write(b"abc")?;
    ///     rx.readable().await?;
    ///     let mut buf = Vec::with_capacity(16);
    ///     assert_eq!(rx.try_read_buf(&mut buf)?, 3);
    ///     assert_eq!(buf, b"abc");
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(feature = "tokio-io")]
    pub fn try_read_buf<B: bytes::BufMut>(&self, buf: &mut B) -> io::Result<usize> {
        self.pipe.try_read_buf(buf)
    }
}
