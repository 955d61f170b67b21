//! Criterion benchmarks: timers on the multi-thread runtime (2 workers)
//! against tokio's, next to the current-thread runtimes of both, in one run,
//! so that the tokio / lawn_rt ratio of each flavor and each crate's own
//! multi-thread speed-up can be compared.
//!
//! Every group has the ids `{group}/{side}/{flavor}`: side `lawn_rt` or
//! `tokio`, flavor `st` (a current-thread runtime) or `mt2` (a
//! multi-thread runtime with 2 workers). Both crates' runtimes are built
//! with `enable_all()`, once per group (each bench reuses its runtime for
//! every sample). Each side's code is the same text, instantiated for each
//! crate by the `side!` macro (their APIs share every path used here), and
//! every task runs under that crate's `task::unconstrained`: tokio's
//! cooperative budget would otherwise make its `Sleep` skip registration
//! after 128 polls in one task poll, which would flatter it (lawn_rt's
//! budget counts only completions, but gets the same treatment).
//!
//! Groups:
//!
//! * `block_in_place`: one task on a 2-worker runtime calls
//!   `task::block_in_place` with an empty closure and yields, over and
//!   over; per call (the worker's hand-off to a new thread, the task's way
//!   back to a worker).
//! * `churn_mt`: the request-timeout pattern, per worker. Each batch spawns
//!   one task per worker (1 for `st`, 2 for `mt2`), which registers a 1 s
//!   sleep ("warm": an earlier timer pending, as in `time.rs`), yields once
//!   (so the park loop turns), waits until every such task has started (so
//!   the two of `mt2` run at the same time, on both workers), then does its
//!   share of the batch's operations: `timeout(5 s, pending())` polled once
//!   with the task's own context (it registers) and dropped (it
//!   deregisters). Timed from the moment they all started to the moment
//!   the last finished; reported per operation, so a 2-worker runtime that
//!   scales perfectly shows half its `st` time.
//! * `fire_mt`: N timers registered and fired (N = 100,000). One spawner
//!   task per worker (they meet first, as above) spawns its share of N
//!   tasks, task `i` sleeping `(1 + i % 10) ms` from its first poll, and
//!   awaits them all; whoever runs a sleeper (its spawner's worker, or the
//!   other one, which steals) files its timer. Every sleeper must complete,
//!   none early. Timed from the spawners' start to the last completion;
//!   reported per timer (`Throughput::Elements`). The deadlines count from
//!   each sleeper's first poll, not from one common start: spawning 100,000
//!   tasks takes longer than 10 ms, so deadlines fixed at spawn time would
//!   mostly have passed by the first poll and nothing would be filed. So
//!   each figure holds a spawn, a first poll and a completion per timer
//!   too, on both sides alike.
//!
//! Run time: about 40 s on 2 cores. `python3 scripts/multi_report.py`
//! prints the table of ratios afterwards. Without `--bench`
//! (`cargo test --benches`) every bench runs once as a smoke test, `fire_mt`
//! with 10,000 timers.

use std::future::{pending, poll_fn, Future};
use std::hint::black_box;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant as StdInstant};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};

/// Timers fired per `fire_mt` iteration.
const MANY: usize = 100_000;
/// The same, in a smoke run.
const MANY_SMOKE: usize = 10_000;
/// The request timeout of `churn_mt`.
const AHEAD: Duration = Duration::from_secs(5);
/// The earlier timer each churning task keeps pending.
const BACKGROUND: Duration = Duration::from_secs(1);
/// How long tasks wait for each other at the start before the bench gives
/// up (they are not on different workers).
const MEET: Duration = Duration::from_secs(10);
/// How long a task spins at the start line before it yields to its worker.
const SPIN: Duration = Duration::from_millis(1);

/// Which runtime a bench runs on.
#[derive(Clone, Copy)]
enum Flavor {
    /// Current-thread.
    St,
    /// Multi-thread with 2 workers.
    Mt2,
}

impl Flavor {
    const ALL: [Flavor; 2] = [Flavor::St, Flavor::Mt2];

    fn name(self) -> &'static str {
        match self {
            Flavor::St => "st",
            Flavor::Mt2 => "mt2",
        }
    }

    /// Tasks that share the work: one per worker.
    fn tasks(self) -> usize {
        match self {
            Flavor::St => 1,
            Flavor::Mt2 => 2,
        }
    }
}

/// A start line for `parties` tasks, which wait there by spinning: those
/// that pass it are running at once, on as many threads. A task that has
/// spun for [`SPIN`] yields and spins again: another party may be waiting
/// on its worker where no other worker can take it (a task that yielded
/// sits in its worker's deferred list until the worker runs out of work,
/// in both runtimes), and the yield lets it out.
#[derive(Clone)]
struct Meet {
    arrived: Arc<AtomicUsize>,
    parties: usize,
}

