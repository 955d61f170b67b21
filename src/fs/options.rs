//! [`OpenOptions`] and [`DirBuilder`]: the builders of `std::fs`, whose
//! final step runs on the blocking pool.

use std::future::Future;
use std::io;
use std::panic::Location;
use std::path::Path;

use super::{blocking, keeping, File};

/// How to open a file: `std::fs::OpenOptions`, opened on the blocking
/// pool; like `tokio::fs::OpenOptions`.
///
/// Every setter takes and returns `&mut self`, as std's and tokio's do.
///
/// # Examples
///
/// ```
/// use lawn_rt::fs::OpenOptions;
/// use lawn_rt::io::AsyncWriteExt;
///
/// let path = std::env::temp_dir().join(format!("lawn-rt-options-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     lawn_rt::fs::write(&path, "one\n").await?;
///     let mut log = OpenOptions::new().append(true).open(&path).await?;
///     log.write_all(b"two\n").await?;
///     log.flush().await?;
///     assert_eq!(lawn_rt::fs::read_to_string(&path).await?, "one\ntwo\n");
///     lawn_rt::fs::remove_file(&path).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct OpenOptions(std::fs::OpenOptions);

impl OpenOptions {
    /// Options with every flag off (a file opened with them alone fails:
    /// set `read`, `write` or `append`).
    ///
    /// # Examples
    ///
    /// ```
    /// let mut options = lawn_rt::fs::OpenOptions::new();
    /// options.read(true);
    /// ```
    #[must_use]
    pub fn new() -> OpenOptions {
        OpenOptions(std::fs::OpenOptions::new())
    }

    /// Open for reading.
    ///
    /// # Examples
    ///
    /// ```
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let file = rt.block_on(lawn_rt::fs::OpenOptions::new().read(true).open("Cargo.toml"))?;
    /// # drop(file);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read(&mut self, read: bool) -> &mut OpenOptions {
        self.0.read(read);
        self
    }

    /// Open for writing (from the start of the file, overwriting).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::OpenOptions::new().write(true).create(true);
    /// ```
    pub fn write(&mut self, write: bool) -> &mut OpenOptions {
        self.0.write(write);
        self
    }

    /// Open for appending: every write goes to the end of the file.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::OpenOptions::new().append(true);
    /// ```
    pub fn append(&mut self, append: bool) -> &mut OpenOptions {
        self.0.append(append);
        self
    }

    /// Cut an existing file to length 0 (needs `write`).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::OpenOptions::new().write(true).truncate(true);
    /// ```
    pub fn truncate(&mut self, truncate: bool) -> &mut OpenOptions {
        self.0.truncate(truncate);
        self
    }

    /// Create the file if it is missing (needs `write` or `append`).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::OpenOptions::new().write(true).create(true);
    /// ```
    pub fn create(&mut self, create: bool) -> &mut OpenOptions {
        self.0.create(create);
        self
    }

    /// Create the file, failing with `AlreadyExists` if it is there: one
    /// atomic check-and-create (needs `write` or `append`).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::OpenOptions::new().write(true).create_new(true);
    /// ```
    pub fn create_new(&mut self, create_new: bool) -> &mut OpenOptions {
        self.0.create_new(create_new);
        self
    }

    /// The permission bits a created file gets (before the umask); Unix.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::OpenOptions::new().write(true).create(true).mode(0o600);
    /// ```
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::mode(&mut self.0, mode);
        self
    }

    /// Extra `open(2)` flags (`O_NOFOLLOW`, ...); Unix.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::OpenOptions::new().read(true).custom_flags(0);
    /// ```
    #[cfg(unix)]
    pub fn custom_flags(&mut self, flags: i32) -> &mut OpenOptions {
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut self.0, flags);
        self
    }

    /// Opens `path` with these options, on the blocking pool.
    ///
    /// # Errors
    ///
    /// What [`std::fs::OpenOptions::open`] gives: `NotFound`,
    /// `AlreadyExists` (with `create_new`), `InvalidInput` for options
    /// that do not go together, a permission error, ...
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime (the message names the
    /// line that called `open`).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::fs::OpenOptions;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let err = OpenOptions::new().read(true).open("no/such/file").await.unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn open(&self, path: impl AsRef<Path>) -> impl Future<Output = io::Result<File>> {
        let ((options, path), caller_path) = ((self.0.clone(), path.as_ref().to_owned()), path);
        let opened = blocking("OpenOptions::open", Location::caller(), move || {
            options.open(path)
        });
        keeping(caller_path, async move { opened.await.map(File::from_std) })
    }
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions::new()
    }
}

impl From<std::fs::OpenOptions> for OpenOptions {
    fn from(options: std::fs::OpenOptions) -> OpenOptions {
        OpenOptions(options)
    }
}

/// How to create a directory: `std::fs::DirBuilder`, run on the blocking
/// pool; like `tokio::fs::DirBuilder`.
///
/// # Examples
///
/// ```
/// use lawn_rt::fs::DirBuilder;
///
/// let dir = std::env::temp_dir().join(format!("lawn-rt-dirbuilder-doc-{}", std::process::id()));
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     DirBuilder::new().recursive(true).create(dir.join("a/b")).await?;
///     assert!(lawn_rt::fs::metadata(dir.join("a/b")).await?.is_dir());
///     lawn_rt::fs::remove_dir_all(&dir).await
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct DirBuilder {
    recursive: bool,
    #[cfg(unix)]
    mode: Option<u32>,
}

impl DirBuilder {
    /// A builder that creates one directory, with the default mode.
    ///
    /// # Examples
    ///
    /// ```
    /// let builder = lawn_rt::fs::DirBuilder::new();
    /// # drop(builder);
    /// ```
    #[must_use]
    pub fn new() -> DirBuilder {
        DirBuilder::default()
    }

    /// Create the missing parents too (and succeed if the directory is
    /// already there).
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::DirBuilder::new().recursive(true);
    /// ```
    pub fn recursive(&mut self, recursive: bool) -> &mut DirBuilder {
        self.recursive = recursive;
        self
    }

    /// The permission bits a created directory gets (before the umask);
    /// Unix.
    ///
    /// # Examples
    ///
    /// ```
    /// lawn_rt::fs::DirBuilder::new().mode(0o700);
    /// ```
    #[cfg(unix)]
    pub fn mode(&mut self, mode: u32) -> &mut DirBuilder {
        self.mode = Some(mode);
        self
    }

    /// Creates the directory at `path`, on the blocking pool.
    ///
    /// # Errors
    ///
    /// What [`std::fs::DirBuilder::create`] gives: `AlreadyExists` (not
    /// recursive), `NotFound` for a missing parent (not recursive), a
    /// permission error, ...
    ///
    /// # Panics
    ///
    /// When polled outside a `lawn_rt` runtime (the message names the
    /// line that called `create`).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::fs::DirBuilder;
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let err = DirBuilder::new().create("no/such/parent/dir").await.unwrap_err();
    ///     assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[track_caller]
    pub fn create(&self, path: impl AsRef<Path>) -> impl Future<Output = io::Result<()>> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(self.recursive);
        #[cfg(unix)]
        if let Some(mode) = self.mode {
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, mode);
        }
        let (path, caller_path) = (path.as_ref().to_owned(), path);
        keeping(
            caller_path,
            blocking("DirBuilder::create", Location::caller(), move || {
                builder.create(path)
            }),
        )
    }
}
