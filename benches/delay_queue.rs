//! `lawn_rt::time::DelayQueue` against tokio-util's `DelayQueue`: both
//! sides in one run, alternating rounds (A B A B), medians and ratios.
//!
//! ```text
//! cargo bench --bench delay_queue                      # 3 rounds, 1e3 / 1e5 / 1e6 entries
//! cargo bench --bench delay_queue -- --rounds 5 --sizes 100000
//! ```
//!
//! Each side runs in its own runtime's current-thread flavour (the queue
//! wakes through its runtime's timer: tokio-util's needs tokio's), with
//! `u64` values, for `N` entries and two kinds of delays: **fixed** (every
//! entry 60 s) and **uniform** (1 ms to 10 s, whole µs, random). Per entry:
//! - **insert**: `insert(value, delay)` of all N (real clock);
//! - **reset**: `reset(key, delay)` of each entry to a new delay of its kind;
//! - **remove**: `remove(key)` of every entry, in random order;
//! - **expire**: a fresh queue of N entries on a paused clock, advanced past
//!   the last deadline, drained through `Stream::next`;
//! - **bytes/entry**: heap bytes held by the queue after the inserts, its
//!   own fixed parts included (a counting global allocator), divided by N.
//!
//! Every real-clock phase runs before the first paused one: once a paused
//! tokio runtime has existed in a process, tokio reads its clock through
//! the runtime context, which would slow tokio-util's inserts and resets.
//!
//! Ratios are tokio-util / lawn_rt (above 1: lawn_rt faster or smaller).

#![cfg_attr(test, allow(dead_code))]

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
#[path = "support/measure.rs"]
mod measure;

use futures::StreamExt;
use measure::median;
use std::time::{Duration, Instant};

/// What one side measured for one size and kind of delays.
#[derive(Clone, Copy, Default)]
struct Sample {
    insert: f64,
    reset: f64,
    remove: f64,
    expire: f64,
    bytes: f64,
}

/// A table row: the operation, how to read it off a sample, its unit.
type Row = (&'static str, fn(&Sample) -> f64, &'static str);

/// The delays and removal order of one workload, made before measuring.
struct Plan {
    delays: Vec<Duration>,
    resets: Vec<Duration>,
    order: Vec<usize>,
}

impl Plan {
    fn new(n: usize, uniform: bool, seed: u64) -> Plan {
        let mut rng = seed | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut delay = || match uniform {
            true => Duration::from_micros(1_000 + next() % 9_999_000),
            false => Duration::from_secs(60),
        };
        let delays = (0..n).map(|_| delay()).collect();
        let resets = (0..n).map(|_| delay()).collect();
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        Plan {
            delays,
            resets,
            order,
        }
    }

    fn longest(&self) -> Duration {
        self.delays.iter().copied().max().unwrap_or_default()
    }
}

/// The same measurements against either crate: `$time` is its time module
/// (for `advance`), `$queue` its `DelayQueue`, `$runtime(paused)` builds a
/// current-thread runtime.
macro_rules! side {
    ($real:ident, $expire:ident, $queue:ty, $runtime:expr, $advance:path) => {
        /// Insert, bytes, reset and remove, on the real clock.
        fn $real(plan: &Plan) -> Sample {
            let n = plan.delays.len() as f64;
            let per_op = |start: Instant| start.elapsed().as_nanos() as f64 / n;
            let mut sample = Sample::default();
            $runtime(false).block_on(async {
                let mut keys = Vec::with_capacity(plan.delays.len());
                let start = Instant::now();
                let (mut queue, bytes, _) = counting_alloc::measure(|| {
                    let mut queue = <$queue>::new();
                    for (i, delay) in plan.delays.iter().enumerate() {
                        keys.push(queue.insert(i as u64, *delay));
                    }
                    queue
                });
                sample.insert = per_op(start);
                sample.bytes = bytes as f64 / n;
                let start = Instant::now();
                for (key, delay) in keys.iter().zip(&plan.resets) {
                    queue.reset(key, *delay);
                }
                sample.reset = per_op(start);
                let start = Instant::now();
                for &i in &plan.order {
                    std::hint::black_box(queue.remove(&keys[i]));
                }
                sample.remove = per_op(start);
            });
            sample
        }

        /// Expire, on a paused clock: ns per entry.
        fn $expire(plan: &Plan) -> f64 {
            let n = plan.delays.len() as f64;
            $runtime(true).block_on(async {
                let mut queue = <$queue>::new();
                for (i, delay) in plan.delays.iter().enumerate() {
                    queue.insert(i as u64, *delay);
                }
                $advance(plan.longest() + Duration::from_millis(1)).await;
                let start = Instant::now();
                let mut drained = 0;
                while let Some(entry) = queue.next().await {
                    std::hint::black_box(entry);
                    drained += 1;
                }
                assert_eq!(drained, plan.delays.len(), "entries lost");
                start.elapsed().as_nanos() as f64 / n
            })
        }
    };
}

