//! The current-thread scheduler and its park loop (docs/guide.md, "The runtime"):
//!
//! ```text
//! loop {
//!     poll the block_on future if it was woken
//!     run up to `event_interval` ready tasks (each under a coop budget):
//!         the local queue first, the inject queue first on every
//!         `global_queue_interval`-th
//!     park: if nothing is ready, run the park hook, look again, and block
//!           until the next timer deadline (timerfd) or a wake-up; else
//!           only look for events (timeout zero)
//!     fire every due timer (their tasks land in the local queue)
//!     wake the tasks that yielded; after a park hook, run the unpark hook
//! }
//! ```
//!
//! Ground rules:
//! - The *core* (the `Parker` and the local run queue) belongs to whichever
//!   thread is in `block_on` and holds the seat; others wait for the seat,
//!   polling their own future when it is woken.
//! - A task woken on the driving thread goes to the local queue (no lock);
//!   from elsewhere to the inject queue (a mutex), waking the parked
//!   thread only if it is parked (`Inject::parked`, set under that mutex
//!   after checking the queue and the block_on flag, so no wake-up is
//!   lost).
//! - Every spawned task is in `owned` until it completes, so shutdown can
//!   drop every future; once closed, new tasks are cancelled at once.

use std::collections::VecDeque;
use std::future::Future;
use std::panic;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant as StdInstant};

use super::owned::Owned;
use super::{poll_budgeted, survive, InjectTurn, Intervals, WorkerStats};
use crate::driver::{Driver, Handle as TimeHandle, Park};
use crate::loom::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use crate::loom::{lock, wait, Condvar, Mutex};
use crate::runtime::blocking;
use crate::runtime::config::ThreadHooks;
use crate::runtime::context;
use crate::runtime::io;
use crate::runtime::park::{Parker, Unpark};
use crate::runtime::task::{Schedule, TaskRef};

/// A current-thread scheduler: what its handles share (the driving
/// thread's own part is [`Core`]).
pub(crate) struct CurrentThread {
    inject: Mutex<Inject>,
    /// Length of `inject.queue`, readable without the lock (a hint).
    inject_len: AtomicUsize,
    /// The driving thread's park counts and busy time (worker 0's).
    stats: WorkerStats,
    owned: Owned,
    /// The core, when no thread drives the runtime.
    seat: Mutex<Option<Core>>,
    seat_free: Condvar,
    /// Threads in `block_on` waiting for the seat (counted under `seat`).
    seat_waiters: AtomicUsize,
    unpark: Unpark,
    pub(crate) time: Option<Driver>,
    pub(crate) blocking: blocking::Pool,
    /// Blocking tasks spawned and not yet finished: while there are any,
    /// a paused clock does not auto-advance (tokio's rule).
    blocking_inflight: AtomicUsize,
    /// A shutdown asked for on the driving thread itself (the runtime
    /// dropped inside one of its own tasks, or inside a `block_on` future):
    /// carried out with this timeout by that thread once it stops driving,
    /// since a task cannot cancel itself from inside its own poll.
    pending_shutdown: Mutex<Option<Option<Duration>>>,
    /// The I/O driver (`None`: built without `enable_io`).
    pub(crate) io: Option<Arc<io::Driver>>,
    intervals: Intervals,
    /// The park and unpark hooks run on the driving thread.
    hooks: ThreadHooks,
    /// `Builder::name`.
    name: Option<Arc<str>>,
    /// A `LocalRuntime`'s: the thread it was built on (and stays on); set
    /// once as it is made, read only on `spawn_local`'s way to a panic.
    local_thread: Mutex<Option<std::thread::ThreadId>>,
}

struct Inject {
    queue: VecDeque<TaskRef>,
    /// The driving thread is blocked in the poll (or about to be).
    parked: bool,
    closed: bool,
}

/// What the driving thread owns.
pub(crate) struct Core {
    parker: Parker,
    queue: VecDeque<TaskRef>,
    /// When the inject queue next goes first.
    inject_turn: InjectTurn,
    /// When the driving thread last woke (or took the seat): the start of
    /// its busy time (`WorkerStats`).
    busy_since: StdInstant,
}

