//! Criterion benchmarks: `lawn_rt::time` against `tokio::time`, side by side.
//!
//! Every group has a `lawn_rt` and a `tokio` function id with the same
//! parameter, so the report puts them next to each other. Futures are polled
//! by hand (a no-op or counting waker); tokio's side always runs inside its
//! runtime's `block_on` under `tokio::task::unconstrained`, since its
//! cooperative budget otherwise makes `Sleep` skip registration after 128
//! polls in one task poll, which would flatter it.
//!
//! Groups (ids are `{group}/{side}/{parameter}`):
//!
//! * `churn/{warm,cold}`: `timeout(5 s, pending())` polled once (it
//!   registers) and dropped (it deregisters): the request-timeout pattern.
//! * `reset/{warm,cold}`: one registered sleep, `reset(Instant::now() + 5 s)`
//!   and polled once per iteration: the idle-timeout pattern;
//!   `reset/moving`: the same, every other deadline 1 ms further off, so
//!   that each reset moves the timer to another tick; `reset/later`: each
//!   deadline 1 ms further off than the one before (an idle timeout pushed
//!   back by reads a tick or more apart).
//! * `repoll/warm`: one registered sleep polled again by the same task (a
//!   `select!` loop, a `Timeout` around a busy future): no reset, no clock.
//! * `register_drop/{fixed10,uniform}`: 1,000,000 sleeps created and polled
//!   once each, then all dropped; durations cycle through 1..=10 ms
//!   (`fixed10`) or are uniform in 1 ms..1 h (`uniform`, one pre-drawn list
//!   used by both sides). Reported per timer (`Throughput::Elements`).
//! * `fire/fixed10`: 1,000,000 sleeps of 1..=10 ms on a paused clock,
//!   created and polled once, the clock advanced 10 ms in 1 ms steps (each
//!   step turns the driver), every sleep polled again (all must be ready and
//!   the counting waker must have been woken once per sleep), then dropped.
//!   Per timer.
//!
//! * `floor` (in `churn/warm` and the `register_drop` groups): what any
//!   design that files its timers in a Lawn pays at least, timed as the
//!   lawn_rt side's work is: the clock read (which `sleep` and `timeout`
//!   must make) and a bare `Lawn`'s insert and remove, in the bench
//!   driver's 1 ms ticks, with no driver, lock, handle or `Sleep`. In
//!   `register_drop` each key is kept in a box of its own, as each sleep
//!   is. A target ratio over tokio that needs lawn_rt below its floor is
//!   out of reach for that design.
//!
//! "warm" is a server's steady state: an earlier timer is pending (1 s for
//! `churn` and `reset`, where everything registered is due in 5 s) and the
//! driver has turned once since it registered. "cold": no other timer. The
//! 1e6 groups run warm with a 1 h background timer, so nothing but the
//! timers under test comes due; for tokio's `register_drop` a second timer
//! (50 ms) is pending when its driver turns, so the deadline it parks on is
//! not after the timers under test, as under steady load (tokio unparks its
//! driver on every registration due earlier than that deadline; lawn_rt's
//! driver only when it is parked, which these benches never do).
//!
//! The 1e6 groups keep their sleeps in boxes allocated once, outside the
//! timed region (`Pin<Box<Option<Sleep>>>`, set to `Some(sleep)` and back to
//! `None`), so the figures are the timers' cost, not the allocator's.
//!
//! tokio's runtimes are built with `enable_all()`, like a server's (the
//! dev-dependency has tokio's `net` feature, so that includes the I/O
//! driver): tokio unparks its driver by writing an `eventfd` on every
//! registration due before the deadline it parks on, which is what a
//! server pays. That shows in `churn/cold` and in tokio's `fire`, whose
//! timers are due before the 1 h background timer it parks on.
//!
//! `fire` runs last: once a paused tokio runtime exists, every
//! `tokio::time::Instant::now()` in the process looks the runtime up
//! (tokio's `test-util`), which would slow down tokio's other benches.
//!
//! Run time: about 70 s on 2 cores. `python3 scripts/time_report.py`
//! prints the table of ratios afterwards. Without `--bench`
//! (`cargo test --benches`) the 1e6 groups run with 10,000 timers, once, as
//! a smoke test.

use std::future::{pending, Future};
use std::hint::black_box;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant as StdInstant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use lawn_rt::driver::Driver;
use tokio::runtime::Runtime;
use tokio::task::unconstrained;

#[path = "support/durations.rs"]
mod durations;
use durations::{fixed_durations, uniform_durations};

