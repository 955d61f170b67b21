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
//!   come in a batch: they are queued without a notification, and the
//!   step ends with one if they left the worker more than one task.
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

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::panic;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use std::time::{Duration, Instant as StdInstant};

use super::owned::Owned;
use super::poll_budgeted;
use super::survive;
use super::{InjectTurn, Intervals, WorkerStats};
use crate::driver::{Driver, Park, Role, ShardGroup, TimerSlack};
use crate::loom::atomic::{fence, AtomicBool, AtomicUsize, Ordering::SeqCst};
use crate::loom::thread::{self, Thread};
use crate::loom::{lock, wait, wait_timeout, Condvar, Mutex};
use crate::runtime::blocking;
use crate::runtime::config::{ThreadHooks, ThreadSpec};
use crate::runtime::context;
use crate::runtime::io as io_driver;
use crate::runtime::park::{Parker, Unpark};
use crate::runtime::task::{Schedule, TaskRef};
use crate::runtime::EventCaps;

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

    fn push_inject(&self, task: TaskRef) {
        let mut inject = lock(&self.inject);
        if inject.closed {
            drop(inject);
            drop(task);
            return;
        }
        inject.queue.push_back(task);
        if crate::loom::planted("notify") {
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only): a parked worker is looked for before the task is
            // published, so a worker deciding to park misses both.
            self.notify_one();
            self.inject_len.store(inject.queue.len(), SeqCst);
            return;
        }
        self.inject_len.store(inject.queue.len(), SeqCst);
        drop(inject);
        self.notify_one();
    }

    fn push_local(&self, index: usize, task: TaskRef) {
        let remote = &self.workers[index];
        let mut queue = lock(&remote.queue);
        queue.push_back(task);
        let len = queue.len();
        remote.len.store(len, SeqCst);
        drop(queue);
        // The worker itself takes the first; a second can go elsewhere.
        // While the worker parks, its events and timers wake tasks in a
        // batch: one notification after the batch (`park`) serves it.
        if len > 1 && !PARKING.with(Cell::get) {
            self.notify_one();
        }
    }

    /// Wakes one parked worker, if any is parked. Called after a queue
    /// length is published; the fence pairs with `list_parked`'s.
    fn notify_one(&self) {
        fence(SeqCst);
        if self.num_parked.load(SeqCst) == 0 {
            return;
        }
        let mut idle = lock(&self.idle);
        let Some(index) = idle.pop() else {
            return;
        };
        self.num_parked.fetch_sub(1, SeqCst);
        drop(idle);
        self.workers[index].unpark.unpark();
    }

    fn pop_local(&self, index: usize) -> Option<TaskRef> {
        let remote = &self.workers[index];
        if remote.len.load(SeqCst) == 0 {
            return None;
        }
        let mut queue = lock(&remote.queue);
        let task = queue.pop_front();
        remote.len.store(queue.len(), SeqCst);
        task
    }

    /// Takes a fair share of the inject queue: one task to run now, the
    /// rest into worker `index`'s queue.
    fn pop_inject(&self, index: usize) -> Option<TaskRef> {
        if self.inject_len.load(SeqCst) == 0 {
            return None;
        }
        let mut inject = lock(&self.inject);
        let len = inject.queue.len();
        let take = len
            .div_ceil(self.workers.len())
            .min(self.intervals.event as usize);
        let mut taken: VecDeque<TaskRef> = inject.queue.drain(..take).collect();
        self.inject_len.store(inject.queue.len(), SeqCst);
        drop(inject);
        let first = taken.pop_front();
        if !taken.is_empty() {
            self.append_local(index, taken);
        }
        first
    }

    /// Takes half of another worker's queue (the older half): one task to
    /// run now, the rest into worker `core.index`'s queue.
    fn steal(&self, core: &mut Core) -> Option<TaskRef> {
        let workers = self.workers.len();
        for offset in 0..workers {
            let victim = (core.steal_from + offset) % workers;
            if victim == core.index || self.workers[victim].len.load(SeqCst) == 0 {
                continue;
            }
            let remote = &self.workers[victim];
            let mut queue = lock(&remote.queue);
            let take = queue.len().div_ceil(2);
            let mut taken: VecDeque<TaskRef> = queue.drain(..take).collect();
            remote.len.store(queue.len(), SeqCst);
            drop(queue);
            core.steal_from = victim;
            let first = taken.pop_front();
            if !taken.is_empty() {
                self.append_local(core.index, taken);
            }
            if first.is_some() {
                return first;
            }
        }
        None
    }

    fn append_local(&self, index: usize, mut tasks: VecDeque<TaskRef>) {
        let remote = &self.workers[index];
        let mut queue = lock(&remote.queue);
        queue.append(&mut tasks);
        remote.len.store(queue.len(), SeqCst);
    }

    /// The next task to run: from this worker's queue (the inject queue
    /// first on every `global_queue_interval`-th task), else the inject
    /// queue, else another worker's.
    #[inline]
    fn next_task(&self, core: &mut Core, turn: &mut InjectTurn) -> Option<TaskRef> {
        let mut task = None;
        if turn.due() {
            task = self.pop_inject(core.index);
        }
        let task = task
            .or_else(|| self.pop_local(core.index))
            .or_else(|| self.pop_inject(core.index))
            .or_else(|| self.steal(core));
        if task.is_some() {
            turn.taken(self.intervals.global_queue);
        }
        task
    }

    /// Whether any queue holds a task (a hint, read without locks).
    fn any_queued(&self) -> bool {
        self.inject_len.load(SeqCst) > 0 || self.workers.iter().any(|w| w.len.load(SeqCst) > 0)
    }

    /// The worker's loop; returns its core at shutdown, or `None` once a
    /// task has handed the core to another thread (`block_in_place`).
    fn run(&self, mut core: Box<Core>) -> Option<Box<Core>> {
        while !self.is_shutdown() {
            let mut ran = 0;
            let event_interval = self.intervals.event;
            let mut turn = core.inject_turn;
            while ran < event_interval {
                let Some(task) = self.next_task(&mut core, &mut turn) else {
                    break;
                };
                core = run_task(core, task)?;
                ran += 1;
            }
            core.inject_turn = turn;
            let idle = ran < event_interval
                && context::with_local(self.id(), |l| l.deferred.is_empty()).unwrap_or(true);
            self.park(&mut core, idle);
        }
        Some(core)
    }

    /// Starts a new thread for the worker whose core this thread holds,
    /// and stops being that worker here. If no thread can be started, the
    /// worker stays here (and blocks with `f`, as without a hand-off).
    fn hand_over(self: &Arc<Self>, core: Box<Core>) {
        let mut local = context::stop_driving().expect("a worker's thread drives its runtime");
        // The tasks that yielded are woken now, before the closure blocks
        // (as tokio does since tokio#7877): a waker may be anyone's, not
        // only a task's the new thread would run.
        let deferred = std::mem::take(&mut local.deferred);
        if crate::loom::planted("handoff_local") {
            // The deliberately broken variant (test-only): the deferred
            // wakers of the tasks that yielded are dropped, not woken.
            drop(deferred);
        } else {
            for waker in deferred {
                super::survive(|| waker.wake());
            }
        }
        HANDED_OVER.with(|handed| handed.set(self.id()));
        let me = thread::current().id();
        let spare = lock(&self.spares).pop();
        // The threads' list is held while the next thread is found or
        // started, so that thread cannot hand over in turn before it is
        // listed as the worker.
        let mut threads = lock(&self.threads);
        let ended = match spare {
            Some(spare) => {
                // It is off the list: it waits for these parts, whatever
                // else happens (see `wait_as_spare`).
                let at = threads
                    .left
                    .iter()
                    .position(|t| t.thread().id() == spare.thread);
                let next = at.map(|at| threads.left.swap_remove(at));
                let ended = swap_roles(&mut threads, me, next);
                *lock(&spare.parts) = Some((core, local));
                spare.ready.notify_one();
                ended
            }
            None => match self.spawn_worker(core, Some(local)) {
                Ok(thread) => swap_roles(&mut threads, me, Some(thread)),
                Err(Unstarted { core, local, .. }) => {
                    drop(threads);
                    HANDED_OVER.with(|handed| handed.set(0));
                    context::resume_driving(local.expect("handed over with its Local"));
                    CORE.with(|slot| *slot.borrow_mut() = Some(core));
                    return;
                }
            },
        };
        drop(threads);
        // Threads earlier hand-offs left behind that have ended: joined
        // (outside the lock: a join waits for their thread-locals' drops).
        for thread in ended {
            let _ = thread.join();
        }
    }

    /// On a thread a hand-off left behind, once its task's poll is over:
    /// waits (up to the blocking pool's keep-alive) to be handed a worker;
    /// `None` if none came or the runtime shuts down.
    fn wait_as_spare(&self) -> Option<(Box<Core>, context::Local)> {
        let spare = Arc::new(Spare {
            thread: thread::current().id(),
            parts: Mutex::new(None),
            ready: Condvar::new(),
        });
        {
            let mut spares = lock(&self.spares);
            if self.is_shutdown() {
                return None;
            }
            spares.push(spare.clone());
        }
        let keep_alive = self.blocking.keep_alive();
        let since = StdInstant::now();
        let mut parts = lock(&spare.parts);
        loop {
            if let Some(parts) = parts.take() {
                return Some(parts);
            }
            // A shutdown sets its flag, then notifies every listed spare
            // under its lock: seen here, or the notify comes. (Under loom
            // no time passes: a spare waits for a hand-off or the
            // shutdown.)
            let idle_for_long = !cfg!(loom) && since.elapsed() >= keep_alive;
            let leave = self.is_shutdown() || idle_for_long;
            if leave {
                let mut spares = lock(&self.spares);
                if let Some(at) = spares.iter().position(|s| Arc::ptr_eq(s, &spare)) {
                    spares.swap_remove(at);
                    return None;
                }
                // A hand-off took it off the list: its parts are coming.
                drop(spares);
                parts = wait(&spare.ready, parts);
                continue;
            }
            parts = if cfg!(loom) {
                wait(&spare.ready, parts)
            } else {
                wait_timeout(
                    &spare.ready,
                    parts,
                    keep_alive.saturating_sub(since.elapsed()),
                )
            };
        }
    }

    /// One park step (see the module docs), and then one notification of
    /// a parked worker if the step left this worker more than one task.
    fn park(&self, core: &mut Core, idle: bool) {
        struct Parking;
        impl Drop for Parking {
            fn drop(&mut self) {
                PARKING.with(|parking| parking.set(false));
            }
        }
        let parking = Parking;
        PARKING.with(|parking| parking.set(true));
        self.park_step(core, idle);
        drop(parking);
        // The notification the step's wake-ups held back: the worker takes
        // the first task, another worker may take the rest.
        if self.workers[core.index].len.load(SeqCst) > 1 {
            self.notify_one();
        }
    }

    /// The park step itself: block if `idle` and nothing is queued
    /// anywhere, else only look for events; then fire this shard's due
    /// timers and wake the tasks that yielded. An idle step runs the park
    /// hook first (a task it spawns lands in this worker's queue, which
    /// `list_parked` looks at, so the worker does not block) and the
    /// unpark hook last.
    fn park_step(&self, core: &mut Core, idle: bool) {
        if idle {
            self.hooks.parking();
        }
        let remote = &self.workers[core.index];
        let time = remote.time.as_ref().map(|driver| driver.handle());
        let listed = idle && self.list_parked(core.index);
        let mut began = false;
        if listed {
            let plan = match time {
                None => Park::Until(None),
                Some(timers) => timers.begin_park(None),
            };
            began = time.is_some() && plan != Park::Skip;
            // I/O readiness wakes tasks from inside the poll.
            match plan {
                Park::Until(until) => {
                    let Core {
                        parker, busy_since, ..
                    } = core;
                    remote.stats.around_park(busy_since, || {
                        survive(|| parker.park(until, StdInstant::now(), true));
                    });
                }
                Park::Skip => survive(|| core.parker.poll_now()),
            }
            self.unlist_parked(core.index);
        } else {
            survive(|| core.parker.poll_now());
        }
        if began {
            if let Some(timers) = time {
                timers.end_park();
            }
        }
        if let Some(driver) = &remote.time {
            survive(|| driver.process());
        }
        let deferred = context::with_local(self.id(), |l| std::mem::take(&mut l.deferred));
        for waker in deferred.into_iter().flatten() {
            survive(|| waker.wake());
        }
        if idle {
            self.hooks.unparked();
        }
    }

    /// Lists worker `index` as parked unless a task is queued somewhere or
    /// the runtime is shutting down; returns whether it did.
    fn list_parked(&self, index: usize) -> bool {
        self.num_parked.fetch_add(1, SeqCst);
        // Pairs with `notify_one`'s fence: either this worker's count is
        // seen there, or the queue length published before it is seen
        // here. (The SeqCst accesses alone promise the same, but loom
        // models them as acquire/release; the fences it models.)
        fence(SeqCst);
        let mut idle = lock(&self.idle);
        if self.is_shutdown() || self.any_queued() {
            self.num_parked.fetch_sub(1, SeqCst);
            return false;
        }
        idle.push(index);
        true
    }

    /// Takes worker `index` off the parked list, unless a notifier did.
    fn unlist_parked(&self, index: usize) {
        let mut idle = lock(&self.idle);
        if let Some(position) = idle.iter().position(|&i| i == index) {
            idle.swap_remove(position);
            self.num_parked.fetch_sub(1, SeqCst);
        }
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

    /// Shuts the runtime down: stops the workers (joining them unless
    /// called on one), after which the last of them cancels every task
    /// and shuts the drivers down; then stops the blocking pool (waiting
    /// up to `timeout` for running blocking tasks). Idempotent.
    pub(crate) fn shutdown(&self, timeout: Option<Duration>) {
        let on_own_thread = context::worker_index(self.id()).is_some()
            || HANDED_OVER.try_with(Cell::get).ok() == Some(self.id());
        if on_own_thread {
            // Recorded before the flag: once it is set, the last worker may
            // clean up at once (a thread that handed its worker over holds
            // none to stop it).
            let mut pending = lock(&self.pending_blocking);
            if !self.is_shutdown() {
                *pending = Some(timeout);
            }
        }
        if self.shutdown.swap(true, SeqCst) {
            return;
        }
        for remote in self.workers.iter() {
            remote.unpark.unpark();
        }
        // Not under the list's lock: a spare takes it under its own.
        let spares = lock(&self.spares).clone();
        for spare in spares {
            if crate::loom::planted("spare_wake") {
                // The deliberately broken variant (test-only): spares are
                // not told, and wait out their keep-alive.
                break;
            }
            let _parts = lock(&spare.parts);
            spare.ready.notify_one();
        }
        if on_own_thread {
            // Dropped inside one of its own tasks (on a worker, or on a
            // thread that handed its worker over): it cannot join itself;
            // the last worker cleans up once it is out of its loop.
            return;
        }
        // A hand-off lists its new thread before its old one can end, so
        // once a round finds no thread listed, every one has been joined.
        // Threads a hand-off left behind run blocking work: waited for up
        // to `timeout`, as the blocking pool's threads are (then let go),
        // also one that handed over after this took the lists (`gone`).
        // A timeout past what an instant can hold waits as long as it takes.
        let deadline = timeout.and_then(|timeout| StdInstant::now().checked_add(timeout));
        let mut panicked = None;
        loop {
            let (workers, left) = {
                let mut threads = lock(&self.threads);
                let workers = std::mem::take(&mut threads.workers);
                (workers, std::mem::take(&mut threads.left))
            };
            if workers.is_empty() && left.is_empty() {
                break;
            }
            let workers = workers.into_iter().filter(|thread| {
                let id = thread.thread().id();
                ends_by(thread, deadline, || lock(&self.threads).gone.contains(&id))
            });
            let left = left
                .into_iter()
                .filter(|thread| ends_by(thread, deadline, || true));
            for thread in workers.chain(left) {
                if let Err(payload) = thread.join() {
                    panicked.get_or_insert(payload);
                }
            }
            if crate::loom::planted("handoff_join") {
                // The deliberately broken variant (test-only): joins one
                // round only, so a worker's new thread may outlive the drop.
                break;
            }
        }
        self.blocking.shutdown(timeout);
        // A worker's panic goes on here, unless this thread is unwinding
        // already (a second panic would abort the process).
        if let Some(payload) = panicked.filter(|_| !std::thread::panicking()) {
            panic::resume_unwind(payload);
        }
    }

    /// Called by each worker leaving its loop; the last one cancels every
    /// task and shuts the drivers down.
    fn worker_done(&self) {
        if self.running.fetch_sub(1, SeqCst) == 1 {
            self.finish();
        }
    }

    fn finish(&self) {
        if let Some(tasks) = self.owned.close() {
            for task in tasks {
                task.shutdown();
            }
        }
        let queued = {
            let mut inject = lock(&self.inject);
            inject.closed = true;
            self.inject_len.store(0, SeqCst);
            std::mem::take(&mut inject.queue)
        };
        drop(queued);
        for remote in self.workers.iter() {
            let queued = std::mem::take(&mut *lock(&remote.queue));
            remote.len.store(0, SeqCst);
            drop(queued);
        }
        let woke = super::shut_drivers(
            self.workers.iter().filter_map(|w| w.io.as_ref()),
            self.workers.iter().filter_map(|w| w.time.as_ref()),
        );
        if let Some(timeout) = lock(&self.pending_blocking).take() {
            self.blocking.shutdown(timeout);
        }
        if let Err(payload) = woke {
            panic::resume_unwind(payload);
        }
    }
}

