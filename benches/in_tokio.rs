//! `lawn_rt::time` against `tokio::time` inside tokio's own runtime, and
//! `lawn_rt::time` under `futures::executor`: both sides in one run, in
//! alternating rounds (A B A B), medians and ratios.
//!
//! ```text
//! cargo bench --bench in_tokio               # 5 rounds
//! cargo bench --bench in_tokio -- --rounds 9
//! cargo bench --bench in_tokio -- --only churn   # or own, floor, reset, fire, lateness, block_on
//! cargo bench -- --test                      # every bench once, as CI does: here, 1 round
//! ```
//!
//! In a tokio multi-thread runtime with 2 workers:
//! - **churn**, 1, 2 and 8 tasks: each task wraps a future that never
//!   completes in a 10 s `timeout`, polls it once (registering the timer)
//!   and drops it (cancelling it), over and over; ns per timeout. Then the
//!   same with 1 task for two other shapes of lone timer: a 100 ms
//!   `timeout` (due soon), and `timeout_at` one deadline 10 s after the
//!   task began (a TTL that never repeats);
//! - **floor**, one task: what any timeout filed in a Lawn pays at least,
//!   in the same rounds as 1-task churn on both sides: the clock read
//!   alone; the clock read plus the waker's clone and drop plus a bare
//!   `Lawn` insert and remove of a lone timer in the foreign shard's units
//!   (no driver, lock, handle or `Sleep`); the same with the Lawn behind a
//!   mutex locked to insert and to remove and reached through an `Arc`
//!   (a shard other threads can reach); whole timeouts that do only that
//!   much (the clock read, the waker, a Lawn: the thread's own, or one
//!   behind a mutex, filed at once or as the driver files, staged until a
//!   later tick; or a plain slab behind a mutex), churned in
//!   the same harness as the 1-task churn (see `minimal`); and what 1.5x
//!   of tokio's churn would leave above each floor;
//! - **reset**, one task: an idle timeout pushed back on every read, as a
//!   connection's is: a registered 30 s `sleep` reset to `Instant::now()`
//!   plus 30 s and polled once, over and over; ns per reset (the clock
//!   read that makes the new deadline included, on both sides). Reads a
//!   server sees come microseconds apart, not the bench's ~50 ns, so the
//!   n-th deadline is n µs later still: each reset moves the timer to a
//!   later tick of lawn_rt's 1 µs clock, as a server's would;
//! - **fire**: 200,000 spawned tasks each sleeping 1–10 ms (uniform, µs),
//!   all awaited; wall time, process CPU (getrusage) and voluntary context
//!   switches;
//! - **lateness** of `sleep(1 ms)` and `sleep(200 µs)` awaited one after
//!   another in a spawned task: p50 and p99 of `now - deadline`.
//!
//! In each crate's own current-thread runtime (**own**): the warm 1-task
//! churn of a server's task, as in `churn` but with a 5 s `timeout`, a
//! 1 s timer pending and the driver turned once since (the `time` bench's
//! "warm"), and the task's own waker (a real one: its clone and drop are
//! part of what each side pays).
//!
//! Under `futures::executor::block_on` (no runtime at all; tokio's timers
//! cannot run there): lateness of the same sleeps on `lawn_rt`.
//!
//! Ratios are tokio / lawn_rt for times (above 1: lawn_rt faster) and
//! lawn_rt / tokio for lateness (below 1: lawn_rt more precise).

#[path = "support/measure.rs"]
mod measure;
use measure::{median, usage};
use std::future::Future;
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

const CHURN_OPS: u64 = 200_000;
const RESET_OPS: u64 = 2_000_000;
const FLOOR_OPS: u64 = 2_000_000;
const FIRE_TASKS: u64 = 200_000;
const LATENESS_SAMPLES: usize = 300;