impl Meet {
    fn new(parties: usize) -> Meet {
        Meet {
            arrived: Arc::new(AtomicUsize::new(0)),
            parties,
        }
    }

    /// Counts this party in.
    fn arrive(&self) {
        self.arrived.fetch_add(1, SeqCst);
    }

    /// Spins for at most [`SPIN`] until every party has arrived; the time
    /// they all were there, or `None` (panics once [`MEET`] has passed
    /// since `arrived`).
    fn all_there(&self, arrived: StdInstant) -> Option<StdInstant> {
        let until = StdInstant::now() + SPIN;
        while self.arrived.load(SeqCst) < self.parties {
            let now = StdInstant::now();
            assert!(
                now < arrived + MEET,
                "the bench's tasks did not run on different workers at once"
            );
            if now >= until {
                return None;
            }
            std::hint::spin_loop();
        }
        Some(StdInstant::now())
    }
}

/// When one task of a batch did its work.
struct Span {
    start: StdInstant,
    end: StdInstant,
}

impl Span {
    /// From the first start to the last end.
    fn total(spans: &[Span]) -> Duration {
        let start = spans.iter().map(|s| s.start).min().expect("a span");
        let end = spans.iter().map(|s| s.end).max().expect("a span");
        end - start
    }
}

/// Task `task`'s share of `ops` operations split over `tasks` tasks.
fn share_of(ops: u64, tasks: usize, task: usize) -> u64 {
    let (tasks, task) = (tasks as u64, task as u64);
    ops / tasks + u64::from(task < ops % tasks)
}

/// The benches for one crate (`lawn_rt` or `tokio`), in a module of that
/// name's side.
macro_rules! side {
    ($side:ident, $krate:ident) => {
        mod $side {
            use super::*;
            use $krate::runtime::{Builder, Runtime};
            use $krate::task::{unconstrained, yield_now};
            use $krate::time::{sleep, timeout};

            pub const NAME: &str = stringify!($krate);

            /// Arrives at `meet` and waits there for the other parties
            /// (see [`Meet`]); the time they all were there.
            async fn meet_up(meet: &Meet) -> StdInstant {
                meet.arrive();
                let arrived = StdInstant::now();
                loop {
                    if let Some(start) = meet.all_there(arrived) {
                        return start;
                    }
                    yield_now().await;
                }
            }

            pub fn runtime(flavor: Flavor) -> Runtime {
                match flavor {
                    Flavor::St => Builder::new_current_thread().enable_all().build(),
                    Flavor::Mt2 => Builder::new_multi_thread()
                        .worker_threads(2)
                        .enable_all()
                        .build(),
                }
                .expect(concat!(stringify!($krate), " runtime"))
            }

            /// One `churn_mt` batch of `ops` operations; its wall time.
            pub fn churn(rt: &Runtime, flavor: Flavor, ops: u64) -> Duration {
                let tasks = flavor.tasks();
                let meet = Meet::new(tasks);
                let spans = rt.block_on(async move {
                    let joins: Vec<_> = (0..tasks)
                        .map(|task| {
                            let share = share_of(ops, tasks, task);
                            $krate::spawn(unconstrained(churn_task(meet.clone(), share)))
                        })
                        .collect();
                    let mut spans = Vec::new();
                    for join in joins {
                        spans.push(join.await.expect("a churning task"));
                    }
                    spans
                });
                Span::total(&spans)
            }

            async fn churn_task(meet: Meet, ops: u64) -> Span {
                let mut background = pin!(sleep(BACKGROUND));
                let first = poll_fn(|cx| Poll::Ready(background.as_mut().poll(cx))).await;
                assert!(first.is_pending(), "the background timer was ready at once");
                yield_now().await; // the park loop turns once
                let start = meet_up(&meet).await;
                let ready = poll_fn(|cx| {
                    let mut ready = 0;
                    for _ in 0..ops {
                        let request = timeout(AHEAD, pending::<()>());
                        let mut request = pin!(request);
                        ready += usize::from(black_box(request.as_mut().poll(cx)).is_ready());
                    }
                    Poll::Ready(ready)
                })
                .await;
                let end = StdInstant::now();
                assert_eq!(ready, 0, "a 5 s timeout was ready on its first poll");
                assert!(!background.is_elapsed(), "the background timer fired");
                Span { start, end }
            }

            /// One `block_in_place` batch: a task calls it `ops` times
            /// (with a trivial closure), yielding after each; its wall time.
            pub fn blocking_in_place(rt: &Runtime, ops: u64) -> Duration {
                rt.block_on(async move {
                    $krate::spawn(async move {
                        let start = StdInstant::now();
                        for _ in 0..ops {
                            $krate::task::block_in_place(|| black_box(()));
                            yield_now().await;
                        }
                        start.elapsed()
                    })
                    .await
                    .expect("a blocking task")
                })
            }

            /// One `fire_mt` batch of `n` timers; its wall time.
            pub fn fire(rt: &Runtime, flavor: Flavor, n: usize) -> Duration {
                let tasks = flavor.tasks();
                let meet = Meet::new(tasks);
                let done = rt.block_on(async move {
                    let joins: Vec<_> = (0..tasks)
                        .map(|task| {
                            let mine = (task..n).step_by(tasks);
                            $krate::spawn(unconstrained(fire_task(meet.clone(), mine)))
                        })
                        .collect();
                    let mut done = Vec::new();
                    for join in joins {
                        done.push(join.await.expect("a spawner"));
                    }
                    done
                });
                let on_time: usize = done.iter().map(|(_, on_time)| on_time).sum();
                assert_eq!(on_time, n, "not every timer completed on time");
                let spans: Vec<Span> = done.into_iter().map(|(span, _)| span).collect();
                Span::total(&spans)
            }

            /// Spawns a sleeper for each of `timers`, awaits them all;
            /// returns its span and how many completed, none early.
            async fn fire_task(meet: Meet, timers: impl Iterator<Item = usize>) -> (Span, usize) {
                let start = meet_up(&meet).await;
                let sleepers: Vec<_> = timers
                    .map(|i| {
                        let nap = Duration::from_millis(1 + (i % 10) as u64);
                        $krate::spawn(unconstrained(async move {
                            let made = StdInstant::now();
                            sleep(nap).await;
                            StdInstant::now() >= made + nap
                        }))
                    })
                    .collect();
                let mut on_time = 0;
                for sleeper in sleepers {
                    on_time += usize::from(sleeper.await.expect("a sleeper"));
                }
                let end = StdInstant::now();
                (Span { start, end }, on_time)
            }
        }
    };
}

