//! The cost of one tick in the steady state, as a distribution: mean, p50,
//! p99, p99.9, p99.99 and max per structure, with the ratio to the Lawn,
//! and the mean by tick number (ticks where a hierarchical wheel cascades,
//! and the others).
//!
//! ```text
//! cargo bench --bench tick_cost                    # n = 1e6, ~75 s
//! cargo bench --bench tick_cost -- 10000 100000    # other sizes
//! cargo bench --bench tick_cost -- 1000000 lawn hier_wheel   # some structures
//! ```
//!
//! Prints markdown tables (to stdout; progress goes to stderr). Without `--bench` (`cargo test --benches`) it runs
//! a smoke test: n = 1 000, 1 000 ticks to settle, 4 096 timed ticks, once.
//!
//! Workload `mixed` (ten TTLs, 100 to 120 000 ticks), fed as a stream (see
//! `benches/baselines/steady.rs`): every tick pops the timers due and then
//! starts `n / mean TTL` new ones (43.7 at 1e6), so ~`n` stay pending. Per
//! structure: the steady-state prefill (untimed), then 120 000 untimed ticks
//! (one longest TTL: afterwards every pending timer came from the stream),
//! then a window of `WINDOW` = 262 144 consecutive ticks, each timed with
//! `Instant`. Any 262 144 consecutive ticks hold exactly one start of a
//! 262 144-tick block, 64 of 4 096-tick blocks and 4 096 of 64-tick blocks,
//! so the hierarchical wheel's cascades from levels 3, 2 and 1 are in the
//! window in proportion. Two figures per tick:
//!
//! * `tick`: advance to the tick and pop every due timer;
//! * `tick + arrivals`: that, plus starting the tick's new timers.
//!
//! A tick takes microseconds at 1e6; the `Instant` pair around it costs
//! ~20 ns (measured and printed) and is included in every figure, the
//! Lawn's too (`tick + arrivals` spans three reads: ~40 ns).
//!
//! Noise: on a shared machine the OS takes the core away now and then for
//! milliseconds, which would own the max and p99.9. The work is
//! deterministic (same plan, same seed), so each structure runs the whole
//! thing `REPEATS` = 3 times from scratch and every tick keeps its fastest
//! time; a preemption has to hit the same tick in all three runs to show.
//!
//! Check: every tick pops exactly the timers due at it (a calendar in the
//! stream), and all structures (and repeats) must agree on the count and
//! digest of the popped timers and on the pending count at the same ticks.
//!
//! The hashed wheel walks ~`n / 512` entries per tick (about 2 000 cache
//! misses at 1e6; its cost has a period of 512 ticks, no cascades): it
//! settles for 16 384 ticks and times 16 384 (32 rotations), unless
//! `LAWN_BENCH_FULL=1`: ~15 s at 1e6 instead of ~3 minutes (155 µs per
//! tick). It is checked against the others at the end of its shorter run.

mod baselines;

#[path = "support/thousands.rs"]
mod thousands;

use std::time::Instant;

use baselines::steady::{Stream, HASHED_SETTLE};
use baselines::workload::{Plan, Workload};
use baselines::{BTreeQueue, HashedWheel, HeapQueue, HierWheel, TimerQueue};
use lawn_rt::lawn::Lawn;

/// Timed ticks per structure: one 262 144-tick block of the hierarchical wheel.
const WINDOW: u64 = 1 << 18;
/// The hashed wheel's window unless `LAWN_BENCH_FULL` is set.
const HASHED_WINDOW: u64 = 1 << 14;
/// Runs per structure; each tick keeps its fastest time (see module docs).
const REPEATS: usize = 3;
const SEED: u64 = 0x5EED_7104_0000_0001;

/// Untimed and timed ticks of one run.
#[derive(Clone, Copy)]
struct Span {
    settle: u64,
    window: u64,
}

impl Span {
    fn end(self) -> u64 {
        self.settle + self.window
    }
}

#[derive(Clone, Copy)]
struct Config {
    span: Span,
    hashed: Span,
    repeats: usize,
}

/// What the stream popped by a tick: `(ticks since the prefill, popped,
/// digest, pending)`.
type Check = (u64, u64, u64, usize);

/// The timed ticks of one structure.
struct Run {
    name: &'static str,
    span: Span,
    /// The tick (`now`) of the first timed tick.
    first: u64,
    /// ns per tick (fastest of the repeats), in tick order.
    tick: Vec<u64>,
    /// ns per tick + arrivals (fastest of the repeats), in tick order.
    with_arrivals: Vec<u64>,
    checks: Vec<Check>,
    rate: f64,
}

