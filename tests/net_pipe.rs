//! `net::unix::pipe`: anonymous pipes and FIFOs on the runtime's park
//! loop. Bytes arrive in order and the end of the stream shows once the
//! writer is gone; a full pipe makes a writer wait until the reader
//! drains it; a `WouldBlock` clears readiness so the next wait really
//! waits; a writer whose reader is gone gets `BrokenPipe`; a FIFO opens
//! as tokio's does (no reader: `ENXIO` unless read-write; not a FIFO:
//! `InvalidInput`, unless unchecked); descriptors are checked for their
//! access mode, made non-blocking when taken and blocking when given back;
//! a pipe end reaches a child process; outside a runtime, `pipe()` panics
//! at the caller's line. Both runtime flavors; every wait bounded.
#![cfg(any(target_os = "linux", target_os = "android"))]

mod common;

use std::io::ErrorKind;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::time::Duration;

use common::net::within;
use common::{on, Flavor};
use futures::io::{AsyncReadExt, AsyncWriteExt};
use lawn_rt::io::Interest;
use lawn_rt::net::unix::pipe::{self, OpenOptions, Receiver, Sender};
use lawn_rt::time::{sleep, timeout};

/// A FIFO in a directory of its own.
fn fifo(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("net_pipe_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap();
    assert!(made.success());
    (dir, path)
}

fn is_nonblocking(fd: &OwnedFd) -> bool {
    rustix::fs::fcntl_getfl(fd)
        .unwrap()
        .contains(rustix::fs::OFlags::NONBLOCK)
}

fn bytes_arrive_in_order_and_the_end_shows(flavor: Flavor) {
    on(flavor, "in_order", || async {
        let (mut tx, mut rx) = pipe::pipe().unwrap();
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let expected = data.clone();
        // More than a pipe holds (64 KiB): the writer waits for the reader.
        let writer = lawn_rt::spawn(async move {
            tx.write_all(&data).await.unwrap();
            // Dropping it is the end of the stream (closing does nothing).
            tx.close().await.unwrap();
        });
        let mut got = Vec::new();
        within("read to the end", rx.read_to_end(&mut got))
            .await
            .unwrap();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected, "bytes out of order");
        within("writer", writer).await.unwrap();
    });
}

fn a_would_block_clears_readiness(flavor: Flavor) {
    on(flavor, "would_block", || async {
        let (tx, rx) = pipe::pipe().unwrap();
        within("writable", tx.writable()).await.unwrap();
        assert_eq!(tx.try_write(b"abc").unwrap(), 3);
        // Let a second report of the same edge land (an epoll edge can be
        // reported twice while another thread harvests) before clearing.
        sleep(Duration::from_millis(20)).await;
        within("readable", rx.readable()).await.unwrap();
        let mut buf = [0; 8];
        assert_eq!(rx.try_read(&mut buf).unwrap(), 3);
        let err = rx.try_read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::WouldBlock);
        assert!(
            timeout(Duration::from_millis(50), rx.readable())
                .await
                .is_err(),
            "readable returned with the pipe empty"
        );
        // More data wakes the waiting reader.
        let late = lawn_rt::spawn(async move {
            sleep(Duration::from_millis(10)).await;
            tx.try_write(b"d").unwrap();
            tx
        });
        let n = within("second read", read_some(&rx, &mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"d");
        drop(within("late writer", late).await.unwrap());
        // The writer gone: readable, and a read of 0.
        within("closed", rx.readable()).await.unwrap();
        assert_eq!(rx.try_read(&mut buf).unwrap(), 0);
        // On a pipe whose writer went first, the first report says so.
        let (tx, rx) = pipe::pipe().unwrap();
        drop(tx);
        let ready = within("ready", rx.ready(Interest::READABLE)).await.unwrap();
        assert!(ready.is_read_closed(), "{ready:?}");
    });
}

/// Reads what arrives, waiting and retrying on `WouldBlock` as a user's
/// loop does (through `try_io`, the pipe's hook for calls of one's own).
async fn read_some(rx: &Receiver, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        rx.readable().await?;
        match rx.try_io(|| rx.try_read(buf)) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => continue,
            done => return done,
        }
    }
}

fn a_writer_without_readers_gets_broken_pipe(flavor: Flavor) {
    on(flavor, "broken_pipe", || async {
        let (mut tx, rx) = pipe::pipe().unwrap();
        drop(rx);
        let err = within("write", tx.write_all(b"lost")).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BrokenPipe, "{err}");
        let ready = within("ready", tx.ready(Interest::WRITABLE)).await.unwrap();
        assert!(ready.is_error() || ready.is_write_closed(), "{ready:?}");
    });
}

