//! The engine behind [`Stdin`](super::Stdin), [`Stdout`](super::Stdout) and
//! [`Stderr`](super::Stderr): each blocking `std::io` call runs on the
//! blocking pool of the runtime that polls the handle.
//!
//! Ground rules:
//! - A handle has at most one operation in flight. Its `JoinHandle` is the
//!   `Busy` state and owns the handle's buffer until the operation ends;
//!   every operation first waits for the one in flight. So one handle's
//!   operations reach the stream in the order they were asked for.
//! - A write copies up to [`MAX_BUF`] bytes into the buffer and returns at
//!   once; the blocking `write_all` runs afterwards, under std's lock of
//!   the stream, so it is not interleaved with other writes of the
//!   process. Its error is returned by the handle's next write or flush.
//! - A read asks std for at most the caller's length (and [`MAX_BUF`]);
//!   what the caller has no room for is handed out by the next reads.
//! - The runtime is looked up when an operation starts (the one entered
//!   on the polling thread), never when the handle is made: a handle may
//!   be made anywhere, as with tokio.
//! - No locks of our own: every operation takes `&mut self`. A panic can
//!   only come before the state changes (no runtime) or from the blocking
//!   call itself (passed on by `poll_done`), so the state stays whole:
//!   that is why the `JoinHandle` may be asserted unwind safe.

use std::fmt;
use std::future::Future;
use std::io::{self, Read, Write};
use std::panic::{AssertUnwindSafe, Location};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use crate::runtime::io::shut_down_error_saying;
use crate::runtime::Handle;
use crate::task::JoinHandle;

/// The error of an operation started after the runtime's shutdown.
const REFUSED: &str = "lawn_rt: the runtime has shut down: a standard stream's blocking read, \
    write or flush cannot start on its pool";

/// The most one blocking read or write moves (tokio's figure).
pub(super) const MAX_BUF: usize = 2 * 1024 * 1024;

/// How much of `src` one write takes: all of it up to [`MAX_BUF`] bytes;
/// from a longer `src`, `MAX_BUF` less the start of a UTF-8 character the
/// cut would split, so that text stays valid in each write (what a Windows
/// console needs; harmless elsewhere, as a write may always take less).
fn chunk_len(src: &[u8]) -> usize {
    if src.len() <= MAX_BUF {
        return src.len();
    }
    let continuation = |byte: u8| byte & 0b1100_0000 == 0b1000_0000;
    // A character has at most three continuation bytes.
    (MAX_BUF - 3..=MAX_BUF)
        .rev()
        .find(|&at| !continuation(src[at]))
        .unwrap_or(MAX_BUF)
}

/// An operation on the blocking pool: it gives back the buffer and its
/// result.
type InFlight = AssertUnwindSafe<JoinHandle<(Vec<u8>, io::Result<()>)>>;

enum State {
    /// Nothing in flight; the buffer.
    Idle(Vec<u8>),
    Busy(InFlight),
}

/// One handle's operation slot: its buffer, or the operation that has it.
struct Slot {
    state: State,
    /// The handle's name, as `io::stdout()`, for messages.
    what: &'static str,
    /// Where the handle was made, for the panic outside a runtime.
    made_at: &'static Location<'static>,
}

impl Slot {
    fn new(what: &'static str, made_at: &'static Location<'static>) -> Slot {
        Slot {
            state: State::Idle(Vec::new()),
            what,
            made_at,
        }
    }

    fn is_busy(&self) -> bool {
        matches!(self.state, State::Busy(_))
    }

    /// The buffer, between operations.
    fn buf(&mut self) -> &mut Vec<u8> {
        match &mut self.state {
            State::Idle(buf) => buf,
            State::Busy(_) => unreachable!("the buffer is with the operation in flight"),
        }
    }

    /// The runtime whose pool runs the next operation.
    ///
    /// # Panics
    ///
    /// Outside a runtime, naming the line that made the handle.
    fn runtime(&self, verb: &str) -> Handle {
        match Handle::try_current() {
            Ok(handle) => handle,
            Err(_) => panic!(
                "lawn_rt: `{}` (made at {}) must be {verb} inside a lawn_rt runtime (in \
                 `Runtime::block_on`, a spawned task, or after `Runtime::enter`): its blocking \
                 calls run on the runtime's blocking pool",
                self.what, self.made_at
            ),
        }
    }

