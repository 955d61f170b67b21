//! `io::unix::AsyncFd` and the readiness types: waiting for any file
//! descriptor on the runtime's own poll. A guard's `try_io` that gets
//! `WouldBlock` clears the readiness and the next wait really waits; a
//! dropped or retained guard keeps it; every waiting task is woken; a
//! closed peer shows as read-closed; `into_inner` takes the descriptor out
//! of the poll (so it can be registered again); a regular file comes back
//! from `try_new` with the kernel's refusal; outside a runtime `new`
//! panics at the caller's line; after the runtime's shutdown waits fail.
//! Both runtime flavors; every wait bounded.
#![cfg(unix)]

mod common;

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use common::net::within;
use common::{on, Flavor};
use lawn_rt::io::unix::AsyncFd;
use lawn_rt::io::{Interest, Ready};
use lawn_rt::time::{sleep, timeout};

/// A non-blocking socket pair: (the end wrapped in `AsyncFd`, the other).
fn pair() -> (UnixStream, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

/// `a` registered after its state stopped changing. A test that checks
/// that a wait waits once its readiness is cleared needs this: when data
/// arrives while another thread harvests the poll (a multi-thread
/// worker), epoll can report the same edge twice (the harvest reads the
/// new state, then the writer's wake-up queues the descriptor again),
/// and the second report rightly sets the readiness again. Registered
/// after the write, the descriptor is reported once.
fn settled(a: UnixStream) -> AsyncFd<UnixStream> {
    AsyncFd::new(a).unwrap()
}

/// Reads what has arrived, waiting on `fd` as a user's loop does.
async fn read_some(fd: &AsyncFd<UnixStream>, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        let mut guard = fd.readable().await?;
        match guard.try_io(|fd| fd.get_ref().read(buf)) {
            Ok(result) => return result,
            Err(_would_block) => continue,
        }
    }
}

fn reads_what_arrives_and_waits_again_after_would_block(flavor: Flavor) {
    on(flavor, "reads_what_arrives", || async {
        let (a, mut b) = pair();
        b.write_all(b"first").unwrap();
        let fd = settled(a);
        let mut buf = [0; 16];
        let n = within("first read", read_some(&fd, &mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"first");

        // Drained: the next read says WouldBlock, which clears readiness,
        // so a wait now waits (not ready within 50 ms).
        let mut guard = within("readable", fd.readable()).await.unwrap();
        assert!(guard.try_io(|fd| fd.get_ref().read(&mut buf)).is_err());
        assert!(
            guard.ready().is_empty(),
            "try_io's WouldBlock cleared the guard"
        );
        assert!(
            timeout(Duration::from_millis(50), fd.readable())
                .await
                .is_err(),
            "readable returned with nothing to read"
        );

        // Data from another thread wakes the waiting task.
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            b.write_all(b"second").unwrap();
            b
        });
        let n = within("second read", read_some(&fd, &mut buf))
            .await
            .unwrap();
        assert_eq!(&buf[..n], b"second");
        drop(writer.join().unwrap());
    });
}

fn a_dropped_or_retained_guard_keeps_the_readiness(flavor: Flavor) {
    on(flavor, "retained", || async {
        let (a, mut b) = pair();
        b.write_all(b"x").unwrap();
        let fd = settled(a);
        within("readable", fd.readable()).await.unwrap(); // the guard dropped at once
        within("again after drop", fd.readable())
            .await
            .unwrap()
            .retain_ready();
        let guard = within("again after retain", fd.readable()).await.unwrap();
        assert!(guard.ready().is_readable());
        // clear_ready forgets it (the byte is still there, but the poll
        // reports it once: the wait waits for the next event).
        let mut guard = guard;
        guard.clear_ready();
        assert!(timeout(Duration::from_millis(50), fd.readable())
            .await
            .is_err());
    });
}