fn main() {
    let mut rounds = 5;
    let mut only = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        // `cargo bench` passes `--bench`; other arguments are ignored.
        match arg.as_str() {
            "--rounds" => rounds = args.next().and_then(|r| r.parse().ok()).unwrap_or(5),
            // Criterion's smoke run, which CI asks of every bench.
            "--test" => rounds = 1,
            "--only" => only = args.next(),
            _ => {}
        }
    }
    let run = |name: &str| only.as_deref().is_none_or(|only| only == name);
    println!(
        "in_tokio: tokio multi-thread runtime, 2 workers; {rounds} rounds, A B A B, medians\n"
    );
    println!("| workload | lawn_rt | tokio | ratio |");
    println!("|---|---:|---:|---:|");
    for tasks in [1u64, 2, 8].into_iter().filter(|_| run("churn")) {
        let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            lawn.push(churn(tasks, Churner::Lawn));
            tokio.push(churn(tasks, Churner::Tokio));
        }
        row(
            &format!("timeout churn, {tasks} task(s), ns/op"),
            &lawn,
            &tokio,
            Better::Lower,
        );
    }
    for shape in [Shape::Short, Shape::At]
        .into_iter()
        .filter(|_| run("churn"))
    {
        let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            lawn.push(churn_shaped(1, Churner::Lawn, shape));
            tokio.push(churn_shaped(1, Churner::Tokio, shape));
        }
        row(
            &format!("timeout churn, 1 task, {}, ns/op", shape.name()),
            &lawn,
            &tokio,
            Better::Lower,
        );
    }
    if run("own") {
        own_runtime_rows(rounds);
    }
    if run("floor") {
        floor_rows(rounds);
    }
    if run("reset") {
        let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            lawn.push(in_a_task(|| {
                idle_resets(
                    lawn_rt::time::sleep(IDLE),
                    lawn_rt::time::Instant::now,
                    lawn_rt::time::Sleep::reset,
                )
            }));
            tokio.push(in_a_task(|| {
                idle_resets(
                    tokio::time::sleep(IDLE),
                    tokio::time::Instant::now,
                    tokio::time::Sleep::reset,
                )
            }));
        }
        row(
            "idle timeout reset on every read, 1 task, ns/op",
            &lawn,
            &tokio,
            Better::Lower,
        );
    }
    if run("fire") {
        fire_rows(rounds);
    }
    if run("lateness") {
        lateness_rows(rounds);
    }
    if run("block_on") {
        block_on_rows(rounds);
    }
}

fn floor_rows(rounds: usize) {
    // Per round: the three loop floors, the four whole-timeout floors,
    // and both sides' churn, in an order that rotates from round to round.
    const MEASURES: usize = 9;
    let mut runs: [Vec<f64>; MEASURES] = Default::default();
    for round in 0..rounds {
        for k in 0..MEASURES {
            let m = (round + k) % MEASURES;
            runs[m].push(match m {
                0..=2 => floor_in_tokio(FLOORS[m]),
                3 => churn(1, Churner::Minimal),
                4 => churn(1, Churner::Reachable),
                5 => churn(1, Churner::Deferred),
                6 => churn(1, Churner::Staged),
                7 => churn(1, Churner::Lawn),
                _ => churn(1, Churner::Tokio),
            });
        }
    }
    let [clock, bare, shared, minimal, reachable, deferred, staged, lawn, tokio] = runs;
    // What 1.5x of tokio's churn leaves above a floor, round by round.
    let left = |floor: &[f64]| median(tokio.iter().zip(floor).map(|(t, f)| t / 1.5 - f).collect());
    let (left_bare, left_shared) = (left(&bare), left(&shared));
    let (left_minimal, left_reachable) = (left(&minimal), left(&reachable));
    let (left_deferred, left_staged) = (left(&deferred), left(&staged));
    let above = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(a, b)| a - b).collect());
    let (above_bare, above_clock) = (above(&lawn, &bare), above(&tokio, &clock));
    let above_deferred = above(&lawn, &deferred);
    let budget = median(tokio.iter().map(|t| t / 1.5).collect());
    let [clock, bare, shared, minimal, reachable, deferred, staged] =
        [clock, bare, shared, minimal, reachable, deferred, staged].map(median);
    println!("| the clock read alone (both sides pay it), ns/op | {clock:.1} | {clock:.1} | |");
    println!("| floor: the clock read + the waker's clone and drop + a bare Lawn insert and remove, ns/op | {bare:.1} | | |");
    println!("| floor of a shard other threads can reach: the same Lawn behind a mutex (locked to insert and to remove) and an `Arc` clone and drop, ns/op | {shared:.1} | | |");
    println!("| floor of a whole timeout: the least one filed in a Lawn can do (a thread-local Lawn; no lock, handle, driver or slack level), churned as below, ns/op | {minimal:.1} | | |");
    println!("| floor of a whole timeout another thread could fire: the same in a shard behind a mutex, ns/op | {reachable:.1} | | |");
    println!("| the same filed as the driver files (`Lawn::insert_deferred`: staged in the Lawn, filed in a bucket only if it outlives its tick), ns/op | {deferred:.1} | | |");
    println!("| the same with a plain slab behind the mutex in place of the Lawn (no timer ever reaches a bucket), ns/op | {staged:.1} | | |");
    row("timeout churn, 1 task, ns/op", &lawn, &tokio, Better::Lower);
    println!(
        "| above the bare floor and the driver-filed whole-timeout floor (lawn_rt) / above the clock read (tokio), ns/op | {above_bare:.1} / {above_deferred:.1} | {above_clock:.1} | |"
    );
    println!(
        "| 1.5x of tokio's churn: ns/op, and what it leaves above each floor (bare / shared / whole timeout / whole, reachable / filed as the driver files / plain slab; medians of the rounds' differences) | {budget:.1}: {left_bare:.1} / {left_shared:.1} / {left_minimal:.1} / {left_reachable:.1} / {left_deferred:.1} / {left_staged:.1} | | |"
    );
}

