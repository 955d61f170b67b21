//! The models, one function each (run by `tests/*.rs`). Each names the race
//! it checks and what must hold whatever the interleaving.

use std::task::Poll;
use std::time::Duration;

use lawn_rt::driver::{model, TimerSlack};
use lawn_rt::time::{self, Instant};
use loom::sync::Arc;
use loom::thread;

use crate::support::{
    assert_released, catch, paused_driver, poll, Gate, MioWaker, Recorder, SHUT_DOWN, TICK,
};

/// Model 1, cancel vs expiry: two timers due at the same tick (one wake
/// batch); a task polls the second once more and drops it while another
/// thread fires the batch. Once the drop returns the dropped timer's waker
/// is never called (whether the drop found it filed, handed out and not
/// yet woken, being woken, or already woken and seen by the poll); its
/// slot is freed; the other timer fires; no waker clone is left behind.
pub fn cancel_vs_expiry() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let (kept, dropped) = two_due_timers(&driver);
    let dropped_recorder = dropped.1.clone();
    let fired = {
        let canceller = spawn_canceller(dropped);
        let firer = {
            let driver = driver.clone();
            thread::spawn(move || driver.advance(TICK))
        };
        canceller.join().unwrap();
        firer.join().unwrap()
    };
    assert_cancelled(&driver, kept, &dropped_recorder, fired);
}

/// Model 1b, cancel vs two firing threads: as model 1 with one timer, but
/// two threads fire at once (a wake batch in flight makes the other wait
/// for it to end: batches never overlap).
pub fn cancel_vs_two_firers() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let recorder = Recorder::new("cancel vs two firers");
    let mut timer = Box::pin(time::sleep(TICK));
    assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
    let fired = {
        let canceller = spawn_canceller((timer, recorder.clone()));
        let advancer = {
            let driver = driver.clone();
            thread::spawn(move || driver.advance(TICK))
        };
        let processor = {
            let driver = driver.clone();
            thread::spawn(move || driver.process())
        };
        canceller.join().unwrap();
        advancer.join().unwrap() + processor.join().unwrap()
    };
    assert!(fired <= 1, "woken {fired} times");
    assert_eq!(recorder.woken(), fired, "wake-ups counted by the driver");
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(&driver);
    assert_released(&recorder);
}

/// A timer and its recorder.
type Timer = (std::pin::Pin<Box<time::Sleep>>, std::sync::Arc<Recorder>);

/// Two sleeps due at the next tick, both registered (filed in this order,
/// so one batch hands them out in this order): the one a model keeps, and
/// the one it drops.
fn two_due_timers(driver: &lawn_rt::driver::Driver) -> (Timer, Timer) {
    let make = |what| {
        // Wakers that call back into the driver, as a task's may.
        let recorder = Recorder::reentrant(what, driver);
        let mut timer = Box::pin(time::sleep(TICK));
        assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
        (timer, recorder)
    };
    let timers = (make("the timer kept"), make("the timer dropped"));
    assert_eq!(driver.handle().pending_timers(), 2);
    timers
}

/// A task that polls its timer once more (it may find it fired) and drops
/// it; from then on its waker must not be called.
fn spawn_canceller((mut timer, recorder): Timer) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let _ = poll(timer.as_mut(), &recorder.waker());
        drop(timer);
        recorder.forbid();
    })
}

/// The end of a cancel model: the kept timer fired once, the dropped one
/// at most once (and before its drop returned: its recorder checks that),
/// the driver counted exactly those wake-ups, nothing is filed or held.
#[track_caller]
fn assert_cancelled(
    driver: &lawn_rt::driver::Driver,
    (timer, kept): Timer,
    dropped: &std::sync::Arc<Recorder>,
    fired: usize,
) {
    assert_eq!(kept.woken(), 1, "the timer kept was not woken once");
    assert!(dropped.woken() <= 1, "the dropped timer was woken twice");
    assert_eq!(
        kept.woken() + dropped.woken(),
        fired,
        "wake-ups counted by the driver"
    );
    drop(timer);
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(driver);
    assert_released(&kept);
    assert_released(dropped);
}

