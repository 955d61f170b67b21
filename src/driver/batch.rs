//! Expiry in batches, and cancellation that races it.
//!
//! [`Shared::fire`] (behind `process_at`, `process_unless_busy` and
//! `help_fire`) takes up to [`BATCH`] due wakers out of the Lawn
//! under the lock, records their keys in [`BatchState::keys`] and marks the
//! batch as *firing* (naming its thread), then releases the lock and calls
//! the wakers one by one. A timer dropped meanwhile is no longer in the
//! Lawn, so [`Shared::deregister`] looks for its key in the batch:
//!
//! - not in the batch: its waker was called in an earlier batch (or the
//!   timer completed without one); nothing to do;
//! - in the batch at position `i`, not yet reached: it sets bit `i` of
//!   `skip`, and the firing thread drops that waker instead of calling it;
//! - at position `i` being called right now on another thread: it waits
//!   until that call returns (on this thread, inside that very waker, it
//!   cannot and need not wait). Only then: a canceller never waits for
//!   other timers' wakers.
//!
//! So once a `Sleep`'s drop returns, its waker is not called. The handshake
//! on `calling` and `skip` is a store-then-load on each side, both
//! `SeqCst`: the firing thread stores `calling = i` then loads `skip`; the
//! canceller (holding the lock) sets its bit then loads `calling`. Either
//! the firing thread sees the bit, or the canceller sees `calling >= i`.
//!
//! A canceller that must wait counts itself in `waiting` (under the lock)
//! before it reads `calling`; the firing thread reads `waiting` after each
//! `calling` store and, if anyone waits, signals `done` under the lock. The
//! same store-then-load pairing makes that wake-up impossible to miss.
//!
//! Firing on the shard's own thread: a foreign shard (see `foreign/mod.rs`)
//! is fired by the `lawn-rt-timer` thread, whose wakers reach a task's
//! executor from outside (in tokio, its shared injection queue, behind
//! every task spawned before). So a registration on a foreign shard
//! (nearly always made by the thread that owns it) that finds a timer may
//! be due (one comparison with `Levels::may_be_due`, under the lock it
//! holds anyway) fires one batch itself ([`Shared::help_fire`]): its
//! wakers then run on a thread of the executor, as that executor's own
//! timer would run them. It never waits for a batch in flight, nor does
//! the timer thread for one of its (`Firing`): to the timer thread's plan
//! a shard whose batch is in flight is busy, looked at again shortly.
//! Batches still never overlap, which the cancel handshake above relies
//! on. (As with a multi-thread runtime's shards, two threads firing two
//! shards can each wait for the other's waker call only if a waker drops
//! a timer whose waker the other thread is calling: executors' wakers
//! do not.)
//!
//! Ground rules: `BatchState` is guarded by the driver lock; `calling` is
//! written only by the firing thread (and under the lock at batch start and
//! end), `skip` and `waiting` only under the lock (`skip` reset at batch
//! start, bits set by cancellers).

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::task::Waker;

use super::clock::Tick;
use super::lock::{DriverCondvar, DriverGuard};
use super::shared::{Locked, Shared};
use crate::lawn::TimerKey;
use crate::loom::atomic::{AtomicU32, AtomicUsize, Ordering::SeqCst};
use crate::loom::thread;

/// Wakers taken out of the Lawn per batch: bounds the lock hold and the
/// `skip` mask (one bit each).
pub(super) const BATCH: usize = 32;

/// `calling` when no batch is being woken.
const IDLE: usize = usize::MAX;

/// How [`Shared::fire`] treats a batch that another thread is waking.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Firing {
    /// Wait for it to end, then fire everything due.
    Wait,
    /// Return; otherwise fire everything due (the foreign timer thread).
    UnlessBusy,
    /// Return; otherwise fire one batch (a foreign shard's own thread).
    OneBatch,
}

/// The panics of wakers called (or dropped) one after another, so that
/// one that panics does not keep the rest from being called.
#[derive(Default)]
pub(crate) struct Panics {
    first: Option<Box<dyn Any + Send>>,
    /// Dropped only once every waker has been called: a payload's drop
    /// may panic too.
    later: Vec<Box<dyn Any + Send>>,
}