impl CurrentThread {
    pub(crate) fn new(
        parker: Parker,
        unpark: Unpark,
        time: Option<Driver>,
        blocking: blocking::Pool,
        io: Option<Arc<io::Driver>>,
        intervals: Intervals,
        hooks: ThreadHooks,
    ) -> CurrentThread {
        CurrentThread {
            inject: Mutex::new(Inject {
                queue: VecDeque::new(),
                parked: false,
                closed: false,
            }),
            inject_len: AtomicUsize::new(0),
            owned: Owned::default(),
            seat: Mutex::new(Some(Core {
                parker,
                queue: VecDeque::new(),
                inject_turn: InjectTurn::new(intervals.global_queue),
                busy_since: StdInstant::now(),
            })),
            stats: WorkerStats::default(),
            seat_free: Condvar::new(),
            seat_waiters: AtomicUsize::new(0),
            unpark,
            time,
            blocking,
            blocking_inflight: AtomicUsize::new(0),
            pending_shutdown: Mutex::new(None),
            io,
            intervals,
            hooks,
            name: None,
            local_thread: Mutex::new(None),
        }
    }

    /// The runtime's name (`Builder::name`).
    pub(crate) fn named(mut self, name: Option<Arc<str>>) -> CurrentThread {
        self.name = name;
        self
    }

    /// Makes this the scheduler of a `LocalRuntime` on this thread.
    pub(crate) fn make_local(&self) {
        *lock(&self.local_thread) = Some(std::thread::current().id());
    }

    /// The thread of the `LocalRuntime` this scheduler is, if it is one.
    pub(crate) fn local_thread(&self) -> Option<std::thread::ThreadId> {
        *lock(&self.local_thread)
    }

    pub(crate) fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    fn id(&self) -> usize {
        self as *const CurrentThread as usize
    }

    /// Tasks spawned and not yet completed.
    pub(crate) fn alive_tasks(&self) -> usize {
        self.owned.len()
    }

    /// The driving thread's counts (worker 0's).
    pub(crate) fn stats(&self) -> &WorkerStats {
        &self.stats
    }

    pub(crate) fn runtime_id(&self) -> crate::runtime::Id {
        self.owned.id()
    }

    /// Tasks waiting in the queue other threads schedule into.
    pub(crate) fn inject_depth(&self) -> usize {
        // Stored under the queue's lock after every change: no need to
        // take the lock to read it.
        self.inject_len.load(Relaxed)
    }

    /// Adds a new task to the owned set; `false` (and the task cancelled)
    /// if the runtime has shut down.
    pub(crate) fn bind(&self, task: &TaskRef) -> bool {
        self.owned.bind(task)
    }

    /// Counts a blocking task in (see `blocking_inflight`); its
    /// [`BlockingSchedule`] counts it out once it has completed.
    pub(crate) fn blocking_started(self: &Arc<CurrentThread>) -> BlockingSchedule {
        self.blocking_inflight.fetch_add(1, SeqCst);
        BlockingSchedule(self.clone())
    }

    fn push_remote(&self, task: TaskRef) {
        let mut inject = lock(&self.inject);
        if inject.closed {
            drop(inject);
            drop(task);
            return;
        }
        inject.queue.push_back(task);
        self.inject_len.store(inject.queue.len(), Relaxed);
        let wake = std::mem::take(&mut inject.parked);
        drop(inject);
        if wake {
            self.unpark.unpark();
        }
    }

    /// Wakes the driving thread if it is parked.
    fn notify_parked(&self) {
        let wake = std::mem::take(&mut lock(&self.inject).parked);
        if wake {
            self.unpark.unpark();
        }
    }

    /// Takes every task of the inject queue.
    fn take_inject(&self) -> VecDeque<TaskRef> {
        let mut inject = lock(&self.inject);
        self.inject_len.store(0, Relaxed);
        std::mem::take(&mut inject.queue)
    }

    /// Takes the first task of the inject queue.
    fn pop_inject(&self) -> Option<TaskRef> {
        let mut inject = lock(&self.inject);
        let task = inject.queue.pop_front();
        self.inject_len.store(inject.queue.len(), Relaxed);
        task
    }