/// Model 2, reset vs expiry: a task resets its registered `Sleep` to a
/// later deadline and polls it while another thread fires the old one.
/// The sleep does not complete before its new deadline, and the new
/// deadline's wake-up is not lost.
pub fn reset_vs_expiry() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let recorder = Recorder::reentrant("reset vs expiry", &driver);
    let start = Instant::now();
    let later = start + 3 * TICK;
    let mut timer = Box::pin(time::sleep_until(start + TICK));
    assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());

    let task = {
        let waker = recorder.waker();
        thread::spawn(move || {
            timer.as_mut().reset(later);
            let polled = poll(timer.as_mut(), &waker);
            (timer, polled)
        })
    };
    let firer = {
        let driver = driver.clone();
        thread::spawn(move || driver.advance(TICK))
    };
    let (mut timer, polled) = task.join().unwrap();
    firer.join().unwrap();

    let waker = recorder.waker();
    assert!(polled.is_pending(), "completed before its new deadline");
    assert!(poll(timer.as_mut(), &waker).is_pending(), "completed early");
    let before = recorder.woken();
    driver.advance(2 * TICK);
    assert!(
        recorder.woken() > before,
        "not woken at the new deadline (lost wake-up)"
    );
    assert!(poll(timer.as_mut(), &waker).is_ready());
    drop((timer, waker));
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(&driver);
    assert_released(&recorder);
}

/// Model 2b, reset, poll and drop vs expiry: as model 2, but the task then
/// drops its `Sleep`. The old registration, handed out for waking just
/// before the reset, may be being woken on the firing thread: once the
/// drop returns, no waker of the sleep's is called, neither the old
/// registration's nor the new one's.
pub fn reset_poll_drop_vs_expiry() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let recorder = Recorder::new("reset, poll, drop vs expiry");
    let start = Instant::now();
    let mut timer = Box::pin(time::sleep_until(start + TICK));
    assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());

    let task = {
        let recorder = recorder.clone();
        thread::spawn(move || {
            timer.as_mut().reset(start + 3 * TICK);
            assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
            drop(timer);
            recorder.forbid();
        })
    };
    let firer = {
        let driver = driver.clone();
        thread::spawn(move || driver.advance(TICK))
    };
    task.join().unwrap();
    firer.join().unwrap();

    assert_eq!(driver.advance(2 * TICK), 0, "the dropped sleep fired");
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(&driver);
    assert_released(&recorder);
}

/// Model 3, concurrent registration: two threads each read the clock and
/// register a sleep of the same duration (long enough to be filed in a
/// Lawn bucket, not the near window) while a third advances the clock.
/// The Lawn stays consistent (each bucket deadline-ordered, by its own
/// self-check), and each timer fires at its deadline: not a tick before,
/// and not later.
pub fn concurrent_registration() {
    const TTL: Duration = Duration::from_secs(10); // 10,000 ticks
    let driver = Arc::new(paused_driver());
    // A timer of the same length first: the Lawn gives a length it has
    // seen before an exact bucket of its own, which the registrations
    // below share when they file the same length.
    let (earlier, earlier_recorder) = {
        let _entered = driver.handle().enter();
        let recorder = Recorder::new("earlier registration");
        let mut timer = Box::pin(time::sleep(TTL));
        assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
        (timer, recorder)
    };
    let registrar = |what: &'static str| {
        let driver = driver.clone();
        thread::spawn(move || {
            let _entered = driver.handle().enter();
            let recorder = Recorder::new(what);
            let mut timer = Box::pin(time::sleep(TTL));
            assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
            (timer, recorder)
        })
    };
    let first = registrar("first registration");
    let second = registrar("second registration");
    let advancer = {
        let driver = driver.clone();
        thread::spawn(move || driver.advance(TICK))
    };
    let mut timers = [
        (earlier, earlier_recorder),
        first.join().unwrap(),
        second.join().unwrap(),
    ];
    assert_eq!(advancer.join().unwrap(), 0);
    model::check(&driver);

    let _entered = driver.handle().enter();
    timers.sort_by_key(|(timer, _)| timer.deadline());
    for i in 0..timers.len() {
        let deadline = timers[i].0.deadline();
        let now = Instant::now();
        if deadline <= now {
            continue; // fired with an earlier one
        }
        driver.advance(deadline - now - TICK);
        let now = Instant::now();
        for (timer, recorder) in &timers {
            if timer.deadline() > now {
                assert_eq!(recorder.woken(), 0, "fired before its deadline");
            }
        }
        driver.advance(TICK);
        let now = Instant::now();
        for (timer, recorder) in &timers {
            let due = timer.deadline() <= now;
            assert_eq!(recorder.woken() > 0, due, "fired at the wrong tick");
        }
        model::check(&driver);
    }
    for (timer, recorder) in timers {
        drop(timer);
        assert_released(&recorder);
    }
    assert_eq!(driver.handle().pending_timers(), 0);
}

