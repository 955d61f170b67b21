//! Criterion benchmarks: the Lawn against four baseline timer queues.
//!
//! Structures (criterion function ids, side by side in every group): `lawn`
//! (`lawn_rt::lawn::Lawn<u64>`), `hashed_wheel` (512 slots with round
//! counters), `hier_wheel` (6 x 64 slots), `binary_heap` (lazy deletion) and
//! `btree` (`BTreeMap<(deadline, seq), _>`); see `benches/baselines/`.
//!
//! Workloads (one tick = 1 ms): `fixed` (TTL 5 000), `mixed` (ten TTLs from
//! 100 to 120 000), `burst` (mixed TTLs, all pending timers inserted at the
//! same tick) and `uniform` (TTL uniform in 1..=3 600 000). Sizes: 1e3, 1e4,
//! 1e5 and 1e6 pending timers. Prefilled structures are in the steady state
//! of a long-running timer stream (see `benches/baselines/workload.rs`) and
//! are built outside the timed region.
//!
//! Groups (ids are `{group}/{workload}/{structure}/{n}`):
//!
//! * `insert/*`: time per insert into a structure holding `n` timers, at the
//!   prefill's current tick, TTLs drawn from the workload. Inserts are timed
//!   in batches of up to 1 000; after each batch the new timers are removed
//!   untimed, so the size stays at `n`.
//! * `delete/*`: time per cancel of a random pending timer (a pre-shuffled
//!   order). After each batch the cancelled timers are started again untimed
//!   with the same TTL at the current tick, so the size stays at `n` and the
//!   TTL mix is unchanged (their deadlines move later).
//! * `expire/*`: time to advance tick by tick from the end of the prefill to
//!   the last deadline, popping every due timer; `Throughput::Elements(n)`,
//!   so ns per popped timer = 1e9 / (elements per second). Every iteration
//!   expires a fresh prefill (built untimed).
//! * `tick/*`: time per empty tick: advance `now` by one and call
//!   `pop_expired`, which returns `None` (for the Lawn: a look at the
//!   earliest bucket head and nothing else). A dense steady state has timers
//!   due on nearly every tick, so this prefill adds `TICK_GAP` = 2^28 ticks
//!   (~3 days) to every TTL and the ticks are taken in the first half of that
//!   gap, rebuilding the prefill when it is used up. (Such TTLs put the
//!   Lawn's timers in class buckets, whose keys are early by under TTL/64,
//!   ~2^22 ticks: still after the window.) Only per-tick overhead is
//!   measured here; the cost of the due ticks is what `expire` measures.
//! * `steady_tick/mixed/*` and `steady_tick_insert/mixed/*` (n from 1e4):
//!   time per tick in the steady state of a stream of `mixed` timers with
//!   ~n pending (`benches/baselines/steady.rs`): every tick pops all the
//!   timers due and then starts `n / mean TTL` new ones (43.7 at 1e6). One
//!   iteration is one tick: advance + pop every due timer (`steady_tick`),
//!   plus starting that tick's timers (`steady_tick_insert`; in
//!   `steady_tick` they are started untimed). Each tick is timed by its own
//!   `Instant` reads (~20 ns a pair, ~40 ns for tick + arrivals, against
//!   1.5 µs to 200 µs per tick at 1e6). The prefill
//!   and one longest TTL of ticks (120 000; 16 384 for the hashed wheel,
//!   see `HASHED_SETTLE`) run untimed first, then the stream goes on across
//!   warm-up and samples, so the samples are consecutive runs of ticks
//!   (flat sampling, 2 s: about 200 000 ticks for the hierarchical wheel
//!   at 1e6, a million for the Lawn). Those runs include the wheel's cascades
//!   every 64 and 4 096 ticks roughly in proportion; its 262 144-tick
//!   cascade lands in at most one sample, which the median ignores.
//!   `benches/tick_cost.rs` gives the mean over a whole 262 144-tick block
//!   and the spread (p50 to max). Check: every tick pops exactly the timers
//!   due at it (the stream keeps a calendar and panics otherwise).
//! * `lone/{shape}/{lawn|lawn_deferred}`: the Lawn alone, one timer at a
//!   time started and cancelled (a request timeout, one request at a
//!   time), the tick moving on every 320 of them; time per start and
//!   cancel, with `insert` or `insert_deferred` (the driver's way in). Its
//!   TTL `recurring` (312 500: an exact bucket), `never_recurring` (312 500
//!   to 313 499, a new one each time: a class bucket) or `short` (100 to
//!   102: the near window).
//!
//! Skipped unless `LAWN_BENCH_FULL=1` (a note is printed): `expire` for the
//! hashed wheel on `uniform` at 1e5 and 1e6 and on `mixed` at 1e6. Its round
//! counters make every slot visit walk all ~n/512 entries of the slot, about
//! n * TTL / 512 entry visits per iteration: 3.4 s per iteration for
//! `uniform` at 1e5 (~40 s per benchmark), minutes at 1e6. The other groups
//! include it.
//!
//! Run time: about 10 minutes for everything on 2 cores (10 samples per
//! benchmark, 0.3 s warm-up, 1 s measurement, 2 s for the steady groups;
//! the CLI flags override these, but for the 2 s).
//! Filter as usual, e.g. `cargo bench --bench lawn -- 'insert/fixed/.*/1000$'`
//! or `cargo bench --bench lawn -- steady_tick` (the steady groups alone,
//! about 1.5 minutes).
//! Without `--bench` (`cargo test --benches`, `cargo bench -- --test`) only
//! n = 1 000 runs, once, as a smoke test.