fn clear_ready_matching_forgets_only_what_it_names(flavor: Flavor) {
    on(flavor, "matching", || async {
        let (a, mut b) = pair();
        b.write_all(b"x").unwrap();
        let fd = settled(a);
        let mut guard = within("both", fd.ready(Interest::READABLE | Interest::WRITABLE))
            .await
            .unwrap();
        // Wait until both are reported (the events may come apart).
        while !(guard.ready().is_readable() && guard.ready().is_writable()) {
            sleep(Duration::from_millis(1)).await;
            guard = fd
                .ready(Interest::READABLE | Interest::WRITABLE)
                .await
                .unwrap();
        }
        guard.clear_ready_matching(Ready::READABLE);
        assert!(!guard.ready().is_readable() && guard.ready().is_writable());
        assert!(timeout(Duration::from_millis(50), fd.readable())
            .await
            .is_err());
        assert!(within("writable", fd.writable())
            .await
            .unwrap()
            .ready()
            .is_writable());
    });
}

fn every_waiting_task_is_woken(flavor: Flavor) {
    on(flavor, "every_waiter", || async {
        let (a, mut b) = pair();
        let fd = Arc::new(AsyncFd::with_interest(a, Interest::READABLE).unwrap());
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let fd = fd.clone();
                lawn_rt::spawn(async move { fd.readable().await.map(|guard| guard.ready()) })
            })
            .collect();
        sleep(Duration::from_millis(20)).await;
        b.write_all(b"!").unwrap();
        for waiter in waiters {
            let ready = within("waiter", waiter).await.unwrap().unwrap();
            assert!(ready.is_readable());
        }
    });
}

fn a_closed_peer_reads_as_read_closed(flavor: Flavor) {
    on(flavor, "read_closed", || async {
        let (a, b) = pair();
        let fd = AsyncFd::new(a).unwrap();
        drop(b);
        let mut guard = within("readable", fd.readable()).await.unwrap();
        assert!(guard.ready().is_read_closed(), "{:?}", guard.ready());
        let n = guard
            .try_io(|fd| fd.get_ref().read(&mut [0; 4]))
            .unwrap()
            .unwrap();
        assert_eq!(n, 0, "end of stream");
    });
}

fn async_io_retries_until_the_call_succeeds(flavor: Flavor) {
    on(flavor, "async_io", || async {
        let (a, mut b) = pair();
        let mut fd = AsyncFd::new(a).unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            b.write_all(b"late").unwrap();
            b
        });
        let mut calls = 0;
        let mut buf = [0; 8];
        let n = within(
            "async_io",
            fd.async_io(Interest::READABLE, |a| {
                calls += 1;
                (&*a).read(&mut buf)
            }),
        )
        .await
        .unwrap();
        assert_eq!(&buf[..n], b"late");
        assert!(calls >= 1);
        let n = within(
            "async_io_mut",
            fd.async_io_mut(Interest::WRITABLE, |a| a.write(b"back")),
        )
        .await
        .unwrap();
        assert_eq!(n, 4);
        let mut b = writer.join().unwrap();
        b.set_nonblocking(false).unwrap();
        let mut back = [0; 4];
        b.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"back");
    });
}

fn into_inner_takes_the_descriptor_out_of_the_poll(flavor: Flavor) {
    on(flavor, "into_inner", || async {
        let (a, mut b) = pair();
        let fd = AsyncFd::new(a).unwrap();
        let a = fd.into_inner();
        // Registered again: it would fail with EEXIST had it stayed.
        let fd = AsyncFd::new(a).unwrap();
        b.write_all(b"y").unwrap();
        let mut buf = [0; 4];
        assert_eq!(within("read", read_some(&fd, &mut buf)).await.unwrap(), 1);
        // The same descriptor twice: the kernel refuses the second.
        let dup = fd.get_ref().try_clone().unwrap();
        let again = AsyncFd::try_new(fd.get_ref().try_clone().unwrap());
        assert!(again.is_ok(), "a dup is another descriptor");
        drop((dup, again));
    });
}

