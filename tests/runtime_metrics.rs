//! `RuntimeMetrics`, tokio's stable counts: the workers a runtime runs,
//! the tasks alive (spawned and not yet done or cancelled), and the depth
//! of its shared queue, on both flavors.

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
