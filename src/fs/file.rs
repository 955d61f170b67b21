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

use std::fmt;
use std::fs::{FileTimes, Metadata, Permissions};
use std::future::Future;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::panic::Location;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{ready, Context, Poll, Waker};
use std::time::SystemTime;

use super::{blocking, join, keeping};
use crate::runtime::{context, Handle};
use crate::task::JoinHandle;

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

struct FileState {
    state: State,
    /// The error of a write that finished after `poll_write` returned, for
    /// the next write, flush or seek to report.
    last_write_err: Option<io::Error>,
    /// The position the last seek gave (what tokio's `poll_complete`
    /// reports when no seek is in flight).
    pos: u64,
    /// The position a `futures-io` `poll_seek` asked for, while its seek is
    /// in flight.
    seeking: Option<SeekFrom>,
    /// The most one blocking read or write moves.
    max_buf: usize,
}

enum State {
    /// No operation in flight; the buffer (`None` only within a poll).
    Idle(Option<Buf>),
    /// An operation runs on the blocking pool with the buffer.
    Busy(JoinHandle<(Op, Buf)>),
}

/// What a finished blocking operation did.
enum Op {
    Read(io::Result<()>),
    Write(io::Result<()>),
    /// A seek (also `set_len`): the new position.
    Seek(io::Result<u64>),
}

/// The file's buffer: `data[pos..]` are read bytes not handed out yet, or
/// the bytes a write is writing.
#[derive(Default)]
struct Buf {
    data: Vec<u8>,
    pos: usize,
}

impl Buf {
    fn unread(&self) -> usize {
        self.data.len() - self.pos
    }

    fn clear(&mut self) {
        self.data.clear();
        self.pos = 0;
    }

    /// Copies unread bytes into `dst`; how many.
    fn copy_to(&mut self, dst: &mut [u8]) -> usize {
        let n = self.unread().min(dst.len());
        dst[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        if self.pos == self.data.len() {
            self.clear();
        }
        n
    }

    /// Drops the unread bytes; the (negative) move that takes the OS
    /// position back to the logical one, if any.
    fn discard_unread(&mut self) -> Option<i64> {
        let unread = self.unread();
        self.clear();
        (unread > 0).then(|| -(unread as i64))
    }

    /// Reads up to `len` bytes from `file` (blocking).
    fn read_from(&mut self, mut file: &std::fs::File, len: usize) -> io::Result<()> {
        self.clear();
        self.data.resize(len, 0);
        let read = loop {
            match file.read(&mut self.data) {
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                read => break read,
            }
        };
        self.data.truncate(*read.as_ref().unwrap_or(&0));
        read.map(drop)
    }

    /// Writes all of `data` to `file` (blocking), first moving back by
    /// `back` bytes.
    fn write_to(&mut self, mut file: &std::fs::File, back: Option<i64>) -> io::Result<()> {
        let written = match back {
            Some(back) => file.seek(SeekFrom::Current(back)).map(drop),
            None => Ok(()),
        }
        .and_then(|()| file.write_all(&self.data));
        self.clear();
        written
    }
}

/// The runtime whose blocking pool runs a file operation.
///
/// # Panics
///
/// Outside a runtime, naming `what` (and `caller`, if known).
fn runtime(what: &str, caller: Option<&Location<'_>>) -> Handle {
    if let Some(handle) = context::current() {
        return handle;
    }
    let at = caller
        .map(|c| format!(" (called at {c})"))
        .unwrap_or_default();
    panic!(
        "lawn_rt: `fs::File::{what}`{at} must run inside a lawn_rt runtime (in \
         `Runtime::block_on`, a spawned task, or after `Runtime::enter`): it uses the runtime's \
         blocking pool"
    )
}

/// What polling the operation in flight gave; a cancelled one (the runtime
/// shut down) is an error and leaves an empty buffer.
fn finish(state: &mut State, cx: &mut Context<'_>) -> Poll<io::Result<Op>> {
    let State::Busy(handle) = state else {
        unreachable!("finish is called in the busy state");
    };
    let joined = ready!(Pin::new(handle).poll(cx));
    match join("File", joined.map(Ok)) {
        Ok((op, buf)) => {
            *state = State::Idle(Some(buf));
            Poll::Ready(Ok(op))
        }
        Err(err) => {
            *state = State::Idle(Some(Buf::default()));
            Poll::Ready(Err(err))
        }
    }
}

impl FileState {
    fn buf(&mut self) -> &mut Buf {
        match &mut self.state {
            State::Idle(buf) => buf.as_mut().expect("the buffer is back between polls"),
            State::Busy(_) => unreachable!("the buffer is in use"),
        }
    }

