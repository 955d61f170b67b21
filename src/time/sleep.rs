//! [`Sleep`], [`sleep`] and [`sleep_until`].

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::coop;
use crate::driver::{rebind_target, Error, Handle, Registered, Tick};
use crate::lawn::TimerKey;
use crate::time::Instant;

/// Waits until `duration` has elapsed; like `tokio::time::sleep`.
///
/// The sleep does nothing until first polled: then it registers with the
/// driver of the thread it was created on (see
/// [`Handle::current`](crate::driver::Handle::current); a sleep made where
/// no driver was entered belongs to the runtime it is first polled in, so
/// `rt.block_on(sleep(d))` uses `rt`'s clock), and completes once
/// [`Instant::now`] has reached its deadline, never before. The deadline is
/// rounded up to the driver's tick (by default 100 µs in a runtime, 1 ms for
/// the fallback driver). `Duration::MAX` (or
/// any duration the clock cannot represent) sleeps about 30 years, without
/// overflow or panic.
///
/// Works in any executor: outside a `lawn_rt` runtime a fallback driver
/// thread serves it.
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
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    let handle = Handle::current();
    let now = handle.now();
    let deadline = Instant::from_std(now).saturating_add(duration);
    // A zero sleep is due at once: let the first poll compare exactly.
    let from = if duration.is_zero() {
        UNKNOWN
    } else {
        handle.tick_of(now).0
    };
    Sleep::new(handle, deadline, from)
}

/// Waits until `deadline`; like `tokio::time::sleep_until`. A deadline in
/// the past completes on the first poll.
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
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new(Handle::current(), deadline, UNKNOWN)
}

/// `word` of an unregistered sleep when the tick it was made at is not
/// known.
const UNKNOWN: u64 = u64::MAX;

/// Where a [`Sleep`] stands with its driver (decoded from its fields by
/// [`Sleep::state`]). A key kept in `Unregistered` or `Elapsed` is an
/// earlier registration that was handed out for waking: on drop, the
/// driver makes sure its waker is not called afterwards.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Not filed: never polled, or reset after its registration fired.
    /// `word` is a tick this driver's clock has reached, or `UNKNOWN`.
    Unregistered(Option<TimerKey>),
    /// Filed under this key (for the tick its deadline rounds up to);
    /// `word` is the driver's epoch when the sleep last saw it filed.
    Registered(TimerKey),
    /// Completed.
    Elapsed(Option<TimerKey>),
}

/// A sleep's phase, packed with the identity of the waker its filed timer
/// holds: the data and vtable addresses of the waker it was last polled
/// with (wakers with equal ones are the same waker). A vtable's address is
/// never 0 or 1 (a reference to a struct of function pointers), which
/// leaves those for the other two phases: 16 bytes, where an enum with the
/// identity in one variant would take 24.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Phase {
    data: usize,
    vtable: usize,
}

impl Phase {
    const UNREGISTERED: Phase = Phase { data: 0, vtable: 0 };
    const ELAPSED: Phase = Phase { data: 0, vtable: 1 };

    /// Registered, the filed timer holding (a clone of) `waker`.
    #[inline]
    fn filed_with(waker: &Waker) -> Phase {
        Phase {
            data: waker.data() as usize,
            vtable: std::ptr::from_ref(waker.vtable()) as usize,
        }
    }
}

pin_project_lite::pin_project! {
    /// The future [`sleep`] and [`sleep_until`] return; like
    /// `tokio::time::Sleep`: `Send + Sync`, `!Unpin` (pin it with
    /// [`std::pin::pin!`] or `Box::pin` to poll it by hand or reuse it).
    ///
    /// Polling a registered sleep again from the same task (a `select!`
    /// loop, a [`Timeout`](crate::time::Timeout) around a busy future)
    /// takes no lock while the driver has handed nothing out since the
    /// sleep last looked: one atomic load and a comparison of wakers.
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
        handle: Handle,
        deadline: Instant,
        // See `State`.
        word: u64,
        key: Option<TimerKey>,
        phase: Phase,
        #[pin]
        _pinned: PhantomPinned,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let shared = &this.handle.shared;
            match this.state() {
                State::Registered(key) => shared.deregister(key),
                State::Unregistered(Some(key)) | State::Elapsed(Some(key)) => shared.forget(key),
                State::Unregistered(None) | State::Elapsed(None) => {}
            }
        }
    }
}

