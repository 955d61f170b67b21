//! The foreign shards' unit tests (see the module's ground rules).

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};
use std::thread;
use std::time::Duration;

use super::super::handle::SPARE_MAX;
use super::global::spare_count;
use super::*;
use crate::time::sleep;

/// Makes a sleep on this thread and polls it once (it registers in this
/// thread's shard), then drops it.
fn register_and_drop() {
    let mut nap = pin!(sleep(Duration::from_secs(60)));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(nap.as_mut().poll(&mut cx).is_pending());
}

/// The timer thread keeps a wake-up it planned for a timer since
/// cancelled (see `Shared::begin_park_unless_busy`): a thread that
/// makes and drops timeouts unparks it once, not once a timeout.
#[test]
fn a_wake_up_planned_for_a_cancelled_timer_is_kept_until_it_passes() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    use super::super::shared::Registered;

    let unparks = Arc::new(AtomicUsize::new(0));
    let counted = unparks.clone();
    let shard = Shared::new(Options {
        resolution: RESOLUTION,
        role: Role::Foreign,
        unpark: Some(Box::new(move || {
            counted.fetch_add(1, SeqCst);
        })),
        slack: TimerSlack::DEFAULT,
    });
    let ttl = Duration::from_millis(50);
    let make_and_drop = || {
        let now = shard.clock.tick_floor(shard.clock.now());
        let due = shard.clock.tick_ceil(StdInstant::now() + ttl);
        match shard.register(due, now, Waker::noop().clone()) {
            Ok(Registered::Pending(key, _)) => drop(shard.deregister(key)),
            _ => panic!("a timer {ttl:?} away was not filed"),
        }
    };
    // Nothing pending: the thread plans to sleep until unparked, and
    // the first timer unparks it.
    let plan = shard.begin_park_unless_busy(StdInstant::now());
    assert_eq!(plan, Some(Park::Until(None)));
    make_and_drop();
    assert_eq!(unparks.load(SeqCst), 1);
    // It plans again with that timer gone: it keeps the wake-up, so
    // the timers made after it unpark nothing.
    let planned = StdInstant::now();
    match shard.begin_park_unless_busy(planned) {
        Some(Park::Until(Some(at))) => assert!(at > planned && at <= planned + ttl),
        other => panic!("planned {other:?}, not the wake-up kept"),
    }
    for _ in 0..1_000 {
        make_and_drop();
    }
    assert_eq!(
        unparks.load(SeqCst),
        1,
        "timeouts made and dropped unparked"
    );
    // Once the wake-up has come, the next plan sleeps until unparked.
    thread::sleep(ttl + Duration::from_millis(5));
    assert!(shard.end_park_if_due(shard.clock.tick_floor(shard.clock.now())));
    let plan = shard.begin_park_unless_busy(StdInstant::now());
    assert_eq!(plan, Some(Park::Until(None)));
}

#[test]
fn a_timer_dropped_on_its_thread_leaves_its_handle_to_the_next() {
    thread::spawn(|| {
        register_and_drop();
        assert_eq!(spare_count(), 1, "the dropped timer's handle is kept");
        let nap = sleep(Duration::from_secs(60));
        assert_eq!(spare_count(), 0, "the next timer took it");
        drop(nap);
        assert_eq!(spare_count(), 1);
        // Many at once: all come back, up to the cap.
        let naps: Vec<_> = (0..2 * SPARE_MAX)
            .map(|_| sleep(Duration::from_secs(60)))
            .collect();
        drop(naps);
        assert_eq!(spare_count(), SPARE_MAX);
    })
    .join()
    .unwrap();
}

#[test]
fn a_handle_to_another_threads_shard_is_not_kept() {
    thread::spawn(|| {
        register_and_drop();
        let before = spare_count();
        // Made and polled on another thread: bound to that one's shard.
        let theirs = thread::spawn(|| {
            let mut nap = Box::pin(sleep(Duration::from_secs(60)));
            let mut cx = Context::from_waker(Waker::noop());
            assert!(nap.as_mut().poll(&mut cx).is_pending());
            nap
        })
        .join()
        .unwrap();
        drop(theirs);
        assert_eq!(spare_count(), before);
    })
    .join()
    .unwrap();
}

#[test]
fn a_thread_that_exits_lets_go_of_its_spare_handles() {
    let shard = thread::spawn(|| {
        for _ in 0..10 {
            register_and_drop();
        }
        let naps: Vec<_> = (0..10).map(|_| sleep(Duration::from_secs(60))).collect();
        drop(naps);
        assert!(spare_count() > 1);
        Handle::current()
    })
    .join()
    .unwrap();
    // This handle, the foreign set's, and the copy in the timer
    // thread's plan (held while it sleeps): no spare outlived the
    // thread, so the timer thread lets the shard go once this one is
    // dropped.
    assert!(
        Arc::strong_count(&shard.shared) <= 3,
        "{} references to the shard of a thread gone",
        Arc::strong_count(&shard.shared)
    );
}