    /// Starts `op` on the blocking pool with the buffer.
    fn start(
        &mut self,
        what: &str,
        caller: Option<&Location<'_>>,
        op: impl FnOnce(&mut Buf) -> Op + Send + 'static,
    ) {
        let handle = runtime(what, caller);
        let State::Idle(buf) = &mut self.state else {
            unreachable!("an operation starts in the idle state");
        };
        let mut buf = buf.take().expect("the buffer is back between polls");
        self.state = State::Busy(handle.spawn_blocking(move || {
            let op = op(&mut buf);
            (op, buf)
        }));
    }

    /// Records what a finished operation means when nobody waits for its
    /// result: a write's error is kept for later, a seek's position noted.
    fn absorb(&mut self, op: Op) {
        match op {
            Op::Write(Err(err)) => {
                self.last_write_err.get_or_insert(err);
            }
            Op::Seek(Ok(pos)) => self.pos = pos,
            Op::Read(_) | Op::Write(Ok(())) | Op::Seek(Err(_)) => {}
        }
    }

    /// Waits for the operation in flight, if any; an error of a write is
    /// kept for the next write, flush or seek.
    fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let State::Busy(_) = self.state {
            let op = ready!(finish(&mut self.state, cx))?;
            self.absorb(op);
        }
        Poll::Ready(Ok(()))
    }