    /// Starts `op` with the buffer on `runtime`'s pool (when idle).
    ///
    /// # Errors
    ///
    /// At once if the runtime has shut down, as tokio's stdio handles
    /// fail (`runtime::is_rt_shutdown_err` says yes); the buffer is gone.
    fn start(
        &mut self,
        runtime: &Handle,
        op: impl FnOnce(&mut Vec<u8>) -> io::Result<()> + Send + 'static,
    ) -> io::Result<()> {
        let mut buf = std::mem::take(self.buf());
        let (taken, handle) = runtime.spawn_blocking_unless_shut_down(move || {
            let result = op(&mut buf);
            (buf, result)
        });
        if !taken {
            return Err(shut_down_error_saying(REFUSED));
        }
        self.state = State::Busy(AssertUnwindSafe(handle));
        Ok(())
    }

    /// Waits for the operation in flight, if any, and gives its result
    /// (once). A panic of the operation goes on here; one that never ran
    /// (its runtime had shut down) is an error.
    fn poll_done(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let State::Busy(handle) = &mut self.state else {
            return Poll::Ready(Ok(()));
        };
        let (buf, result) = match ready!(Pin::new(&mut **handle).poll(cx)) {
            Ok(done) => done,
            Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Err(_) => (
                Vec::new(),
                Err(io::Error::other(format!(
                    "lawn_rt: an operation of `{}` did not run: its runtime shut down first",
                    self.what
                ))),
            ),
        };
        self.state = State::Idle(buf);
        Poll::Ready(result)
    }
}

impl fmt::Debug for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Slot")
            .field("busy", &self.is_busy())
            .field("made_at", &self.made_at)
            .finish()
    }
}

/// The standard stream a [`Writer`] writes to.
#[derive(Clone, Copy, Debug)]
pub(super) enum Output {
    Stdout,
    Stderr,
}

impl Output {
    fn name(self) -> &'static str {
        match self {
            Output::Stdout => "io::stdout()",
            Output::Stderr => "io::stderr()",
        }
    }

    /// Whether std buffers it (stdout, by lines; stderr is unbuffered).
    fn buffered(self) -> bool {
        matches!(self, Output::Stdout)
    }

    /// Writes `data` whole, holding std's lock of the stream throughout.
    fn write_all(self, data: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout => io::stdout().write_all(data),
            Output::Stderr => io::stderr().write_all(data),
        }
    }

    fn flush(self) -> io::Result<()> {
        match self {
            Output::Stdout => io::stdout().flush(),
            Output::Stderr => io::stderr().flush(),
        }
    }
}

/// The writing half of the engine, for `Stdout` and `Stderr`.
#[derive(Debug)]
pub(super) struct Writer {
    slot: Slot,
    output: Output,
    /// Whether a write went to std's buffer since the last flush.
    unflushed: bool,
}

impl Writer {
    pub(super) fn new(output: Output, made_at: &'static Location<'static>) -> Writer {
        Writer {
            slot: Slot::new(output.name(), made_at),
            output,
            unflushed: false,
        }
    }

    /// Waits for the write in flight (reporting its error), then takes up
    /// to [`MAX_BUF`] bytes of `src` and starts writing them.
    pub(super) fn poll_write(
        &mut self,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.slot.poll_done(cx))?;
        if src.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let runtime = self.slot.runtime("written to");
        let taken = chunk_len(src);
        let buf = self.slot.buf();
        buf.clear();
        buf.extend_from_slice(&src[..taken]);
        let output = self.output;
        self.slot.start(&runtime, move |buf| {
            let written = output.write_all(buf);
            buf.clear();
            written
        })?;
        self.unflushed |= output.buffered();
        Poll::Ready(Ok(taken))
    }

    /// Waits for the write in flight (reporting its error), then flushes
    /// std's buffer if a write went there since the last flush.
    pub(super) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            ready!(self.slot.poll_done(cx))?;
            if !self.unflushed {
                return Poll::Ready(Ok(()));
            }
            let runtime = self.slot.runtime("flushed");
            self.unflushed = false;
            let output = self.output;
            self.slot.start(&runtime, move |_| output.flush())?;
        }
    }

    pub(super) fn is_busy(&self) -> bool {
        self.slot.is_busy()
    }
}

