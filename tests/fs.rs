//! `lawn_rt::fs`: file-system operations on the blocking pool, on both
//! runtime flavors, in a temporary directory of each test's own (removed
//! at the end, also when the test fails). Every test runs under a watchdog.

mod common;

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{watchdog, Flavor};
use lawn_rt::fs;
use lawn_rt::time::timeout;

const LIMIT: Duration = Duration::from_secs(30);

/// A fresh directory under the system's temporary directory, removed when
/// dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let unique = NEXT.fetch_add(1, Ordering::SeqCst);
        let path =
            std::env::temp_dir().join(format!("lawn-rt-fs-{}-{name}-{unique}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the future `body(dir)` makes on a runtime of `flavor`, with a
/// fresh temporary directory, under the watchdog.
fn in_temp_dir<F, Fut>(flavor: Flavor, name: &'static str, body: F)
where
    F: FnOnce(PathBuf) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    watchdog(name, LIMIT, move || {
        let dir = TempDir::new(name);
        flavor.rt().block_on(body(dir.0.clone()));
        drop(dir);
    });
}

fn round_trips(flavor: Flavor) {
    in_temp_dir(flavor, "round_trips", |dir| async move {
        let file = dir.join("file.txt");
        fs::write(&file, "hello").await.unwrap();
        assert_eq!(fs::read(&file).await.unwrap(), b"hello");
        assert_eq!(fs::read_to_string(&file).await.unwrap(), "hello");
        // `write` truncates.
        fs::write(&file, b"hi".to_vec()).await.unwrap();
        assert_eq!(fs::read_to_string(&file).await.unwrap(), "hi");

        // A large file crosses no buffer boundary badly.
        let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        fs::write(dir.join("big"), &big).await.unwrap();
        assert_eq!(fs::read(dir.join("big")).await.unwrap(), big);

        assert_eq!(fs::copy(&file, dir.join("copy")).await.unwrap(), 2);
        assert_eq!(fs::read(dir.join("copy")).await.unwrap(), b"hi");
        fs::rename(dir.join("copy"), dir.join("renamed"))
            .await
            .unwrap();
        assert!(!fs::try_exists(dir.join("copy")).await.unwrap());
        assert!(fs::try_exists(dir.join("renamed")).await.unwrap());

        let meta = fs::metadata(&file).await.unwrap();
        assert!(meta.is_file());
        assert_eq!(meta.len(), 2);

        fs::create_dir(dir.join("sub")).await.unwrap();
        fs::create_dir_all(dir.join("sub/a/b/c")).await.unwrap();
        fs::create_dir_all(dir.join("sub/a/b/c")).await.unwrap(); // exists: fine
        assert!(fs::metadata(dir.join("sub/a/b/c")).await.unwrap().is_dir());

        std::os::unix::fs::symlink(&file, dir.join("link")).unwrap();
        assert!(fs::symlink_metadata(dir.join("link"))
            .await
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(fs::metadata(dir.join("link")).await.unwrap().is_file());
        assert_eq!(fs::read_link(dir.join("link")).await.unwrap(), file);
        assert_eq!(
            fs::canonicalize(dir.join("sub/a/../../link"))
                .await
                .unwrap(),
            std::fs::canonicalize(&file).unwrap()
        );

        fs::hard_link(&file, dir.join("hard")).await.unwrap();
        fs::write(&file, "changed").await.unwrap();
        assert_eq!(
            fs::read_to_string(dir.join("hard")).await.unwrap(),
            "changed"
        );

        let mut perms = fs::metadata(&file).await.unwrap().permissions();
        perms.set_readonly(true);
        fs::set_permissions(&file, perms).await.unwrap();
        assert!(fs::metadata(&file).await.unwrap().permissions().readonly());

        fs::remove_file(dir.join("hard")).await.unwrap();
        fs::remove_dir(dir.join("sub/a/b/c")).await.unwrap();
        fs::remove_dir_all(dir.join("sub")).await.unwrap();
        assert!(!fs::try_exists(dir.join("sub")).await.unwrap());
    });
}

/// The kind of the error `result` must be.
#[track_caller]
fn kind<T>(result: std::io::Result<T>) -> ErrorKind {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(err) => err.kind(),
    }
}

fn errors(flavor: Flavor) {
    in_temp_dir(flavor, "errors", |dir| async move {
        let missing = dir.join("missing");
        assert_eq!(kind(fs::read(&missing).await), ErrorKind::NotFound);
        assert_eq!(
            kind(fs::read_to_string(&missing).await),
            ErrorKind::NotFound
        );
        assert_eq!(kind(fs::metadata(&missing).await), ErrorKind::NotFound);
        assert_eq!(kind(fs::remove_file(&missing).await), ErrorKind::NotFound);
        assert_eq!(kind(fs::remove_dir(&missing).await), ErrorKind::NotFound);
        assert_eq!(
            kind(fs::remove_dir_all(&missing).await),
            ErrorKind::NotFound
        );
        assert_eq!(kind(fs::read_dir(&missing).await), ErrorKind::NotFound);
        assert_eq!(
            kind(fs::copy(&missing, dir.join("x")).await),
            ErrorKind::NotFound
        );
        assert_eq!(
            kind(fs::rename(&missing, dir.join("x")).await),
            ErrorKind::NotFound
        );
        assert_eq!(kind(fs::canonicalize(&missing).await), ErrorKind::NotFound);
        assert_eq!(kind(fs::read_link(&missing).await), ErrorKind::NotFound);
        assert_eq!(
            kind(fs::write(dir.join("no/such/dir/file"), "x").await),
            ErrorKind::NotFound
        );
        assert!(!fs::try_exists(&missing).await.unwrap());

        // A directory that is not empty.
        fs::create_dir_all(dir.join("full/inner")).await.unwrap();
        assert_eq!(
            kind(fs::remove_dir(dir.join("full")).await),
            ErrorKind::DirectoryNotEmpty
        );
        assert!(fs::try_exists(dir.join("full/inner")).await.unwrap());
        assert_eq!(
            kind(fs::create_dir(dir.join("full")).await),
            ErrorKind::AlreadyExists
        );

        // Not UTF-8; not a link; a file where a directory is wanted.
        fs::write(dir.join("binary"), [0xff, 0xfe, 0x00])
            .await
            .unwrap();
        assert_eq!(
            kind(fs::read_to_string(dir.join("binary")).await),
            ErrorKind::InvalidData
        );
        assert_eq!(
            kind(fs::read_link(dir.join("binary")).await),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(fs::read_dir(dir.join("binary")).await),
            ErrorKind::NotADirectory
        );
    });
}

fn read_dir_lists_what_was_created(flavor: Flavor) {
    in_temp_dir(flavor, "read_dir", |dir| async move {
        // More entries than one batch of the blocking pool reads.
        let mut expected = BTreeSet::new();
        for i in 0..100 {
            let name = format!("file-{i:03}");
            fs::write(dir.join(&name), i.to_string()).await.unwrap();
            expected.insert(OsString::from(name));
        }
        fs::create_dir(dir.join("subdir")).await.unwrap();
        expected.insert(OsString::from("subdir"));

        let mut seen = BTreeSet::new();
        let mut entries = fs::read_dir(&dir).await.unwrap();
        while let Some(entry) = entries.next_entry().await.unwrap() {
            let name = entry.file_name();
            assert_eq!(entry.path(), dir.join(&name));
            assert_ne!(entry.ino(), 0);
            let file_type = entry.file_type().await.unwrap();
            let meta = entry.metadata().await.unwrap();
            if name == "subdir" {
                assert!(file_type.is_dir() && meta.is_dir());
            } else {
                assert!(file_type.is_file() && meta.is_file());
                let number = name.to_str().unwrap()["file-".len()..]
                    .parse::<u32>()
                    .unwrap();
                assert_eq!(meta.len(), number.to_string().len() as u64);
            }
            assert!(seen.insert(name), "an entry listed twice");
        }
        assert_eq!(seen, expected);
        // Done stays done.
        assert!(entries.next_entry().await.unwrap().is_none());

        // An empty directory lists nothing.
        let mut empty = fs::read_dir(dir.join("subdir")).await.unwrap();
        assert!(empty.next_entry().await.unwrap().is_none());
    });
}

/// `next_entry` futures dropped while the blocking pool reads (timeouts of
/// zero) lose no entry and list none twice.
fn read_dir_is_cancel_safe(flavor: Flavor) {
    in_temp_dir(flavor, "read_dir_cancel", move |dir| async move {
        for i in 0..200 {
            std::fs::write(dir.join(format!("f{i}")), "").unwrap();
        }
        let mut entries = fs::read_dir(&dir).await.unwrap();
        let mut seen = BTreeSet::new();
        let mut cancelled = 0;
        loop {
            match timeout(Duration::ZERO, entries.next_entry()).await {
                Err(_) => cancelled += 1,
                Ok(entry) => match entry.unwrap() {
                    Some(entry) => assert!(seen.insert(entry.file_name()), "listed twice"),
                    None => break,
                },
            }
        }
        assert_eq!(seen.len(), 200);
        eprintln!("{flavor:?}: {cancelled} cancelled next_entry calls");
    });
}

/// Many tasks at once, each with its own file (multi-thread: in parallel
/// on the blocking pool).
fn concurrent_operations(flavor: Flavor) {
    in_temp_dir(flavor, "concurrent", |dir| async move {
        let tasks: Vec<_> = (0..64)
            .map(|i| {
                let path = dir.join(format!("task-{i}"));
                lawn_rt::spawn(async move {
                    let content = format!("task {i}").repeat(i + 1);
                    fs::write(&path, &content).await.unwrap();
                    assert_eq!(fs::read_to_string(&path).await.unwrap(), content);
                    fs::remove_file(&path).await.unwrap();
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let mut entries = fs::read_dir(&dir).await.unwrap();
        assert!(entries.next_entry().await.unwrap().is_none());
    });
}

/// A future made outside the runtime (the call only captures its
/// arguments) works when awaited inside, as tokio's do.
fn made_outside_awaited_inside(flavor: Flavor) {
    watchdog("made outside", LIMIT, move || {
        let dir = TempDir::new("outside");
        let write = fs::write(dir.join("f"), "x");
        let read = fs::read(dir.join("f"));
        let rt = flavor.rt();
        rt.block_on(async {
            write.await.unwrap();
            assert_eq!(read.await.unwrap(), b"x");
        });
    });
}

// ---------------------------------------------------------------------------
// File
// ---------------------------------------------------------------------------

/// A runtime of `flavor` whose blocking pool has one thread.
fn one_blocking_thread(flavor: Flavor) -> lawn_rt::runtime::Runtime {
    flavor
        .builder()
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap()
}

/// As [`in_temp_dir`], on `rt`.
fn in_temp_dir_on<F, Fut>(rt: lawn_rt::runtime::Runtime, name: &'static str, body: F)
where
    F: FnOnce(PathBuf) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    watchdog(name, LIMIT, move || {
        let dir = TempDir::new(name);
        rt.block_on(body(dir.0.clone()));
        drop(dir);
    });
}

/// Starts a read into `buf` and drops it before it can finish (the one
/// thread of the runtime's blocking pool is held meanwhile, see
/// [`one_blocking_thread`]); then lets it finish. The bytes it read stay
/// in the file's buffer: the OS position is ahead of the file's.
async fn cancelled_read(file: &mut lawn_rt::fs::File, buf: &mut [u8]) {
    use futures::io::AsyncReadExt;

    let (release, held) = std::sync::mpsc::channel::<()>();
    let holder = lawn_rt::task::spawn_blocking(move || {
        let _ = held.recv();
    });
    assert!(timeout(Duration::ZERO, file.read(buf)).await.is_err());
    release.send(()).unwrap();
    holder.await.unwrap();
}

fn file_round_trips(flavor: Flavor) {
    use futures::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
    use lawn_rt::fs::File;
    use std::io::SeekFrom;

    in_temp_dir_on(
        one_blocking_thread(flavor),
        "file_round_trips",
        |dir| async move {
            let path = dir.join("data");
            // More than one blocking write's worth (2 MiB).
            let big: Vec<u8> = (0..5_000_000u32).map(|i| (i % 253) as u8).collect();
            let mut file = File::create(&path).await.unwrap();
            file.write_all(&big).await.unwrap();
            file.flush().await.unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), big);
            drop(file);

            let mut file = File::open(&path).await.unwrap();
            let mut back = Vec::new();
            file.read_to_end(&mut back).await.unwrap();
            assert_eq!(back, big);
            assert_eq!(
                file.seek(SeekFrom::End(-3)).await.unwrap(),
                big.len() as u64 - 3
            );
            let mut tail = [0; 3];
            file.read_exact(&mut tail).await.unwrap();
            assert_eq!(tail, big[big.len() - 3..]);
            assert_eq!(file.seek(SeekFrom::Start(10)).await.unwrap(), 10);
            let mut two = [0; 2];
            file.read_exact(&mut two).await.unwrap();
            assert_eq!(two, big[10..12]);
            // Relative to the logical position, not the read-ahead.
            let mut eight = [0; 8];
            cancelled_read(&mut file, &mut eight).await;
            file.read_exact(&mut two).await.unwrap();
            assert_eq!(two, big[12..14]);
            assert_eq!(file.seek(SeekFrom::Current(3)).await.unwrap(), 17);
            file.read_exact(&mut two).await.unwrap();
            assert_eq!(two, big[17..19]);
            assert_eq!(file.metadata().await.unwrap().len(), big.len() as u64);

            // A write after a partial read lands at the logical position.
            std::fs::write(&path, b"0123456789").unwrap();
            let mut file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&path)
                .map(File::from_std)
                .unwrap();
            // A read of 8 bytes is started, then cancelled: its bytes stay
            // buffered (the OS position is 8), and the next reads use them.
            let mut eight = [0; 8];
            cancelled_read(&mut file, &mut eight).await;
            let mut three = [0; 3];
            file.read_exact(&mut three).await.unwrap();
            assert_eq!(&three, b"012");
            file.write_all(b"ab").await.unwrap();
            file.flush().await.unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"012ab56789");
            // set_len keeps the position; the next read goes on from it.
            file.read_exact(&mut three[..1]).await.unwrap();
            assert_eq!(three[0], b'5');
            file.set_len(8).await.unwrap();
            let mut rest = Vec::new();
            file.read_to_end(&mut rest).await.unwrap();
            assert_eq!(rest, b"67");
            file.sync_all().await.unwrap();
            file.sync_data().await.unwrap();

            // try_clone shares the position; into_std gives the logical one.
            let twin = file.try_clone().await.unwrap();
            file.seek(SeekFrom::Start(2)).await.unwrap();
            let mut one = [0; 1];
            file.read_exact(&mut one).await.unwrap();
            assert_eq!(&one, b"2");
            let mut std_file = file.into_std().await;
            use std::io::Seek as _;
            assert_eq!(std_file.stream_position().unwrap(), 3);
            drop(twin);

            // try_into_std: the read-ahead is given back.
            let mut file = File::open(&path).await.unwrap();
            let mut eight = [0; 8];
            cancelled_read(&mut file, &mut eight).await;
            file.read_exact(&mut one).await.unwrap();
            let mut std_file = file.try_into_std().expect("nothing in flight");
            assert_eq!(std_file.stream_position().unwrap(), 1);
        },
    );
}

/// A write that fails on the blocking pool is reported by the next flush
/// (the write itself returned at once).
fn file_write_errors_are_reported(flavor: Flavor) {
    use futures::io::AsyncWriteExt;
    use lawn_rt::fs::File;

    in_temp_dir(flavor, "file_write_errors", |dir| async move {
        let path = dir.join("read-only");
        std::fs::write(&path, "x").unwrap();
        let mut file = File::open(&path).await.unwrap(); // opened for reading
        let written = file.write(b"nope").await;
        let flushed = file.flush().await;
        assert!(
            written.is_err() || flushed.is_err(),
            "the failed write was not reported: {written:?} {flushed:?}"
        );
        // Reported once; the file is usable afterwards.
        file.flush().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"x");
        let missing = File::open(dir.join("missing")).await.unwrap_err();
        assert_eq!(missing.kind(), ErrorKind::NotFound);
    });
}

/// `&self` operations from many tasks at once on one shared file all
/// complete.
fn file_shared_by_many_tasks(flavor: Flavor) {
    use lawn_rt::fs::File;

    in_temp_dir(flavor, "file_shared", |dir| async move {
        let file = std::sync::Arc::new(File::create(dir.join("shared")).await.unwrap());
        let tasks: Vec<_> = (0..32u64)
            .map(|i| {
                let file = file.clone();
                lawn_rt::spawn(async move {
                    file.set_len(i).await.unwrap();
                    file.metadata().await.unwrap();
                    file.sync_data().await.unwrap();
                })
            })
            .collect();
        for task in tasks {
            timeout(LIMIT, task).await.expect("hung").unwrap();
        }
    });
}

/// The same reads, writes and seeks through the tokio-io traits on tokio's
/// `File` and on ours give the same results and the same file.
fn file_matches_tokio(flavor: Flavor) {
    use std::io::SeekFrom;
    use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

    async fn script<F>(mut file: F) -> Vec<String>
    where
        F: tokio::io::AsyncRead + tokio::io::AsyncWrite + tokio::io::AsyncSeek + Unpin,
    {
        let mut log = Vec::new();
        let mut buf = [0; 4];
        file.write_all(b"hello world, hello file").await.unwrap();
        log.push(format!("{:?}", file.seek(SeekFrom::Start(6)).await));
        log.push(format!(
            "{:?}",
            file.read(&mut buf).await.map(|n| buf[..n].to_vec())
        ));
        file.write_all(b"WORLD").await.unwrap();
        log.push(format!("{:?}", file.seek(SeekFrom::Current(-3)).await));
        log.push(format!("{:?}", file.read_exact(&mut buf).await));
        log.push(format!("{:?}", buf));
        log.push(format!("{:?}", file.seek(SeekFrom::End(0)).await));
        log.push(format!("{:?}", file.read(&mut buf).await));
        file.write_all(b"!").await.unwrap();
        file.flush().await.unwrap();
        log
    }

    let dir = TempDir::new("file_matches_tokio");
    let (ours_path, theirs_path) = (dir.join("ours"), dir.join("theirs"));
    let open = |path: &Path| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .unwrap()
    };
    let (ours_std, theirs_std) = (open(&ours_path), open(&theirs_path));
    let ours = watchdog("ours", LIMIT, move || {
        flavor
            .rt()
            .block_on(script(lawn_rt::fs::File::from_std(ours_std)))
    });
    let theirs = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(script(tokio::fs::File::from_std(theirs_std)));
    assert_eq!(ours, theirs);
    assert_eq!(
        std::fs::read(&ours_path).unwrap(),
        std::fs::read(&theirs_path).unwrap()
    );
}

