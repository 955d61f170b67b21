//! The thread-local timer context: which driver is entered on a thread
//! (or "time disabled"), the spare handles kept for it, and so where a
//! timer made on a thread binds: the entered driver, or else the thread's
//! foreign shard (`foreign/mod.rs`). It sits above both [`Handle`] (the façade
//! every timer talks to) and the foreign shards, so neither names the
//! other's thread-locals.
//!
//! Ground rules: the context is one thread-local slot (the entered driver,
//! or "time disabled"); each [`EnterGuard`] remembers what it replaced and
//! puts it back on drop, so entering nests like a stack and guards must
//! drop in reverse order of creation (they are `!Send` to keep them on
//! their thread).

use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;
use std::time::Instant as StdInstant;

use super::handle::{Handle, SPARE_MAX};
use super::shared::Role;
use crate::loom::Arc;

/// What is entered on a thread.
#[derive(Clone)]
enum Entered {
    Driver(Handle),
    /// A runtime built without its time driver: timers must not silently
    /// fall back to the global driver there.
    TimeDisabled,
}

/// A thread's timer context: what is entered, and spare handles to it.
struct Context {
    entered: RefCell<Option<Entered>>,
    /// Handles to the entered driver that timers dropped on this thread
    /// gave back (see [`Handle::give_back`]); the next timers made here
    /// take them instead of cloning. Emptied whenever `entered` changes,
    /// so they never hold a driver that is no longer entered.
    spare: RefCell<Vec<Handle>>,
}

crate::loom::const_thread_local! {
    static CONTEXT: Context = Context {
        entered: RefCell::new(None),
        spare: RefCell::new(Vec::new()),
    };
}

/// The panic message for a timer made inside a runtime without time.
pub(crate) const TIME_DISABLED: &str =
    "A Tokio 1.x context was found, but timers are disabled. Call `enable_time` on the \
    runtime builder to enable timers. (lawn_rt: timers need the time driver, and this \
    runtime was built without it; call `enable_time()` or `enable_all()` on its `Builder`.)";

/// Makes a [`Handle`] current on this thread until dropped; see
/// [`Handle::enter`].
///
/// # Examples
///
/// ```
/// let driver = lawn_rt::driver::Driver::new();
/// let guard: lawn_rt::driver::EnterGuard<'_> = driver.handle().enter();
/// drop(guard); // the previous context is back
/// ```
#[must_use = "the handle is current only until the guard is dropped"]
pub struct EnterGuard<'a> {
    // No `Drop` of its own, nor one that names `'a`: the handle stays
    // borrowed only until the guard's last use, as with tokio's guard
    // (`let _e = rt.enter(); rt.shutdown_timeout(d);` compiles).
    restore: Restore,
    _handle: PhantomData<&'a Handle>,
}

/// Puts back what was entered before, when dropped.
pub(crate) struct Restore {
    previous: Option<Entered>,
    _not_send: PhantomData<*const ()>,
}

impl Handle {
    /// The handle timers created on this thread bind to: the entered one, or
    /// else this thread's own *foreign shard*, a driver made for the thread
    /// on first use and fired, with every other thread's, by one timer
    /// thread named `lawn-rt-timer` (started when the first timer
    /// registers). A thread's shard outlives the thread for as long as
    /// timers are bound to it.
    ///
    /// # Examples
    ///
    /// ```
    /// let handle = lawn_rt::driver::Handle::current(); // no runtime: this thread's shard
    /// assert!(!handle.is_shutdown());
    /// ```
    ///
    /// # Panics
    ///
    /// Inside a `lawn_rt` runtime built without its time driver (see
    /// [`Builder::enable_time`](crate::runtime::Builder::enable_time)); and
    /// under `cfg(loom)`, where there are no foreign shards and a model must
    /// enter a handle first.
    #[track_caller]
    pub fn current() -> Handle {
        match CONTEXT.try_with(Context::current) {
            Ok(Some(Some(handle))) => handle,
            Ok(Some(None)) => panic!("{TIME_DISABLED}"),
            _ => super::foreign::handle(),
        }
    }

    /// The handle entered on this thread, if any (never a foreign shard).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::driver::{Driver, Handle};
    ///
    /// assert!(Handle::try_entered().is_none());
    /// let driver = Driver::new();
    /// let _g = driver.handle().enter();
    /// assert!(Handle::try_entered().is_some());
    /// ```
    pub fn try_entered() -> Option<Handle> {
        // `try_with`: timers used from a thread-local destructor see no
        // context (and so use a foreign shard) instead of aborting.
        match entered() {
            Some(Entered::Driver(handle)) => Some(handle),
            _ => None,
        }
    }