mod baselines;

use std::cell::OnceCell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use baselines::steady::Stream;
use baselines::workload::{Plan, Workload, NEW_TTLS};
use baselines::{BTreeQueue, HashedWheel, HeapQueue, HierWheel, TimerQueue};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};
use lawn_rt::lawn::Lawn;

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// Inserts or deletes timed per `Instant` pair.
const BATCH: usize = 1_000;
/// Added to every TTL of the `tick` prefill; half of it is used for ticks.
const TICK_GAP: u64 = 1 << 28;
const SEED: u64 = 0x5EED_1A57_0000_0001;
/// Measurement time of the `steady_tick*` groups (see module docs).
const STEADY_TIME: Duration = Duration::from_secs(2);

/// A plan generated on first use (only when a benchmark that needs it runs).
struct LazyPlan {
    workload: Workload,
    n: usize,
    cell: OnceCell<Plan>,
}

impl LazyPlan {
    fn get(&self) -> &Plan {
        self.cell
            .get_or_init(|| Plan::new(self.workload, self.n, SEED))
    }
}

/// A structure filled from a plan, plus the handles of its timers.
struct Prefilled<Q: TimerQueue> {
    q: Q,
    keys: Vec<Q::Key>,
    now: u64,
}

impl<Q: TimerQueue> Prefilled<Q> {
    fn build(plan: &Plan, ttl_offset: u64) -> Self {
        let mut q = Q::new();
        let mut keys = Vec::with_capacity(plan.n);
        plan.fill_into(&mut q, ttl_offset, |k| keys.push(k));
        Prefilled {
            q,
            keys,
            now: plan.t_end,
        }
    }
}

/// Benchmarks left out unless `LAWN_BENCH_FULL` is set (see module docs).
fn too_slow<Q: TimerQueue>(group: &str, workload: Workload, n: usize) -> bool {
    Q::name() == "hashed_wheel"
        && group == "expire"
        && match workload {
            Workload::Uniform => n >= 100_000,
            Workload::Mixed => n >= 1_000_000,
            Workload::Fixed | Workload::Burst => false,
        }
}

struct Runner {
    full: bool,
    /// Untimed ticks before a `steady_tick*` benchmark; `None`: the stream's
    /// own choice (one longest TTL, less for the hashed wheel).
    steady_settle: Option<u64>,
}

impl Runner {
    fn skip<Q: TimerQueue>(&self, group: &str, workload: Workload, n: usize) -> bool {
        let skip = !self.full && too_slow::<Q>(group, workload, n);
        if skip {
            eprintln!(
                "note: skipping {group}/{}/{}/{n} (seconds to minutes per iteration); \
                 set LAWN_BENCH_FULL=1 to run it",
                workload.name(),
                Q::name()
            );
        }
        skip
    }