/// `task::block_in_place`'s first step on this thread: if it is a worker
/// of a multi-thread runtime polling a task, hands the worker to another
/// thread (see the module docs). Whether the thread is a worker thread of
/// a multi-thread runtime at all.
pub(crate) fn hand_over_here() -> bool {
    let Some(shared) = WORKER_OF.try_with(|w| w.borrow().clone()).ok().flatten() else {
        return false;
    };
    let core = CORE
        .try_with(|core| core.borrow_mut().take())
        .ok()
        .flatten();
    if let Some(core) = core {
        shared.hand_over(core);
    }
    true
}

/// A worker's thread body: from the start (`local` is `None`) or from a
/// hand-off; after handing its worker over, the thread waits as a spare
/// for another hand-off.
fn run_worker(handle: crate::runtime::Handle, core: Box<Core>, local: Option<context::Local>) {
    let crate::runtime::scheduler::Scheduler::Multi(shared) = handle.inner.clone() else {
        unreachable!("a worker belongs to a multi-thread runtime");
    };
    WORKER_OF.with(|w| *w.borrow_mut() = Some(shared.clone()));
    let mut next = Some((core, local));
    while let Some((core, local)) = next.take() {
        match local {
            Some(local) => context::resume_driving(local),
            None => context::start_driving(shared.id(), core.index, VecDeque::new()),
        }
        let handed_over = {
            let _entered = handle.enter();
            match shared.run(core) {
                Some(core) => {
                    // Cleans up (drops futures) with the runtime still
                    // entered, and the core (its parker) kept until then.
                    shared.worker_done();
                    drop(core);
                    false
                }
                None => true,
            }
        };
        let deferred = context::stop_driving().map(|local| local.deferred);
        drop(deferred);
        if handed_over {
            next = shared
                .wait_as_spare()
                .map(|(core, local)| (core, Some(local)));
        }
    }
}

