//! The process-wide side of signal delivery: one record per signal number
//! that has a handler, the handler itself, the socket pair it writes to, and
//! each I/O driver's registration of that socket's read end.
//!
//! How a signal reaches a listener:
//!
//! 1. The handler (installed once per signal number, for the rest of the
//!    process, through `signal-hook`'s safe registration) sets its record's
//!    `pending` flag, then writes one byte to the non-blocking write end of
//!    a Unix socket pair. Both are async-signal-safe: an atomic store and
//!    `send(2)`. A full socket buffer only drops the byte (the bytes already
//!    there still wake a reader), never the flag.
//! 2. Every I/O driver that has listeners has registered a duplicate of the
//!    read end (a [`Pipe`]), so the byte makes each such runtime's park loop
//!    wake, and its driver wakes the listeners waiting there.
//! 3. A woken listener drains the socket, then *broadcasts*: every record
//!    whose `pending` flag it takes bumps its delivery counter and wakes all
//!    its listeners, in whichever runtime they are. A listener has a
//!    message when the counter differs from the value it last saw.
//!
//! Ground rules:
//! - Nothing of ours runs in the handler: `signal-hook`'s two actions
//!   (registered by [`install`]) are all it does.
//! - `pending` is set before the byte is written, and a listener drains
//!   before it takes the flags: a flag it does not see is one whose byte it
//!   did not read either, and that byte wakes a listener again.
//! - A record's counter and wakers follow `slot.rs`'s rules (loom model
//!   22).
//! - Records are never removed (the handler holds them, and stays).

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use mio::Interest;

use super::slot::Slot;
use crate::runtime::io::{Direction, Driver, Registration};

/// What every signal shares: the socket pair, the records, the pipes.
struct Globals {
    /// The handler writes here (non-blocking).
    sender: UnixStream,
    /// Duplicated for each I/O driver's [`Pipe`] (non-blocking).
    receiver: UnixStream,
    /// The record of every signal number whose handler is installed.
    slots: Mutex<Vec<Arc<Slot>>>,
    /// The read end's registration with each I/O driver that has
    /// listeners (dead ones are pruned when a new one is made).
    pipes: Mutex<Vec<Weak<Pipe>>>,
}

/// The socket's read end, registered with one I/O driver.
pub(super) struct Pipe {
    io: Registration<mio::net::UnixStream>,
}

static GLOBALS: OnceLock<Globals> = OnceLock::new();

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing here panics while holding a lock, but a poisoned lock must
    // not take signal delivery down.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn globals() -> io::Result<&'static Globals> {
    if let Some(globals) = GLOBALS.get() {
        return Ok(globals);
    }
    let (receiver, sender) = UnixStream::pair().map_err(|err| {
        io::Error::new(
            err.kind(),
            format!("lawn_rt: cannot create the socket pair signals are delivered through: {err}"),
        )
    })?;
    receiver.set_nonblocking(true)?;
    sender.set_nonblocking(true)?;
    // Two threads may get here at once: the loser's pair is dropped, and no
    // handler ever saw it.
    Ok(GLOBALS.get_or_init(|| Globals {
        sender,
        receiver,
        slots: Mutex::new(Vec::new()),
        pipes: Mutex::new(Vec::new()),
    }))
}

