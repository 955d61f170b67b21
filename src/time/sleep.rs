//! [`Sleep`], [`sleep`] and [`sleep_until`].

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::coop;
use crate::driver::{rebind_target, Handle, Registered, Reset, Role, Tick, FAR_FUTURE};
use crate::lawn::TimerKey;
use crate::time::Instant;

/// Waits until `duration` has elapsed; like `tokio::time::sleep`.
///
/// Its deadline is [`Instant::now`] plus `duration`.
///
/// The sleep does nothing until first polled: then it registers with the
/// driver of the thread it was created on (see
/// [`Handle::current`](crate::driver::Handle::current); a sleep made where
/// no driver was entered belongs to the runtime it is first polled in, so
/// `rt.block_on(sleep(d))` uses `rt`'s clock), and completes once
/// [`Instant::now`] has reached its deadline, never before. The deadline is
/// rounded up to the driver's tick (by default 1 µs in a runtime and a
/// foreign shard, 1 ms for a bare `Driver`). It may fire a little after it, by the
/// slack its TTL allows (at most 1 ms by default; see
/// [`TimerSlack`](crate::runtime::TimerSlack)), to share a wake-up. As in
/// tokio, a duration over 30 years (365-day years) sleeps 30 years, without
/// overflow or panic: on a paused clock, even `sleep(Duration::MAX)`
/// completes once the clock has auto-advanced that far.
///
/// Works in any executor: outside a `lawn_rt` runtime it files in the
/// polling thread's foreign shard, which the `lawn-rt-timer` thread fires.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{sleep, Duration, Instant};
///
/// futures::executor::block_on(async {
///     let start = Instant::now();
///     sleep(Duration::from_millis(20)).await;
///     assert!(start.elapsed() >= Duration::from_millis(20));
/// });
/// ```
///
/// # Cancel safety
///
/// Dropping a `Sleep` cancels it in O(1); its waker is not called after the
/// drop returns.
//
// Always inlined, as are `sleep_until`, `timeout` and `timeout_at`: a
// `Sleep` returned by an out-of-line call is copied on into the caller's
// future with loads that straddle the callee's stores, which stalls (a
// failed store-to-load forward). Inlined, even into a separate crate, the
// caller builds the `Sleep` where its future keeps it, with no copy
// (docs/decisions/inlined-timeout-path.md has the figures).
#[track_caller]
#[inline(always)]
pub fn sleep(duration: Duration) -> Sleep {
    // Capped as tokio caps it, so a paused clock's auto-advance reaches
    // even a `sleep(Duration::from_secs(u64::MAX))`.
    let duration = duration.min(FAR_FUTURE);
    let handle = Handle::current();
    // A zero sleep is due at once: let the first poll compare exactly.
    if duration.is_zero() {
        let now = Instant::from_std(handle.now());
        return Sleep::new(handle, now, UNKNOWN);
    }
    // The deadline `now + duration`, the tick it is due at and a tick the
    // clock has reached, from one conversion (see `State::Fresh`).
    let (deadline, from, due) = handle.sleep_deadline(duration);
    let (deadline, from, due) = (Instant::from_std(deadline), from.0, due.0);
    Sleep {
        handle: Some(handle),
        deadline,
        packed: Packed::new(State::Fresh(due), from),
        _pinned: PhantomPinned,
    }
}

/// Waits until `deadline`; like `tokio::time::sleep_until`. A deadline in
/// the past completes on the first poll (on Linux, one that passed less
/// than ~50 ms before, on a machine whose kernel timekeeping has stalled
/// for longer than that, completes on the driver's next turn instead:
/// a deadline more than that far ahead is filed from the kernel's coarse
/// clock, which skips a precise clock read).
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{sleep_until, Duration, Instant};
///
/// futures::executor::block_on(async {
///     let deadline = Instant::now() + Duration::from_millis(10);
///     sleep_until(deadline).await;
///     assert!(Instant::now() >= deadline);
/// });
/// ```
///
/// # Cancel safety
///
/// As for [`sleep`].
#[track_caller]
#[inline(always)]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new(Handle::current(), deadline, UNKNOWN)
}

