//! Correctness of the benchmark baselines (`benches/baselines/`) and of the
//! Lawn, all driven through the common `TimerQueue` trait.
//!
//! Every structure is run against a `BTreeSet<(deadline, id)>` reference
//! model with a seeded SplitMix64 PRNG: random inserts, cancels of live
//! timers, cancels of stale handles (must return `None`) and time advances.
//! After every advance the structure is drained with `pop_expired(now)` and
//! the popped set must equal exactly the reference's set of timers with
//! `deadline <= now` (nothing early, nothing late, nothing twice). TTL mixes:
//! a single TTL, ten TTLs, uniform `1..=3_600_000`, and a mix with huge TTLs
//! (around and far beyond the hierarchical wheel's `2^36`-tick range,
//! including saturating ones) plus very large time jumps.
//!
//! The steady stream of the per-tick benchmarks (`steady.rs`): all
//! structures pop the same timers from it, it keeps the load near `n`, and
//! its self-check stops on a queue that loses a timer.

#[path = "../benches/baselines/mod.rs"]
mod baselines;

use std::collections::{BTreeSet, HashMap};

use baselines::{BTreeQueue, HashedWheel, HeapQueue, HierWheel, SplitMix64, TimerQueue};
use lawn_rt::lawn::Lawn;

const OPS: usize = 50_000;
const TEN_TTLS: [u64; 10] = [
    100, 250, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000,
];
const WHEEL_RANGE: u64 = 1 << 36;

#[derive(Clone, Copy, Debug)]
enum Mix {
    One,
    Ten,
    Uniform,
    Huge,
}

impl Mix {
    fn ttl(self, rng: &mut SplitMix64) -> u64 {
        match self {
            Mix::One => 5_000,
            Mix::Ten => TEN_TTLS[rng.below(10) as usize],
            Mix::Uniform => rng.range(1, 3_600_000),
            Mix::Huge => match rng.below(20) {
                0..=7 => rng.range(1, 3_600_000),
                8 => 0,
                9 => WHEEL_RANGE - 1,
                10 => WHEEL_RANGE,
                11 => WHEEL_RANGE + 1,
                12 => WHEEL_RANGE + rng.range(0, 1 << 20),
                13 | 14 => rng.range(WHEEL_RANGE / 2, WHEEL_RANGE * 4),
                15 => rng.range(WHEEL_RANGE, 1 << 44),
                16 => u64::MAX - rng.below(1 << 10),
                17 => rng.range(1 << 20, WHEEL_RANGE),
                _ => TEN_TTLS[rng.below(10) as usize],
            },
        }
    }

    /// Ticks to advance: mostly tiny steps (tick-exact firing), some of
    /// about the mix's scale, rare big jumps (so that a few thousand timers
    /// are pending most of the time and everything gets to fire).
    fn advance(self, rng: &mut SplitMix64) -> u64 {
        let (scale, big) = match self {
            Mix::One => (4, 20_000),
            Mix::Ten => (20, 500_000),
            Mix::Uniform => (1_500, 8_000_000),
            Mix::Huge => (1_500, 1 << 38),
        };
        match rng.below(1000) {
            0..=599 => rng.range(0, 2),
            600..=959 => rng.range(0, 2 * scale),
            960..=997 => rng.range(0, 20 * scale),
            _ => rng.range(0, big),
        }
    }
}

/// Live timers of the model: handle, id (= value) and deadline, plus the
/// reference ordering of pending `(deadline, id)` pairs.
struct Model<K> {
    live: Vec<(K, u64, u64)>,
    pos: HashMap<u64, usize>,
    pending: BTreeSet<(u64, u64)>,
    stale: Vec<K>,
}

impl<K: Copy> Model<K> {
    fn new() -> Self {
        Model {
            live: Vec::new(),
            pos: HashMap::new(),
            pending: BTreeSet::new(),
            stale: Vec::new(),
        }
    }

    fn add(&mut self, key: K, id: u64, deadline: u64) {
        self.pos.insert(id, self.live.len());
        self.live.push((key, id, deadline));
        self.pending.insert((deadline, id));
    }

    /// Forgets timer `id`; returns its handle.
    fn forget(&mut self, id: u64) -> K {
        let at = self.pos.remove(&id).expect("unknown id");
        let (key, _, deadline) = self.live.swap_remove(at);
        if let Some(&(_, moved, _)) = self.live.get(at) {
            self.pos.insert(moved, at);
        }
        assert!(self.pending.remove(&(deadline, id)));
        if self.stale.len() < 256 {
            self.stale.push(key);
        } else {
            let slot = (id as usize) % self.stale.len();
            self.stale[slot] = key;
        }
        key
    }