fn lawn_runtime(paused: bool) -> lawn_rt::runtime::Runtime {
    lawn_rt::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(paused)
        .build()
        .expect("a lawn_rt runtime")
}

fn tokio_runtime(paused: bool) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(paused)
        .build()
        .expect("a tokio runtime")
}

side!(
    lawn_real,
    lawn_expire,
    lawn_rt::time::DelayQueue<u64>,
    lawn_runtime,
    lawn_rt::time::advance
);
side!(
    tokio_real,
    tokio_expire,
    tokio_util::time::DelayQueue<u64>,
    tokio_runtime,
    tokio::time::advance
);

fn main() {
    let mut rounds = 3;
    let mut sizes = vec![1_000, 100_000, 1_000_000];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        // `cargo bench` passes `--bench`; other arguments are ignored.
        match arg.as_str() {
            "--rounds" => rounds = args.next().and_then(|r| r.parse().ok()).unwrap_or(3),
            "--sizes" => {
                sizes = args
                    .next()
                    .map(|s| s.split(',').filter_map(|n| n.parse().ok()).collect())
                    .unwrap_or(sizes)
            }
            _ => {}
        }
    }
    println!("delay_queue: lawn_rt vs tokio-util, current-thread runtimes; {rounds} rounds, A B A B, medians\n");
    println!("| N | delays | op | lawn_rt | tokio-util | tokio-util / lawn_rt |");
    println!("|---:|---|---|---:|---:|---:|");
    let workloads: Vec<(usize, bool)> = sizes
        .iter()
        .flat_map(|&n| [(n, false), (n, true)])
        .collect();
    let plan = |(n, uniform): (usize, bool)| Plan::new(n, uniform, 0x5EED ^ n as u64);
    // Every real-clock phase first (see the module docs).
    let mut samples: Vec<(Vec<Sample>, Vec<Sample>)> = Vec::new();
    for &workload in &workloads {
        let plan = plan(workload);
        let (mut lawn, mut tokio) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            lawn.push(lawn_real(&plan));
            tokio.push(tokio_real(&plan));
        }
        samples.push((lawn, tokio));
    }
    for (&workload, (lawn, tokio)) in workloads.iter().zip(&mut samples) {
        let plan = plan(workload);
        for round in 0..rounds {
            lawn[round].expire = lawn_expire(&plan);
            tokio[round].expire = tokio_expire(&plan);
        }
    }
    for (&(n, uniform), (lawn, tokio)) in workloads.iter().zip(&samples) {
        let kind = if uniform { "uniform" } else { "fixed" };
        let ops: [Row; 6] = [
            ("insert", |s| s.insert, "ns"),
            ("remove", |s| s.remove, "ns"),
            ("insert+remove", |s| s.insert + s.remove, "ns"),
            ("reset", |s| s.reset, "ns"),
            ("expire", |s| s.expire, "ns"),
            ("bytes/entry", |s| s.bytes, "B"),
        ];
        for (op, get, unit) in ops {
            let l = median(lawn.iter().map(get).collect());
            let t = median(tokio.iter().map(get).collect());
            let ratios = median(
                lawn.iter()
                    .zip(tokio)
                    .map(|(l, t)| get(t) / get(l))
                    .collect(),
            );
            println!("| {n} | {kind} | {op} | {l:.1} {unit} | {t:.1} {unit} | {ratios:.2}x |");
        }
    }
}