    fn poll_read(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        dst: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            match self.state {
                State::Idle(_) => {
                    let buf = self.buf();
                    if buf.unread() > 0 || dst.is_empty() {
                        return Poll::Ready(Ok(buf.copy_to(dst)));
                    }
                    let (std, len) = (std.clone(), dst.len().min(self.max_buf));
                    self.start("poll_read", None, move |buf| {
                        Op::Read(buf.read_from(&std, len))
                    });
                }
                State::Busy(_) => match ready!(finish(&mut self.state, cx))? {
                    Op::Read(Ok(())) => return Poll::Ready(Ok(self.buf().copy_to(dst))),
                    Op::Read(Err(err)) => return Poll::Ready(Err(err)),
                    other => self.absorb(other),
                },
            }
        }
    }

    fn poll_write(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored(std, cx, &[io::IoSlice::new(src)])
    }

    /// Takes as much of `srcs`, in order, as one write may move
    /// (`max_buf`), as tokio's file does.
    fn poll_write_vectored(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        srcs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        loop {
            if let Some(err) = self.last_write_err.take() {
                return Poll::Ready(Err(err));
            }
            match self.state {
                State::Idle(_) => {
                    let total: usize = srcs.iter().map(|src| src.len()).sum();
                    if total == 0 {
                        return Poll::Ready(Ok(0));
                    }
                    let max = self.max_buf;
                    let buf = self.buf();
                    let back = buf.discard_unread();
                    let mut n = 0;
                    for src in srcs {
                        let take = src.len().min(max - n);
                        buf.data.extend_from_slice(&src[..take]);
                        n += take;
                        if n == max {
                            break;
                        }
                    }
                    let std = std.clone();
                    self.start("poll_write", None, move |buf| {
                        Op::Write(buf.write_to(&std, back))
                    });
                    return Poll::Ready(Ok(n));
                }
                State::Busy(_) => match ready!(finish(&mut self.state, cx))? {
                    Op::Write(Err(err)) => return Poll::Ready(Err(err)),
                    other => self.absorb(other),
                },
            }
        }
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_idle(cx))?;
        match self.last_write_err.take() {
            Some(err) => Poll::Ready(Err(err)),
            None => Poll::Ready(Ok(())),
        }
    }

    /// Starts a seek to `pos` (the state must be idle).
    fn start_seek(&mut self, std: &Arc<std::fs::File>, mut pos: SeekFrom) {
        if let Some(back) = self.buf().discard_unread() {
            if let SeekFrom::Current(offset) = &mut pos {
                *offset += back;
            }
        }
        let std = std.clone();
        self.start("seek", None, move |_| Op::Seek((&*std).seek(pos)));
    }

    /// `futures-io`'s seek: waits for the operation in flight, starts the
    /// seek, waits for it. Polled again (with the same `pos`) after
    /// `Pending`, it goes on with the seek it started.
    fn poll_seek(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        loop {
            match self.state {
                State::Idle(_) => {
                    if let Some(err) = self.last_write_err.take() {
                        return Poll::Ready(Err(err));
                    }
                    self.start_seek(std, pos);
                    self.seeking = Some(pos);
                }
                State::Busy(_) => {
                    let op = ready!(finish(&mut self.state, cx));
                    let ours = self.seeking.take() == Some(pos);
                    match op? {
                        Op::Seek(result) if ours => {
                            if let Ok(at) = result {
                                self.pos = at;
                            }
                            return Poll::Ready(result);
                        }
                        other => self.absorb(other),
                    }
                }
            }
        }
    }
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

    /// Flushes data written and waits until the OS has it on the device
    /// (data and metadata); like `tokio::fs::File::sync_all` and
    /// [`std::fs::File::sync_all`].
    ///
    /// # Errors
    ///
    /// What `fsync(2)` reports.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use futures::io::AsyncWriteExt;
    ///
    /// let path = std::env::temp_dir().join(format!("lawn-rt-sync-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut file = lawn_rt::fs::File::create(&path).await?;
    ///     file.write_all(b"durable").await?;
    ///     file.sync_all().await?;
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn sync_all(&self) -> impl Future<Output = io::Result<()>> + Send + '_ {
        self.after_inflight("sync_all", Location::caller(), |std| std.sync_all())
    }

    /// As [`sync_all`](File::sync_all), but may skip metadata that is not
    /// needed to read the data back; like `tokio::fs::File::sync_data`.
    ///
    /// # Errors
    ///
    /// What `fdatasync(2)` reports.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use futures::io::AsyncWriteExt;
    ///
    /// let path = std::env::temp_dir().join(format!("lawn-rt-sync-data-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut file = lawn_rt::fs::File::create(&path).await?;
    ///     file.write_all(b"data").await?;
    ///     file.sync_data().await?;
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn sync_data(&self) -> impl Future<Output = io::Result<()>> + Send + '_ {
        self.after_inflight("sync_data", Location::caller(), |std| std.sync_data())
    }

    /// The file's metadata; like `tokio::fs::File::metadata`.
    ///
    /// # Errors
    ///
    /// What `fstat(2)` reports.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let file = lawn_rt::fs::File::open("Cargo.toml").await?;
    ///     assert!(file.metadata().await?.len() > 0);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn metadata(&self) -> impl Future<Output = io::Result<Metadata>> + Send + '_ {
        self.after_inflight("metadata", Location::caller(), |std| std.metadata())
    }

    /// Changes the file's permissions; like
    /// `tokio::fs::File::set_permissions`.
    ///
    /// # Errors
    ///
    /// What `fchmod(2)` reports.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("lawn-rt-file-perm-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let file = lawn_rt::fs::File::create(&path).await?;
    ///     let mut perms = file.metadata().await?.permissions();
    ///     perms.set_readonly(true);
    ///     file.set_permissions(perms).await?;
    ///     assert!(file.metadata().await?.permissions().readonly());
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn set_permissions(
        &self,
        permissions: Permissions,
    ) -> impl Future<Output = io::Result<()>> + Send + '_ {
        self.after_inflight("set_permissions", Location::caller(), move |std| {
            std.set_permissions(permissions)
        })
    }

    /// Sets the file's access and modification times, after the
    /// operation in flight (so a write that finishes later cannot move
    /// them again); like `tokio::fs::File::set_times`.
    ///
    /// # Errors
    ///
    /// What `futimens(2)` reports.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use lawn_rt::fs::FileTimes;
    ///
    /// let path = std::env::temp_dir().join(format!("lawn-rt-file-times-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let file = lawn_rt::fs::File::create(&path).await?;
    ///     let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    ///     file.set_times(FileTimes::new().set_accessed(then).set_modified(then)).await?;
    ///     assert_eq!(file.metadata().await?.modified()?, then);
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn set_times(&self, times: FileTimes) -> impl Future<Output = io::Result<()>> + Send + '_ {
        self.after_inflight("set_times", Location::caller(), move |std| {
            std.set_times(times)
        })
    }

    /// Sets the file's modification time: [`set_times`](File::set_times)
    /// with only that time; like `tokio::fs::File::set_modified`.
    ///
    /// # Errors
    ///
    /// What `futimens(2)` reports.
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    ///
    /// let path = std::env::temp_dir().join(format!("lawn-rt-file-mtime-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let file = lawn_rt::fs::File::create(&path).await?;
    ///     let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    ///     file.set_modified(then).await?;
    ///     assert_eq!(file.metadata().await?.modified()?, then);
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn set_modified(
        &self,
        time: SystemTime,
    ) -> impl Future<Output = io::Result<()>> + Send + '_ {
        self.after_inflight("set_modified", Location::caller(), move |std| {
            std.set_modified(time)
        })
    }

    /// Sets the most one read or write moves in one blocking call (the
    /// size of the file's buffer; 2 MiB unless set, as tokio's); like
    /// `tokio::fs::File::set_max_buf_size`. A read asks for at most this
    /// much at a time; a write takes at most this much of the caller's
    /// bytes at a time.
    ///
    /// # Panics
    ///
    /// If `max_buf_size` is 0 (at the caller's line).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut file = lawn_rt::fs::File::from_std(std::fs::File::open("Cargo.toml")?);
    /// file.set_max_buf_size(64 * 1024);
    /// assert_eq!(file.max_buf_size(), 64 * 1024);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn set_max_buf_size(&mut self, max_buf_size: usize) {
        assert!(
            max_buf_size > 0,
            "`max_buf_size` must be greater than 0 (lawn_rt: `File::set_max_buf_size`)"
        );
        self.inner
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .max_buf = max_buf_size;
    }

    /// The most one read or write moves in one blocking call; see
    /// [`set_max_buf_size`](File::set_max_buf_size).
    ///
    /// # Examples
    ///
    /// ```
    /// let file = lawn_rt::fs::File::from_std(std::fs::File::open("Cargo.toml")?);
    /// assert_eq!(file.max_buf_size(), 2 * 1024 * 1024);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn max_buf_size(&self) -> usize {
        self.lock_inner().max_buf
    }

    /// A new `File` for the same open file (a duplicated descriptor: they
    /// share the position); like `tokio::fs::File::try_clone`.
    ///
    /// # Errors
    ///
    /// What `dup(2)` reports (too many open files, say).
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let file = lawn_rt::fs::File::open("Cargo.toml").await?;
    ///     let twin = file.try_clone().await?;
    ///     assert_eq!(twin.metadata().await?.len(), file.metadata().await?.len());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn try_clone(&self) -> impl Future<Output = io::Result<File>> + Send + '_ {
        let cloned = self.after_inflight("try_clone", Location::caller(), |std| std.try_clone());
        let max_buf = self.max_buf_size();
        async move {
            let mut file = File::from_std(cloned.await?);
            // The clone reads and writes in the same steps, as tokio's.
            file.set_max_buf_size(max_buf);
            Ok(file)
        }
    }

    /// Truncates or extends the file to `size` bytes (extending with
    /// zeros); the position does not change; like
    /// `tokio::fs::File::set_len`.
    ///
    /// # Errors
    ///
    /// What `ftruncate(2)` reports (a file not open for writing, say).
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("lawn-rt-set-len-doc-{}", std::process::id()));
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let file = lawn_rt::fs::File::create(&path).await?;
    ///     file.set_len(10).await?;
    ///     assert_eq!(lawn_rt::fs::read(&path).await?, [0; 10]);
    ///     lawn_rt::fs::remove_file(&path).await
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn set_len(&self, size: u64) -> impl Future<Output = io::Result<()>> + Send + '_ {
        let caller = Location::caller();
        async move {
            let _gate = self.gate.lock().await;
            self.idle().await;
            {
                // Runs as a seek: an operation after it (even if this
                // future is dropped) waits for it.
                let mut inner = self.lock_inner();
                let back = inner.buf().discard_unread();
                let std = self.std.clone();
                inner.start("set_len", Some(caller), move |_| {
                    let mut file = &*std;
                    let done = match back {
                        Some(back) => file.seek(SeekFrom::Current(back)).map(drop),
                        None => Ok(()),
                    };
                    Op::Seek(
                        done.and_then(|()| file.set_len(size))
                            .and_then(|()| file.stream_position()),
                    )
                });
            }
            std::future::poll_fn(|cx| {
                let mut inner = self.lock_inner();
                match ready!(finish(&mut inner.state, cx))? {
                    Op::Seek(result) => Poll::Ready(result.map(|at| inner.pos = at)),
                    other => {
                        inner.absorb(other);
                        unreachable!("set_len's operation is a seek")
                    }
                }
            })
            .await
        }
    }

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
/// `From<OwnedFd>`, which needs no `unsafe`.
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

