//! [`File`]: an open file whose reads, writes and seeks run on the blocking
//! pool.
//!
//! Ground rules:
//! - At most one blocking operation of a file is in flight: its
//!   `JoinHandle` is the `Busy` state, and it owns the file's buffer until
//!   it finishes. Every operation first waits for the one in flight (and
//!   takes its result into account) before it starts its own, so they run
//!   in the order they were asked for.
//! - A read fills the buffer; its unread bytes are handed out by later
//!   reads. The OS position is then ahead of the file's logical position by
//!   those bytes: a write, a relative seek or `set_len` first moves back by
//!   them (and drops them).
//! - A write copies the data into the buffer and returns at once; the
//!   blocking write runs after. Its error is reported by the next write,
//!   flush or seek of the file (`last_write_err`), never lost silently.
//! - `&self` operations hold an async lock ([`Gate`]) for their whole run,
//!   so only one of them at a time drives the state; `Pin<&mut Self>`
//!   operations need no lock, as no `&self` future can be alive then.

mod gate;
mod io_traits;
mod ops;
mod state;

use std::fmt;
use std::future::Future;
use std::io::{self, Seek, SeekFrom};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::panic::Location;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;

use super::{blocking, keeping};
use gate::Gate;
use state::{Buf, FileState, State};

/// The most a single blocking read or write moves, unless
/// [`File::set_max_buf_size`] says otherwise (tokio's default).
const MAX_BUF: usize = 2 * 1024 * 1024;

/// An open file on the file system; like `tokio::fs::File`.
///
/// It implements `futures::io::{AsyncRead, AsyncWrite, AsyncSeek}` (and,
/// with the feature `tokio-io`, `tokio::io::{AsyncRead, AsyncWrite,
/// AsyncSeek}`); each operation runs its `std::fs::File` counterpart on
/// the runtime's blocking pool.
///
/// A write returns as soon as its data is copied into the file's buffer;
/// the data reaches the OS afterwards. **Flush** (`flush().await`) before
/// relying on it (before dropping the file, reading it elsewhere, or
/// [`into_std`](File::into_std)): flushing waits for the write and reports
/// its error. A file dropped unflushed still writes its data, but nobody
/// hears of an error.
///
/// # Examples
///
/// ```
/// use futures::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
/// use lawn_rt::fs::File;
/// use std::io::SeekFrom;
///
/// let path = std::env::temp_dir().join(format!("lawn-rt-file-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let mut file = File::create(&path).await?;
///     file.write_all(b"hello, world").await?;
///     file.flush().await?;
///
///     let mut file = File::open(&path).await?;
///     file.seek(SeekFrom::Start(7)).await?;
///     let mut rest = String::new();
///     file.read_to_string(&mut rest).await?;
///     assert_eq!(rest, "world");
///     lawn_rt::fs::remove_file(&path).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct File {
    std: Arc<std::fs::File>,
    inner: Mutex<FileState>,
    gate: Gate,
}

