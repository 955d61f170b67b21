//! The multi-thread scheduler: `N` workers, each running the park loop of
//! the current-thread runtime on its own thread, with its own `mio::Poll`,
//! its own I/O driver and its own **timer shard** (a Lawn driver of its
//! own).
//!
//! ```text
//! worker i, loop {
//!     run up to `event_interval` tasks: its own queue first (the inject
//!         queue on every `global_queue_interval`-th), then the inject
//!         queue, then half of another worker's queue
//!     park if it found nothing: run the park hook, then block in its Poll
//!         until its shard's next timer (timerfd), an I/O event, or a
//!         wake-up, unless a queue holds a task; else look for events
//!     fire its shard's due timers (their tasks land in its queue)
//!     wake the tasks that yielded; after a park hook, run the unpark hook
//! }
//! ```
//!
//! Ground rules:
//! - **Timers:** a `Sleep` files on the shard of the worker that first
//!   polls it (see `driver::rebind_target`), so a worker's timers are
//!   filed, fired and mostly cancelled by that worker alone: its shard's
//!   lock is uncontended. A timer dropped or reset from elsewhere takes that
//!   shard's lock, and a reset due earlier than the shard's park wakes that
//!   worker (the shard's unpark hook is its `mio::Waker`). A thread that is
//!   not a worker (`block_on`'s, a blocking-pool thread) is given a shard in
//!   turn when it enters the runtime.
//! - **Queues:** a task woken on a worker goes to that worker's queue; from
//!   anywhere else to the inject queue. Queues are mutexes (the owner's
//!   lock is uncontended unless someone steals); each keeps its length in
//!   an atomic so idle workers can look without locking.
//! - **Parking without lost wake-ups:** a worker about to park counts
//!   itself in `num_parked`, then (under the `idle` lock) looks at every
//!   queue; only if all are empty does it list itself as parked. A pusher
//!   stores the queue length, then reads `num_parked`, with a `SeqCst`
//!   fence between each side's write and read, so either the worker sees
//!   the task or the pusher sees the worker and, under the `idle` lock,
//!   takes it off the list and wakes it (loom model 13). A worker is woken
//!   only when a task is queued that no running worker is about to take
//!   (inject pushes, or a second task in a running worker's queue). The
//!   tasks a park step wakes (its I/O events, timers and yielded tasks)
//!   come in a batch: they are queued without a notification.
//! - **A batch asks for help late:** if the step left the worker more than
//!   one task, it wakes a parked worker only once a task of the batch is
//!   still queued [`HELP_AFTER`] later (checked between tasks). Most
//!   batches are gone by then, and a wake-up that arrives after the work
//!   costs both threads a context switch for nothing: waking at once cost
//!   `hyper_server -c50` 1.2x tokio's CPU a request and 2x its voluntary
//!   switches (docs/performance.md, "Servers under real clients"). A
//!   batch of more tasks than one turn runs (`event_interval`) is long
//!   whatever its tasks do, and wakes one at once. The price: a task
//!   queued behind one that runs long without an `.await` waits for it,
//!   as behind tokio's LIFO slot.
//! - **Shutdown:** sets `shutdown` and wakes every worker; the last worker
//!   to leave its loop cancels every task and shuts the drivers down.
//!   `Runtime::drop` joins the workers' threads (unless it runs on one of
//!   them), over and over until none is left: a hand-off (below) may add
//!   one while it joins.
//! - **`block_in_place` hands a worker over:** a worker is its `Core` (its
//!   parker, so its `mio::Poll`; everything else of it is shared by index),
//!   which sits in the thread-local `CORE` only while a task is polled.
//!   `block_in_place` takes it from there (the thread's own runtime's,
//!   `WORKER_OF`, whatever handle a task entered) with the thread's
//!   `Local` (queue and deferred wakers) and gives both to a spare thread
//!   (one an earlier hand-off left behind) or a new one, which runs the
//!   same worker's loop; the old thread goes on with the task as a plain
//!   thread (its wakes go to the inject queue), and when the poll returns
//!   and it finds no core it waits as a spare. `running` counts cores, not
//!   threads. A task may then still be polled by its old thread while the
//!   last worker cancels every task: `Task::shutdown` leaves a running
//!   task to its runner (loom models 21, 21b, 21c).

mod handoff;
mod queues;
mod shutdown;
#[cfg(all(test, not(loom)))]
mod tests;
mod worker;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use std::time::{Duration, Instant as StdInstant};

