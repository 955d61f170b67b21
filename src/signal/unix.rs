//! Unix signals: [`signal`] makes a [`Signal`] listener for a
//! [`SignalKind`]; like `tokio::signal::unix`.
//!
//! ```
//! use lawn_rt::signal::unix::{signal, SignalKind};
//!
//! let rt = lawn_rt::runtime::Runtime::new()?;
//! rt.block_on(async {
//!     let mut hangups = signal(SignalKind::hangup())?;
//!     // Someone sends SIGHUP to this process (here: itself).
//!     std::process::Command::new("kill")
//!         .args(["-HUP", &std::process::id().to_string()])
//!         .status()?;
//!     hangups.recv().await;
//!     Ok::<_, std::io::Error>(())
//! })?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;
use std::future::Future;
use std::io;
use std::os::raw::c_int;
use std::panic::{Location, RefUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::registry::{self, Pipe};
use super::slot::Slot;
use crate::runtime::context;
use crate::sys::signal::{
    SIGALRM, SIGCHLD, SIGHUP, SIGINT, SIGIO, SIGPIPE, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH,
};

/// A kind of signal to listen for: a signal number; like
/// `tokio::signal::unix::SignalKind`.
///
/// The named constructors cover the common signals; [`from_raw`] takes any
/// number (a real-time signal, say), which [`signal`] checks.
///
/// [`from_raw`]: SignalKind::from_raw
///
/// # Examples
///
/// ```
/// use lawn_rt::signal::unix::SignalKind;
///
/// assert_eq!(SignalKind::interrupt().as_raw_value(), 2); // SIGINT
/// assert_eq!(SignalKind::from_raw(15), SignalKind::terminate());
/// let raw: i32 = SignalKind::hangup().into();
/// assert_eq!(raw, 1);
/// ```
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub struct SignalKind(c_int);

impl SignalKind {
    /// The signal numbered `signum` (the platform's number, as in
    /// `libc::SIGRTMIN() + 1`). Any number is accepted here; [`signal`]
    /// refuses those that cannot be listened for.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// let kind = SignalKind::from_raw(libc::SIGUSR1);
    /// assert_eq!(kind, SignalKind::user_defined1());
    /// ```
    pub const fn from_raw(signum: c_int) -> SignalKind {
        SignalKind(signum)
    }

    /// The signal's number.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::terminate().as_raw_value(), libc::SIGTERM);
    /// ```
    pub const fn as_raw_value(&self) -> c_int {
        self.0
    }

    /// `SIGALRM`: a timer set with `alarm(2)` or `setitimer(2)` expired.
    /// Terminates the process unless handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::alarm().as_raw_value(), libc::SIGALRM);
    /// ```
    pub const fn alarm() -> SignalKind {
        SignalKind(SIGALRM)
    }

    /// `SIGCHLD`: a child process stopped, resumed or exited. Ignored
    /// unless handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::child().as_raw_value(), libc::SIGCHLD);
    /// ```
    pub const fn child() -> SignalKind {
        SignalKind(SIGCHLD)
    }

    /// `SIGHUP`: the controlling terminal went away; daemons often take it
    /// as "reload the configuration". Terminates the process unless
    /// handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::hangup().as_raw_value(), libc::SIGHUP);
    /// ```
    pub const fn hangup() -> SignalKind {
        SignalKind(SIGHUP)
    }

    /// `SIGINT`: an interrupt from the terminal (ctrl-c). Terminates the
    /// process unless handled; see also [`ctrl_c`](crate::signal::ctrl_c).
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::interrupt().as_raw_value(), libc::SIGINT);
    /// ```
    pub const fn interrupt() -> SignalKind {
        SignalKind(SIGINT)
    }

    /// `SIGIO` (`SIGPOLL`): a descriptor set up for signal-driven I/O is
    /// ready. Ignored or terminating unless handled, depending on the
    /// platform.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::io().as_raw_value(), libc::SIGIO);
    /// ```
    pub const fn io() -> SignalKind {
        SignalKind(SIGIO)
    }

    /// `SIGPIPE`: a write to a pipe or socket nobody reads any more. Rust
    /// programs ignore it from the start (the write fails with
    /// `BrokenPipe` instead); listening for it makes it arrive here.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::pipe().as_raw_value(), libc::SIGPIPE);
    /// ```
    pub const fn pipe() -> SignalKind {
        SignalKind(SIGPIPE)
    }

    /// `SIGQUIT`: a quit request from the terminal (ctrl-\\). Terminates
    /// the process with a core dump unless handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::quit().as_raw_value(), libc::SIGQUIT);
    /// ```
    pub const fn quit() -> SignalKind {
        SignalKind(SIGQUIT)
    }

    /// `SIGTERM`: a polite request to terminate (what `kill` and service
    /// managers send first). Terminates the process unless handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::terminate().as_raw_value(), libc::SIGTERM);
    /// ```
    pub const fn terminate() -> SignalKind {
        SignalKind(SIGTERM)
    }

    /// `SIGUSR1`: for the application's own use. Terminates the process
    /// unless handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::user_defined1().as_raw_value(), libc::SIGUSR1);
    /// ```
    pub const fn user_defined1() -> SignalKind {
        SignalKind(SIGUSR1)
    }

    /// `SIGUSR2`: for the application's own use. Terminates the process
    /// unless handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::user_defined2().as_raw_value(), libc::SIGUSR2);
    /// ```
    pub const fn user_defined2() -> SignalKind {
        SignalKind(SIGUSR2)
    }

    /// `SIGWINCH`: the terminal window changed size. Ignored unless
    /// handled.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::SignalKind;
    ///
    /// assert_eq!(SignalKind::window_change().as_raw_value(), libc::SIGWINCH);
    /// ```
    pub const fn window_change() -> SignalKind {
        SignalKind(SIGWINCH)
    }

    /// The usual name of the signal (`" (SIGINT)"`), for messages; empty
    /// for a number without a constructor here.
    fn describe(self) -> &'static str {
        match self.0 {
            SIGHUP => " (SIGHUP)",
            SIGINT => " (SIGINT)",
            SIGQUIT => " (SIGQUIT)",
            SIGPIPE => " (SIGPIPE)",
            SIGALRM => " (SIGALRM)",
            SIGTERM => " (SIGTERM)",
            SIGUSR1 => " (SIGUSR1)",
            SIGUSR2 => " (SIGUSR2)",
            SIGCHLD => " (SIGCHLD)",
            SIGWINCH => " (SIGWINCH)",
            SIGIO => " (SIGIO)",
            _ => "",
        }
    }
}

