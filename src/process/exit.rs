//! How a [`Child`](super::Child) learns that its process exited.
//!
//! A *watch* is armed in the context of each wait, before the process is
//! checked, so an exit between the check and the wait is never missed:
//! - with a runtime's I/O driver entered and a pidfd (Linux 5.3): a
//!   duplicate of the pidfd registered with that driver, readable once the
//!   process exits;
//! - with a driver but no pidfd (an older kernel, or a sandbox refusing
//!   `pidfd_open`): a `SIGCHLD` listener (`crate::signal`);
//! - with no driver (awaited in another executor, or after its runtime was
//!   dropped): a timer, checking every 1 ms at first, then less often, up
//!   to every [`POLL_MAX`].
//!
//! A watch whose runtime has shut down is dropped and armed again in the
//! current context, so a child outlives the runtime it was spawned in.
//!
//! Ground rules: only [`Child`](super::Child) and its reaper reap (with
//! `try_wait`), and only here; a watch that fires early (another child's
//! `SIGCHLD`, a timer) just checks again.

use std::fmt;
use std::future::Future;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::pin::Pin;
use std::process::ExitStatus;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use mio::event::Source;
use mio::unix::SourceFd;
use mio::{Interest, Registry, Token};

use crate::runtime::io::{try_current, Direction, Registration};
use crate::signal::unix::{signal, Signal, SignalKind};
use crate::sys::pidfd::pidfd_open;
use crate::time::{sleep, Sleep};

/// The longest a timer watch waits between checks.
pub(super) const POLL_MAX: Duration = Duration::from_millis(100);

/// A duplicate of a process's pidfd, as registered with one driver.
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

/// What a wait is waiting on (see the module docs).
enum Watch {
    None,
    PidFd(Registration<PidFd>),
    Sigchld(Signal),
    Timer(Pin<Box<Sleep>>, Duration),
}

/// The exit watch of one child.
pub(super) struct Exit {
    /// `None` where the kernel gave none.
    pidfd: Option<OwnedFd>,
    watch: Watch,
}

impl Exit {
    /// Watches the just-spawned `child`, with a pidfd where there is one.
    pub(super) fn new(child: &std::process::Child) -> io::Result<Exit> {
        // `None` before Linux 5.3, or where a sandbox refuses it.
        let pidfd = pidfd_open(child.id())?;
        Ok(Exit {
            pidfd,
            watch: Watch::None,
        })
    }

    /// A watch with no pidfd: it falls back on `SIGCHLD` or a timer (and
    /// stands in for the watch a dropped child's reaper took).
    pub(super) fn without_pidfd() -> Exit {
        Exit {
            pidfd: None,
            watch: Watch::None,
        }
    }

    /// Polls until `child` has exited, and reaps it.
    pub(super) fn poll_exit(
        &mut self,
        cx: &mut Context<'_>,
        child: &mut std::process::Child,
    ) -> Poll<io::Result<ExitStatus>> {
        loop {
            if matches!(self.watch, Watch::None) {
                self.watch = self.arm()?;
            }
            match &mut self.watch {
                Watch::None => unreachable!("armed above"),
                Watch::PidFd(io) => match ready!(io.poll_ready(cx, Direction::Read)) {
                    Ok(event) => match child.try_wait()? {
                        Some(status) => return self.done(status),
                        // By the readiness rule: forget what this event
                        // said (unless another came) and wait again.
                        None => io.clear_readiness(event),
                    },
                    // Its runtime shut down: arm again where we are now.
                    Err(_) => self.watch = Watch::None,
                },
                Watch::Sigchld(listener) => {
                    if let Some(status) = child.try_wait()? {
                        return self.done(status);
                    }
                    if ready!(listener.poll_recv(cx)).is_none() {
                        self.watch = Watch::None; // its runtime shut down
                    }
                }
                Watch::Timer(timer, period) => {
                    if let Some(status) = child.try_wait()? {
                        return self.done(status);
                    }
                    ready!(timer.as_mut().poll(cx));
                    *period = (*period * 2).min(POLL_MAX);
                    let next = crate::time::Instant::now() + *period;
                    timer.as_mut().reset(next);
                }
            }
        }
    }

