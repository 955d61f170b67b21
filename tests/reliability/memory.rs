//! A million timers: memory back at the next idle park.

use super::*;

/// Timers in the load.
const MILLION: u64 = 1_000_000;

/// Registers `MILLION` sleeps (a million distinct TTLs, from a minute to
/// about 18, so the Lawn holds many buckets) on the current driver, polling each once; returns
/// them and the bytes the driver holds.
fn register_a_million() -> (Vec<Pin<Box<time::Sleep>>>, usize) {
    let driver = DriverHandle::current();
    let before = driver.pending_timers();
    let mut load: Vec<_> = (0..MILLION)
        .map(|i| Box::pin(sleep(secs(60) + ms(i % 3_600_000))))
        .collect();
    for timer in &mut load {
        assert!(poll_noop(timer.as_mut()).is_pending());
    }
    assert_eq!(driver.pending_timers() - before, MILLION as usize);
    (load, driver.allocated_bytes())
}

/// A runtime's driver that held a million timers gives its memory back at
/// the first park with no timer pending, without waiting the second a
/// sparse load is given.
#[test]
fn a_million_timers_dropped_give_a_runtimes_driver_memory_back_at_its_next_idle_park() {
    let _alone = alone();
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let (full, held, left, rounds) = rt.block_on(async {
        let driver = DriverHandle::current();
        let (load, full) = register_a_million();
        drop(load);
        assert_eq!(driver.pending_timers(), 0);
        let held = driver.allocated_bytes();
        let (left, rounds) = idle_parks_until_near_zero(5).await;
        (full, held, left, rounds)
    });
    eprintln!(
        "a million timers: {full} driver bytes; {held} once dropped, {left} after the idle park \
         ({rounds} round(s) of parks)"
    );
    assert!(full > 20_000_000, "a million timers held only {full} bytes");
    assert!(
        held >= full / 2,
        "gave back before parking: {held} of {full} (so the park is not what shrinks it?)"
    );
    assert!(
        left <= NEAR_ZERO,
        "{left} of {full} bytes still held after the idle park"
    );
}

/// A foreign shard (a plain thread's driver) that held a million timers
/// gives its memory back when the timer thread next plans it with no timer
/// pending: after the next timer on that thread has fired.
#[test]
fn a_million_timers_dropped_give_a_foreign_shards_memory_back_at_its_next_idle_park() {
    let _alone = alone();
    let (full, held, left) = thread::spawn(|| {
        let shard = DriverHandle::current();
        let (load, full) = register_a_million();
        drop(load);
        assert_eq!(shard.pending_timers(), 0);
        let held = shard.allocated_bytes();
        // One short sleep, so the timer thread turns this shard: once it
        // has fired, its next plan finds the shard idle.
        futures::executor::block_on(sleep(ms(1)));
        eventually(secs(5), || shard.allocated_bytes() <= NEAR_ZERO);
        (full, held, shard.allocated_bytes())
    })
    .join()
    .unwrap();
    eprintln!(
        "a million timers on a foreign shard: {full} bytes; {held} once dropped, {left} after \
         its idle park"
    );
    assert!(full > 20_000_000, "a million timers held only {full} bytes");
    assert!(
        left <= NEAR_ZERO,
        "{left} of {full} bytes still held after the idle park"
    );
}