fn measure<Q: TimerQueue>(plan: &Plan, cfg: Config) -> Run {
    let span = if Q::name() == "hashed_wheel" {
        cfg.hashed
    } else {
        cfg.span
    };
    let check_at = [cfg.hashed.end(), cfg.span.end()];
    let mut tick = vec![u64::MAX; span.window as usize];
    let mut with_arrivals = tick.clone();
    let mut checks: Vec<Check> = Vec::new();
    let (mut rate, mut first) = (0.0, 0);
    for repeat in 0..cfg.repeats {
        let mut s = Stream::<Q>::new(plan, SEED);
        rate = s.rate();
        first = s.now() + span.settle + 1;
        let mut seen = Vec::new();
        for k in 1..=span.end() {
            let t = s.step();
            if k > span.settle {
                let i = (k - span.settle - 1) as usize;
                tick[i] = tick[i].min(t.tick.as_nanos() as u64);
                with_arrivals[i] = with_arrivals[i].min((t.tick + t.arrivals).as_nanos() as u64);
            }
            if check_at.contains(&k) {
                seen.push((k, s.popped(), s.digest(), s.len()));
            }
        }
        if repeat == 0 {
            checks = seen;
        } else {
            assert_eq!(checks, seen, "{}: a repeat popped other timers", Q::name());
        }
    }
    Run {
        name: Q::name(),
        span,
        first,
        tick,
        with_arrivals,
        checks,
        rate,
    }
}