    /// Makes this handle current on this thread until the guard drops.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::driver::{Driver, Handle};
    ///
    /// let driver = Driver::new();
    /// {
    ///     let _entered = driver.handle().enter();
    ///     assert!(Handle::current().same_driver(driver.handle()));
    /// }
    /// assert!(!Handle::current().same_driver(driver.handle()));
    /// ```
    pub fn enter(&self) -> EnterGuard<'_> {
        enter(Entered::Driver(self.clone()))
    }

    /// Drops this handle, or keeps it for the next timer made on this
    /// thread if it is the driver entered here or this thread's foreign
    /// shard (sparing the count's decrement now and the increment then).
    #[inline]
    pub(crate) fn give_back(self) {
        if self.shared.role() == Role::Foreign {
            super::foreign::give_back(self);
            return;
        }
        // Dropped outside the context's borrows: a last reference drops a
        // driver, whose wakers may drop timers that give theirs back.
        let _not_kept = CONTEXT.try_with(move |context| context.keep(self));
    }

    /// Called before a registration and when a poll finds its timer
    /// pending: starts the foreign shards' driver thread unless it runs in
    /// this process (a fork's child has none until then).
    #[inline]
    pub(crate) fn ensure_served(&self) {
        if self.shared.role() == Role::Foreign {
            super::foreign::ensure_started();
        }
    }
}

/// The current time of the entered driver, or `None` if none is entered.
#[inline]
pub(crate) fn entered_now() -> Option<StdInstant> {
    CONTEXT
        .try_with(|context| match &*context.entered.borrow() {
            Some(Entered::Driver(handle)) => Some(handle.now()),
            _ => None,
        })
        .ok()
        .flatten()
}

/// The driver a timer bound to `current` and never yet filed should move
/// to on its first poll here, if any:
/// - the runtime driver entered on this thread when `current` is a foreign
///   shard (a timer made before its runtime was entered);
/// - this worker's shard when `current` is another shard of the same
///   multi-thread runtime (a task moved between workers);
/// - this thread's foreign shard when `current` is another thread's and no
///   driver is entered here (a task of a foreign executor that moved
///   between its threads): it files where it will most likely be dropped.
#[inline]
pub(crate) fn rebind_target(current: &Handle) -> Option<Handle> {
    let shared = &current.shared;
    let role = shared.role();
    if matches!(role, Role::Bare | Role::CurrentThread) {
        return None;
    }
    let entered = CONTEXT
        .try_with(|context| context.entered.borrow().clone())
        .ok()?;
    match entered {
        Some(Entered::Driver(entered))
            if !Arc::ptr_eq(&entered.shared, shared)
                && match (role, entered.shared.role()) {
                    (Role::Foreign, here) => here.is_runtime(),
                    (Role::WorkerShard(group), Role::WorkerShard(here)) => group == here,
                    _ => false,
                } =>
        {
            Some(entered)
        }
        None if role == Role::Foreign => super::foreign::this_thread_unless(shared),
        _ => None,
    }
}

/// Marks this thread as inside a runtime without time until the guard
/// drops: [`Handle::current`] panics there instead of using a foreign shard.
pub(crate) fn enter_time_disabled() -> EnterGuard<'static> {
    enter(Entered::TimeDisabled)
}

fn enter<'a>(entered: Entered) -> EnterGuard<'a> {
    let (previous, spare) = CONTEXT
        .try_with(|context| {
            let previous = context.entered.replace(Some(entered));
            (previous, context.spare.take())
        })
        .unwrap_or_default();
    drop(spare);
    EnterGuard {
        restore: Restore {
            previous,
            _not_send: PhantomData,
        },
        _handle: PhantomData,
    }
}

impl EnterGuard<'_> {
    /// What puts back the previous context, without the borrow.
    pub(crate) fn into_restore(self) -> Restore {
        self.restore
    }
}

/// What is entered on this thread (`None` also in a thread-local
/// destructor: timers used there get a foreign shard instead of aborting).
fn entered() -> Option<Entered> {
    CONTEXT
        .try_with(|context| context.entered.borrow().clone())
        .ok()
        .flatten()
}