/// A tick that is not known: the tick the sleep was made at, when not
/// read; or a tick too large to pack (see [`Packed`]).
const UNKNOWN: u64 = TICK_MASK;

/// Where a [`Sleep`] stands with its driver. A key kept in `Unregistered`
/// or `Elapsed` is an earlier registration that was handed out for waking:
/// on drop, the driver makes sure its waker is not called afterwards.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Not filed: never polled, or reset after its registration fired.
    /// `tick` is a tick this driver's clock has reached, or `UNKNOWN`.
    Unregistered(Option<TimerKey>),
    /// Filed under this key; `tick` is the tick it is filed for (always the
    /// tick its deadline rounds up to), or `UNKNOWN`.
    Registered(TimerKey),
    /// Completed.
    Elapsed(Option<TimerKey>),
    /// Made by [`sleep`] and not yet polled: due at this tick (the one its
    /// deadline rounds up to); `tick` is the tick it was made at, derived
    /// from the deadline's and the duration's (earlier if the deadline was
    /// clamped to the far future; never `UNKNOWN`: such a sleep reads as
    /// `Unregistered(None)`). Its first poll on this driver files it
    /// without converting an instant to ticks again.
    Fresh(u64),
}

/// Bits of [`Packed::word`] that hold the tick; the top two hold the phase.
const TICK_BITS: u32 = 62;
const TICK_MASK: u64 = (1 << TICK_BITS) - 1;
const UNREGISTERED: u64 = 0;
const REGISTERED: u64 = 1;
const ELAPSED: u64 = 2;
const FRESH: u64 = 3;

/// A sleep's [`State`] and tick in 16 bytes (as an enum and a `u64` they
/// take 24: the enum's tag costs 4 bytes and its padding 4 more), which
/// keeps `Sleep` at 40 bytes, a 48-byte allocation where 48 bytes took 64.
/// The phase sits in the top two bits of the tick word; ticks from
/// `2^62 - 1` up (only deadlines more than 146 years away at a 1 ns tick)
/// are stored as [`UNKNOWN`], which every reader treats as "not known":
/// read the clock, or take the slow path. The other word holds the key
/// (`0` for none: a key's generation is never zero), or a fresh sleep's due
/// tick.
#[derive(Clone, Copy, Debug)]
struct Packed {
    word: u64,
    other: u64,
}

impl Packed {
    #[inline]
    fn new(state: State, tick: u64) -> Packed {
        let (phase, other) = match state {
            State::Unregistered(key) => (UNREGISTERED, key_bits(key)),
            State::Registered(key) => (REGISTERED, key_bits(Some(key))),
            State::Elapsed(key) => (ELAPSED, key_bits(key)),
            State::Fresh(due) => (FRESH, due),
        };
        Packed {
            word: phase << TICK_BITS | tick.min(UNKNOWN),
            other,
        }
    }

    #[inline]
    fn state(self) -> State {
        let key = bits_key(self.other);
        match self.word >> TICK_BITS {
            REGISTERED => match key {
                Some(key) => State::Registered(key),
                None => State::Unregistered(None),
            },
            ELAPSED => State::Elapsed(key),
            FRESH if self.tick() != UNKNOWN => State::Fresh(self.other),
            FRESH => State::Unregistered(None),
            _ => State::Unregistered(key),
        }
    }

    #[inline]
    fn tick(self) -> u64 {
        self.word & TICK_MASK
    }
}

/// A key as one word: `0` for none.
#[inline]
fn key_bits(key: Option<TimerKey>) -> u64 {
    key.map_or(0, |key| key.to_bits().get())
}

/// The inverse of [`key_bits`].
#[inline]
fn bits_key(bits: u64) -> Option<TimerKey> {
    std::num::NonZeroU64::new(bits).map(TimerKey::from_bits)
}

