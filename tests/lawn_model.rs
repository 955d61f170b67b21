//! Randomized model test: the Lawn against a `BTreeMap` keyed by deadline.
//!
//! For each TTL mix, a million random operations (insert, deferred or
//! not, cancel, reset (eager or lazy), stale-key use, advance-and-pop-everything-due). At every advance the set
//! the Lawn hands out must equal the reference's due set, and the Lawn's
//! structure is walked by [`Lawn::check`] every few hundred operations.
//!
//! Reproduce a failure with the seed it prints:
//! `LAWN_MODEL_SEED=0x... cargo test --test lawn_model`.
//! `LAWN_MODEL_OPS=N` changes the number of operations per mix.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use common::Rng;
use lawn_rt::lawn::{Lawn, TimerKey};

#[derive(Clone, Copy, Debug)]
enum Mix {
    One,
    Ten,
    Uniform,
}

impl Mix {
    fn max_ttl(self) -> u64 {
        match self {
            Mix::One => 30_000,
            Mix::Ten => 120_000,
            Mix::Uniform => 3_600_000,
        }
    }

    fn ttl(self, rng: &mut Rng) -> u64 {
        const TEN: [u64; 10] = [
            3, 40, 100, 250, 1_000, 5_000, 10_000, 30_000, 60_000, 120_000,
        ];
        match rng.percent() {
            0 => return 0,
            1 => return u64::MAX - rng.below(1 << 20),
            2 => return (1 << 40) + rng.below(1 << 41), // far keys in classes
            _ => {}
        }
        match self {
            Mix::One => 30_000,
            Mix::Ten => TEN[rng.below(10) as usize],
            Mix::Uniform => 1 + rng.below(3_600_000),
        }
    }
}

/// The Lawn under test and the reference, side by side.
struct Model {
    rng: Rng,
    mix: Mix,
    lawn: Lawn<u64>,
    /// Reference: (deadline, id) -> key.
    by_deadline: BTreeMap<(u64, u64), TimerKey>,
    /// id -> (key, deadline), for random picks and lookups.
    live: HashMap<u64, (TimerKey, u64)>,
    ids: Vec<u64>,
    dead: Vec<TimerKey>,
    now: u64,
    next_id: u64,
    target: usize,
}

impl Model {
    fn new(seed: u64, mix: Mix) -> Self {
        Model {
            rng: Rng(seed | 1),
            mix,
            lawn: Lawn::new(),
            by_deadline: BTreeMap::new(),
            live: HashMap::new(),
            ids: Vec::new(),
            dead: Vec::new(),
            now: 0,
            next_id: 0,
            target: 3_000,
        }
    }

    fn step(&mut self, op: usize) {
        if op % 100_000 == 0 {
            // Swing the population between small and large.
            self.target = [300, 3_000, 8_000][self.rng.below(3) as usize];
        }
        let grow = if self.live.len() < self.target {
            50
        } else {
            12
        };
        let roll = self.rng.percent();
        if roll < grow {
            self.insert();
        } else if roll < grow + 15 {
            self.remove();
        } else if roll < grow + 27 {
            self.reset();
        } else if roll < grow + 30 {
            self.use_stale_key();
        } else {
            self.advance();
        }
    }

    fn insert(&mut self) {
        let ttl = self.mix.ttl(&mut self.rng);
        // Now and then a caller with a slightly stale clock.
        let now = if self.rng.percent() < 5 {
            self.now.saturating_sub(self.rng.below(100))
        } else {
            self.now
        };
        let id = self.next_id;
        self.next_id += 1;
        // Half the timers start deferred (staged until the tick moves on).
        let key = match self.rng.percent() < 50 {
            true => self.lawn.insert_deferred(now, ttl, id),
            false => self.lawn.insert(now, ttl, id),
        };
        let deadline = now.saturating_add(ttl);
        assert_eq!(self.lawn.deadline(key), Some(deadline));
        self.by_deadline.insert((deadline, id), key);
        self.live.insert(id, (key, deadline));
        self.ids.push(id);
    }

    /// A random live id, removed from `ids` (callers re-add it if it stays).
    fn pick(&mut self) -> Option<u64> {
        while !self.ids.is_empty() {
            let at = self.rng.below(self.ids.len() as u64) as usize;
            let id = self.ids.swap_remove(at);
            if self.live.contains_key(&id) {
                return Some(id);
            }
        }
        None
    }

    fn remove(&mut self) {
        let Some(id) = self.pick() else { return };
        let (key, deadline) = self.live.remove(&id).unwrap();
        assert_eq!(self.lawn.get(key), Some(&id));
        assert_eq!(self.lawn.remove(key), Some(id));
        self.by_deadline.remove(&(deadline, id)).unwrap();
        self.dead.push(key);
    }

    fn reset(&mut self) {
        let Some(id) = self.pick() else { return };
        let (key, old) = self.live[&id];
        let ttl = self.mix.ttl(&mut self.rng);
        // Half of them lazily: a later deadline may stay where it is filed.
        match self.rng.below(2) {
            0 => assert!(self.lawn.reset(key, self.now, ttl)),
            _ => assert!(self.lawn.reset_lazily(key, self.now, ttl)),
        }
        let deadline = self.now.saturating_add(ttl);
        self.by_deadline.remove(&(old, id)).unwrap();
        self.by_deadline.insert((deadline, id), key);
        self.live.insert(id, (key, deadline));
        self.ids.push(id);
    }