/// Model 4, waker replacement vs expiry: a task polls its registered
/// `Sleep` with a new waker while another thread fires it. If that poll
/// says `Pending`, the new waker is woken (no lost wake-up).
pub fn waker_replacement_vs_expiry() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let first = Recorder::new("first waker");
    let second = Recorder::new("second waker");
    let mut timer = Box::pin(time::sleep(TICK));
    assert!(poll(timer.as_mut(), &first.waker()).is_pending());

    let task = {
        let waker = second.waker();
        thread::spawn(move || {
            let polled = poll(timer.as_mut(), &waker);
            (timer, polled)
        })
    };
    let firer = {
        let driver = driver.clone();
        thread::spawn(move || driver.advance(TICK))
    };
    let (mut timer, polled) = task.join().unwrap();
    firer.join().unwrap();

    if polled.is_pending() {
        assert_eq!(
            second.woken(),
            1,
            "the newest waker was not woken (lost wake-up)"
        );
    }
    assert!(poll(timer.as_mut(), &second.waker()).is_ready());
    drop(timer);
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(&driver);
    assert_released(&first);
    assert_released(&second);
}

/// Model 4b, re-poll vs expiry: a task polls its registered `Sleep` again
/// with the same waker (nothing to swap) while another thread fires it. If
/// that poll says `Pending`, the waker is woken; a poll after the firing
/// (the task's next poll once woken) says `Ready`. (It also guards any
/// future fast path for this poll, such as a lock-free one.)
pub fn repoll_vs_expiry() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let recorder = Recorder::new("the task's waker");
    let mut timer = Box::pin(time::sleep(TICK));
    assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());

    let firer = {
        let driver = driver.clone();
        thread::spawn(move || driver.advance(TICK))
    };
    let polled = poll(timer.as_mut(), &recorder.waker());
    firer.join().unwrap();

    if polled.is_pending() {
        assert_eq!(
            recorder.woken(),
            1,
            "a Pending re-poll was not woken (lost wake-up)"
        );
    }
    assert!(
        poll(timer.as_mut(), &recorder.waker()).is_ready(),
        "the poll after the firing did not see it"
    );
    assert!(timer.is_elapsed());
    drop(timer);
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(&driver);
    assert_released(&recorder);
}

/// Model 5, shutdown vs registration: a task polls a new `Sleep` (its
/// first poll registers it) while another thread shuts the driver down.
/// Nothing hangs: a sleep filed before the shutdown has its waker woken
/// by it; the poll after the shutdown panics saying so; nothing stays
/// filed or holds a waker.
pub fn shutdown_vs_registration() {
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let recorder = Recorder::reentrant("shutdown vs registration", &driver);
    let mut timer = Box::pin(time::sleep(TICK));

    let task = {
        let waker = recorder.waker();
        thread::spawn(move || {
            let polled = catch(|| poll(timer.as_mut(), &waker));
            (timer, polled)
        })
    };
    let stopper = {
        let driver = driver.clone();
        thread::spawn(move || driver.shutdown())
    };
    let (mut timer, polled) = task.join().unwrap();
    stopper.join().unwrap();

    match polled {
        Ok(Poll::Pending) => assert_eq!(
            recorder.woken(),
            1,
            "a sleep filed before the shutdown was not woken: its task would hang"
        ),
        Ok(Poll::Ready(())) => panic!("completed before its deadline"),
        Err(message) => assert!(message.contains(SHUT_DOWN), "{message}"),
    }
    let waker = recorder.waker();
    let later = catch(|| poll(timer.as_mut(), &waker));
    assert!(
        matches!(&later, Err(message) if message.contains(SHUT_DOWN)),
        "the poll after the shutdown should report it: {later:?}"
    );
    drop((timer, waker));
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(&driver);
    assert_released(&recorder);
}