impl From<c_int> for SignalKind {
    fn from(signum: c_int) -> SignalKind {
        SignalKind::from_raw(signum)
    }
}

impl From<SignalKind> for c_int {
    fn from(kind: SignalKind) -> c_int {
        kind.as_raw_value()
    }
}

/// The pipe-draining future a listener keeps between polls.
type Drained = Pin<Box<dyn Future<Output = io::Result<()>> + Send + Sync + RefUnwindSafe>>;

/// A listener for one kind of signal; like `tokio::signal::unix::Signal`.
/// Made by [`signal`].
///
/// Each [`recv`](Signal::recv) completes once for *one or more* deliveries
/// of the signal since the previous one completed (or since the listener
/// was made): signals that come in quick succession may be merged, by the
/// OS or here, but one that arrives after the listener was made is never
/// lost, even if nobody was polling then. Every listener of a signal hears
/// it, in whichever runtime it was made.
///
/// # Caveats
///
/// The first listener of a signal installs a handler for it that stays for
/// the rest of the process, also once every listener is dropped: the
/// signal's default action (terminating the process, for most) no longer
/// happens. A program that wants it back must act itself (say, exit after
/// receiving the signal).
///
/// # Examples
///
/// ```
/// use lawn_rt::signal::unix::{signal, SignalKind};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let mut first = signal(SignalKind::user_defined1())?;
///     let mut second = signal(SignalKind::user_defined1())?;
///     std::process::Command::new("kill")
///         .args(["-USR1", &std::process::id().to_string()])
///         .status()?;
///     // Both listeners hear it.
///     assert_eq!(first.recv().await, Some(()));
///     assert_eq!(second.recv().await, Some(()));
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[must_use = "a signal listener does nothing unless `recv` is awaited"]
pub struct Signal {
    kind: SignalKind,
    slot: Arc<Slot>,
    /// The signal's delivery counter as this listener last saw it.
    seen: u64,
    /// This listener's key among the signal's wakers.
    waiter: u64,
    /// The socket's read end as registered with the I/O driver this
    /// listener was made in.
    pipe: Arc<Pipe>,
    /// A drain in progress (waiting for the socket's readiness).
    drained: Option<Drained>,
    /// The I/O driver has shut down: nothing more will come.
    closed: bool,
}

/// A listener for signal `kind` in the current runtime; like
/// `tokio::signal::unix::signal`.
///
/// The first listener of a kind installs the process's handler for it (see
/// [`Signal`]'s caveats). Any number of listeners of one kind may exist,
/// in one runtime or several; each hears every signal that arrives after
/// it was made.
///
/// # Errors
///
/// If `kind` cannot be listened for: not a signal number (0 or negative),
/// one the OS does not let a process catch (`SIGKILL`, `SIGSTOP`), one
/// raised by a faulting instruction (`SIGSEGV`, `SIGILL`, `SIGFPE`), or a
/// number the OS does not know. Also if the runtime's I/O driver has shut
/// down, or the descriptors signals are delivered through cannot be made.
///
/// # Panics
///
/// Outside a `lawn_rt` runtime, or in one built without I/O (as tokio's
/// panics without its signal driver), with a message saying so at the
/// caller's line.
///
/// # Examples
///
/// ```
/// use lawn_rt::signal::unix::{signal, SignalKind};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let mut terminate = signal(SignalKind::terminate())?;
///     std::process::Command::new("kill")
///         .args(["-TERM", &std::process::id().to_string()])
///         .status()?;
///     terminate.recv().await; // and not terminated
///
///     // SIGKILL cannot be caught: an error, not a panic.
///     let err = signal(SignalKind::from_raw(9)).unwrap_err();
///     assert!(err.to_string().contains("SIGKILL"));
///     Ok::<_, std::io::Error>(())
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[track_caller]
pub fn signal(kind: SignalKind) -> io::Result<Signal> {
    signal_for(kind, "signal::unix::signal", Location::caller())
}

