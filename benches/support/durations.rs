//! The duration lists `time.rs` and `time_memory.rs` share. Included with
//! `#[path]`.

use std::time::Duration;

const SEED: u64 = 0x5EED_1A57_0000_0001;

/// `n` durations cycling through 1..=10 ms.
pub fn fixed_durations(n: usize) -> Vec<Duration> {
    (0..n)
        .map(|i| Duration::from_millis(1 + (i % 10) as u64))
        .collect()
}

/// `n` durations uniform in 1 ms..1 h, in whole microseconds (xorshift64*,
/// a fixed seed: the same list every run).
pub fn uniform_durations(n: usize) -> Vec<Duration> {
    const MIN_US: u64 = 1_000;
    const MAX_US: u64 = 3_600_000_000;
    let mut x = SEED;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
            Duration::from_micros(MIN_US + r % (MAX_US - MIN_US))
        })
        .collect()
}
