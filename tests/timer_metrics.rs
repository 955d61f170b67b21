//! Timer metrics (`RuntimeMetrics::worker_timer_metrics`/`timer_metrics`,
//! `time::foreign_timer_metrics`): each counter on a scripted load, the
//! lateness histogram on the paused clock, the park loop's wake-ups by
//! cause on the real one, and the figures of a multi-thread runtime's
//! shards and of the timers outside a runtime.

use std::future::{poll_fn, Future};
use std::net::TcpStream as StdTcpStream;
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use lawn_rt::runtime::{Builder, Handle};
use lawn_rt::task::yield_now;
use lawn_rt::time::{self, sleep, timeout, Instant, TimerMetrics};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Polls `future` once, as a task would.
async fn poll_once<F: Future + Unpin>(future: &mut F) -> bool {
    poll_fn(|cx| Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx).is_ready())).await
}

fn timers() -> TimerMetrics {
    Handle::current().metrics().timer_metrics()
}

/// The count of the lateness bucket that starts at `from`.
fn bucket(metrics: &TimerMetrics, from: Duration) -> u64 {
    let (_, _, count) = metrics
        .lateness
        .buckets()
        .find(|&(start, _, _)| start == from)
        .unwrap_or_else(|| panic!("no lateness bucket starts at {from:?}"));
    count
}

#[test]
fn each_counter_follows_a_scripted_load() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let mut fresh = TimerMetrics::default();
        fresh.shards = 1;
        assert_eq!(timers(), fresh);

        // Three sleeps that fire.
        for _ in 0..3 {
            sleep(ms(1)).await;
        }
        // Four timeouts whose future finishes first: filed, then cancelled.
        for _ in 0..4 {
            timeout(Duration::from_secs(10), yield_now()).await.unwrap();
        }
        // A timeout around a future that is ready at once is never filed.
        timeout(Duration::from_secs(10), async {}).await.unwrap();
        let now = timers();
        assert_eq!(
            (
                now.registered,
                now.fired,
                now.cancelled,
                now.reset,
                now.pending
            ),
            (7, 3, 4, 0, 0)
        );

        // Two resets of a filed sleep, and one more sleep left pending.
        let mut moved = pin!(sleep(Duration::from_secs(1)));
        assert!(!poll_once(&mut moved).await);
        moved
            .as_mut()
            .reset(Instant::now() + Duration::from_secs(2));
        moved
            .as_mut()
            .reset(Instant::now() + Duration::from_secs(3));
        let mut held = pin!(sleep(Duration::from_secs(5)));
        assert!(!poll_once(&mut held).await);
        let now = timers();
        assert_eq!(
            (
                now.registered,
                now.fired,
                now.cancelled,
                now.reset,
                now.pending
            ),
            (9, 3, 4, 2, 2)
        );
        assert!(now.memory_bytes > 0, "two timers pending in no memory");
    });
    // Both dropped with the block_on's future: cancelled, none pending.
    let after = rt.metrics().timer_metrics();
    assert_eq!((after.cancelled, after.pending), (6, 0));
    assert_eq!(after.lateness.count(), after.fired);
}

#[test]
fn the_lateness_histogram_on_the_paused_clock() {
    let rt = Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        // Auto-advance jumps the clock to the deadline: not late at all.
        sleep(ms(1)).await;
        // Filed, then the clock jumps past them: 4 ms and 2 ms late.
        let mut one = pin!(sleep(ms(1)));
        let mut three = pin!(sleep(ms(3)));
        assert!(!poll_once(&mut one).await);
        assert!(!poll_once(&mut three).await);
        time::advance(ms(5)).await;
        assert!(poll_once(&mut one).await && poll_once(&mut three).await);

        let metrics = timers();
        assert_eq!(metrics.fired, 3);
        assert_eq!(metrics.lateness.count(), 3);
        assert_eq!(bucket(&metrics, Duration::ZERO), 1, "on time");
        // 2,000 µs is in [1,024, 2,048) µs; 4,000 µs in [2,048, 4,096) µs.
        assert_eq!(bucket(&metrics, Duration::from_micros(1024)), 1);
        assert_eq!(bucket(&metrics, Duration::from_micros(2048)), 1);
        assert_eq!(
            metrics.lateness.quantile(0.5),
            Some(Duration::from_micros(2048))
        );
        assert_eq!(
            metrics.lateness.quantile(1.0),
            Some(Duration::from_micros(4096))
        );
    });
}

