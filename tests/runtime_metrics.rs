//! `RuntimeMetrics`, tokio's stable counts: the workers a runtime runs,
//! the tasks alive (spawned and not yet done or cancelled), the depth of
//! its shared queue, and each worker's parks and busy time, on both
//! flavors.

mod common;

use std::time::Duration;

use common::watchdog;
use lawn_rt::runtime::{Builder, Handle};

const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn workers_are_counted_per_flavor() {
    let current = Builder::new_current_thread().build().unwrap();
    assert_eq!(current.metrics().num_workers(), 1);
    let multi = Builder::new_multi_thread()
        .worker_threads(3)
        .build()
        .unwrap();
    assert_eq!(multi.metrics().num_workers(), 3);
    assert_eq!(multi.handle().metrics().num_workers(), 3);
    let debug = format!("{:?}", multi.metrics());
    assert!(debug.contains("num_workers: 3"), "{debug}");
}

#[test]
fn alive_tasks_count_spawned_tasks_until_they_end() {
    for multi in [false, true] {
        watchdog("alive tasks", LIMIT, move || {
            let rt = if multi {
                Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .unwrap()
            } else {
                Builder::new_current_thread().enable_all().build().unwrap()
            };
            let metrics = rt.metrics();
            assert_eq!(metrics.num_alive_tasks(), 0);
            let pending: Vec<_> = (0..5)
                .map(|_| rt.spawn(std::future::pending::<()>()))
                .collect();
            assert_eq!(metrics.num_alive_tasks(), 5);
            // spawn_blocking is not counted, as in tokio.
            let blocking = rt.spawn_blocking(|| std::thread::sleep(Duration::from_millis(20)));
            assert_eq!(metrics.num_alive_tasks(), 5);
            rt.block_on(async {
                let done = lawn_rt::spawn(std::future::pending::<()>());
                assert_eq!(Handle::current().metrics().num_alive_tasks(), 6);
                done.abort();
                for task in &pending {
                    task.abort();
                }
                for task in pending {
                    assert!(task.await.unwrap_err().is_cancelled());
                }
                blocking.await.unwrap();
            });
            // A worker releases a task just after handing its output over
            // (as tokio's does), so the count may lag the joins a moment.
            let give_up = std::time::Instant::now() + Duration::from_secs(10);
            while metrics.num_alive_tasks() != 0 && std::time::Instant::now() < give_up {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert_eq!(metrics.num_alive_tasks(), 0, "multi={multi}");
            drop(rt);
            assert_eq!(metrics.num_alive_tasks(), 0, "after shutdown");
        });
    }
}

#[test]
fn the_global_queue_holds_what_was_scheduled_from_outside() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let metrics = rt.metrics();
    assert_eq!(metrics.global_queue_depth(), 0);
    let tasks: Vec<_> = (0..3).map(|_| rt.spawn(async {})).collect();
    assert_eq!(metrics.global_queue_depth(), 3);
    rt.block_on(async {
        for task in tasks {
            task.await.unwrap();
        }
    });
    assert_eq!(metrics.global_queue_depth(), 0);
}

#[test]
fn a_current_thread_runtime_counts_its_parks_and_busy_time() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let metrics = rt.metrics();
    assert_eq!(metrics.worker_park_count(0), 0, "not driven yet");
    let started = std::time::Instant::now();
    for _ in 0..3 {
        rt.block_on(lawn_rt::time::sleep(Duration::from_millis(5)));
    }
    let elapsed = started.elapsed();
    let parks = metrics.worker_park_count(0);
    assert!(parks >= 3, "three sleeps, {parks} parks");
    assert_eq!(metrics.worker_park_unpark_count(0), 2 * parks, "awake now");
    assert!(
        metrics.worker_total_busy_duration(0) < elapsed,
        "asleep most of the time"
    );
}

/// A `block_on` whose tasks never let it park (each yields and is joined
/// at once) still counts its busy time when it returns, as tokio's does
/// (tokio's `rt_metrics::worker_total_busy_duration`).
#[test]
fn a_current_thread_block_on_that_never_parks_counts_its_busy_time() {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let metrics = rt.metrics();
    rt.block_on(async {
        for _ in 0..5 {
            lawn_rt::spawn(lawn_rt::task::yield_now()).await.unwrap();
        }
        // Busy, not parked: a spin the busy time must cover.
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(10) {}
    });
    let busy = metrics.worker_total_busy_duration(0);
    assert!(busy >= Duration::from_millis(10), "{busy:?}");
    drop(rt);
    assert!(metrics.worker_total_busy_duration(0) >= busy);
}

#[test]
fn idle_workers_show_as_parked_and_busy_ones_count_busy_time() {
    let rt = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let metrics = rt.metrics();
    watchdog("parked", LIMIT, move || {
        // Idle workers park: each is seen with an odd count (parked).
        for worker in 0..2 {
            while metrics.worker_park_unpark_count(worker) % 2 == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert!(metrics.worker_park_count(worker) >= 1);
        }
        // A task that spins 30 ms is busy time on its worker.
        let spin = rt.spawn(async {
            let start = std::time::Instant::now();
            while start.elapsed() < Duration::from_millis(30) {
                std::hint::spin_loop();
            }
            lawn_rt::runtime::worker_index().unwrap()
        });
        let worker = rt.block_on(spin).unwrap();
        while metrics.worker_park_unpark_count(worker) % 2 == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        let busy = metrics.worker_total_busy_duration(worker);
        assert!(busy >= Duration::from_millis(30), "{busy:?}");
    });
}

#[test]
fn a_worker_out_of_range_panics_at_the_callers_line() {
    let rt = Builder::new_current_thread().build().unwrap();
    let metrics = rt.metrics();
    let site = common::catch_panic_site("worker 1 of 1", || metrics.worker_park_count(1));
    assert!(site.message.contains("out of range"), "{}", site.message);
    assert_eq!(site.file, file!(), "{site:?}");
}
