//! Cooperative scheduling budget: a task polled by a `lawn_rt` runtime may
//! complete only so many leaf futures (timers, join handles) per poll before
//! they start answering `Pending` (and waking the task at once), so one busy
//! task hands the thread back to the scheduler, its timers and its other
//! tasks.
//!
//! The same per-task-poll scope lets a timer cancelled during the poll
//! leave its waker for the next timer the task files in that poll (see
//! [`keep_waker`]): the request loop's "timeout completes, next request's
//! timeout starts" then neither drops nor clones the task's waker, two
//! atomic read-modify-writes on its reference count
//! (docs/decisions/handle-and-waker-reuse.md).
//!
//! Ground rules: the budget is a per-thread counter; only a runtime sets
//! one (around each task poll, [`poll_task`]); everywhere else (futures'
//! `block_on`, a foreign runtime,
//! [`unconstrained`](crate::task::unconstrained)) it is unlimited, so
//! leaf futures behave exactly as without this module. Only
//! the polled task's own waker is kept, only until that poll ends (never
//! called, only dropped then), and nothing outside a runtime's task poll.

use std::cell::Cell;
use std::task::{Context, Poll, RawWakerVTable, Waker};

/// Leaf futures a task may complete per poll (tokio's figure).
pub(crate) const BUDGET: u8 = 128;

/// This thread's task poll, if a runtime is polling one.
struct TaskPoll {
    /// Leaf futures left to complete; `None`: unconstrained.
    left: Cell<Option<u8>>,
    /// The waker of the task a runtime is polling here, as an identity
    /// (its `data` and `vtable` pointers, compared, never followed).
    task: Cell<Option<WakerId>>,
    /// A waker of that task a cancelled timer held (see [`keep_waker`]).
    kept: Cell<Option<Waker>>,
}

/// Which task a waker wakes, as [`Waker::will_wake`] tells it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct WakerId(*const (), *const RawWakerVTable);

impl WakerId {
    #[inline]
    fn of(waker: &Waker) -> WakerId {
        WakerId(waker.data(), waker.vtable())
    }
}

crate::loom::const_thread_local! {
    static TASK_POLL: TaskPoll = TaskPoll {
        left: Cell::new(None),
        task: Cell::new(None),
        kept: Cell::new(None),
    };
}

/// Runs `f` with `budget` (`None`: unconstrained), restoring the previous
/// budget afterwards, also if `f` panics.
pub(crate) fn with_budget<R>(budget: Option<u8>, f: impl FnOnce() -> R) -> R {
    scope(budget, None, f)
}

/// A runtime's poll of the task `waker` wakes: `f` under a fresh budget,
/// during which a timer of that task cancelled leaves its waker for the
/// task's next timer (see [`keep_waker`]); whatever is kept is dropped
/// when `f` returns or panics.
pub(crate) fn poll_task<R>(waker: &Waker, f: impl FnOnce() -> R) -> R {
    scope(Some(BUDGET), Some(WakerId::of(waker)), f)
}

/// [`with_budget`], and with `task`, [`poll_task`].
#[inline]
fn scope<R>(budget: Option<u8>, task: Option<WakerId>, f: impl FnOnce() -> R) -> R {
    struct Restore {
        left: Option<u8>,
        task: Option<WakerId>,
        task_poll: bool,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            let kept = TASK_POLL
                .try_with(|poll| {
                    poll.left.set(self.left);
                    if self.task_poll {
                        poll.task.set(self.task);
                        poll.kept.take()
                    } else {
                        None
                    }
                })
                .ok()
                .flatten();
            // Outside the thread-local: a waker's drop may run anything.
            drop(kept);
        }
    }
    let task_poll = task.is_some();
    let (left, task) = TASK_POLL
        .try_with(|poll| {
            let outer = match task {
                Some(task) => poll.task.replace(Some(task)),
                None => poll.task.get(),
            };
            (poll.left.replace(budget), outer)
        })
        .unwrap_or((None, None));
    let _restore = Restore {
        left,
        task,
        task_poll,
    };
    f()
}

/// A waker for a timer to hold that wakes the same task as `waker`: the
/// one a cancelled timer of the task being polled left (see
/// [`keep_waker`]) if `waker` is that task's, else a clone.
#[inline]
pub(crate) fn clone_waker(waker: &Waker) -> Waker {
    let kept = TASK_POLL
        .try_with(|poll| match poll.kept.take() {
            Some(kept) if kept.will_wake(waker) => Some(kept),
            other => {
                poll.kept.set(other);
                None
            }
        })
        .ok()
        .flatten();
    kept.unwrap_or_else(|| waker.clone())
}

/// Lets go of the waker a cancelled timer held. A waker of the task a
/// runtime is polling here is kept for the task's next timer (see
/// [`clone_waker`]) until the poll ends: that task is alive meanwhile
/// anyway, so keeping it shows nowhere. Any other is dropped now, as
/// tokio's cancel drops it.
#[inline]
pub(crate) fn keep_waker(waker: Waker) {
    let dropped = TASK_POLL.try_with(|poll| match poll.task.get() {
        Some(task) if task == WakerId::of(&waker) => poll.kept.replace(Some(waker)),
        _ => Some(waker),
    });
    // Outside the thread-local (see `scope`).
    drop(dropped);
}

