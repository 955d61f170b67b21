//! The two schedulers behind a runtime [`Handle`](super::Handle):
//! `current` (every task on the thread in `block_on`) and `multi` (a pool
//! of workers, each with its own park loop, timer shard and I/O driver),
//! and what they share (the owned-task set, the budgeted poll).

pub(crate) mod current;
pub(crate) mod multi;
mod owned;

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use super::blocking;
use super::context;
use super::io;
use super::task::Schedule;
use crate::coop;
use crate::driver::Driver;

/// One worker's counts for tokio's per-worker metrics
/// (`RuntimeMetrics::worker_park_count` and friends): bumped by the worker
/// around each park that blocks, read from anywhere. Statistics only
/// (relaxed): nothing is handed over through them, so they are `std`
/// atomics, outside the loom models' state (see `crate::loom`).
#[derive(Default)]
pub(crate) struct WorkerStats {
    parks: std::sync::atomic::AtomicU64,
    park_unparks: std::sync::atomic::AtomicU64,
    busy_nanos: std::sync::atomic::AtomicU64,
}

impl WorkerStats {
    /// Runs `park` (a park that blocks), counting it and adding the time
    /// since `busy_since` (the worker's last wake-up) to the busy time;
    /// `busy_since` is then the wake-up.
    #[inline]
    pub(crate) fn around_park(&self, busy_since: &mut std::time::Instant, park: impl FnOnce()) {
        use std::sync::atomic::Ordering::Relaxed;
        let parking = std::time::Instant::now();
        let busy = parking.saturating_duration_since(*busy_since);
        let busy = u64::try_from(busy.as_nanos()).unwrap_or(u64::MAX);
        self.busy_nanos.fetch_add(busy, Relaxed);
        self.parks.fetch_add(1, Relaxed);
        self.park_unparks.fetch_add(1, Relaxed);
        park();
        self.park_unparks.fetch_add(1, Relaxed);
        *busy_since = std::time::Instant::now();
    }

    /// Adds the time since `busy_since` to the busy time: the worker stops
    /// driving without parking (a current-thread runtime's `block_on`
    /// returns), so its last busy stretch counts, as in tokio's, where a
    /// `block_on` whose tasks never let it park is busy all along.
    pub(crate) fn end_busy(&self, busy_since: std::time::Instant) {
        let busy = busy_since.elapsed();
        let busy = u64::try_from(busy.as_nanos()).unwrap_or(u64::MAX);
        self.busy_nanos
            .fetch_add(busy, std::sync::atomic::Ordering::Relaxed);
    }

