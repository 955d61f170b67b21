//! `block_in_place` hands a worker over to another thread (see "`block_in_place`
//! hands a worker over" in [the module docs](super)); the thread left
//! behind waits as a spare for a later hand-off.

use std::sync::Arc;
use std::time::Instant as StdInstant;

use super::{Core, MultiThread, Spare, Threads, Unstarted, CORE, HANDED_OVER, WORKER_OF};
use crate::loom::thread;
use crate::loom::{lock, wait, wait_timeout, Condvar, Mutex};
use crate::runtime::context;
use crate::runtime::scheduler::survive;

impl MultiThread {
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
                survive(|| waker.wake());
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
    pub(super) fn wait_as_spare(&self) -> Option<(Box<Core>, context::Local)> {
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
