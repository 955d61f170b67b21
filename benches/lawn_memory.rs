//! Memory per pending timer: the Lawn against the baselines.
//!
//! A plain binary (no criterion) with a counting global allocator that wraps
//! `std::alloc::System` and tracks the bytes currently allocated (and the
//! peak). For each workload (`fixed`, `mixed`, `uniform`) and structure it
//! fills 1e6 timers in the benchmarks' steady state (see
//! `benches/baselines/workload.rs`; the plan is generated before measuring)
//! and prints a markdown table with:
//!
//! * `bytes/timer`: (bytes allocated after the fill − before) / n, the
//!   ground truth, including allocator-visible slack such as `Vec` capacity;
//! * `peak/timer`: highest allocated bytes during the fill / n, counting a
//!   `realloc` as a new block allocated before the old one is freed (an
//!   upper bound: growing a `Vec` by copying needs both for a moment);
//! * `reported/timer`: the structure's own `allocated_bytes()` / n, as a
//!   cross-check (an estimate for `btree`, whose nodes std does not expose);
//! * `buckets`: the Lawn's `bucket_count()`.
//!
//! Run with `cargo bench --bench lawn_memory` (release; a few seconds).
//! `cargo bench` passes `--bench` and any filter: the filter is ignored and
//! everything runs. Without `--bench` (e.g. `cargo test --benches`) it runs a
//! quick smoke version with 1e4 timers; `--list` prints nothing. The size can
//! be overridden with `LAWN_MEMORY_N`.

// If this target is ever built with the libtest harness (no `[[bench]]`
// entry with `harness = false`), `main` is unused there: keep that build
// warning-free.
#![cfg_attr(test, allow(dead_code))]

mod baselines;
#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use baselines::workload::{Plan, Workload};
use baselines::{BTreeQueue, HashedWheel, HeapQueue, HierWheel, TimerQueue};
use lawn_rt::lawn::Lawn;

const SEED: u64 = 0x5EED_1A57_0000_0001;

/// One row of the table.
struct Row {
    workload: &'static str,
    structure: &'static str,
    measured: f64,
    peak: f64,
    reported: f64,
    buckets: Option<usize>,
}

/// Fills a `Q` from `plan` and measures it; `buckets` reads the bucket count.
fn measure<Q: TimerQueue>(plan: &Plan, buckets: impl Fn(&Q) -> Option<usize>) -> Row {
    let (q, bytes, peak) = counting_alloc::measure(|| {
        let mut q = Q::new();
        plan.fill_into(&mut q, 0, |_| {});
        q
    });
    let n = plan.n as f64;
    let row = Row {
        workload: plan.workload.name(),
        structure: Q::name(),
        measured: bytes as f64 / n,
        peak: peak as f64 / n,
        reported: q.allocated_bytes() as f64 / n,
        buckets: buckets(&q),
    };
    drop(q);
    row
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let bench_mode = args.iter().any(|a| a == "--bench");
    let n = std::env::var("LAWN_MEMORY_N")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(if bench_mode { 1_000_000 } else { 10_000 });

    println!("# Memory per pending timer, n = {n}\n");
    println!("| workload | structure | bytes/timer | peak/timer | reported/timer | buckets |");
    println!("|---|---|---:|---:|---:|---:|");
    for workload in [Workload::Fixed, Workload::Mixed, Workload::Uniform] {
        let plan = Plan::new(workload, n, SEED);
        let rows = [
            measure::<Lawn<u64>>(&plan, |l| Some(l.bucket_count())),
            measure::<HashedWheel>(&plan, |_| None),
            measure::<HierWheel>(&plan, |_| None),
            measure::<HeapQueue>(&plan, |_| None),
            measure::<BTreeQueue>(&plan, |_| None),
        ];
        for r in rows {
            println!(
                "| {} | {} | {:.1} | {:.1} | {:.1} | {} |",
                r.workload,
                r.structure,
                r.measured,
                r.peak,
                r.reported,
                r.buckets.map_or_else(|| "-".to_string(), |b| b.to_string()),
            );
        }
    }
}