impl Panics {
    /// Runs `call`, keeping its panic if it panics.
    pub(crate) fn catch(&mut self, call: impl FnOnce()) {
        if let Err(panic) = panic::catch_unwind(AssertUnwindSafe(call)) {
            match self.first {
                None => self.first = Some(panic),
                Some(_) => self.later.push(panic),
            }
        }
    }

    /// Resumes the first panic caught, if any.
    pub(crate) fn resume(self) {
        drop(self.later);
        if let Some(panic) = self.first {
            panic::resume_unwind(panic);
        }
    }
}

/// The lock-free part of the batch protocol.
pub(crate) struct Batch {
    /// Position in the batch of the waker being called, or [`IDLE`].
    calling: AtomicUsize,
    /// Positions whose timers were cancelled after being handed out.
    skip: AtomicU32,
    /// Cancellers waiting for a waker call to return.
    waiting: AtomicUsize,
    /// Signalled when a waker call returns or a batch ends, if someone
    /// waits.
    done: DriverCondvar,
}

/// The part of the batch protocol under the driver lock.
#[derive(Default)]
pub(crate) struct BatchState {
    firing: Option<thread::ThreadId>,
    /// Batches begun so far.
    started: u64,
    /// Threads waiting for the batch to end.
    waiters: usize,
    /// Keys of the batch's timers, by position.
    keys: Vec<TimerKey>,
}

impl BatchState {
    /// Whether a batch is being woken.
    pub(super) fn in_flight(&self) -> bool {
        self.firing.is_some()
    }
}

impl Batch {
    /// Whether no batch is in flight and nobody waits for one (for the loom
    /// models' final checks).
    #[cfg(loom)]
    pub(super) fn is_idle(&self, state: &BatchState) -> bool {
        state.firing.is_none()
            && state.waiters == 0
            && state.keys.is_empty()
            && self.calling.load(SeqCst) == IDLE
            && self.waiting.load(SeqCst) == 0
    }

    pub(super) fn new() -> Batch {
        Batch {
            calling: AtomicUsize::new(IDLE),
            skip: AtomicU32::new(0),
            waiting: AtomicUsize::new(0),
            done: DriverCondvar::new(),
        }
    }
}

impl Shared {
    /// Wakes every timer due at or before `now`; returns how many wakers
    /// were called. Called from inside one of this driver's wakers, it
    /// returns 0: the batch loop calling that waker goes on firing.
    pub(crate) fn process_at(&self, now: Tick) -> usize {
        self.fire(now, Firing::Wait)
    }

    /// [`process_at`](Shared::process_at) for the foreign shards' timer
    /// thread, which must not wait behind a shard's own thread: if another
    /// thread is waking a batch, it returns and looks again later (see
    /// [`begin_park_unless_busy`](Shared::begin_park_unless_busy)).
    pub(crate) fn process_unless_busy(&self, now: Tick) -> usize {
        self.fire(now, Firing::UnlessBusy)
    }

    /// Fires one batch of the timers due at `now`, unless a batch is in
    /// flight: for a foreign shard's own thread, which saw while
    /// registering that a timer may be due (see the module's notes). A
    /// waker that panics is reported by the panic hook and does not reach
    /// the registering task (the timer thread does the same).
    #[cold]
    #[inline(never)]
    pub(super) fn help_fire(&self, now: Tick) {
        let _ = panic::catch_unwind(AssertUnwindSafe(|| self.fire(now, Firing::OneBatch)));
    }

    fn fire(&self, now: Tick, how: Firing) -> usize {
        let me = thread::current().id();
        let mut woken = 0;
        let mut wakers: Vec<Waker> = Vec::new();
        let mut inner = self.inner.lock();
        if inner.batch.firing == Some(me) {
            return 0;
        }
        loop {
            // Another thread is waking a batch: batches never overlap.
            if how != Firing::Wait && inner.batch.firing.is_some() {
                // The deliberately broken variant (`--cfg lawn_rt_broken`,
                // test-only) starts a batch over the one in flight.
                // loom-tests/tests/broken.rs proves model 23 catches it.
                if !crate::loom::planted("helper") {
                    break;
                }
            } else {
                while inner.batch.firing.is_some() {
                    inner = self.wait_for_batch_end(inner);
                }
            }
            if inner.shutdown {
                break;
            }
            let Locked {
                levels,
                batch,
                counters,
                ..
            } = &mut *inner;
            batch.keys.clear();
            while wakers.len() < BATCH {
                let Some((key, waker, late)) = levels.pop_expired_late(now.0) else {
                    break;
                };
                counters.fired(self.ticks_late(late));
                batch.keys.push(key);
                wakers.push(waker);
            }
            if wakers.is_empty() {
                break;
            }
            batch.firing = Some(me);
            batch.started += 1;
            self.batch.skip.store(0, SeqCst);
            self.batch.calling.store(0, SeqCst);
            drop(inner);
            woken += self.wake_batch(&mut wakers);
            if how == Firing::OneBatch {
                return woken;
            }
            inner = self.inner.lock();
        }
        drop(inner);
        woken
    }

