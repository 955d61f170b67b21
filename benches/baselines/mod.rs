//! Baseline timer queues for comparing against `lawn_rt::lawn::Lawn`.
//!
//! Shared by `benches/lawn.rs`, `benches/lawn_memory.rs` and (through
//! `#[path]`) `tests/bench_baselines.rs`. Every structure implements
//! [`TimerQueue`], a minimal common interface over integer ticks:
//!
//! * [`HashedWheel`] (`hashed_wheel.rs`): 512-slot hashed wheel with round
//!   counters (Netty / go-zero style).
//! * [`HierWheel`] (`hier_wheel.rs`): 6 x 64 hierarchical wheel (tokio style)
//!   with an overflow list for deadlines beyond `2^36` ticks.
//! * [`HeapQueue`] (`binary_heap.rs`): `BinaryHeap` with lazy deletion.
//! * [`BTreeQueue`] (`btree.rs`): `BTreeMap<(deadline, seq), value>`.
//! * `Lawn<u64>`: the structure under test.
//!
//! All of them are exact: `pop_expired(now)` never returns a timer before its
//! deadline and returns every timer with `deadline <= now` before it returns
//! `None`. Callers must pass non-decreasing `now` values.
//!
//! Also holds [`SplitMix64`], the small seeded PRNG used by the benches and
//! tests (no `rand` dependency), the workloads and steady-state prefills
//! (`workload.rs`) and a steady stream of timers for per-tick costs
//! (`steady.rs`, used by `benches/lawn.rs` and `benches/tick_cost.rs`).

// Each includer uses a different subset of this module.
#![allow(dead_code)]

pub mod binary_heap;
pub mod btree;
pub mod hashed_wheel;
pub mod hier_wheel;
pub mod list;
pub mod slab;
pub mod steady;
pub mod workload;

pub use binary_heap::HeapQueue;
pub use btree::BTreeQueue;
pub use hashed_wheel::HashedWheel;
pub use hier_wheel::HierWheel;

use lawn_rt::lawn::{Lawn, TimerKey};
use slab::SlabKey;

/// Common interface of the benchmarked timer queues. Values are `u64`.
pub trait TimerQueue: Sized {
    /// Handle returned by `insert`, used by `remove`.
    type Key: Copy;

    /// Short name used as the criterion function id.
    fn name() -> &'static str;

    fn new() -> Self;

    /// Schedules `value` to fire at `now + ttl` (saturating).
    fn insert(&mut self, now: u64, ttl: u64, value: u64) -> Self::Key;

    /// Cancels a pending timer; `None` if it already fired or was removed.
    fn remove(&mut self, key: Self::Key) -> Option<u64>;

    /// Returns one timer with `deadline <= now`, `None` when none is due.
    /// Wheels advance their cursor up to `now`.
    fn pop_expired(&mut self, now: u64) -> Option<u64>;

    /// Number of pending timers.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Heap bytes held by the structure (capacity, not just length).
    fn allocated_bytes(&self) -> usize;

    /// Whether a benchmark prefill should poll the structure every time the
    /// insert time advances (what a real driver does). The hashed wheel opts
    /// out: polling it through a long fill costs O(ticks * len / 512), and
    /// inserting everything first and then advancing once leaves exactly
    /// the same state (same slot lists in the same order, same `rounds`),
    /// computed in O(len) by its fast-forward path.
    const POLL_DURING_FILL: bool = true;
}

impl TimerQueue for Lawn<u64> {
    type Key = TimerKey;

    fn name() -> &'static str {
        "lawn"
    }

    fn new() -> Self {
        Lawn::<u64>::new()
    }

    #[inline]
    fn insert(&mut self, now: u64, ttl: u64, value: u64) -> TimerKey {
        Lawn::insert(self, now, ttl, value)
    }

    #[inline]
    fn remove(&mut self, key: TimerKey) -> Option<u64> {
        Lawn::remove(self, key)
    }

    #[inline]
    fn pop_expired(&mut self, now: u64) -> Option<u64> {
        Lawn::pop_expired(self, now).map(|(_, value)| value)
    }

    fn len(&self) -> usize {
        Lawn::len(self)
    }

    fn allocated_bytes(&self) -> usize {
        Lawn::allocated_bytes(self)
    }
}

/// Implements [`TimerQueue`] by forwarding to the inherent methods.
macro_rules! forward_timer_queue {
    ($ty:ty, $key:ty, $name:literal $(, $poll:literal)?) => {
        impl TimerQueue for $ty {
            type Key = $key;
            $(const POLL_DURING_FILL: bool = $poll;)?

            fn name() -> &'static str {
                $name
            }

            fn new() -> Self {
                <$ty>::new()
            }

            #[inline]
            fn insert(&mut self, now: u64, ttl: u64, value: u64) -> $key {
                <$ty>::insert(self, now, ttl, value)
            }

            #[inline]
            fn remove(&mut self, key: $key) -> Option<u64> {
                <$ty>::remove(self, key)
            }

            #[inline]
            fn pop_expired(&mut self, now: u64) -> Option<u64> {
                <$ty>::pop_expired(self, now)
            }

            fn len(&self) -> usize {
                <$ty>::len(self)
            }

            fn allocated_bytes(&self) -> usize {
                <$ty>::allocated_bytes(self)
            }
        }
    };
}

forward_timer_queue!(HashedWheel, SlabKey, "hashed_wheel", false);
forward_timer_queue!(HierWheel, SlabKey, "hier_wheel");
forward_timer_queue!(HeapQueue, SlabKey, "binary_heap");
forward_timer_queue!(BTreeQueue, btree::BTreeKey, "btree");

/// SplitMix64 PRNG (Steele, Lea, Flood 2014): tiny, seedable, good enough
/// for generating workloads.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), via a 128-bit multiply (bias < 2^-64·n).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    #[inline]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Fisher-Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}
