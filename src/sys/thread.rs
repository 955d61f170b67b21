//! The calling thread's timer slack (see the contract in `sys/mod.rs`).

use std::io;
use std::num::NonZeroU64;

/// Sets how late the calling thread's timed waits may end, in ns: Linux's
/// `prctl(PR_SET_TIMERSLACK)`; elsewhere an `Unsupported` error.
pub(crate) fn set_timer_slack(ns: NonZeroU64) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        Ok(rustix::thread::set_current_timer_slack(Some(ns))?)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = ns;
        Err(io::ErrorKind::Unsupported.into())
    }
}