impl File {
    /// Opens a file for reading; like `tokio::fs::File::open` and
    /// [`std::fs::File::open`].
    ///
    /// # Errors
    ///
    /// `NotFound` if it does not exist, a permission error, ...
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime (the message names the
    /// line that called `open`).
    ///
    /// # Examples
    ///
    /// ```
    /// use futures::io::AsyncReadExt;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut file = lawn_rt::fs::File::open("Cargo.toml").await?;
    ///     let mut start = [0; 9];
    ///     file.read_exact(&mut start).await?;
    ///     assert_eq!(&start, b"[workspac");
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn open(path: impl AsRef<Path>) -> impl Future<Output = io::Result<File>> {
        let (path, caller_path) = (path.as_ref().to_owned(), path);
        let opened = blocking("File::open", Location::caller(), move || {
            std::fs::File::open(path)
        });
        keeping(caller_path, async move { opened.await.map(File::from_std) })
    }

    /// Opens a file for writing, creating it if need be and truncating it
    /// otherwise; like `tokio::fs::File::create` and
    /// [`std::fs::File::create`].
    ///
    /// # Errors
    ///
    /// `NotFound` if the directory is missing, a permission error, ...
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime (the message names the
    /// line that called `create`).
    ///
    /// # Examples
    ///
    /// ```
    /// use futures::io::AsyncWriteExt;
    ///
    /// let path = std::env::temp_dir().join(format!("lawn-rt-create-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut file = lawn_rt::fs::File::create(&path).await?;
    ///     file.write_all(b"data").await?;
    ///     file.flush().await?;
    ///     assert_eq!(lawn_rt::fs::read(&path).await?, b"data");
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn create(path: impl AsRef<Path>) -> impl Future<Output = io::Result<File>> {
        let (path, caller_path) = (path.as_ref().to_owned(), path);
        let created = blocking("File::create", Location::caller(), move || {
            std::fs::File::create(path)
        });
        keeping(
            caller_path,
            async move { created.await.map(File::from_std) },
        )
    }

    /// Creates a file for writing, failing with `AlreadyExists` if one is
    /// there; like `tokio::fs::File::create_new` and
    /// [`std::fs::File::create_new`].
    ///
    /// # Errors
    ///
    /// `AlreadyExists`, `NotFound` if the directory is missing, a
    /// permission error, ...
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime (the message names the
    /// line that called `create_new`).
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("lawn-rt-create-new-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let file = lawn_rt::fs::File::create_new(&path).await?;
    ///     drop(file);
    ///     let again = lawn_rt::fs::File::create_new(&path).await.unwrap_err();
    ///     assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn create_new(path: impl AsRef<Path>) -> impl Future<Output = io::Result<File>> {
        super::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
    }

    /// [`OpenOptions::new`](super::OpenOptions::new), from the type that
    /// opens; like `tokio::fs::File::options`.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let file = rt.block_on(lawn_rt::fs::File::options().read(true).open("Cargo.toml"))?;
    /// # drop(file);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use]
    pub fn options() -> super::OpenOptions {
        super::OpenOptions::new()
    }

    /// A `File` for an open `std::fs::File` (no runtime needed); like
    /// `tokio::fs::File::from_std`.
    ///
    /// # Examples
    ///
    /// ```
    /// let std_file = std::fs::File::open("Cargo.toml")?;
    /// let file = lawn_rt::fs::File::from_std(std_file);
    /// # drop(file);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn from_std(std: std::fs::File) -> File {
        File {
            std: Arc::new(std),
            inner: Mutex::new(FileState {
                state: State::Idle(Some(Buf::default())),
                last_write_err: None,
                pos: 0,
                seeking: None,
                max_buf: MAX_BUF,
            }),
            gate: Gate::default(),
        }
    }

    fn lock_inner(&self) -> MutexGuard<'_, FileState> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits (holding the gate) until no operation is in flight; a write's
    /// error is kept for the next write or flush.
    async fn idle(&self) {
        std::future::poll_fn(|cx| match self.lock_inner().poll_idle(cx) {
            Poll::Ready(Err(err)) => {
                // The runtime shut down under the operation: the next
                // operation reports it again.
                let _ = err;
                Poll::Ready(())
            }
            polled => polled.map(drop),
        })
        .await
    }

    /// Runs `op` with the file on the blocking pool, after the operation
    /// in flight (holding the gate all along).
    async fn after_inflight<T: Send + 'static>(
        &self,
        what: &'static str,
        caller: &'static Location<'static>,
        op: impl FnOnce(&std::fs::File) -> io::Result<T> + Send + 'static,
    ) -> io::Result<T> {
        let _gate = self.gate.lock().await;
        self.idle().await;
        let std = self.std.clone();
        blocking(what, caller, move || op(&std)).await
    }
}

impl File {
    /// The `std::fs::File`, once the operation in flight has finished (a
    /// write's error is then lost: flush first to see it); like
    /// `tokio::fs::File::into_std`.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime while an operation is in
    /// flight.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let std_file: std::fs::File = rt.block_on(async {
    ///     let file = lawn_rt::fs::File::open("Cargo.toml").await?;
    ///     Ok::<_, std::io::Error>(file.into_std().await)
    /// })?;
    /// assert!(std_file.metadata()?.is_file());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn into_std(self) -> std::fs::File {
        self.idle().await;
        match self.try_into_std() {
            Ok(std) => std,
            // Still shared with a blocking operation of a `&self` method
            // whose future was dropped: a duplicate descriptor stands in.
            Err(file) => file
                .std
                .try_clone()
                .expect("lawn_rt: `File::into_std`: cannot duplicate the file descriptor"),
        }
    }

