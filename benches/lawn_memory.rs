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

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use baselines::workload::{Plan, Workload};
use baselines::{BTreeQueue, HashedWheel, HeapQueue, HierWheel, TimerQueue};
use lawn_rt::lawn::Lawn;

/// Bytes currently allocated through the global allocator.
static CURRENT: AtomicUsize = AtomicUsize::new(0);
/// Highest value of `CURRENT` since the last reset.
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

impl Counting {
    fn grew(by: usize) {
        let now = CURRENT.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }

    fn shrank(by: usize) {
        CURRENT.fetch_sub(by, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged and only updates counters around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            Self::grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            Self::grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) };
        Self::shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded contract.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // Counted as allocating the new block before freeing the old one:
            // the peak is then an upper bound (a copying realloc needs both).
            Self::grew(new_size);
            Self::shrank(layout.size());
        }
        new
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
    let before = CURRENT.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut q = Q::new();
    plan.fill_into(&mut q, 0, |_| {});
    let after = CURRENT.load(Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed);
    let n = plan.n as f64;
    let row = Row {
        workload: plan.workload.name(),
        structure: Q::name(),
        measured: after.saturating_sub(before) as f64 / n,
        peak: peak.saturating_sub(before) as f64 / n,
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
