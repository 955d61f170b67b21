//! [`Timeout`], [`timeout`] and [`timeout_at`].

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::coop;
use crate::time::error::Elapsed;
use crate::time::{sleep, sleep_until, Instant, Sleep};

/// Requires `future` to complete within `duration`; like
/// `tokio::time::timeout`.
///
/// The inner future is polled first on every poll, so one that is ready at
/// the deadline wins. The timer registers on the first poll and is
/// cancelled in O(1) when the `Timeout` is dropped or the future completes
/// and the `Timeout` is dropped: the request-timeout pattern, where almost
/// no timeout fires, costs one append and one unlink.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{timeout, Duration};
///
/// futures::executor::block_on(async {
///     assert_eq!(timeout(Duration::from_secs(1), async { 7 }).await, Ok(7));
///     let slow = std::future::pending::<()>();
///     assert!(timeout(Duration::from_millis(5), slow).await.is_err());
/// });
/// ```
///
/// # Cancel safety
///
/// Dropping the `Timeout` drops the inner future and cancels the timer.
#[track_caller]
#[inline(always)]
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    Timeout::new(future.into_future(), sleep(duration))
}

/// Requires `future` to complete before `deadline`; like
/// `tokio::time::timeout_at`.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{timeout_at, Duration, Instant};
///
/// futures::executor::block_on(async {
///     let deadline = Instant::now() + Duration::from_millis(5);
///     let result = timeout_at(deadline, std::future::pending::<()>()).await;
///     assert!(result.is_err() && Instant::now() >= deadline);
/// });
/// ```
///
/// # Cancel safety
///
/// As for [`timeout`].
#[track_caller]
#[inline(always)]
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    Timeout::new(future.into_future(), sleep_until(deadline))
}

pin_project_lite::pin_project! {
    /// The future [`timeout`] and [`timeout_at`] return: the inner future's
    /// output, or [`Elapsed`] if the deadline came first.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::time::{timeout, Duration};
    ///
    /// let mut t = timeout(Duration::from_secs(1), async { "done" });
    /// let _inner: &mut _ = t.get_mut();
    /// assert_eq!(futures::executor::block_on(t), Ok("done"));
    /// ```
    #[must_use = "futures do nothing unless you `.await` or poll them"]
    #[derive(Debug)]
    pub struct Timeout<T> {
        #[pin]
        value: T,
        #[pin]
        delay: Sleep,
    }
}

impl<T> Timeout<T> {
    #[inline]
    fn new(value: T, delay: Sleep) -> Timeout<T> {
        Timeout { value, delay }
    }

    /// The inner future.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = lawn_rt::time::timeout(lawn_rt::time::Duration::from_secs(1), std::future::ready(3));
    /// let _inner: &std::future::Ready<i32> = t.get_ref();
    /// ```
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The inner future, mutably.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut t = lawn_rt::time::timeout(lawn_rt::time::Duration::from_secs(1), std::future::ready(3));
    /// let _inner: &mut std::future::Ready<i32> = t.get_mut();
    /// ```
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Gives the inner future back, cancelling the timeout.
    ///
    /// # Examples
    ///
    /// ```
    /// let t = lawn_rt::time::timeout(lawn_rt::time::Duration::from_secs(1), std::future::ready(3));
    /// assert_eq!(futures::executor::block_on(t.into_inner()), 3);
    /// ```
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: Future> Future for Timeout<T> {
    type Output = Result<T::Output, Elapsed>;

    /// # Panics
    ///
    /// If the timer's driver has shut down, as [`Sleep`] does.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let had_budget = coop::has_budget_left();
        if let Poll::Ready(output) = this.value.poll(cx) {
            return Poll::Ready(Ok(output));
        }
        let poll_delay = || this.delay.poll(cx).map(|()| Err(Elapsed::new()));
        if had_budget && !coop::has_budget_left() {
            // The inner future spent the budget: the deadline must still be
            // seen, or a busy inner future would never time out.
            coop::with_budget(None, poll_delay)
        } else {
            poll_delay()
        }
    }
}