fn open_options_and_dir_builder(flavor: Flavor) {
    in_temp_dir(flavor, "open_options", |dir| async move {
        use lawn_rt::io::{AsyncReadExt, AsyncWriteExt};
        use std::os::unix::fs::PermissionsExt;

        let path = dir.join("log");
        // create_new: once, then AlreadyExists.
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .await
            .unwrap();
        file.write_all(b"one\n").await.unwrap();
        file.flush().await.unwrap();
        drop(file);
        let again = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await;
        assert_eq!(kind(again), ErrorKind::AlreadyExists);
        let mode = fs::metadata(&path).await.unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");

        // append adds, truncate empties, read reads.
        let mut file = fs::File::options().append(true).open(&path).await.unwrap();
        file.write_all(b"two\n").await.unwrap();
        file.flush().await.unwrap();
        drop(file);
        assert_eq!(fs::read_to_string(&path).await.unwrap(), "one\ntwo\n");
        let mut file = fs::OpenOptions::new().read(true).open(&path).await.unwrap();
        let mut text = String::new();
        file.read_to_string(&mut text).await.unwrap();
        assert_eq!(text, "one\ntwo\n");
        let std_options = {
            let mut options = std::fs::OpenOptions::new();
            options.write(true).truncate(true);
            options
        };
        drop(
            fs::OpenOptions::from(std_options)
                .open(&path)
                .await
                .unwrap(),
        );
        assert_eq!(fs::read(&path).await.unwrap(), b"");
        // No access mode at all: std's InvalidInput, at the await.
        assert_eq!(
            kind(fs::OpenOptions::new().open(&path).await),
            ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(fs::File::create_new(&path).await),
            ErrorKind::AlreadyExists
        );
        drop(fs::File::create_new(dir.join("fresh")).await.unwrap());

        // DirBuilder: one level, then recursive, with a mode.
        let nested = dir.join("a/b/c");
        assert_eq!(
            kind(fs::DirBuilder::new().create(&nested).await),
            ErrorKind::NotFound
        );
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&nested)
            .await
            .unwrap();
        let mode = fs::metadata(&nested).await.unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "mode {mode:o}");
        fs::DirBuilder::new()
            .recursive(true)
            .create(&nested)
            .await
            .unwrap();
        assert_eq!(
            kind(fs::DirBuilder::new().create(&nested).await),
            ErrorKind::AlreadyExists
        );

        // symlink: followed by reads, read back by read_link.
        fs::symlink("log", dir.join("link")).await.unwrap();
        assert_eq!(
            fs::read_link(dir.join("link")).await.unwrap(),
            Path::new("log")
        );
        assert_eq!(
            kind(fs::symlink("log", dir.join("link")).await),
            ErrorKind::AlreadyExists
        );
    });
}