use super::owned::Owned;
use super::poll_budgeted;
use super::{InjectTurn, Intervals, WorkerStats};
use crate::driver::{Driver, Role, ShardGroup, TimerSlack};
use crate::loom::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use crate::loom::thread::{self, Thread};
use crate::loom::{lock, Condvar, Mutex};
use crate::runtime::blocking;
use crate::runtime::config::{ThreadHooks, ThreadSpec};
use crate::runtime::context;
use crate::runtime::io as io_driver;
use crate::runtime::park::{Parker, Unpark};
use crate::runtime::task::{Schedule, TaskRef};
use crate::runtime::EventCaps;
use worker::run_worker;

pub(crate) use handoff::hand_over_here;

/// How long tasks a park step queued may wait for their worker before it
/// wakes a parked one to take some (see "A batch asks for help late" in
/// the module docs): the upper end of the time tokio's documentation
/// allows a task between two `.await`s, and several times what waking a
/// parked thread takes.
const HELP_AFTER: Duration = Duration::from_micros(100);

/// A multi-thread scheduler: the state every worker and handle shares.
pub(crate) struct MultiThread {
    workers: Box<[Remote]>,
    inject: Mutex<Inject>,
    /// Length of `inject.queue`, readable without the lock.
    inject_len: AtomicUsize,
    /// Workers listed as parked (see the module docs).
    idle: Mutex<Vec<usize>>,
    /// Workers that are parked or about to look whether they may park.
    num_parked: AtomicUsize,
    owned: Owned,
    pub(crate) blocking: blocking::Pool,
    shutdown: AtomicBool,
    /// Workers still in their loop; the last one out cleans up.
    running: AtomicUsize,
    /// Which shard the next non-worker thread to enter gets.
    next_enter: AtomicUsize,
    /// The runtime's threads, joined by `Runtime::drop`.
    threads: Mutex<Threads>,
    /// Threads a hand-off left behind that have finished their task and
    /// wait to be handed a worker (so a hand-off rarely starts a thread).
    spares: Mutex<Vec<Arc<Spare>>>,
    /// How a worker's thread is made (also by a hand-off).
    threads_spec: ThreadSpec,
    /// What each of its threads runs first and last, and around an idle
    /// park.
    hooks: ThreadHooks,
    /// `Builder::name`.
    name: Option<Arc<str>>,
    intervals: Intervals,
    /// The blocking pool's shutdown timeout, for the worker that cleans up
    /// when `Runtime::drop` cannot (it runs on a worker).
    pending_blocking: Mutex<Option<Option<Duration>>>,
}

/// The threads of a multi-thread runtime.
struct Threads {
    /// Those that hold a worker's core (or ended holding one).
    workers: Vec<thread::JoinHandle<()>>,
    /// Those that handed their core over and still run a task (blocking
    /// work, as far as the shutdown's timeout goes).
    left: Vec<thread::JoinHandle<()>>,
    /// Threads that handed their core over while a shutdown held their
    /// handle (taken from `workers`): it waits for them only up to its
    /// timeout, as for `left`.
    gone: Vec<thread::ThreadId>,
}

/// A thread waiting to be handed a worker.
struct Spare {
    thread: thread::ThreadId,
    /// The worker and its `Local`, put here by a hand-off.
    parts: Mutex<Option<(Box<Core>, context::Local)>>,
    ready: Condvar,
}

/// What other threads may touch of one worker.
struct Remote {
    queue: Mutex<VecDeque<TaskRef>>,
    len: AtomicUsize,
    /// The worker's park counts and busy time.
    stats: WorkerStats,
    unpark: Unpark,
    time: Option<Driver>,
    io: Option<Arc<io_driver::Driver>>,
}

struct Inject {
    queue: VecDeque<TaskRef>,
    closed: bool,
}

crate::loom::const_thread_local! {
    /// The core of the worker this thread is, while it polls a task (so
    /// `block_in_place` can hand it over).
    static CORE: RefCell<Option<Box<Core>>> = RefCell::new(None);
    /// The runtime (its address) whose worker this thread was until it
    /// handed the worker over; 0 if none.
    static HANDED_OVER: Cell<usize> = Cell::new(0);
    /// The runtime this thread is a worker thread of (set once when the
    /// thread starts): whose core `CORE` holds, whatever runtime a task
    /// has entered since.
    static WORKER_OF: RefCell<Option<Arc<MultiThread>>> = RefCell::new(None);
    /// Whether this worker is in its park step, where the tasks its events,
    /// timers and yields wake are queued without notifying anyone until
    /// the step ends.
    static PARKING: Cell<bool> = Cell::new(false);
}

