//! Cooperative scheduling budget: a task polled by a `lawn_rt` runtime may
//! complete only so many leaf futures (timers, join handles) per poll before
//! they start answering `Pending` (and waking the task at once), so one busy
//! task hands the thread back to the scheduler, its timers and its other
//! tasks.
//!
//! Ground rules: the budget is a per-thread counter; only a runtime sets
//! one (around each task poll); everywhere else (futures' `block_on`, a
//! foreign runtime, [`unconstrained`](crate::task::unconstrained)) it is
//! unlimited, so leaf futures behave exactly as without this module.

use std::cell::Cell;
use std::task::{Context, Poll};

/// Leaf futures a task may complete per poll (tokio's figure).
pub(crate) const BUDGET: u8 = 128;

crate::loom::const_thread_local! {
    /// `None`: unconstrained.
    static LEFT: Cell<Option<u8>> = Cell::new(None);
}

/// Runs `f` with `budget` (`None`: unconstrained), restoring the previous
/// budget afterwards, also if `f` panics.
pub(crate) fn with_budget<R>(budget: Option<u8>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<u8>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = LEFT.try_with(|left| left.set(self.0));
        }
    }
    let previous = LEFT.try_with(|left| left.replace(budget)).ok().flatten();
    let _restore = Restore(previous);
    f()
}

/// Whether a leaf future may complete now. If the budget is spent, wakes
/// the task (so it is polled again after the others) and says `Pending`.
#[inline]
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<()> {
    let spent = LEFT.try_with(|left| left.get() == Some(0)).unwrap_or(false);
    if spent {
        cx.waker().wake_by_ref();
        Poll::Pending
    } else {
        Poll::Ready(())
    }
}

/// Records that a leaf future completed (one unit of budget used).
#[inline]
pub(crate) fn made_progress() {
    let _ = LEFT.try_with(|left| {
        if let Some(n) = left.get() {
            left.set(Some(n.saturating_sub(1)));
        }
    });
}

/// Whether the budget is not yet spent.
#[inline]
pub(crate) fn has_budget_left() -> bool {
    LEFT.try_with(|left| left.get() != Some(0)).unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

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
}