/// Model 6, the foreign shards' timer thread vs a first registration: the
/// thread plans (no timer anywhere: it will sleep until unparked) while a
/// thread registers the first timer on its shard. The registration wakes
/// the sleeping thread (a lost wake-up shows as a deadlock), and the timer
/// fires on time.
pub fn timer_thread_hand_off() {
    let set = model::foreign(TimerSlack::NONE);
    let shard = set.new_shard();
    model::pause(&shard);
    set.turn(); // takes the wake-up the shard's joining asked for
    let turn = {
        let set = set.clone();
        thread::spawn(move || set.turn())
    };
    let task = {
        let shard = shard.clone();
        thread::spawn(move || {
            let _entered = shard.enter();
            let recorder = Recorder::new("foreign hand-off");
            let mut timer = Box::pin(time::sleep(TICK));
            assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
            (timer, recorder)
        })
    };
    turn.join().unwrap();
    let (mut timer, recorder) = task.join().unwrap();

    model::advance(&shard, TICK);
    set.turn();
    assert_eq!(recorder.woken(), 1, "fires once due");
    assert!(poll(timer.as_mut(), &recorder.waker()).is_ready());
    drop(timer);
    assert_released(&recorder);
}

/// Model 10, a thread's shard joining vs the timer thread's plan: the
/// timer thread plans over the shards it knows (none with a timer: it will
/// sleep until unparked) while a new thread makes its shard and registers
/// a timer there. Either the plan covers the new shard, or the joining
/// (and the registration) wakes the thread; otherwise loom reports it
/// asleep forever. The timer then fires.
pub fn shard_joins_vs_plan() {
    let set = model::foreign(TimerSlack::NONE);
    let first = set.new_shard();
    set.turn(); // settles the first shard's joining
    let sleeper = {
        let set = set.clone();
        thread::spawn(move || {
            let plan = set.plan();
            if plan.sleep() == Some(None) {
                set.sleep_until_unparked();
            }
            set.finish(plan);
        })
    };
    let newcomer = {
        let set = set.clone();
        thread::spawn(move || {
            let shard = set.new_shard();
            model::pause(&shard);
            let _entered = shard.enter();
            let recorder = Recorder::new("joining shard");
            let mut timer = Box::pin(time::sleep(TICK));
            assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
            drop(_entered);
            (shard, timer, recorder)
        })
    };
    sleeper.join().unwrap();
    let (shard, mut timer, recorder) = newcomer.join().unwrap();

    model::advance(&shard, TICK);
    set.turn();
    assert_eq!(recorder.woken(), 1, "the new shard's timer fires");
    assert!(poll(timer.as_mut(), &recorder.waker()).is_ready());
    drop((timer, first));
    assert_released(&recorder);
}

/// Model 11, a thread exiting vs the timer thread firing its shard: a
/// thread registers a timer on its shard, hands the sleep on (a task that
/// moved) and exits, dropping its shard's handle, while the timer thread
/// turns. The timer fires after the exit; the shard stays in the set while
/// the sleep is bound to it, so a reset files it again there and that
/// fires too (a shard let go too soon loses it).
pub fn thread_exit_vs_firing() {
    let set = model::foreign(TimerSlack::NONE);
    let turner = {
        let set = set.clone();
        thread::spawn(move || set.turn())
    };
    let exiting = {
        let set = set.clone();
        thread::spawn(move || {
            let shard = set.new_shard();
            model::pause(&shard);
            let _entered = shard.enter();
            let recorder = Recorder::new("exited thread's timer");
            let mut timer = Box::pin(time::sleep(TICK));
            assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
            // The caller keeps a handle only to move the paused clock.
            (timer, recorder, shard.clone())
        })
    };
    turner.join().unwrap();
    let (mut timer, recorder, shard) = exiting.join().unwrap();

    model::advance(&shard, TICK);
    fire(&set);
    assert_eq!(
        recorder.woken(),
        1,
        "lost: the timer did not fire after its thread exited"
    );
    assert!(poll(timer.as_mut(), &recorder.waker()).is_ready());
    {
        let _entered = shard.enter(); // `Instant::now()` on the shard's clock
        timer.as_mut().reset(Instant::now() + TICK);
    }
    assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
    model::advance(&shard, TICK);
    fire(&set);
    assert_eq!(
        recorder.woken(),
        2,
        "lost: the reset timer's shard was let go while the sleep was bound to it"
    );
    drop(timer);
    assert_released(&recorder);
    drop(shard);
    fire(&set); // and prune
    assert_eq!(set.shard_count(), 0, "a shard nothing holds is let go");
}