/// Whether a leaf future may complete now. If the budget is spent, says
/// `Pending` and has the task woken after the runtime's next park (its
/// I/O and timer poll), as tokio defers it: a task that spends its budget
/// again and again still lets the I/O events in between. Woken at once
/// where no runtime drives this thread.
#[inline]
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<()> {
    let spent = TASK_POLL
        .try_with(|poll| poll.left.get() == Some(0))
        .unwrap_or(false);
    if spent {
        if !crate::runtime::context::defer(cx.waker()) {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    } else {
        Poll::Ready(())
    }
}

/// Records that a leaf future completed (one unit of budget used).
#[inline]
pub(crate) fn made_progress() {
    let _ = TASK_POLL.try_with(|poll| {
        if let Some(n) = poll.left.get() {
            poll.left.set(Some(n.saturating_sub(1)));
        }
    });
}

/// Whether the budget is not yet spent.
#[inline]
pub(crate) fn has_budget_left() -> bool {
    TASK_POLL
        .try_with(|poll| poll.left.get() != Some(0))
        .unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::task::Wake;

    /// A task's waker; its `Arc`'s count says how many wakers of it live.
    struct Task;

    impl Wake for Task {
        fn wake(self: Arc<Self>) {}
    }

    fn new_task() -> (Arc<Task>, Waker) {
        let task = Arc::new(Task);
        let waker = Waker::from(task.clone());
        (task, waker)
    }

    #[test]
    fn budget_runs_out_and_is_restored() {
        let mut cx = Context::from_waker(Waker::noop());
        assert!(poll_proceed(&mut cx).is_ready());
        with_budget(Some(2), || {
            assert!(poll_proceed(&mut cx).is_ready());
            made_progress();
            made_progress();
            assert!(!has_budget_left());
            assert!(poll_proceed(&mut cx).is_pending());
            with_budget(None, || assert!(poll_proceed(&mut cx).is_ready()));
            assert!(poll_proceed(&mut cx).is_pending());
        });
        assert!(has_budget_left());
    }

    #[test]
    fn a_task_poll_keeps_a_cancelled_timers_waker_for_its_next_timer() {
        let (task, waker) = new_task();
        poll_task(&waker, || {
            // A timer files a clone, and its cancel leaves it here.
            let filed = clone_waker(&waker);
            assert_eq!(Arc::strong_count(&task), 3);
            keep_waker(filed);
            assert_eq!(Arc::strong_count(&task), 3, "kept, not dropped");
            // The task's next timer takes it: no clone.
            let next = clone_waker(&waker);
            assert!(next.will_wake(&waker));
            assert_eq!(Arc::strong_count(&task), 3);
            keep_waker(next);
            // An unconstrained stretch inside the poll keeps it too.
            with_budget(None, || {
                let again = clone_waker(&waker);
                assert_eq!(Arc::strong_count(&task), 3);
                keep_waker(again);
            });
            assert_eq!(Arc::strong_count(&task), 3);
        });
        // The poll's end drops what it kept.
        assert_eq!(Arc::strong_count(&task), 2);
    }

    #[test]
    fn only_the_polled_tasks_waker_is_kept_and_only_in_its_poll() {
        let (task, waker) = new_task();
        let (other, other_waker) = new_task();
        poll_task(&waker, || {
            // Another waker (a custom one, a sub-future's) is dropped at
            // once, as tokio's cancel drops it.
            keep_waker(other_waker.clone());
            assert_eq!(Arc::strong_count(&other), 2);
            // A timer of another waker clones its own; the kept one stays.
            keep_waker(waker.clone());
            let filed = clone_waker(&other_waker);
            assert!(filed.will_wake(&other_waker));
            assert_eq!(Arc::strong_count(&other), 3);
            assert_eq!(Arc::strong_count(&task), 3);
            drop(filed);
            // A task polled inside this one (a `LocalSet`'s) keeps its
            // own, and the outer task is the polled one again after it.
            poll_task(&other_waker, || {
                keep_waker(waker.clone());
                keep_waker(other_waker.clone());
                assert_eq!(Arc::strong_count(&other), 3);
            });
            assert_eq!(Arc::strong_count(&other), 2);
            keep_waker(other_waker.clone());
            keep_waker(waker.clone());
            assert_eq!(Arc::strong_count(&other), 2);
            assert_eq!(Arc::strong_count(&task), 3);
        });
        assert_eq!(Arc::strong_count(&task), 2);
        // Outside a task poll (a foreign executor, `block_on`), even in a
        // budgeted stretch, a cancel drops at once.
        keep_waker(waker.clone());
        with_budget(Some(2), || keep_waker(waker.clone()));
        assert_eq!(Arc::strong_count(&task), 2);
        let filed = clone_waker(&waker);
        assert_eq!(Arc::strong_count(&task), 3);
        drop(filed);
    }

    #[test]
    fn a_panicking_task_poll_drops_what_it_kept() {
        let (task, waker) = new_task();
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            poll_task(&waker, || {
                keep_waker(waker.clone());
                panic!("the task panics");
            })
        }));
        assert!(polled.is_err());
        assert_eq!(Arc::strong_count(&task), 2);
        // And the thread is out of the task poll again.
        keep_waker(waker.clone());
        assert_eq!(Arc::strong_count(&task), 2);
        assert!(has_budget_left());
    }
}
