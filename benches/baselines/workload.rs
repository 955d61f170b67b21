//! Benchmark workloads and the steady-state prefill shared by
//! `benches/lawn.rs` and `benches/lawn_memory.rs`. One tick is 1 ms.
//!
//! A prefilled structure should look like it does in a long-running system,
//! not like a freshly started one. For a stream of timers with TTL
//! distribution `p(ttl)` that runs for a long time, the timers pending at time
//! `T` have a length-biased TTL distribution (`∝ ttl * p(ttl)`: a TTL twice as
//! long is pending twice as long) and an age uniform in `[0, ttl)`. The plan
//! samples exactly that, so the fill inserts timers at non-decreasing times
//! in `[0, T]` and every deadline is `> T`: nothing expires during the fill
//! and the structure holds exactly `n` timers at `T`, without simulating the
//! stream. `burst` is the exception: all timers are inserted at `T = 0`, ten
//! TTLs round robin.

use super::{SplitMix64, TimerQueue};

/// The ten TTLs of the `mixed` and `burst` workloads (ticks).
pub const MIXED_TTLS: [u64; 10] = [
    100, 250, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000,
];
/// TTL of the `fixed` workload.
pub const FIXED_TTL: u64 = 5_000;
/// Largest TTL of the `uniform` workload (1 hour).
pub const UNIFORM_MAX: u64 = 3_600_000;

/// A TTL distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Every timer has TTL 5 000.
    Fixed,
    /// Ten TTLs from 100 to 120 000, equally frequent.
    Mixed,
    /// Like `Mixed`, but all pending timers were inserted at the same tick.
    Burst,
    /// TTL uniform in `1..=3_600_000`.
    Uniform,
}

impl Workload {
    pub const ALL: [Workload; 4] = [
        Workload::Fixed,
        Workload::Mixed,
        Workload::Burst,
        Workload::Uniform,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Workload::Fixed => "fixed",
            Workload::Mixed => "mixed",
            Workload::Burst => "burst",
            Workload::Uniform => "uniform",
        }
    }

    /// A TTL of a newly started timer (not length-biased).
    pub fn sample_ttl(self, rng: &mut SplitMix64) -> u64 {
        match self {
            Workload::Fixed => FIXED_TTL,
            Workload::Mixed | Workload::Burst => MIXED_TTLS[rng.below(10) as usize],
            Workload::Uniform => rng.range(1, UNIFORM_MAX),
        }
    }
}

/// Number of pre-generated TTLs for timers inserted during a benchmark
/// (power of two, cycled).
pub const NEW_TTLS: usize = 4096;

/// Everything needed to build a prefilled structure, generated once.
pub struct Plan {
    pub workload: Workload,
    pub n: usize,
    /// `(insert time, ttl)` sorted by insert time; every deadline is `> t_end`.
    pub fill: Vec<(u64, u64)>,
    /// Time at the end of the fill ("now" of the prefilled structure).
    pub t_end: u64,
    /// Latest deadline in `fill`.
    pub last_deadline: u64,
    /// TTLs for timers started during a benchmark (length `NEW_TTLS`).
    pub new_ttls: Vec<u64>,
    /// A random permutation of `0..n`: the order in which timers are cancelled.
    pub delete_order: Vec<u32>,
}

impl Plan {
    pub fn new(workload: Workload, n: usize, seed: u64) -> Plan {
        let mut rng = SplitMix64::new(seed ^ (n as u64).rotate_left(32) ^ workload as u64);
        let mut fill = Vec::with_capacity(n);
        let t_end = match workload {
            Workload::Fixed => FIXED_TTL,
            Workload::Mixed => MIXED_TTLS[9],
            Workload::Burst => 0,
            Workload::Uniform => UNIFORM_MAX,
        };
        // Cumulative weights for the length-biased choice among MIXED_TTLS.
        let total: u64 = MIXED_TTLS.iter().sum();
        for i in 0..n {
            let (t, ttl) = match workload {
                Workload::Burst => (0, MIXED_TTLS[i % 10]),
                Workload::Fixed => (t_end - rng.below(FIXED_TTL), FIXED_TTL),
                Workload::Mixed => {
                    let mut pick = rng.below(total);
                    let mut ttl = MIXED_TTLS[9];
                    for &candidate in &MIXED_TTLS {
                        if pick < candidate {
                            ttl = candidate;
                            break;
                        }
                        pick -= candidate;
                    }
                    (t_end - rng.below(ttl), ttl)
                }
                Workload::Uniform => {
                    // Inverse CDF of the density ∝ ttl on (0, UNIFORM_MAX].
                    let ttl = ((UNIFORM_MAX as f64) * rng.unit().sqrt()).ceil() as u64;
                    let ttl = ttl.clamp(1, UNIFORM_MAX);
                    (t_end - rng.below(ttl), ttl)
                }
            };
            fill.push((t, ttl));
        }
        fill.sort_by_key(|&(t, _)| t);
        let last_deadline = fill.iter().map(|&(t, ttl)| t + ttl).max().unwrap_or(t_end);
        let new_ttls = (0..NEW_TTLS)
            .map(|_| workload.sample_ttl(&mut rng))
            .collect();
        let mut delete_order: Vec<u32> = (0..n as u32).collect();
        rng.shuffle(&mut delete_order);
        Plan {
            workload,
            n,
            fill,
            t_end,
            last_deadline,
            new_ttls,
            delete_order,
        }
    }

    /// Inserts the plan's timers into `q` in time order, adding `ttl_offset`
    /// to every TTL, and advances `q` to `t_end`. Timer `i` gets value `i`;
    /// `on_key` receives every handle in order.
    ///
    /// The structure is polled (`pop_expired`) every time the insert time
    /// advances, as a driver would, unless `Q::POLL_DURING_FILL` is false,
    /// in which case it is polled once at `t_end` (see that constant).
    pub fn fill_into<Q: TimerQueue>(
        &self,
        q: &mut Q,
        ttl_offset: u64,
        mut on_key: impl FnMut(Q::Key),
    ) {
        let mut polled = self.fill.first().map_or(0, |&(t, _)| t);
        for (i, &(t, ttl)) in self.fill.iter().enumerate() {
            if Q::POLL_DURING_FILL && t != polled {
                assert!(q.pop_expired(t).is_none(), "timer expired during the fill");
                polled = t;
            }
            on_key(q.insert(t, ttl + ttl_offset, i as u64));
        }
        assert!(
            q.pop_expired(self.t_end).is_none(),
            "timer expired during the fill"
        );
        assert_eq!(q.len(), self.n);
    }
}
