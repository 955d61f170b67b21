//! A short run of every timer path, small enough for valgrind: CI runs it
//! under memcheck, so a crash there (a dependency's own reading of the
//! vDSO took every lawn_rt program down under valgrind once) or a memory
//! error in the runtime fails the build.
//!
//! It covers the current-thread runtime, the multi-thread runtime's worker
//! shards, the foreign shards under `futures::executor::block_on` (fired by
//! the `lawn-rt-timer` thread), a timeout that fires and one that does
//! not, a reset, an interval and a `tokio` runtime using `lawn_rt::time`.
//! Every sleep is checked against its deadline: none may complete early.
//!
//! Run: `cargo run --example valgrind_smoke`, or under valgrind:
//! `valgrind --error-exitcode=1 target/debug/examples/valgrind_smoke`.

use std::future::pending;

use lawn_rt::runtime::Builder;
use lawn_rt::time::{interval, sleep, sleep_until, timeout, Duration, Instant};

/// Sleeps `1..=n` ms apart, all awaited together; panics on an early one.
async fn sleeps(n: u64) {
    let tasks = (1..=n).map(|ms| async move {
        let deadline = Instant::now() + Duration::from_millis(ms);
        sleep_until(deadline).await;
        assert!(
            Instant::now() >= deadline,
            "a {ms} ms sleep completed early"
        );
    });
    futures::future::join_all(tasks).await;
}

/// A timeout that fires, one that does not, a reset and an interval.
async fn the_rest() {
    let fired = timeout(Duration::from_millis(2), pending::<()>()).await;
    assert!(
        fired.is_err(),
        "a timeout around a pending future must fire"
    );
    let done = timeout(Duration::from_secs(10), async { 7 }).await;
    assert_eq!(done, Ok(7));

    let mut idle = std::pin::pin!(sleep(Duration::from_secs(3600)));
    let deadline = Instant::now() + Duration::from_millis(3);
    idle.as_mut().reset(deadline);
    idle.as_mut().await;
    assert!(Instant::now() >= deadline);

    let start = Instant::now();
    let mut ticks = interval(Duration::from_millis(1));
    for _ in 0..4 {
        // The first tick is at once, the fourth 3 ms after `interval`.
        ticks.tick().await;
    }
    assert!(start.elapsed() >= Duration::from_millis(3));
}

fn main() {
    let current = Builder::new_current_thread().enable_all().build().unwrap();
    current.block_on(async {
        let spawned = lawn_rt::spawn(sleeps(20));
        sleeps(20).await;
        the_rest().await;
        spawned.await.unwrap();
    });
    drop(current);

    let multi = Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    multi.block_on(async {
        let handles: Vec<_> = (0..4).map(|_| lawn_rt::spawn(sleeps(10))).collect();
        the_rest().await;
        for handle in handles {
            handle.await.unwrap();
        }
    });
    drop(multi);

    // No runtime: the foreign shards and their timer thread.
    futures::executor::block_on(async {
        sleeps(20).await;
        the_rest().await;
    });

    // Inside tokio's runtime, as a tokio service would use them.
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    tokio_rt.block_on(async {
        let spawned = tokio::spawn(sleeps(10));
        the_rest().await;
        spawned.await.unwrap();
    });

    println!("valgrind_smoke: every timer path ran, none early");
}