/// What [`floor_in_tokio`] times per op.
#[derive(Clone, Copy)]
enum Floor {
    /// `Instant::now()`.
    Clock,
    /// The clock read, a waker clone, a `Lawn` insert and remove, the
    /// waker's drop.
    Bare,
    /// As `Bare`, with the Lawn behind a mutex (locked once to insert, once
    /// to remove) and reached through an `Arc` cloned and dropped each time.
    Shared,
}

const FLOORS: [Floor; 3] = [Floor::Clock, Floor::Bare, Floor::Shared];

/// A 10 s timer's unit in a foreign shard: its slack level (1 ms) counts
/// in 32 µs units (the largest power of two within a sixteenth of it).
const FLOOR_UNIT_US: u64 = 32;

/// ns per op of `floor`, in a task of a 2-worker tokio runtime: a lone
/// 10 s timer (no other pending, as in the churn, so each insert revives
/// its bucket and each remove retires it), in the units the foreign
/// shard files it in.
fn floor_in_tokio(floor: Floor) -> f64 {
    let rt = tokio_runtime();
    rt.block_on(async move {
        tokio::spawn(std::future::poll_fn(move |cx| {
            let origin = Instant::now();
            let ttl = Duration::from_secs(10).as_micros() as u64 / FLOOR_UNIT_US;
            let shard = std::sync::Arc::new(std::sync::Mutex::new(lawn_rt::lawn::Lawn::new()));
            let mut bare = lawn_rt::lawn::Lawn::new();
            let mut sum = 0u64;
            let mut once = |_: u64| {
                let now = std::hint::black_box(Instant::now());
                let unit = now.saturating_duration_since(origin).as_micros() as u64 / FLOOR_UNIT_US;
                match floor {
                    Floor::Clock => {}
                    Floor::Bare => {
                        let key = bare.insert(unit, ttl, cx.waker().clone());
                        drop(bare.remove(key));
                    }
                    Floor::Shared => {
                        let shard = std::hint::black_box(shard.clone());
                        let key = shard.lock().unwrap().insert(unit, ttl, cx.waker().clone());
                        let waker = shard.lock().unwrap().remove(key);
                        drop(waker);
                    }
                }
                sum = sum.wrapping_add(unit);
            };
            (0..1_000).for_each(&mut once);
            let start = Instant::now();
            (0..FLOOR_OPS).for_each(&mut once);
            let ns = start.elapsed().as_nanos() as f64 / FLOOR_OPS as f64;
            std::hint::black_box(sum);
            Poll::Ready(ns)
        }))
        .await
        .expect("the floor task panicked")
    })
}

fn fire_rows(rounds: usize) {
    let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        lawn.push(fire(Side::Lawn));
        tokio.push(fire(Side::Tokio));
    }
    let pick = |runs: &[Fire], f: fn(&Fire) -> f64| runs.iter().map(f).collect::<Vec<_>>();
    row(
        "fire 200k spawned sleeps, wall ms",
        &pick(&lawn, |f| f.wall_ms),
        &pick(&tokio, |f| f.wall_ms),
        Better::Lower,
    );
    row(
        "  process CPU ms",
        &pick(&lawn, |f| f.cpu_ms),
        &pick(&tokio, |f| f.cpu_ms),
        Better::Lower,
    );
    row(
        "  voluntary context switches",
        &pick(&lawn, |f| f.switches),
        &pick(&tokio, |f| f.switches),
        Better::Lower,
    );
    row(
        "  lateness p50 µs",
        &pick(&lawn, |f| f.p50_us),
        &pick(&tokio, |f| f.p50_us),
        Better::Lateness,
    );
}

const SLEEPS: [(&str, Duration); 2] = [
    ("sleep(1 ms)", Duration::from_millis(1)),
    ("sleep(200 µs)", Duration::from_micros(200)),
];

