//! Asynchronous file-system operations, run on the runtime's blocking pool;
//! like `tokio::fs`.
//!
//! Operating systems offer no readiness events for files, so, as tokio
//! does, each function here runs its `std::fs` counterpart on a thread of
//! the blocking pool ([`spawn_blocking`](crate::task::spawn_blocking)) and
//! the task awaits the result; the runtime's own threads never block on
//! the disk.
//!
//! ```
//! use lawn_rt::fs;
//!
//! #[lawn_rt::main]
//! async fn main() -> std::io::Result<()> {
//!     let dir = std::env::temp_dir().join(format!("lawn-rt-fs-doc-{}", std::process::id()));
//!     fs::create_dir_all(&dir).await?;
//!     fs::write(dir.join("greeting.txt"), "hello").await?;
//!     assert_eq!(fs::read_to_string(dir.join("greeting.txt")).await?, "hello");
//!
//!     let mut entries = fs::read_dir(&dir).await?;
//!     while let Some(entry) = entries.next_entry().await? {
//!         assert_eq!(entry.file_name(), "greeting.txt");
//!     }
//!     fs::remove_dir_all(&dir).await
//! }
//! ```
//!
//! # Where they work
//!
//! Calling a function only makes its future; the operation starts when
//! the future is first polled, and it must be polled inside a `lawn_rt`
//! runtime (in `block_on`, a task, or after `Runtime::enter`): elsewhere
//! that first poll panics, with a message naming the line that called the
//! function (tokio's panic likewise).
//!
//! # Cancellation
//!
//! Dropping a future that has started stops the waiting, not the work: the
//! operation runs to its end on the blocking pool (a `write` still
//! writes). The runtime's shutdown waits for operations that are running
//! (see [`Runtime::shutdown_timeout`](crate::runtime::Runtime::shutdown_timeout));
//! one still queued then fails with an error saying so.
//!
//! # Errors
//!
//! Each function returns what its `std::fs` counterpart returns (a missing
//! file is `ErrorKind::NotFound`, and so on).

mod file;
mod options;
mod read_dir;

pub use file::File;
pub use options::{DirBuilder, OpenOptions};
pub use read_dir::{read_dir, DirEntry, ReadDir};
/// The times [`File::set_times`] sets: std's `FileTimes`, which has
/// tokio's methods (`new`, `set_accessed`, `set_modified`).
///
/// # Examples
///
/// ```
/// use std::time::SystemTime;
/// let times = lawn_rt::fs::FileTimes::new().set_modified(SystemTime::now());
/// # drop(times);
/// ```
#[doc(inline)]
pub use std::fs::FileTimes;

use std::fs::{Metadata, Permissions};
use std::future::Future;
use std::io;
use std::panic::Location;
use std::path::{Path, PathBuf};

use crate::runtime::{context, Handle};

/// The runtime that polls a file-system future: the one entered here.
///
/// # Panics
///
/// Outside a runtime, naming `what` and the line that called it.
fn runtime(what: &str, caller: &Location<'_>) -> Handle {
    match context::current() {
        Some(handle) => handle,
        None => panic!(
            "lawn_rt: `fs::{what}` (called at {caller}) must be awaited inside a lawn_rt \
             runtime (in `Runtime::block_on`, a spawned task, or after `Runtime::enter`): it \
             runs on the runtime's blocking pool"
        ),
    }
}

/// Runs `op` on the blocking pool of the runtime that polls the returned
/// future, which gives `op`'s result. `what` and `caller` name the
/// operation in panics and errors.
async fn blocking<T, F>(
    what: &'static str,
    caller: &'static Location<'static>,
    op: F,
) -> io::Result<T>
where
    F: FnOnce() -> io::Result<T> + Send + 'static,
    T: Send + 'static,
{
    let handle = runtime(what, caller).spawn_blocking(op);
    join(what, handle.await)
}

/// What a blocking file-system task's join gives: its result; a panic of
/// the operation goes on in the awaiting task, a cancellation (the runtime
/// shut down before it ran) is an error.
fn join<T>(what: &str, joined: Result<io::Result<T>, crate::task::JoinError>) -> io::Result<T> {
    match joined {
        Ok(result) => result,
        Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
        Err(_) => Err(io::Error::other(NotRun { what: what.into() })),
    }
}

/// The error inside the `io::Error` of a file-system call whose runtime
/// shut down before it ran: it displays tokio's words, which ported tests
/// compare whole; `Debug` names the call.
#[derive(Debug)]
struct NotRun {
    /// The `fs` function that did not run.
    #[allow(dead_code)] // read through `Debug`
    what: String,
}

impl std::fmt::Display for NotRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("background task failed")
    }
}

impl std::error::Error for NotRun {}

