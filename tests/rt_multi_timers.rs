//! Timers on the multi-thread runtime, whose workers each fire their own
//! shard of the timers: a sleep filed on one worker and dropped on another
//! (or on a plain thread) is never woken after the drop; a reset from a
//! plain thread to an earlier deadline wakes the owning worker at once;
//! thousands of timers across workers all fire, never early; a timer files
//! with the worker that first polls it; a waker swapped by a poll on
//! another worker is the one woken.
//!
//! These tests use the real clock (the point is threads meeting and the
//! never-early rule): no test may see a timer fire early, and every timer
//! must fire within a generous bound ([`LATE`]) on an idle machine.
//! Anything that could hang runs under a watchdog.

mod common;

use std::future::{pending, poll_fn, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex};
use std::task::Poll;
use std::thread;

use common::{
    counting_waker, panicking_waker, poll_with, rt2, watchdog, Counter, Rendezvous, MEET,
};
use lawn_rt::runtime::Runtime;
use lawn_rt::time::{interval, sleep, sleep_until, timeout, Duration, Instant, Sleep};

/// Long enough that a test hitting it has hung, short enough to report.
const HANG: Duration = Duration::from_secs(60);
/// The most a timer may fire after its deadline here (an idle machine
/// wakes within a tick or two; this leaves room for a loaded one).
const LATE: Duration = Duration::from_millis(200);

/// Checks that a timer due at `deadline` completed at `done`: not early,
/// and not later than [`LATE`]; returns how late.
#[track_caller]
fn on_time(what: &str, deadline: Instant, done: Instant) -> Duration {
    assert!(
        done >= deadline,
        "{what}: fired {:?} early",
        deadline.duration_since(done)
    );
    let late = done.duration_since(deadline);
    assert!(late <= LATE, "{what}: fired {late:?} late");
    late
}

// ------------------------------------------------ dropped on another thread

/// What the dropping side saw: each sleep's wake counter and how many wakes
/// it had when its drop returned.
type Dropped = Vec<(Arc<Counter>, usize)>;

/// Checks that no sleep was woken after its drop returned and that every
/// waker has been released.
#[track_caller]
fn assert_quiet_after_drop(dropped: &Dropped) {
    // Time for any stray wake: every deadline here is within 10 ms.
    thread::sleep(Duration::from_millis(40));
    for (i, (counter, at_drop)) in dropped.iter().enumerate() {
        assert_eq!(
            counter.wakes(),
            *at_drop,
            "sleep {i} was woken after its drop"
        );
    }
    let fired_first = dropped.iter().filter(|(_, at_drop)| *at_drop > 0).count();
    eprintln!(
        "{fired_first} of {} sleeps had fired when dropped",
        dropped.len()
    );
    let released = common::eventually(Duration::from_secs(5), || {
        dropped
            .iter()
            .all(|(counter, _)| Arc::strong_count(counter) == 1)
    });
    assert!(released, "a dropped sleep's waker is still held");
}

/// Makes `n` sleeps due within 10 ms, polls each once with a counting waker
/// (so each files on the calling worker's shard), and sends them away.
fn poll_and_send(n: usize, to: &mpsc::Sender<(Pin<Box<Sleep>>, Arc<Counter>)>) {
    for i in 0..n {
        let mut nap = Box::pin(sleep(Duration::from_micros(200 * (1 + i as u64 % 50))));
        let (counter, waker) = counting_waker();
        let _ = poll_with(nap.as_mut(), &waker);
        to.send((nap, counter)).unwrap();
    }
}

/// Receives sleeps and drops them, the first quarter at once, the rest at
/// a pace that spreads the drops over their deadlines (so some are dropped
/// before they fire, some race with the firing, some after); records each
/// one's wakes at the moment its drop returned.
fn receive_and_drop(from: mpsc::Receiver<(Pin<Box<Sleep>>, Arc<Counter>)>) -> Dropped {
    let mut dropped = Vec::new();
    while let Ok((nap, counter)) = from.recv_timeout(MEET) {
        if dropped.len() >= 500 && dropped.len() % 16 == 0 {
            thread::sleep(Duration::from_micros(100));
        }
        drop(nap);
        let at_drop = counter.wakes();
        dropped.push((counter, at_drop));
    }
    dropped
}