/// Timers in the 1e6 groups.
const MANY: usize = 1_000_000;
/// The same, in a smoke run.
const MANY_SMOKE: usize = 10_000;
/// The request timeout of `churn` and how far `reset` pushes its sleep.
const AHEAD: Duration = Duration::from_secs(5);
/// The earlier timer pending in `churn` and `reset` when warm.
const BACKGROUND_SHORT: Duration = Duration::from_secs(1);
/// The timer pending in the 1e6 groups: never due during a run.
const BACKGROUND_LONG: Duration = Duration::from_secs(3600);
/// See [`TokioSide::new`].
const ANCHOR: Duration = Duration::from_millis(50);
/// One turn of the clock in `fire`; ten of them reach every deadline.
const STEP: Duration = Duration::from_millis(1);
const STEPS: u32 = 10;
/// Whether another timer is pending (see the module docs).
#[derive(Clone, Copy)]
enum Warmth {
    Warm,
    Cold,
}

impl Warmth {
    fn name(self) -> &'static str {
        match self {
            Warmth::Warm => "warm",
            Warmth::Cold => "cold",
        }
    }
}

/// A sleep in a box allocated once: `Some` while under test.
type Slot<S> = Pin<Box<Option<S>>>;

fn slots<S>(n: usize) -> Vec<Slot<S>> {
    (0..n).map(|_| Box::pin(None)).collect()
}

/// Polls a slot's sleep once; `true` if it is ready.
#[inline]
fn poll_slot<S: Future<Output = ()>>(slot: &mut Slot<S>, cx: &mut Context<'_>) -> bool {
    let sleep = slot.as_mut().as_pin_mut().expect("slot holds a sleep");
    sleep.poll(cx).is_ready()
}

/// Fills every slot with `make(duration)` and polls it once (it registers);
/// returns how many were already ready (expected: none).
#[inline]
fn register_all<S: Future<Output = ()>>(
    slots: &mut [Slot<S>],
    durations: &[Duration],
    make: impl Fn(Duration) -> S,
    cx: &mut Context<'_>,
) -> usize {
    let mut ready = 0;
    for (slot, &d) in slots.iter_mut().zip(durations) {
        slot.as_mut().set(Some(make(d)));
        ready += usize::from(poll_slot(slot, cx));
    }
    ready
}

/// Polls every slot once more; returns how many are ready.
#[inline]
fn poll_all<S: Future<Output = ()>>(slots: &mut [Slot<S>], cx: &mut Context<'_>) -> usize {
    slots
        .iter_mut()
        .map(|slot| usize::from(poll_slot(slot, cx)))
        .sum()
}

#[inline]
fn drop_all<S>(slots: &mut [Slot<S>]) {
    for slot in slots {
        slot.as_mut().set(None);
    }
}

/// A waker that counts its wakes.
#[derive(Default)]
struct WakeCounter(AtomicUsize);

impl WakeCounter {
    fn take(&self) -> usize {
        self.0.swap(0, Ordering::Relaxed)
    }
}

impl Wake for WakeCounter {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

// ---- lawn_rt's side ----

/// A driver (paused or not) with, when warm, a background timer registered
/// and the driver turned once since.
struct LawnSide {
    background: Option<Pin<Box<lawn_rt::time::Sleep>>>,
    driver: Driver,
}

impl LawnSide {
    fn new(warmth: Warmth, background: Duration, paused: bool) -> LawnSide {
        let driver = Driver::new();
        if paused {
            driver.pause();
        }
        let background = match warmth {
            Warmth::Cold => None,
            Warmth::Warm => {
                let _entered = driver.handle().enter();
                let mut sleep = Box::pin(lawn_rt::time::sleep(background));
                let mut cx = Context::from_waker(Waker::noop());
                assert!(sleep.as_mut().poll(&mut cx).is_pending());
                if paused {
                    assert_eq!(driver.advance(STEP), 0);
                } else {
                    assert_eq!(driver.process(), 0);
                }
                Some(sleep)
            }
        };
        assert_eq!(
            driver.handle().pending_timers(),
            usize::from(background.is_some())
        );
        LawnSide { background, driver }
    }