/// Runs `task` with `core` in `CORE`; gives the core back unless the task
/// handed it over (`block_in_place`).
#[inline]
fn run_task(core: Box<Core>, task: TaskRef) -> Option<Box<Core>> {
    CORE.with(|slot| *slot.borrow_mut() = Some(core));
    task.run();
    CORE.with(|slot| slot.borrow_mut().take())
}

/// Moves thread `me`'s handle from `workers` to `left`, lists `next` (the
/// thread taking the worker over) in `workers`, and takes the threads in
/// `left` that have ended (for the caller to join once it has let the
/// list go), so a long-lived runtime keeps no handle of theirs.
fn swap_roles(
    threads: &mut Threads,
    me: thread::ThreadId,
    next: Option<thread::JoinHandle<()>>,
) -> Vec<thread::JoinHandle<()>> {
    let mine = threads.workers.iter().position(|t| t.thread().id() == me);
    let mine = mine.map(|at| threads.workers.swap_remove(at));
    if mine.is_none() {
        // A shutdown is joining this thread as a worker's.
        threads.gone.push(me);
    }
    threads.workers.extend(next);
    let (ended, left): (Vec<_>, Vec<_>) = std::mem::take(&mut threads.left)
        .into_iter()
        .partition(crate::loom::is_finished);
    threads.left = left;
    threads.left.extend(mine);
    ended
}

