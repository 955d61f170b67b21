//! A child's piped standard streams: non-blocking pipes registered with the
//! runtime's I/O driver (`runtime::io`'s `PipeReader` and `PipeWriter`,
//! which `net::unix::pipe` shares), read and written by the rules of
//! `runtime::io` (wait for readiness, try, on `WouldBlock` clear and wait).

use std::io;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use mio::unix::pipe::{Receiver, Sender};

use crate::runtime::io::{
    pipe_async_read, pipe_async_write, try_current, Driver, PipeReader, PipeWriter,
};

/// The driver entered here, for `from_std`.
#[track_caller]
fn driver_here() -> Arc<Driver> {
    match try_current() {
        Some(driver) => driver,
        None => panic!("{}", super::OUTSIDE),
    }
}

/// The read end of a pipe from the child, as both stream types hold it.
macro_rules! reader {
    ($name:ident, $std:ty, $what:literal, $field:ident, $shell:literal) => {
        #[doc = concat!("The child's standard ", $what, ", when piped (`Child::", stringify!($field), "`); like `tokio::process::", stringify!($name), "`.")]
        ///
        /// Reads wait on the runtime's park loop; a read of 0 bytes means the
        /// child closed it (it exited, or closed the stream).
        ///
        /// # Examples
        ///
        /// ```
        /// use futures::io::AsyncReadExt;
        /// use lawn_rt::process::Command;
        /// use std::process::Stdio;
        ///
        /// #[lawn_rt::main]
        /// async fn main() -> std::io::Result<()> {
        #[doc = concat!("    let mut child = Command::new(\"sh\").args([\"-c\", \"", $shell, "\"])")]
        #[doc = concat!("        .", stringify!($field), "(Stdio::piped())")]
        ///         .spawn()?;
        #[doc = concat!("    let mut stream = child.", stringify!($field), ".take().unwrap();")]
        ///     let mut text = String::new();
        ///     stream.read_to_string(&mut text).await?;
        ///     assert_eq!(text, "hi\n");
        ///     child.wait().await?;
        ///     Ok(())
        /// }
        /// ```
        pub struct $name {
            pipe: PipeReader,
        }

        impl $name {
            pub(super) fn register(std: $std, driver: &Arc<Driver>) -> io::Result<$name> {
                let pipe = Receiver::from(std);
                pipe.set_nonblocking(true)?;
                Ok($name { pipe: PipeReader::new(pipe, driver.clone())? })
            }

            #[doc = concat!("Takes over a `std` ", $what, " pipe, registering it with the")]
            /// runtime entered here.
            ///
            /// # Errors
            ///
            /// If the pipe cannot be made non-blocking or registered.
            ///
            /// # Panics
            ///
            /// Outside a `lawn_rt` runtime with I/O enabled.
            ///
            /// # Examples
            ///
            /// ```
            #[doc = concat!("use lawn_rt::process::", stringify!($name), ";")]
            /// use std::process::Stdio;
            ///
            /// #[lawn_rt::main]
            /// async fn main() -> std::io::Result<()> {
            #[doc = concat!("    let mut std = std::process::Command::new(\"true\").", stringify!($field), "(Stdio::piped()).spawn()?;")]
            #[doc = concat!("    let stream = ", stringify!($name), "::from_std(std.", stringify!($field), ".take().unwrap())?;")]
            ///     # drop(stream); std.wait()?;
            ///     Ok(())
            /// }
            /// ```
            #[track_caller]
            pub fn from_std(std: $std) -> io::Result<$name> {
                $name::register(std, &driver_here())
            }

            /// Deregisters the pipe and gives back its descriptor, in
            /// blocking mode again.
            ///
            /// # Errors
            ///
            /// If it cannot be deregistered or made blocking.
            ///
            /// # Examples
            ///
            /// ```
            /// use lawn_rt::process::Command;
            /// use std::process::Stdio;
            ///
            /// #[lawn_rt::main]
            /// async fn main() -> std::io::Result<()> {
            #[doc = concat!("    let mut child = Command::new(\"true\").", stringify!($field), "(Stdio::piped()).spawn()?;")]
            #[doc = concat!("    let fd = child.", stringify!($field), ".take().unwrap().into_owned_fd()?;")]
            ///     # drop(fd); child.wait().await?;
            ///     Ok(())
            /// }
            /// ```
            pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
                self.pipe.into_fd(true)
            }
        }

        pipe_async_read!($name);

        impl TryFrom<$name> for std::process::Stdio {
            type Error = io::Error;

            /// The pipe as another child's standard stream (a pipeline),
            /// in blocking mode again, as `std` gives it.
            fn try_from(stream: $name) -> io::Result<std::process::Stdio> {
                stream.into_owned_fd().map(std::process::Stdio::from)
            }
        }

    };
}