fn a_fifo_opens_as_tokios_does(flavor: Flavor) {
    on(flavor, "fifo", move || async move {
        let (dir, path) = fifo(&format!("{flavor:?}"));
        // No reader: a sender fails with ENXIO, unless read-write.
        let err = OpenOptions::new().open_sender(&path).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(6), "ENXIO: {err}");
        let held = OpenOptions::new()
            .read_write(true)
            .open_sender(&path)
            .unwrap();
        drop(held);

        let mut rx = OpenOptions::new().open_receiver(&path).unwrap();
        let mut tx = OpenOptions::new().open_sender(&path).unwrap();
        within("write", tx.write_all(b"through the fifo"))
            .await
            .unwrap();
        drop(tx);
        let mut text = String::new();
        within("read", rx.read_to_string(&mut text)).await.unwrap();
        assert_eq!(text, "through the fifo");

        // Not a FIFO: refused, unless unchecked (then epoll refuses it).
        let file = dir.join("plain");
        std::fs::write(&file, b"x").unwrap();
        let err = OpenOptions::new().open_receiver(&file).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        let err = OpenOptions::new()
            .unchecked(true)
            .open_receiver(&file)
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(1), "EPERM from epoll: {err}");
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

fn descriptors_are_checked_and_made_non_blocking(flavor: Flavor) {
    on(flavor, "descriptors", || async {
        let (tx, rx) = pipe::pipe().unwrap();
        let (tx, rx) = (
            tx.into_blocking_fd().unwrap(),
            rx.into_blocking_fd().unwrap(),
        );
        assert!(!is_nonblocking(&tx) && !is_nonblocking(&rx));

        // The wrong end for the type: refused by its access mode.
        let (tx2, rx2) = pipe::pipe().unwrap();
        let (tx2, rx2) = (
            tx2.into_nonblocking_fd().unwrap(),
            rx2.into_nonblocking_fd().unwrap(),
        );
        assert!(is_nonblocking(&tx2));
        let err = Sender::from_owned_fd(rx2).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("O_WRONLY"), "{err}");
        let err = Receiver::from_owned_fd(tx2).unwrap_err();
        assert!(err.to_string().contains("O_RDONLY"), "{err}");

        // Taken back, they are non-blocking again: filling the pipe ends
        // in WouldBlock rather than blocking the thread.
        let tx = Sender::from_owned_fd(tx).unwrap();
        let rx = Receiver::from_file(rx.into()).unwrap();
        let mut sent = 0;
        loop {
            match tx.try_write(&[7; 4096]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => panic!("{e}"),
            }
            if sent > (1 << 24) {
                panic!("the pipe never filled: still blocking?");
            }
            within("writable", tx.writable()).await.unwrap();
        }
        // The reader drains it; the writer may write again.
        let mut buf = vec![0; sent];
        let mut got = 0;
        while got < sent {
            within("readable", rx.readable()).await.unwrap();
            match rx.try_read(&mut buf[got..]) {
                Ok(n) => got += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => panic!("{e}"),
            }
        }
        within("writable again", tx.writable()).await.unwrap();
        assert!(buf.iter().all(|&b| b == 7));
    });
}

fn a_pipe_end_reaches_a_child(flavor: Flavor) {
    on(flavor, "child", || async {
        let (tx, mut rx) = pipe::pipe().unwrap();
        let status = lawn_rt::process::Command::new("sh")
            .args(["-c", "echo from the child"])
            .stdout(tx.into_blocking_fd().unwrap())
            .status();
        let mut text = String::new();
        within("read", rx.read_to_string(&mut text)).await.unwrap();
        assert!(within("status", status).await.unwrap().success());
        assert_eq!(text, "from the child\n");
    });
}

both_flavors!(
    bytes_arrive_in_order_and_the_end_shows,
    a_would_block_clears_readiness,
    a_writer_without_readers_gets_broken_pipe,
    a_fifo_opens_as_tokios_does,
    descriptors_are_checked_and_made_non_blocking,
    a_pipe_end_reaches_a_child,
);

#[test]
fn pipe_outside_a_runtime_panics_at_the_callers_line() {
    #[allow(clippy::redundant_closure)] // the call's line is what is checked
    let site = common::catch_panic_site("pipe() outside a runtime", || pipe::pipe());
    assert!(site.message.contains("lawn_rt runtime"), "{}", site.message);
    assert_eq!(site.file, file!(), "{site:?}");
}

/// The tokio-io traits too, as a ported service uses them.
#[test]
fn tokio_io_traits() {
    let rt = lawn_rt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (mut tx, mut rx) = pipe::pipe().unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"tokio")
            .await
            .unwrap();
        tokio::io::AsyncWriteExt::shutdown(&mut tx).await.unwrap(); // a no-op, as tokio's
        tokio::io::AsyncWriteExt::write_all(&mut tx, b"-io")
            .await
            .unwrap();
        drop(tx);
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut rx, &mut text)
            .await
            .unwrap();
        assert_eq!(text, "tokio-io");
    });
}
