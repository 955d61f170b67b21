//! [`Sleep`], [`sleep`] and [`sleep_until`].

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};
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

/// `tick` when the tick the sleep was made at is not known.
const UNKNOWN: u64 = u64::MAX;

/// Where a [`Sleep`] stands with its driver. A key kept in `Unregistered`
/// or `Elapsed` is an earlier registration that was handed out for waking:
/// on drop, the driver makes sure its waker is not called afterwards.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Not filed: never polled, or reset after its registration fired.
    /// `tick` is a tick this driver's clock has reached, or `UNKNOWN`.
    Unregistered(Option<TimerKey>),
    /// Filed under this key; `tick` is the tick it is filed for.
    Registered(TimerKey),
    /// Completed.
    Elapsed(Option<TimerKey>),
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
        handle: Handle,
        deadline: Instant,
        // See `State`.
        tick: u64,
        state: State,
        #[pin]
        _pinned: PhantomPinned,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            match *this.state {
                State::Registered(key) => this.handle.shared.deregister(key),
                State::Unregistered(Some(key)) | State::Elapsed(Some(key)) => {
                    this.handle.shared.forget(key)
                }
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
            tick,
            state: State::Unregistered(None),
            _pinned: PhantomPinned,
        }
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
        match self.state {
            State::Unregistered(_) => false,
            State::Elapsed(_) => true,
            State::Registered(key) => {
                self.handle.shared.is_fired(key) && self.due_by(Tick(self.tick))
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
        if let State::Registered(_) = self.state {
            if self.handle.tick_ceil(deadline.into_std()).0 == self.tick {
                // Due at the tick it is filed for: nothing to re-file.
                *self.project().deadline = deadline;
                return;
            }
        }
        let now = self.handle.now();
        self.reset_at(deadline, Instant::from_std(now));
    }

    /// Whether the deadline is due by `tick` (rounded up to a tick).
    #[inline]
    fn due_by(&self, tick: Tick) -> bool {
        self.handle.tick_ceil(self.deadline.into_std()) <= tick
    }

    /// This sleep's driver's clock now.
    pub(crate) fn clock_now(&self) -> Instant {
        Instant::from_std(self.handle.now())
    }

    /// [`reset`](Sleep::reset) for a caller that has just read this sleep's
    /// clock ([`clock_now`](Sleep::clock_now)).
    pub(crate) fn reset_at(self: Pin<&mut Self>, deadline: Instant, now: Instant) {
        let this = self.project();
        *this.deadline = deadline;
        let shared = &this.handle.shared;
        let handed_out = match *this.state {
            State::Registered(key) if deadline <= now => {
                let fired = shared.fire_now(key);
                *this.state = State::Elapsed((!fired).then_some(key));
                return;
            }
            State::Registered(key) => {
                let from = this.handle.tick_of(now.into_std());
                match shared.reset(key, deadline.into_std(), from) {
                    Ok(Some(due)) => {
                        *this.tick = due.0;
                        return;
                    }
                    // Handed out for waking, or the driver is gone (the
                    // next poll says so).
                    Ok(None) | Err(_) => Some(key),
                }
            }
            State::Unregistered(key) | State::Elapsed(key) => key,
        };
        if deadline <= now {
            *this.state = State::Elapsed(handed_out);
        } else {
            *this.state = State::Unregistered(handed_out);
            *this.tick = this.handle.tick_of(now.into_std()).0;
        }
    }

    /// Polls for completion, registering or updating the waker.
    fn poll_elapsed(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if matches!(self.state, State::Unregistered(None)) {
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
                *this.tick = UNKNOWN;
            }
        }
        if self.handle.shared.is_shutdown() {
            panic!("{}", Error::shutdown());
        }
        let (from, handed_out) = match self.state {
            State::Elapsed(_) => return Poll::Ready(()),
            State::Registered(key) => match self.handle.shared.poll_pending(key, cx.waker()) {
                Ok(true) => return Poll::Pending,
                // Handed out: due, unless the deadline was pushed later.
                Ok(false) if self.due_by(Tick(self.tick)) => {
                    *self.project().state = State::Elapsed(Some(key));
                    return Poll::Ready(());
                }
                Ok(false) => (Tick(self.tick), Some(key)),
                Err(err) => panic!("{err}"),
            },
            State::Unregistered(key) if self.tick == UNKNOWN => {
                let now = self.handle.now();
                if self.deadline.into_std() <= now {
                    *self.project().state = State::Elapsed(key);
                    return Poll::Ready(());
                }
                (self.handle.tick_of(now), key)
            }
            State::Unregistered(key) => (Tick(self.tick), key),
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
        let this = self.project();
        this.handle.before_register();
        let deadline = this.deadline.into_std();
        match this.handle.shared.register(deadline, from, cx.waker()) {
            Ok(Registered::Pending(key, due)) => {
                if let Some(old) = handed_out {
                    // The old registration's waker is not needed (this task
                    // is being polled), and the sleep forgets its key now:
                    // make sure that waker is not called once this returns
                    // (it may be being called on the firing thread), or a
                    // drop of the sleep would not cover it.
                    this.handle.shared.forget(old);
                }
                *this.state = State::Registered(key);
                *this.tick = due.0;
                Poll::Pending
            }
            Ok(Registered::Due) => {
                *this.state = State::Elapsed(handed_out);
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
            .field("state", &self.state)
            .finish()
    }
}
