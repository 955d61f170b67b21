//! A steady stream of timers, for the per-tick benchmarks (`steady_tick*`
//! groups of `benches/lawn.rs`, and `benches/tick_cost.rs`).
//!
//! A [`Stream`] starts from a plan's prefill (`n` timers pending in the
//! steady state, see `workload.rs`) and then runs tick by tick, forever:
//!
//! 1. `now` advances by one tick;
//! 2. **tick**: `pop_expired(now)` until `None` (every timer due at `now`);
//! 3. **arrivals**: this tick's new timers are started at `now`, TTLs drawn
//!    from the workload (not length-biased: these are new timers).
//!
//! Arrivals come at a fixed rate of `n / mean TTL` per tick (43.7 for
//! `mixed` at 1e6; `floor(k * rate)` timers by the `k`-th tick, so the
//! count alternates between neighbouring integers). By Little's law the
//! stream then keeps ~`n` timers pending, and after one longest TTL every
//! pending timer was started by the stream (use [`Stream::run`] untimed to
//! get there). Each step is timed with three `Instant` reads: around the
//! tick and around the arrivals. The TTLs of the arrivals are drawn before
//! the first read, and the bookkeeping below happens after the last one.
//!
//! Self-check: a calendar (one counter per tick, a ring longer than the
//! longest TTL) counts the timers due at every tick; each tick must pop
//! exactly that many, or the step panics. [`Stream::digest`] folds the tick,
//! count and sum of the popped values of every tick, so two structures fed
//! the same plan must end with the same digest.

use std::hint::black_box;
use std::time::{Duration, Instant};

use super::workload::{Plan, Workload, FIXED_TTL, MIXED_TTLS};
use super::{SplitMix64, TimerQueue};

/// Untimed ticks before measuring the hashed wheel (unless
/// `LAWN_BENCH_FULL` is set): 32 rotations instead of one longest TTL. Its
/// cost has a period of 512 ticks, and at 1e6 each tick walks ~2 000 cache
/// lines, so 120 000 ticks would take ~20 s per benchmark.
pub const HASHED_SETTLE: u64 = 1 << 14;

/// Time of one step: the tick (advance + pop every due timer) and the
/// arrivals started after it.
#[derive(Clone, Copy, Debug)]
pub struct StepTime {
    pub tick: Duration,
    pub arrivals: Duration,
}

/// A structure fed a steady stream of timers; see the module docs.
pub struct Stream<Q: TimerQueue> {
    q: Q,
    now: u64,
    /// Ticks since the end of the prefill.
    ticks: u64,
    /// Arrivals per tick = `rate_num / rate_den`.
    rate_num: u64,
    rate_den: u64,
    workload: Workload,
    longest_ttl: u64,
    rng: SplitMix64,
    /// TTLs of the current tick's arrivals.
    batch: Vec<u64>,
    /// Value of the next arrival (the prefill has `0..n`).
    next_value: u64,
    /// Timers due per tick, indexed by `tick & (len - 1)`.
    calendar: Vec<u32>,
    popped: u64,
    digest: u64,
}

impl<Q: TimerQueue> Stream<Q> {
    /// Fills a structure from `plan` (`mixed` or `fixed`), ready to tick.
    ///
    /// # Panics
    ///
    /// On any other workload: a stream needs a fixed TTL distribution.
    pub fn new(plan: &Plan, seed: u64) -> Self {
        let (rate_num, rate_den, longest) = match plan.workload {
            Workload::Mixed => (
                plan.n as u64 * MIXED_TTLS.len() as u64,
                MIXED_TTLS.iter().sum(),
                MIXED_TTLS[MIXED_TTLS.len() - 1],
            ),
            Workload::Fixed => (plan.n as u64, FIXED_TTL, FIXED_TTL),
            other => panic!(
                "steady stream: workload {} has no fixed TTL mix; use mixed or fixed",
                other.name()
            ),
        };
        let mut calendar = vec![0u32; (longest as usize + 1).next_power_of_two()];
        let mask = calendar.len() as u64 - 1;
        for &(t, ttl) in &plan.fill {
            calendar[((t + ttl) & mask) as usize] += 1;
        }
        let mut q = Q::new();
        plan.fill_into(&mut q, 0, drop);
        Stream {
            q,
            now: plan.t_end,
            ticks: 0,
            rate_num,
            rate_den,
            workload: plan.workload,
            longest_ttl: longest,
            rng: SplitMix64::new(seed),
            batch: Vec::new(),
            next_value: plan.n as u64,
            calendar,
            popped: 0,
            digest: 0,
        }
    }

    /// Runs one step (see the module docs) and returns its times.
    ///
    /// # Panics
    ///
    /// If the tick pops a different number of timers than are due.
    #[inline(never)]
    pub fn step(&mut self) -> StepTime {
        self.now += 1;
        self.ticks += 1;
        let now = self.now;
        let arrivals = self.ticks * self.rate_num / self.rate_den
            - (self.ticks - 1) * self.rate_num / self.rate_den;
        self.batch.clear();
        for _ in 0..arrivals {
            self.batch.push(self.workload.sample_ttl(&mut self.rng));
        }
        let (mut count, mut sum) = (0u64, 0u64);

        let start = Instant::now();
        while let Some(value) = self.q.pop_expired(now) {
            count += 1;
            sum = sum.wrapping_add(value);
        }
        let ticked = Instant::now();
        for (i, &ttl) in self.batch.iter().enumerate() {
            black_box(self.q.insert(now, ttl, self.next_value + i as u64));
        }
        let end = Instant::now();

        let mask = self.calendar.len() as u64 - 1;
        let due = std::mem::take(&mut self.calendar[(now & mask) as usize]);
        assert_eq!(
            count,
            u64::from(due),
            "tick {now}: wrong number of timers popped"
        );
        for &ttl in &self.batch {
            self.calendar[((now + ttl) & mask) as usize] += 1;
        }
        self.next_value += arrivals;
        self.popped += count;
        self.digest = mix(self.digest ^ mix(now ^ (count << 40) ^ sum.rotate_left(17)));
        StepTime {
            tick: ticked - start,
            arrivals: end - ticked,
        }
    }

    /// Runs `ticks` steps, untimed (to reach the steady state).
    pub fn run(&mut self, ticks: u64) {
        for _ in 0..ticks {
            self.step();
        }
    }

    /// Timers popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Order-independent fold of what every tick popped (see the module docs).
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// Timers pending now.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// The current tick.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Steps taken since the prefill.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Arrivals per tick.
    pub fn rate(&self) -> f64 {
        self.rate_num as f64 / self.rate_den as f64
    }

    /// Untimed ticks to run before measuring: one longest TTL of the
    /// workload, after which every pending timer was started by the stream;
    /// for the hashed wheel [`HASHED_SETTLE`] unless `full`.
    pub fn settle_ticks(&self, full: bool) -> u64 {
        if Q::name() == "hashed_wheel" && !full {
            HASHED_SETTLE.min(self.longest_ttl)
        } else {
            self.longest_ttl
        }
    }
}

/// SplitMix64's finalizer: a cheap bijective scramble.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