/// An async lock without fairness: each `&self` operation of a file holds
/// it for its whole run. A release wakes every waiter; one gets it, the
/// others wait again.
#[derive(Default)]
struct Gate {
    state: Mutex<GateState>,
}

#[derive(Default)]
struct GateState {
    locked: bool,
    next_id: u64,
    waiters: Vec<(u64, Waker)>,
}

struct GateGuard<'a> {
    gate: &'a Gate,
}

impl Gate {
    fn lock_state(&self) -> MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn lock(&self) -> GateGuard<'_> {
        let mut waiting = Waiting {
            gate: self,
            id: None,
        };
        std::future::poll_fn(|cx| {
            let mut state = self.lock_state();
            if !state.locked {
                state.locked = true;
                if let Some(id) = waiting.id.take() {
                    state.waiters.retain(|(key, _)| *key != id);
                }
                return Poll::Ready(GateGuard { gate: self });
            }
            let id = *waiting.id.get_or_insert_with(|| {
                state.next_id += 1;
                state.next_id
            });
            match state.waiters.iter_mut().find(|(key, _)| *key == id) {
                Some((_, waker)) => waker.clone_from(cx.waker()),
                None => state.waiters.push((id, cx.waker().clone())),
            }
            Poll::Pending
        })
        .await
    }
}

/// A waiter for the gate: forgets its waker when dropped.
struct Waiting<'a> {
    gate: &'a Gate,
    id: Option<u64>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.gate.lock_state().waiters.retain(|(key, _)| *key != id);
        }
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        let waiters = {
            let mut state = self.gate.lock_state();
            state.locked = false;
            std::mem::take(&mut state.waiters)
        };
        for (_, waker) in waiters {
            waker.wake();
        }
    }
}
