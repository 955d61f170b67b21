//! Memory per pending registered timer: `lawn_rt::time::Sleep` against
//! `tokio::time::Sleep`.
//!
//! A plain binary (no criterion) with a counting global allocator that wraps
//! `std::alloc::System` and tracks the bytes currently allocated (and the
//! peak). For each workload (`fixed10`: durations cycling through 1..=10 ms;
//! `uniform`: uniform in 1 ms..1 h) and size it makes `n` sleeps with
//! `Box::pin(sleep(d))` on a paused clock, polls each once (so it registers),
//! and prints a markdown table with:
//!
//! * `bytes/timer`: (bytes allocated after − before) / n, everything the
//!   timers cost: the `Box` holding the `Sleep` and, for `lawn_rt`, the
//!   driver's Lawn (allocator-visible slack such as `Vec` capacity included).
//!   tokio's timer entries live inside its `Sleep` and its wheel is
//!   allocated with the runtime, so its figure is the `Box`;
//! * `peak/timer`: the highest allocated bytes during the fill / n (a
//!   `realloc` counts the new block before the old one is freed);
//! * `lawn/timer`: `Driver::allocated_bytes()` / n, the driver's own count
//!   of its Lawn, as a cross-check (`lawn_rt` only);
//! * `lawn/tokio`: the ratio of the two `bytes/timer` (design target ≤ 0.75).
//!
//! The vector holding the boxes is allocated before measuring and excluded.
//! Run with `cargo bench --bench time_memory` (a few seconds): n = 100,000 and
//! 1,000,000. Without `--bench` (`cargo test --benches`) it runs n = 10,000
//! as a smoke test; `--list` prints nothing; other arguments are ignored.

// If this target is ever built with the libtest harness, `main` is unused
// there: keep that build warning-free.
#![cfg_attr(test, allow(dead_code))]

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};
use std::time::Duration;

use lawn_rt::driver::Driver;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
#[path = "support/durations.rs"]
mod durations;
use durations::{fixed_durations, uniform_durations};

/// Bytes per timer after the fill, and at the peak during it.
struct Measured {
    bytes: f64,
    peak: f64,
}

/// Boxes `make(d)` for every duration into `boxes` (allocated beforehand)
/// and polls each once; measures the allocations that made.
fn fill<S: Future<Output = ()>>(
    boxes: &mut Vec<Pin<Box<S>>>,
    durations: &[Duration],
    make: impl Fn(Duration) -> S,
) -> Measured {
    assert!(boxes.is_empty() && boxes.capacity() >= durations.len());
    let mut cx = Context::from_waker(Waker::noop());
    let ((), bytes, peak) = counting_alloc::measure(|| {
        for &d in durations {
            let mut sleep = Box::pin(make(d));
            assert!(sleep.as_mut().poll(&mut cx).is_pending(), "sleep was ready");
            boxes.push(sleep);
        }
    });
    let n = durations.len() as f64;
    Measured {
        bytes: bytes as f64 / n,
        peak: peak as f64 / n,
    }
}

/// lawn_rt's figures, and the driver's own count of its Lawn per timer.
fn lawn_rt(durations: &[Duration]) -> (Measured, f64) {
    let driver = Driver::new();
    driver.pause();
    let _entered = driver.handle().enter();
    let mut boxes = Vec::with_capacity(durations.len());
    let measured = fill(&mut boxes, durations, lawn_rt::time::sleep);
    assert_eq!(driver.handle().pending_timers(), durations.len());
    let reported = driver.allocated_bytes() as f64 / durations.len() as f64;
    drop(boxes);
    (measured, reported)
}

fn tokio(durations: &[Duration]) -> Measured {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("tokio runtime");
    let mut boxes = Vec::with_capacity(durations.len());
    // Under `unconstrained`: tokio's cooperative budget would otherwise let
    // only 128 sleeps register.
    let measured = rt.block_on(tokio::task::unconstrained(async {
        fill(&mut boxes, durations, tokio::time::sleep)
    }));
    drop(boxes);
    measured
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let bench_mode = args.iter().any(|a| a == "--bench");
    let sizes: &[usize] = if bench_mode {
        &[100_000, 1_000_000]
    } else {
        &[10_000]
    };

    println!("# Memory per pending registered timer\n");
    println!(
        "`size_of::<lawn_rt::time::Sleep>()` = {} B, `size_of::<tokio::time::Sleep>()` = {} B\n",
        size_of::<lawn_rt::time::Sleep>(),
        size_of::<tokio::time::Sleep>()
    );
    println!(
        "| workload | n | lawn_rt bytes/timer | lawn_rt peak/timer | lawn/timer \
         | tokio bytes/timer | tokio peak/timer | lawn/tokio |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let workloads = [
            ("fixed10", fixed_durations(n)),
            ("uniform", uniform_durations(n)),
        ];
        for (name, durations) in &workloads {
            let (lawn, reported) = lawn_rt(durations);
            let tokio = tokio(durations);
            println!(
                "| {name} | {n} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} |",
                lawn.bytes,
                lawn.peak,
                reported,
                tokio.bytes,
                tokio.peak,
                lawn.bytes / tokio.bytes,
            );
        }
    }
}