pin_project_lite::pin_project! {
    /// The future [`sleep`] and [`sleep_until`] return; like
    /// `tokio::time::Sleep`: `Send + Sync`, `!Unpin` (pin it with
    /// [`std::pin::pin!`] or `Box::pin` to poll it by hand or reuse it).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration, Instant};
    ///
    /// futures::executor::block_on(async {
    ///     let mut sleep = std::pin::pin!(sleep(Duration::from_secs(3600)));
    ///     sleep.as_mut().reset(Instant::now() + Duration::from_millis(5));
    ///     sleep.as_mut().await;
    ///     assert!(sleep.is_elapsed());
    /// });
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    pub struct Sleep {
        // Always `Some` but in the drop, which gives it back (see
        // `Handle::give_back`).
        handle: Option<Handle>,
        deadline: Instant,
        // See `State` and `Packed`.
        packed: Packed,
        #[pin]
        _pinned: PhantomPinned,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let state = this.state();
            let Some(handle) = this.project().handle.take() else {
                return;
            };
            match state {
                State::Registered(key) => {
                    if let Some(waker) = handle.deregister(key) {
                        let_go_of_waker(&handle, waker);
                    }
                }
                State::Unregistered(Some(key)) | State::Elapsed(Some(key)) => handle.forget(key),
                State::Unregistered(None) | State::Elapsed(None) | State::Fresh(_) => {}
            }
            handle.give_back();
        }
    }
}

impl Sleep {
    #[inline]
    fn new(handle: Handle, deadline: Instant, tick: u64) -> Sleep {
        Sleep {
            handle: Some(handle),
            deadline,
            packed: Packed::new(State::Unregistered(None), tick),
            _pinned: PhantomPinned,
        }
    }

    #[inline(always)]
    fn handle(&self) -> &Handle {
        match &self.handle {
            Some(handle) => handle,
            None => unreachable!("a Sleep's handle is taken only by its drop"),
        }
    }

    #[inline]
    fn state(&self) -> State {
        self.packed.state()
    }

    /// The tick that goes with the state (see [`State`]).
    #[inline]
    fn tick(&self) -> u64 {
        self.packed.tick()
    }

    #[inline]
    fn set(self: Pin<&mut Self>, state: State, tick: u64) {
        *self.project().packed = Packed::new(state, tick);
    }

    /// The instant at which this sleep completes.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep_until, Duration, Instant};
    ///
    /// let deadline = Instant::now() + Duration::from_secs(1);
    /// assert_eq!(sleep_until(deadline).deadline(), deadline);
    /// ```
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Whether this sleep has completed: it fired, or was found due when
    /// polled. A sleep never polled nor [reset](Sleep::reset) is not
    /// elapsed, whatever its deadline (it is not filed yet).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration};
    ///
    /// let sleep = sleep(Duration::from_millis(1));
    /// assert!(!sleep.is_elapsed());
    /// ```
    pub fn is_elapsed(&self) -> bool {
        match self.state() {
            State::Unregistered(_) | State::Fresh(_) => false,
            State::Elapsed(_) => true,
            // Handed out means due: a filed timer is due at the tick its
            // deadline rounds up to (a reset to another tick files it anew).
            State::Registered(key) => self.handle().is_fired(key),
        }
    }

