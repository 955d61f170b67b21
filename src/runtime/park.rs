//! Where the runtime thread blocks: a `mio::Poll`, a `mio::Waker` other
//! threads use to wake it, and (on Linux) a timerfd for wake-ups at the
//! timer deadline itself (`crate::sys::park`; elsewhere the poll's own
//! timeout).
//!
//! epoll's own timeout counts whole milliseconds (mio rounds it up), so a
//! 200 µs sleep would wake a millisecond late. Instead the park arms a
//! timerfd (nanosecond resolution, no timer slack) for the deadline and
//! polls with no timeout; the timerfd's readiness ends the poll. It is armed
//! only when the deadline comes before the one it is armed for, so a busy
//! park loop costs one `epoll_wait` per turn, not two system calls.
//!
//! A timer wake-up is punctual: the timerfd is armed a learnt estimate of
//! the kernel's wake-up latency early and the last µs are spun (see
//! `crate::driver::punctual`): a lone `sleep(1 ms)` wakes a few µs late
//! instead of the kernel's wake-up latency, at no CPU `examples/server_load`
//! can tell from noise (docs/decisions/timer-slack.md).
//!
//! Ground rules: only the thread that holds the runtime's core parks;
//! [`Unpark`] is `Send + Sync` and may be used from anywhere.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::time::{Duration, Instant as StdInstant};

use mio::{Events, Poll, Token};

use super::io;
use super::EventCaps;
use crate::driver::punctual::{spin_until, Latency};
use crate::driver::WakeCause;
use crate::sys::park::TimerFd;

const WAKER: Token = Token(0);
const TIMER: Token = Token(1);

/// The blocking side, owned by the runtime's core.
pub(crate) struct Parker {
    poll: Poll,
    events: Events,
    /// A smaller buffer for the polls that do not wait (`None`: the same
    /// cap as `events`).
    busy_events: Option<Events>,
    /// The wake-up at a deadline (`None` where the platform has no
    /// timerfd: the poll's timeout wakes it, in whole milliseconds).
    timer: Option<Timer>,
    /// Where socket events go (`None`: I/O not enabled).
    io: Option<Arc<io::Driver>>,
    punctual: Punctual,
    /// Whether the last poll reported the timerfd.
    timer_fired: bool,
    /// Whether the last poll reported a socket's event, and the waker.
    io_seen: bool,
    woken: bool,
}

/// Punctual wake-ups (see `crate::driver::punctual`).
struct Punctual {
    latency: Latency,
    /// The instant the timerfd was armed to expire at, if armed early, and
    /// the wake-up it is for.
    armed: Option<(StdInstant, StdInstant)>,
}

/// Wakes the parked thread (or makes its next park return at once).
#[derive(Clone)]
pub(crate) struct Unpark(Arc<mio::Waker>);

impl Unpark {
    pub(crate) fn unpark(&self) {
        // Fails only if the eventfd is gone, i.e. the runtime is being torn
        // down: nobody is left to wake.
        let _ = self.0.wake();
    }
}

impl Parker {
    /// A parker, its unpark handle, and (if `enable_io`) the I/O driver
    /// whose sockets register with its poll; a poll takes at most
    /// `caps.idle` events, or `caps.busy` when it does not wait (the
    /// sockets' events that do not fit come with a later poll, as they are
    /// registered edge-triggered and stay on epoll's ready list until
    /// reported: a smaller cap never loses one).
    pub(crate) fn new(
        enable_io: bool,
        caps: EventCaps,
    ) -> std::io::Result<(Parker, Unpark, Option<Arc<io::Driver>>)> {
        let poll = Poll::new()?;
        let waker = Arc::new(mio::Waker::new(poll.registry(), WAKER)?);
        let timer = TimerFd::new(poll.registry(), TIMER)?.map(|fd| Timer { fd, armed: None });
        let io = match enable_io {
            true => Some(Arc::new(io::Driver::new(poll.registry().try_clone()?))),
            false => None,
        };
        let parker = Parker {
            poll,
            events: Events::with_capacity(caps.idle.max(1)),
            busy_events: (caps.busy != caps.idle).then(|| Events::with_capacity(caps.busy.max(1))),
            timer,
            io: io.clone(),
            punctual: Punctual {
                latency: Latency::new(),
                armed: None,
            },
            timer_fired: false,
            io_seen: false,
            woken: false,
        };
        Ok((parker, Unpark(waker), io))
    }

