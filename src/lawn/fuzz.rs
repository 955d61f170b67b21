//! Model-based fuzz: random operations on a `Lawn<u64>`, each checked
//! against a model (a map of live timers and a `BTreeSet` of their
//! deadlines), with [`Lawn::check`]'s walk of every structure between
//! steps.
//!
//! Every call's answer is compared with the model: `insert`,
//! `insert_deferred`, `reset` and `reset_lazily` give the right deadline
//! and never reuse a key; `remove` and `pop_expired` hand out the right
//! value; nothing pops before its deadline and `pop_expired` returns
//! `None` only when nothing is due; `len`, `next_deadline`, `earliest` and
//! `last_deadline_by` agree with the model (`next_deadline` and `earliest`
//! may name a later one of several overdue timers only as the docs allow:
//! timers started already due share the overdue class); stale keys reach
//! nothing; and at the end every timer comes out, none early. Clocks start
//! at 0, mid-range or near the end of `u64` time; TTLs range from 0 to
//! `u64::MAX`; operations include bursts past the staged cap, lazy resets
//! of idle timeouts, `clear`, `shrink_to_fit` and `reserve`.
//!
//! Two tests: `lawn_agrees_with_a_model_under_random_operations` (a broad
//! mix) and `lawn_agrees_with_a_model_under_idle_timeouts_and_requests` (a
//! driver's load: idle timeouts pushed back lazily, request timeouts
//! started deferred and mostly cancelled at once). By default each runs 16
//! seeds of 10,000 steps and walks the Lawn after every 32nd step (the walk
//! costs as much as some 40 steps), so that every `cargo test` runs them
//! in a debug build. Run longer with, e.g.:
//!
//! ```text
//! LAWN_FUZZ_SEEDS=0..1000 LAWN_FUZZ_OPS=200000 cargo test --release --lib lawn::fuzz
//! ```
//!
//! `LAWN_FUZZ_SEEDS` is a range `a..b` or a count `n` (`0..n`);
//! `LAWN_FUZZ_OPS` is the number of steps per seed; `LAWN_FUZZ_CHECK_EVERY`
//! how many steps apart the walks are (1: after every step). A run is a
//! function of its seed alone (the walks draw no random numbers), so a
//! failure prints its seed and step and the command that replays it, with
//! a walk after every step to stop at the first step that broke an
//! invariant.

use super::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::panic::{self, AssertUnwindSafe};

const DEFAULT_SEEDS: u64 = 16;
const DEFAULT_OPS: usize = 10_000;
const DEFAULT_CHECK_EVERY: usize = 32;

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    fn pct(&mut self) -> u64 {
        self.below(100)
    }
}

/// The Lawn calls of one step, printed when a step fails.
#[derive(Debug)]
#[allow(dead_code)] // read through `Debug` only
enum Op {
    Insert {
        now: u64,
        ttl: u64,
        deferred: bool,
    },
    Remove {
        id: u64,
    },
    Reset {
        id: u64,
        now: u64,
        ttl: u64,
        lazy: bool,
    },
    Pop {
        now: u64,
    },
    Stale,
    Clear,
    Shrink,
    Reserve(usize),
}

/// A Lawn, its model and the random source that drives both.
struct Fz {
    rng: Rng,
    lawn: Lawn<u64>,
    /// id -> (key, deadline) of every pending timer.
    live: HashMap<u64, (TimerKey, u64)>,
    /// (deadline, id) of every pending timer.
    by_deadline: BTreeSet<(u64, u64)>,
    /// Ids to pick from (may hold ids no longer live).
    ids: Vec<u64>,
    /// Keys of removed or popped timers.
    dead: Vec<TimerKey>,
    /// Every key ever issued.
    issued: HashSet<TimerKey>,
    next_id: u64,
    /// TTLs this seed's timers often use.
    recurring: Vec<u64>,
    /// Each timer's TTL when started.
    ttls: HashMap<u64, u64>,
    /// The number of live timers the mix grows towards.
    target: usize,
    /// How often inserts are deferred.
    profile: u64,
    /// The step being run (`ops` once the final drain runs).
    at_step: usize,
    /// The calls of the current step.
    log: Vec<Op>,
    /// Calls of `verify` so far.
    verified: usize,
    /// `verify` runs `Lawn::check` once in this many calls.
    check_every: usize,
}

