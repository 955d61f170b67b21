//! Punctual wake-ups: how much earlier than a deadline a sleeping thread
//! should ask to be woken, learnt from the wake-ups it got, and the short
//! wait on the CPU that closes the rest of the gap.
//!
//! The kernel takes tens of µs to wake a thread on a VM (a few on bare
//! metal), more than a short sleep's slack. A thread that sleeps until a
//! timer deadline asks to be woken [`Latency::early`] before it and spins
//! what is left ([`spin_until`]). The estimate tracks a low percentile of
//! the latency (it falls fast and rises slowly), so most wake-ups come a
//! little late and spin not at all. Used by the runtime's park loop
//! (`runtime/park.rs`, a timerfd) and by the foreign-executor driver thread
//! (`foreign/mod.rs`, a condition variable).
//!
//! Ground rules: plain data, owned by the one thread that sleeps.

use std::time::{Duration, Instant as StdInstant};

/// A low estimate of the kernel's wake-up latency.
#[derive(Debug)]
pub(crate) struct Latency {
    early_ns: u64,
}

impl Latency {
    /// The estimate before any wake-up was measured.
    const INITIAL_NS: u64 = 20_000;
    /// The estimate never exceeds this (a wake-up later than that is the
    /// machine being busy, not the kernel's latency).
    const MAX_NS: u64 = 100_000;

    pub(crate) const fn new() -> Latency {
        Latency {
            early_ns: Self::INITIAL_NS,
        }
    }

    /// How much earlier than its deadline to ask for a wake-up.
    #[inline]
    pub(crate) fn early(&self) -> Duration {
        Duration::from_nanos(self.early_ns)
    }

    /// Learns from a wake-up at `woke` asked for `expiry`.
    pub(crate) fn learn(&mut self, expiry: StdInstant, woke: StdInstant) {
        let late = woke.saturating_duration_since(expiry).as_nanos() as u64;
        let late = late.min(Self::MAX_NS);
        if late < self.early_ns {
            self.early_ns -= (self.early_ns - late) / 4;
        } else {
            self.early_ns += (late - self.early_ns) / 32;
        }
    }
}

/// Waits on the CPU until `at` (by `std`'s clock): for the last few µs of a
/// punctual wake-up, less than a sleep's own wake-up latency.
pub(crate) fn spin_until(at: StdInstant) {
    while StdInstant::now() < at {
        std::hint::spin_loop();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_falls_fast_rises_slowly_and_is_capped() {
        let t0 = StdInstant::now();
        let mut latency = Latency::new();
        for _ in 0..50 {
            latency.learn(t0, t0 + Duration::from_micros(4));
        }
        assert!(latency.early() < Duration::from_micros(5), "{latency:?}");
        // One slow wake-up barely moves it.
        latency.learn(t0, t0 + Duration::from_millis(50));
        assert!(latency.early() < Duration::from_micros(10), "{latency:?}");
        for _ in 0..1_000 {
            latency.learn(t0, t0 + Duration::from_secs(1));
        }
        let capped = Duration::from_nanos(Latency::MAX_NS);
        assert!(latency.early() <= capped && latency.early() > capped * 99 / 100);
        spin_until(t0); // in the past: returns at once
    }
}