    pub(crate) fn parks(&self) -> u64 {
        self.parks.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn park_unparks(&self) -> u64 {
        self.park_unparks.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(crate) fn busy(&self) -> Duration {
        Duration::from_nanos(self.busy_nanos.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// How often a park loop looks elsewhere than at its own run queue
/// (`Builder::event_interval` and `Builder::global_queue_interval`): read
/// from a plain field on each turn, fixed when the runtime is built.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Intervals {
    /// Tasks run between two looks at timers and I/O (at least 1).
    pub(crate) event: u32,
    /// Every this many tasks, the shared (inject) queue goes first (at
    /// least 1), for fairness to tasks woken from other threads.
    pub(crate) global_queue: u32,
}

impl Intervals {
    /// tokio's figures (its current-thread scheduler's, for the second).
    pub(crate) const DEFAULT: Intervals = Intervals {
        event: 61,
        global_queue: 31,
    };
}

/// Counts a park loop's ticks (tasks taken to run) down to the next one
/// that is taken from the shared queue first: a compare and a decrement
/// per task, no division. A look that finds no task is no tick, so the
/// count does not depend on how often a thread woke up idle. A loop keeps
/// it in a local while it runs a batch (a register, not a store after
/// every task), and puts it back after.
#[derive(Clone, Copy)]
pub(crate) struct InjectTurn {
    /// Ticks up to and including the next shared-queue-first one (at
    /// least 1).
    left: u32,
}

impl InjectTurn {
    /// The first shared-queue-first tick is the `interval`-th.
    pub(crate) fn new(interval: u32) -> InjectTurn {
        InjectTurn {
            left: interval.max(1),
        }
    }

    /// Whether the next task is to come from the shared queue first.
    #[inline]
    pub(crate) fn due(&self) -> bool {
        self.left <= 1
    }

    /// Counts a task taken (from either queue).
    #[inline]
    pub(crate) fn taken(&mut self, interval: u32) {
        self.left = if self.left <= 1 {
            interval
        } else {
            self.left - 1
        };
    }
}

/// A runtime's scheduler, of either flavor.
#[derive(Clone)]
pub(crate) enum Scheduler {
    Current(Arc<current::CurrentThread>),
    Multi(Arc<multi::MultiThread>),
}

/// What a thread entering a runtime makes current there: a timer driver
/// (`None`: time disabled) and an I/O driver.
pub(crate) struct EnterParts<'a> {
    pub(crate) time: Option<&'a Driver>,
    pub(crate) io: context::Io,
}

impl Scheduler {
    pub(crate) fn as_schedule(&self) -> Arc<dyn Schedule> {
        match self {
            Scheduler::Current(inner) => inner.clone(),
            Scheduler::Multi(shared) => shared.clone(),
        }
    }

    /// Adds a new task to the owned set (cancelling it if the runtime has
    /// shut down).
    pub(crate) fn bind(&self, task: &super::task::TaskRef) -> bool {
        match self {
            Scheduler::Current(inner) => inner.bind(task),
            Scheduler::Multi(shared) => shared.bind(task),
        }
    }

    /// Worker threads: 1 for a current-thread runtime (its driving thread).
    pub(crate) fn num_workers(&self) -> usize {
        match self {
            Scheduler::Current(_) => 1,
            Scheduler::Multi(shared) => shared.num_workers(),
        }
    }

    /// Worker `index`'s counts, if there is such a worker.
    pub(crate) fn worker_stats(&self, index: usize) -> Option<&WorkerStats> {
        match self {
            Scheduler::Current(inner) => (index == 0).then(|| inner.stats()),
            Scheduler::Multi(shared) => shared.worker_stats(index),
        }
    }

    /// The timer shard of worker `index`: `Some(None)` if the runtime has
    /// no time driver, `None` if there is no such worker.
    pub(crate) fn worker_timers(&self, index: usize) -> Option<Option<&crate::driver::Driver>> {
        match self {
            Scheduler::Current(inner) => (index == 0).then_some(inner.time.as_ref()),
            Scheduler::Multi(shared) => shared.worker_timers(index),
        }
    }

    /// The runtime's name (`Builder::name`).
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            Scheduler::Current(inner) => inner.name(),
            Scheduler::Multi(shared) => shared.name(),
        }
    }

    /// Tasks spawned and not yet completed.
    pub(crate) fn runtime_id(&self) -> super::Id {
        match self {
            Scheduler::Current(inner) => inner.runtime_id(),
            Scheduler::Multi(shared) => shared.runtime_id(),
        }
    }

    pub(crate) fn alive_tasks(&self) -> usize {
        match self {
            Scheduler::Current(inner) => inner.alive_tasks(),
            Scheduler::Multi(shared) => shared.alive_tasks(),
        }
    }

    /// Tasks waiting in the runtime's shared queue.
    pub(crate) fn global_queue_depth(&self) -> usize {
        match self {
            Scheduler::Current(inner) => inner.inject_depth(),
            Scheduler::Multi(shared) => shared.inject_depth(),
        }
    }

    /// The scheduler of a blocking task (see `BlockingSchedule`).
    pub(crate) fn blocking_schedule(&self) -> Arc<dyn Schedule> {
        match self {
            Scheduler::Current(inner) => Arc::new(inner.blocking_started()),
            Scheduler::Multi(_) => Arc::new(multi::BlockingSchedule),
        }
    }

    pub(crate) fn blocking(&self) -> &blocking::Pool {
        match self {
            Scheduler::Current(inner) => &inner.blocking,
            Scheduler::Multi(shared) => &shared.blocking,
        }
    }

    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        match self {
            Scheduler::Current(inner) => inner.block_on(future),
            Scheduler::Multi(shared) => shared.block_on(future),
        }
    }