    fn insert<Q: TimerQueue>(&self, g: &mut BenchmarkGroup<WallTime>, plan: &LazyPlan) {
        if self.skip::<Q>("insert", plan.workload, plan.n) {
            return;
        }
        let mut state: Option<(Prefilled<Q>, usize)> = None;
        let mut batch: Vec<Q::Key> = Vec::with_capacity(BATCH);
        g.bench_function(BenchmarkId::new(Q::name(), plan.n), |b| {
            let plan = plan.get();
            let (p, next_ttl) = state.get_or_insert_with(|| (Prefilled::build(plan, 0), 0));
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let k = left.min(BATCH as u64) as usize;
                    batch.clear();
                    let start = Instant::now();
                    for j in 0..k {
                        let ttl = plan.new_ttls[(*next_ttl + j) & (NEW_TTLS - 1)];
                        batch.push(p.q.insert(p.now, ttl, j as u64));
                    }
                    total += start.elapsed();
                    for &key in &batch {
                        p.q.remove(key);
                    }
                    *next_ttl = (*next_ttl + k) & (NEW_TTLS - 1);
                    left -= k as u64;
                }
                total
            });
        });
    }

    fn delete<Q: TimerQueue>(&self, g: &mut BenchmarkGroup<WallTime>, plan: &LazyPlan) {
        if self.skip::<Q>("delete", plan.workload, plan.n) {
            return;
        }
        let mut state: Option<(Prefilled<Q>, usize)> = None;
        g.bench_function(BenchmarkId::new(Q::name(), plan.n), |b| {
            let plan = plan.get();
            let (p, pos) = state.get_or_insert_with(|| (Prefilled::build(plan, 0), 0));
            // A batch must not contain one timer twice.
            let batch = BATCH.min(plan.n / 2).max(1);
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = iters;
                let mut hits = 0u64;
                while left > 0 {
                    let k = left.min(batch as u64) as usize;
                    let order = (0..k).map(|j| plan.delete_order[(*pos + j) % plan.n] as usize);
                    let start = Instant::now();
                    for i in order.clone() {
                        hits += u64::from(black_box(p.q.remove(p.keys[i])).is_some());
                    }
                    total += start.elapsed();
                    for i in order {
                        p.keys[i] = p.q.insert(p.now, plan.fill[i].1, i as u64);
                    }
                    *pos = (*pos + k) % plan.n;
                    left -= k as u64;
                }
                assert_eq!(hits, iters, "a cancel missed");
                total
            });
        });
    }

    fn expire<Q: TimerQueue>(&self, g: &mut BenchmarkGroup<WallTime>, plan: &LazyPlan) {
        if self.skip::<Q>("expire", plan.workload, plan.n) {
            return;
        }
        g.throughput(Throughput::Elements(plan.n as u64));
        g.bench_function(BenchmarkId::new(Q::name(), plan.n), |b| {
            let plan = plan.get();
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut p = Prefilled::<Q>::build(plan, 0);
                    drop(std::mem::take(&mut p.keys));
                    let mut popped = 0usize;
                    let start = Instant::now();
                    for now in plan.t_end + 1..=plan.last_deadline {
                        while let Some(v) = p.q.pop_expired(now) {
                            black_box(v);
                            popped += 1;
                        }
                    }
                    total += start.elapsed();
                    assert_eq!(popped, plan.n, "not every timer expired");
                    drop(p);
                }
                total
            });
        });
    }

    fn tick<Q: TimerQueue>(&self, g: &mut BenchmarkGroup<WallTime>, plan: &LazyPlan) {
        if self.skip::<Q>("tick", plan.workload, plan.n) {
            return;
        }
        let mut state: Option<Prefilled<Q>> = None;
        g.bench_function(BenchmarkId::new(Q::name(), plan.n), |b| {
            let plan = plan.get();
            let window_end = plan.t_end + TICK_GAP / 2;
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = iters;
                let mut due = 0u64;
                while left > 0 {
                    if state.as_ref().is_none_or(|p| p.now >= window_end) {
                        state = None; // drop the old one first: memory
                        let mut p = Prefilled::<Q>::build(plan, TICK_GAP);
                        p.keys = Vec::new();
                        state = Some(p);
                    }
                    let p = state.as_mut().expect("just built");
                    let k = left.min(window_end - p.now);
                    let start = Instant::now();
                    for _ in 0..k {
                        p.now += 1;
                        due += u64::from(black_box(p.q.pop_expired(p.now)).is_some());
                    }
                    total += start.elapsed();
                    left -= k;
                }
                assert_eq!(due, 0, "a timer was due during the empty ticks");
                total
            });
        });
    }

    /// `steady_tick` (`with_arrivals` false) or `steady_tick_insert`.
    fn steady<Q: TimerQueue>(
        &self,
        g: &mut BenchmarkGroup<WallTime>,
        plan: &LazyPlan,
        with_arrivals: bool,
    ) {
        let mut state: Option<Stream<Q>> = None;
        g.bench_function(BenchmarkId::new(Q::name(), plan.n), |b| {
            let s = state.get_or_insert_with(|| {
                let mut s = Stream::new(plan.get(), SEED);
                s.run(self.steady_settle.unwrap_or(s.settle_ticks(self.full)));
                s
            });
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let t = s.step();
                    total += if with_arrivals {
                        t.tick + t.arrivals
                    } else {
                        t.tick
                    };
                }
                total
            });
        });
    }
}

