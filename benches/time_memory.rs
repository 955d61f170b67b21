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
//! * `RSS/timer`: the growth of the process's resident set (`VmRSS` in
//!   `/proc/self/status`, Linux) over the fill / n: what the allocator's
//!   size classes and headers make of those bytes (glibc rounds a 48-byte
//!   box up to a 64-byte chunk and tokio's 112-byte one to 128) — the
//!   figure the memory target (≤ 0.75x of tokio's) is about;
//! * `lawn/tokio`: the ratios of the two `bytes/timer` and of the two
//!   `RSS/timer`.
//!
//! Every measurement runs in a fresh child process (this binary, re-run
//! with `--child`), so memory freed by an earlier one does not flatter a
//! later one's RSS. The vector holding the boxes is allocated and touched
//! before measuring and excluded.
//! Run with `cargo bench --bench time_memory` (about 10 s): n = 100,000 and
//! 1,000,000. Without `--bench` (`cargo test --benches`) it runs n = 10,000
//! as a smoke test; `--list` prints nothing; other arguments are ignored.

// If this target is ever built with the libtest harness, `main` is unused
// there: keep that build warning-free.
#![cfg_attr(test, allow(dead_code))]

use std::future::Future;
use std::pin::Pin;
use std::process::Command;
use std::task::{Context, Waker};
use std::time::Duration;

use lawn_rt::driver::Driver;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
#[path = "support/durations.rs"]
mod durations;
use durations::{fixed_durations, uniform_durations};

/// Bytes per timer after the fill, at the peak during it, and resident.
struct Measured {
    bytes: f64,
    peak: f64,
    rss: f64,
}

/// The process's resident set in bytes (0 where `/proc` has no `VmRSS`).
fn resident_bytes() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb * 1024.0)
}

/// Boxes `make(d)` for every duration into `boxes` (allocated and touched
/// beforehand) and polls each once; measures what that allocated.
fn fill<S: Future<Output = ()>>(
    boxes: &mut [Option<Pin<Box<S>>>],
    durations: &[Duration],
    make: impl Fn(Duration) -> S,
) -> Measured {
    assert_eq!(boxes.len(), durations.len());
    let mut cx = Context::from_waker(Waker::noop());
    let resident = resident_bytes();
    let ((), bytes, peak) = counting_alloc::measure(|| {
        for (slot, &d) in boxes.iter_mut().zip(durations) {
            let mut sleep = Box::pin(make(d));
            assert!(sleep.as_mut().poll(&mut cx).is_pending(), "sleep was ready");
            *slot = Some(sleep);
        }
    });
    let n = durations.len() as f64;
    Measured {
        bytes: bytes as f64 / n,
        peak: peak as f64 / n,
        rss: (resident_bytes() - resident) / n,
    }
}

/// Room for `n` boxes, its pages touched (so they are not counted as RSS
/// growth during the fill).
fn slots<S>(n: usize) -> Vec<Option<Pin<Box<S>>>> {
    let mut boxes = Vec::new();
    boxes.resize_with(n, || None);
    boxes
}

/// lawn_rt's figures, and the driver's own count of its Lawn per timer.
fn lawn_rt(durations: &[Duration]) -> (Measured, f64) {
    let driver = Driver::new();
    driver.pause();
    let _entered = driver.handle().enter();
    let mut boxes = slots(durations.len());
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
    let mut boxes = slots(durations.len());
    // Under `unconstrained`: tokio's cooperative budget would otherwise let
    // only 128 sleeps register.
    let measured = rt.block_on(tokio::task::unconstrained(async {
        fill(&mut boxes, durations, tokio::time::sleep)
    }));
    drop(boxes);
    measured
}

/// The durations of a workload.
fn workload(name: &str, n: usize) -> Vec<Duration> {
    match name {
        "fixed10" => fixed_durations(n),
        "uniform" => uniform_durations(n),
        _ => panic!("time_memory: unknown workload {name:?} (fixed10 or uniform)"),
    }
}

/// `--child SIDE WORKLOAD N`: measures one side and prints its figures on
/// one line (bytes, peak, RSS, and the Lawn's own count for lawn_rt).
fn child(args: &[String]) {
    let [side, name, n] = args else {
        panic!("time_memory: --child takes SIDE WORKLOAD N, got {args:?}");
    };
    let n: usize = n
        .parse()
        .unwrap_or_else(|_| panic!("time_memory: N must be a count, got {n:?}"));
    let durations = workload(name, n);
    let (m, reported) = match side.as_str() {
        "lawn_rt" => lawn_rt(&durations),
        "tokio" => (tokio(&durations), 0.0),
        _ => panic!("time_memory: unknown side {side:?} (lawn_rt or tokio)"),
    };
    println!("{} {} {} {}", m.bytes, m.peak, m.rss, reported);
}

/// Runs `--child` in a fresh process and parses its line.
fn measure_in_child(side: &str, name: &str, n: usize) -> (Measured, f64) {
    let exe = std::env::current_exe().expect("time_memory: path of this binary");
    let output = Command::new(exe)
        .args(["--child", side, name, &n.to_string()])
        .output()
        .expect("time_memory: running the child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "time_memory: the {side} {name} {n} child failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let numbers: Vec<f64> = stdout
        .split_whitespace()
        .map(|x| x.parse().expect("time_memory: the child printed a number"))
        .collect();
    let [bytes, peak, rss, reported] = numbers[..] else {
        panic!("time_memory: the child printed {stdout:?}");
    };
    (Measured { bytes, peak, rss }, reported)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    if args.first().is_some_and(|a| a == "--child") {
        return child(&args[1..]);
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
        "| workload | n | lawn_rt bytes/timer | lawn_rt peak/timer | lawn/timer | lawn_rt RSS/timer \
         | tokio bytes/timer | tokio peak/timer | tokio RSS/timer | lawn/tokio bytes | lawn/tokio RSS |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        for name in ["fixed10", "uniform"] {
            let (lawn, reported) = measure_in_child("lawn_rt", name, n);
            let (tokio, _) = measure_in_child("tokio", name, n);
            println!(
                "| {name} | {n} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} |",
                lawn.bytes,
                lawn.peak,
                reported,
                lawn.rss,
                tokio.bytes,
                tokio.peak,
                tokio.rss,
                lawn.bytes / tokio.bytes,
                lawn.rss / tokio.rss,
            );
        }
    }
}