fn lateness_rows(rounds: usize) {
    for (name, d) in SLEEPS {
        let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            lawn.push(lateness_in_tokio(d, Side::Lawn));
            tokio.push(lateness_in_tokio(d, Side::Tokio));
        }
        row(
            &format!("lateness in a tokio task, {name}, p50 µs"),
            &pick_pair(&lawn, 0),
            &pick_pair(&tokio, 0),
            Better::Lateness,
        );
        row(
            "  p99 µs",
            &pick_pair(&lawn, 1),
            &pick_pair(&tokio, 1),
            Better::Lateness,
        );
    }
}

fn block_on_rows(rounds: usize) {
    for (name, d) in SLEEPS {
        let runs: Vec<_> = (0..rounds).map(|_| lateness_block_on(d)).collect();
        println!(
            "| lateness under futures::executor::block_on, {name}, p50 / p99 µs | {:.1} / {:.1} | (no tokio runtime) | |",
            median(pick_pair(&runs, 0)),
            median(pick_pair(&runs, 1)),
        );
    }
}

#[derive(Clone, Copy)]
enum Side {
    Lawn,
    Tokio,
}

enum Better {
    Lower,
    Lateness,
}

fn row(name: &str, lawn: &[f64], tokio: &[f64], better: Better) {
    let ratios: Vec<f64> = lawn
        .iter()
        .zip(tokio)
        .map(|(l, t)| match better {
            Better::Lower => t / l.max(1e-9),
            Better::Lateness => l / t.max(1e-9),
        })
        .collect();
    let label = match better {
        Better::Lower => "tokio/lawn_rt",
        Better::Lateness => "lawn_rt/tokio",
    };
    println!(
        "| {name} | {:.1} | {:.1} | {:.2}x ({label}) |",
        median(lawn.to_vec()),
        median(tokio.to_vec()),
        median(ratios)
    );
}

fn pick_pair(runs: &[(f64, f64)], i: usize) -> Vec<f64> {
    runs.iter()
        .map(|p| if i == 0 { p.0 } else { p.1 })
        .collect()
}

fn percentile(xs: &mut [f64], p: f64) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let rank = ((xs.len() as f64 * p / 100.0).ceil() as usize).clamp(1, xs.len());
    xs[rank - 1]
}

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("build the tokio runtime")
}

/// Polls `future` once, then drops it.
async fn poll_once(future: impl Future) {
    let mut future = pin!(future);
    std::future::poll_fn(|cx| {
        let _ = future.as_mut().poll(cx);
        Poll::Ready(())
    })
    .await;
}

/// Whose timeout a churn task makes.
#[derive(Clone, Copy)]
enum Churner {
    Lawn,
    Tokio,
    /// [`minimal::timeout`].
    Minimal,
    /// [`minimal::reachable`].
    Reachable,
    /// [`minimal::deferred`].
    Deferred,
    /// [`minimal::staged`].
    Staged,
}

/// What each churned timeout is.
#[derive(Clone, Copy)]
enum Shape {
    /// `timeout(10 s, ..)`.
    Long,
    /// `timeout(100 ms, ..)`: due soon enough for the Lawn's near window.
    Short,
    /// `timeout_at(deadline, ..)`, one deadline 10 s after the task began:
    /// a TTL that shrinks from one timeout to the next (a request's
    /// deadline passed down to each step), so it never repeats.
    At,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Long => "10 s timeout",
            Shape::Short => "100 ms timeout",
            Shape::At => "timeout_at one deadline 10 s ahead",
        }
    }
}

/// ns per timeout, `tasks` tasks churning 10 s timeouts at once on 2 workers.
fn churn(tasks: u64, churner: Churner) -> f64 {
    churn_shaped(tasks, churner, Shape::Long)
}