    /// Ids with `deadline <= now`, ascending.
    fn due(&self, now: u64) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .pending
            .range(..(now.saturating_add(1), 0))
            .map(|&(_, id)| id)
            .collect();
        ids.sort_unstable();
        ids
    }
}

/// Advances to `now`, drains the queue and compares with the model.
fn advance_and_check<Q: TimerQueue>(q: &mut Q, model: &mut Model<Q::Key>, now: u64, ctx: &str) {
    let expected = model.due(now);
    let mut popped = Vec::with_capacity(expected.len());
    while let Some(v) = q.pop_expired(now) {
        popped.push(v);
        assert!(
            popped.len() <= expected.len(),
            "{ctx}: popped more than due at now={now}: {popped:?}, expected {expected:?}"
        );
    }
    assert_eq!(q.pop_expired(now), None, "{ctx}: pop after None");
    popped.sort_unstable();
    assert_eq!(popped, expected, "{ctx}: wrong due set at now={now}");
    for id in popped {
        model.forget(id);
    }
    assert_eq!(q.len(), model.live.len(), "{ctx}: len after advance");
}

fn run<Q: TimerQueue>(mix: Mix, seed: u64) {
    let ctx = format!("{} {mix:?} seed={seed:#x}", Q::name());
    let mut rng = SplitMix64::new(seed);
    let mut q = Q::new();
    let mut model = Model::<Q::Key>::new();
    let mut now: u64 = rng.below(1 << 20);
    let mut next_id = 0u64;
    for _ in 0..OPS {
        match rng.below(100) {
            0..=49 => {
                let ttl = mix.ttl(&mut rng);
                let key = q.insert(now, ttl, next_id);
                model.add(key, next_id, now.saturating_add(ttl));
                next_id += 1;
            }
            50..=64 if !model.live.is_empty() => {
                let (_, id, _) = model.live[rng.below(model.live.len() as u64) as usize];
                let key = model.forget(id);
                assert_eq!(q.remove(key), Some(id), "{ctx}: remove live");
            }
            65..=67 if !model.stale.is_empty() => {
                let key = model.stale[rng.below(model.stale.len() as u64) as usize];
                assert_eq!(q.remove(key), None, "{ctx}: remove stale");
            }
            _ => {
                now = now.saturating_add(mix.advance(&mut rng)).min(u64::MAX - 1);
                advance_and_check(&mut q, &mut model, now, &ctx);
            }
        }
        assert_eq!(q.len(), model.live.len(), "{ctx}: len");
    }
    // Jump far ahead: everything but the saturated deadlines fires.
    now = now.saturating_add(1 << 50);
    advance_and_check(&mut q, &mut model, now, &ctx);
    // Cancel the rest.
    while let Some(&(key, id, _)) = model.live.last() {
        model.forget(id);
        assert_eq!(q.remove(key), Some(id), "{ctx}: final remove");
    }
    assert_eq!(q.len(), 0, "{ctx}: len at end");
    assert!(q.is_empty());
    assert_eq!(q.pop_expired(u64::MAX - 1), None, "{ctx}: pop at end");
}

/// Hand-picked boundary cases.
fn edge_cases<Q: TimerQueue>() {
    let name = Q::name();
    let mut q = Q::new();
    // TTL 0 is due immediately.
    let k = q.insert(0, 0, 1);
    assert_eq!(q.pop_expired(0), Some(1), "{name}: ttl 0");
    assert_eq!(q.pop_expired(0), None, "{name}");
    assert_eq!(q.remove(k), None, "{name}: stale key after pop");
    // Exactly at the deadline, not one tick before.
    q.insert(10, 5, 2);
    assert_eq!(q.pop_expired(14), None, "{name}: early");
    assert_eq!(q.pop_expired(15), Some(2), "{name}: at deadline");
    // Slot and level boundaries of the wheels, one tick apart.
    for (i, ttl) in [63u64, 64, 65, 511, 512, 513, 4095, 4096, 4097, 262_144]
        .into_iter()
        .enumerate()
    {
        q.insert(15, ttl, 100 + i as u64);
    }
    let mut fired = Vec::new();
    for t in 16..=15 + 262_144 {
        while let Some(v) = q.pop_expired(t) {
            fired.push((t, v));
        }
    }
    let expected: Vec<(u64, u64)> = [63u64, 64, 65, 511, 512, 513, 4095, 4096, 4097, 262_144]
        .into_iter()
        .enumerate()
        .map(|(i, ttl)| (15 + ttl, 100 + i as u64))
        .collect();
    assert_eq!(fired, expected, "{name}: tick-by-tick firing times");
    // Beyond the hierarchical wheel's range.
    let now = 1 << 20;
    q.insert(now, WHEEL_RANGE, 3);
    q.insert(now, WHEEL_RANGE + 1, 4);
    assert_eq!(
        q.pop_expired(now + WHEEL_RANGE - 1),
        None,
        "{name}: huge early"
    );
    assert_eq!(q.pop_expired(now + WHEEL_RANGE), Some(3), "{name}: huge");
    assert_eq!(q.pop_expired(now + WHEEL_RANGE), None, "{name}");
    assert_eq!(
        q.pop_expired(now + WHEEL_RANGE + 1),
        Some(4),
        "{name}: huge+1"
    );
    // Saturating deadline stays pending and can be cancelled.
    let now = now + WHEEL_RANGE + 1;
    let k = q.insert(now, u64::MAX, 5);
    assert_eq!(q.pop_expired(u64::MAX - 1), None, "{name}: saturated");
    assert_eq!(q.len(), 1, "{name}");
    assert_eq!(q.remove(k), Some(5), "{name}: cancel saturated");
    assert_eq!(q.remove(k), None, "{name}: double cancel");
    assert!(q.is_empty(), "{name}");
}