/// What only the worker's own thread touches (the thread that holds it).
struct Core {
    index: usize,
    parker: Parker,
    /// When this worker last woke: the start of its busy time.
    busy_since: StdInstant,
    /// Where the next steal looks first.
    steal_from: usize,
    /// When the inject queue next goes first.
    inject_turn: InjectTurn,
    /// When the last park step left this worker tasks another could take,
    /// if it has not woken one for them yet (see [`HELP_AFTER`]).
    help_wanted: Option<StdInstant>,
}

/// How the workers are made (from the builder's settings).
pub(crate) struct Config {
    pub(crate) workers: usize,
    pub(crate) enable_io: bool,
    /// `Some((resolution, slack))`: time enabled.
    pub(crate) time: Option<(Duration, TimerSlack)>,
    pub(crate) threads: ThreadSpec,
    pub(crate) hooks: ThreadHooks,
    pub(crate) intervals: Intervals,
    /// The capacity of each worker's `mio::Events`.
    pub(crate) max_io_events: EventCaps,
    /// `Builder::name`.
    pub(crate) name: Option<Arc<str>>,
}

impl MultiThread {
    /// Builds the workers' event loops and drivers and starts their threads.
    pub(crate) fn start(config: Config, blocking: blocking::Pool) -> io::Result<super::Scheduler> {
        let role = Role::WorkerShard(ShardGroup::unique());
        let mut remotes = Vec::with_capacity(config.workers);
        let mut cores = Vec::with_capacity(config.workers);
        for index in 0..config.workers {
            let (parker, unpark, io) = Parker::new(config.enable_io, config.max_io_events)?;
            let time = config.time.map(|(resolution, slack)| {
                let unpark = unpark.clone();
                Driver::for_runtime(role, resolution, slack, Box::new(move || unpark.unpark()))
            });
            remotes.push(Remote {
                queue: Mutex::new(VecDeque::new()),
                len: AtomicUsize::new(0),
                stats: WorkerStats::default(),
                unpark,
                time,
                io,
            });
            cores.push(Box::new(Core {
                index,
                parker,
                busy_since: StdInstant::now(),
                steal_from: index + 1,
                inject_turn: InjectTurn::new(config.intervals.global_queue),
                help_wanted: None,
            }));
        }
        let shared = Arc::new(MultiThread {
            workers: remotes.into_boxed_slice(),
            inject: Mutex::new(Inject {
                queue: VecDeque::new(),
                closed: false,
            }),
            inject_len: AtomicUsize::new(0),
            idle: Mutex::new(Vec::with_capacity(config.workers)),
            num_parked: AtomicUsize::new(0),
            owned: Owned::default(),
            blocking,
            shutdown: AtomicBool::new(false),
            running: AtomicUsize::new(config.workers),
            next_enter: AtomicUsize::new(0),
            threads: Mutex::new(Threads {
                workers: Vec::with_capacity(config.workers),
                left: Vec::new(),
                gone: Vec::new(),
            }),
            spares: Mutex::new(Vec::new()),
            threads_spec: config.threads,
            hooks: config.hooks,
            name: config.name,
            intervals: config.intervals,
            pending_blocking: Mutex::new(None),
        });
        let scheduler = super::Scheduler::Multi(shared.clone());
        for core in cores {
            let spawned = shared.spawn_worker(core, None);
            match spawned {
                Ok(thread) => lock(&shared.threads).workers.push(thread),
                Err(Unstarted { error: err, .. }) => {
                    // The workers started so far see it, leave their
                    // loops, and the last one cleans up.
                    let started = lock(&shared.threads).workers.len();
                    let missing = config.workers - started;
                    if shared.running.fetch_sub(missing, SeqCst) == missing {
                        shared.finish();
                    }
                    shared.shutdown(Some(Duration::ZERO));
                    return Err(io::Error::new(
                        err.kind(),
                        format!("lawn_rt: cannot start a runtime worker thread: {err}"),
                    ));
                }
            }
        }
        Ok(scheduler)
    }

    fn id(&self) -> usize {
        self as *const MultiThread as usize
    }