    /// Calls the batch's wakers but those cancelled meanwhile (whose wakers
    /// it drops instead), then ends the batch. A waker that panics, when
    /// called or when dropped, does not stop the others: the first panic is
    /// resumed once the batch has ended.
    fn wake_batch(&self, wakers: &mut Vec<Waker>) -> usize {
        let end = EndBatch(self);
        let mut woken = 0;
        let mut panics = Panics::default();
        for (position, waker) in wakers.drain(..).enumerate() {
            self.batch.calling.store(position, SeqCst);
            if self.batch.skip.load(SeqCst) & (1 << position) != 0 {
                // A waker's drop runs the executor's code too (the last
                // reference to a task drops its future).
                panics.catch(|| drop(waker));
            } else {
                woken += 1;
                panics.catch(|| waker.wake());
            }
            self.batch.calling.store(position + 1, SeqCst);
            if self.batch.waiting.load(SeqCst) > 0 {
                // Someone waits for the call that just returned.
                let _inner = self.inner.lock();
                self.batch.done.notify_all();
            }
        }
        drop(end);
        panics.resume();
        woken
    }

    fn wait_for_batch_end<'a>(
        &self,
        mut inner: DriverGuard<'a, Locked>,
    ) -> DriverGuard<'a, Locked> {
        let started = inner.batch.started;
        inner.batch.waiters += 1;
        while inner.batch.firing.is_some() && inner.batch.started == started {
            inner = self.batch.done.wait(inner);
        }
        inner.batch.waiters -= 1;
        inner
    }

    /// Cancels the timer under `key`. When this returns, its waker has
    /// been handed back (returned, if it was still filed: the caller drops
    /// it, or keeps it for its task's next timer), or has been called and
    /// will not be called again.
    #[cfg_attr(not(loom), inline)]
    pub(crate) fn deregister(&self, key: TimerKey) -> Option<Waker> {
        let mut inner = self.inner.lock();
        let removed = inner.levels.remove(key);
        if removed.is_none() {
            inner = self.forget_handed_out(inner, key);
        } else {
            inner.counters.cancelled();
        }
        drop(inner);
        removed
    }

    /// For a timer handed out for waking under `key` (its `Sleep` saw it
    /// fire, or files itself again and forgets the old key): makes sure its
    /// waker is not called after this returns.
    pub(crate) fn forget(&self, key: TimerKey) {
        // Cheap test first: the handout was seen under the lock, after the
        // batch that made it began, so `IDLE` here means that batch ended.
        if self.batch.calling.load(SeqCst) == IDLE {
            return;
        }
        let inner = self.inner.lock();
        drop(self.forget_handed_out(inner, key));
    }

    fn forget_handed_out<'a>(
        &self,
        mut inner: DriverGuard<'a, Locked>,
        key: TimerKey,
    ) -> DriverGuard<'a, Locked> {
        let Some(firing) = inner.batch.firing else {
            return inner;
        };
        let Some(position) = inner.batch.keys.iter().position(|&k| k == key) else {
            return inner;
        };
        self.batch.skip.fetch_or(1 << position, SeqCst);
        if firing == thread::current().id() {
            return inner; // we are inside a waker of this batch
        }
        if crate::loom::planted("canceller") {
            // The deliberately broken variant (`--cfg lawn_rt_broken`,
            // test-only): return without waiting for a call in progress.
            // loom-tests/tests/broken.rs proves the models catch it.
            return inner;
        }
        // Wait while that very waker is being called.
        let started = inner.batch.started;
        self.batch.waiting.fetch_add(1, SeqCst);
        while self.batch.calling.load(SeqCst) == position
            && inner.batch.firing.is_some()
            && inner.batch.started == started
        {
            inner = self.batch.done.wait(inner);
        }
        self.batch.waiting.fetch_sub(1, SeqCst);
        inner
    }
}

