//! [`read_dir`], [`ReadDir`] and [`DirEntry`].

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::fs::{FileType, Metadata};
use std::future::Future;
use std::io;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use super::{blocking, join, keeping, runtime};
use crate::task::JoinHandle;

/// How many entries one trip to the blocking pool reads.
const BATCH: usize = 32;

/// Opens a directory to list its entries; like `tokio::fs::read_dir` and
/// [`std::fs::read_dir`]. The entries come from [`ReadDir::next_entry`], in
/// the order the OS gives (no `.` or `..`).
///
/// # Errors
///
/// `NotFound` if the directory is missing, an error if it is not a
/// directory or cannot be read.
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module
/// docs](super)).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let mut names = Vec::new();
///     let mut entries = lawn_rt::fs::read_dir("src").await?;
///     while let Some(entry) = entries.next_entry().await? {
///         names.push(entry.file_name());
///     }
///     assert!(names.iter().any(|name| name == "lib.rs"));
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn read_dir(path: impl AsRef<Path>) -> impl Future<Output = io::Result<ReadDir>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    let caller = Location::caller();
    keeping(
        caller_path,
        blocking("read_dir", caller, move || {
            let mut batch = Batch {
                entries: VecDeque::with_capacity(BATCH),
                dir: std::fs::read_dir(path)?,
                more: true,
            };
            batch.fill();
            Ok(ReadDir {
                state: State::Idle(Some(batch)),
                caller,
            })
        }),
    )
}

/// The entries of a directory, read in batches on the blocking pool; like
/// `tokio::fs::ReadDir`. Made by [`read_dir`].
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// let count = rt.block_on(async {
///     let mut entries: lawn_rt::fs::ReadDir = lawn_rt::fs::read_dir(".").await?;
///     let mut count = 0;
///     while entries.next_entry().await?.is_some() {
///         count += 1;
///     }
///     Ok::<_, std::io::Error>(count)
/// })?;
/// assert!(count > 0);
/// # Ok::<(), std::io::Error>(())
/// ```
#[must_use = "a `ReadDir` lists nothing unless `next_entry` is awaited"]
pub struct ReadDir {
    state: State,
    /// Where `read_dir` was called (for the panic outside a runtime).
    caller: &'static Location<'static>,
}

enum State {
    /// Entries read and not yet handed out (`None` only while a poll moves
    /// it into a blocking task).
    Idle(Option<Batch>),
    /// The blocking pool is reading the next batch.
    Reading(JoinHandle<Batch>),
    /// The runtime shut down before a batch was read: nothing more.
    Done,
}

struct Batch {
    /// Read, not yet handed out; an error ends a batch.
    entries: VecDeque<io::Result<DirEntry>>,
    dir: std::fs::ReadDir,
    /// Whether the directory may have more entries.
    more: bool,
}

impl Batch {
    /// Reads up to [`BATCH`] entries (blocking), or up to the first error.
    fn fill(&mut self) {
        for _ in 0..BATCH {
            let Some(next) = self.dir.next() else {
                self.more = false;
                return;
            };
            let failed = next.is_err();
            self.entries.push_back(next.map(DirEntry::new));
            if failed {
                return;
            }
        }
    }
}

impl ReadDir {
    /// The next entry, `None` once every entry has been given.
    ///
    /// # Errors
    ///
    /// What reading the directory gives (an I/O error while listing); the
    /// listing may go on after one.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: an entry read while the future was pending is kept for
    /// the next call.
    ///
    /// # Panics
    ///
    /// When it needs to read more entries outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut entries = lawn_rt::fs::read_dir("src").await?;
    ///     let first = entries.next_entry().await?.expect("src is not empty");
    ///     assert!(first.path().starts_with("src"));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn next_entry(&mut self) -> io::Result<Option<DirEntry>> {
        std::future::poll_fn(|cx| self.poll_next_entry(cx)).await
    }

    /// Polls for the next entry, outside an `async fn`: `Ready(Ok(None))`
    /// once every entry has been given; `Pending` while the blocking pool
    /// reads more (the task is woken when it has).
    ///
    /// # Errors
    ///
    /// As for [`next_entry`](ReadDir::next_entry).
    ///
    /// # Panics
    ///
    /// When it needs to read more entries outside a `lawn_rt` runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut entries = lawn_rt::fs::read_dir("src").await?;
    ///     let entry = std::future::poll_fn(|cx| entries.poll_next_entry(cx)).await?;
    ///     assert!(entry.is_some());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_next_entry(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<DirEntry>>> {
        loop {
            match &mut self.state {
                State::Idle(batch) => {
                    let current = batch.as_mut().expect("a batch is kept between polls");
                    if let Some(entry) = current.entries.pop_front() {
                        return Poll::Ready(entry.map(Some));
                    }
                    if !current.more {
                        return Poll::Ready(Ok(None));
                    }
                    let handle = runtime("ReadDir::next_entry", self.caller);
                    let mut next = batch.take().expect("a batch is kept between polls");
                    self.state = State::Reading(handle.spawn_blocking(move || {
                        next.fill();
                        next
                    }));
                }
                State::Done => return Poll::Ready(Ok(None)),
                State::Reading(handle) => {
                    let joined = ready!(Pin::new(handle).poll(cx));
                    match join("ReadDir::next_entry", joined.map(Ok)) {
                        Ok(batch) => self.state = State::Idle(Some(batch)),
                        Err(err) => {
                            // The runtime shut down: the directory handle
                            // went with the cancelled task.
                            self.state = State::Done;
                            return Poll::Ready(Err(err));
                        }
                    }
                }
            }
        }
    }
}

