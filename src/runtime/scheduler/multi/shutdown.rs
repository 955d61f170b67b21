//! Shutting the runtime down: stopping and joining the workers and the
//! threads hand-offs left behind, and the last worker's clean-up (see
//! "Shutdown" in [the module docs](super)).

use std::cell::Cell;
use std::panic;
use std::time::{Duration, Instant as StdInstant};

use super::{MultiThread, HANDED_OVER};
use crate::loom::atomic::Ordering::SeqCst;
use crate::loom::lock;
use crate::loom::thread;
use crate::runtime::context;
use crate::runtime::scheduler::shut_drivers;

impl MultiThread {
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
    pub(super) fn worker_done(&self) {
        if self.running.fetch_sub(1, SeqCst) == 1 {
            self.finish();
        }
    }

    pub(super) fn finish(&self) {
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
        let woke = shut_drivers(
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