#[test]
fn sleeps_polled_on_one_worker_and_dropped_on_another_are_never_woken_after() {
    const SLEEPS: usize = 2000;
    watchdog("drop on another worker", HANG, || {
        let rt = rt2();
        let meet = Rendezvous::new(2);
        let (tx, rx) = mpsc::channel();
        // The two tasks meet first, so they run on different workers.
        let poller = rt.spawn({
            let meet = meet.clone();
            async move {
                assert!(meet.meet(MEET), "the tasks did not meet");
                poll_and_send(SLEEPS, &tx);
                thread::current().id()
            }
        });
        let dropper = rt.spawn(async move {
            assert!(meet.meet(MEET), "the tasks did not meet");
            (thread::current().id(), receive_and_drop(rx))
        });
        let polled_on = rt.block_on(poller).unwrap();
        let (dropped_on, dropped) = rt.block_on(dropper).unwrap();
        assert_ne!(polled_on, dropped_on);
        assert_eq!(dropped.len(), SLEEPS);
        assert_quiet_after_drop(&dropped);
        // The runtime is healthy: timers on both workers still fire.
        still_healthy(&rt);
    });
}

#[test]
fn sleeps_polled_on_a_worker_and_dropped_on_a_plain_thread_are_never_woken_after() {
    const SLEEPS: usize = 2000;
    watchdog("drop on a plain thread", HANG, || {
        let rt = rt2();
        let (tx, rx) = mpsc::channel();
        let dropper = thread::spawn(move || receive_and_drop(rx));
        rt.block_on(rt.spawn(async move { poll_and_send(SLEEPS, &tx) }))
            .unwrap();
        let dropped = dropper.join().unwrap();
        assert_eq!(dropped.len(), SLEEPS);
        assert_quiet_after_drop(&dropped);
        still_healthy(&rt);
    });
}

/// Timers on both workers at once (two tasks that meet) fire on time.
#[track_caller]
fn still_healthy(rt: &Runtime) {
    let meet = Rendezvous::new(2);
    let joins: Vec<_> = (0..2)
        .map(|_| {
            let meet = meet.clone();
            rt.spawn(async move {
                assert!(meet.meet(MEET), "a worker is gone");
                let deadline = Instant::now() + Duration::from_millis(2);
                sleep_until(deadline).await;
                on_time("sleep after the drops", deadline, Instant::now());
            })
        })
        .collect();
    for join in joins {
        rt.block_on(join).unwrap();
    }
}

/// A timer whose waker panics, fired by a worker: the panic is the waker's
/// (the panic hook reports it), not the runtime's. Each worker goes on
/// running tasks and firing its shard's other timers, as the foreign
/// shards' timer thread does after such a waker, and shutdown still drops every
/// task's future. Runs in a child process: a panic out of a destructor
/// during the unwinding of a failure aborts, which would take the other
/// tests down with it.
#[test]
fn a_panicking_timer_waker_does_not_take_its_worker_down() {
    if !common::isolated("a_panicking_timer_waker_does_not_take_its_worker_down") {
        return;
    }
    watchdog("panicking timer waker", HANG, || {
        let rt = rt2();
        let drops = common::DropCount::new();
        let parked: Vec<_> = (0..10)
            .map(|_| {
                let tracked = drops.track();
                rt.spawn(async move {
                    let _tracked = tracked;
                    sleep(Duration::from_secs(3600)).await;
                })
            })
            .collect();
        // One such timer on each worker's shard (the tasks meet, so they
        // run on both), kept pending until it fires.
        let meet = Rendezvous::new(2);
        let filers: Vec<_> = (0..2)
            .map(|_| {
                let meet = meet.clone();
                rt.spawn(async move {
                    assert!(meet.meet(MEET), "the tasks did not meet");
                    let mut nap = Box::pin(sleep(Duration::from_millis(2)));
                    assert!(poll_with(nap.as_mut(), &panicking_waker()).is_pending());
                    Some(nap) // handed out (wrapped: clippy takes a bare
                              // timer for a forgotten `.await`)
                })
            })
            .collect();
        let naps: Vec<_> = filers
            .into_iter()
            .map(|join| rt.block_on(join).unwrap())
            .collect();
        // Both have fired (and panicked) on their workers by now.
        thread::sleep(Duration::from_millis(50));
        // A worker still runs tasks...
        let (ran, ran_rx) = mpsc::channel();
        drop(rt.spawn(async move { ran.send(()).unwrap() }));
        assert!(
            ran_rx.recv_timeout(MEET).is_ok(),
            "no worker runs tasks after a timer waker panicked on each"
        );
        // ...both do, and they fire timers on time.
        still_healthy(&rt);
        drop(naps);
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(rt)));
        assert_eq!(drops.get(), 10, "a task's future outlived its runtime");
        for join in parked {
            let err = futures::executor::block_on(join).unwrap_err();
            assert!(err.is_cancelled(), "{err:?}");
        }
    });
}

// ------------------------------------------------------------------- reset

/// A sleep behind a lock, so a plain thread can reset it while a task
/// awaits it.
type Shared = Arc<Mutex<Pin<Box<Sleep>>>>;