    /// The `std::fs::File`, if no operation is in flight; the `File` back
    /// otherwise; like `tokio::fs::File::try_into_std`. Read bytes not yet
    /// handed out are given back to the OS (the position moves back).
    ///
    /// # Errors
    ///
    /// The `File` itself, if an operation is in flight.
    ///
    /// # Examples
    ///
    /// ```
    /// let std_file = std::fs::File::open("Cargo.toml")?;
    /// let file = lawn_rt::fs::File::from_std(std_file);
    /// let std_file = file.try_into_std().expect("nothing in flight");
    /// assert!(std_file.metadata()?.is_file());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    // The signature is tokio's.
    #[allow(clippy::result_large_err)]
    pub fn try_into_std(mut self) -> Result<std::fs::File, File> {
        let inner = self.inner.get_mut().unwrap_or_else(|p| p.into_inner());
        if let State::Busy(_) = inner.state {
            return Err(self);
        }
        match Arc::try_unwrap(self.std) {
            Ok(mut std) => {
                if let Some(back) = inner.buf().discard_unread() {
                    // `lseek` does not wait for the disk.
                    let _ = std.seek(SeekFrom::Current(back));
                }
                Ok(std)
            }
            Err(std) => {
                self.std = std;
                Err(self)
            }
        }
    }

    /// The state, for the `Pin<&mut Self>` operations.
    fn parts(self: Pin<&mut Self>) -> (&Arc<std::fs::File>, &mut FileState) {
        let this = self.get_mut();
        let inner = this.inner.get_mut().unwrap_or_else(|p| p.into_inner());
        (&this.std, inner)
    }
}

/// [`File::from_std`].
impl From<std::fs::File> for File {
    fn from(std: std::fs::File) -> File {
        File::from_std(std)
    }
}

/// [`File::from_std`] of the descriptor.
impl From<OwnedFd> for File {
    fn from(fd: OwnedFd) -> File {
        File::from_std(std::fs::File::from(fd))
    }
}

impl AsRawFd for File {
    fn as_raw_fd(&self) -> RawFd {
        self.std.as_raw_fd()
    }
}

/// [`File::from_std`] of the descriptor, as tokio's `File` has it; prefer
/// `From<OwnedFd>`, the safe conversion.
// SAFETY (the lint allowed): only this impl, whose one call is the std
// conversion below; the trait itself declares its function so.
#[allow(unsafe_code)]
impl FromRawFd for File {
    // SAFETY (the `unsafe fn`): its contract is the trait's, the same as
    // `std::fs::File::from_raw_fd`'s, which the body relies on and states.
    unsafe fn from_raw_fd(fd: RawFd) -> File {
        // SAFETY: the caller's contract is `std::fs::File::from_raw_fd`'s
        // (an open descriptor this call takes ownership of), passed on.
        File::from_std(unsafe { std::fs::File::from_raw_fd(fd) })
    }
}

impl AsFd for File {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.std.as_fd()
    }
}

impl fmt::Debug for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let busy = match self.inner.try_lock() {
            Ok(inner) => Some(matches!(inner.state, State::Busy(_))),
            Err(_) => None,
        };
        f.debug_struct("lawn_rt::fs::File")
            .field("std", &self.std)
            .field("busy", &busy)
            .finish_non_exhaustive()
    }
}