/// Model 12, a remote cancel on a foreign shard: a timer registered on one
/// thread's shard is due; the task, moved to another thread, polls it
/// again and drops it there while the timer thread fires the shard. Once
/// the drop returns its waker is never called; nothing is kept.
pub fn foreign_remote_cancel_vs_firing() {
    let set = model::foreign(TimerSlack::NONE);
    let shard = set.new_shard();
    model::pause(&shard);
    set.turn();
    let recorder = Recorder::new("remote cancel");
    let mut timer = {
        let _entered = shard.enter();
        Box::pin(time::sleep(TICK))
    };
    assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
    model::advance(&shard, TICK);
    let firer = {
        let set = set.clone();
        // The turn's firing half (its sleep is not what races here, and
        // with the timer cancelled first it would last until unparked).
        thread::spawn(move || fire(&set))
    };
    let canceller = {
        let recorder = recorder.clone();
        thread::spawn(move || {
            let _ = poll(timer.as_mut(), &recorder.waker());
            drop(timer);
            recorder.forbid();
        })
    };
    canceller.join().unwrap();
    firer.join().unwrap();
    assert!(recorder.woken() <= 1);
    drop(shard);
    assert_released(&recorder);
}

/// Model 18, a busy shard vs the timer thread, which never waits for a
/// shard's lock: a thread registers a timer on its (idle, parked) shard,
/// moves the clock past its deadline, and registers a later timer, while
/// the timer thread turns until the first one fires. A plan that finds the
/// lock held counts with the wake-up the shard published last (a
/// registration that lowers it publishes it under the lock, then unparks
/// the thread), or looks again shortly: whatever the interleaving, the
/// thread is never asleep with the due timer unfired (loom would report
/// the deadlock), and the timer fires once.
pub fn busy_shard_vs_timer_thread() {
    let set = model::foreign(TimerSlack::NONE);
    let shard = set.new_shard();
    model::pause(&shard);
    set.turn(); // settles the joining: the idle shard is parked
    let recorder = Recorder::new("busy shard");
    let timer_thread = {
        let set = set.clone();
        let recorder = recorder.clone();
        thread::spawn(move || {
            while recorder.woken() == 0 {
                let plan = set.plan();
                match plan.sleep() {
                    Some(None) => set.sleep_until_unparked(),
                    // A timed sleep: time passes meanwhile (here: the
                    // other thread runs).
                    Some(Some(_)) => thread::yield_now(),
                    None => {}
                }
                set.finish(plan);
            }
        })
    };
    let later = {
        let _entered = shard.enter();
        let mut timer = Box::pin(time::sleep(TICK));
        assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
        // Made before the clock moves, the later sleep registers from the
        // tick before it: a registration that saw the first timer due
        // would fire it itself (model 23), and this model is about the
        // timer thread.
        let mut later = Box::pin(time::sleep(TICK * 10));
        model::advance(&shard, TICK);
        assert!(poll(later.as_mut(), std::task::Waker::noop()).is_pending());
        timer_thread.join().unwrap();
        assert!(poll(timer.as_mut(), &recorder.waker()).is_ready());
        drop(timer);
        later
    };
    assert_eq!(recorder.woken(), 1, "the due timer fires once");
    drop(later);
    assert_released(&recorder);
}

