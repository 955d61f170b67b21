//! Counters, shared by the tasks (one runtime thread) and the progress
//! thread.

use std::sync::atomic::{AtomicU64, Ordering, Ordering::Relaxed};
use std::time::Duration;

use futures::task::AtomicWaker;

/// Which timer of a task fired.
#[derive(Clone, Copy)]
pub(crate) enum Fired {
    /// A reply came in time; its request's timeout was cancelled.
    Reply = 0,
    /// A request timed out; its reply's sleep was cancelled.
    Timeout = 1,
    /// An idle timeout.
    Idle = 2,
}

pub(crate) struct Stats {
    pub(crate) tasks: u64,
    pub(crate) spawned: AtomicU64,
    pub(crate) done: AtomicU64,
    pub(crate) registered: AtomicU64,
    /// Indexed by [`Fired`].
    fired: [AtomicU64; 3],
    pub(crate) cancelled: AtomicU64,
    pub(crate) early: AtomicU64,
    pub(crate) pending: AtomicU64,
    pub(crate) peak_pending: AtomicU64,
    pub(crate) lateness: Histogram,
    /// The main future, waiting for the last task.
    finish: AtomicWaker,
}

impl Stats {
    /// Leaked: the tasks need a `'static` reference, and a run makes one.
    pub(crate) fn leak(tasks: u64) -> &'static Stats {
        Box::leak(Box::new(Stats {
            tasks,
            spawned: AtomicU64::new(0),
            done: AtomicU64::new(0),
            registered: AtomicU64::new(0),
            fired: Default::default(),
            cancelled: AtomicU64::new(0),
            early: AtomicU64::new(0),
            pending: AtomicU64::new(0),
            peak_pending: AtomicU64::new(0),
            lateness: Histogram::new(),
            finish: AtomicWaker::new(),
        }))
    }

    pub(crate) fn registered(&self, timers: u64) {
        self.registered.fetch_add(timers, Relaxed);
        let pending = self.pending.fetch_add(timers, Relaxed) + timers;
        self.peak_pending.fetch_max(pending, Relaxed);
    }

    /// `lateness` is `None` if the timer fired before its deadline.
    pub(crate) fn fired(&self, which: Fired, lateness: Option<Duration>) {
        self.fired[which as usize].fetch_add(1, Relaxed);
        self.pending.fetch_sub(1, Relaxed);
        match lateness {
            Some(late) => self.lateness.record(late),
            None => _ = self.early.fetch_add(1, Relaxed),
        }
    }

    pub(crate) fn cancelled(&self, timers: u64) {
        self.cancelled.fetch_add(timers, Relaxed);
        self.pending.fetch_sub(timers, Relaxed);
    }

    pub(crate) fn fired_count(&self, which: Fired) -> u64 {
        self.fired[which as usize].load(Relaxed)
    }

    pub(crate) fn fired_total(&self) -> u64 {
        self.fired.iter().map(|n| n.load(Relaxed)).sum()
    }

    pub(crate) fn task_done(&self) {
        if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.tasks {
            self.finish.wake();
        }
    }

    pub(crate) async fn all_done(&self) {
        std::future::poll_fn(|cx| {
            self.finish.register(cx.waker());
            if self.done.load(Ordering::Acquire) == self.tasks {
                std::task::Poll::Ready(())
            } else {
                std::task::Poll::Pending
            }
        })
        .await
    }
}

/// Nanoseconds in log-linear buckets: 32 per power of two (within 3%).
pub(crate) struct Histogram {
    buckets: Box<[AtomicU64]>,
    max: AtomicU64,
}

impl Histogram {
    const SUB_BITS: u32 = 5;
    const SUB: usize = 1 << Self::SUB_BITS;

    fn new() -> Histogram {
        let len = (64 - Self::SUB_BITS as usize + 1) * Self::SUB;
        Histogram {
            buckets: (0..len).map(|_| AtomicU64::new(0)).collect(),
            max: AtomicU64::new(0),
        }
    }

    fn index(ns: u64) -> usize {
        if ns < Self::SUB as u64 {
            return ns as usize;
        }
        let exp = 63 - ns.leading_zeros();
        let sub = (ns >> (exp - Self::SUB_BITS)) as usize & (Self::SUB - 1);
        (exp - Self::SUB_BITS + 1) as usize * Self::SUB + sub
    }

    /// The largest value bucket `index` holds.
    fn upper(index: usize) -> u64 {
        if index < Self::SUB {
            return index as u64;
        }
        let shift = (index / Self::SUB) as u32 - 1;
        let lower = ((Self::SUB + index % Self::SUB) as u64) << shift;
        lower + (1 << shift) - 1
    }

    fn record(&self, late: Duration) {
        let ns = u64::try_from(late.as_nanos()).unwrap_or(u64::MAX);
        self.buckets[Self::index(ns)].fetch_add(1, Relaxed);
        self.max.fetch_max(ns, Relaxed);
    }

    pub(crate) fn max(&self) -> Duration {
        Duration::from_nanos(self.max.load(Relaxed))
    }

    /// The `q` quantile (0..=1), as a bucket's upper bound.
    pub(crate) fn quantile(&self, q: f64) -> Duration {
        let counts: Vec<u64> = self.buckets.iter().map(|b| b.load(Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (index, count) in counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                let ns = Self::upper(index).min(self.max.load(Relaxed));
                return Duration::from_nanos(ns);
            }
        }
        Duration::ZERO
    }
}