reader!(
    ChildStdout,
    std::process::ChildStdout,
    "output",
    stdout,
    "echo hi"
);
reader!(
    ChildStderr,
    std::process::ChildStderr,
    "error",
    stderr,
    "echo hi >&2"
);

/// The child's standard input, when piped (`Child::stdin`); like
/// `tokio::process::ChildStdin`.
///
/// Writes wait on the runtime's park loop while the pipe is full. The
/// child sees the end of its input when this is dropped (also by
/// [`Child::wait`](super::Child::wait)); closing or shutting it down
/// through the `AsyncWrite` traits does nothing, as in tokio.
///
/// # Examples
///
/// ```
/// use futures::io::AsyncWriteExt;
/// use lawn_rt::process::Command;
/// use std::process::Stdio;
///
/// #[lawn_rt::main]
/// async fn main() -> std::io::Result<()> {
///     let mut child = Command::new("wc").arg("-c").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
///     child.stdin.as_mut().unwrap().write_all(&[b'x'; 100_000]).await?;
///     let output = child.wait_with_output().await?;
///     assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "100000");
///     Ok(())
/// }
/// ```
pub struct ChildStdin {
    pipe: PipeWriter,
}

impl ChildStdin {
    pub(super) fn register(
        std: std::process::ChildStdin,
        driver: &Arc<Driver>,
    ) -> io::Result<ChildStdin> {
        let pipe = Sender::from(std);
        pipe.set_nonblocking(true)?;
        Ok(ChildStdin {
            pipe: PipeWriter::new(pipe, driver.clone())?,
        })
    }

    /// Takes over a `std` input pipe, registering it with the runtime
    /// entered here.
    ///
    /// # Errors
    ///
    /// If the pipe cannot be made non-blocking or registered.
    ///
    /// # Panics
    ///
    /// Outside a `lawn_rt` runtime with I/O enabled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::ChildStdin;
    /// use std::process::Stdio;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut std = std::process::Command::new("cat").stdin(Stdio::piped()).spawn()?;
    ///     let stdin = ChildStdin::from_std(std.stdin.take().unwrap())?;
    ///     drop(stdin); // `cat` sees the end of its input
    ///     assert!(std.wait()?.success());
    ///     Ok(())
    /// }
    /// ```
    #[track_caller]
    pub fn from_std(std: std::process::ChildStdin) -> io::Result<ChildStdin> {
        ChildStdin::register(std, &driver_here())
    }

    /// Deregisters the pipe and gives back its descriptor, in blocking
    /// mode again.
    ///
    /// # Errors
    ///
    /// If it cannot be deregistered or made blocking.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::process::Command;
    /// use std::process::Stdio;
    ///
    /// #[lawn_rt::main]
    /// async fn main() -> std::io::Result<()> {
    ///     let mut child = Command::new("cat").stdin(Stdio::piped()).spawn()?;
    ///     let fd = child.stdin.take().unwrap().into_owned_fd()?;
    ///     drop(fd);
    ///     child.wait().await?;
    ///     Ok(())
    /// }
    /// ```
    pub fn into_owned_fd(self) -> io::Result<OwnedFd> {
        self.pipe.into_fd(true)
    }
}

pipe_async_write!(ChildStdin);

impl TryFrom<ChildStdin> for std::process::Stdio {
    type Error = io::Error;

    /// The pipe as another child's standard stream (a pipeline), in
    /// blocking mode again, as `std` gives it.
    fn try_from(stream: ChildStdin) -> io::Result<std::process::Stdio> {
        stream.into_owned_fd().map(std::process::Stdio::from)
    }
}

/// A stream read to its end into a buffer (`wait_with_output`).
pub(super) struct Collect<R> {
    stream: Option<R>,
    bytes: Vec<u8>,
}

impl<R: futures_io::AsyncRead + Unpin> Collect<R> {
    /// Collects `stream`; an absent one is empty at once.
    pub(super) fn new(stream: Option<R>) -> Collect<R> {
        Collect {
            stream,
            bytes: Vec::new(),
        }
    }

    /// Reads until the end; `Ready` once there (and on every call after).
    pub(super) fn poll_collect(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Some(stream) = &mut self.stream else {
            return Poll::Ready(Ok(()));
        };
        let mut chunk = [0u8; 8192];
        loop {
            match std::task::ready!(Pin::new(&mut *stream).poll_read(cx, &mut chunk)) {
                Ok(0) => {
                    self.stream = None;
                    return Poll::Ready(Ok(()));
                }
                Ok(n) => self.bytes.extend_from_slice(&chunk[..n]),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Poll::Ready(Err(err)),
            }
        }
    }

    /// What was read.
    pub(super) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}