/// ns per timeout, `tasks` tasks churning timeouts of `shape` at once.
///
/// Each side's task is its own `async fn` instance with one kind of
/// timeout in its loop, as in a user's program: a task whose loop matches
/// over every side (one state machine for all) measured lawn_rt ~15 ns
/// faster and tokio ~20 ns slower than this, from code layout alone (see
/// `docs/decisions/inlined-timeout-path.md`, "How the churn is measured").
fn churn_shaped(tasks: u64, churner: Churner, shape: Shape) -> f64 {
    let never = std::future::pending::<()>;
    let ttl = match shape {
        Shape::Short => Duration::from_millis(100),
        Shape::Long | Shape::At => Duration::from_secs(10),
    };
    match (churner, shape) {
        (Churner::Lawn, Shape::At) => churn_with(tasks, ttl, move |deadline| {
            lawn_rt::time::timeout_at(lawn_rt::time::Instant::from_std(deadline), never())
        }),
        (Churner::Tokio, Shape::At) => churn_with(tasks, ttl, move |deadline| {
            tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), never())
        }),
        (Churner::Lawn, _) => churn_with(tasks, ttl, move |_| lawn_rt::time::timeout(ttl, never())),
        (Churner::Tokio, _) => churn_with(tasks, ttl, move |_| tokio::time::timeout(ttl, never())),
        (Churner::Minimal, _) => churn_with(tasks, ttl, move |_| minimal::timeout(ttl, never())),
        (Churner::Reachable, _) => {
            churn_with(tasks, ttl, move |_| minimal::reachable(ttl, never()))
        }
        (Churner::Deferred, _) => churn_with(tasks, ttl, move |_| minimal::deferred(ttl, never())),
        (Churner::Staged, _) => churn_with(tasks, ttl, move |_| minimal::staged(ttl, never())),
    }
}

/// ns per timeout, `tasks` tasks each churning the timeouts `make` makes
/// (given a deadline `ttl` after the task began).
fn churn_with<F, M>(tasks: u64, ttl: Duration, make: M) -> f64
where
    F: Future + Send + 'static,
    M: Fn(Instant) -> F + Copy + Send + 'static,
{
    let rt = tokio_runtime();
    let per_task = CHURN_OPS / tasks;
    let elapsed = rt.block_on(async move {
        // Warm up every worker's timers.
        let warm: Vec<_> = (0..tasks)
            .map(|_| tokio::spawn(churn_task(1_000, ttl, make)))
            .collect();
        for w in warm {
            w.await.expect("a churn task panicked");
        }
        let start = Instant::now();
        let handles: Vec<_> = (0..tasks)
            .map(|_| tokio::spawn(churn_task(per_task, ttl, make)))
            .collect();
        for h in handles {
            h.await.expect("a churn task panicked");
        }
        start.elapsed()
    });
    elapsed.as_nanos() as f64 / (per_task * tasks) as f64
}

/// Polls `ops` timeouts from `make` once each, dropping each after.
async fn churn_task<F: Future, M: Fn(Instant) -> F>(ops: u64, ttl: Duration, make: M) {
    let deadline = Instant::now() + ttl;
    for _ in 0..ops {
        poll_once(make(deadline)).await
    }
}

/// Timeouts per round of the `own` rows.
const OWN_OPS: u64 = 1_000_000;

fn own_runtime_rows(rounds: usize) {
    let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        lawn.push(own_lawn_rt());
        tokio.push(own_tokio());
    }
    row(
        "in its own current-thread runtime: warm timeout churn, 1 task, ns/op",
        &lawn,
        &tokio,
        Better::Lower,
    );
}

/// `$name()`: ns per 5 s timeout churned by a task of `$krate`'s
/// current-thread runtime, with a 1 s timer pending (the two crates share
/// every path used here).
macro_rules! own_side {
    ($name:ident, $krate:ident) => {
        fn $name() -> f64 {
            let rt = $krate::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect(concat!("build the ", stringify!($krate), " runtime"));
            rt.block_on(async {
                let churner = $krate::spawn(async {
                    let mut pending = pin!($krate::time::sleep(Duration::from_secs(1)));
                    poll_once(pending.as_mut()).await;
                    // One turn of the driver since (it parks on the earliest timer).
                    $krate::time::sleep(Duration::from_millis(1)).await;
                    let ttl = Duration::from_secs(5);
                    own_churn(|| $krate::time::timeout(ttl, std::future::pending::<()>())).await
                });
                churner.await.expect("the churn task panicked")
            })
        }
    };
}

own_side!(own_lawn_rt, lawn_rt);
own_side!(own_tokio, tokio);

/// ns per future of `make`, each polled once and dropped (after a warm-up),
/// in place: the future is made inside the loop's own state, as a user's
/// `select!` or request loop makes its timeout (moving a just-made future
/// into another one costs each side a store-to-load stall of its own).
async fn own_churn<F: Future>(make: impl Fn() -> F) -> f64 {
    let mut start = Instant::now();
    for i in 0..1_000 + OWN_OPS {
        if i == 1_000 {
            start = Instant::now();
        }
        let mut future = pin!(make());
        std::future::poll_fn(|cx| {
            let _ = future.as_mut().poll(cx);
            Poll::Ready(())
        })
        .await;
    }
    start.elapsed().as_nanos() as f64 / OWN_OPS as f64
}

