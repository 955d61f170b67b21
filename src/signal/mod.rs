//! Asynchronous signal handling; like `tokio::signal` (Unix only).
//!
//! [`ctrl_c`] waits for the next ctrl-c (`SIGINT`); [`unix::signal`] makes
//! a listener for any catchable signal.
//!
//! ```
//! use lawn_rt::signal::unix::{signal, SignalKind};
//!
//! #[lawn_rt::main]
//! async fn main() -> std::io::Result<()> {
//!     let mut reload = signal(SignalKind::hangup())?;
//!     let worker = lawn_rt::spawn(async move {
//!         // A service reloading its configuration on SIGHUP.
//!         reload.recv().await.map(|()| "reloaded")
//!     });
//!     std::process::Command::new("kill")
//!         .args(["-HUP", &std::process::id().to_string()])
//!         .status()?;
//!     assert_eq!(worker.await.unwrap(), Some("reloaded"));
//!     Ok(())
//! }
//! ```
//!
//! # How signals are delivered
//!
//! The first listener of a signal installs a handler for it (through
//! `signal-hook` and its registry, so it chains with handlers other libraries
//! install), which stays for the rest of the process. The handler only
//! flags the signal and writes a byte to a socket; each runtime that has
//! listeners watches that socket with its own I/O driver (the `mio::Poll`
//! its park loop blocks in), so a parked runtime wakes. A woken listener
//! drains the socket and tells every listener of every flagged signal, in
//! every runtime. Listeners need a runtime with I/O enabled.
//!
//! Signals coalesce: each `recv` stands for one or more deliveries. A
//! signal that arrives after a listener was made is never lost for it.

#[cfg(not(loom))]
mod registry;
mod slot;
#[cfg(not(loom))]
pub mod unix;

#[cfg(loom)]
#[doc(hidden)]
pub use slot::model;

#[cfg(not(loom))]
use std::future::Future;
#[cfg(not(loom))]
use std::io;
#[cfg(not(loom))]
use std::panic::Location;

/// Waits for the next ctrl-c: `SIGINT`, sent by the terminal (or by
/// `kill -INT`); like `tokio::signal::ctrl_c`.
///
/// The listener is made when the returned future is first polled (not
/// when `ctrl_c` is called), and the future completes at the first `SIGINT`
/// after that. As with [`unix::signal`], the first listener installs a
/// handler that stays: from then on ctrl-c no longer terminates the
/// process by itself.
///
/// # Errors
///
/// If the handler cannot be installed, or the runtime shuts down before a
/// ctrl-c comes.
///
/// # Panics
///
/// When first polled outside a `lawn_rt` runtime with I/O enabled; the
/// message names the line that called `ctrl_c`.
///
/// # Examples
///
/// ```
/// use lawn_rt::time::{timeout, Duration};
///
/// let rt = lawn_rt::runtime::Runtime::new()?;
/// rt.block_on(async {
///     let mut ctrl_c = std::pin::pin!(lawn_rt::signal::ctrl_c());
///     // Its first poll makes the listener; no ctrl-c yet.
///     assert!(timeout(Duration::ZERO, &mut ctrl_c).await.is_err());
///     std::process::Command::new("kill")
///         .args(["-INT", &std::process::id().to_string()])
///         .status()?;
///     ctrl_c.await // completes: the process goes on
/// })?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[cfg(not(loom))]
#[track_caller]
pub fn ctrl_c() -> impl Future<Output = io::Result<()>> + Send + Sync + 'static {
    let caller = Location::caller();
    async move {
        let mut listener =
            unix::signal_for(unix::SignalKind::interrupt(), "signal::ctrl_c", caller)?;
        match listener.recv().await {
            Some(()) => Ok(()),
            None => Err(io::Error::other(
                "lawn_rt: the runtime shut down while `signal::ctrl_c` was waiting",
            )),
        }
    }
}
