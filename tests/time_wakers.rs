//! Wakers and threads: waker replacement, wakers that drop or register
//! timers while being woken, and sleeps polled and dropped across threads.

mod common;

use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Poll, Wake, Waker};
use std::thread;

use common::{counting_waker, paused_driver, poll_noop, poll_with};
use lawn_rt::driver::Handle;
use lawn_rt::time::{sleep, Duration, Sleep};

const fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

// ---------------------------------------------------------------------------
// Wakers
// ---------------------------------------------------------------------------

#[test]
fn polling_with_another_waker_replaces_the_stored_one() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (a, waker_a) = counting_waker();
    let (b, waker_b) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    assert!(poll_with(sleep.as_mut(), &waker_a).is_pending());
    assert!(poll_with(sleep.as_mut(), &waker_b).is_pending());
    drop(waker_a);
    assert_eq!(
        Arc::strong_count(&a),
        1,
        "the replaced waker was not dropped"
    );

    assert_eq!(driver.advance(ms(10)), 1);
    assert_eq!((a.wakes(), b.wakes()), (0, 1));
    assert_eq!(poll_with(sleep.as_mut(), &waker_b), Poll::Ready(()));
}

#[test]
fn polling_with_the_same_waker_wakes_once() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    for _ in 0..5 {
        assert!(poll_with(sleep.as_mut(), &waker.clone()).is_pending());
    }
    assert_eq!(driver.advance(ms(10)), 1);
    assert_eq!(counter.wakes(), 1);
}

/// Holds sleeps; when woken, drops all of them (with its own lock released
/// before the drops).
#[derive(Default)]
struct Dropper {
    sleeps: Mutex<Vec<Pin<Box<Sleep>>>>,
    wakes: AtomicUsize,
}

impl Wake for Dropper {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        let sleeps = std::mem::take(&mut *self.sleeps.lock().unwrap());
        drop(sleeps);
    }
}

/// Like [`Dropper`], but drops the sleeps while holding its own lock: a
/// lock order the driver must not care about.
#[derive(Default)]
struct LockedDropper {
    sleeps: Mutex<Vec<Pin<Box<Sleep>>>>,
}

impl Wake for LockedDropper {
    fn wake(self: Arc<Self>) {
        self.sleeps.lock().unwrap().clear();
    }
}

#[test]
fn waker_drops_its_own_sleep() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let dropper = Arc::new(LockedDropper::default());
    let waker = Waker::from(dropper.clone());

    let mut own = Box::pin(sleep(ms(5)));
    assert!(poll_with(own.as_mut(), &waker).is_pending());
    dropper.sleeps.lock().unwrap().push(own);
    drop(waker);

    assert_eq!(driver.advance(ms(5)), 1);
    assert!(dropper.sleeps.lock().unwrap().is_empty());
    assert_eq!(driver.handle().pending_timers(), 0);
    assert_eq!(Arc::strong_count(&dropper), 1, "waker leaked");
}

#[test]
fn waker_drops_other_pending_sleeps() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let dropper = Arc::new(Dropper::default());
    let dropper_waker = Waker::from(dropper.clone());
    let (others, others_waker) = counting_waker();

    let mut trigger = pin!(sleep(ms(5)));
    assert!(poll_with(trigger.as_mut(), &dropper_waker).is_pending());
    for n in [10, 20, 6] {
        let mut other = Box::pin(sleep(ms(n)));
        assert!(poll_with(other.as_mut(), &others_waker).is_pending());
        dropper.sleeps.lock().unwrap().push(other);
    }
    assert_eq!(driver.handle().pending_timers(), 4);

    assert_eq!(driver.advance(ms(5)), 1);
    assert_eq!(dropper.wakes.load(Ordering::SeqCst), 1);
    assert_eq!(driver.handle().pending_timers(), 0);
    assert_eq!(driver.advance(ms(30)), 0);
    assert_eq!(others.wakes(), 0);
    drop(others_waker);
    assert_eq!(
        Arc::strong_count(&others),
        1,
        "dropped sleeps' wakers leaked"
    );
    assert_eq!(poll_with(trigger.as_mut(), &dropper_waker), Poll::Ready(()));
}

