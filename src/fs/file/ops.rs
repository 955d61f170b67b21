//! The `&self` operations of a [`File`] beside reads, writes and seeks:
//! syncing, metadata, permissions and times, the buffer's size, cloning,
//! `set_len`.

use std::fs::{FileTimes, Metadata, Permissions};
use std::future::Future;
use std::io::{self, Seek, SeekFrom};
use std::panic::Location;
use std::task::{ready, Poll};
use std::time::SystemTime;

use super::state::{finish, Op};
use super::File;

impl File {
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
}
