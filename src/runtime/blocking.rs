//! The blocking pool behind `spawn_blocking`: up to `max_threads` threads,
//! started on demand, each leaving after `keep_alive` without work.
//!
//! Ground rules: `state` (one mutex) guards the queue and the counts. A
//! spawner wakes an idle thread only if more threads idle than were already
//! notified, else starts a thread if below the cap, else leaves the task
//! queued for the next free thread. Shutdown refuses new tasks but lets the
//! queued ones run, as tokio's pool does in practice (a thread started or
//! woken for a task runs the queue before it looks at the shutdown): a
//! `spawn_blocking(flush)` just before the runtime is dropped still
//! flushes. It waits (up to a timeout) for the queue and the running
//! tasks; threads that have exited are joined. Only a queue no thread is
//! left to run is cancelled.

use std::cell::Cell;
use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant as StdInstant};

use super::config::{ThreadHooks, ThreadSpec};
use super::task::TaskRef;
use super::Handle;
use crate::coop;
use crate::loom::{lock, thread, wait, wait_timeout, Condvar, Mutex};

crate::loom::const_thread_local! {
    /// The pool this thread belongs to (its `PoolShared`'s address), if any.
    static POOL_THREAD: Cell<usize> = Cell::new(0);
}

pub(crate) struct Pool {
    shared: Arc<PoolShared>,
}

struct PoolShared {
    state: Mutex<State>,
    /// Signalled when a task is queued (or at shutdown).
    work: Condvar,
    /// Signalled when a thread exits.
    exited: Condvar,
    max_threads: usize,
    keep_alive: Duration,
    /// How a thread is started (its name and stack size).
    threads: ThreadSpec,
    hooks: ThreadHooks,
}

#[derive(Default)]
struct State {
    queue: VecDeque<TaskRef>,
    threads: usize,
    idle: usize,
    notified: usize,
    shutdown: bool,
    handles: Vec<thread::JoinHandle<()>>,
}

impl Pool {
    pub(crate) fn new(
        max_threads: usize,
        keep_alive: Duration,
        threads: ThreadSpec,
        hooks: ThreadHooks,
    ) -> Pool {
        Pool {
            shared: Arc::new(PoolShared {
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                exited: Condvar::new(),
                max_threads,
                keep_alive,
                threads,
                hooks,
            }),
        }
    }

    /// How long an idle thread waits for work before it leaves.
    pub(crate) fn keep_alive(&self) -> Duration {
        self.shared.keep_alive
    }

    /// Queues `task` (already marked scheduled) to run on a pool thread
    /// with `runtime` entered there; `false` if the pool has shut down (the
    /// task is cancelled then).
    #[track_caller]
    pub(crate) fn spawn(&self, task: TaskRef, runtime: &Handle) -> bool {
        let mut state = lock(&self.shared.state);
        if state.shutdown {
            drop(state);
            task.shutdown();
            return false;
        }
        state.queue.push_back(task);
        if state.idle > state.notified {
            state.notified += 1;
            drop(state);
            self.shared.work.notify_one();
            return true;
        }
        if state.threads >= self.shared.max_threads {
            return true; // the next thread to finish takes it
        }
        state
            .handles
            .retain(|handle| !crate::loom::is_finished(handle));
        match self.start_thread(runtime.clone()) {
            Ok(handle) => {
                state.threads += 1;
                state.handles.push(handle);
            }
            Err(err) if state.threads == 0 => {
                let queued = std::mem::take(&mut state.queue);
                drop(state);
                // Cancelled, not just dropped: their handles hear of it, and
                // each counts itself out of the runtime's blocking tasks.
                for task in queued {
                    task.shutdown();
                }
                panic!("lawn_rt: cannot start a blocking-pool thread for `spawn_blocking`: {err}");
            }
            Err(_) => {} // a running thread will take it
        }
        true
    }

    fn start_thread(&self, runtime: Handle) -> io::Result<thread::JoinHandle<()>> {
        let shared = self.shared.clone();
        self.shared.threads.builder()?.spawn(move || {
            POOL_THREAD.with(|pool| pool.set(Arc::as_ptr(&shared) as usize));
            let _entered = runtime.enter();
            shared.hooks.started();
            shared.work_loop();
            // After the thread counted itself out: a shutdown joins the
            // threads (so waits for this) once none is counted.
            shared.hooks.stopping();
        })
    }