    /// Blocks until an unpark, an I/O event, or `until` (`None`: no
    /// deadline), an instant of a clock that reads `now` at present (the
    /// timer driver's, which runs ahead of `std`'s after a paused clock
    /// was advanced and resumed: `real` is false then, and the wake-up is
    /// not made punctual). `until` at or before `now` polls without
    /// blocking.
    pub(crate) fn park(&mut self, until: Option<StdInstant>, now: StdInstant, real: bool) {
        let Some(until) = until else {
            self.punctual.armed = None;
            return self.poll(None);
        };
        let Some(left) = until.checked_duration_since(now).filter(|d| !d.is_zero()) else {
            return self.poll(Some(Duration::ZERO));
        };
        let early = self.punctual.latency.early();
        if !real || self.timer.is_none() {
            // A clock that jumps (or no timerfd): wake at the deadline.
            self.punctual.armed = None;
            let (timeout, _) = self.arm(until, left);
            return self.poll(timeout);
        }
        if left <= early {
            // Sooner than the kernel could wake us: not worth a sleep.
            self.punctual.armed = None;
            self.poll(Some(Duration::ZERO));
            return spin_until(until);
        }
        let expiry = until - early;
        let (timeout, exact) = self.arm(expiry, left - early);
        // A wake-up kept from an earlier plan comes before this one's:
        // nothing to learn or spin for then.
        self.punctual.armed = exact.then_some((expiry, until));
        self.poll(timeout);
        if let Some((expiry, at)) = self.punctual.armed.take() {
            // Only a wake-up by the timerfd was for the deadline: an event
            // or an unpark before it has work to do now.
            if self.timer_fired {
                let woke = StdInstant::now();
                self.punctual.latency.learn(expiry, woke);
                if woke < at {
                    spin_until(at);
                }
            }
        }
    }

    /// Forgets which deadline the timerfd is armed for, so the next park
    /// re-arms it: needed when the clock the deadlines are read on has
    /// jumped (a paused clock advanced, then resumed).
    pub(crate) fn forget_armed(&mut self) {
        if let Some(timer) = &mut self.timer {
            timer.fired();
        }
    }

    /// Polls for events without blocking.
    pub(crate) fn poll_now(&mut self) {
        self.poll(Some(Duration::ZERO));
    }

    /// Why the last park woke, once it has fired `fired` timers (see
    /// `crate::driver::WakeCause`).
    pub(crate) fn wake_cause(&self, fired: usize) -> WakeCause {
        if fired > 0 {
            WakeCause::Timer
        } else if self.io_seen {
            WakeCause::Io
        } else if self.woken {
            WakeCause::Task
        } else {
            WakeCause::Nothing
        }
    }

    fn poll(&mut self, timeout: Option<Duration>) {
        self.timer_fired = false;
        self.io_seen = false;
        self.woken = false;
        // A poll that does not wait is a busy thread's: its own cap.
        let events = match (&mut self.busy_events, timeout) {
            (Some(busy), Some(wait)) if wait.is_zero() => busy,
            _ => &mut self.events,
        };
        if let Err(err) = self.poll.poll(events, timeout) {
            if err.kind() != std::io::ErrorKind::Interrupted {
                panic!("lawn_rt: the runtime's event loop failed to poll: {err}");
            }
        }
        // A socket's waker may panic: the events after it must still be
        // dispatched (edge-triggered: they would not come again), so the
        // first panic goes on only once all are.
        let mut panicked = None;
        for event in events.iter() {
            match event.token() {
                WAKER => self.woken = true,
                TIMER => {
                    if let Some(timer) = &mut self.timer {
                        timer.fired();
                    }
                    self.timer_fired = true;
                }
                _ => {
                    self.io_seen = true;
                    if let Some(io) = &self.io {
                        let dispatched =
                            panic::catch_unwind(AssertUnwindSafe(|| io.dispatch(event)));
                        if let Err(payload) = dispatched {
                            panicked.get_or_insert(payload);
                        }
                    }
                }
            }
        }
        if let Some(payload) = panicked {
            panic::resume_unwind(payload);
        }
    }

    /// Arranges a wake-up at `until` (`left` from now), or keeps an
    /// earlier one (see `Timer::arm`); returns the poll timeout to use
    /// and whether the wake-up is at `until` itself.
    fn arm(&mut self, until: StdInstant, left: Duration) -> (Option<Duration>, bool) {
        let Some(timer) = &mut self.timer else {
            // No timerfd: the poll's millisecond timeout.
            return (Some(left), true);
        };
        match timer.arm(until, left) {
            Ok(armed) => (None, armed == until),
            // Cannot arm: fall back to epoll's millisecond timeout.
            Err(_) => (Some(left), true),
        }
    }
}

/// The timerfd (`crate::sys::park`, registered with the poll under
/// `TIMER`) and the instant it is armed for.
struct Timer {
    fd: TimerFd,
    /// The instant it is armed for and has not yet reported.
    armed: Option<StdInstant>,
}

impl Timer {
    /// Arms it for `until`, unless it is armed for `until` or an earlier
    /// instant and has not reported that yet: that wake-up comes first,
    /// and the loop plans again then. A server's earliest timer changes on
    /// nearly every park (a request's timeout is cancelled, the next one's
    /// is later); keeping the wake-up planned for a timer since cancelled
    /// costs one empty turn when it comes, re-arming costs a system call
    /// on every park. Returns the instant it is armed for.
    fn arm(&mut self, until: StdInstant, left: Duration) -> std::io::Result<StdInstant> {
        if let Some(armed) = self.armed.filter(|&armed| armed <= until) {
            return Ok(armed);
        }
        self.fd.set(left)?;
        self.armed = Some(until);
        Ok(until)
    }

    fn fired(&mut self) {
        self.armed = None;
    }
}