/// Model 7, an `Interval`'s tick vs reset vs expiry: a task resets its
/// interval and polls for the next tick (with a new waker) while another
/// thread fires the tick the reset replaced. A tick is never reported
/// before it is due nor for a time other than the reset's; if the poll
/// waits, the new waker is woken for the reset tick.
pub fn interval_tick_vs_reset_vs_expiry() {
    let period = 2 * TICK;
    let driver = Arc::new(paused_driver());
    let _entered = driver.handle().enter();
    let first = Recorder::new("interval, first waker");
    let second = Recorder::new("interval, the task's waker");
    let start = Instant::now();
    let mut every = time::interval(period);
    let first_waker = first.waker();
    assert_eq!(every.poll_tick(&mut cx(&first_waker)), Poll::Ready(start));
    assert!(every.poll_tick(&mut cx(&first_waker)).is_pending());
    drop(first_waker);

    let task = {
        let driver = driver.clone();
        let waker = second.waker();
        thread::spawn(move || {
            let _entered = driver.handle().enter();
            let next = Instant::now() + period;
            every.reset_at(next);
            let polled = every.poll_tick(&mut cx(&waker));
            (every, next, polled, Instant::now())
        })
    };
    let firer = {
        let driver = driver.clone();
        thread::spawn(move || driver.advance(period))
    };
    let (mut every, next, polled, polled_at) = task.join().unwrap();
    firer.join().unwrap();

    let waker = second.waker();
    match polled {
        Poll::Ready(due) => {
            assert_eq!(due, next, "ticked for a time other than the reset's");
            assert!(due <= polled_at, "ticked before it was due");
        }
        Poll::Pending => {
            let now = Instant::now();
            if next > now {
                assert_eq!(second.woken(), 0, "woken before the reset tick");
                driver.advance(next - now);
            }
            assert!(second.woken() > 0, "the reset tick's wake-up was lost");
            assert_eq!(every.poll_tick(&mut cx(&waker)), Poll::Ready(next));
        }
    }
    // The schedule goes on from the reset tick.
    assert!(every.poll_tick(&mut cx(&waker)).is_pending());
    drop((every, waker));
    assert_eq!(driver.handle().pending_timers(), 0);
    model::check(&driver);
    assert_released(&first);
    assert_released(&second);
}

/// Model 8, a multi-thread runtime's shards: a `Sleep` made on worker 2
/// and first polled on worker 1 files on worker 1's shard; it is then
/// dropped on worker 2 while worker 1 fires its shard. The drop finds the
/// shard the sleep is filed on: once it returns, the waker is never
/// called, and neither shard keeps anything.
pub fn shard_drop_from_another_worker() {
    let first = Arc::new(model::shard(1, || {}));
    let second = Arc::new(model::shard(1, || {}));
    first.pause();
    second.pause();
    let recorder = Recorder::new("shard cross-worker drop");
    let mut timer = {
        let _on_second = second.handle().enter();
        Box::pin(time::sleep(TICK))
    };
    {
        let _on_first = first.handle().enter();
        assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
    }
    assert_eq!(
        first.handle().pending_timers(),
        1,
        "filed on the polling worker's shard"
    );
    assert_eq!(second.handle().pending_timers(), 0);

    let worker_two = {
        let second = second.clone();
        let recorder = recorder.clone();
        thread::spawn(move || {
            let _on_second = second.handle().enter();
            drop(timer);
            recorder.forbid();
        })
    };
    let worker_one = {
        let first = first.clone();
        // Past the sleep's deadline whatever ticks the two paused clocks
        // stopped on.
        thread::spawn(move || first.advance(3 * TICK))
    };
    worker_two.join().unwrap();
    let fired = worker_one.join().unwrap();

    assert_eq!(recorder.woken(), fired);
    for shard in [&first, &second] {
        assert_eq!(shard.handle().pending_timers(), 0);
        model::check(shard);
    }
    assert_released(&recorder);
}