/// The idle timeout of the `reset` rows, on each side (a task each).
const IDLE: Duration = Duration::from_secs(30);

/// Runs the future `make` makes (inside the runtime: tokio's timers
/// cannot be made outside one) as a task of a fresh tokio runtime (2
/// workers).
fn in_a_task<F: Future<Output = f64> + Send + 'static>(make: impl FnOnce() -> F) -> f64 {
    tokio_runtime().block_on(async { tokio::spawn(make()).await.expect("a bench task panicked") })
}

/// ns per reset and poll of the idle timeout `sleep`, pushed back by
/// `reset` to `now()` plus [`IDLE`] (and n µs) each time; one instance per
/// side, as a user's task would be.
async fn idle_resets<S: Future, I: std::ops::Add<Duration, Output = I>>(
    sleep: S,
    now: impl Fn() -> I,
    reset: impl Fn(std::pin::Pin<&mut S>, I),
) -> f64 {
    let mut idle = pin!(sleep);
    poll_once(idle.as_mut()).await;
    let start = Instant::now();
    for n in 0..RESET_OPS {
        let later = IDLE + Duration::from_micros(n);
        reset(idle.as_mut(), now() + later);
        poll_once(idle.as_mut()).await;
    }
    start.elapsed().as_nanos() as f64 / RESET_OPS as f64
}

struct Fire {
    wall_ms: f64,
    cpu_ms: f64,
    switches: f64,
    p50_us: f64,
}

fn fire(side: Side) -> Fire {
    let rt = tokio_runtime();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let durations: Vec<Duration> = (0..FIRE_TASKS)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            Duration::from_micros(1_000 + rng % 9_000)
        })
        .collect();
    let (cpu0, csw0) = usage();
    let start = Instant::now();
    let mut late = rt.block_on(async move {
        let handles: Vec<_> = durations
            .into_iter()
            .map(|d| {
                tokio::spawn(async move {
                    let deadline = Instant::now() + d;
                    match side {
                        Side::Lawn => {
                            lawn_rt::time::sleep_until(lawn_rt::time::Instant::from_std(deadline))
                                .await
                        }
                        Side::Tokio => {
                            tokio::time::sleep_until(tokio::time::Instant::from_std(deadline)).await
                        }
                    }
                    late_us(deadline)
                })
            })
            .collect();
        let mut late = Vec::with_capacity(handles.len());
        for h in handles {
            late.push(h.await.expect("a sleeping task panicked"));
        }
        late
    });
    let wall = start.elapsed();
    let (cpu1, csw1) = usage();
    drop(rt);
    Fire {
        wall_ms: wall.as_secs_f64() * 1e3,
        cpu_ms: (cpu1 - cpu0) * 1e3,
        switches: (csw1 - csw0) as f64,
        p50_us: percentile(&mut late, 50.0),
    }
}

/// How late `deadline` is now, in µs; panics if it is still ahead (a
/// timer that fired early).
fn late_us(deadline: Instant) -> f64 {
    let now = Instant::now();
    let late = now
        .checked_duration_since(deadline)
        .unwrap_or_else(|| panic!("a timer fired {:?} early", deadline - now));
    late.as_secs_f64() * 1e6
}

fn lateness_in_tokio(d: Duration, side: Side) -> (f64, f64) {
    let rt = tokio_runtime();
    let mut late = rt.block_on(async move {
        tokio::spawn(async move {
            let mut late = Vec::with_capacity(LATENESS_SAMPLES);
            for _ in 0..LATENESS_SAMPLES {
                let deadline = Instant::now() + d;
                match side {
                    Side::Lawn => {
                        lawn_rt::time::sleep_until(lawn_rt::time::Instant::from_std(deadline)).await
                    }
                    Side::Tokio => {
                        tokio::time::sleep_until(tokio::time::Instant::from_std(deadline)).await
                    }
                }
                late.push(late_us(deadline));
            }
            late
        })
        .await
        .expect("the sleeping task panicked")
    });
    (percentile(&mut late, 50.0), percentile(&mut late, 99.0))
}

fn lateness_block_on(d: Duration) -> (f64, f64) {
    let mut late = futures::executor::block_on(async move {
        let mut late = Vec::with_capacity(LATENESS_SAMPLES);
        for _ in 0..LATENESS_SAMPLES {
            let deadline = Instant::now() + d;
            lawn_rt::time::sleep_until(lawn_rt::time::Instant::from_std(deadline)).await;
            late.push(late_us(deadline));
        }
        late
    });
    (percentile(&mut late, 50.0), percentile(&mut late, 99.0))
}

