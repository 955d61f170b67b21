//! Stress of timers on foreign executors' threads, whose timers live in
//! per-thread shards (fired by the shared timer thread, or by the shard's
//! own thread when it registers): sleeps handed between threads that then
//! exit, wakers that re-enter the driver (drop sleeps, register new ones,
//! panic), a mixed load on tokio's multi-thread runtime, a waker whose drop
//! panics in the middle of a batch, and an idle process after all that.
//!
//! Every test asserts correctness only: no sleep completes before its
//! deadline, none is lost (a registered waker is called once the deadline
//! has passed; "lost" allows [`LOST_AFTER`], seconds, for a loaded
//! machine), and no waker is called after its sleep's drop has returned.
//! Latency is not measured here.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant as StdInstant};

#[cfg(target_os = "linux")]
use common::assert_timer_thread_idle;
use common::Rng;
use lawn_rt::time::{sleep, sleep_until, Instant, Sleep};

/// How long after its deadline a registered waker may still be uncalled
/// before its sleep counts as lost: generous, so a descheduled timer thread
/// on a loaded machine is not a failure.
const LOST_AFTER: Duration = Duration::from_secs(3);

/// Marks the panics these tests cause on purpose.
const EXPECTED: &str = "(an expected panic)";

/// Installs, once per process, a panic hook that keeps quiet about the
/// panics these tests raise on purpose (their message holds [`EXPECTED`])
/// and hands every other panic to the previous hook.
fn quiet_expected_panics() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !common::panic_message(info.payload()).contains(EXPECTED) {
                previous(info);
            }
        }));
    });
}

/// What the probes saw.
#[derive(Default)]
struct Stats {
    /// Wakes of a probe whose sleep's drop had returned.
    after_drop: AtomicUsize,
    /// Sleeps that completed before their deadline.
    early: AtomicUsize,
    /// Registered sleeps not woken [`LOST_AFTER`] past their deadline.
    lost: AtomicUsize,
    /// Wakes in all.
    wakes: AtomicUsize,
    /// Registered sleeps checked for a wake after their deadline.
    checked: AtomicUsize,
}

impl Stats {
    fn assert_clean(&self, what: &str) {
        let (after_drop, early, lost, checked, wakes) = (
            self.after_drop.load(SeqCst),
            self.early.load(SeqCst),
            self.lost.load(SeqCst),
            self.checked.load(SeqCst),
            self.wakes.load(SeqCst),
        );
        eprintln!("{what}: {wakes} wakes, {checked} sleeps checked for a wake");
        assert_eq!(
            after_drop, 0,
            "{what}: wakers called after their sleep's drop returned"
        );
        assert_eq!(early, 0, "{what}: sleeps completed before their deadline");
        assert_eq!(
            lost, 0,
            "{what}: sleeps not woken {LOST_AFTER:?} after their deadline"
        );
        assert!(checked > 0, "{what}: no registered sleep was left to check");
    }
}

/// A waker that records its first wake and counts wakes after its sleep's
/// drop.
struct Probe {
    dropped: AtomicBool,
    /// Nanoseconds since `base` plus one at the first wake; 0: never woken.
    woken: AtomicU64,
    base: StdInstant,
    stats: Arc<Stats>,
}

impl Probe {
    fn was_woken(&self) -> bool {
        self.woken.load(SeqCst) != 0
    }
}

impl Wake for Probe {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.dropped.load(SeqCst) {
            self.stats.after_drop.fetch_add(1, SeqCst);
        }
        self.stats.wakes.fetch_add(1, SeqCst);
        let t = self.base.elapsed().as_nanos() as u64 + 1;
        let _ = self.woken.compare_exchange(0, t, SeqCst, SeqCst);
    }
}

fn probe(stats: &Arc<Stats>, base: StdInstant) -> (Arc<Probe>, Waker) {
    let p = Arc::new(Probe {
        dropped: AtomicBool::new(false),
        woken: AtomicU64::new(0),
        base,
        stats: stats.clone(),
    });
    (p.clone(), Waker::from(p))
}