/// Spawns a task that awaits `nap` (filing it on its worker's shard on the
/// first poll) and returns when it completed; `registered` is set after
/// that first poll.
fn await_shared(
    rt: &Runtime,
    nap: Shared,
    registered: Arc<AtomicBool>,
) -> impl Future<Output = Instant> {
    let join = rt.spawn(async move {
        poll_fn(|cx| {
            let polled = nap.lock().unwrap().as_mut().poll(cx);
            registered.store(true, SeqCst);
            polled
        })
        .await;
        Instant::now()
    });
    async move { join.await.unwrap() }
}

#[test]
fn a_reset_from_a_plain_thread_to_an_earlier_deadline_wakes_the_owning_worker() {
    watchdog("reset from a plain thread", HANG, || {
        let rt = rt2();
        for round in 0..6 {
            let nap: Shared = Arc::new(Mutex::new(Box::pin(sleep(Duration::from_secs(30)))));
            let registered = Arc::new(AtomicBool::new(false));
            let done = await_shared(&rt, nap.clone(), registered.clone());
            let resetter = thread::spawn(move || {
                assert!(common::eventually(MEET, || registered.load(SeqCst)));
                // Let the worker park on the 30 s deadline.
                thread::sleep(Duration::from_millis(20));
                // Odd rounds: a deadline already past.
                let ahead = if round % 2 == 0 { 30 } else { 0 };
                let deadline = Instant::now() + Duration::from_millis(ahead);
                nap.lock().unwrap().as_mut().reset(deadline);
                deadline
            });
            let completed = rt.block_on(done);
            let deadline = resetter.join().unwrap();
            on_time(&format!("round {round}"), deadline, completed);
        }
    });
}

#[test]
fn a_reset_from_another_task_to_an_earlier_deadline_fires_on_time() {
    watchdog("reset from another task", HANG, || {
        let rt = rt2();
        for round in 0..6 {
            let nap: Shared = Arc::new(Mutex::new(Box::pin(sleep(Duration::from_secs(30)))));
            let registered = Arc::new(AtomicBool::new(false));
            let done = await_shared(&rt, nap.clone(), registered.clone());
            let resetter = rt.spawn(async move {
                while !registered.load(SeqCst) {
                    sleep(Duration::from_millis(1)).await;
                }
                sleep(Duration::from_millis(10)).await;
                let deadline = Instant::now() + Duration::from_millis(5 * round);
                nap.lock().unwrap().as_mut().reset(deadline);
                deadline
            });
            let completed = rt.block_on(done);
            let deadline = rt.block_on(resetter).unwrap();
            on_time(&format!("round {round}"), deadline, completed);
        }
    });
}

// -------------------------------------------------------------------- load

/// Which timer a task of [`five_thousand_timers_across_workers_fire_never_early`] awaits.
async fn one_timer(i: u64) -> (Instant, Instant) {
    // 0 µs ..= 50 ms, sub-tick and odd values included.
    let d = Duration::from_micros((i * 7919) % 50_001);
    let start = Instant::now();
    let deadline = start + d;
    match i % 4 {
        0 => sleep(d).await,
        1 => sleep_until(deadline).await,
        2 => assert!(timeout(d, pending::<()>()).await.is_err()),
        _ => timeout(Duration::from_secs(30), sleep(d)).await.unwrap(),
    }
    (deadline, Instant::now())
}