    /// Starts a thread that runs worker `core` (with the `Local` of the
    /// thread it is handed over from, if any); on an error, gives them
    /// back.
    fn spawn_worker(
        self: &Arc<Self>,
        core: Box<Core>,
        local: Option<context::Local>,
    ) -> Result<thread::JoinHandle<()>, Unstarted> {
        let handle = crate::runtime::Handle {
            inner: super::Scheduler::Multi(self.clone()),
        };
        let builder = match self.threads_spec.builder() {
            Ok(builder) => builder,
            Err(error) => return Err(Unstarted { error, core, local }),
        };
        // The new thread takes the parts; if it never starts, they are
        // still here.
        let slot = Arc::new(Mutex::new(Some((core, local))));
        let parts = slot.clone();
        let hooks = self.hooks.clone();
        builder
            .spawn(move || {
                let taken = lock(&parts).take();
                if let Some((core, local)) = taken {
                    // Each hook runs with the runtime entered, as tokio's.
                    let entered = handle.enter();
                    hooks.started();
                    drop(entered);
                    run_worker(handle.clone(), core, local);
                    let _entered = handle.enter();
                    hooks.stopping();
                }
            })
            .map_err(|error| {
                let (core, local) = lock(&slot)
                    .take()
                    .expect("a thread that never ran took nothing");
                Unstarted { error, core, local }
            })
    }

    pub(crate) fn bind(&self, task: &TaskRef) -> bool {
        self.owned.bind(task)
    }

    /// Tasks spawned and not yet completed.
    pub(crate) fn alive_tasks(&self) -> usize {
        self.owned.len()
    }

    pub(crate) fn runtime_id(&self) -> crate::runtime::Id {
        self.owned.id()
    }

    /// Tasks waiting in the shared queue (not a worker's own).
    pub(crate) fn inject_depth(&self) -> usize {
        // Stored under the queue's lock after every change: no need to
        // take the lock to read it.
        self.inject_len.load(SeqCst)
    }

    /// The runtime's name (`Builder::name`).
    pub(crate) fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// How many workers the runtime runs.
    pub(crate) fn worker_stats(&self, index: usize) -> Option<&WorkerStats> {
        self.workers.get(index).map(|worker| &worker.stats)
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.workers.len()
    }

    /// Worker `index`'s timer shard, if there is such a worker.
    pub(crate) fn worker_timers(&self, index: usize) -> Option<Option<&Driver>> {
        self.workers.get(index).map(|worker| worker.time.as_ref())
    }

    /// The timer shard and I/O driver for a thread entering the runtime.
    pub(crate) fn enter_parts(&self) -> (Option<&Driver>, Option<&Arc<io_driver::Driver>>) {
        let index = context::worker_index(self.id())
            .unwrap_or_else(|| self.next_enter.fetch_add(1, SeqCst) % self.workers.len());
        let remote = &self.workers[index];
        (remote.time.as_ref(), remote.io.as_ref())
    }

    fn is_shutdown(&self) -> bool {
        self.shutdown.load(SeqCst)
    }

    /// Runs `future` to completion on this thread (not a worker), which
    /// sleeps until the future is woken.
    pub(crate) fn block_on<F: Future>(&self, future: F) -> F::Output {
        let _blocking = context::enter_block_on();
        let mut future = std::pin::pin!(future);
        let signal = Arc::new(ThreadSignal {
            woken: AtomicBool::new(true),
            thread: thread::current(),
        });
        let waker = Waker::from(signal.clone());
        let mut cx = Context::from_waker(&waker);
        loop {
            if signal.woken.swap(false, SeqCst) {
                if let Poll::Ready(out) = poll_budgeted(future.as_mut(), &mut cx) {
                    return out;
                }
                continue;
            }
            thread::park();
        }
    }
}

/// A worker that could not be given a thread: why, and its parts back.
struct Unstarted {
    error: io::Error,
    core: Box<Core>,
    local: Option<context::Local>,
}

impl Schedule for MultiThread {
    fn schedule(&self, task: TaskRef) {
        match context::worker_index(self.id()) {
            Some(index) => self.push_local(index, task),
            None => self.push_inject(task),
        }
    }

    fn release(&self, index: usize) {
        self.owned.release(index);
    }
}

/// The waker of a multi-thread `block_on` future: unparks its thread.
struct ThreadSignal {
    woken: AtomicBool,
    thread: Thread,
}

impl Wake for ThreadSignal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if !self.woken.swap(true, SeqCst) {
            self.thread.unpark();
        }
    }
}

/// The scheduler of a blocking task on a multi-thread runtime: nothing to
/// count (its clock cannot be paused).
pub(crate) struct BlockingSchedule;

impl Schedule for BlockingSchedule {
    fn schedule(&self, task: TaskRef) {
        drop(task);
    }

    fn release(&self, _owned: usize) {}
}