impl Fz {
    fn new(seed: u64, check_every: usize) -> Fz {
        let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 0xDEAD_BEEF);
        let mut recurring = Vec::new();
        for _ in 0..(1 + rng.below(10)) {
            let ttl = match rng.below(6) {
                0 => 64 + rng.below(200),
                1 => 1 + rng.below(5000),
                2 => 4000 + rng.below(200),
                3 => rng.below(1 << 20),
                4 => rng.below(1 << 34),
                _ => (1 << (7 + rng.below(50))) + rng.below(3),
            };
            recurring.push(ttl);
        }
        let start = match rng.below(8) {
            0..=2 => 0,
            3 => rng.below(1 << 32),
            4 => rng.below(1 << 50),
            5 => u64::MAX - (1 << 22) - rng.below(1 << 20),
            6 => u64::MAX - 10_000 - rng.below(5000),
            _ => u64::MAX - 300 - rng.below(300),
        };
        let target = [2, 8, 40, 200, 1500][rng.below(5) as usize];
        let profile = rng.below(4);
        let mut lawn = Lawn::new();
        // Set the clock.
        assert_eq!(lawn.pop_expired(start), None);
        Fz {
            rng,
            lawn,
            live: HashMap::new(),
            by_deadline: BTreeSet::new(),
            ids: Vec::new(),
            dead: Vec::new(),
            issued: HashSet::new(),
            next_id: 0,
            recurring,
            ttls: HashMap::new(),
            target,
            profile,
            at_step: 0,
            log: Vec::new(),
            verified: 0,
            check_every,
        }
    }

    fn now(&self) -> u64 {
        self.lawn.elapsed()
    }

    fn ttl(&mut self) -> u64 {
        let now = self.lawn.elapsed();
        let r = &mut self.rng;
        match r.below(22) {
            0 => 0,
            1 => r.below(16),
            2 => 60 + r.below(80),
            3 => r.below(4096),
            4 => 4090 + r.below(12),
            5..=8 => self.recurring[r.below(self.recurring.len() as u64) as usize],
            9 => {
                let e = r.below(57) + 7;
                (1u64 << e) + r.below(1 << e)
            }
            10 => {
                let e = r.below(63) + 1;
                (1u64 << e).wrapping_sub(r.below(2))
            }
            11 => u64::MAX - r.below(3),
            // Due near the end of time.
            12 => u64::MAX - now - r.below(5000).min(u64::MAX - now),
            13 => (1 << 21) + r.below(1 << 30),
            14 => (1 << 40) + r.below(1 << 41),
            15 | 16 => {
                // The deadline of some live timer, give or take a tick.
                if self.ids.is_empty() {
                    return 5;
                }
                let id = self.ids[r.below(self.ids.len() as u64) as usize];
                match self.live.get(&id) {
                    Some(&(_, d)) => d
                        .saturating_sub(now)
                        .saturating_add(r.below(3))
                        .saturating_sub(1),
                    None => 7,
                }
            }
            17 => r.below(1 << 16),
            18 => 1 + r.below(200_000),
            _ => 1 + r.below(3_600_000),
        }
    }

    /// A `now` to pass: mostly `elapsed`, sometimes before or after it.
    fn call_now(&mut self) -> u64 {
        let now = self.now();
        match self.rng.below(20) {
            0 => now.saturating_sub(self.rng.below(100)),
            1 => now.saturating_sub(self.rng.below(10_000)),
            2 => 0,
            3 => now.saturating_add(self.rng.below(50)),
            4 => now.saturating_add(self.rng.below(70_000)),
            _ => now,
        }
    }

    fn record(&mut self, op: Op) {
        self.log.push(op);
    }

    /// A live timer's id, if any.
    fn pick(&mut self) -> Option<u64> {
        while !self.ids.is_empty() {
            let at = self.rng.below(self.ids.len() as u64) as usize;
            let id = self.ids[at];
            if self.live.contains_key(&id) {
                return Some(id);
            }
            self.ids.swap_remove(at);
        }
        None
    }

    fn do_insert(&mut self, now: u64, ttl: u64, deferred: bool) {
        self.record(Op::Insert { now, ttl, deferred });
        let id = self.next_id;
        self.next_id += 1;
        let key = if deferred {
            self.lawn.insert_deferred(now, ttl, id)
        } else {
            self.lawn.insert(now, ttl, id)
        };
        assert!(self.issued.insert(key), "key {key:?} issued twice");
        let deadline = now.saturating_add(ttl);
        assert_eq!(self.lawn.deadline(key), Some(deadline));
        self.live.insert(id, (key, deadline));
        self.by_deadline.insert((deadline, id));
        self.ids.push(id);
        self.ttls.insert(id, ttl);
    }

    fn do_remove(&mut self, id: u64) {
        self.record(Op::Remove { id });
        let (key, deadline) = self.live.remove(&id).unwrap();
        assert_eq!(self.lawn.remove(key), Some(id));
        assert!(self.by_deadline.remove(&(deadline, id)));
        self.dead.push(key);
    }

    fn do_reset(&mut self, id: u64, now: u64, ttl: u64, lazy: bool) {
        self.record(Op::Reset { id, now, ttl, lazy });
        let (key, old) = self.live[&id];
        let ok = if lazy {
            self.lawn.reset_lazily(key, now, ttl)
        } else {
            self.lawn.reset(key, now, ttl)
        };
        assert!(ok, "reset of live id {id} returned false");
        let deadline = now.saturating_add(ttl);
        assert_eq!(self.lawn.deadline(key), Some(deadline));
        assert!(self.by_deadline.remove(&(old, id)));
        self.by_deadline.insert((deadline, id));
        self.live.insert(id, (key, deadline));
    }

    /// One pop; returns whether something came out.
    fn do_pop(&mut self, now: u64) -> bool {
        self.record(Op::Pop { now });
        let eff = self.now().max(now);
        match self.lawn.pop_expired(now) {
            Some((key, id)) => {
                let (lk, deadline) = self
                    .live
                    .remove(&id)
                    .unwrap_or_else(|| panic!("popped unknown or dead id {id}"));
                assert_eq!(lk, key, "popped key mismatch");
                assert!(
                    deadline <= eff,
                    "id {id} popped early: due {deadline}, now {eff}"
                );
                assert!(self.by_deadline.remove(&(deadline, id)));
                self.dead.push(key);
                true
            }
            None => {
                if let Some(&(d, id)) = self.by_deadline.first() {
                    assert!(
                        d > eff,
                        "pop_expired({now}) (elapsed {eff}) gave None but id {id} is due at {d}"
                    );
                }
                false
            }
        }
    }

    /// Every call with a dead key gives `None` or `false` and changes nothing.
    fn stale(&mut self) {
        self.record(Op::Stale);
        if self.dead.is_empty() {
            return;
        }
        let key = self.dead[self.rng.below(self.dead.len() as u64) as usize];
        let len = self.lawn.len();
        let now = self.now();
        assert_eq!(self.lawn.get(key), None);
        assert_eq!(self.lawn.get_mut(key), None);
        assert_eq!(self.lawn.deadline(key), None);
        assert!(!self.lawn.reset(key, now, 5));
        assert!(!self.lawn.reset_lazily(key, now, 5));
        assert_eq!(self.lawn.remove(key), None);
        assert_eq!(self.lawn.len(), len);
        if self.dead.len() > 20_000 {
            let n = self.dead.len();
            self.dead.drain(..n / 2);
        }
    }

    /// A tick to pop at: small and large steps, the earliest deadline or
    /// the tick before it, `next_deadline`, or a tick already past.
    fn advance_to(&mut self) -> u64 {
        let now = self.now();
        let first = self.by_deadline.first().map(|&(d, _)| d);
        let r = self.rng.below(100);
        let reach = [1 << 13, 1 << 24, 1 << 40][self.rng.below(3) as usize];
        let rare = self.rng.below(300) == 0;
        match (r, first) {
            (0..=19, _) => now,
            (20..=29, _) => now.saturating_add(1),
            (30..=44, _) => now.saturating_add(self.rng.below(64)),
            (45..=54, _) => now.saturating_add(self.rng.below(5000)),
            (55..=59, _) => now.saturating_add(self.rng.below(1 << 20)),
            (60, _) => now.saturating_add(self.rng.below(1 << 36)),
            (61..=72, Some(d)) if d.saturating_sub(now) < reach => d.max(now),
            (73..=80, Some(d)) if d.saturating_sub(now) < reach || rare => {
                d.saturating_sub(1).max(now)
            }
            (81..=90, _) => self
                .lawn
                .next_deadline()
                .unwrap_or(now)
                .max(now)
                .min(now.saturating_add(1 << 30)),
            (91..=95, _) => now.saturating_sub(self.rng.below(50)),
            _ => now.saturating_add(self.rng.below(300)),
        }
    }

    /// One step of the broad mix.
    fn step(&mut self) {
        let roll = self.rng.below(1000);
        let grow = self.live.len() < self.target;
        let ins = if grow { 300 } else { 120 };
        if roll < ins {
            let deferred = match self.profile {
                0 => self.rng.pct() < 50,
                1 => self.rng.pct() < 90,
                2 => self.rng.pct() < 10,
                _ => self.rng.pct() < 70,
            };
            let now = self.call_now();
            let ttl = self.ttl();
            self.do_insert(now, ttl, deferred);
        } else if roll < ins + 20 {
            // A burst at one tick: goes past the staged cap.
            let n = 50 + self.rng.below(40);
            let now = self.now();
            let ttl = self.ttl();
            for i in 0..n {
                let t = if self.rng.below(3) == 0 {
                    self.ttl()
                } else {
                    ttl
                };
                self.do_insert(now, t, true);
                if i % 7 == 3 && self.rng.below(2) == 0 {
                    if let Some(id) = self.pick() {
                        self.do_remove(id);
                    }
                }
            }
        } else if roll < ins + 150 {
            if let Some(id) = self.pick() {
                self.do_remove(id);
            }
        } else if roll < ins + 350 {
            if let Some(id) = self.pick() {
                let lazy = self.rng.below(3) != 0;
                let now = self.call_now();
                let ttl = match self.rng.below(6) {
                    // An idle timeout: pushed back by its own TTL.
                    2 | 3 => self.ttls.get(&id).copied().unwrap_or(5),
                    // About as much as it has left, or a little more.
                    0 | 1 => {
                        let d = self.live[&id].1;
                        let left = d.saturating_sub(self.now());
                        left.saturating_add(self.rng.below(1 + left / 2 + 100))
                    }
                    _ => self.ttl(),
                };
                self.do_reset(id, now, ttl, lazy);
            }
        } else if roll < ins + 370 {
            self.stale();
        } else if roll < ins + 372 {
            if self.rng.below(50) == 0 {
                self.record(Op::Clear);
                self.lawn.clear();
                for (_, (k, _)) in self.live.drain() {
                    self.dead.push(k);
                }
                self.by_deadline.clear();
                self.ids.clear();
            } else if self.rng.below(4) == 0 {
                // Cancel everything, then give memory back.
                while let Some(id) = self.pick() {
                    self.do_remove(id);
                }
                self.record(Op::Shrink);
                self.lawn.shrink_to_fit();
            } else if self.rng.below(2) == 0 {
                self.record(Op::Shrink);
                self.lawn.shrink_to_fit();
            } else {
                let n = self.rng.below(3000) as usize;
                self.record(Op::Reserve(n));
                self.lawn.reserve(n);
            }
        } else if roll < ins + 500 {
            // A few single pops at one tick.
            let to = self.advance_to();
            for _ in 0..1 + self.rng.below(4) {
                if !self.do_pop(to) {
                    break;
                }
            }
        } else {
            let to = self.advance_to();
            while self.do_pop(to) {}
        }
    }

    /// Checks the Lawn's invariants and its read-only answers against the
    /// model.
    fn verify(&mut self) {
        // The walk costs some 40 steps' calls and comparisons: by default it
        // runs after every few steps (see the module docs).
        self.verified += 1;
        if self.verified % self.check_every == 0 {
            self.check();
        }
        assert_eq!(self.lawn.len(), self.live.len(), "len");
        assert_eq!(self.lawn.is_empty(), self.live.is_empty());
        let elapsed = self.now();
        let first = self.by_deadline.first().copied();
        let next = self.lawn.next_deadline();
        match (next, first) {
            (None, None) => {}
            (Some(n), Some((d, id))) => {
                // `next_deadline` may be early (a class bucket's key); later
                // only among overdue timers, which share the overdue class.
                if n > d {
                    assert!(
                        n <= elapsed && d <= elapsed,
                        "next_deadline {n} after the earliest deadline {d} (elapsed {elapsed})"
                    );
                    let (k, _) = self.live[&id];
                    let node = self.lawn.nodes.get(k.index(), k.gen()).unwrap();
                    assert!(
                        node.bucket < STAGED
                            && matches!(
                                self.lawn.buckets.get(node.bucket).kind,
                                buckets::Kind::Class { index: 0, .. }
                            ),
                        "next_deadline {n} after the earliest deadline {d}, \
                         which is not in the overdue class but in bucket {}",
                        node.bucket
                    );
                }
            }
            (n, f) => panic!("next_deadline {n:?}, model's earliest {f:?}"),
        }
        match (self.lawn.earliest(), first) {
            (None, None) => {}
            (Some(k), Some((d, _))) => {
                let kd = self.lawn.deadline(k).expect("earliest names a dead key");
                if kd != d {
                    assert!(
                        kd <= elapsed && d <= elapsed,
                        "earliest has deadline {kd}, the earliest is {d} (elapsed {elapsed})"
                    );
                }
            }
            (k, f) => panic!("earliest {k:?}, model's earliest {f:?}"),
        }
        for _ in 0..2 {
            let t = match self.rng.below(5) {
                0 => elapsed,
                1 => elapsed.saturating_add(self.rng.below(5000)),
                2 => first.map_or(elapsed, |(d, _)| d),
                3 => self.rng.next(),
                _ => next.unwrap_or(0).saturating_add(self.rng.below(100)),
            };
            let last = self.lawn.last_deadline_by(t);
            match next {
                Some(n) if n <= t => {
                    let l = last.unwrap_or_else(|| {
                        panic!("last_deadline_by({t}) None though next_deadline {n}")
                    });
                    assert!(l <= t, "last_deadline_by({t}) = {l} after t");
                    assert!(
                        l >= n,
                        "last_deadline_by({t}) = {l} before next_deadline {n}"
                    );
                }
                _ => assert_eq!(last, None, "last_deadline_by({t}) with next {next:?}"),
            }
        }
        for _ in 0..2 {
            if let Some(id) = self.pick() {
                let (k, d) = self.live[&id];
                assert_eq!(self.lawn.get(k), Some(&id));
                assert_eq!(self.lawn.deadline(k), Some(d));
            }
        }
    }

    fn check(&self) {
        if let Err(e) = self.lawn.check() {
            panic!("check: {e}");
        }
    }

    /// Everything pending comes out by the end of time, nothing early.
    fn finish(&mut self) {
        self.check();
        while let Some(&(d, _)) = self.by_deadline.first() {
            self.log.clear();
            let before = self.live.len();
            while self.do_pop(d) {}
            self.verify();
            assert!(
                self.live.len() < before || self.by_deadline.first().unwrap().0 > d,
                "nothing due at {d} came out"
            );
        }
        assert!(self.lawn.is_empty());
        assert_eq!(self.lawn.pop_expired(u64::MAX), None);
        self.check();
    }
}