/// Reads a whole file into a byte vector; like `tokio::fs::read` and
/// [`std::fs::read`].
///
/// # Errors
///
/// What [`std::fs::read`] gives: `NotFound` for a missing file, a
/// permission error, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let manifest = lawn_rt::fs::read("Cargo.toml").await?;
///     assert!(manifest.starts_with(b"["));
///     let missing = lawn_rt::fs::read("no/such/file").await.unwrap_err();
///     assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn read(path: impl AsRef<Path>) -> impl Future<Output = io::Result<Vec<u8>>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("read", Location::caller(), move || std::fs::read(path)),
    )
}

/// Reads a whole file into a string; like `tokio::fs::read_to_string` and
/// [`std::fs::read_to_string`].
///
/// # Errors
///
/// What [`std::fs::read_to_string`] gives; `InvalidData` if the file is
/// not UTF-8.
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// let manifest = rt.block_on(lawn_rt::fs::read_to_string("Cargo.toml"))?;
/// assert!(manifest.contains("lawn-rt"));
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn read_to_string(path: impl AsRef<Path>) -> impl Future<Output = io::Result<String>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("read_to_string", Location::caller(), move || {
            std::fs::read_to_string(path)
        }),
    )
}

/// Writes `contents` as the whole content of a file, creating it if need
/// be and truncating it otherwise; like `tokio::fs::write` and
/// [`std::fs::write`]. `contents` is copied when the function is called.
///
/// # Errors
///
/// What [`std::fs::write`] gives: `NotFound` if the directory is missing,
/// ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let path = std::env::temp_dir().join(format!("lawn-rt-write-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::write(&path, b"first").await?;
///     fs::write(&path, "second").await?; // replaces it
///     assert_eq!(fs::read(&path).await?, b"second");
///     fs::remove_file(&path).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn write(
    path: impl AsRef<Path>,
    contents: impl AsRef<[u8]>,
) -> impl Future<Output = io::Result<()>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    let (contents, caller_contents) = (contents.as_ref().to_owned(), contents);
    keeping(
        (caller_path, caller_contents),
        blocking("write", Location::caller(), move || {
            std::fs::write(path, contents)
        }),
    )
}

/// Creates a directory (its parent must exist); like
/// `tokio::fs::create_dir` and [`std::fs::create_dir`].
///
/// # Errors
///
/// `AlreadyExists` if the path exists, `NotFound` if the parent does not,
/// ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-create-dir-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir(&dir).await?;
///     let again = fs::create_dir(&dir).await.unwrap_err();
///     assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
///     fs::remove_dir(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn create_dir(path: impl AsRef<Path>) -> impl Future<Output = io::Result<()>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("create_dir", Location::caller(), move || {
            std::fs::create_dir(path)
        }),
    )
}

/// Creates a directory and every missing parent; like
/// `tokio::fs::create_dir_all` and [`std::fs::create_dir_all`]. A
/// directory that exists already is fine.
///
/// # Errors
///
/// What [`std::fs::create_dir_all`] gives (a file in the way, a
/// permission error).
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let root = std::env::temp_dir().join(format!("lawn-rt-create-all-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(root.join("a/b/c")).await?;
///     fs::create_dir_all(root.join("a/b")).await?; // exists: fine
///     assert!(fs::metadata(root.join("a/b/c")).await?.is_dir());
///     fs::remove_dir_all(&root).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn create_dir_all(path: impl AsRef<Path>) -> impl Future<Output = io::Result<()>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("create_dir_all", Location::caller(), move || {
            std::fs::create_dir_all(path)
        }),
    )
}

/// Removes a file (or a symbolic link, not what it points to); like
/// `tokio::fs::remove_file` and [`std::fs::remove_file`].
///
/// # Errors
///
/// `NotFound` if there is nothing there; an error for a directory.
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let path = std::env::temp_dir().join(format!("lawn-rt-remove-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::write(&path, "x").await?;
///     fs::remove_file(&path).await?;
///     assert!(!fs::try_exists(&path).await?);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn remove_file(path: impl AsRef<Path>) -> impl Future<Output = io::Result<()>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("remove_file", Location::caller(), move || {
            std::fs::remove_file(path)
        }),
    )
}

/// Removes an empty directory; like `tokio::fs::remove_dir` and
/// [`std::fs::remove_dir`].
///
/// # Errors
///
/// If the directory is not empty (`DirectoryNotEmpty`), is missing
/// (`NotFound`), or is not a directory.
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-remove-dir-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(dir.join("inner")).await?;
///     assert!(fs::remove_dir(&dir).await.is_err()); // not empty
///     fs::remove_dir(dir.join("inner")).await?;
///     fs::remove_dir(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn remove_dir(path: impl AsRef<Path>) -> impl Future<Output = io::Result<()>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("remove_dir", Location::caller(), move || {
            std::fs::remove_dir(path)
        }),
    )
}