    pub(crate) fn shutdown(&self, timeout: Option<Duration>) {
        match self {
            Scheduler::Current(inner) => inner.shutdown(timeout),
            Scheduler::Multi(shared) => shared.shutdown(timeout),
        }
    }

    /// The drivers a thread entering the runtime uses: on a worker, its
    /// own; elsewhere, one worker's, taken in turn.
    pub(crate) fn enter_parts(&self) -> EnterParts<'_> {
        let (time, io) = match self {
            Scheduler::Current(inner) => (inner.time.as_ref(), inner.io.as_ref()),
            Scheduler::Multi(shared) => shared.enter_parts(),
        };
        EnterParts {
            time,
            io: match io {
                Some(driver) => context::Io::Driver(driver.clone()),
                None => context::Io::Disabled,
            },
        }
    }

    pub(crate) fn flavor(&self) -> &'static str {
        match self {
            Scheduler::Current(_) => "current_thread",
            Scheduler::Multi(_) => "multi_thread",
        }
    }

    pub(crate) fn has_time(&self) -> bool {
        self.enter_parts().time.is_some()
    }

    pub(crate) fn has_io(&self) -> bool {
        matches!(self.enter_parts().io, context::Io::Driver(_))
    }
}

/// `task::block_in_place`: decided by what this thread is, not by which
/// runtime a task has entered. A worker thread of a multi-thread runtime
/// hands its worker over (if it is polling a task) and runs `f`; the
/// thread running a current-thread runtime panics; any other thread just
/// runs `f`. `f` runs without a coop budget (leaf futures it polls, in a
/// nested `Handle::block_on`, are not the task's).
#[track_caller]
pub(crate) fn block_in_place<R>(f: impl FnOnce() -> R) -> R {
    if !multi::hand_over_here() && context::drives_a_runtime() {
        panic!(
            "lawn_rt: can call blocking only when running on the multi-threaded runtime \
             (`block_in_place` blocks the only thread of a current-thread runtime; use \
             `spawn_blocking`)"
        );
    }
    let _left = context::leave_block_on();
    coop::with_budget(None, f)
}

/// Polls `future` under a fresh coop budget.
pub(crate) fn poll_budgeted<F: Future>(
    future: Pin<&mut F>,
    cx: &mut Context<'_>,
) -> Poll<F::Output> {
    coop::poll_task(cx.waker(), || future.poll(cx))
}

/// The last steps of a shutdown, after every task's future is dropped:
/// the I/O drivers fail their sockets, the timer drivers wake (and so
/// drop) every pending timer's waker, then the blocking pool stops
/// (waiting up to `timeout` for running blocking tasks; `None`: as long as
/// they take). A waker that panics does not stop the rest (the panic goes
/// on afterwards).
pub(crate) fn shut_drivers<'a>(
    io: impl IntoIterator<Item = &'a Arc<io::Driver>>,
    time: impl IntoIterator<Item = &'a Driver>,
) -> std::thread::Result<()> {
    let mut result = Ok(());
    for io in io {
        let woke = panic::catch_unwind(AssertUnwindSafe(|| io.shutdown()));
        result = result.and(woke);
    }
    for driver in time {
        let woke = panic::catch_unwind(AssertUnwindSafe(|| driver.shutdown()));
        result = result.and(woke);
    }
    result
}

/// Runs `f`, which calls wakers (user code) from a park loop: a waker that
/// panics must not take the loop (its runtime, its timer shard, a
/// `block_on` future) down. The panic hook has reported it; every other
/// waker of the batch has been called (the timer driver and the I/O driver
/// go on past a panicking waker). Both flavors do this, as the foreign
/// shards' timer thread does.
pub(crate) fn survive<R>(f: impl FnOnce() -> R) {
    let _ = panic::catch_unwind(AssertUnwindSafe(f));
}