/// Runs `$method::<Q>($args)` on the runner for every structure, in report order.
macro_rules! each_structure {
    ($runner:ident . $method:ident ( $($arg:expr),* )) => {
        $runner.$method::<Lawn<u64>>($($arg),*);
        $runner.$method::<HashedWheel>($($arg),*);
        $runner.$method::<HierWheel>($($arg),*);
        $runner.$method::<HeapQueue>($($arg),*);
        $runner.$method::<BTreeQueue>($($arg),*);
    };
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
    let sizes: &[usize] = if bench_mode { &SIZES } else { &SIZES[..1] };
    let runner = Runner {
        full: std::env::var_os("LAWN_BENCH_FULL").is_some_and(|v| v != "0"),
        steady_settle: if bench_mode { None } else { Some(1_000) },
    };

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();

    for workload in Workload::ALL {
        let plans: Vec<LazyPlan> = sizes
            .iter()
            .map(|&n| LazyPlan {
                workload,
                n,
                cell: OnceCell::new(),
            })
            .collect();
        let w = workload.name();

        let mut g = c.benchmark_group(format!("insert/{w}"));
        for plan in &plans {
            each_structure!(runner.insert(&mut g, plan));
        }
        g.finish();

        let mut g = c.benchmark_group(format!("delete/{w}"));
        for plan in &plans {
            each_structure!(runner.delete(&mut g, plan));
        }
        g.finish();

        let mut g = c.benchmark_group(format!("expire/{w}"));
        g.sampling_mode(SamplingMode::Flat);
        for plan in &plans {
            each_structure!(runner.expire(&mut g, plan));
        }
        g.finish();

        let mut g = c.benchmark_group(format!("tick/{w}"));
        for plan in &plans {
            each_structure!(runner.tick(&mut g, plan));
        }
        g.finish();
    }

    // Steady state of a stream, per tick: `mixed` only, from 1e4 timers (at
    // 1e3 almost every tick is empty, which `tick` covers).
    let steady: Vec<LazyPlan> = sizes
        .iter()
        .filter(|&&n| n >= 10_000 || !bench_mode)
        .map(|&n| LazyPlan {
            workload: Workload::Mixed,
            n,
            cell: OnceCell::new(),
        })
        .collect();
    for (group, with_arrivals) in [("steady_tick", false), ("steady_tick_insert", true)] {
        let mut g = c.benchmark_group(format!("{group}/mixed"));
        g.sampling_mode(SamplingMode::Flat);
        g.measurement_time(STEADY_TIME);
        for plan in &steady {
            each_structure!(runner.steady(&mut g, plan, with_arrivals));
        }
        g.finish();
    }

    lone(&mut c);
    c.final_summary();
}

/// The `lone/*` groups (see the module docs).
fn lone(c: &mut Criterion) {
    type TtlOf = fn(u64) -> u64;
    let shapes: [(&str, TtlOf); 3] = [
        ("recurring", |_| 312_500),
        ("never_recurring", |i| 312_500 + (i * 7_919) % 1_000),
        ("short", |i| 100 + i % 3),
    ];
    for (shape, ttl_of) in shapes {
        let mut g = c.benchmark_group(format!("lone/{shape}"));
        for deferred in [false, true] {
            let id = if deferred { "lawn_deferred" } else { "lawn" };
            g.bench_function(id, |b| {
                let mut lawn = lawn_rt::lawn::Lawn::new();
                let mut i = 0u64;
                b.iter(|| {
                    i += 1;
                    let now = i / 320;
                    let key = match deferred {
                        true => lawn.insert_deferred(now, ttl_of(i), i),
                        false => lawn.insert(now, ttl_of(i), i),
                    };
                    black_box(lawn.remove(black_box(key)))
                });
                assert!(lawn.is_empty());
            });
        }
        g.finish();
    }
}
