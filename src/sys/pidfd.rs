//! A descriptor for a child process that turns readable once it exits
//! (see the contract in `sys/mod.rs`).

use std::io;
use std::os::fd::OwnedFd;

/// A pidfd for the process `pid` (`pidfd_open(2)`, Linux 5.3); `Ok(None)`
/// where the kernel gives none, and elsewhere.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn pidfd_open(pid: u32) -> io::Result<Option<OwnedFd>> {
    use rustix::process::{Pid, PidfdFlags};

    let pid = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::other("lawn_rt: a child process id out of range"))?;
    match rustix::process::pidfd_open(pid, PidfdFlags::empty()) {
        Ok(fd) => Ok(Some(fd)),
        // Before Linux 5.3, or refused by a sandbox's seccomp filter.
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

/// No pidfds here (`process` is Linux and Android only for now).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
#[allow(dead_code)]
pub(crate) fn pidfd_open(_pid: u32) -> io::Result<Option<OwnedFd>> {
    Ok(None)
}