/// A file's buffer size bounds what one read or write moves; a write of
/// more is taken in pieces, and every byte arrives.
fn max_buf_size_bounds_each_read_and_write(flavor: Flavor) {
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    in_temp_dir(flavor, "max_buf", |dir| async move {
        let path = dir.join("f");
        let mut file = fs::File::create(&path).await.unwrap();
        file.set_max_buf_size(16);
        let data: Vec<u8> = (0..100u8).collect();
        assert_eq!(file.write(&data).await.unwrap(), 16, "one write, one piece");
        file.write_all(&data[16..]).await.unwrap();
        file.flush().await.unwrap();
        drop(file);
        let mut file = fs::File::open(&path).await.unwrap();
        file.set_max_buf_size(10);
        let mut buf = [0; 64];
        assert_eq!(file.read(&mut buf).await.unwrap(), 10);
        let mut rest = Vec::new();
        file.read_to_end(&mut rest).await.unwrap();
        assert_eq!([&buf[..10], &rest[..]].concat(), data);
    });
}

both_flavors!(
    max_buf_size_bounds_each_read_and_write,
    open_options_and_dir_builder,
    round_trips,
    errors,
    read_dir_lists_what_was_created,
    read_dir_is_cancel_safe,
    concurrent_operations,
    made_outside_awaited_inside,
    file_round_trips,
    file_write_errors_are_reported,
    file_shared_by_many_tasks,
    file_matches_tokio,
);

