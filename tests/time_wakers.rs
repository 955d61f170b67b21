//! Wakers and threads: waker replacement, wakers that drop or register
//! timers while being woken, and sleeps polled and dropped across threads.
//!
//! The waker tests run on a paused runtime (`#[lawn_rt::test(start_paused
//! = true)]`), so the wakers are called from the runtime's expiry loop, in
//! the middle of a `time::advance` or an auto-advance; the thread tests use
//! a paused bare driver, which any thread can enter and advance.

mod common;

use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Poll, Wake, Waker};
use std::thread;

use common::units::ms;
use common::{
    advance_and_count, counting_waker, paused_driver, pending_timers, poll_noop, poll_with,
};
use lawn_rt::driver::Handle;
use lawn_rt::time::{self, sleep, Duration, Instant, Sleep};

// ---------------------------------------------------------------------------
// Wakers
// ---------------------------------------------------------------------------

#[lawn_rt::test(start_paused = true)]
async fn polling_with_another_waker_replaces_the_stored_one() {
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

    assert_eq!(advance_and_count(ms(10)).await, 1);
    assert_eq!((a.wakes(), b.wakes()), (0, 1));
    assert_eq!(poll_with(sleep.as_mut(), &waker_b), Poll::Ready(()));

    // Polled by a task with a counting waker, then awaited by this one: the
    // stored waker is replaced by this task's, which is woken exactly at
    // the deadline (the counting waker never).
    let start = Instant::now();
    let (c, waker_c) = counting_waker();
    let mut moved = Box::pin(lawn_rt::time::sleep(ms(10)));
    assert!(poll_with(moved.as_mut(), &waker_c).is_pending());
    moved.await;
    assert_eq!(Instant::now(), start + ms(10));
    assert_eq!(c.wakes(), 0);
    drop(waker_c);
    assert_eq!(Arc::strong_count(&c), 1);
}

#[lawn_rt::test(start_paused = true)]
async fn polling_with_the_same_waker_wakes_once() {
    let (counter, waker) = counting_waker();

    let mut sleep = pin!(sleep(ms(10)));
    for _ in 0..5 {
        assert!(poll_with(sleep.as_mut(), &waker.clone()).is_pending());
    }
    assert_eq!(pending_timers(), 1);
    assert_eq!(advance_and_count(ms(10)).await, 1);
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

#[lawn_rt::test(start_paused = true)]
async fn waker_drops_its_own_sleep() {
    let dropper = Arc::new(LockedDropper::default());
    let waker = Waker::from(dropper.clone());

    let mut own = Box::pin(sleep(ms(5)));
    assert!(poll_with(own.as_mut(), &waker).is_pending());
    dropper.sleeps.lock().unwrap().push(own);
    drop(waker);

    assert_eq!(advance_and_count(ms(5)).await, 1);
    assert!(dropper.sleeps.lock().unwrap().is_empty());
    assert_eq!(pending_timers(), 0);
    assert_eq!(Arc::strong_count(&dropper), 1, "waker leaked");
}

#[lawn_rt::test(start_paused = true)]
async fn waker_drops_other_pending_sleeps() {
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
    assert_eq!(pending_timers(), 4);

    // One fired, the three others were dropped by its waker: all four left
    // the driver during this advance.
    assert_eq!(advance_and_count(ms(5)).await, 4);
    assert_eq!(dropper.wakes.load(Ordering::SeqCst), 1);
    assert_eq!(pending_timers(), 0);
    assert_eq!(advance_and_count(ms(30)).await, 0);
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
#[lawn_rt::test(start_paused = true)]
async fn waker_drops_a_sleep_due_at_the_same_tick() {
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

    time::advance(ms(5)).await;
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

#[lawn_rt::test(start_paused = true)]
async fn waker_registers_new_sleeps() {
    let spawner = Arc::new(Spawner {
        handle: Handle::current(),
        count: 40, // more than one firing batch's worth
        made: Mutex::new(Vec::new()),
    });
    let waker = Waker::from(spawner.clone());

    let mut first = pin!(sleep(ms(5)));
    assert!(poll_with(first.as_mut(), &waker).is_pending());
    // (The 40 registered during this advance: count by what is left.)
    time::advance(ms(5)).await;
    assert!(first.is_elapsed());
    assert_eq!(spawner.made.lock().unwrap().len(), 40);
    assert_eq!(pending_timers(), 40);
    // They were registered at the new time: due 5 ms later, not at once.
    assert_eq!(advance_and_count(ms(4)).await, 0);
    assert_eq!(advance_and_count(ms(1)).await, 40);
    assert_eq!(pending_timers(), 0);

    // The same when the first timer is reached by auto-advance: the new
    // sleeps are due 5 ms after it, and awaited, one of them completes then.
    let start = Instant::now();
    spawner.made.lock().unwrap().clear();
    let mut first = pin!(sleep(ms(5)));
    assert!(poll_with(first.as_mut(), &waker).is_pending());
    lawn_rt::time::sleep(ms(5)).await; // auto-advance fires both
    assert_eq!(pending_timers(), 40);
    let made = spawner
        .made
        .lock()
        .unwrap()
        .pop()
        .expect("a sleep made by the waker");
    assert_eq!(made.deadline(), start + ms(10));
    made.await;
    assert_eq!(Instant::now(), start + ms(10));
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

#[lawn_rt::test(start_paused = true)]
async fn waker_resets_and_repolls_its_own_sleep() {
    let rearm = Arc::new(Rearm {
        sleep: Mutex::new(Some(Box::pin(sleep(ms(5))))),
        wakes: AtomicUsize::new(0),
    });
    // Breaks the sleep -> waker -> sleep cycle when the test ends, also if
    // it fails: else the runtime's shutdown would call the waker, whose
    // poll of a shut-down timer panics while unwinding (an abort).
    let cycle = BreakCycle(rearm.clone());
    let waker = Waker::from(rearm.clone());
    {
        let mut guard = rearm.sleep.lock().unwrap();
        assert!(poll_with(guard.as_mut().unwrap().as_mut(), &waker).is_pending());
    }
    drop(waker);
    for round in 1..=4 {
        // (Each fire re-registers the sleep: count by the wakes.)
        time::advance(ms(4)).await;
        assert_eq!(rearm.wakes.load(Ordering::SeqCst), round - 1);
        time::advance(ms(1)).await;
        assert_eq!(rearm.wakes.load(Ordering::SeqCst), round);
        assert_eq!(pending_timers(), 1);
    }
    // Left to auto-advance for a second, it goes on every 5 ms exactly:
    // at 25, 30, ..., 1020 ms.
    let start = Instant::now();
    lawn_rt::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(Instant::now(), start + Duration::from_secs(1));
    assert_eq!(rearm.wakes.load(Ordering::SeqCst), 4 + 200);
    let next = rearm.sleep.lock().unwrap().as_ref().unwrap().deadline();
    assert_eq!(next, start + Duration::from_secs(1) + ms(5));
    // Break the cycle.
    rearm.sleep.lock().unwrap().take();
    assert_eq!(pending_timers(), 0);
    drop(cycle);
    assert_eq!(Arc::strong_count(&rearm), 1);
}

struct BreakCycle(Arc<Rearm>);

impl Drop for BreakCycle {
    fn drop(&mut self) {
        let mut sleep = self.0.sleep.lock().unwrap_or_else(|e| e.into_inner());
        drop(sleep.take());
    }
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