#[test]
fn the_park_loop_counts_its_wake_ups_by_cause() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let handle = rt.handle().clone();
    rt.block_on(async move {
        // A timer ends a park.
        sleep(ms(2)).await;
        let after_timer = timers().wake_ups;
        assert!(after_timer.timer >= 1, "{after_timer:?}");

        // A socket's readiness ends one: a client connects from a thread.
        let listener = lawn_rt::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let client = std::thread::spawn(move || {
            std::thread::sleep(ms(20));
            StdTcpStream::connect(addr).unwrap()
        });
        let (_accepted, _) = listener.accept().await.unwrap();
        let after_io = timers().wake_ups;
        assert!(after_io.io > after_timer.io, "{after_io:?}");
        drop(client.join().unwrap());

        // A task spawned from another thread ends one.
        let spawner = std::thread::spawn(move || {
            std::thread::sleep(ms(20));
            handle.spawn(async {})
        });
        let (tx, rx) = futures::channel::oneshot::channel::<()>();
        let woke = std::thread::spawn(move || {
            let task = spawner.join().unwrap();
            futures::executor::block_on(task).unwrap();
            tx.send(()).unwrap();
        });
        rx.await.unwrap();
        woke.join().unwrap();
        let after_task = timers().wake_ups;
        assert!(after_task.task > after_io.task, "{after_task:?}");
        assert_eq!(
            after_task.total(),
            after_task.timer + after_task.io + after_task.task + after_task.nothing
        );
    });
}

#[test]
fn a_multi_thread_runtime_reports_each_workers_shard() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let sleeps: Vec<_> = (0..20).map(|_| lawn_rt::spawn(sleep(ms(2)))).collect();
        for task in sleeps {
            task.await.unwrap();
        }
    });
    let metrics = rt.metrics();
    let each: Vec<TimerMetrics> = (0..2).map(|w| metrics.worker_timer_metrics(w)).collect();
    let sum = metrics.timer_metrics();
    assert_eq!(sum.shards, 2);
    assert_eq!(sum.fired, 20);
    assert_eq!(each[0].fired + each[1].fired, 20);
    assert_eq!(sum.registered, each[0].registered + each[1].registered);
    assert_eq!(sum.lateness.count(), 20);
    assert_eq!(sum.pending, 0);

    let out_of_range = std::panic::catch_unwind(|| metrics.worker_timer_metrics(2));
    let message = *out_of_range.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("worker index 2 is out of range"),
        "{message}"
    );
}

#[test]
fn a_runtime_without_time_reports_nothing() {
    let rt = Builder::new_current_thread().build().unwrap();
    assert_eq!(rt.metrics().timer_metrics(), TimerMetrics::default());
}

#[test]
fn timers_outside_a_runtime_are_counted_process_wide() {
    let before = time::foreign_timer_metrics();
    futures::executor::block_on(async {
        sleep(ms(2)).await;
        timeout(Duration::from_secs(5), yield_now()).await.unwrap();
    });
    // The thread's shard is let go of once the thread exits: its counts
    // stay in the totals.
    std::thread::spawn(|| futures::executor::block_on(sleep(ms(1))))
        .join()
        .unwrap();
    let after = time::foreign_timer_metrics();
    assert!(after.fired >= before.fired + 2, "{after:?}");
    assert!(after.cancelled > before.cancelled, "{after:?}");
    assert!(after.registered >= before.registered + 3, "{after:?}");
    assert!(
        after.wake_ups.total() > before.wake_ups.total(),
        "{after:?}"
    );
}

#[test]
fn each_threads_foreign_shard_reports_its_own_timers() {
    std::thread::spawn(|| {
        assert_eq!(time::thread_timer_metrics(), None);
        futures::executor::block_on(async {
            sleep(ms(1)).await;
            sleep(ms(1)).await;
            timeout(Duration::from_secs(5), yield_now()).await.unwrap();
        });
        let mine = time::thread_timer_metrics().unwrap();
        assert_eq!(
            (
                mine.shards,
                mine.registered,
                mine.fired,
                mine.cancelled,
                mine.pending
            ),
            (1, 3, 2, 1, 0)
        );
        assert_eq!(mine.lateness.count(), 2);
    })
    .join()
    .unwrap();
}

#[test]
fn a_wake_up_planned_for_a_cancelled_timer_counts_as_nothing() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let (tx, rx) = futures::channel::oneshot::channel::<()>();
        let waker = std::thread::spawn(move || {
            std::thread::sleep(ms(2));
            tx.send(()).unwrap();
        });
        // Filed; the park loop plans its wake-up for it, then is woken
        // sooner by the other thread, and the timer is cancelled.
        let mut early = Box::pin(sleep(ms(100)));
        assert!(!poll_once(&mut early).await);
        rx.await.unwrap();
        waker.join().unwrap();
        drop(early);
        let before = timers().wake_ups;
        // The wake-up planned for 100 ms is kept rather than re-armed: it
        // comes and finds nothing; the one for 150 ms fires this sleep.
        sleep(ms(150)).await;
        let after = timers().wake_ups;
        assert!(after.nothing > before.nothing, "{before:?} -> {after:?}");
        assert!(after.timer > before.timer, "{before:?} -> {after:?}");
    });
}