/// The waker of one timer drops another timer due at the same tick (so
/// both are being fired together). Contract 4: once a `Sleep`'s drop has
/// returned, its waker is never called.
#[test]
fn waker_drops_a_sleep_due_at_the_same_tick() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let dropper = Arc::new(Dropper::default());
    let dropper_waker = Waker::from(dropper.clone());
    let (victim, victim_waker) = counting_waker();

    // Registered first, so it is fired first.
    let mut trigger = pin!(sleep(ms(5)));
    assert!(poll_with(trigger.as_mut(), &dropper_waker).is_pending());
    let mut same_tick = Box::pin(sleep(ms(5)));
    assert!(poll_with(same_tick.as_mut(), &victim_waker).is_pending());
    dropper.sleeps.lock().unwrap().push(same_tick);
    drop(victim_waker);

    driver.advance(ms(5));
    assert_eq!(dropper.wakes.load(Ordering::SeqCst), 1);
    assert!(dropper.sleeps.lock().unwrap().is_empty());
    assert_eq!(
        victim.wakes(),
        0,
        "a sleep dropped (by another timer's waker) before its waker ran was still woken"
    );
    assert_eq!(Arc::strong_count(&victim), 1);
}

/// When woken, registers `count` new sleeps on `handle`.
struct Spawner {
    handle: Handle,
    count: usize,
    made: Mutex<Vec<Pin<Box<Sleep>>>>,
}

impl Wake for Spawner {
    fn wake(self: Arc<Self>) {
        let _entered = self.handle.enter();
        for _ in 0..self.count {
            let mut new = Box::pin(sleep(ms(5)));
            assert!(poll_noop(new.as_mut()).is_pending());
            self.made.lock().unwrap().push(new);
        }
    }
}

#[test]
fn waker_registers_new_sleeps() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let spawner = Arc::new(Spawner {
        handle: driver.handle().clone(),
        count: 40, // more than one firing batch's worth
        made: Mutex::new(Vec::new()),
    });
    let waker = Waker::from(spawner.clone());

    let mut first = pin!(sleep(ms(5)));
    assert!(poll_with(first.as_mut(), &waker).is_pending());
    assert_eq!(driver.advance(ms(5)), 1);
    assert_eq!(spawner.made.lock().unwrap().len(), 40);
    assert_eq!(driver.handle().pending_timers(), 40);
    // They were registered at the new time: due 5 ms later, not at once.
    assert_eq!(driver.advance(ms(4)), 0);
    assert_eq!(driver.advance(ms(1)), 40);
    assert_eq!(driver.handle().pending_timers(), 0);
}

/// A periodic pattern: the waker resets its own sleep and polls it again.
struct Rearm {
    sleep: Mutex<Option<Pin<Box<Sleep>>>>,
    wakes: AtomicUsize,
}

impl Wake for Rearm {
    fn wake(self: Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::SeqCst);
        let waker = Waker::from(self.clone());
        let mut guard = self.sleep.lock().unwrap();
        let sleep = guard.as_mut().expect("the sleep");
        assert!(sleep.is_elapsed());
        let next = sleep.deadline() + ms(5);
        sleep.as_mut().reset(next);
        assert!(poll_with(sleep.as_mut(), &waker).is_pending());
    }
}

#[test]
fn waker_resets_and_repolls_its_own_sleep() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let rearm = Arc::new(Rearm {
        sleep: Mutex::new(Some(Box::pin(sleep(ms(5))))),
        wakes: AtomicUsize::new(0),
    });
    let waker = Waker::from(rearm.clone());
    {
        let mut guard = rearm.sleep.lock().unwrap();
        assert!(poll_with(guard.as_mut().unwrap().as_mut(), &waker).is_pending());
    }
    drop(waker);
    for round in 1..=4 {
        assert_eq!(driver.advance(ms(4)), 0);
        assert_eq!(driver.advance(ms(1)), 1);
        assert_eq!(rearm.wakes.load(Ordering::SeqCst), round);
        assert_eq!(driver.handle().pending_timers(), 1);
    }
    // Break the sleep -> waker -> sleep cycle.
    rearm.sleep.lock().unwrap().take();
    assert_eq!(driver.handle().pending_timers(), 0);
    assert_eq!(Arc::strong_count(&rearm), 1);
}