/// The least a timeout filed in a Lawn can do, for the floors of the
/// 1-task churn: what `lawn_rt::time::timeout` does on its owner's path,
/// less everything a real timer needs besides the clock read, the shard's
/// lookup, the waker and the Lawn: no handle or count, no slack level, no
/// driver to tell, no state beyond the key. Not usable timers (nothing
/// ever fires them). [`timeout`] files in the thread's own Lawn, in a
/// `RefCell`, found through a thread-local on each use: no lock either.
/// [`reachable`] files in a shard another thread could fire: the Lawn
/// behind a mutex, locked to insert and to remove; [`deferred`] files in
/// one as the driver does (staged first). The shards are made on
/// a thread's first timer and never freed (so a timer holds a plain
/// reference, and the thread-locals have no destructor to check for).
mod minimal {
    use lawn_rt::lawn::{Lawn, TimerKey};
    use std::cell::{Cell, RefCell};
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::Mutex;
    use std::task::{Context, Poll, Waker};
    use std::time::{Duration, Instant};

    /// The foreign shard's unit for a 10 s timer, as in the floors.
    const UNIT_US: u64 = super::FLOOR_UNIT_US;
    const _: () = assert!(1_000_000 % UNIT_US == 0, "a second is whole units");

    /// A thread's timers (a Lawn, or the staging slab), and the instant
    /// their units count from.
    struct Shard<L> {
        origin: Instant,
        timers: L,
    }

    thread_local! {
        static LOCAL: Cell<Option<&'static Shard<RefCell<Lawn<Waker>>>>> = const { Cell::new(None) };
        static REACHABLE: Cell<Option<&'static Shard<Mutex<Lawn<Waker>>>>> = const { Cell::new(None) };
        static DEFERRING: Cell<Option<&'static Shard<Mutex<Lawn<Waker>>>>> = const { Cell::new(None) };
    }