/// [`signal`], for `what` called at `caller`.
#[track_caller]
pub(super) fn signal_for(
    kind: SignalKind,
    what: &str,
    caller: &'static Location<'static>,
) -> io::Result<Signal> {
    let driver = match context::io() {
        Some(context::Io::Driver(driver)) => driver,
        Some(context::Io::Disabled) => panic!(
            "lawn_rt: `{what}` (called at {caller}) needs the runtime's I/O driver, which \
             delivers signals, but this runtime was built without it; call `enable_io()` or \
             `enable_all()` on its `Builder`"
        ),
        None => panic!(
            "lawn_rt: `{what}` (called at {caller}) needs a lawn_rt runtime with I/O enabled: \
             call it inside `Runtime::block_on`, a spawned task, or after `Runtime::enter`"
        ),
    };
    let slot = registry::slot(kind.0, kind.describe())?;
    let pipe = registry::pipe(driver)?;
    Ok(Signal {
        kind,
        seen: slot.delivered(),
        waiter: slot.new_waiter(),
        slot,
        pipe,
        drained: None,
        closed: false,
    })
}

impl Signal {
    /// Waits for the signal: completes with `Some(())` once it has been
    /// delivered (one or more times) since the last `recv` completed or
    /// since the listener was made.
    ///
    /// `None` once the runtime this listener was made in has shut down (no
    /// signal can reach it any more); tokio's never returns `None`, and
    /// never completes then.
    ///
    /// # Cancel safety
    ///
    /// Cancel safe: a signal that arrives while a `recv` future is dropped
    /// unfinished is received by the next one.
    ///
    /// # Examples
    ///
    /// ```
    /// use lawn_rt::signal::unix::{signal, SignalKind};
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// rt.block_on(async {
    ///     let mut sig = signal(SignalKind::user_defined2())?;
    ///     for _ in 0..2 {
    ///         std::process::Command::new("kill")
    ///             .args(["-USR2", &std::process::id().to_string()])
    ///             .status()?;
    ///         assert_eq!(sig.recv().await, Some(()));
    ///     }
    ///     Ok::<_, std::io::Error>(())
    /// })?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub async fn recv(&mut self) -> Option<()> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the signal, outside an `async fn`: `Ready(Some(()))` once
    /// it has been delivered since the last `Ready`, `Ready(None)` once the
    /// runtime has shut down (see [`recv`](Signal::recv)), else `Pending`
    /// (the task is woken when it comes).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::future::Future;
    /// use std::pin::Pin;
    /// use std::task::{Context, Poll};
    /// use lawn_rt::signal::unix::{signal, Signal, SignalKind};
    ///
    /// /// Counts hang-ups until the first window change.
    /// struct Watch {
    ///     hangup: Signal,
    ///     winch: Signal,
    ///     hangups: u32,
    /// }
    ///
    /// impl Future for Watch {
    ///     type Output = u32;
    ///
    ///     fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
    ///         while let Poll::Ready(Some(())) = self.hangup.poll_recv(cx) {
    ///             self.hangups += 1;
    ///         }
    ///         match self.winch.poll_recv(cx) {
    ///             Poll::Ready(_) => Poll::Ready(self.hangups),
    ///             Poll::Pending => Poll::Pending,
    ///         }
    ///     }
    /// }
    ///
    /// let rt = lawn_rt::runtime::Runtime::new()?;
    /// let hangups = rt.block_on(async {
    ///     let watch = Watch {
    ///         hangup: signal(SignalKind::hangup())?,
    ///         winch: signal(SignalKind::window_change())?,
    ///         hangups: 0,
    ///     };
    ///     let kill = |sig: &str| {
    ///         std::process::Command::new("kill")
    ///             .args([sig, &std::process::id().to_string()])
    ///             .status()
    ///     };
    ///     kill("-HUP")?;
    ///     kill("-WINCH")?;
    ///     Ok::<_, std::io::Error>(watch.await)
    /// })?;
    /// assert!(hangups <= 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        loop {
            if self
                .slot
                .poll_delivered(&mut self.seen, self.waiter, cx.waker())
            {
                return Poll::Ready(Some(()));
            }
            if self.closed {
                return Poll::Ready(None);
            }
            // Wait for the socket the handler writes to: whoever drains it
            // broadcasts, waking every listener (this one, too, if its
            // signal came).
            let drained = self
                .drained
                .get_or_insert_with(|| Box::pin(self.pipe.clone().drained()));
            let result = std::task::ready!(drained.as_mut().poll(cx));
            self.drained = None;
            if result.is_err() {
                // The driver shut down: deliver what already came, then
                // `None`.
                self.closed = true;
            }
            registry::broadcast();
        }
    }
}

impl Drop for Signal {
    fn drop(&mut self) {
        self.slot.forget(self.waiter);
    }
}

impl fmt::Debug for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signal")
            .field("kind", &self.kind)
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}