    /// Sets a new deadline, keeping the registration and its waker: O(1).
    /// A deadline at or before now completes on the next poll (and wakes the
    /// stored waker); a later one makes an elapsed sleep wait again.
    ///
    /// As tokio's, a reset files the timer with the driver even when it is
    /// not filed (it completed, or was never polled): it then fires at the
    /// new deadline whether or not it is polled meanwhile (`is_elapsed`
    /// says so, and a paused clock's auto-advance stops there), and wakes
    /// the task of the next poll after that. (A sleep made outside any
    /// runtime and not yet polled is left for its first poll, which picks
    /// its driver.)
    ///
    /// A new deadline in the same tick as the old one (an idle timeout
    /// pushed back many times a tick) takes no lock and reads no clock; one
    /// in another tick more than ~50 ms from now reads only the kernel's
    /// coarse clock where there is one (the lock it takes to move the
    /// timer is the cost left).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{sleep, Duration, Instant};
    ///
    /// futures::executor::block_on(async {
    ///     let mut idle = Box::pin(sleep(Duration::from_secs(30)));
    ///     // Activity: push the idle timeout back.
    ///     idle.as_mut().reset(Instant::now() + Duration::from_secs(30));
    ///     // Or give up now: completes at once.
    ///     idle.as_mut().reset(Instant::now());
    ///     idle.await;
    /// });
    /// ```
    #[cfg_attr(not(loom), inline)]
    pub fn reset(mut self: Pin<&mut Self>, deadline: Instant) {
        if let State::Registered(key) = self.state() {
            let due = self.handle().tick_ceil(deadline.into_std());
            if self.tick() != UNKNOWN && due.0 == self.tick() {
                // Due at the tick it is filed for: nothing to re-file.
                *self.project().deadline = deadline;
                return;
            }
            // A new deadline further off than the coarse clock's lag bound
            // needs no precise read of the clock (see `poll_elapsed`).
            if let Some((lo, hi)) = self.handle().tick_bounds().filter(|&(_, hi)| due > hi) {
                let state = match self.handle().reset_within(key, due, lo, hi) {
                    Ok(Reset::Unsure) => None, // read the clock below
                    Ok(Reset::Moved(key, due)) => Some((State::Registered(key), due.0, false)),
                    // Handed out for waking, or the driver is gone (the next
                    // poll says so); `lo` is a tick the clock has reached.
                    Ok(Reset::NotPending) | Err(_) => {
                        Some((State::Unregistered(Some(key)), lo.0, true))
                    }
                };
                if let Some((state, tick, unfiled)) = state {
                    *self.as_mut().project().deadline = deadline;
                    self.as_mut().set(state, tick);
                    if unfiled {
                        self.file_if_unfiled(true);
                    }
                    return;
                }
            }
        }
        let polled = !matches!(self.state(), State::Fresh(_) | State::Unregistered(None));
        let now = self.handle().now();
        self.as_mut().reset_at(deadline, Instant::from_std(now));
        self.file_if_unfiled(polled);
    }

    /// After a reset: files the sleep now if it is not filed, as tokio's
    /// reset does, with no waker yet (the next poll stores the task's). A
    /// sleep made outside any runtime and never `polled` is left for its
    /// first poll, which picks its driver. Out of line: the resets of an
    /// idle timeout never come here.
    #[cold]
    #[inline(never)]
    fn file_if_unfiled(self: Pin<&mut Self>, polled: bool) {
        if matches!(self.state(), State::Unregistered(_))
            && (polled || self.handle().role() != Role::Foreign)
            && !self.handle().is_shutdown()
        {
            let _ = self.poll_elapsed(&mut Context::from_waker(Waker::noop()));
        }
    }

    /// This sleep's driver's clock now.
    pub(crate) fn clock_now(&self) -> Instant {
        Instant::from_std(self.handle().now())
    }

    /// [`reset`](Sleep::reset) for a caller that has just read this sleep's
    /// clock ([`clock_now`](Sleep::clock_now)).
    pub(crate) fn reset_at(mut self: Pin<&mut Self>, deadline: Instant, now: Instant) {
        *self.as_mut().project().deadline = deadline;
        let handed_out = match self.state() {
            State::Registered(key) if deadline <= now => {
                let fired = self.handle().fire_now(key);
                return self.set(State::Elapsed((!fired).then_some(key)), UNKNOWN);
            }
            State::Registered(key) => {
                let from = self.handle().tick_of(now.into_std());
                match self.handle().reset(key, deadline.into_std(), from) {
                    Ok(Some((key, due))) => return self.set(State::Registered(key), due.0),
                    // Handed out for waking, or the driver is gone (the
                    // next poll says so).
                    Ok(None) | Err(_) => Some(key),
                }
            }
            State::Unregistered(key) | State::Elapsed(key) => key,
            State::Fresh(_) => None,
        };
        if deadline <= now {
            self.set(State::Elapsed(handed_out), UNKNOWN);
        } else {
            let tick = self.handle().tick_of(now.into_std()).0;
            self.set(State::Unregistered(handed_out), tick);
        }
    }