/// A sleep and the probe of the waker it was last polled with.
struct Item {
    sleep: Pin<Box<Sleep>>,
    probe: Arc<Probe>,
    waker: Waker,
    /// Whether `sleep`'s last poll, with `probe`'s waker, was pending for
    /// its current deadline: then that waker must be called.
    registered: bool,
}

/// Polls the item's sleep with its waker; a sleep that completes must be
/// past its deadline.
fn poll_item(item: &mut Item, stats: &Stats) {
    let mut cx = Context::from_waker(&item.waker);
    match item.sleep.as_mut().poll(&mut cx) {
        Poll::Ready(()) => {
            let now = Instant::now();
            if now < item.sleep.deadline() {
                stats.early.fetch_add(1, SeqCst);
                eprintln!("a sleep completed {:?} early", item.sleep.deadline() - now);
            }
            item.registered = false;
        }
        Poll::Pending => item.registered = true,
    }
}

/// Gives the item a fresh probe (registered at its next poll).
fn new_probe_for(item: &mut Item, stats: &Arc<Stats>, base: StdInstant) {
    let (p, w) = probe(stats, base);
    item.probe = p;
    item.waker = w;
    item.registered = false;
}

/// Drops the item's sleep; from then on its probe must not be woken.
fn drop_item(item: Item) {
    let probe = item.probe.clone();
    drop(item.sleep);
    probe.dropped.store(true, SeqCst);
}

/// Counts the item as lost if it is registered, [`LOST_AFTER`] past its
/// deadline and its probe was never woken.
fn check_lost(item: &Item, stats: &Stats) {
    if !item.registered {
        return;
    }
    let deadline = item.sleep.deadline().into_std();
    let now = StdInstant::now();
    if now > deadline + LOST_AFTER {
        stats.checked.fetch_add(1, SeqCst);
        if !item.probe.was_woken() {
            stats.lost.fetch_add(1, SeqCst);
            eprintln!(
                "lost: a registered sleep not woken {:?} after its deadline",
                now - deadline
            );
        }
    }
}

/// Waits until every registered item's probe has been woken, or until
/// [`LOST_AFTER`] past the latest deadline; then counts the unwoken as lost.
fn check_none_lost<'a>(items: impl IntoIterator<Item = &'a Item>, stats: &Stats) {
    let registered: Vec<&Item> = items.into_iter().filter(|i| i.registered).collect();
    let Some(latest) = registered
        .iter()
        .map(|i| i.sleep.deadline().into_std())
        .max()
    else {
        return;
    };
    let give_up = latest + LOST_AFTER + Duration::from_millis(1);
    while registered.iter().any(|i| !i.probe.was_woken()) && StdInstant::now() <= give_up {
        thread::sleep(Duration::from_millis(5));
    }
    for item in registered {
        stats.checked.fetch_add(1, SeqCst);
        if !item.probe.was_woken() {
            stats.lost.fetch_add(1, SeqCst);
            eprintln!(
                "lost: a registered sleep not woken {:?} after its deadline",
                StdInstant::now() - item.sleep.deadline().into_std()
            );
        }
    }
}

/// A deadline from now to 300 ms away, most within 2 ms.
fn random_deadline(rng: &mut Rng) -> Instant {
    let us = match rng.below(10) {
        0 => 0,
        1..=5 => rng.below(2_000),
        6..=7 => rng.below(20_000),
        8 => 45_000 + rng.below(20_000),
        _ => 100_000 + rng.below(200_000),
    };
    Instant::now() + Duration::from_micros(us)
}