/// Model 8b, a shard's worker parking vs a reset from another thread: the
/// worker plans its park (blocking in mio until the earliest deadline)
/// while another thread resets one of its shard's sleeps to an earlier
/// deadline. If the worker would sleep past the new deadline, the reset
/// wakes it through its unpark hook (the `mio::Waker`); otherwise loom
/// reports the deadlock.
pub fn shard_reset_wakes_parked_worker() {
    let (mio, shard) = paused_worker_shard();
    let _entered = shard.handle().enter();
    let recorder = Recorder::new("shard reset");
    let start = Instant::now();
    let earlier = start + TICK;
    let mut timer = Box::pin(time::sleep_until(start + 5 * TICK));
    assert!(poll(timer.as_mut(), &recorder.waker()).is_pending());
    assert_eq!(mio.wakes(), 0, "woken with nobody parked");

    let worker = {
        let shard = shard.clone();
        let mio = mio.clone();
        thread::spawn(move || {
            if let Some(until) = model::begin_park(&shard) {
                if until.is_none_or(|until| until > earlier.into_std()) {
                    mio.wait(); // would sleep past the new deadline
                }
                model::end_park(&shard);
            }
        })
    };
    let other = thread::spawn(move || {
        timer.as_mut().reset(earlier);
        timer
    });
    worker.join().unwrap();
    let mut timer = other.join().unwrap();

    assert_eq!(shard.advance(TICK), 1, "fires at the new deadline");
    assert!(poll(timer.as_mut(), &recorder.waker()).is_ready());
    drop(timer);
    model::check(&shard);
    assert_released(&recorder);
}

/// Model 9, a registration that relies on its slack vs the worker's park:
/// the worker plans its park for the shard's one timer (due at 20 ticks,
/// one tick of slack) while another thread files a timer due at 18 ticks
/// (also one tick of slack: it may fire at 19 at the latest). Either the
/// plan sees it and wakes by 19, or the registration sees the parked
/// worker would wake too late for it and unparks it; otherwise loom
/// reports the worker blocked forever. Then both fire, neither early, each
/// within its slack.
pub fn slack_registration_vs_park() {
    let (mio, shard) = paused_worker_shard();
    let _entered = shard.handle().enter();
    let recorder = Recorder::new("slack");
    let start = Instant::now();
    let (late_by, early_due) = (start + 19 * TICK, start + 18 * TICK);
    let mut far = Box::pin(time::sleep_until(start + 20 * TICK));
    assert!(poll(far.as_mut(), &recorder.waker()).is_pending());

    let worker = {
        let shard = shard.clone();
        let mio = mio.clone();
        thread::spawn(move || {
            if let Some(until) = model::begin_park(&shard) {
                if until.is_none_or(|until| until > late_by.into_std()) {
                    mio.wait(); // would wake past the new timer's slack
                }
                model::end_park(&shard);
            }
        })
    };
    // Made here (bound to the shard), first polled (filed) there.
    let mut near = Box::pin(time::sleep_until(early_due));
    let other = {
        let recorder = recorder.clone();
        thread::spawn(move || {
            assert!(poll(near.as_mut(), &recorder.waker()).is_pending());
            near
        })
    };
    worker.join().unwrap();
    let mut near = other.join().unwrap();

    assert_eq!(shard.advance(17 * TICK), 0, "nothing is due before 18");
    assert_eq!(shard.advance(TICK), 1, "the 18-tick timer fires at 18");
    assert!(poll(near.as_mut(), &recorder.waker()).is_ready());
    assert!(poll(far.as_mut(), &recorder.waker()).is_pending());
    assert_eq!(shard.advance(2 * TICK), 1, "the 20-tick timer fires at 20");
    assert!(poll(far.as_mut(), &recorder.waker()).is_ready());
    drop((near, far));
    model::check(&shard);
    assert_released(&recorder);
}

/// A multi-thread runtime's worker shard (group 1) on a paused clock, and
/// the stand-in for the `mio::Waker` its unpark hook wakes.
fn paused_worker_shard() -> (Arc<MioWaker>, Arc<lawn_rt::driver::Driver>) {
    let mio = Arc::new(MioWaker::new());
    let shard = {
        let mio = mio.clone();
        Arc::new(model::shard(1, move || mio.wake()))
    };
    shard.pause();
    (mio, shard)
}