    fn use_stale_key(&mut self) {
        if self.dead.is_empty() {
            return;
        }
        let key = self.dead[self.rng.below(self.dead.len() as u64) as usize];
        let len = self.lawn.len();
        assert_eq!(self.lawn.get(key), None);
        assert_eq!(self.lawn.deadline(key), None);
        assert!(!self.lawn.reset(key, self.now, 5));
        assert_eq!(self.lawn.remove(key), None);
        assert_eq!(self.lawn.len(), len);
        if self.dead.len() > 10_000 {
            self.dead.drain(..5_000);
        }
    }

    fn advance(&mut self) {
        let max_ttl = self.mix.max_ttl();
        // Jump to the earliest deadline only within the mix's range: the
        // rare giant TTLs must stay pending, not drag the clock to the end.
        let horizon = self.now.saturating_add(max_ttl);
        let earliest = self
            .by_deadline
            .keys()
            .next()
            .map(|&(d, _)| d)
            .filter(|&d| d <= horizon);
        // Small steps keep a population of thousands, mostly far from due.
        let to = match (self.rng.below(1000), earliest) {
            (0..=99, _) => self.now,
            (100..=179, Some(d)) => d.max(self.now),
            (180..=219, Some(d)) => d.saturating_sub(1).max(self.now),
            (400..=401, _) => self.now.saturating_add(self.rng.below(max_ttl)),
            _ => self.now.saturating_add(self.rng.below(max_ttl / 1000 + 2)),
        };
        self.now = to;
        let mut popped = Vec::new();
        while let Some((key, id)) = self.lawn.pop_expired(to) {
            let (live_key, deadline) = self
                .live
                .remove(&id)
                .unwrap_or_else(|| panic!("popped unknown id {id}"));
            assert_eq!(key, live_key, "popped key mismatch for id {id}");
            assert!(
                deadline <= to,
                "id {id} fired early: due {deadline}, now {to}"
            );
            popped.push(id);
            self.dead.push(key);
        }
        popped.sort_unstable();
        let mut due: Vec<u64> = Vec::new();
        while let Some(entry) = self.by_deadline.first_entry() {
            if entry.key().0 > to {
                break;
            }
            due.push(entry.key().1);
            entry.remove();
        }
        due.sort_unstable();
        assert_eq!(popped, due, "due set mismatch at tick {to}");
        assert_eq!(self.lawn.len(), self.by_deadline.len());
        match (self.lawn.next_deadline(), self.by_deadline.keys().next()) {
            (None, None) => {}
            (Some(next), Some(&(earliest, _))) => {
                assert!(
                    next > to,
                    "next_deadline {next} not after {to} once drained"
                );
                assert!(
                    next <= earliest,
                    "next_deadline {next} after earliest {earliest}"
                );
            }
            (lawn, reference) => panic!("next_deadline {lawn:?} vs reference {reference:?}"),
        }
    }

    fn verify(&self) {
        self.lawn.check().unwrap();
        assert_eq!(self.lawn.len(), self.live.len());
    }
}

fn run(mix: Mix, default_seed: u64) {
    let seed = std::env::var("LAWN_MODEL_SEED")
        .ok()
        .map(|s| {
            u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("LAWN_MODEL_SEED is hex")
        })
        .unwrap_or(default_seed);
    let ops: usize = std::env::var("LAWN_MODEL_OPS")
        .ok()
        .map(|s| s.parse().expect("LAWN_MODEL_OPS is a number"))
        .unwrap_or(1_000_000);
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut model = Model::new(seed, mix);
        let mut peak = (0, 0);
        for op in 0..ops {
            model.step(op);
            peak.0 = peak.0.max(model.lawn.len());
            peak.1 = peak.1.max(model.lawn.bucket_count());
            if op % 500 == 0 {
                model.verify();
            }
        }
        model.verify();
        let pending = model.by_deadline.len();
        // Drain everything at the end of time: nothing may be left behind.
        model.now = u64::MAX;
        model.advance();
        assert!(model.lawn.is_empty());
        model.verify();
        (peak, pending)
    }));
    match result {
        Ok(((timers, buckets), pending)) => eprintln!(
            "{mix:?}: {ops} ops, seed {seed:#x}: ok (peak {timers} timers in {buckets} buckets; {pending} drained at the end)"
        ),
        Err(panic) => {
            eprintln!("lawn model failed: mix {mix:?}, seed {seed:#x}; rerun with LAWN_MODEL_SEED={seed:#x}");
            resume_unwind(panic);
        }
    }
}

#[test]
fn model_one_ttl() {
    run(Mix::One, 0x5EED_0001);
}

#[test]
fn model_ten_ttls() {
    run(Mix::Ten, 0x5EED_0010);
}

#[test]
fn model_uniform_ttls() {
    run(Mix::Uniform, 0x5EED_3600);
}