/// Awaited outside a runtime, the first poll panics; the message names
/// lawn_rt, the operation and the line that called it.
#[test]
fn awaited_outside_a_runtime_panics_naming_the_caller() {
    let line = line!() + 1;
    let read = fs::read("Cargo.toml");
    let site = common::catch_panic_site("fs::read outside a runtime", || {
        futures::executor::block_on(read)
    });
    assert!(
        site.message.contains("lawn_rt")
            && site.message.contains("`fs::read`")
            && site.message.contains(&format!("fs.rs:{line}")),
        "{site:?}"
    );

    let line = line!() + 1;
    let listing = fs::read_dir(".");
    let site = common::catch_panic_site("fs::read_dir outside a runtime", || {
        futures::executor::block_on(listing)
    });
    assert!(
        site.message.contains("`fs::read_dir`") && site.message.contains(&format!("fs.rs:{line}")),
        "{site:?}"
    );

    // A `ReadDir` made inside a runtime, polled for more entries (beyond
    // its first batch) outside.
    let dir = TempDir::new("outside_next_entry");
    for i in 0..100 {
        std::fs::write(dir.join(format!("f{i}")), "").unwrap();
    }
    let mut entries = Flavor::CurrentThread
        .rt()
        .block_on(fs::read_dir(&dir.0))
        .unwrap();
    let site = common::catch_panic_site("next_entry outside a runtime", || {
        for _ in 0..100 {
            futures::executor::block_on(entries.next_entry()).unwrap();
        }
    });
    assert!(site.message.contains("ReadDir::next_entry"), "{site:?}");
}

