//! [`Sleep`], [`sleep`] and [`sleep_until`].

use std::future::Future;
use std::marker::PhantomPinned;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::driver::{Error, Handle, Registered, Tick};
use crate::lawn::TimerKey;
use crate::time::Instant;

/// Waits until `duration` has elapsed; like `tokio::time::sleep`.
///
/// The sleep does nothing until first polled: then it registers with the
/// driver of the thread it was created on (see
/// [`Handle::current`](crate::driver::Handle::current)), and completes once
/// [`Instant::now`] has reached its deadline, never before. The deadline is
/// rounded up to the driver's tick (1 ms by default). `Duration::MAX` (or
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
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep::new(Handle::current(), deadline, UNKNOWN)
}

/// `from` when the tick the sleep was made at is not known.
const UNKNOWN: u64 = u64::MAX;

/// Where a [`Sleep`] stands with its driver.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Not filed: never polled, or reset since it fired.
    Unregistered,
    /// Filed under this key.
    Registered(TimerKey),
    /// Completed.
    Elapsed,
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
        // The tick the sleep was created at, or `UNKNOWN`.
        from: u64,
        state: State,
        #[pin]
        _pinned: PhantomPinned,
    }

    impl PinnedDrop for Sleep {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if let State::Registered(key) = *this.state {
                this.handle.shared.deregister(key);
            }
        }
    }
}

impl Sleep {
    fn new(handle: Handle, deadline: Instant, from: u64) -> Sleep {
        Sleep {
            handle,
            deadline,
            from,
            state: State::Unregistered,
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
    ///
    /// # Panics
    ///
    /// If the sleep's driver has shut down while it was registered.
    pub fn is_elapsed(&self) -> bool {
        match self.state {
            State::Unregistered => false,
            State::Elapsed => true,
            State::Registered(key) => match self.handle.shared.is_fired(key) {
                Ok(fired) => fired,
                Err(err) => panic!("{err}"),
            },
        }
    }

    /// Sets a new deadline, keeping the registration and its waker: O(1).
    /// A deadline at or before now completes on the next poll; a later one
    /// makes an elapsed sleep wait again.
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
    ///
    /// # Panics
    ///
    /// If the sleep's driver has shut down while it was registered.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        let now = self.handle.now();
        self.reset_at(deadline, Instant::from_std(now));
    }

    /// [`reset`](Sleep::reset) for a caller that has just read the clock.
    pub(crate) fn reset_at(self: Pin<&mut Self>, deadline: Instant, now: Instant) {
        let this = self.project();
        *this.deadline = deadline;
        let shared = &this.handle.shared;
        if deadline <= now {
            if let State::Registered(key) = *this.state {
                shared.deregister(key);
            }
            *this.state = State::Elapsed;
            return;
        }
        let from = this.handle.tick_of(now.into_std());
        *this.from = from.0;
        if let State::Registered(key) = *this.state {
            match shared.reset(key, deadline.into_std(), from) {
                Ok(true) => return,
                Ok(false) => {}
                Err(err) => panic!("{err}"),
            }
        }
        *this.state = State::Unregistered;
    }

    /// Polls for completion, registering or updating the waker.
    fn poll_elapsed(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        if this.handle.shared.is_shutdown() {
            panic!("{}", Error::shutdown());
        }
        let result = match *this.state {
            State::Elapsed => return Poll::Ready(()),
            State::Registered(key) => match this.handle.shared.poll_pending(key, cx.waker()) {
                Ok(true) => return Poll::Pending,
                Ok(false) => Ok(Registered::Due),
                Err(err) => Err(err),
            },
            State::Unregistered => {
                let from = if *this.from == UNKNOWN {
                    let now = this.handle.now();
                    if this.deadline.into_std() <= now {
                        *this.state = State::Elapsed;
                        return Poll::Ready(());
                    }
                    this.handle.tick_of(now)
                } else {
                    Tick(*this.from)
                };
                this.handle.before_register();
                this.handle
                    .shared
                    .register(this.deadline.into_std(), from, cx.waker())
            }
        };
        match result {
            Ok(Registered::Pending(key)) => {
                *this.state = State::Registered(key);
                Poll::Pending
            }
            Ok(Registered::Due) => {
                *this.state = State::Elapsed;
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
        self.poll_elapsed(cx)
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