    /// A watch for the context this wait is polled in.
    fn arm(&self) -> io::Result<Watch> {
        let Some(driver) = try_current() else {
            let period = Duration::from_millis(1);
            return Ok(Watch::Timer(Box::pin(sleep(period)), period));
        };
        Ok(match &self.pidfd {
            Some(pidfd) => Watch::PidFd(Registration::with_driver(
                driver,
                PidFd(pidfd.try_clone()?),
                Interest::READABLE,
            )?),
            None => Watch::Sigchld(signal(SignalKind::child())?),
        })
    }

    fn done(&mut self, status: ExitStatus) -> Poll<io::Result<ExitStatus>> {
        self.watch = Watch::None;
        crate::coop::made_progress();
        Poll::Ready(Ok(status))
    }
}

impl fmt::Debug for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let watch = match self.watch {
            Watch::None => "none",
            Watch::PidFd(_) => "pidfd",
            Watch::Sigchld(_) => "SIGCHLD",
            Watch::Timer(..) => "timer",
        };
        f.debug_struct("Exit")
            .field("pidfd", &self.pidfd)
            .field("watch", &watch)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// Waits for `child` with `exit`.
    async fn wait(exit: &mut Exit, child: &mut std::process::Child) -> io::Result<ExitStatus> {
        std::future::poll_fn(|cx| exit.poll_exit(cx, child)).await
    }

    fn spawn(script: &str) -> std::process::Child {
        std::process::Command::new("sh")
            .args(["-c", script])
            .spawn()
            .unwrap()
    }

    /// Whether the kernel still knows `pid` (a zombie counts).
    fn exists(pid: u32) -> bool {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    }

    #[test]
    fn without_a_pidfd_sigchld_tells_of_the_exit_and_the_wait_reaps() {
        let rt = crate::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let mut child = spawn("sleep 0.05; exit 4");
            let mut exit = Exit::without_pidfd();
            let status = wait(&mut exit, &mut child).await.unwrap();
            assert_eq!(status.code(), Some(4));
            assert!(!exists(child.id()), "reaped");
        });
    }

    #[test]
    fn without_a_pidfd_a_wait_holds_no_thread_and_the_runtime_drops_at_once() {
        let rt = crate::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let mut long = spawn("exec sleep 30");
        let pid = long.id();
        rt.block_on(async {
            let mut exit = Exit::without_pidfd();
            // A wait given up on, then a short child waited for: not
            // queued behind the first.
            let waited =
                crate::time::timeout(Duration::from_millis(20), wait(&mut exit, &mut long)).await;
            assert!(waited.is_err());
            let start = Instant::now();
            let mut short = spawn("sleep 0.05");
            wait(&mut Exit::without_pidfd(), &mut short).await.unwrap();
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "{:?}",
                start.elapsed()
            );
            // The blocking pool is free.
            crate::task::spawn_blocking(|| ()).await.unwrap();
        });
        let start = Instant::now();
        drop(rt);
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        long.kill().unwrap();
        long.wait().unwrap();
        assert!(!exists(pid));
    }

    #[test]
    fn a_wait_moves_to_the_next_runtime_and_to_no_runtime_at_all() {
        for pidfd in [true, false] {
            let mut child = spawn("sleep 0.1; exit 3");
            let mut exit = if pidfd {
                Exit::new(&child).unwrap()
            } else {
                Exit::without_pidfd()
            };
            // Armed in a first runtime, which is then dropped.
            let first = crate::runtime::Runtime::new().unwrap();
            first.block_on(async {
                let early =
                    crate::time::timeout(Duration::from_millis(5), wait(&mut exit, &mut child))
                        .await;
                assert!(early.is_err());
            });
            drop(first);
            // Awaited in a second one.
            let mut again = spawn("sleep 0.05; exit 5");
            let second = crate::runtime::Runtime::new().unwrap();
            let status = second.block_on(wait(&mut exit, &mut child)).unwrap();
            assert_eq!(status.code(), Some(3));
            drop(second);
            // And with no runtime at all: a timer.
            let mut exit = Exit::without_pidfd();
            let status = futures_lite_block_on(wait(&mut exit, &mut again)).unwrap();
            assert_eq!(status.code(), Some(5));
        }
    }

    /// A minimal executor: no runtime entered on this thread.
    fn futures_lite_block_on<F: Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let thread = std::thread::current();
        let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(thread)));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
            std::thread::park();
        }
    }

    struct Unpark(std::thread::Thread);

    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
}