// ---------------------------------------------------------------------------
// Threads
// ---------------------------------------------------------------------------

#[test]
fn created_and_polled_on_one_thread_dropped_on_another() {
    let driver = paused_driver();
    let (counter, waker) = counting_waker();

    let sleep = thread::scope(|scope| {
        scope
            .spawn(|| {
                let _entered = driver.handle().enter();
                let mut sleep = Box::pin(sleep(ms(10)));
                assert!(poll_with(sleep.as_mut(), &waker).is_pending());
                sleep
            })
            .join()
            .unwrap()
    });
    assert_eq!(driver.handle().pending_timers(), 1);
    thread::spawn(move || drop(sleep)).join().unwrap();
    assert_eq!(driver.handle().pending_timers(), 0);

    assert_eq!(driver.advance(ms(10)), 0);
    assert_eq!(counter.wakes(), 0);
    drop(waker);
    assert_eq!(Arc::strong_count(&counter), 1);
}

#[test]
fn polled_on_other_threads() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (counter, waker) = counting_waker();

    // Created here, first polled (so registered) on another thread, which
    // has no driver entered: the sleep keeps the driver it was made with.
    let sleep = Box::pin(sleep(ms(10)));
    let sleep = thread::spawn({
        let waker = waker.clone();
        move || {
            let mut sleep = sleep;
            assert!(poll_with(sleep.as_mut(), &waker).is_pending());
            sleep
        }
    })
    .join()
    .unwrap();
    assert_eq!(driver.handle().pending_timers(), 1);

    assert_eq!(driver.advance(ms(10)), 1);
    assert_eq!(counter.wakes(), 1);
    let ready = thread::spawn(move || {
        let mut sleep = sleep;
        poll_with(sleep.as_mut(), &waker)
    })
    .join()
    .unwrap();
    assert_eq!(ready, Poll::Ready(()));
}

/// Signals when its wake starts, then takes a while.
struct SlowWaker {
    started: Mutex<Option<mpsc::Sender<()>>>,
}

impl Wake for SlowWaker {
    fn wake(self: Arc<Self>) {
        if let Some(started) = self.started.lock().unwrap().take() {
            started.send(()).unwrap();
        }
        // The point of this test is a waker that is slow on the real clock.
        thread::sleep(ms(50));
    }
}

/// A `Sleep` dropped on another thread while the driver is waking the batch
/// that holds its waker: when the drop returns, the waker has run or never
/// will (contract 4), so what the dropping thread sees stays true.
#[test]
fn drop_on_another_thread_while_its_batch_is_being_woken() {
    let driver = paused_driver();
    let _entered = driver.handle().enter();
    let (started_tx, started_rx) = mpsc::channel();
    let slow = Waker::from(Arc::new(SlowWaker {
        started: Mutex::new(Some(started_tx)),
    }));
    let (victim, victim_waker) = counting_waker();

    let mut first = pin!(sleep(ms(5)));
    assert!(poll_with(first.as_mut(), &slow).is_pending());
    let mut second = Box::pin(sleep(ms(5)));
    assert!(poll_with(second.as_mut(), &victim_waker).is_pending());
    drop(victim_waker);

    let dropper = thread::spawn({
        let victim = victim.clone();
        move || {
            started_rx.recv().unwrap();
            drop(second);
            victim.wakes()
        }
    });
    driver.advance(ms(5));
    let seen_after_drop = dropper.join().unwrap();
    assert_eq!(
        victim.wakes(),
        seen_after_drop,
        "the waker was called after `drop(sleep)` returned"
    );
    assert_eq!(driver.handle().pending_timers(), 0);
}
