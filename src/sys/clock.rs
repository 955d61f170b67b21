//! The kernel's clocks in nanoseconds, for the driver's coarse tick bounds
//! (see the contract in `sys/mod.rs`). Linux and Android read them through
//! rustix (and glibc's vDSO); elsewhere, and under loom, every read is
//! `None`.

#[cfg(all(any(target_os = "linux", target_os = "android"), not(loom)))]
mod imp {
    use rustix::time::{clock_getres, clock_gettime, ClockId, Timespec};

    /// `CLOCK_MONOTONIC` (the clock `std::time::Instant` reads), in ns.
    #[inline]
    pub(crate) fn monotonic_ns() -> Option<u64> {
        nanos(clock_gettime(ClockId::Monotonic))
    }

    /// `CLOCK_MONOTONIC_COARSE`: `CLOCK_MONOTONIC` as of the kernel's last
    /// timekeeping update, in ns (a few ns to read).
    #[inline]
    pub(crate) fn coarse_ns() -> Option<u64> {
        nanos(clock_gettime(ClockId::MonotonicCoarse))
    }

    /// The resolution of `CLOCK_MONOTONIC_COARSE` (`clock_getres`), in ns.
    pub(crate) fn coarse_resolution_ns() -> Option<u64> {
        nanos(clock_getres(ClockId::MonotonicCoarse))
    }

    /// A timespec in ns (`None` if negative or past `u64`).
    #[inline]
    fn nanos(t: Timespec) -> Option<u64> {
        u64::try_from(t.tv_sec)
            .ok()?
            .checked_mul(1_000_000_000)?
            .checked_add(u64::try_from(t.tv_nsec).ok()?)
    }
}

#[cfg(not(all(any(target_os = "linux", target_os = "android"), not(loom))))]
mod imp {
    /// No clock to relate to a coarse one here.
    #[inline]
    pub(crate) fn monotonic_ns() -> Option<u64> {
        None
    }

    /// No coarse clock here.
    #[inline]
    pub(crate) fn coarse_ns() -> Option<u64> {
        None
    }

    /// No coarse clock here.
    pub(crate) fn coarse_resolution_ns() -> Option<u64> {
        None
    }
}

pub(crate) use imp::{coarse_ns, coarse_resolution_ns, monotonic_ns};