/// The broad mix: `ops` steps, each verified.
fn run_mix(f: &mut Fz, ops: usize) {
    for i in 0..ops {
        f.at_step = i;
        f.log.clear();
        f.step();
        f.verify();
    }
    f.at_step = ops;
    f.finish();
}

/// A driver's load: idle timeouts of a few TTLs pushed back (mostly
/// lazily) on every read, request timeouts started deferred and mostly
/// cancelled within the tick.
fn run_idle(f: &mut Fz, ops: usize) {
    let ttls: Vec<u64> = (0..1 + f.rng.below(4))
        .map(|_| match f.rng.below(4) {
            0 => 100 + f.rng.below(5000),
            1 => 5000 + f.rng.below(200_000),
            2 => (1 << 21) + f.rng.below(1 << 26),
            _ => 1 + f.rng.below(150),
        })
        .collect();
    let step_max = [1, 10, 100, 1000, 30_000][f.rng.below(5) as usize];
    for i in 0..ops {
        f.at_step = i;
        f.log.clear();
        let now = f.now();
        match f.rng.below(100) {
            0..=14 => {
                let ttl = ttls[f.rng.below(ttls.len() as u64) as usize];
                let deferred = f.rng.below(2) == 0;
                f.do_insert(now, ttl, deferred);
            }
            15..=34 => {
                // A request: a deferred timeout, mostly cancelled at once.
                let ttl = ttls[f.rng.below(ttls.len() as u64) as usize];
                f.do_insert(now, ttl, true);
                if f.rng.below(10) != 0 {
                    let id = f.next_id - 1;
                    f.do_remove(id);
                }
            }
            35..=69 => {
                if let Some(id) = f.pick() {
                    let ttl = f.ttls[&id];
                    let lazy = f.rng.below(8) != 0;
                    f.do_reset(id, now, ttl, lazy);
                }
            }
            70..=74 => {
                if let Some(id) = f.pick() {
                    f.do_remove(id);
                }
            }
            _ => {
                let to = match f.rng.below(4) {
                    0 => f.lawn.next_deadline().unwrap_or(now).max(now),
                    _ => now.saturating_add(f.rng.below(step_max)),
                };
                while f.do_pop(to) {}
            }
        }
        if f.live.len() > 3000 {
            for _ in 0..100 {
                if let Some(id) = f.pick() {
                    f.do_remove(id);
                }
            }
        }
        f.verify();
    }
    f.at_step = ops;
    f.finish();
}