    /// Runs `future` to completion on this thread, driving the runtime's
    /// tasks, timers and I/O meanwhile (or, while another thread drives
    /// it, waiting for the seat).
    pub(crate) fn block_on<F: Future>(self: &Arc<CurrentThread>, future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let signal = Arc::new(Signal {
            woken: AtomicBool::new(true),
            inner: self.clone(),
        });
        let waker = Waker::from(signal.clone());
        let mut cx = Context::from_waker(&waker);
        let mut seat = lock(&self.seat);
        let mut core = loop {
            if let Some(core) = seat.take() {
                break core;
            }
            if signal.woken.swap(false, SeqCst) {
                drop(seat);
                if let Poll::Ready(out) = poll_budgeted(future.as_mut(), &mut cx) {
                    return out;
                }
                seat = lock(&self.seat);
                continue;
            }
            // Counted before `woken` is read again: a waker either sees the
            // count (and signals under the seat lock) or its `woken` store
            // is seen here (both SeqCst).
            self.seat_waiters.fetch_add(1, SeqCst);
            if !signal.woken.load(SeqCst) {
                seat = wait(&self.seat_free, seat);
            }
            self.seat_waiters.fetch_sub(1, SeqCst);
        };
        drop(seat);
        // Busy from here: the time waiting for the seat was not.
        core.busy_since = StdInstant::now();
        let mut driving = Driving::start(self, core);
        self.drive(driving.core(), future, &signal, &mut cx)
    }

    fn drive<F: Future>(
        &self,
        core: &mut Core,
        mut future: Pin<&mut F>,
        signal: &Signal,
        cx: &mut Context<'_>,
    ) -> F::Output {
        loop {
            if signal.woken.swap(false, SeqCst) {
                if let Poll::Ready(out) = poll_budgeted(future.as_mut(), cx) {
                    return out;
                }
            }
            let mut ran = 0;
            let event_interval = self.intervals.event;
            let mut turn = core.inject_turn;
            // Tasks run even if the block_on future was woken meanwhile:
            // one that wakes itself must not starve them.
            while ran < event_interval {
                let Some(task) = self.next_task(&mut turn) else {
                    break;
                };
                task.run();
                ran += 1;
            }
            core.inject_turn = turn;
            let idle = !self.has_ready_work(&signal.woken);
            self.park(core, idle, &signal.woken);
        }
    }

    /// The next task to run: from the local queue, or from the inject
    /// queue first on every `global_queue_interval`-th task.
    #[inline]
    fn next_task(&self, turn: &mut InjectTurn) -> Option<TaskRef> {
        let task = self.find_task(turn.due());
        if task.is_some() {
            turn.taken(self.intervals.global_queue);
        }
        task
    }

    fn find_task(&self, inject_first: bool) -> Option<TaskRef> {
        let id = self.id();
        if inject_first && self.inject_len.load(Relaxed) > 0 {
            if let Some(task) = self.pop_inject() {
                return Some(task);
            }
        }
        if let Some(task) = context::with_local(id, |l| l.queue.pop_front()).flatten() {
            return Some(task);
        }
        if self.inject_len.load(Relaxed) == 0 {
            return None;
        }
        let mut taken = self.take_inject();
        let first = taken.pop_front();
        context::with_local(id, |l| l.queue.append(&mut taken));
        first
    }

    fn has_ready_work(&self, woken: &AtomicBool) -> bool {
        woken.load(SeqCst)
            || self.inject_len.load(SeqCst) > 0
            || context::with_local(self.id(), |l| !l.queue.is_empty() || !l.deferred.is_empty())
                .unwrap_or(false)
    }