    /// The shard in `slot`, made on first use.
    #[inline]
    fn shard<L>(slot: &Cell<Option<&'static Shard<L>>>, timers: fn() -> L) -> &'static Shard<L> {
        match slot.get() {
            Some(shard) => shard,
            None => {
                let shard: &'static Shard<L> = Box::leak(Box::new(Shard {
                    origin: Instant::now(),
                    timers: timers(),
                }));
                slot.set(Some(shard));
                shard
            }
        }
    }

    /// How a timeout reaches its shard's Lawn.
    pub(super) trait Filing: Copy + Send + Unpin + 'static {
        type Key: Copy + Send + Unpin;
        /// This thread's shard, and the instant its units count from.
        fn current() -> (Self, Instant);
        fn insert(self, now: u64, ttl: u64, waker: Waker) -> Self::Key;
        fn remove(self, key: Self::Key) -> Option<Waker>;
    }

    /// The thread's own Lawn, looked up on each use (a timer holding a
    /// reference to a `RefCell` could not be sent to another thread).
    #[derive(Clone, Copy)]
    pub(super) struct Local;

    impl Filing for Local {
        type Key = TimerKey;
        #[inline]
        fn current() -> (Self, Instant) {
            (
                Local,
                LOCAL.with(|slot| shard(slot, || RefCell::new(Lawn::new())).origin),
            )
        }
        #[inline]
        fn insert(self, now: u64, ttl: u64, waker: Waker) -> TimerKey {
            LOCAL.with(|slot| {
                shard(slot, || RefCell::new(Lawn::new()))
                    .timers
                    .borrow_mut()
                    .insert(now, ttl, waker)
            })
        }
        #[inline]
        fn remove(self, key: TimerKey) -> Option<Waker> {
            LOCAL.with(|slot| {
                shard(slot, || RefCell::new(Lawn::new()))
                    .timers
                    .borrow_mut()
                    .remove(key)
            })
        }
    }

    /// A shard another thread could reach; with `DEFERRED`, its timers are
    /// filed as the driver's are (`Lawn::insert_deferred`: staged, and
    /// filed in a bucket only once a later tick starts a timer).
    #[derive(Clone, Copy)]
    pub(super) struct Reachable<const DEFERRED: bool>(&'static Shard<Mutex<Lawn<Waker>>>);

    impl<const DEFERRED: bool> Filing for Reachable<DEFERRED> {
        type Key = TimerKey;
        #[inline]
        fn current() -> (Self, Instant) {
            let slot = if DEFERRED { &DEFERRING } else { &REACHABLE };
            let shard = slot.with(|slot| shard(slot, || Mutex::new(Lawn::new())));
            (Reachable(shard), shard.origin)
        }
        #[inline]
        fn insert(self, now: u64, ttl: u64, waker: Waker) -> TimerKey {
            let mut lawn = self.0.timers.lock().unwrap();
            match DEFERRED {
                true => lawn.insert_deferred(now, ttl, waker),
                false => lawn.insert(now, ttl, waker),
            }
        }
        #[inline]
        fn remove(self, key: TimerKey) -> Option<Waker> {
            self.0.timers.lock().unwrap().remove(key)
        }
    }

    /// A deferred-filing design's first stop: a plain slab of `(deadline,
    /// waker)` behind a mutex, from which a driver would move the timers
    /// that live long enough into the Lawn (not done here: a churned timer
    /// never gets that far).
    #[derive(Clone, Copy)]
    pub(super) struct Staged(&'static Shard<Mutex<Slab>>);

    /// Slots and the free list through them.
    #[derive(Default)]
    pub(super) struct Slab {
        slots: Vec<(u64, Option<Waker>)>,
        free: Vec<u32>,
    }

    thread_local! {
        static STAGED: Cell<Option<&'static Shard<Mutex<Slab>>>> = const { Cell::new(None) };
    }

    impl Filing for Staged {
        type Key = u32;
        #[inline]
        fn current() -> (Self, Instant) {
            let shard = STAGED.with(|slot| shard(slot, || Mutex::new(Slab::default())));
            (Staged(shard), shard.origin)
        }
        #[inline]
        fn insert(self, now: u64, ttl: u64, waker: Waker) -> u32 {
            let mut slab = self.0.timers.lock().unwrap();
            let entry = (now + ttl, Some(waker));
            match slab.free.pop() {
                Some(i) => {
                    slab.slots[i as usize] = entry;
                    i
                }
                None => {
                    slab.slots.push(entry);
                    slab.slots.len() as u32 - 1
                }
            }
        }
        #[inline]
        fn remove(self, key: u32) -> Option<Waker> {
            let mut slab = self.0.timers.lock().unwrap();
            let waker = slab.slots[key as usize].1.take();
            slab.free.push(key);
            waker
        }
    }

    pub(super) struct Timeout<F, L: Filing> {
        shard: L,
        /// The unit it was made in, and its TTL in units.
        now: u64,
        ttl: u64,
        key: Option<L::Key>,
        future: F,
    }

    #[inline]
    pub(super) fn timeout<F>(duration: Duration, future: F) -> Timeout<F, Local> {
        new(duration, future)
    }

    #[inline]
    pub(super) fn staged<F>(duration: Duration, future: F) -> Timeout<F, Staged> {
        new(duration, future)
    }

    #[inline]
    pub(super) fn reachable<F>(duration: Duration, future: F) -> Timeout<F, Reachable<false>> {
        new(duration, future)
    }

    #[inline]
    pub(super) fn deferred<F>(duration: Duration, future: F) -> Timeout<F, Reachable<true>> {
        new(duration, future)
    }

    /// Whole units in `d` (in `u64`s: a second is a whole number of units,
    /// so no `u128` as in `as_micros`).
    #[inline]
    fn units(d: Duration) -> u64 {
        d.as_secs() * (1_000_000 / UNIT_US) + u64::from(d.subsec_micros()) / UNIT_US
    }

    #[inline]
    fn new<F, L: Filing>(duration: Duration, future: F) -> Timeout<F, L> {
        let (shard, origin) = L::current();
        Timeout {
            shard,
            now: units(Instant::now().saturating_duration_since(origin)),
            ttl: units(duration),
            key: None,
            future,
        }
    }

    impl<F: Future + Unpin, L: Filing> Future for Timeout<F, L> {
        type Output = Option<F::Output>;

        #[inline]
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
            if let Poll::Ready(out) = Pin::new(&mut self.future).poll(cx) {
                return Poll::Ready(Some(out));
            }
            if self.key.is_none() {
                let key = self.shard.insert(self.now, self.ttl, cx.waker().clone());
                self.key = Some(key);
            }
            Poll::Pending
        }
    }

    impl<F, L: Filing> Drop for Timeout<F, L> {
        #[inline]
        fn drop(&mut self) {
            if let Some(key) = self.key {
                drop(self.shard.remove(key));
            }
        }
    }
}