/// What to run: seeds, steps per seed and how often to walk the Lawn.
struct Settings {
    seeds: std::ops::Range<u64>,
    ops: usize,
    check_every: usize,
}

/// The settings from `LAWN_FUZZ_SEEDS` (`a..b` or a count),
/// `LAWN_FUZZ_OPS` and `LAWN_FUZZ_CHECK_EVERY`, else the defaults.
fn settings() -> Settings {
    fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
        match std::env::var(name) {
            Ok(s) => s
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("{name}={s:?}: want a number")),
            Err(_) => default,
        }
    }
    let seeds = match std::env::var("LAWN_FUZZ_SEEDS") {
        Ok(s) => {
            let parse = |n: &str| -> u64 {
                n.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("LAWN_FUZZ_SEEDS={s:?}: want `a..b` or a count"))
            };
            match s.split_once("..") {
                Some((a, b)) => parse(a)..parse(b),
                None => 0..parse(&s),
            }
        }
        Err(_) => 0..DEFAULT_SEEDS,
    };
    Settings {
        seeds,
        ops: var("LAWN_FUZZ_OPS", DEFAULT_OPS),
        check_every: var("LAWN_FUZZ_CHECK_EVERY", DEFAULT_CHECK_EVERY).max(1),
    }
}

/// Runs `run` for each seed; on a failure, prints how to replay it.
fn fuzz(test: &str, run: fn(&mut Fz, usize)) {
    let Settings {
        seeds,
        ops,
        check_every,
    } = settings();
    for seed in seeds.clone() {
        let mut f = Fz::new(seed, check_every);
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| run(&mut f, ops))) {
            let at = if f.at_step < ops {
                format!("step {} of {ops}", f.at_step)
            } else {
                format!("the final drain after {ops} steps")
            };
            // A replay with the walk after every step stops at the first
            // step that broke an invariant, at or before this one.
            let last = &f.log[f.log.len().saturating_sub(20)..];
            eprintln!(
                "{test}: seed {seed} failed at {at}; the last {} of that step's {} calls: {last:?}\n\
                 replay: LAWN_FUZZ_SEEDS={seed}..{} LAWN_FUZZ_OPS={} LAWN_FUZZ_CHECK_EVERY=1 \
                 cargo test --lib lawn::fuzz::{test} -- --exact --nocapture",
                last.len(),
                f.log.len(),
                seed + 1,
                (f.at_step + 1).min(ops),
            );
            panic::resume_unwind(payload);
        }
    }
    eprintln!("{test}: seeds {seeds:?}, {ops} steps each, Lawn::check every {check_every}: ok");
}

#[test]
fn lawn_agrees_with_a_model_under_random_operations() {
    fuzz("lawn_agrees_with_a_model_under_random_operations", run_mix);
}

#[test]
fn lawn_agrees_with_a_model_under_idle_timeouts_and_requests() {
    fuzz(
        "lawn_agrees_with_a_model_under_idle_timeouts_and_requests",
        run_idle,
    );
}