    /// One park step: block if `idle` (until the next timer, an event or a
    /// wake-up), else just look for events; then fire due timers and wake
    /// the tasks that yielded. An idle step runs the park hook first (and
    /// then looks for work again: the hook may have spawned or woken a
    /// task, onto the local queue, which `set_parked` does not look at),
    /// and the unpark hook last.
    fn park(&self, core: &mut Core, mut idle: bool, woken: &AtomicBool) {
        let hooked = idle;
        if hooked && self.hooks.parking() {
            idle = !self.has_ready_work(woken);
        }
        let time = self.time.as_ref().map(|driver| driver.handle());
        let mut plan = Park::Skip;
        // Whether the plan is to wait for a blocking task (paused clock).
        let mut for_blocking = false;
        if idle {
            plan = match time {
                None => Park::Until(None),
                Some(timers) if timers.is_paused() => {
                    for_blocking = self.blocking_inflight.load(SeqCst) > 0;
                    if for_blocking {
                        timers.begin_park_paused(None)
                    } else {
                        match self.auto_advance(core, timers, woken) {
                            Ok(()) => Park::Skip,
                            Err(seen) => timers.begin_park_paused(Some(seen)),
                        }
                    }
                }
                Some(timers) => timers.begin_park(None),
            };
        }
        let began = time.is_some() && plan != Park::Skip;
        let mut parked = false;
        if let Park::Until(until) = plan {
            parked = self.set_parked(woken, for_blocking);
            if parked {
                let (now, real) = match time {
                    Some(timers) if timers.paused_ever() => {
                        core.parker.forget_armed();
                        (timers.now(), false)
                    }
                    _ => (StdInstant::now(), true),
                };
                let Core {
                    parker, busy_since, ..
                } = core;
                self.stats
                    .around_park(busy_since, || survive(|| parker.park(until, now, real)));
            }
        }
        if !parked {
            survive(|| core.parker.poll_now());
        }
        if parked {
            lock(&self.inject).parked = false;
        }
        if began {
            if let Some(timers) = time {
                timers.end_park();
            }
        }
        let fired = self.fire_timers();
        if parked {
            if let Some(driver) = &self.time {
                driver.count_wake_up(core.parker.wake_cause(fired));
            }
        }
        let deferred = context::with_local(self.id(), |l| std::mem::take(&mut l.deferred));
        for waker in deferred.into_iter().flatten() {
            survive(|| waker.wake());
        }
        if hooked {
            self.hooks.unparked();
        }
    }

    /// With the clock paused and nothing else to do: look for events, and if
    /// still idle, jump the clock to the next timer. Returns whether that
    /// made progress (else the caller blocks until woken: with no timer, or
    /// one the clock cannot reach).
    fn auto_advance(
        &self,
        core: &mut Core,
        timers: &TimeHandle,
        woken: &AtomicBool,
    ) -> Result<(), Option<u64>> {
        survive(|| core.parker.poll_now());
        let fired = self.fire_timers();
        if fired > 0 || self.has_ready_work(woken) {
            return Ok(());
        }
        let Some(next) = timers.next_deadline() else {
            return Err(None);
        };
        let at = timers.instant_of(next);
        let now = timers.now();
        let moved = at > now && timers.advance(at - now);
        let fired = self.fire_timers();
        // A timer the clock cannot reach (beyond what an `Instant` holds)
        // must not make this spin.
        let after = timers.next_deadline();
        if moved || fired > 0 || after != Some(next) {
            Ok(())
        } else {
            Err(after.map(|t| t.0))
        }
    }

    /// Marks the driving thread parked unless work arrived (or, if it parks
    /// to wait for blocking tasks, they have all finished meanwhile); see
    /// the module docs.
    fn set_parked(&self, woken: &AtomicBool, for_blocking: bool) -> bool {
        let mut inject = lock(&self.inject);
        if !inject.queue.is_empty() || woken.load(SeqCst) {
            return false;
        }
        // A blocking task counts itself out before it takes this lock to
        // look at `parked`: either we see the count at zero, or it sees us
        // parked and wakes us.
        if for_blocking && self.blocking_inflight.load(SeqCst) == 0 {
            return false;
        }
        inject.parked = true;
        true
    }

    /// Fires every due timer; returns how many were woken. A waker that
    /// panics is reported by the panic hook and the loop goes on (see
    /// `survive`); the rest of its batch has been woken.
    fn fire_timers(&self) -> usize {
        let mut fired = 0;
        survive(|| fired = self.time.as_ref().map_or(0, Driver::process));
        fired
    }

    /// Shuts the runtime down: drops every task's future (on this thread,
    /// with the runtime entered), then the queues and the core, then the
    /// timer driver (waking every timer still pending), then the blocking
    /// pool (waiting up to `timeout` for running blocking tasks; `None`:
    /// as long as they take).
    pub(crate) fn shutdown(&self, timeout: Option<Duration>) {
        if context::worker_index(self.id()).is_some() && !crate::loom::planted("drop_in_task") {
            // (The deliberately broken variant, `--cfg lawn_rt_broken`,
            // test-only, cancels every task here, itself included.)
            // Dropped inside one of its own tasks (or a `block_on` future):
            // that task holds its own future while it runs, so cancelling
            // every task here would wait for itself. The driving thread
            // does it once it is out (see `Driving::drop`), as the
            // multi-thread runtime's last worker does.
            *lock(&self.pending_shutdown) = Some(timeout);
            return;
        }
        let Some(tasks) = self.owned.close() else {
            return;
        };
        for task in tasks {
            task.shutdown();
        }
        let queued = {
            let mut inject = lock(&self.inject);
            inject.closed = true;
            self.inject_len.store(0, Relaxed);
            std::mem::take(&mut inject.queue)
        };
        drop(queued);
        let core = lock(&self.seat).take();
        drop(core);
        let woke = super::shut_drivers(&self.io, &self.time);
        self.blocking.shutdown(timeout);
        if let Err(payload) = woke {
            panic::resume_unwind(payload);
        }
    }
}