fn poll_ready_wakes_the_polling_task(flavor: Flavor) {
    on(flavor, "poll_ready", || async {
        let (a, mut b) = pair();
        let mut fd = AsyncFd::new(a).unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            b.write_all(b"z").unwrap();
            b
        });
        let guard = within(
            "poll_read_ready",
            std::future::poll_fn(|cx| fd.poll_read_ready(cx)),
        )
        .await
        .unwrap();
        assert!(guard.ready().is_readable());
        let mut byte = [0; 1];
        let n = within(
            "poll_read_ready_mut",
            std::future::poll_fn(|cx| {
                let mut guard = std::task::ready!(fd.poll_read_ready_mut(cx)).unwrap();
                std::task::Poll::Ready(guard.try_io(|fd| fd.get_mut().read(&mut byte)))
            }),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!((n, byte), (1, *b"z"));
        let guard = within(
            "poll_write_ready",
            std::future::poll_fn(|cx| fd.poll_write_ready(cx)),
        )
        .await
        .unwrap();
        assert!(guard.ready().is_writable());
        drop(writer.join().unwrap());
    });
}

both_flavors!(
    reads_what_arrives_and_waits_again_after_would_block,
    a_dropped_or_retained_guard_keeps_the_readiness,
    clear_ready_matching_forgets_only_what_it_names,
    every_waiting_task_is_woken,
    a_closed_peer_reads_as_read_closed,
    async_io_retries_until_the_call_succeeds,
    into_inner_takes_the_descriptor_out_of_the_poll,
    poll_ready_wakes_the_polling_task,
    out_of_band_data_ends_a_priority_wait,
);

#[test]
fn a_regular_file_comes_back_with_the_kernels_refusal() {
    let rt = lawn_rt::runtime::Runtime::new().unwrap();
    let _guard = rt.enter();
    let file = std::fs::File::open(file!()).unwrap();
    let (file, err) = AsyncFd::try_new(file).unwrap_err().into_parts();
    assert_eq!(err.raw_os_error(), Some(1), "EPERM: {err}");
    assert!(
        file.metadata().unwrap().is_file(),
        "the file is given back open"
    );
    let err = AsyncFd::new(std::fs::File::open(file!()).unwrap()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::PermissionDenied);
}

#[test]
fn new_outside_a_runtime_panics_at_the_callers_line() {
    let (a, _b) = pair();
    let site = common::catch_panic_site("AsyncFd::new outside a runtime", || AsyncFd::new(a));
    assert!(site.message.contains("lawn_rt runtime"), "{}", site.message);
    assert_eq!(site.file, file!(), "{site:?}");
}

#[test]
fn waits_fail_once_the_runtime_is_gone() {
    let rt = lawn_rt::runtime::Runtime::new().unwrap();
    let (a, _b) = pair();
    let fd = rt.block_on(async { AsyncFd::new(a) }).unwrap();
    drop(rt);
    let err = futures::executor::block_on(fd.readable()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Other, "{err}");
    assert!(err.to_string().contains("shut down"), "{err}");
}

#[test]
fn interest_and_ready_combine_as_tokios_do() {
    let both = Interest::READABLE | Interest::WRITABLE;
    assert!(both.is_readable() && both.is_writable() && !both.is_error());
    assert_eq!(both.remove(Interest::READABLE), Some(Interest::WRITABLE));
    assert_eq!(Interest::ERROR.remove(Interest::ERROR), None);
    let mut interest = Interest::READABLE;
    interest |= Interest::ERROR;
    assert!(interest.is_error());
    assert_eq!(format!("{interest:?}"), "READABLE | ERROR");

    let ready = Ready::READABLE | Ready::WRITE_CLOSED;
    assert!(ready.is_readable() && ready.is_writable() && ready.is_write_closed());
    assert!(!ready.is_read_closed() && !ready.is_error() && !ready.is_empty());
    assert_eq!(ready - Ready::READABLE, Ready::WRITE_CLOSED);
    assert_eq!(ready & Ready::READABLE, Ready::READABLE);
    assert!(Ready::EMPTY.is_empty());
}