    /// Checks that the background timer is still pending.
    fn check(&self) {
        if let Some(sleep) = &self.background {
            assert!(!sleep.is_elapsed(), "lawn_rt: the background timer fired");
        }
    }
}

// ---- tokio's side ----

/// A current-thread runtime (paused or not) with what a server enables
/// (`enable_all`: the I/O driver too, if tokio's `net` feature is on) and,
/// when warm, background timers registered and the driver turned once since.
struct TokioSide {
    background: Vec<Pin<Box<tokio::time::Sleep>>>,
    rt: Runtime,
}

impl TokioSide {
    /// `background`: the pending timer's duration. With `anchored`, a second
    /// one, due in [`ANCHOR`], is pending when the driver turns, so that the
    /// deadline tokio parks on (which a registration due earlier must unpark)
    /// is soon, and past once the bench runs, as under steady load; it never
    /// fires, as the driver does not turn again.
    fn new(warmth: Warmth, background: Duration, anchored: bool, paused: bool) -> TokioSide {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(paused)
            .build()
            .expect("tokio runtime");
        let durations: &[Duration] = match (warmth, anchored) {
            (Warmth::Cold, _) => &[],
            (Warmth::Warm, false) => &[background],
            (Warmth::Warm, true) => &[background, ANCHOR],
        };
        let mut background: Vec<_> = {
            let _entered = rt.enter();
            durations
                .iter()
                .map(|&d| Box::pin(tokio::time::sleep(d)))
                .collect()
        };
        if !background.is_empty() {
            rt.block_on(async {
                std::future::poll_fn(|cx| {
                    for sleep in &mut background {
                        assert!(sleep.as_mut().poll(cx).is_pending());
                    }
                    Poll::Ready(())
                })
                .await;
                // One turn of the driver (it parks on the earliest of them).
                tokio::time::sleep(STEP).await;
            });
        }
        let side = TokioSide { background, rt };
        side.check();
        side
    }