/// The reading half of the engine, for `Stdin`.
#[derive(Debug)]
pub(super) struct Reader {
    slot: Slot,
    /// How much of the buffer has been handed out.
    pos: usize,
}

impl Reader {
    pub(super) fn new(made_at: &'static Location<'static>) -> Reader {
        Reader {
            slot: Slot::new("io::stdin()", made_at),
            pos: 0,
        }
    }

    /// Hands out buffered bytes if there are any; otherwise reads (or
    /// waits for the read in flight). `Ok(0)` for a non-empty `dst` is the
    /// end of input.
    pub(super) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        dst: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        if self.slot.is_busy() {
            self.pos = 0;
            ready!(self.slot.poll_done(cx))?;
            return Poll::Ready(Ok(self.copy_to(dst)));
        }
        if self.slot.buf().len() > self.pos || dst.is_empty() {
            return Poll::Ready(Ok(self.copy_to(dst)));
        }
        let runtime = self.slot.runtime("read");
        let len = dst.len().min(MAX_BUF);
        self.pos = 0;
        self.slot.start(&runtime, move |buf| fill(buf, len))?;
        // Polls the read at once, so that it wakes this task when done.
        self.poll_read(cx, dst)
    }

    /// Copies unread bytes into `dst`; how many.
    fn copy_to(&mut self, dst: &mut [u8]) -> usize {
        let pos = self.pos;
        let buf = self.slot.buf();
        let n = (buf.len() - pos).min(dst.len());
        dst[..n].copy_from_slice(&buf[pos..pos + n]);
        if pos + n == buf.len() {
            buf.clear();
            self.pos = 0;
        } else {
            self.pos = pos + n;
        }
        n
    }

    pub(super) fn is_busy(&self) -> bool {
        self.slot.is_busy()
    }
}

/// Reads up to `len` bytes of std's stdin into `buf` (blocking); `buf` is
/// left empty on an error.
fn fill(buf: &mut Vec<u8>, len: usize) -> io::Result<()> {
    buf.clear();
    buf.resize(len, 0);
    let read = loop {
        match io::stdin().read(buf) {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            read => break read,
        }
    };
    buf.truncate(*read.as_ref().unwrap_or(&0));
    read.map(drop)
}

#[cfg(test)]
mod tests {
    use super::{chunk_len, MAX_BUF};

    #[test]
    fn a_write_up_to_the_limit_is_taken_whole() {
        assert_eq!(chunk_len(b""), 0);
        assert_eq!(chunk_len(&vec![b'a'; MAX_BUF]), MAX_BUF);
        assert_eq!(chunk_len(&vec![0xff; MAX_BUF]), MAX_BUF);
    }

    #[test]
    fn a_longer_write_is_cut_at_a_character_boundary() {
        assert_eq!(chunk_len(&vec![b'a'; MAX_BUF + 1]), MAX_BUF);
        // "€" is three bytes: place one across the cut at each offset.
        for before in 1..=2 {
            let mut text = vec![b'a'; MAX_BUF - before];
            text.extend_from_slice("€€".as_bytes());
            let cut = chunk_len(&text);
            assert_eq!(cut, MAX_BUF - before);
            assert!(std::str::from_utf8(&text[..cut]).is_ok());
        }
        // A four-byte character whose last byte is past the cut.
        let mut text = vec![b'a'; MAX_BUF - 3];
        text.extend_from_slice("🦀🦀".as_bytes());
        assert_eq!(chunk_len(&text), MAX_BUF - 3);
        // Binary data of continuation bytes only: cut at the limit.
        assert_eq!(chunk_len(&vec![0x80; MAX_BUF + 5]), MAX_BUF);
    }
}
