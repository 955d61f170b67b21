//! The park loop's wake-up at a deadline: a timerfd on Linux, none
//! elsewhere (see the contract in `sys/mod.rs`).

#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) use linux::TimerFd;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) use other::TimerFd;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::time::Duration;

    use mio::unix::SourceFd;
    use mio::{Interest, Registry, Token};
    use rustix::time::{
        timerfd_create, timerfd_settime, Itimerspec, TimerfdClockId, TimerfdFlags,
        TimerfdTimerFlags, Timespec,
    };

    /// A one-shot timerfd on `CLOCK_MONOTONIC` (the clock `Instant`
    /// reads), registered edge-triggered with a poll. Re-arming resets its
    /// count, so it is never read.
    pub(crate) struct TimerFd {
        fd: OwnedFd,
    }

    impl TimerFd {
        /// A timerfd registered, readable, with `registry` under `token`
        /// (never `None` here).
        pub(crate) fn new(registry: &Registry, token: Token) -> io::Result<Option<TimerFd>> {
            let fd = timerfd_create(
                TimerfdClockId::Monotonic,
                TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
            )?;
            registry.register(&mut SourceFd(&fd.as_raw_fd()), token, Interest::READABLE)?;
            Ok(Some(TimerFd { fd }))
        }

        /// Arms it to expire `left` from now, replacing any earlier
        /// arming; the expiry makes the poll report its token.
        pub(crate) fn set(&self, left: Duration) -> io::Result<()> {
            let value = Itimerspec {
                it_interval: Timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                },
                it_value: Timespec {
                    tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
                    tv_nsec: left.subsec_nanos().into(),
                },
            };
            timerfd_settime(&self.fd, TimerfdTimerFlags::empty(), &value)?;
            Ok(())
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod other {
    use std::io;
    use std::time::Duration;

    use mio::{Registry, Token};

    /// No timerfd here: no value of this type exists.
    pub(crate) enum TimerFd {}

    impl TimerFd {
        /// Always `None`: the caller wakes by the poll's timeout.
        pub(crate) fn new(_registry: &Registry, _token: Token) -> io::Result<Option<TimerFd>> {
            Ok(None)
        }

        pub(crate) fn set(&self, _left: Duration) -> io::Result<()> {
            match *self {}
        }
    }
}