/// Model 23, a foreign shard's own thread firing vs the timer thread:
/// three timers, the first two due one tick before the third; the timer
/// thread fires the shard while the thread that owns it moves the clock
/// on, registers a later timer (a registration that finds a timer may be
/// due fires one batch of them itself) and drops the second timer. The
/// first timer's waker, called on the timer thread, returns only once the
/// owner is done, so a batch the timer thread started stays in flight
/// through all of that. Batches never overlap, and neither thread waits
/// for the other's: whatever the interleaving, the dropped timer's waker
/// is not called once its drop returns, the others fire exactly once (by
/// either thread, or by the timer thread's next turn), and no waker clone
/// is left behind.
pub fn owner_fires_vs_timer_thread() {
    let set = model::foreign(TimerSlack::NONE);
    let shard = set.new_shard();
    model::pause(&shard);
    set.turn(); // settles the joining: the idle shard is parked
    let gate = Gate::new();
    let dropped = Recorder::new("dropped timer");
    let kept = Recorder::new("kept timer");
    {
        let _entered = shard.enter();
        let mut slow = Box::pin(time::sleep(TICK));
        assert!(poll(slow.as_mut(), &gate.waker()).is_pending());
        let mut first = Box::pin(time::sleep(TICK));
        assert!(poll(first.as_mut(), &dropped.waker()).is_pending());
        let mut second = Box::pin(time::sleep(TICK * 2));
        assert!(poll(second.as_mut(), &kept.waker()).is_pending());
        model::advance(&shard, TICK);
        let timer_thread = {
            let set = set.clone();
            thread::spawn(move || fire(&set))
        };
        model::advance(&shard, TICK);
        // From the tick the clock has reached, where all three are due.
        let mut later = Box::pin(time::sleep(TICK * 10));
        assert!(poll(later.as_mut(), std::task::Waker::noop()).is_pending());
        drop(first);
        dropped.forbid();
        gate.open();
        timer_thread.join().unwrap();
        // The timer thread's next turn, at the tick the clock is at.
        fire(&set);
        assert_eq!(gate.woken(), 1, "the slow timer fires once");
        assert_eq!(kept.woken(), 1, "the kept timer fires once");
        assert!(poll(slow.as_mut(), &gate.waker()).is_ready());
        assert!(poll(second.as_mut(), &kept.waker()).is_ready());
        drop((slow, later));
    }
    model::check_shard(&shard);
    drop(shard);
    assert_eq!(
        std::sync::Arc::strong_count(&gate),
        1,
        "a clone of the slow waker is kept"
    );
    assert_released(&dropped);
    assert_released(&kept);
}

/// Model 24, a `fork` vs the timer thread's turn: a thread forks (takes
/// the set's locks as the `pthread_atfork` prepare handler does) while the
/// timer thread fires a due timer. A fork's child has only the forking
/// thread, so a batch of wakers in flight on the timer thread would stay in
/// flight there forever, and the child's own timer thread would find that
/// shard busy at every turn. Whatever the interleaving, the hold finds no
/// batch in flight: it waits for the turn to end. (loom cannot fork; the
/// fork itself is `tests/reliability/edges.rs`'s.)
pub fn fork_vs_timer_thread() {
    let set = model::foreign(TimerSlack::NONE);
    let shard = set.new_shard();
    model::pause(&shard);
    set.turn(); // settles the joining: the idle shard is parked
    let due = Recorder::new("due timer");
    let entered = shard.enter();
    let mut timer = Box::pin(time::sleep(TICK));
    assert!(poll(timer.as_mut(), &due.waker()).is_pending());
    model::advance(&shard, TICK);
    let timer_thread = {
        let set = set.clone();
        thread::spawn(move || fire(&set))
    };
    assert!(
        !set.fork_sees_a_batch_in_flight(),
        "a fork's child would inherit a batch in flight on the timer thread"
    );
    timer_thread.join().unwrap();
    fire(&set);
    assert_eq!(due.woken(), 1, "the due timer fires once");
    assert!(poll(timer.as_mut(), &due.waker()).is_ready());
    drop((timer, entered));
    model::check_shard(&shard);
    drop(shard);
    assert_released(&due);
}

/// A foreign timer thread's turn without its sleep: plans, fires what is
/// due, prunes. (A whole turn with nothing pending sleeps until unparked:
/// a model's main thread only fires.)
fn fire(set: &model::ForeignSet) {
    let plan = set.plan();
    set.finish(plan);
}

fn cx(waker: &std::task::Waker) -> std::task::Context<'_> {
    std::task::Context::from_waker(waker)
}