/// Removes a directory and everything in it (symbolic links inside are
/// removed, not followed); like `tokio::fs::remove_dir_all` and
/// [`std::fs::remove_dir_all`].
///
/// # Errors
///
/// What [`std::fs::remove_dir_all`] gives (`NotFound` if the directory is
/// missing, a permission error).
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-remove-all-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(dir.join("a/b")).await?;
///     fs::write(dir.join("a/b/file"), "x").await?;
///     fs::remove_dir_all(&dir).await?;
///     assert!(!fs::try_exists(&dir).await?);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn remove_dir_all(path: impl AsRef<Path>) -> impl Future<Output = io::Result<()>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("remove_dir_all", Location::caller(), move || {
            std::fs::remove_dir_all(path)
        }),
    )
}

/// Renames a file or directory, replacing `to` if it is a file; like
/// `tokio::fs::rename` and [`std::fs::rename`].
///
/// # Errors
///
/// What [`std::fs::rename`] gives: `NotFound` if `from` is missing, an
/// error across file systems, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-rename-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(&dir).await?;
///     fs::write(dir.join("old"), "x").await?;
///     fs::rename(dir.join("old"), dir.join("new")).await?;
///     assert_eq!(fs::read(dir.join("new")).await?, b"x");
///     fs::remove_dir_all(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn rename(
    from: impl AsRef<Path>,
    to: impl AsRef<Path>,
) -> impl Future<Output = io::Result<()>> {
    let ((from, to), caller_paths) = (
        (from.as_ref().to_owned(), to.as_ref().to_owned()),
        (from, to),
    );
    keeping(
        caller_paths,
        blocking("rename", Location::caller(), move || {
            std::fs::rename(from, to)
        }),
    )
}

/// Copies a file's content (and permissions) to another, which is
/// created or truncated; returns how many bytes were copied; like
/// `tokio::fs::copy` and [`std::fs::copy`].
///
/// # Errors
///
/// What [`std::fs::copy`] gives: `NotFound` if `from` is missing, an error
/// if it is not a file, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-copy-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(&dir).await?;
///     fs::write(dir.join("a"), "12345").await?;
///     assert_eq!(fs::copy(dir.join("a"), dir.join("b")).await?, 5);
///     assert_eq!(fs::read(dir.join("b")).await?, b"12345");
///     fs::remove_dir_all(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn copy(from: impl AsRef<Path>, to: impl AsRef<Path>) -> impl Future<Output = io::Result<u64>> {
    let ((from, to), caller_paths) = (
        (from.as_ref().to_owned(), to.as_ref().to_owned()),
        (from, to),
    );
    keeping(
        caller_paths,
        blocking("copy", Location::caller(), move || std::fs::copy(from, to)),
    )
}

/// Metadata of a path, following symbolic links; like
/// `tokio::fs::metadata` and [`std::fs::metadata`].
///
/// # Errors
///
/// `NotFound` if nothing is there, a permission error, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let meta = lawn_rt::fs::metadata("Cargo.toml").await?;
///     assert!(meta.is_file() && meta.len() > 0);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn metadata(path: impl AsRef<Path>) -> impl Future<Output = io::Result<Metadata>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("metadata", Location::caller(), move || {
            std::fs::metadata(path)
        }),
    )
}

/// Metadata of a path itself, not following a symbolic link; like
/// `tokio::fs::symlink_metadata` and [`std::fs::symlink_metadata`].
///
/// # Errors
///
/// `NotFound` if nothing is there, a permission error, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let meta = lawn_rt::fs::symlink_metadata("src").await?;
///     assert!(meta.is_dir() && !meta.file_type().is_symlink());
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn symlink_metadata(path: impl AsRef<Path>) -> impl Future<Output = io::Result<Metadata>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("symlink_metadata", Location::caller(), move || {
            std::fs::symlink_metadata(path)
        }),
    )
}

/// The absolute path with every `.`, `..` and symbolic link resolved; like
/// `tokio::fs::canonicalize` and [`std::fs::canonicalize`].
///
/// # Errors
///
/// `NotFound` if the path (or a component) does not exist, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let path = lawn_rt::fs::canonicalize("src/../Cargo.toml").await?;
///     assert!(path.is_absolute() && path.ends_with("Cargo.toml"));
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn canonicalize(path: impl AsRef<Path>) -> impl Future<Output = io::Result<PathBuf>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("canonicalize", Location::caller(), move || {
            std::fs::canonicalize(path)
        }),
    )
}