/// Once its runtime is gone, a `ReadDir` that needs more entries fails (the
/// runtime's shutdown cancels it) or panics outside any runtime, but never
/// hangs.
#[test]
fn operations_after_shutdown_do_not_hang() {
    watchdog("after shutdown", LIMIT, || {
        let rt = Flavor::MultiThread.rt();
        let handle = rt.handle().clone();
        drop(rt);
        let _entered = handle.enter();
        let result = futures::executor::block_on(fs::read("Cargo.toml"));
        let err = result.unwrap_err();
        // tokio's words (they were lawn_rt's "... shut down first"); the
        // call is named in the inner error's `Debug`.
        assert_eq!(err.to_string(), "background task failed", "{err}");
        assert!(format!("{err:?}").contains("read"), "{err:?}");
    });
}

#[test]
fn a_zero_buffer_size_panics_at_the_callers_line() {
    let mut file = fs::File::from_std(std::fs::File::open("Cargo.toml").unwrap());
    let site = common::catch_panic_site("set_max_buf_size(0)", move || {
        file.set_max_buf_size(0);
    });
    assert!(site.message.contains("greater than 0"), "{}", site.message);
    assert_eq!(site.file, file!(), "{site:?}");
}

/// A path that deletes its file when dropped, as a temporary file's guard
/// does.
struct DeletedOnDrop(PathBuf);