/// Rounds of four short-lived threads in a ring: each makes sleeps (most
/// polled, so registered on its own shard), takes those the previous
/// thread sent, and at random polls them (often with a new waker), resets
/// them, drops them or sends them on, then exits, sending or dropping what
/// it holds. Sleeps thus outlive the thread whose shard holds them, and
/// are re-registered, reset and dropped from other threads. None
/// completes early, none registered is lost, and no waker is called after
/// its sleep's drop returned.
#[test]
fn sleeps_handed_between_exiting_threads_complete_none_early_lose_none_and_wake_none_after_drop() {
    let stats = Arc::new(Stats::default());
    let base = StdInstant::now();
    let (rounds, workers) = (40, 4);
    // A time budget too, so a slow machine runs fewer rounds.
    let budget = StdInstant::now() + Duration::from_millis(2_500);
    let (txs, rxs): (Vec<_>, Vec<_>) = (0..workers).map(|_| mpsc::channel::<Item>()).unzip();
    let rxs: Vec<_> = rxs.into_iter().map(|r| Arc::new(Mutex::new(r))).collect();
    for round in 0..rounds {
        let mut handles = Vec::new();
        for w in 0..workers {
            let tx = txs[(w + 1) % workers].clone();
            let rx = rxs[w].clone();
            let stats = stats.clone();
            handles.push(thread::spawn(move || {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((round * 131 + w) as u64 + 1));
                let rx = rx.lock().unwrap();
                let mut mine: Vec<Item> = rx.try_iter().collect();
                for _ in 0..200 {
                    let d = random_deadline(&mut rng);
                    let (probe, waker) = probe(&stats, base);
                    let sleep = if rng.below(2) == 0 {
                        Box::pin(sleep_until(d))
                    } else {
                        Box::pin(sleep(d.saturating_duration_since(Instant::now())))
                    };
                    let mut item = Item {
                        sleep,
                        probe,
                        waker,
                        registered: false,
                    };
                    if rng.below(4) != 0 {
                        poll_item(&mut item, &stats);
                    }
                    mine.push(item);
                }
                for _ in 0..2_000 {
                    if mine.is_empty() {
                        break;
                    }
                    let i = rng.below(mine.len() as u64) as usize;
                    check_lost(&mine[i], &stats);
                    match rng.below(12) {
                        0..=3 => {
                            if rng.below(3) == 0 {
                                new_probe_for(&mut mine[i], &stats, base);
                            }
                            poll_item(&mut mine[i], &stats);
                        }
                        4..=5 => {
                            let d = match rng.below(5) {
                                0 => mine[i].sleep.deadline(),
                                1 => Instant::now(),
                                _ => random_deadline(&mut rng),
                            };
                            mine[i].sleep.as_mut().reset(d);
                            mine[i].registered = false;
                            if rng.below(3) != 0 {
                                new_probe_for(&mut mine[i], &stats, base);
                                poll_item(&mut mine[i], &stats);
                            }
                        }
                        6..=7 => drop_item(mine.swap_remove(i)),
                        8 => thread::sleep(Duration::from_micros(rng.below(300))),
                        _ => {
                            let _ = tx.send(mine.swap_remove(i));
                        }
                    }
                }
                for item in mine {
                    if rng.below(2) == 0 {
                        let _ = tx.send(item);
                    } else {
                        drop_item(item);
                    }
                }
            }));
        }
        for h in handles {
            h.join().unwrap();
        }
        if StdInstant::now() > budget {
            break;
        }
    }
    // What is left was registered on shards of threads that have exited.
    let left: Vec<Item> = rxs
        .iter()
        .flat_map(|rx| rx.lock().unwrap().try_iter().collect::<Vec<_>>())
        .collect();
    check_none_lost(&left, &stats);
    left.into_iter().for_each(drop_item);
    stats.assert_clean("sleeps handed between exiting threads");
}