/// Whether something exists at the path (following symbolic links: a
/// dangling link is `false`); like `tokio::fs::try_exists` and
/// [`std::fs::exists`].
///
/// # Errors
///
/// If it cannot be told (a permission error on a parent directory, say);
/// a missing path is `Ok(false)`, not an error.
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     assert!(lawn_rt::fs::try_exists("Cargo.toml").await?);
///     assert!(!lawn_rt::fs::try_exists("no/such/file").await?);
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn try_exists(path: impl AsRef<Path>) -> impl Future<Output = io::Result<bool>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("try_exists", Location::caller(), move || path.try_exists()),
    )
}

/// Makes `link` a new name (a hard link) for the file `original`; like
/// `tokio::fs::hard_link` and [`std::fs::hard_link`].
///
/// # Errors
///
/// `NotFound` if `original` is missing, `AlreadyExists` if `link` exists,
/// ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-hard-link-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(&dir).await?;
///     fs::write(dir.join("a"), "shared").await?;
///     fs::hard_link(dir.join("a"), dir.join("b")).await?;
///     fs::write(dir.join("a"), "changed").await?; // same file
///     assert_eq!(fs::read_to_string(dir.join("b")).await?, "changed");
///     fs::remove_dir_all(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn hard_link(
    original: impl AsRef<Path>,
    link: impl AsRef<Path>,
) -> impl Future<Output = io::Result<()>> {
    let ((original, link), caller_paths) = (
        (original.as_ref().to_owned(), link.as_ref().to_owned()),
        (original, link),
    );
    keeping(
        caller_paths,
        blocking("hard_link", Location::caller(), move || {
            std::fs::hard_link(original, link)
        }),
    )
}

/// What a symbolic link points to (not resolved further); like
/// `tokio::fs::read_link` and [`std::fs::read_link`].
///
/// # Errors
///
/// `NotFound` if nothing is there, `InvalidInput` if it is not a symbolic
/// link.
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-read-link-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(&dir).await?;
///     std::os::unix::fs::symlink("target-file", dir.join("link"))?;
///     assert_eq!(fs::read_link(dir.join("link")).await?, std::path::Path::new("target-file"));
///     fs::remove_dir_all(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn read_link(path: impl AsRef<Path>) -> impl Future<Output = io::Result<PathBuf>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("read_link", Location::caller(), move || {
            std::fs::read_link(path)
        }),
    )
}

/// Changes the permissions of a file or directory; like
/// `tokio::fs::set_permissions` and [`std::fs::set_permissions`].
///
/// # Errors
///
/// `NotFound` if nothing is there, a permission error, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let path = std::env::temp_dir().join(format!("lawn-rt-perm-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::write(&path, "x").await?;
///     let mut perms = fs::metadata(&path).await?.permissions();
///     perms.set_readonly(true);
///     fs::set_permissions(&path, perms).await?;
///     assert!(fs::metadata(&path).await?.permissions().readonly());
///     fs::remove_file(&path).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn set_permissions(
    path: impl AsRef<Path>,
    permissions: Permissions,
) -> impl Future<Output = io::Result<()>> {
    let (path, caller_path) = (path.as_ref().to_owned(), path);
    keeping(
        caller_path,
        blocking("set_permissions", Location::caller(), move || {
            std::fs::set_permissions(path, permissions)
        }),
    )
}

/// Makes a symbolic link at `link` pointing to `original`; like
/// `tokio::fs::symlink` and [`std::os::unix::fs::symlink`]. Unix.
///
/// # Errors
///
/// `AlreadyExists` if something is at `link`, `NotFound` for a missing
/// directory, a permission error, ...
///
/// # Panics
///
/// When polled outside a `lawn_rt` runtime (see the [module docs](self)).
///
/// # Examples
///
/// ```
/// use lawn_rt::fs;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-symlink-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     fs::create_dir_all(&dir).await?;
///     fs::write(dir.join("real"), "x").await?;
///     fs::symlink("real", dir.join("link")).await?;
///     assert_eq!(fs::read_to_string(dir.join("link")).await?, "x");
///     fs::remove_dir_all(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(unix)]
#[track_caller]
pub fn symlink(
    original: impl AsRef<Path>,
    link: impl AsRef<Path>,
) -> impl Future<Output = io::Result<()>> {
    let ((original, link), caller_paths) = (
        (original.as_ref().to_owned(), link.as_ref().to_owned()),
        (original, link),
    );
    keeping(
        caller_paths,
        blocking("symlink", Location::caller(), move || {
            std::os::unix::fs::symlink(original, link)
        }),
    )
}

/// `op`, keeping the caller's arguments (`held`: a path, or a guard such
/// as a temporary file's that deletes it when dropped) until it is done,
/// as tokio's `async fn`s do: an operation never outlives what its caller
/// handed it.
pub(super) async fn keeping<H, F: Future>(held: H, op: F) -> F::Output {
    let output = op.await;
    drop(held);
    output
}