    /// Polls for completion, registering or updating the waker.
    fn poll_elapsed(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if matches!(self.state(), State::Unregistered(None) | State::Fresh(_)) {
            // Made where no driver was entered (`rt.block_on(sleep(d))`
            // builds the sleep before `block_on` enters the runtime), it
            // belongs to the runtime it is first polled in, if any (not to
            // a bare `Driver` entered there: that one's clock may be moved
            // by hand). Made on one worker of a multi-thread runtime and
            // first polled on another, it files on the polling worker's
            // shard, which fires it without a cross-thread lock.
            if let Some(entered) = rebind_target(self.handle()) {
                *self.as_mut().project().handle = Some(entered);
                self.as_mut().set(State::Unregistered(None), UNKNOWN);
            }
        }
        if self.handle().is_shutdown() {
            panic!(
                "A Tokio 1.x context was found, but it is being shutdown. (lawn_rt: the timer \
                 driver has shut down, its runtime was dropped; timers bound to it can no longer \
                 be used)"
            );
        }
        let (from, handed_out) = match self.state() {
            State::Elapsed(_) => return Poll::Ready(()),
            State::Registered(key) => match self.handle().poll_pending(key, cx.waker()) {
                Ok(true) => {
                    // Filed before a `fork`, polled in the child.
                    self.handle().ensure_served();
                    return Poll::Pending;
                }
                // Handed out: due (see `is_elapsed`).
                Ok(false) => {
                    self.set(State::Elapsed(Some(key)), UNKNOWN);
                    return Poll::Ready(());
                }
                Err(err) => panic!("{err}"),
            },
            State::Fresh(due) => {
                let from = Tick(self.tick());
                return self.register(from, None, Some(Tick(due)), None, cx);
            }
            State::Unregistered(key) if self.tick() == UNKNOWN => {
                // A deadline given as an instant (`sleep_until`, `timeout_at`,
                // a re-home): the coarse clock bounds the tick now, which
                // is all a deadline further off than its lag bound needs
                // (see `Clock::tick_bounds`, `Shared::register_within`).
                let due = self.handle().tick_ceil(self.deadline.into_std());
                if let Some((lo, hi)) = self.handle().tick_bounds() {
                    if due > hi {
                        return self.register(lo, Some(hi), Some(due), key, cx);
                    }
                }
                let now = self.handle().now();
                if self.deadline.into_std() <= now {
                    self.set(State::Elapsed(key), UNKNOWN);
                    return Poll::Ready(());
                }
                let from = self.handle().tick_of(now);
                return self.register(from, None, Some(due), key, cx);
            }
            State::Unregistered(key) => (Tick(self.tick()), key),
        };
        self.register(from, None, None, handed_out, cx)
    }

    /// Files the sleep with the driver, from a tick its clock has reached
    /// (`from`; or, with `hi`, a tick between `from` and `hi`, which may
    /// send it to read the clock); `due` is the tick its deadline rounds
    /// up to, if known.
    #[cfg_attr(not(loom), inline(always))]
    fn register(
        self: Pin<&mut Self>,
        from: Tick,
        hi: Option<Tick>,
        due: Option<Tick>,
        handed_out: Option<TimerKey>,
        cx: &mut Context<'_>,
    ) -> Poll<()> {
        self.handle().ensure_served();
        let due = due.unwrap_or_else(|| self.handle().tick_ceil(self.deadline.into_std()));
        let waker = waker_for(self.handle(), cx.waker());
        let mut filed = match hi {
            Some(hi) => self.handle().register_within(due, from, hi, waker),
            None => self.handle().register(due, from, waker),
        };
        if let Ok(Registered::Unsure) = filed {
            // The range did not settle it: read the clock (an exact
            // registration is never unsure).
            let now = self.handle().now();
            if self.deadline.into_std() <= now {
                self.set(State::Elapsed(handed_out), UNKNOWN);
                return Poll::Ready(());
            }
            let waker = waker_for(self.handle(), cx.waker());
            filed = self
                .handle()
                .register(due, self.handle().tick_of(now), waker);
        }
        match filed {
            Ok(Registered::Pending(key, due)) => {
                if let Some(old) = handed_out {
                    // The old registration's waker is not needed (this task
                    // is being polled), and the sleep forgets its key now:
                    // make sure that waker is not called once this returns
                    // (it may be being called on the firing thread), or a
                    // drop of the sleep would not cover it.
                    self.handle().forget(old);
                }
                self.set(State::Registered(key), due.0);
                Poll::Pending
            }
            Ok(Registered::Beyond) => {
                if let Some(old) = handed_out {
                    self.handle().forget(old);
                }
                // Not filed (see `Registered::Beyond`): pending, and the
                // next poll compares the deadline with the clock first.
                self.set(State::Unregistered(None), UNKNOWN);
                Poll::Pending
            }
            Ok(Registered::Due) => {
                self.set(State::Elapsed(handed_out), UNKNOWN);
                Poll::Ready(())
            }
            Ok(Registered::Unsure) => unreachable!("an exact registration is never unsure"),
            Err(err) => panic!("{err}"),
        }
    }
}