impl AsRef<Path> for DeletedOnDrop {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for DeletedOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A path handed over by value lives until the operation is done, as with
/// tokio's `async fn`s: a guard that deletes its file on drop does not
/// delete it before the file is opened or read.
#[test]
fn a_path_given_by_value_outlives_the_operation() {
    in_temp_dir(Flavor::CurrentThread, "path_by_value", |dir| async move {
        let guarded = || {
            let path = dir.join("guarded");
            std::fs::write(&path, b"kept").unwrap();
            DeletedOnDrop(path)
        };
        let file = fs::OpenOptions::new().read(true).open(guarded()).await;
        assert!(file.is_ok(), "{file:?}");
        assert!(fs::File::open(guarded()).await.is_ok());
        assert_eq!(fs::read(guarded()).await.unwrap(), b"kept");
        assert_eq!(fs::read_to_string(guarded()).await.unwrap(), "kept");
        assert!(fs::metadata(guarded()).await.unwrap().is_file());
        // Dropped once done.
        assert!(!fs::try_exists(dir.join("guarded")).await.unwrap());
    });
}

/// A clone of a file keeps its largest buffer size, as tokio's does.
#[test]
fn try_clone_keeps_the_max_buf_size() {
    in_temp_dir(Flavor::CurrentThread, "try_clone_buf", |dir| async move {
        let mut file = fs::File::create(dir.join("f")).await.unwrap();
        file.set_max_buf_size(4096);
        let twin = file.try_clone().await.unwrap();
        assert_eq!(twin.max_buf_size(), 4096);
    });
}

/// A vectored write takes every slice (up to the largest write), as
/// tokio's file does, not only the first.
#[test]
fn a_vectored_write_takes_every_slice() {
    in_temp_dir(Flavor::CurrentThread, "write_vectored", |dir| async move {
        use futures::io::AsyncWriteExt;
        let path = dir.join("v");
        let mut file = fs::File::create(&path).await.unwrap();
        let slices = [
            std::io::IoSlice::new(b"hello "),
            std::io::IoSlice::new(b"world"),
        ];
        assert_eq!(file.write_vectored(&slices).await.unwrap(), 11);
        // Capped at the largest write, in order.
        file.set_max_buf_size(8);
        assert_eq!(file.write_vectored(&slices).await.unwrap(), 8);
        file.flush().await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello worldhello wo");
        assert!(format!("{file:?}").starts_with("lawn_rt::fs::File { std: File { fd:"));
    });
}

/// A file-system call through the handle of a runtime that has shut down
/// fails with tokio's error: kind `Other`, an inner error that displays
/// "background task failed" (ported tests compare it whole); its `Debug`
/// names the call.
#[test]
fn a_call_after_shutdown_fails_with_tokios_error() {
    let rt = lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let handle = rt.handle().clone();
    rt.shutdown_timeout(std::time::Duration::from_secs(10));
    let err = handle
        .block_on(lawn_rt::fs::read_to_string("Cargo.toml"))
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::Other);
    let inner = err.get_ref().expect("no inner error");
    assert_eq!(inner.to_string(), "background task failed");
    assert!(format!("{inner:?}").contains("read_to_string"), "{inner:?}");
}