impl Context {
    /// `Some(Some(handle))`: the entered driver's (a spare if there is
    /// one); `Some(None)`: a runtime without time is entered; `None`:
    /// nothing is entered.
    #[inline]
    fn current(&self) -> Option<Option<Handle>> {
        match &*self.entered.borrow() {
            Some(Entered::Driver(handle)) => {
                let spare = self.spare.try_borrow_mut().ok().and_then(|mut s| s.pop());
                Some(Some(spare.unwrap_or_else(|| handle.clone())))
            }
            Some(Entered::TimeDisabled) => Some(None),
            None => None,
        }
    }

    /// Keeps `handle` as a spare if it is the entered driver's and there is
    /// room; else hands it back, to be dropped outside the borrows.
    #[inline]
    fn keep(&self, handle: Handle) -> Option<Handle> {
        if let Ok(entered) = self.entered.try_borrow() {
            if let Some(Entered::Driver(entered)) = &*entered {
                if Arc::ptr_eq(&entered.shared, &handle.shared) {
                    if let Ok(mut spare) = self.spare.try_borrow_mut() {
                        if spare.len() < SPARE_MAX {
                            spare.push(handle);
                            return None;
                        }
                    }
                }
            }
        }
        Some(handle)
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.previous.take();
        // Ignore a torn-down thread-local: the thread is exiting anyway.
        // What was entered and the spares to it are dropped outside the
        // borrows (a last reference drops a driver, whose wakers may drop
        // timers).
        let _left = CONTEXT.try_with(|context| {
            let left = context.entered.replace(previous);
            (left, context.spare.take())
        });
    }
}

impl fmt::Debug for EnterGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterGuard").finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context as TaskContext, Waker};
    use std::time::Duration;

    use super::*;
    use crate::driver::Driver;
    use crate::time::sleep;

    /// Spare handles this thread keeps for its entered driver.
    fn spare_count() -> usize {
        CONTEXT.with(|context| context.spare.borrow().len())
    }

    fn count(handle: &Handle) -> usize {
        Arc::strong_count(&handle.shared)
    }

    /// Makes a sleep, polls it once (it registers) and drops it.
    fn register_and_drop() {
        let mut nap = pin!(sleep(Duration::from_secs(60)));
        let mut cx = TaskContext::from_waker(Waker::noop());
        assert!(nap.as_mut().poll(&mut cx).is_pending());
    }

    #[test]
    fn a_timer_dropped_where_its_driver_is_entered_leaves_its_handle_to_the_next() {
        let driver = Driver::new();
        let before = count(driver.handle());
        {
            let _entered = driver.handle().enter();
            register_and_drop();
            assert_eq!(spare_count(), 1, "the dropped timer's handle is kept");
            let nap = sleep(Duration::from_secs(60));
            assert_eq!(spare_count(), 0, "the next timer took it");
            drop(nap);
            let naps: Vec<_> = (0..2 * SPARE_MAX)
                .map(|_| sleep(Duration::from_secs(60)))
                .collect();
            drop(naps);
            assert_eq!(spare_count(), SPARE_MAX, "up to the cap");
        }
        // Leaving the driver lets go of every spare: none keeps it alive.
        assert_eq!(spare_count(), 0);
        assert_eq!(count(driver.handle()), before);
    }

    #[test]
    fn a_handle_to_a_driver_not_entered_is_not_kept() {
        let (a, b) = (Driver::new(), Driver::new());
        let made_in_a = {
            let _entered = a.handle().enter();
            sleep(Duration::from_secs(60))
        };
        let _entered = b.handle().enter();
        register_and_drop();
        let spares = spare_count();
        let before = count(a.handle());
        drop(made_in_a);
        assert_eq!(spare_count(), spares);
        assert_eq!(count(a.handle()), before - 1, "dropped, not kept");
    }

    #[test]
    fn entering_another_driver_lets_go_of_the_spares_of_the_first() {
        let (a, b) = (Driver::new(), Driver::new());
        let before = count(a.handle());
        let _in_a = a.handle().enter();
        register_and_drop();
        assert_eq!(spare_count(), 1);
        {
            let _in_b = b.handle().enter();
            assert_eq!(spare_count(), 0);
            assert_eq!(count(a.handle()), before + 1, "only the entered one");
            // Timers made in `b` bind to `b`, spare or not.
            register_and_drop();
            assert!(Handle::current().same_driver(b.handle()));
        }
        assert_eq!(spare_count(), 0, "b's spares went with it");
        assert!(Handle::current().same_driver(a.handle()));
    }
}