side!(lawn_side, lawn_rt);
side!(tokio_side, tokio);

fn churn(c: &mut Criterion) {
    let lawn: Vec<_> = Flavor::ALL.map(lawn_side::runtime).into();
    let tokio: Vec<_> = Flavor::ALL.map(tokio_side::runtime).into();
    let mut g = c.benchmark_group("churn_mt");
    for (k, flavor) in Flavor::ALL.into_iter().enumerate() {
        g.bench_function(BenchmarkId::new(lawn_side::NAME, flavor.name()), |b| {
            b.iter_custom(|ops| lawn_side::churn(&lawn[k], flavor, ops))
        });
        g.bench_function(BenchmarkId::new(tokio_side::NAME, flavor.name()), |b| {
            b.iter_custom(|ops| tokio_side::churn(&tokio[k], flavor, ops))
        });
    }
    g.finish();
}

fn fire(c: &mut Criterion, n: usize) {
    let lawn: Vec<_> = Flavor::ALL.map(lawn_side::runtime).into();
    let tokio: Vec<_> = Flavor::ALL.map(tokio_side::runtime).into();
    let mut g = c.benchmark_group("fire_mt");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(n as u64));
    for (k, flavor) in Flavor::ALL.into_iter().enumerate() {
        g.bench_function(BenchmarkId::new(lawn_side::NAME, flavor.name()), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| lawn_side::fire(&lawn[k], flavor, n))
                    .sum()
            })
        });
        g.bench_function(BenchmarkId::new(tokio_side::NAME, flavor.name()), |b| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| tokio_side::fire(&tokio[k], flavor, n))
                    .sum()
            })
        });
    }
    g.finish();
}

/// `block_in_place` on a 2-worker runtime: the worker's hand-off to
/// another thread and the task's return to the runtime, per call.
fn block_in_place(c: &mut Criterion) {
    let lawn = lawn_side::runtime(Flavor::Mt2);
    let tokio = tokio_side::runtime(Flavor::Mt2);
    let mut g = c.benchmark_group("block_in_place");
    g.bench_function(BenchmarkId::new(lawn_side::NAME, Flavor::Mt2.name()), |b| {
        b.iter_custom(|ops| lawn_side::blocking_in_place(&lawn, ops))
    });
    g.bench_function(
        BenchmarkId::new(tokio_side::NAME, Flavor::Mt2.name()),
        |b| b.iter_custom(|ops| tokio_side::blocking_in_place(&tokio, ops)),
    );
    g.finish();
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
    fire(&mut c, n);
    block_in_place(&mut c);

    c.final_summary();
}