/// In a fresh process: after a mixed load (2,000 tokio tasks sleeping,
/// resetting and racing timeouts on two workers, then eight threads that
/// each sleep, cancel and finally leave a 5 s sleep cancelled, and exit),
/// once nothing is pending the timer thread has no wake-ups.
#[cfg(target_os = "linux")]
#[test]
fn an_idle_process_has_no_timer_wake_ups_after_a_mixed_load_on_tokio_and_exiting_threads() {
    if !common::isolated(
        "an_idle_process_has_no_timer_wake_ups_after_a_mixed_load_on_tokio_and_exiting_threads",
    ) {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut tasks = Vec::new();
        for i in 0..2000u64 {
            tasks.push(tokio::spawn(async move {
                let mut s = Box::pin(sleep(Duration::from_micros(500 + i % 1500)));
                if i % 3 == 0 {
                    s.as_mut().reset(Instant::now() + Duration::from_millis(50));
                }
                if i % 5 == 0 {
                    let _ = lawn_rt::time::timeout(Duration::from_micros(300), &mut s).await;
                } else {
                    s.await;
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
    drop(rt);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            thread::spawn(|| {
                for i in 0..200u64 {
                    let mut s = Box::pin(sleep(Duration::from_micros(100 + i * 7)));
                    let _ = common::poll_noop(s.as_mut());
                    if i % 2 == 0 {
                        futures::executor::block_on(s);
                    }
                }
                // A long one, registered and cancelled.
                let mut s = Box::pin(sleep(Duration::from_secs(5)));
                let _ = common::poll_noop(s.as_mut());
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_timer_thread_idle(Duration::from_millis(50), Duration::from_millis(300));
}

/// Three threads keep registering sleeps (so they fire due timers of their
/// shards themselves, as the timer thread fires the rest) whose wakers
/// re-enter the driver: when woken, a waker drops a random sleep of a
/// shared pool, or makes and registers a new one on the waking thread's
/// shard and pools it, or now and then panics. None completes early, none
/// registered is lost, and no waker is called after its sleep's drop
/// returned.
#[test]
fn wakers_that_drop_register_or_panic_when_woken_lose_no_sleep_and_wake_none_early_or_after_drop() {
    struct Pool {
        items: Mutex<Vec<Option<Item>>>,
        stats: Arc<Stats>,
        base: StdInstant,
        seed: AtomicU64,
    }
    struct Reenter {
        pool: Arc<Pool>,
        inner: Arc<Probe>,
        kind: u64,
    }
    impl Wake for Reenter {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref()
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.inner.wake_by_ref();
            let pool = &self.pool;
            let mut rng = Rng(pool.seed.fetch_add(0x9E37_79B9, SeqCst) | 1);
            match self.kind {
                0 => {
                    // Drop a random pooled sleep (perhaps this one's own).
                    let taken = {
                        let mut items = pool.items.lock().unwrap();
                        let n = items.len() as u64;
                        if n == 0 {
                            None
                        } else {
                            items[rng.below(n) as usize].take()
                        }
                    };
                    if let Some(item) = taken {
                        drop_item(item);
                    }
                }
                1 => {
                    // Register a new sleep here, and pool it.
                    let mut item = reentrant_item(pool, &mut rng, 3_000);
                    poll_item(&mut item, &pool.stats);
                    let mut items = pool.items.lock().unwrap();
                    if items.len() < 5_000 {
                        items.push(Some(item));
                    } else {
                        drop(items);
                        drop_item(item);
                    }
                }
                _ => {
                    if rng.below(50) == 0 {
                        panic!("a waker that panics {EXPECTED}");
                    }
                }
            }
        }
    }
    /// A sleep due within `max_us` whose waker re-enters.
    fn reentrant_item(pool: &Arc<Pool>, rng: &mut Rng, max_us: u64) -> Item {
        let deadline = Instant::now() + Duration::from_micros(rng.below(max_us));
        let (probe, _) = probe(&pool.stats, pool.base);
        let waker = Waker::from(Arc::new(Reenter {
            pool: pool.clone(),
            inner: probe.clone(),
            kind: rng.below(3),
        }));
        Item {
            sleep: Box::pin(sleep_until(deadline)),
            probe,
            waker,
            registered: false,
        }
    }

    quiet_expected_panics();
    let stats = Arc::new(Stats::default());
    let pool = Arc::new(Pool {
        items: Mutex::new(Vec::new()),
        stats: stats.clone(),
        base: StdInstant::now(),
        seed: AtomicU64::new(12345),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..3u64)
        .map(|t| {
            let (pool, stop, stats) = (pool.clone(), stop.clone(), stats.clone());
            thread::spawn(move || {
                let mut rng = Rng(t * 7919 + 17);
                let mut n = 0u64;
                while !stop.load(SeqCst) {
                    n += 1;
                    let mut item = reentrant_item(&pool, &mut rng, 2_000);
                    poll_item(&mut item, &stats);
                    if rng.below(10) < 6 {
                        let mut items = pool.items.lock().unwrap();
                        if items.len() < 5_000 {
                            items.push(Some(item));
                            continue;
                        }
                    }
                    drop_item(item);
                    if n % 64 == 0 {
                        // Take some pooled sleeps: check, re-poll, drop or
                        // pool them again.
                        let taken: Vec<Item> = {
                            let mut items = pool.items.lock().unwrap();
                            items.retain(Option::is_some);
                            let k = items.len().min(32);
                            (0..k)
                                .filter_map(|_| {
                                    let j = rng.below(items.len() as u64) as usize;
                                    items.swap_remove(j)
                                })
                                .collect()
                        };
                        for mut item in taken {
                            check_lost(&item, &stats);
                            poll_item(&mut item, &stats);
                            if rng.below(2) == 0 {
                                drop_item(item);
                            } else {
                                pool.items.lock().unwrap().push(Some(item));
                            }
                        }
                        thread::sleep(Duration::from_micros(200));
                    }
                }
            })
        })
        .collect();
    thread::sleep(Duration::from_secs(2));
    stop.store(true, SeqCst);
    for t in threads {
        t.join().unwrap();
    }
    // Wakers may still pool new sleeps while the last ones fire: wait for
    // quiet (a check round that adds nothing), then check.
    let mut items = Vec::new();
    loop {
        let more: Vec<Item> = std::mem::take(&mut *pool.items.lock().unwrap())
            .into_iter()
            .flatten()
            .collect();
        if more.is_empty() && !items.is_empty() {
            break;
        }
        check_none_lost(&more, &stats);
        items.extend(more);
        if items.is_empty() {
            break;
        }
    }
    items.into_iter().for_each(drop_item);
    stats.assert_clean("re-entrant wakers");
}

/// 10,000 tasks on tokio's multi-thread runtime (three workers, blocking
/// threads that exit after 1 ms idle), each resetting its sleep, yielding
/// (and so moving between workers), racing `timeout_at` and tokio's
/// `timeout`, and sleeping on `spawn_blocking` threads: every sleep and
/// timeout completes, none before its deadline.
#[test]
fn a_mixed_tokio_load_of_resets_timeouts_and_blocking_threads_loses_no_sleep_and_fires_none_early()
{
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(3)
        .max_blocking_threads(4)
        .thread_keep_alive(Duration::from_millis(1))
        .enable_all()
        .build()
        .unwrap();
    let early = Arc::new(AtomicUsize::new(0));
    rt.block_on(async {
        let mut tasks = Vec::new();
        for i in 0..10_000u64 {
            let early = early.clone();
            tasks.push(tokio::spawn(async move {
                let mut rng = Rng(i * 2_654_435_761 + 1);
                let mut s = Box::pin(sleep(Duration::from_micros(rng.below(3_000))));
                for _ in 0..6 {
                    match rng.below(6) {
                        0 => {
                            let d = Instant::now() + Duration::from_micros(rng.below(3_000));
                            s.as_mut().reset(d);
                        }
                        1 => tokio::task::yield_now().await,
                        2 => {
                            let d = Instant::now() + Duration::from_micros(rng.below(2_000));
                            let r =
                                lawn_rt::time::timeout_at(d, std::future::pending::<()>()).await;
                            assert!(r.is_err());
                            if Instant::now() < d {
                                early.fetch_add(1, SeqCst);
                            }
                        }
                        3 => {
                            let d = Instant::now() + Duration::from_micros(rng.below(2_000));
                            let on_time = tokio::task::spawn_blocking(move || {
                                futures::executor::block_on(sleep_until(d));
                                Instant::now() >= d
                            })
                            .await
                            .unwrap();
                            if !on_time {
                                early.fetch_add(1, SeqCst);
                            }
                        }
                        _ => {
                            let d = s.deadline();
                            let limit = Duration::from_micros(rng.below(1_500));
                            let _ = tokio::time::timeout(limit, &mut s).await;
                            if s.is_elapsed() && Instant::now() < d {
                                early.fetch_add(1, SeqCst);
                            }
                        }
                    }
                }
                let d = s.deadline();
                s.as_mut().await;
                if Instant::now() < d {
                    early.fetch_add(1, SeqCst);
                }
            }));
        }
        for t in tasks {
            tokio::time::timeout(Duration::from_secs(10), t)
                .await
                .expect("a task's sleep was lost")
                .unwrap();
        }
    });
    assert_eq!(early.load(SeqCst), 0, "sleeps or timeouts completed early");
}

/// One batch of 22 sleeps due at the same tick on this thread's shard,
/// fired by the timer thread: the first one's waker drops the second
/// sleep, whose waker the batch then drops instead of calling, and that
/// drop panics. The other 20 are still woken (they were handed out and
/// never woken while that drop's panic unwound through the batch loop).
#[test]
fn a_cancelled_waker_that_panics_when_dropped_does_not_lose_the_rest_of_its_batch() {
    // Far enough ahead that the 22 register before it on a loaded machine;
    // near enough that the shard files them in its near window, in one
    // FIFO in start order (which spans about 130 ms at this TTL's slack).
    const LEAD_MS: u64 = 100;
    static ARMED: AtomicBool = AtomicBool::new(false);
    struct PanicsOnDrop;
    impl Wake for PanicsOnDrop {
        fn wake(self: Arc<Self>) {}
    }
    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            if ARMED.load(SeqCst) && !thread::panicking() {
                panic!("a waker whose drop panics {EXPECTED}");
            }
        }
    }
    struct Dropper(Arc<Mutex<Option<Pin<Box<Sleep>>>>>);
    impl Wake for Dropper {
        fn wake(self: Arc<Self>) {
            let s = self.0.lock().unwrap().take();
            drop(s);
        }
    }

    quiet_expected_panics();
    let stats = Arc::new(Stats::default());
    let base = StdInstant::now();
    let lead = Duration::from_millis(LEAD_MS);
    let deadline = Instant::now() + lead;
    let victim: Arc<Mutex<Option<Pin<Box<Sleep>>>>> = Arc::new(Mutex::new(None));

    let mut first = Box::pin(sleep_until(deadline));
    let waker = Waker::from(Arc::new(Dropper(victim.clone())));
    assert!(common::poll_with(first.as_mut(), &waker).is_pending());
    drop(waker);

    let mut second = Box::pin(sleep_until(deadline));
    let waker = Waker::from(Arc::new(PanicsOnDrop));
    assert!(common::poll_with(second.as_mut(), &waker).is_pending());
    drop(waker);
    ARMED.store(true, SeqCst);
    *victim.lock().unwrap() = Some(second);

    let rest: Vec<_> = (0..20)
        .map(|_| {
            let (probe, waker) = probe(&stats, base);
            let mut s = Box::pin(sleep_until(deadline));
            assert!(
                common::poll_with(s.as_mut(), &waker).is_pending(),
                "registering took longer than {lead:?}"
            );
            (s, probe)
        })
        .collect();
    // This thread stays quiet: the timer thread fires the batch.
    let give_up = deadline.into_std() + LOST_AFTER;
    while rest.iter().any(|(_, p)| !p.was_woken()) && StdInstant::now() < give_up {
        thread::sleep(Duration::from_millis(5));
    }
    let woken = rest.iter().filter(|(_, p)| p.was_woken()).count();
    let handed_out = rest.iter().filter(|(s, _)| s.is_elapsed()).count();
    assert!(
        victim.lock().unwrap().is_none(),
        "the first waker was not called"
    );
    ARMED.store(false, SeqCst);
    drop(first);
    assert_eq!(
        woken,
        rest.len(),
        "of the rest of the batch, {} were not woken ({handed_out} handed out)",
        rest.len() - woken
    );
}