    /// Checks that the background timers are still pending.
    fn check(&self) {
        for sleep in &self.background {
            assert!(!sleep.is_elapsed(), "tokio: a background timer fired");
        }
    }
}

// ---- the groups ----

fn churn(c: &mut Criterion) {
    let mut g = c.benchmark_group("churn");
    for warmth in [Warmth::Warm, Warmth::Cold] {
        g.bench_function(BenchmarkId::new("lawn_rt", warmth.name()), |b| {
            let side = LawnSide::new(warmth, BACKGROUND_SHORT, false);
            let _entered = side.driver.handle().enter();
            let mut cx = Context::from_waker(Waker::noop());
            b.iter(|| {
                let timeout = lawn_rt::time::timeout(AHEAD, pending::<()>());
                let mut timeout = pin!(timeout);
                black_box(timeout.as_mut().poll(&mut cx))
            });
            side.check();
            assert_eq!(
                side.driver.handle().pending_timers(),
                usize::from(side.background.is_some())
            );
        });
        if let Warmth::Warm = warmth {
            g.bench_function(BenchmarkId::new("floor", warmth.name()), |b| {
                // What any design filing timers in a Lawn pays at least (see
                // the module docs): the clock read and a bare Lawn's insert
                // and remove, in the bench driver's 1 ms ticks.
                let origin = StdInstant::now();
                let mut lawn = lawn_rt::lawn::Lawn::new();
                let _background = lawn.insert(0, ms(BACKGROUND_SHORT), Waker::noop().clone());
                b.iter(|| {
                    let now = ms(black_box(StdInstant::now()).duration_since(origin));
                    let key = lawn.insert(now, ms(AHEAD), Waker::noop().clone());
                    black_box(lawn.remove(key))
                });
            });
        }
        g.bench_function(BenchmarkId::new("tokio", warmth.name()), |b| {
            let side = TokioSide::new(warmth, BACKGROUND_SHORT, false, false);
            side.rt.block_on(unconstrained(async {
                let mut cx = Context::from_waker(Waker::noop());
                b.iter(|| {
                    let timeout = tokio::time::timeout(AHEAD, pending::<()>());
                    let mut timeout = pin!(timeout);
                    black_box(timeout.as_mut().poll(&mut cx))
                });
            }));
            side.check();
        });
    }
    g.finish();
}

fn reset(c: &mut Criterion) {
    let mut g = c.benchmark_group("reset");
    // `moving`: as `warm`, but every other reset is 1 ms further off, so
    // each one moves the timer to another tick on both sides (on the
    // bench's 1 ms tick, resets within one ms otherwise stay in their
    // tick; in a runtime, on its 1 µs tick, resets a few µs apart move).
    // `later`: every reset 1 ms further off than the one before, the idle
    // timeout of a connection read from at least a tick apart: each moves
    // the timer to a later tick.
    for (warmth, name, extra_ms) in [
        (Warmth::Warm, "warm", (|_| 0) as fn(u32) -> u32),
        (Warmth::Cold, "cold", |_| 0),
        (Warmth::Warm, "moving", |i| i % 2),
        (Warmth::Warm, "later", |i| i),
    ] {
        let step = move |i: &mut u32| {
            *i = i.wrapping_add(1);
            AHEAD + Duration::from_millis(u64::from(extra_ms(*i)))
        };
        g.bench_function(BenchmarkId::new("lawn_rt", name), |b| {
            let side = LawnSide::new(warmth, BACKGROUND_SHORT, false);
            let _entered = side.driver.handle().enter();
            let mut cx = Context::from_waker(Waker::noop());
            let mut sleep = pin!(lawn_rt::time::sleep(AHEAD));
            assert!(sleep.as_mut().poll(&mut cx).is_pending());
            let mut i = 0;
            b.iter(|| {
                let deadline = lawn_rt::time::Instant::now() + step(&mut i);
                sleep.as_mut().reset(deadline);
                black_box(sleep.as_mut().poll(&mut cx))
            });
            side.check();
            assert!(!sleep.is_elapsed());
        });
        g.bench_function(BenchmarkId::new("tokio", name), |b| {
            let side = TokioSide::new(warmth, BACKGROUND_SHORT, false, false);
            side.rt.block_on(unconstrained(async {
                let mut cx = Context::from_waker(Waker::noop());
                let mut sleep = pin!(tokio::time::sleep(AHEAD));
                assert!(sleep.as_mut().poll(&mut cx).is_pending());
                let mut i = 0;
                b.iter(|| {
                    let deadline = tokio::time::Instant::now() + step(&mut i);
                    sleep.as_mut().reset(deadline);
                    black_box(sleep.as_mut().poll(&mut cx))
                });
                assert!(!sleep.is_elapsed());
            }));
            side.check();
        });
    }
    g.finish();
}

fn repoll(c: &mut Criterion) {
    let mut g = c.benchmark_group("repoll");
    g.bench_function(BenchmarkId::new("lawn_rt", "warm"), |b| {
        let side = LawnSide::new(Warmth::Warm, BACKGROUND_SHORT, false);
        let _entered = side.driver.handle().enter();
        let mut cx = Context::from_waker(Waker::noop());
        let mut sleep = pin!(lawn_rt::time::sleep(AHEAD));
        assert!(sleep.as_mut().poll(&mut cx).is_pending());
        b.iter(|| black_box(sleep.as_mut().poll(&mut cx)));
        side.check();
        assert!(!sleep.is_elapsed());
    });
    g.bench_function(BenchmarkId::new("tokio", "warm"), |b| {
        let side = TokioSide::new(Warmth::Warm, BACKGROUND_SHORT, false, false);
        side.rt.block_on(unconstrained(async {
            let mut cx = Context::from_waker(Waker::noop());
            let mut sleep = pin!(tokio::time::sleep(AHEAD));
            assert!(sleep.as_mut().poll(&mut cx).is_pending());
            b.iter(|| black_box(sleep.as_mut().poll(&mut cx)));
            assert!(!sleep.is_elapsed());
        }));
        side.check();
    });
    g.finish();
}

/// One `register_drop` run: registers every sleep, drops them all; returns
/// the time taken. Panics if any sleep was ready at once.
fn register_drop_once<S: Future<Output = ()>>(
    slots: &mut [Slot<S>],
    durations: &[Duration],
    make: impl Fn(Duration) -> S,
    cx: &mut Context<'_>,
) -> Duration {
    let start = StdInstant::now();
    let ready = register_all(slots, durations, make, cx);
    drop_all(slots);
    let elapsed = start.elapsed();
    assert_eq!(ready, 0, "a sleep was ready on its first poll");
    elapsed
}

fn register_drop(c: &mut Criterion, n: usize) {
    let workloads = [
        ("fixed10", fixed_durations(n)),
        ("uniform", uniform_durations(n)),
    ];
    for (name, durations) in &workloads {
        let mut g = heavy_group(c, &format!("register_drop/{name}"), n);
        g.bench_function(BenchmarkId::new("lawn_rt", n), |b| {
            let side = LawnSide::new(Warmth::Warm, BACKGROUND_LONG, false);
            let _entered = side.driver.handle().enter();
            let mut cx = Context::from_waker(Waker::noop());
            let mut slots = slots(n);
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        register_drop_once(&mut slots, durations, lawn_rt::time::sleep, &mut cx)
                    })
                    .sum()
            });
            side.check();
            assert_eq!(side.driver.handle().pending_timers(), 1);
        });
        g.bench_function(BenchmarkId::new("floor", n), |b| {
            let origin = StdInstant::now();
            let mut lawn = lawn_rt::lawn::Lawn::new();
            let _background = lawn.insert(0, ms(BACKGROUND_LONG), Waker::noop().clone());
            let mut slots: Vec<Pin<Box<Option<lawn_rt::lawn::TimerKey>>>> = slots(n);
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let start = StdInstant::now();
                        for (slot, &d) in slots.iter_mut().zip(durations) {
                            let now = ms(StdInstant::now().duration_since(origin));
                            let ttl = ms(d).max(1);
                            slot.set(Some(lawn.insert(now, ttl, Waker::noop().clone())));
                        }
                        for slot in &mut slots {
                            let key = slot.as_mut().take().expect("a key per slot");
                            black_box(lawn.remove(key).expect("a pending timer"));
                        }
                        start.elapsed()
                    })
                    .sum()
            });
            assert_eq!(lawn.len(), 1);
        });
        g.bench_function(BenchmarkId::new("tokio", n), |b| {
            let side = TokioSide::new(Warmth::Warm, BACKGROUND_LONG, true, false);
            side.rt.block_on(unconstrained(async {
                let mut cx = Context::from_waker(Waker::noop());
                let mut slots = slots(n);
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            register_drop_once(&mut slots, durations, tokio::time::sleep, &mut cx)
                        })
                        .sum()
                });
            }));
            side.check();
        });
        g.finish();
    }
}