impl fmt::Debug for ReadDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("ReadDir");
        match &self.state {
            State::Idle(Some(batch)) => debug
                .field("buffered", &batch.entries.len())
                .field("more", &batch.more),
            State::Idle(None) => debug.field("state", &"moving"),
            State::Reading(_) => debug.field("state", &"reading"),
            State::Done => debug.field("state", &"done"),
        };
        debug.finish_non_exhaustive()
    }
}

/// One entry of a directory listing; like `tokio::fs::DirEntry` (and
/// [`std::fs::DirEntry`], whose methods that may touch the disk are
/// `async` here).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let mut entries = lawn_rt::fs::read_dir("src").await?;
///     while let Some(entry) = entries.next_entry().await? {
///         if entry.file_name() == "lib.rs" {
///             assert!(entry.file_type().await?.is_file());
///             assert!(entry.metadata().await?.len() > 0);
///         }
///     }
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct DirEntry {
    std: Arc<std::fs::DirEntry>,
    /// The file type, if the listing gave it without another system call
    /// (it does on most file systems).
    file_type: Option<FileType>,
}

impl DirEntry {
    fn new(std: std::fs::DirEntry) -> DirEntry {
        DirEntry {
            // Runs on the blocking pool: a `stat` here is fine.
            file_type: std.file_type().ok(),
            std: Arc::new(std),
        }
    }

    /// The entry's full path: the directory given to [`read_dir`] joined
    /// with its [`file_name`](DirEntry::file_name).
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut entries = lawn_rt::fs::read_dir("src").await?;
    ///     let entry = entries.next_entry().await?.unwrap();
    ///     assert_eq!(entry.path(), std::path::Path::new("src").join(entry.file_name()));
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn path(&self) -> PathBuf {
        self.std.path()
    }

    /// The entry's name within its directory.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut entries = lawn_rt::fs::read_dir("src").await?;
    ///     let entry = entries.next_entry().await?.unwrap();
    ///     assert!(!entry.file_name().is_empty());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn file_name(&self) -> OsString {
        self.std.file_name()
    }

    /// The entry's inode number, as the listing gave it.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut entries = lawn_rt::fs::read_dir("src").await?;
    ///     let entry = entries.next_entry().await?.unwrap();
    ///     assert_ne!(entry.ino(), 0);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[cfg(unix)]
    pub fn ino(&self) -> u64 {
        std::os::unix::fs::DirEntryExt::ino(&*self.std)
    }

    /// The entry's metadata, not following a symbolic link (the entry
    /// itself); runs on the blocking pool.
    ///
    /// # Errors
    ///
    /// If the entry was removed since it was listed (`NotFound`), or cannot
    /// be examined.
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
    ///     let mut entries = lawn_rt::fs::read_dir("src").await?;
    ///     let entry = entries.next_entry().await?.unwrap();
    ///     let meta = entry.metadata().await?;
    ///     assert!(meta.is_file() || meta.is_dir());
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn metadata(&self) -> impl Future<Output = io::Result<Metadata>> + Send + 'static {
        let std = self.std.clone();
        blocking("DirEntry::metadata", Location::caller(), move || {
            std.metadata()
        })
    }

    /// The entry's file type, not following a symbolic link: at once if
    /// the listing gave it, else from the blocking pool.
    ///
    /// # Errors
    ///
    /// If it had to be looked up and the entry was removed since it was
    /// listed, or cannot be examined.
    ///
    /// # Panics
    ///
    /// When it must be looked up and is polled outside a `lawn_rt`
    /// runtime.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut entries = lawn_rt::fs::read_dir(".").await?;
    ///     while let Some(entry) = entries.next_entry().await? {
    ///         if entry.file_name() == "src" {
    ///             assert!(entry.file_type().await?.is_dir());
    ///         }
    ///     }
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn file_type(&self) -> impl Future<Output = io::Result<FileType>> + Send + 'static {
        let known = self.file_type;
        let std = self.std.clone();
        let lookup = blocking("DirEntry::file_type", Location::caller(), move || {
            std.file_type()
        });
        async move {
            match known {
                Some(file_type) => Ok(file_type),
                None => lookup.await,
            }
        }
    }
}

impl fmt::Debug for DirEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DirEntry").field(&self.path()).finish()
    }
}