/// Waits until `thread` has ended, or `deadline` has passed and it runs
/// blocking work (`blocking()`); whether it may be joined now (else it is
/// let go). No deadline: joined, however long it takes.
fn ends_by(
    thread: &thread::JoinHandle<()>,
    deadline: Option<StdInstant>,
    blocking: impl Fn() -> bool,
) -> bool {
    let Some(deadline) = deadline else {
        return true;
    };
    if cfg!(loom) {
        // loom cannot tell a thread has ended, and no time passes there.
        return !blocking();
    }
    while !crate::loom::is_finished(thread) {
        let now = StdInstant::now();
        if now >= deadline {
            if blocking() {
                return false;
            }
            // A worker's thread: it leaves its loop at once.
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(1)));
    }
    true
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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// A runtime that hands its workers over again and again keeps no
    /// handle of the threads that have ended: its thread list stays at the
    /// workers plus the few threads still on their way out.
    #[test]
    fn hand_offs_keep_no_handle_of_ended_threads() {
        let rt = crate::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let super::super::Scheduler::Multi(shared) = rt.handle().inner.clone() else {
            unreachable!()
        };
        rt.block_on(async {
            crate::spawn(async {
                for _ in 0..300 {
                    crate::task::block_in_place(|| ());
                    crate::task::yield_now().await;
                }
            })
            .await
            .unwrap();
        });
        let threads = lock(&shared.threads);
        assert_eq!(threads.workers.len(), 2, "one handle per worker");
        // Each hand-off joins the threads that have ended; a loaded
        // machine may leave a few still exiting, never the 300.
        assert!(
            threads.left.len() <= 32,
            "{} handles left",
            threads.left.len()
        );
    }
}