/// The `q`-quantile of sorted samples (nearest rank).
fn quantile(sorted: &[u64], q: f64) -> u64 {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Mean, p50, p99, p99.9, p99.99 and max, in ns.
fn stats(ns: &[u64]) -> [f64; 6] {
    let mut sorted = ns.to_vec();
    sorted.sort_unstable();
    [
        sorted.iter().sum::<u64>() as f64 / sorted.len() as f64,
        quantile(&sorted, 0.5) as f64,
        quantile(&sorted, 0.99) as f64,
        quantile(&sorted, 0.999) as f64,
        quantile(&sorted, 0.9999) as f64,
        sorted[sorted.len() - 1] as f64,
    ]
}

/// Block sizes of the hierarchical wheel's levels 1 to 3: a tick that is a
/// multiple of one starts a block of that level (and cascades its slot).
const BLOCKS: [u64; 3] = [64, 4_096, 262_144];

/// Per tick class (ticks that start no block, then the largest block they
/// start, per `BLOCKS`): `(ticks, total ns)`.
fn by_class(run: &Run) -> [(u64, u64); 4] {
    let mut classes = [(0, 0); 4];
    for (i, &ns) in run.tick.iter().enumerate() {
        let now = run.first + i as u64;
        let class = BLOCKS.iter().filter(|&&b| now % b == 0).count();
        classes[class].0 += 1;
        classes[class].1 += ns;
    }
    classes
}

/// `1234567.8` as `1,234,568`.
fn grouped(x: f64) -> String {
    thousands::thousands(x.round() as u64)
}

fn table(title: &str, runs: &[Run], pick: fn(&Run) -> &[u64]) {
    println!("\n{title}, ns per tick (ratio to the Lawn; above 1 = the Lawn is faster)\n");
    println!("| structure | mean | p50 | p99 | p99.9 | p99.99 | max |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let lawn = runs
        .iter()
        .find(|r| r.name == "lawn")
        .map(|r| stats(pick(r)));
    for r in runs {
        let s = stats(pick(r));
        let cells: Vec<String> = (0..s.len())
            .map(|i| match lawn {
                Some(l) if r.name != "lawn" => format!("{} ({:.1}x)", grouped(s[i]), s[i] / l[i]),
                _ => grouped(s[i]),
            })
            .collect();
        println!("| {} | {} |", r.name, cells.join(" | "));
    }
}

/// Median cost of an `Instant` pair around nothing.
fn clock_pair_ns() -> u64 {
    let mut v: Vec<u64> = (0..100_000)
        .map(|_| {
            let a = Instant::now();
            let b = Instant::now();
            (b - a).as_nanos() as u64
        })
        .collect();
    v.sort_unstable();
    quantile(&v, 0.5)
}

fn report(n: usize, runs: &[Run], cfg: Config) {
    let Some(first) = runs.first() else { return };
    println!("\n## mixed, {} pending timers\n", grouped(n as f64));
    println!(
        "{:.2} arrivals (and expiries) per tick; fastest of {} runs per tick; \
         an `Instant` pair costs ~{} ns (in every figure).\n",
        first.rate,
        cfg.repeats,
        clock_pair_ns()
    );
    for r in runs {
        let (_, popped, _, pending) = r.checks[r.checks.len() - 1];
        println!(
            "- {}: ticks {}..={} after the prefill timed, {} popped since the prefill, {} pending at the end",
            r.name,
            grouped((r.span.settle + 1) as f64),
            grouped(r.span.end() as f64),
            grouped(popped as f64),
            grouped(pending as f64)
        );
    }
    table("tick (advance + pop every due timer)", runs, |r| &r.tick);
    table("tick + arrivals", runs, |r| &r.with_arrivals);
    classes(runs);
}

/// Where the tick time goes: mean per tick class, and the share of all
/// tick time spent in the ticks that start a block.
fn classes(runs: &[Run]) {
    println!(
        "\ntick by tick number: mean ns at ticks that start no 64-tick block, \
         and at ticks that start a block of 64, 4 096 and 262 144 ticks (the \
         hierarchical wheel's levels 1, 2 and 3: these ticks cascade); the \
         block starts are 1.6% of the ticks\n"
    );
    println!("| structure | other | 64 | 4 096 | 262 144 | time in block starts |");
    println!("|---|---:|---:|---:|---:|---:|");
    for r in runs {
        let classes = by_class(r);
        let mut cells: Vec<String> = classes
            .iter()
            .map(|&(ticks, ns)| match ticks {
                0 => "–".to_string(),
                _ => grouped(ns as f64 / ticks as f64),
            })
            .collect();
        let total: u64 = classes.iter().map(|c| c.1).sum();
        let starts: u64 = classes[1..].iter().map(|c| c.1).sum();
        cells.push(format!("{:.0}%", 100.0 * starts as f64 / total as f64));
        println!("| {} | {} |", r.name, cells.join(" | "));
    }
}

/// Asserts that all runs popped the same timers by the same ticks.
fn check(runs: &[Run]) {
    for a in runs {
        for b in runs {
            for seen in &a.checks {
                if let Some(other) = b.checks.iter().find(|c| c.0 == seen.0) {
                    assert_eq!(
                        seen, other,
                        "{} and {} disagree on (ticks, popped, digest, pending)",
                        a.name, b.name
                    );
                }
            }
        }
    }
}

/// Runs `measure::<Q>` for every selected structure, in report order.
fn run_all(plan: &Plan, cfg: Config, wanted: &[String]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut one = |name: &str, f: fn(&Plan, Config) -> Run| {
        if wanted.is_empty() || wanted.iter().any(|w| w == name) {
            let start = Instant::now();
            runs.push(f(plan, cfg));
            eprintln!("{name}: n = {} in {:.1?}", plan.n, start.elapsed());
        }
    };
    one("lawn", measure::<Lawn<u64>>);
    one("hashed_wheel", measure::<HashedWheel>);
    one("hier_wheel", measure::<HierWheel>);
    one("binary_heap", measure::<HeapQueue>);
    one("btree", measure::<BTreeQueue>);
    runs
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench_mode = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
    let full = std::env::var_os("LAWN_BENCH_FULL").is_some_and(|v| v != "0");
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let wanted: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with('-') && a.parse::<usize>().is_err())
        .cloned()
        .collect();
    // One longest TTL of `mixed`.
    let settle = baselines::workload::MIXED_TTLS[9];
    let cfg = if bench_mode {
        let span = Span {
            settle,
            window: WINDOW,
        };
        let short = Span {
            settle: HASHED_SETTLE,
            window: HASHED_WINDOW,
        };
        Config {
            span,
            hashed: if full { span } else { short },
            repeats: REPEATS,
        }
    } else {
        sizes = vec![1_000];
        let span = Span {
            settle: 1_000,
            window: 4_096,
        };
        Config {
            span,
            hashed: span,
            repeats: 1,
        }
    };
    if sizes.is_empty() {
        sizes.push(1_000_000);
    }
    for n in sizes {
        let plan = Plan::new(Workload::Mixed, n, SEED);
        let runs = run_all(&plan, cfg, &wanted);
        check(&runs);
        report(n, &runs, cfg);
    }
}