    /// Refuses new tasks and waits up to `timeout` (`None`: without limit)
    /// for the queued and running ones; joins the threads if they all
    /// exited. A queue with no thread left to run it is cancelled.
    pub(crate) fn shutdown(&self, timeout: Option<Duration>) {
        let orphans = {
            let mut state = lock(&self.shared.state);
            state.shutdown = true;
            if state.threads == 0 || crate::loom::planted("drain") {
                // The deliberately broken variant (`--cfg lawn_rt_broken`,
                // test-only) cancels the queue as before: tests/rt_shutdown.rs
                // shows a queued task then never runs.
                std::mem::take(&mut state.queue)
            } else {
                VecDeque::new()
            }
        };
        self.shared.work.notify_all();
        for task in orphans {
            task.shutdown();
        }
        // Shut down from one of its own threads (a blocking task that drops
        // its runtime): that thread cannot wait for itself to exit.
        let own = POOL_THREAD.with(Cell::get) == Arc::as_ptr(&self.shared) as usize;
        let others = usize::from(own);
        let deadline = timeout.and_then(|t| StdInstant::now().checked_add(t));
        let mut state = lock(&self.shared.state);
        while state.threads > others {
            state = match (timeout, deadline) {
                (None, _) | (Some(_), None) => wait(&self.shared.exited, state),
                (Some(_), Some(deadline)) => {
                    let left = deadline.saturating_duration_since(StdInstant::now());
                    if left.is_zero() {
                        break;
                    }
                    wait_timeout(&self.shared.exited, state, left)
                }
            };
        }
        let handles = std::mem::take(&mut state.handles);
        let all_exited = state.threads == others;
        drop(state);
        if all_exited {
            let me = thread::current().id();
            for handle in handles {
                if handle.thread().id() != me {
                    let _ = handle.join();
                }
            }
        }
    }
}

impl Handle {
    /// [`spawn_blocking`](Handle::spawn_blocking), and whether the pool
    /// took `func` (`false`: the runtime has shut down and the handle gives
    /// a cancelled error); for tokio's `spawn_mandatory_blocking` callers,
    /// which fail at once then.
    pub(crate) fn spawn_blocking_unless_shut_down<F, R>(
        &self,
        func: F,
    ) -> (bool, super::task::JoinHandle<R>)
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let schedule = self.inner.blocking_schedule();
        let (task, handle) = super::task::new_task(BlockingTask::new(func), schedule);
        let taken = self.inner.blocking().spawn(task, self);
        (taken, handle)
    }
}

impl PoolShared {
    fn work_loop(&self) {
        let mut state = lock(&self.state);
        loop {
            while let Some(task) = state.queue.pop_front() {
                drop(state);
                task.run();
                state = lock(&self.state);
            }
            if state.shutdown {
                break;
            }
            state.idle += 1;
            let before = StdInstant::now();
            state = wait_timeout(&self.work, state, self.keep_alive);
            state.idle -= 1;
            if state.notified > 0 {
                state.notified -= 1;
                continue;
            }
            if state.shutdown {
                // Run what is queued, then leave (the loop's top).
                continue;
            }
            if state.queue.is_empty() && before.elapsed() >= self.keep_alive {
                break;
            }
        }
        if crate::loom::planted("exit") {
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only): the exit is announced before it is counted, so
            // a shutdown that looks in between waits for a notify that
            // has already gone.
            drop(state);
            self.exited.notify_all();
            lock(&self.state).threads -= 1;
            return;
        }
        state.threads -= 1;
        drop(state);
        self.exited.notify_all();
    }
}

/// The future of a blocking task: runs the closure on its first poll.
pub(crate) struct BlockingTask<F> {
    func: Option<F>,
}

impl<F> BlockingTask<F> {
    pub(crate) fn new(func: F) -> BlockingTask<F> {
        BlockingTask { func: Some(func) }
    }
}

impl<F> Unpin for BlockingTask<F> {}

impl<F, R> Future for BlockingTask<F>
where
    F: FnOnce() -> R,
{
    type Output = R;

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<R> {
        let func = self
            .func
            .take()
            .expect("lawn_rt: a blocking task is polled once");
        // Blocking code has no budget to respect.
        Poll::Ready(coop::with_budget(None, func))
    }
}
