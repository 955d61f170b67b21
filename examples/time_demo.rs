//! `lawn_rt::time` under an executor that knows nothing about it.
//!
//! 100,000 simulated requests run on `futures::executor::LocalPool`, each
//! under `lawn_rt::time::timeout`: most get their "reply" (a short sleep)
//! in time, the rest time out. The foreign shards' timer thread
//! (`lawn-rt-timer`) serves every timer. The demo checks that no timer fired early and prints
//! how late they were.
//!
//! Run: `cargo run --release --example time_demo`

use std::cell::RefCell;
use std::rc::Rc;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use lawn_rt::time::{sleep, timeout, Duration, Instant};

const REQUESTS: u64 = 100_000;

fn main() {
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let replied = Rc::new(RefCell::new(0u64));
    let lateness = Rc::new(RefCell::new(Vec::new()));
    let start = Instant::now();

    for i in 0..REQUESTS {
        let (replied, lateness) = (replied.clone(), lateness.clone());
        // Replies take 1..=50 ms; timeouts are 20, 40 or 60 ms.
        let reply_after = Duration::from_millis(1 + i % 50);
        let limit = Duration::from_millis(20 * (1 + i % 3));
        spawner
            .spawn_local(async move {
                let asked = Instant::now();
                match timeout(limit, sleep(reply_after)).await {
                    Ok(()) => *replied.borrow_mut() += 1,
                    Err(_elapsed) => {
                        let late = asked.elapsed().checked_sub(limit);
                        let late = late.expect("a timeout fired before its deadline");
                        lateness.borrow_mut().push(late);
                    }
                }
            })
            .expect("spawn on the local pool");
    }
    pool.run();

    let replied = *replied.borrow();
    let mut late = lateness.take();
    late.sort();
    let pct = |p: usize| late.get(late.len() * p / 100).copied().unwrap_or_default();
    println!(
        "{REQUESTS} requests in {:?} on futures' LocalPool",
        start.elapsed()
    );
    println!("  replied in time: {replied}");
    println!("  timed out:       {} (none early)", late.len());
    println!(
        "  timeout lateness: p50 {:?}, p99 {:?}, max {:?}",
        pct(50),
        pct(99),
        late.last().copied().unwrap_or_default()
    );
    assert_eq!(replied + late.len() as u64, REQUESTS);
}