macro_rules! suite {
    ($module:ident, $ty:ty) => {
        mod $module {
            use super::*;

            #[test]
            fn edge() {
                edge_cases::<$ty>();
            }

            #[test]
            fn one_ttl() {
                run::<$ty>(Mix::One, 0x1111);
            }

            #[test]
            fn ten_ttls() {
                run::<$ty>(Mix::Ten, 0x2222);
            }

            #[test]
            fn uniform_ttls() {
                run::<$ty>(Mix::Uniform, 0x3333);
            }

            #[test]
            fn huge_ttls() {
                run::<$ty>(Mix::Huge, 0x4444);
            }
        }
    };
}

suite!(lawn, Lawn<u64>);
suite!(hashed_wheel, HashedWheel);
suite!(hier_wheel, HierWheel);
suite!(binary_heap, HeapQueue);
suite!(btree, BTreeQueue);

/// The steady stream of `benches/baselines/steady.rs` and its self-check.
mod steady_stream {
    use super::*;
    use baselines::steady::Stream;
    use baselines::workload::{Plan, Workload};

    const N: usize = 2_000;
    const TICKS: u64 = 5_000;

    fn outcome<Q: TimerQueue>(plan: &Plan) -> (u64, u64, usize) {
        let mut s = Stream::<Q>::new(plan, 7);
        s.run(TICKS);
        assert_eq!(s.ticks(), TICKS);
        (s.popped(), s.digest(), s.len())
    }

    #[test]
    fn structures_agree_and_the_load_stays_steady() {
        let plan = Plan::new(Workload::Mixed, N, 0x5555);
        let lawn = outcome::<Lawn<u64>>(&plan);
        assert!(lawn.0 > 0, "nothing expired");
        let pending = lawn.2 as f64 / N as f64;
        assert!((0.9..1.1).contains(&pending), "pending drifted: {}", lawn.2);
        assert_eq!(outcome::<HashedWheel>(&plan), lawn);
        assert_eq!(outcome::<HierWheel>(&plan), lawn);
        assert_eq!(outcome::<HeapQueue>(&plan), lawn);
        assert_eq!(outcome::<BTreeQueue>(&plan), lawn);
    }

    /// A Lawn that loses its tenth expired timer.
    struct Lossy {
        inner: Lawn<u64>,
        pops: u64,
    }

    impl TimerQueue for Lossy {
        type Key = <Lawn<u64> as TimerQueue>::Key;

        fn name() -> &'static str {
            "lossy"
        }

        fn new() -> Self {
            Lossy {
                inner: Lawn::new(),
                pops: 0,
            }
        }

        fn insert(&mut self, now: u64, ttl: u64, value: u64) -> Self::Key {
            TimerQueue::insert(&mut self.inner, now, ttl, value)
        }

        fn remove(&mut self, key: Self::Key) -> Option<u64> {
            TimerQueue::remove(&mut self.inner, key)
        }

        fn pop_expired(&mut self, now: u64) -> Option<u64> {
            let value = TimerQueue::pop_expired(&mut self.inner, now)?;
            self.pops += 1;
            if self.pops == 10 {
                return TimerQueue::pop_expired(&mut self.inner, now);
            }
            Some(value)
        }

        fn len(&self) -> usize {
            TimerQueue::len(&self.inner)
        }

        fn allocated_bytes(&self) -> usize {
            TimerQueue::allocated_bytes(&self.inner)
        }
    }

    #[test]
    #[should_panic(expected = "wrong number of timers popped")]
    fn a_lost_timer_stops_the_stream() {
        let plan = Plan::new(Workload::Mixed, N, 0x6666);
        Stream::<Lossy>::new(&plan, 7).run(TICKS);
    }
}