/// The record of `signum`, installing the process's handler for it first
/// if this is the first listener of that signal ever.
///
/// # Errors
///
/// A number the OS refuses (or `signal-hook` does: see
/// [`signal_hook::consts::FORBIDDEN`]); the socket pair cannot be made.
pub(super) fn slot(signum: i32, name: &str) -> io::Result<Arc<Slot>> {
    if signum <= 0 {
        return Err(io::Error::other(format!(
            "lawn_rt: cannot listen for signal {signum}: not a signal number (they start at 1)"
        )));
    }
    if signal_hook::consts::FORBIDDEN.contains(&signum) {
        return Err(io::Error::other(format!(
            "lawn_rt: refusing to listen for signal {signum}{name}: a process cannot catch \
             SIGKILL or SIGSTOP, and SIGSEGV, SIGILL and SIGFPE (raised by a faulting \
             instruction) cannot be handled by resuming the program"
        )));
    }
    let globals = globals()?;
    let mut slots = lock(&globals.slots);
    if let Some(slot) = slots.iter().find(|slot| slot.signum() == signum) {
        return Ok(slot.clone());
    }
    let slot = Arc::new(Slot::new(signum));
    install(signum, slot.pending(), &globals.sender).map_err(|err| {
        io::Error::new(
            err.kind(),
            format!("lawn_rt: cannot install a handler for signal {signum}{name}: {err}"),
        )
    })?;
    slots.push(slot.clone());
    Ok(slot)
}

/// Installs the process's handler for `signum` (chained after any handler
/// installed before, kept for the rest of the process): it sets `pending`,
/// then writes a byte to (a duplicate of) `sender`, without blocking. Both
/// actions are async-signal-safe, and `signal-hook` registers them without
/// `unsafe` of ours; they run in the order registered, so a reader woken
/// by the byte finds the flag set. Forbidden signals (which the registry
/// would panic on) are refused by the caller first.
fn install(signum: i32, pending: &Arc<AtomicBool>, sender: &UnixStream) -> io::Result<()> {
    signal_hook::flag::register(signum, pending.clone())?;
    signal_hook::low_level::pipe::register(signum, sender.try_clone()?)?;
    Ok(())
}

/// Takes every pending flag: bumps those records' counters and wakes their
/// listeners. Called by a listener after it drained the socket.
pub(super) fn broadcast() {
    let Some(globals) = GLOBALS.get() else {
        return;
    };
    let mut woken = Vec::new();
    for slot in lock(&globals.slots).iter() {
        slot.take_pending(&mut woken);
    }
    for waker in woken {
        waker.wake();
    }
}

/// The socket's read end as registered with `driver`: the one its other
/// listeners use, or a new registration.
///
/// # Errors
///
/// If the descriptor cannot be duplicated or registered (the driver has
/// shut down, say).
pub(super) fn pipe(driver: Arc<Driver>) -> io::Result<Arc<Pipe>> {
    let globals = globals()?;
    let mut pipes = lock(&globals.pipes);
    let mut found = None;
    pipes.retain(|weak| match weak.upgrade() {
        Some(pipe) => {
            if found.is_none() && Arc::ptr_eq(pipe.io.driver(), &driver) {
                found = Some(pipe);
            }
            true
        }
        None => false,
    });
    if let Some(pipe) = found {
        return Ok(pipe);
    }
    let source = mio::net::UnixStream::from_std(globals.receiver.try_clone()?);
    let io = Registration::with_driver(driver, source, Interest::READABLE)?;
    let pipe = Arc::new(Pipe { io });
    pipes.push(Arc::downgrade(&pipe));
    Ok(pipe)
}

impl Pipe {
    /// Waits until the socket is readable, then drains it; completes once
    /// it read at least one byte (a signal may have come: broadcast). Fails
    /// only once the driver has shut down.
    pub(super) async fn drained(self: Arc<Self>) -> io::Result<()> {
        self.io.async_io(Direction::Read, drain).await
    }
}

/// Reads everything there is; `WouldBlock` if that was nothing.
fn drain(mut socket: &mio::net::UnixStream) -> io::Result<()> {
    let mut buf = [0; 64];
    let mut read_any = false;
    loop {
        match socket.read(&mut buf) {
            // The write end is never closed; this cannot happen.
            Ok(0) => return Ok(()),
            Ok(_) => read_any = true,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) if err.kind() == io::ErrorKind::WouldBlock && read_any => return Ok(()),
            Err(err) => return Err(err),
        }
    }
}
