//! Drives a `Lawn` the way a busy server drives its timers, by hand.
//!
//! Each simulated millisecond tick, new requests arrive; each gets a request
//! timeout (a few fixed TTLs), most requests finish in time and cancel it,
//! some keep-alive connections reset an idle timer, and whatever is due
//! fires. The demo checks every fired timer against its deadline (never
//! early, never late) and prints what the Lawn did and what it cost.
//!
//! ```text
//! cargo run --release --example lawn_demo               # 1,000,000 timers
//! cargo run --release --example lawn_demo -- 100000     # fewer
//! ```

use std::time::Instant;

use lawn_rt::lawn::{Lawn, TimerKey};

/// Request timeouts (ms) a service might use: a handful of values.
const TTLS: [u64; 5] = [100, 500, 1_000, 5_000, 30_000];
/// Idle timeout for keep-alive connections (ms).
const IDLE: u64 = 60_000;

#[derive(Clone, Copy)]
enum Timer {
    Request { due: u64 },
    Idle { due: u64 },
}

fn main() {
    let total: usize = match std::env::args().nth(1) {
        None => 1_000_000,
        Some(arg) if arg == "--help" || arg == "-h" => {
            println!("usage: lawn_demo [TIMERS]   (default 1000000)");
            return;
        }
        Some(arg) => arg
            .parse()
            .unwrap_or_else(|_| panic!("TIMERS must be a whole number, got {arg:?}")),
    };
    let mut lawn: Lawn<Timer> = Lawn::new();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut in_flight: Vec<TimerKey> = Vec::new();
    let mut idle: Vec<TimerKey> = Vec::new();
    let (mut started, mut cancelled, mut fired, mut resets) = (0usize, 0usize, 0usize, 0usize);
    let (mut peak_timers, mut peak_buckets, mut peak_bytes) = (0, 0, 0);
    let per_tick = 500; // requests arriving per millisecond
    let clock = Instant::now();
    let mut now = 0u64;
    while started < total || !lawn.is_empty() {
        for _ in 0..per_tick {
            if started >= total {
                break;
            }
            let ttl = TTLS[(rand() % TTLS.len() as u64) as usize];
            let timer = Timer::Request { due: now + ttl };
            in_flight.push(lawn.insert(now, ttl, timer));
            started += 1;
            if rand() % 10 == 0 && started < total {
                idle.push(lawn.insert(now, IDLE, Timer::Idle { due: now + IDLE }));
                started += 1;
            }
        }
        // 95% of requests complete in time: cancel their timeouts.
        for _ in 0..per_tick * 95 / 100 {
            if in_flight.is_empty() {
                break;
            }
            let at = (rand() % in_flight.len() as u64) as usize;
            if lawn.remove(in_flight.swap_remove(at)).is_some() {
                cancelled += 1;
            }
        }
        // While traffic lasts, some keep-alive connections see a request:
        // push their idle timer back.
        let traffic = if started < total { per_tick / 20 } else { 0 };
        for _ in 0..traffic {
            if idle.is_empty() {
                break;
            }
            let key = idle[(rand() % idle.len() as u64) as usize];
            if lawn.get(key).is_some() {
                lawn.reset(key, now, IDLE);
                *lawn.get_mut(key).unwrap() = Timer::Idle { due: now + IDLE };
                resets += 1;
            }
        }
        peak_timers = peak_timers.max(lawn.len());
        peak_buckets = peak_buckets.max(lawn.bucket_count());
        peak_bytes = peak_bytes.max(lawn.allocated_bytes());
        while let Some((_, timer)) = lawn.pop_expired(now) {
            let (Timer::Request { due } | Timer::Idle { due }) = timer;
            assert_eq!(due, now, "a timer fired at {now} but was due at {due}");
            fired += 1;
        }
        // Skip idle stretches like a driver would: straight to the next deadline.
        now = match (started < total, lawn.next_deadline()) {
            (true, _) => now + 1,
            (false, Some(next)) => next.max(now + 1),
            (false, None) => now,
        };
        if started >= total && lawn.is_empty() {
            break;
        }
        if now % 1024 == 0 {
            in_flight.retain(|key| lawn.get(*key).is_some());
        }
    }
    let elapsed = clock.elapsed();
    println!("lawn_demo: {started} timers over {now} simulated ms");
    println!("  cancelled {cancelled}, fired {fired} (each exactly at its deadline), idle resets {resets}");
    println!(
        "  peak: {peak_timers} pending timers in {peak_buckets} buckets; peak heap held by the Lawn {:.1} MiB ({} bytes a slot)",
        peak_bytes as f64 / (1 << 20) as f64,
        std::mem::size_of::<Timer>() + 24
    );
    println!(
        "  wall time {:.1} ms, {:.0} ns per timer started (insert + cancel or fire, resets, bookkeeping)",
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_nanos() as f64 / started.max(1) as f64
    );
    assert_eq!(
        cancelled + fired,
        started,
        "every timer was either cancelled or fired"
    );
}