impl Sleep {
    fn new(handle: Handle, deadline: Instant, tick: u64) -> Sleep {
        Sleep {
            handle,
            deadline,
            word: tick,
            key: None,
            phase: Phase::UNREGISTERED,
            _pinned: PhantomPinned,
        }
    }

    /// Where the sleep stands (see [`State`]).
    #[inline]
    fn state(&self) -> State {
        match (self.phase, self.key) {
            (Phase::UNREGISTERED, key) => State::Unregistered(key),
            (Phase::ELAPSED, key) => State::Elapsed(key),
            (_, Some(key)) => State::Registered(key),
            (_, None) => unreachable!("lawn_rt: a registered sleep without a key"),
        }
    }

    /// Not filed (keeping `handed_out`, an earlier registration's key),
    /// made or reset at `tick` (or [`UNKNOWN`]).
    #[inline]
    fn set_unregistered(self: Pin<&mut Self>, handed_out: Option<TimerKey>, tick: u64) {
        let this = self.project();
        *this.phase = Phase::UNREGISTERED;
        *this.key = handed_out;
        *this.word = tick;
    }

    /// Completed (keeping `handed_out`, as for `set_unregistered`).
    #[inline]
    fn set_elapsed(self: Pin<&mut Self>, handed_out: Option<TimerKey>) {
        let this = self.project();
        *this.phase = Phase::ELAPSED;
        *this.key = handed_out;
    }

    /// Seen filed under `key` at the driver's `epoch`, holding `waker`.
    #[inline]
    fn set_registered(self: Pin<&mut Self>, key: TimerKey, epoch: u64, waker: &Waker) {
        let this = self.project();
        *this.phase = Phase::filed_with(waker);
        *this.key = Some(key);
        *this.word = epoch;
    }