/// The waker to file with `handle`'s driver for the task `waker` wakes:
/// in a runtime, the one a timer of that task cancelled earlier in this
/// task poll left behind (see `coop::keep_waker`), else a clone. A
/// foreign executor's task takes a clone: nothing marks its polls.
#[inline(always)]
fn waker_for(handle: &Handle, waker: &Waker) -> Waker {
    match handle.role().is_runtime() {
        true => coop::clone_waker(waker),
        false => waker.clone(),
    }
}

/// Lets go of the waker of a timer of `handle`'s just cancelled: kept for
/// the task's next timer in a runtime's task poll, else dropped.
#[inline(always)]
fn let_go_of_waker(handle: &Handle, waker: Waker) {
    match handle.role().is_runtime() {
        true => coop::keep_waker(waker),
        false => drop(waker),
    }
}

impl Future for Sleep {
    type Output = ();

    /// # Panics
    ///
    /// If the sleep's driver has shut down (its runtime was dropped).
    #[cfg_attr(not(loom), inline)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // Inside a runtime, a task that has completed its budget of leaf
        // futures this poll is made to yield (see `crate::coop`).
        std::task::ready!(coop::poll_proceed(cx));
        let polled = self.poll_elapsed(cx);
        if polled.is_ready() {
            coop::made_progress();
        }
        polled
    }
}

impl std::fmt::Debug for Sleep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .field("state", &self.state())
            .finish()
    }
}

#[cfg(all(test, not(loom), target_pointer_width = "64"))]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_is_forty_bytes() {
        // 40 bytes is a 48-byte glibc chunk; 41 would take 64 (see `Packed`).
        assert_eq!(std::mem::size_of::<Packed>(), 16);
        assert_eq!(std::mem::size_of::<Sleep>(), 40);
    }

    #[test]
    fn packed_round_trips_every_phase_and_clamps_huge_ticks() {
        let key = crate::lawn::Lawn::new().insert(0, 1, ());
        for state in [
            State::Fresh(0),
            State::Fresh(u64::MAX),
            State::Unregistered(None),
            State::Unregistered(Some(key)),
            State::Registered(key),
            State::Elapsed(None),
            State::Elapsed(Some(key)),
        ] {
            for tick in [0, 1, 12_345, UNKNOWN - 1] {
                if let State::Fresh(due) = state {
                    // A fresh sleep's tick is known; its due tick is whole.
                    let packed = Packed::new(state, tick);
                    assert!(matches!(packed.state(), State::Fresh(d) if d == due));
                    assert_eq!(packed.tick(), tick);
                    continue;
                }
                let packed = Packed::new(state, tick);
                assert_eq!(format!("{:?}", packed.state()), format!("{state:?}"));
                assert_eq!(packed.tick(), tick);
            }
            assert_eq!(Packed::new(state, UNKNOWN + 1).tick(), UNKNOWN);
            assert_eq!(Packed::new(state, u64::MAX).tick(), UNKNOWN);
            // A fresh sleep whose tick does not fit reads as never polled
            // with no tick known: its first poll reads the clock.
            let unpacked = match state {
                State::Fresh(_) => State::Unregistered(None),
                state => state,
            };
            assert_eq!(
                format!("{:?}", Packed::new(state, u64::MAX).state()),
                format!("{unpacked:?}")
            );
        }
    }
}