/// What one `fire` run saw, checked outside the timed region.
struct Fired {
    early: usize,
    fired: Option<usize>,
    ready: usize,
    woken: usize,
}

impl Fired {
    fn check(&self, n: usize) {
        assert_eq!(self.early, 0, "a sleep was ready on its first poll");
        if let Some(fired) = self.fired {
            assert_eq!(fired, n, "the driver did not fire every sleep");
        }
        assert_eq!(self.ready, n, "not every sleep completed");
        assert_eq!(self.woken, n, "not every sleep's waker was woken once");
    }
}

fn fire(c: &mut Criterion, n: usize) {
    let durations = fixed_durations(n);
    let counter = Arc::new(WakeCounter::default());
    let waker = Waker::from(counter.clone());
    let mut g = heavy_group(c, "fire", n);
    g.bench_function(BenchmarkId::new("lawn_rt", n), |b| {
        let side = LawnSide::new(Warmth::Warm, BACKGROUND_LONG, true);
        let driver = &side.driver;
        let _entered = driver.handle().enter();
        let mut cx = Context::from_waker(&waker);
        let mut slots = slots(n);
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = StdInstant::now();
                let early = register_all(&mut slots, &durations, lawn_rt::time::sleep, &mut cx);
                let fired = (0..STEPS).map(|_| driver.advance(STEP)).sum();
                let ready = poll_all(&mut slots, &mut cx);
                drop_all(&mut slots);
                total += start.elapsed();
                let woken = counter.take();
                Fired {
                    early,
                    fired: Some(fired),
                    ready,
                    woken,
                }
                .check(n);
            }
            total
        });
        side.check();
    });
    g.bench_function(BenchmarkId::new("tokio", n), |b| {
        let side = TokioSide::new(Warmth::Warm, BACKGROUND_LONG, false, true);
        let mut slots = slots(n);
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // `advance` must be awaited: one `block_on` per run, timed
                // from inside.
                let (elapsed, early, ready) = side.rt.block_on(unconstrained(async {
                    let mut cx = Context::from_waker(&waker);
                    let start = StdInstant::now();
                    let early = register_all(&mut slots, &durations, tokio::time::sleep, &mut cx);
                    for _ in 0..STEPS {
                        tokio::time::advance(STEP).await;
                    }
                    let ready = poll_all(&mut slots, &mut cx);
                    drop_all(&mut slots);
                    (start.elapsed(), early, ready)
                }));
                total += elapsed;
                let woken = counter.take();
                Fired {
                    early,
                    fired: None,
                    ready,
                    woken,
                }
                .check(n);
            }
            total
        });
        side.check();
    });
    g.finish();
}

/// `d` in whole milliseconds, rounded down: the `floor` ids' ticks (the
/// bench driver's resolution).
fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// A group whose iteration handles `n` timers: few samples, flat sampling,
/// reported per timer.
fn heavy_group<'a>(c: &'a mut Criterion, name: &str, n: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(n as u64));
    g
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
    let n = if bench_mode { MANY } else { MANY_SMOKE };

    let mut c = Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();

    churn(&mut c);
    reset(&mut c);
    repoll(&mut c);
    register_drop(&mut c, n);
    // Last: it pauses a tokio clock (see the module docs).
    fire(&mut c, n);

    c.final_summary();
}