/// TCP's out-of-band byte is Linux's priority data (`EPOLLPRI`): a
/// descriptor registered with `Interest::PRIORITY` is woken by it, and
/// only by it (a readable wait on the same socket does not end without
/// ordinary data). Its guard reports `is_priority`, and once the byte is
/// taken and the readiness cleared, a wait waits again.
/// (Linux and Android only: elsewhere there is no `PRIORITY`.)
fn out_of_band_data_ends_a_priority_wait(flavor: Flavor) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    priority_wait(flavor);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = flavor;
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn priority_wait(flavor: Flavor) {
    use rustix::net::{recv, send, RecvFlags, SendFlags};
    on(flavor, "out_of_band", || async {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        server.set_nonblocking(true).unwrap();
        let fd = AsyncFd::with_interest(server, Interest::PRIORITY).unwrap();
        let quiet = |what: &'static str| {
            let fd = &fd;
            async move {
                let waited = timeout(Duration::from_millis(50), fd.ready(Interest::PRIORITY)).await;
                assert!(
                    waited.is_err(),
                    "{what}: a priority wait ended with no priority data"
                );
            }
        };
        quiet("before").await;

        send(&client, b"!", SendFlags::OOB).unwrap();
        let first = within("priority", fd.ready(Interest::PRIORITY))
            .await
            .unwrap();
        assert!(first.ready().is_priority(), "{:?}", first.ready());
        // Let a second report of the same edge land (see `settled`) before
        // the readiness is cleared.
        sleep(Duration::from_millis(20)).await;
        let mut guard = within("still", fd.ready(Interest::PRIORITY)).await.unwrap();
        let mut byte = [0u8; 1];
        let (n, _) = recv(fd.get_ref(), &mut byte, RecvFlags::OOB).unwrap();
        assert_eq!(&byte[..n], b"!");
        guard.clear_ready();
        quiet("after the byte was taken").await;
        drop(client);
    });
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[test]
fn priority_combines_as_tokios_does() {
    let interest = Interest::READABLE | Interest::PRIORITY;
    assert!(interest.is_priority() && interest.is_readable() && !interest.is_writable());
    assert_eq!(
        interest.remove(Interest::READABLE),
        Some(Interest::PRIORITY)
    );
    assert_eq!(format!("{interest:?}"), "READABLE | PRIORITY");
    let ready = Ready::PRIORITY | Ready::READABLE;
    assert!(ready.is_priority() && ready.is_readable());
    assert!(!(ready - Ready::PRIORITY).is_priority());
}

/// tokio 1.54's `unsafe` constructors, as code written for it calls them:
/// the same registration as `try_new`/`try_with_interest`, the value given
/// back with the kernel's refusal.
#[test]
fn register_is_try_new_under_tokios_new_name() {
    let rt = lawn_rt::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (a, mut b) = pair();
        b.write_all(b"x").unwrap();
        // SAFETY: `a` owns its descriptor while the AsyncFd holds it.
        let fd = unsafe { AsyncFd::register_with_interest(a, Interest::READABLE) }.unwrap();
        let guard = within("readable", fd.readable()).await.unwrap();
        assert!(guard.ready().is_readable());

        let file = std::fs::File::open(file!()).unwrap();
        // SAFETY: as above.
        let refused: lawn_rt::io::unix::AsyncFdRegisterError<_> =
            unsafe { AsyncFd::register(file) }.unwrap_err();
        let (file, err) = refused.into_parts();
        assert_eq!(err.raw_os_error(), Some(1), "EPERM: {err}");
        assert!(file.metadata().unwrap().is_file());
    });
}