/// Ends a batch, also when unwinding: clears `firing` and `keys`, and wakes
/// whoever waits for the batch to end.
struct EndBatch<'a>(&'a Shared);

impl Drop for EndBatch<'_> {
    fn drop(&mut self) {
        let shared = self.0;
        let mut inner = shared.inner.lock();
        inner.batch.firing = None;
        inner.batch.keys.clear();
        shared.batch.calling.store(IDLE, SeqCst);
        if inner.batch.waiters > 0 || shared.batch.waiting.load(SeqCst) > 0 {
            shared.batch.done.notify_all();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
    use std::sync::{Arc, Mutex};
    use std::task::{Wake, Waker};
    use std::thread::{self, ThreadId};
    use std::time::Duration;

    use super::BATCH;
    use crate::driver::clock::Tick;
    use crate::driver::shared::{Options, Registered, Reset, Role, Shared};
    use crate::driver::TimerSlack;
    use crate::lawn::TimerKey;

    /// A driver of `role` with 1 ms ticks and no slack, fired by nobody
    /// but the test: registrations say which tick the clock has reached.
    fn driver(role: Role) -> Arc<Shared> {
        Arc::new(Shared::new(Options {
            resolution: Duration::from_millis(1),
            role,
            unpark: Some(Box::new(|| {})),
            slack: TimerSlack::NONE,
        }))
    }

    /// A waker that counts its wake-ups and notes the thread of the last,
    /// then runs `then`.
    struct Counting {
        woken: AtomicUsize,
        on: Mutex<Option<ThreadId>>,
        then: Box<dyn Fn() + Send + Sync>,
    }

    impl Wake for Counting {
        fn wake(self: Arc<Self>) {
            self.woken.fetch_add(1, SeqCst);
            *self.on.lock().unwrap() = Some(thread::current().id());
            (self.then)();
        }
    }

    fn counting(then: impl Fn() + Send + Sync + 'static) -> (Arc<Counting>, Waker) {
        let counting = Arc::new(Counting {
            woken: AtomicUsize::new(0),
            on: Mutex::new(None),
            then: Box::new(then),
        });
        let waker = Waker::from(counting.clone());
        (counting, waker)
    }

    /// Files a timer due at tick `due`, registering at tick `now`.
    fn file(driver: &Shared, due: u64, now: u64, waker: &Waker) {
        match driver.register(Tick(due), Tick(now), waker.clone()) {
            Ok(Registered::Pending(..)) => {}
            _ => panic!("a timer due at tick {due} was not filed at tick {now}"),
        }
    }

    #[test]
    fn a_foreign_shards_own_thread_fires_what_is_due_when_it_registers() {
        let shard = driver(Role::Foreign);
        let (due, waker) = counting(|| {});
        file(&shard, 5, 0, &waker);
        file(&shard, 100, 4, Waker::noop());
        assert_eq!(due.woken.load(SeqCst), 0, "not due at tick 4: never early");
        file(&shard, 100, 10, Waker::noop());
        assert_eq!(due.woken.load(SeqCst), 1, "due at tick 5, seen at tick 10");
        assert_eq!(*due.on.lock().unwrap(), Some(thread::current().id()));
        assert_eq!(shard.len(), 2, "the two later timers stay filed");
        file(&shard, 100, 11, Waker::noop());
        assert_eq!(due.woken.load(SeqCst), 1, "woken once");
    }

    #[test]
    fn a_registration_fires_one_batch_at_most() {
        let shard = driver(Role::Foreign);
        let (due, waker) = counting(|| {});
        let many = BATCH + 8;
        for tick in 1..=many as u64 {
            file(&shard, tick, 0, &waker);
        }
        file(&shard, 1_000, 100, Waker::noop());
        assert_eq!(due.woken.load(SeqCst), BATCH);
        assert_eq!(shard.len(), many - BATCH + 1);
        file(&shard, 1_000, 100, Waker::noop());
        assert_eq!(
            due.woken.load(SeqCst),
            many,
            "the next registration fires the rest"
        );
        assert_eq!(shard.len(), 2);
    }

    #[test]
    fn drivers_turned_by_their_own_loop_fire_only_there() {
        for role in [Role::Bare, Role::CurrentThread] {
            let driver = driver(role);
            let (due, waker) = counting(|| {});
            file(&driver, 5, 0, &waker);
            file(&driver, 100, 10, Waker::noop());
            assert_eq!(due.woken.load(SeqCst), 0, "{role:?}");
            assert_eq!(driver.process_at(Tick(10)), 1, "{role:?}");
        }
    }

    /// Files a timer due at tick 5 whose waker panics, then one due at
    /// tick 6 whose waker counts; returns the count.
    fn a_panicking_waker_then_another(driver: &Shared) -> Arc<Counting> {
        let (_, panics) = counting(|| panic!("a waker that panics (expected in this test)"));
        let (other, waker) = counting(|| {});
        file(driver, 5, 0, &panics);
        file(driver, 6, 0, &waker);
        other
    }

    #[test]
    fn a_panicking_waker_does_not_reach_the_registering_caller() {
        let shard = driver(Role::Foreign);
        let other = a_panicking_waker_then_another(&shard);
        file(&shard, 100, 10, Waker::noop());
        assert_eq!(
            other.woken.load(SeqCst),
            1,
            "the batch goes on past the panic"
        );
        assert_eq!(shard.len(), 1);
    }

    /// A waker that panics when its last reference goes, once armed.
    struct PanicsOnDrop(Arc<AtomicBool>);

    impl Wake for PanicsOnDrop {
        fn wake(self: Arc<Self>) {}
    }

    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            if self.0.load(SeqCst) {
                panic!("a waker whose drop panics (expected in this test)");
            }
        }
    }

    /// Files a timer due at tick `due`, whose waker panics when dropped
    /// once the returned flag is set; the driver holds its only reference.
    fn file_panicking_on_drop(driver: &Shared, due: u64) -> (TimerKey, Arc<AtomicBool>) {
        let armed = Arc::new(AtomicBool::new(false));
        let waker = Waker::from(Arc::new(PanicsOnDrop(armed.clone())));
        match driver.register(Tick(due), Tick(0), waker.clone()) {
            Ok(Registered::Pending(key, _)) => (key, armed),
            _ => panic!("a timer due at tick {due} was not filed"),
        }
    }

    #[test]
    fn a_cancelled_waker_that_panics_when_dropped_does_not_lose_the_rest_of_its_batch() {
        for role in [Role::Foreign, Role::Bare] {
            let driver = driver(role);
            // The first waker of the batch cancels the second timer, whose
            // waker the batch then drops instead of calling: that drop
            // panics. The timers after it must still be woken.
            let victim = Arc::new(Mutex::new(None::<TimerKey>));
            let (first, waker) = {
                let (driver, victim) = (driver.clone(), victim.clone());
                counting(move || {
                    let key = victim
                        .lock()
                        .unwrap()
                        .take()
                        .expect("the second timer's key");
                    driver.deregister(key);
                })
            };
            file(&driver, 5, 0, &waker);
            let (key, armed) = file_panicking_on_drop(&driver, 6);
            *victim.lock().unwrap() = Some(key);
            let (rest, rest_waker) = counting(|| {});
            for due in 7..12 {
                file(&driver, due, 0, &rest_waker);
            }
            armed.store(true, SeqCst);
            match role {
                // The shard's own thread fires it on its next registration,
                // and keeps the panic from the registering caller.
                Role::Foreign => file(&driver, 100, 20, Waker::noop()),
                _ => {
                    let fired = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        driver.process_at(Tick(20))
                    }));
                    assert!(
                        fired.is_err(),
                        "{role:?}: the drop's panic reaches the caller"
                    );
                }
            }
            assert_eq!(first.woken.load(SeqCst), 1, "{role:?}");
            assert_eq!(
                rest.woken.load(SeqCst),
                5,
                "{role:?}: the timers after the panicking drop were lost"
            );
        }
    }

    #[test]
    fn a_waker_that_panics_at_shutdown_does_not_keep_the_others_from_learning_of_it() {
        let driver = driver(Role::Bare);
        let other = a_panicking_waker_then_another(&driver);
        let shutdown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| driver.shutdown()));
        assert!(shutdown.is_err(), "the panic reaches the caller");
        assert_eq!(other.woken.load(SeqCst), 1, "the other task learns of it");
        assert!(driver.is_shutdown());
    }

    #[test]
    fn a_waker_of_the_batch_may_register_on_the_same_shard() {
        let shard = driver(Role::Foreign);
        let (pending, pending_waker) = counting(|| {});
        file(&shard, 100, 0, &pending_waker);
        let inner = shard.clone();
        let (first, waker) = counting(move || {
            // Registering from inside the batch, at a tick where the timer
            // due at 100 is due too: filed, and nothing fired from here.
            file(&inner, 1_000, 200, Waker::noop());
        });
        let (second, other) = counting(|| {});
        file(&shard, 5, 0, &waker);
        file(&shard, 6, 0, &other);
        file(&shard, 1_000, 10, Waker::noop());
        assert_eq!(first.woken.load(SeqCst), 1);
        assert_eq!(second.woken.load(SeqCst), 1);
        assert_eq!(pending.woken.load(SeqCst), 0, "not fired inside the batch");
        assert_eq!(shard.len(), 3);
        file(&shard, 1_000, 200, Waker::noop());
        assert_eq!(
            pending.woken.load(SeqCst),
            1,
            "fired by the next registration"
        );
    }

    #[test]
    fn a_registration_from_a_range_of_ticks_files_only_if_the_range_cannot_matter() {
        // The foreign shards' tick and slack rule: several levels.
        let shard = Arc::new(Shared::new(Options {
            resolution: Duration::from_micros(1),
            role: Role::Foreign,
            unpark: Some(Box::new(|| {})),
            slack: TimerSlack::DEFAULT,
        }));
        let (lo, hi) = (Tick(1_000), Tick(5_000));
        let within = |due| shard.register_within(Tick(due), lo, hi, Waker::noop().clone());
        // Due by `hi`: it may be due now; so may one at `hi` exactly.
        assert!(matches!(within(4_000), Ok(Registered::Unsure)));
        assert!(matches!(within(5_000), Ok(Registered::Unsure)));
        // Due by `lo`, which the clock has reached: due, whatever `hi`.
        assert!(matches!(within(900), Ok(Registered::Due)));
        // A level boundary inside the range of TTLs: unsure.
        let boundary = (1..u64::MAX / 2)
            .map(|k| k * 1_000)
            .find(|&ttl| !shard.inner.lock().levels.same_level(ttl, ttl + 1_000))
            .expect("the default slack rule has more than one level");
        assert!(matches!(
            within(lo.0 + boundary + 1_000),
            Ok(Registered::Unsure)
        ));
        assert_eq!(shard.len(), 0, "nothing filed when unsure");
        // Far enough off, and in one level from anywhere in the range:
        // filed from `lo`, due at its own tick.
        match within(10_000_000) {
            Ok(Registered::Pending(_, due)) => assert_eq!(due, Tick(10_000_000)),
            _ => panic!("a deadline 10 s off was not filed"),
        }
        assert_eq!(shard.len(), 1);
        // An exact registration (`hi == now`) is never unsure.
        assert!(matches!(
            shard.register(Tick(1_001), lo, Waker::noop().clone()),
            Ok(Registered::Pending(..))
        ));
    }

    #[test]
    fn a_reset_from_a_range_of_ticks_changes_nothing_when_unsure() {
        let shard = driver(Role::Foreign);
        let key = match shard.register(Tick(100), Tick(0), Waker::noop().clone()) {
            Ok(Registered::Pending(key, _)) => key,
            _ => panic!("not filed"),
        };
        // Within the range: unsure, and the timer stays as it was.
        assert!(matches!(
            shard.reset_within(key, Tick(40), Tick(10), Tick(50)),
            Ok(Reset::Unsure)
        ));
        assert_eq!(shard.len(), 1);
        // Past it: moved.
        match shard.reset_within(key, Tick(200), Tick(10), Tick(50)) {
            Ok(Reset::Moved(_, due)) => assert_eq!(due, Tick(200)),
            _ => panic!("a reset past the range was not made"),
        }
        // Not due at 150, due at 200: never early, nothing lost.
        assert_eq!(shard.process_at(Tick(150)), 0);
        assert_eq!(shard.process_at(Tick(200)), 1);
    }
}