impl Schedule for CurrentThread {
    fn schedule(&self, task: TaskRef) {
        let mut task = Some(task);
        context::with_local(self.id(), |l| l.queue.extend(task.take()));
        if let Some(task) = task {
            self.push_remote(task);
        }
    }

    fn release(&self, index: usize) {
        self.owned.release(index);
    }
}

/// The waker of a `block_on` future.
struct Signal {
    woken: AtomicBool,
    inner: Arc<CurrentThread>,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, SeqCst);
        self.inner.notify_parked();
        // A thread waiting for the seat polls its future when woken.
        if self.inner.seat_waiters.load(SeqCst) > 0 {
            let _seat = lock(&self.inner.seat);
            self.inner.seat_free.notify_all();
        }
    }
}

/// Holds the core while this thread drives; gives it back (and the local
/// queue with it) when dropped, also on a panic.
struct Driving<'a> {
    inner: &'a CurrentThread,
    core: Option<Core>,
}

impl<'a> Driving<'a> {
    fn start(inner: &'a CurrentThread, mut core: Core) -> Driving<'a> {
        context::start_driving(inner.id(), 0, std::mem::take(&mut core.queue));
        Driving {
            inner,
            core: Some(core),
        }
    }

    fn core(&mut self) -> &mut Core {
        self.core.as_mut().expect("the core is held while driving")
    }
}

impl Drop for Driving<'_> {
    fn drop(&mut self) {
        let Some(mut core) = self.core.take() else {
            return;
        };
        self.inner.stats.end_busy(core.busy_since);
        let local = context::stop_driving();
        let mut deferred = Vec::new();
        if let Some(local) = local {
            core.queue = local.queue;
            deferred = local.deferred;
        }
        let shut = {
            let mut seat = lock(&self.inner.seat);
            // Shut down while this thread drove: the shutdown found the
            // seat empty, so the core (and the tasks queued in it, which
            // hold the runtime) is dropped here, not left in the seat for
            // nobody. The shutdown closes the inject queue before it takes
            // the seat, so one of the two always drops it.
            // (The deliberately broken variant, `--cfg lawn_rt_broken`,
            // test-only, always puts the core back: model 17b's runtime
            // is then kept alive by its own queued task.)
            let closed =
                lock(&self.inner.inject).closed && !crate::loom::planted("seat_after_shutdown");
            let shut = if closed {
                Some(core)
            } else {
                *seat = Some(core);
                None
            };
            self.inner.seat_free.notify_all();
            shut
        };
        drop(shut);
        // Yielded tasks must not be lost: wake them (they go to the inject
        // queue now).
        for waker in deferred {
            survive(|| waker.wake());
        }
        let pending = lock(&self.inner.pending_shutdown).take();
        if let Some(timeout) = pending {
            if std::thread::panicking() {
                // A second panic out of a drop would abort the process.
                survive(|| self.inner.shutdown(timeout));
            } else {
                self.inner.shutdown(timeout);
            }
        }
    }
}

/// The scheduler of a blocking task: it is never woken (it completes on
/// its only poll); its completion counts it out of `blocking_inflight`,
/// after its handle has been told (so a paused clock cannot auto-advance
/// between the two), and lets a paused runtime reconsider auto-advancing.
pub(crate) struct BlockingSchedule(Arc<CurrentThread>);

impl Schedule for BlockingSchedule {
    fn schedule(&self, task: TaskRef) {
        drop(task);
    }

    fn release(&self, _owned: usize) {
        self.0.blocking_inflight.fetch_sub(1, SeqCst);
        self.0.notify_parked();
    }
}