#[test]
fn five_thousand_timers_across_workers_fire_never_early() {
    const TIMERS: u64 = 5000;
    let mut lateness = watchdog("5,000 timers", HANG, || {
        let rt = rt2();
        // Half spawned from outside (the inject queue), half by two tasks
        // (their workers' queues, and whoever steals from them).
        let mut joins: Vec<_> = (0..TIMERS / 2).map(|i| rt.spawn(one_timer(i))).collect();
        let spawners: Vec<_> = (0..2)
            .map(|s| {
                rt.spawn(async move {
                    let first = TIMERS / 2 + s * TIMERS / 4;
                    let joins: Vec<_> = (first..first + TIMERS / 4)
                        .map(|i| lawn_rt::spawn(one_timer(i)))
                        .collect();
                    let mut out = Vec::new();
                    for join in joins {
                        out.push(join.await.unwrap());
                    }
                    out
                })
            })
            .collect();
        rt.block_on(async move {
            let mut out = Vec::new();
            for join in joins.drain(..) {
                out.push(join.await.unwrap());
            }
            for spawner in spawners {
                out.extend(spawner.await.unwrap());
            }
            out
        })
        .into_iter()
        .enumerate()
        .map(|(i, (deadline, done))| on_time(&format!("timer {i}"), deadline, done))
        .collect::<Vec<_>>()
    });
    assert_eq!(lateness.len(), TIMERS as usize);
    lateness.sort();
    let at = |q: f64| lateness[((lateness.len() - 1) as f64 * q) as usize];
    eprintln!(
        "lateness of {TIMERS} timers: p50 {:?}, p99 {:?}, max {:?}",
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

// --------------------------------------------------- filing on first poll

#[test]
fn a_timer_files_with_whoever_first_polls_it_and_fires_on_time() {
    watchdog("first-poll filing", HANG, || {
        let rt = rt2();
        let d = Duration::from_millis(3);
        // Made where no runtime was entered, first polled by a task.
        let outside = sleep(d);
        let deadline = outside.deadline();
        let done = rt.block_on(rt.spawn(async move {
            outside.await;
            Instant::now()
        }));
        on_time("made outside", deadline, done.unwrap());
        // Made on this thread with the runtime entered, polled by a task.
        let entered = {
            let _entered = rt.enter();
            sleep(d)
        };
        let deadline = entered.deadline();
        let done = rt.block_on(rt.spawn(async move {
            entered.await;
            Instant::now()
        }));
        on_time("made entered", deadline, done.unwrap());
        // Made by one task, unpolled, awaited by another.
        let (deadline, done) = rt.block_on(async move {
            // The task hands its timer out on purpose.
            #[allow(clippy::async_yields_async)]
            let made = lawn_rt::spawn(async move { sleep(d) }).await.unwrap();
            let deadline = made.deadline();
            let done = lawn_rt::spawn(async move {
                made.await;
                Instant::now()
            });
            (deadline, done.await.unwrap())
        });
        on_time("made by another task", deadline, done);
        // Polled once by a task, then awaited by another task and by a
        // plain thread's executor (the first worker's shard fires it).
        for on_a_plain_thread in [false, true] {
            let mut nap = Box::pin(sleep_until(Instant::now() + Duration::from_millis(20)));
            let deadline = nap.deadline();
            #[allow(clippy::async_yields_async)]
            let nap = rt
                .block_on(rt.spawn(async move {
                    let first = poll_fn(|cx| Poll::Ready(nap.as_mut().poll(cx))).await;
                    assert!(first.is_pending());
                    nap
                }))
                .unwrap();
            let done = if on_a_plain_thread {
                thread::spawn(move || {
                    futures::executor::block_on(nap);
                    Instant::now()
                })
                .join()
                .unwrap()
            } else {
                rt.block_on(rt.spawn(async move {
                    nap.await;
                    Instant::now()
                }))
                .unwrap()
            };
            on_time("polled, then moved", deadline, done);
        }
    });
}

#[test]
fn the_waker_of_the_last_poll_is_woken_across_workers() {
    watchdog("waker swap across workers", HANG, || {
        let rt = rt2();
        for _ in 0..20 {
            let nap: Shared = Arc::new(Mutex::new(Box::pin(sleep(Duration::from_millis(5)))));
            let deadline = nap.lock().unwrap().deadline();
            let meet = Rendezvous::new(2);
            // The first task polls once (its waker is filed), then waits
            // at the rendezvous, and returns without polling again...
            let first = rt.spawn({
                let nap = nap.clone();
                let meet = meet.clone();
                async move {
                    poll_fn(|cx| {
                        let _ = nap.lock().unwrap().as_mut().poll(cx);
                        Poll::Ready(())
                    })
                    .await;
                    assert!(meet.meet(MEET));
                }
            });
            // ...the second, on the other worker, polls after it and is the
            // one woken.
            let second = rt.spawn(async move {
                assert!(meet.meet(MEET));
                poll_fn(|cx| nap.lock().unwrap().as_mut().poll(cx)).await;
                Instant::now()
            });
            rt.block_on(first).unwrap();
            let done = rt.block_on(second).unwrap();
            on_time("second poller", deadline, done);
        }
    });
}

#[test]
fn an_interval_on_a_multi_thread_runtime_ticks_never_early() {
    watchdog("interval", HANG, || {
        let rt = rt2();
        let period = Duration::from_millis(3);
        let ticks = rt.block_on(rt.spawn(async move {
            let mut every = interval(period);
            let mut ticks = Vec::new();
            for _ in 0..20 {
                let tick = every.tick().await;
                ticks.push((tick, Instant::now()));
                // Hop between workers meanwhile (the timer stays filed
                // with the first).
                lawn_rt::spawn(async {}).await.unwrap();
            }
            ticks
        }));
        let ticks = ticks.unwrap();
        for (k, &(tick, returned)) in ticks.iter().enumerate() {
            on_time(&format!("tick {k}"), tick, returned);
            if k > 0 {
                assert_eq!(tick.duration_since(ticks[k - 1].0), period, "tick {k}");
            }
        }
    });
}
