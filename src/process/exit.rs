//! How a [`Child`](super::Child) learns that its process exited: a pidfd
//! registered with the runtime's I/O driver, or, where the kernel has no
//! pidfd, a blocking-pool thread that waits without reaping.
//!
//! Ground rules: only [`Child`](super::Child) reaps (with `try_wait`), and
//! only after one of these said the process may have exited; a spurious
//! report just waits again.

use std::fmt;
use std::future::Future;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use mio::event::Source;
use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};
use rustix::process::{Pid, PidfdFlags, WaitId, WaitIdOptions};

use crate::runtime::io::{Direction, Driver, Registration};
use crate::runtime::Handle;
use crate::task::JoinHandle;

/// A process's pidfd: readable once the process has exited.
pub(super) struct PidFd(OwnedFd);

impl Source for PidFd {
    fn register(
        &mut self,
        registry: &Registry,
        token: Token,
        interests: Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).register(registry, token, interests)
    }

    fn reregister(
        &mut self,
        registry: &Registry,
        token: Token,
        interests: Interest,
    ) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).reregister(registry, token, interests)
    }

    fn deregister(&mut self, registry: &Registry) -> io::Result<()> {
        SourceFd(&self.0.as_raw_fd()).deregister(registry)
    }
}

/// The exit watch of one child.
pub(super) enum Exit {
    /// Readable when the process exits.
    PidFd(Registration<PidFd>),
    /// No pidfd: a blocking-pool job waits for the exit (not reaping it),
    /// started on the first wait and again after a spurious return.
    Thread {
        runtime: Handle,
        pid: Pid,
        job: Option<JoinHandle<()>>,
    },
}

impl Exit {
    /// Watches the just-spawned `child`, registering with `driver`.
    pub(super) fn watch(child: &std::process::Child, driver: &Arc<Driver>) -> io::Result<Exit> {
        let pid = pid_of(child)?;
        match rustix::process::pidfd_open(pid, PidfdFlags::empty()) {
            Ok(fd) => Ok(Exit::PidFd(Registration::with_driver(
                driver.clone(),
                PidFd(fd),
                Interest::READABLE,
            )?)),
            // Before Linux 5.3, or refused by a sandbox's seccomp filter.
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => Ok(Exit::thread(pid)),
            Err(err) => Err(err.into()),
        }
    }

    /// The fallback watch of `pid` (see [`Exit::Thread`]), on the runtime
    /// entered here.
    fn thread(pid: Pid) -> Exit {
        Exit::Thread {
            runtime: Handle::current(),
            pid,
            job: None,
        }
    }

    /// Polls until `child` has exited, and reaps it.
    pub(super) fn poll_exit(
        &mut self,
        cx: &mut Context<'_>,
        child: &mut std::process::Child,
    ) -> Poll<io::Result<ExitStatus>> {
        match self {
            Exit::PidFd(io) => io.poll_io(cx, Direction::Read, |_| {
                child
                    .try_wait()?
                    .ok_or_else(|| io::ErrorKind::WouldBlock.into())
            }),
            Exit::Thread { runtime, pid, job } => loop {
                if let Some(status) = child.try_wait()? {
                    *job = None;
                    return Poll::Ready(Ok(status));
                }
                let pid = *pid;
                let waiting = job.get_or_insert_with(|| {
                    runtime.spawn_blocking(move || {
                        // Returns once the process has exited, leaving it
                        // to be reaped (an error, e.g. already reaped, just
                        // sends the poll back to `try_wait`).
                        let _ = rustix::process::waitid(
                            WaitId::Pid(pid),
                            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
                        );
                    })
                });
                let finished = ready!(Pin::new(waiting).poll(cx));
                *job = None;
                if let Err(err) = finished {
                    return Poll::Ready(Err(io::Error::other(format!(
                        "lawn_rt: waiting for a child process failed: {err}"
                    ))));
                }
            },
        }
    }
}

/// `child`'s process id as rustix takes it.
fn pid_of(child: &std::process::Child) -> io::Result<Pid> {
    i32::try_from(child.id())
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| io::Error::other("lawn_rt: a child process id out of range"))
}

impl fmt::Debug for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::PidFd(io) => f.debug_tuple("PidFd").field(&io.get_ref().0).finish(),
            Exit::Thread { pid, job, .. } => f
                .debug_struct("Thread")
                .field("pid", pid)
                .field("waiting", &job.is_some())
                .finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fallback where there is no pidfd: waits without a pidfd, on the
    /// blocking pool, and reaps.
    #[test]
    fn the_thread_fallback_waits_for_the_exit_and_reaps() {
        let rt = crate::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let mut child = std::process::Command::new("sh")
                .args(["-c", "sleep 0.05; exit 4"])
                .spawn()
                .unwrap();
            let mut exit = Exit::thread(pid_of(&child).unwrap());
            let status = std::future::poll_fn(|cx| exit.poll_exit(cx, &mut child))
                .await
                .unwrap();
            assert_eq!(status.code(), Some(4));
            // Reaped: the kernel no longer knows the pid as our child.
            let pid = pid_of(&child).unwrap();
            assert_eq!(
                rustix::process::waitid(WaitId::Pid(pid), WaitIdOptions::EXITED)
                    .map(|_| ())
                    .unwrap_err(),
                rustix::io::Errno::CHILD
            );
        });
    }
}