    /// Whether a registered sleep's timer is certainly still filed with
    /// `waker`, known without the driver lock: it was last seen filed with
    /// that waker, and nothing has been handed out since.
    #[inline]
    fn still_filed_with(&self, waker: &Waker) -> bool {
        self.phase == Phase::filed_with(waker) && self.handle.shared.epoch() == self.word
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
    /// polled. A sleep never polled is not elapsed, whatever its deadline.
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
            State::Unregistered(_) => false,
            State::Elapsed(_) => true,
            // Handed out means due: a filed timer is due at the tick its
            // deadline rounds up to (a reset to another tick files it anew).
            State::Registered(key) => {
                self.handle.shared.epoch() != self.word && self.handle.shared.is_fired(key)
            }
        }
    }

    /// Sets a new deadline, keeping the registration and its waker: O(1).
    /// A deadline at or before now completes on the next poll (and wakes the
    /// stored waker); a later one makes an elapsed sleep wait again.
    ///
    /// A new deadline in the same tick as the old one (an idle timeout
    /// pushed back many times a millisecond) takes no lock and reads no
    /// clock.
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
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        if let State::Registered(_) = self.state() {
            if self.handle.tick_ceil(deadline.into_std()) == self.filed_tick() {
                // Due at the tick it is filed for: nothing to re-file.
                *self.project().deadline = deadline;
                return;
            }
        }
        let now = self.handle.now();
        self.reset_at(deadline, Instant::from_std(now));
    }

    /// The tick a registered sleep is filed for: its deadline's, rounded up.
    #[inline]
    fn filed_tick(&self) -> Tick {
        self.handle.tick_ceil(self.deadline.into_std())
    }

    /// This sleep's driver's clock now.
    pub(crate) fn clock_now(&self) -> Instant {
        Instant::from_std(self.handle.now())
    }

    /// [`reset`](Sleep::reset) for a caller that has just read this sleep's
    /// clock ([`clock_now`](Sleep::clock_now)).
    pub(crate) fn reset_at(mut self: Pin<&mut Self>, deadline: Instant, now: Instant) {
        *self.as_mut().project().deadline = deadline;
        let shared = &self.handle.shared;
        let handed_out = match self.state() {
            State::Registered(key) if deadline <= now => {
                let fired = shared.fire_now(key);
                return self.set_elapsed((!fired).then_some(key));
            }
            State::Registered(key) => {
                let from = self.handle.tick_of(now.into_std());
                match shared.reset(key, deadline.into_std(), from) {
                    // Filed again, for the tick `deadline` rounds up to.
                    Ok(Some(_)) => return,
                    // Handed out for waking, or the driver is gone (the
                    // next poll says so).
                    Ok(None) | Err(_) => Some(key),
                }
            }
            State::Unregistered(key) | State::Elapsed(key) => key,
        };
        if deadline <= now {
            self.set_elapsed(handed_out);
        } else {
            let tick = self.handle.tick_of(now.into_std()).0;
            self.set_unregistered(handed_out, tick);
        }
    }

    /// Polls for completion, registering or updating the waker.
    fn poll_elapsed(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if matches!(self.state(), State::Unregistered(None)) {
            // Made where no driver was entered (`rt.block_on(sleep(d))`
            // builds the sleep before `block_on` enters the runtime), it
            // belongs to the runtime it is first polled in, if any (not to
            // a bare `Driver` entered there: that one's clock may be moved
            // by hand). Made on one worker of a multi-thread runtime and
            // first polled on another, it files on the polling worker's
            // shard, which fires it without a cross-thread lock.
            if let Some(entered) = rebind_target(&self.handle) {
                let this = self.as_mut().project();
                *this.handle = entered;
                *this.word = UNKNOWN;
            }
        }
        if self.handle.shared.is_shutdown() {
            panic!("{}", Error::shutdown());
        }
        let (from, handed_out) = match self.state() {
            State::Elapsed(_) => return Poll::Ready(()),
            // Polled again by the same task, nothing handed out since it
            // last looked: still filed, no lock needed.
            State::Registered(_) if self.still_filed_with(cx.waker()) => return Poll::Pending,
            State::Registered(key) => match self.handle.shared.poll_pending(key, cx.waker()) {
                Ok(Some(epoch)) => {
                    self.set_registered(key, epoch, cx.waker());
                    return Poll::Pending;
                }
                // Handed out: due (see `is_elapsed`).
                Ok(None) => {
                    self.set_elapsed(Some(key));
                    return Poll::Ready(());
                }
                Err(err) => panic!("{err}"),
            },
            State::Unregistered(key) if self.word == UNKNOWN => {
                let now = self.handle.now();
                if self.deadline.into_std() <= now {
                    self.set_elapsed(key);
                    return Poll::Ready(());
                }
                (self.handle.tick_of(now), key)
            }
            State::Unregistered(key) => (Tick(self.word), key),
        };
        self.register(from, handed_out, cx)
    }

    /// Files the sleep with the driver, from a tick its clock has reached.
    fn register(
        self: Pin<&mut Self>,
        from: Tick,
        handed_out: Option<TimerKey>,
        cx: &mut Context<'_>,
    ) -> Poll<()> {
        self.handle.before_register();
        let deadline = self.deadline.into_std();
        let shared = &self.handle.shared;
        match shared.register(deadline, from, cx.waker()) {
            Ok(Registered::Pending(key, epoch)) => {
                if let Some(old) = handed_out {
                    // The old registration's waker is not needed (this task
                    // is being polled), and the sleep forgets its key now:
                    // make sure that waker is not called once this returns
                    // (it may be being called on the firing thread), or a
                    // drop of the sleep would not cover it.
                    shared.forget(old);
                }
                self.set_registered(key, epoch, cx.waker());
                Poll::Pending
            }
            Ok(Registered::Due) => {
                self.set_elapsed(handed_out);
                Poll::Ready(())
            }
            Err(err) => panic!("{err}"),
        }
    }
}

impl Future for Sleep {
    type Output = ();

    /// # Panics
    ///
    /// If the sleep's driver has shut down (its runtime was dropped).
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
