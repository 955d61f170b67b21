//! The driver stepped by hand: a real `mio::Poll`, events dispatched here
//! instead of by a park loop.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use mio::net::UnixStream;
use mio::{Events, Interest};

use super::*;

#[derive(Default)]
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

struct Harness {
    poll: mio::Poll,
    events: Events,
    driver: Arc<Driver>,
}

impl Harness {
    fn new() -> Harness {
        let poll = mio::Poll::new().unwrap();
        let driver = Arc::new(Driver::new(poll.registry().try_clone().unwrap()));
        Harness {
            poll,
            events: Events::with_capacity(16),
            driver,
        }
    }

    /// Polls until an event comes (or 5 s), without dispatching it.
    fn collect(&mut self) {
        self.poll
            .poll(&mut self.events, Some(Duration::from_secs(5)))
            .unwrap();
        assert!(!self.events.is_empty(), "no event within 5 s");
    }

    fn dispatch(&self) {
        for event in self.events.iter() {
            self.driver.dispatch(event);
        }
    }

    fn register(&self, source: UnixStream) -> Registration<UnixStream> {
        let interest = Interest::READABLE | Interest::WRITABLE;
        Registration::with_driver(self.driver.clone(), source, interest).unwrap()
    }
}

fn poll_read(
    io: &Registration<UnixStream>,
    count: &Arc<Count>,
) -> Poll<std::io::Result<readiness::ReadyEvent>> {
    let waker = Waker::from(count.clone());
    io.poll_ready(&mut Context::from_waker(&waker), Direction::Read)
}

/// Registers one end of a socket pair and takes the "writable" event that
/// any new socket reports, so the next read readiness comes from a write.
fn settled_pair(harness: &mut Harness) -> (Registration<UnixStream>, UnixStream) {
    let (a, b) = UnixStream::pair().unwrap();
    let io = harness.register(a);
    harness.collect();
    harness.dispatch();
    (io, b)
}

#[test]
fn an_event_wakes_the_reader_and_reports_readiness() {
    let mut harness = Harness::new();
    let (io, mut peer) = settled_pair(&mut harness);
    let count = Arc::new(Count::default());
    assert!(poll_read(&io, &count).is_pending());
    peer.write_all(b"x").unwrap();
    harness.collect();
    harness.dispatch();
    assert_eq!(count.0.load(SeqCst), 1);
    assert!(matches!(poll_read(&io, &count), Poll::Ready(Ok(_))));
}

#[test]
fn a_stale_event_does_not_reach_the_socket_that_reused_its_slot() {
    let mut harness = Harness::new();
    let (old, mut old_peer) = settled_pair(&mut harness);
    old_peer.write_all(b"x").unwrap();
    harness.collect(); // an event for `old`, not yet dispatched
    drop(old);
    assert_eq!(harness.driver.registered(), 0);

    let (new_source, _new_peer) = UnixStream::pair().unwrap();
    let new = harness.register(new_source); // same slot, next generation
    let count = Arc::new(Count::default());
    assert!(poll_read(&new, &count).is_pending());
    harness.dispatch(); // the stale event
    assert_eq!(count.0.load(SeqCst), 0);
    assert!(poll_read(&new, &count).is_pending());
}

#[test]
fn shutdown_wakes_waiters_and_fails_every_later_poll() {
    let mut harness = Harness::new();
    let (io, _peer) = settled_pair(&mut harness);
    let count = Arc::new(Count::default());
    assert!(poll_read(&io, &count).is_pending());
    harness.driver.shutdown();
    assert_eq!(count.0.load(SeqCst), 1);
    let Poll::Ready(Err(err)) = poll_read(&io, &count) else {
        panic!("a poll after shutdown must fail");
    };
    assert_eq!(err.kind(), std::io::ErrorKind::Other);
    assert!(err.to_string().contains("shut down"), "{err}");

    let (late, _) = UnixStream::pair().unwrap();
    let interest = Interest::READABLE;
    let err = Registration::with_driver(harness.driver.clone(), late, interest).unwrap_err();
    assert!(err.to_string().contains("shut down"), "{err}");
    drop(io); // deregistering after shutdown is fine
    assert_eq!(harness.driver.registered(), 0);
}

#[test]
fn a_failed_registration_frees_its_slot() {
    let harness = Harness::new();
    let (a, _b) = UnixStream::pair().unwrap();
    let first = harness.register(a);
    // The same fd twice: epoll says EEXIST.
    let fd = std::os::fd::AsRawFd::as_raw_fd(first.get_ref());
    let err = Registration::with_driver(
        harness.driver.clone(),
        mio::unix::SourceFd(&fd),
        Interest::READABLE,
    )
    .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(harness.driver.registered(), 1);
}
