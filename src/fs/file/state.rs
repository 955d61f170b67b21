//! A file's state: the operation in flight on the blocking pool, the
//! buffer it owns, and the polls that drive them (see the ground rules in
//! [the module docs](super)).

use std::future::Future;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use crate::fs::join;
use crate::runtime::{context, Handle};
use crate::task::JoinHandle;

pub(super) struct FileState {
    pub(super) state: State,
    /// The error of a write that finished after `poll_write` returned, for
    /// the next write, flush or seek to report.
    pub(super) last_write_err: Option<io::Error>,
    /// The position the last seek gave (what tokio's `poll_complete`
    /// reports when no seek is in flight).
    pub(super) pos: u64,
    /// The position a `futures-io` `poll_seek` asked for, while its seek is
    /// in flight.
    pub(super) seeking: Option<SeekFrom>,
    /// The most one blocking read or write moves.
    pub(super) max_buf: usize,
}

pub(super) enum State {
    /// No operation in flight; the buffer (`None` only within a poll).
    Idle(Option<Buf>),
    /// An operation runs on the blocking pool with the buffer.
    Busy(JoinHandle<(Op, Buf)>),
}

/// What a finished blocking operation did.
pub(super) enum Op {
    Read(io::Result<()>),
    Write(io::Result<()>),
    /// A seek (also `set_len`): the new position.
    Seek(io::Result<u64>),
}

/// The file's buffer: `data[pos..]` are read bytes not handed out yet, or
/// the bytes a write is writing.
#[derive(Default)]
pub(super) struct Buf {
    data: Vec<u8>,
    pos: usize,
}

impl Buf {
    fn unread(&self) -> usize {
        self.data.len() - self.pos
    }

    fn clear(&mut self) {
        self.data.clear();
        self.pos = 0;
    }

    /// Copies unread bytes into `dst`; how many.
    fn copy_to(&mut self, dst: &mut [u8]) -> usize {
        let n = self.unread().min(dst.len());
        dst[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        if self.pos == self.data.len() {
            self.clear();
        }
        n
    }

    /// Drops the unread bytes; the (negative) move that takes the OS
    /// position back to the logical one, if any.
    pub(super) fn discard_unread(&mut self) -> Option<i64> {
        let unread = self.unread();
        self.clear();
        (unread > 0).then(|| -(unread as i64))
    }

    /// Reads up to `len` bytes from `file` (blocking).
    fn read_from(&mut self, mut file: &std::fs::File, len: usize) -> io::Result<()> {
        self.clear();
        self.data.resize(len, 0);
        let read = loop {
            match file.read(&mut self.data) {
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                read => break read,
            }
        };
        self.data.truncate(*read.as_ref().unwrap_or(&0));
        read.map(drop)
    }

    /// Writes all of `data` to `file` (blocking), first moving back by
    /// `back` bytes.
    fn write_to(&mut self, mut file: &std::fs::File, back: Option<i64>) -> io::Result<()> {
        let written = match back {
            Some(back) => file.seek(SeekFrom::Current(back)).map(drop),
            None => Ok(()),
        }
        .and_then(|()| file.write_all(&self.data));
        self.clear();
        written
    }
}

/// The runtime whose blocking pool runs a file operation.
///
/// # Panics
///
/// Outside a runtime, naming `what` (and `caller`, if known).
fn runtime(what: &str, caller: Option<&Location<'_>>) -> Handle {
    if let Some(handle) = context::current() {
        return handle;
    }
    let at = caller
        .map(|c| format!(" (called at {c})"))
        .unwrap_or_default();
    panic!(
        "lawn_rt: `fs::File::{what}`{at} must run inside a lawn_rt runtime (in \
         `Runtime::block_on`, a spawned task, or after `Runtime::enter`): it uses the runtime's \
         blocking pool"
    )
}

/// What polling the operation in flight gave; a cancelled one (the runtime
/// shut down) is an error and leaves an empty buffer.
pub(super) fn finish(state: &mut State, cx: &mut Context<'_>) -> Poll<io::Result<Op>> {
    let State::Busy(handle) = state else {
        unreachable!("finish is called in the busy state");
    };
    let joined = ready!(Pin::new(handle).poll(cx));
    match join("File", joined.map(Ok)) {
        Ok((op, buf)) => {
            *state = State::Idle(Some(buf));
            Poll::Ready(Ok(op))
        }
        Err(err) => {
            *state = State::Idle(Some(Buf::default()));
            Poll::Ready(Err(err))
        }
    }
}

impl FileState {
    pub(super) fn buf(&mut self) -> &mut Buf {
        match &mut self.state {
            State::Idle(buf) => buf.as_mut().expect("the buffer is back between polls"),
            State::Busy(_) => unreachable!("the buffer is in use"),
        }
    }

    /// Starts `op` on the blocking pool with the buffer.
    pub(super) fn start(
        &mut self,
        what: &str,
        caller: Option<&Location<'_>>,
        op: impl FnOnce(&mut Buf) -> Op + Send + 'static,
    ) {
        let handle = runtime(what, caller);
        let State::Idle(buf) = &mut self.state else {
            unreachable!("an operation starts in the idle state");
        };
        let mut buf = buf.take().expect("the buffer is back between polls");
        self.state = State::Busy(handle.spawn_blocking(move || {
            let op = op(&mut buf);
            (op, buf)
        }));
    }

    /// Records what a finished operation means when nobody waits for its
    /// result: a write's error is kept for later, a seek's position noted.
    pub(super) fn absorb(&mut self, op: Op) {
        match op {
            Op::Write(Err(err)) => {
                self.last_write_err.get_or_insert(err);
            }
            Op::Seek(Ok(pos)) => self.pos = pos,
            Op::Read(_) | Op::Write(Ok(())) | Op::Seek(Err(_)) => {}
        }
    }

    /// Waits for the operation in flight, if any; an error of a write is
    /// kept for the next write, flush or seek.
    pub(super) fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let State::Busy(_) = self.state {
            let op = ready!(finish(&mut self.state, cx))?;
            self.absorb(op);
        }
        Poll::Ready(Ok(()))
    }

    pub(super) fn poll_read(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        dst: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            match self.state {
                State::Idle(_) => {
                    let buf = self.buf();
                    if buf.unread() > 0 || dst.is_empty() {
                        return Poll::Ready(Ok(buf.copy_to(dst)));
                    }
                    let (std, len) = (std.clone(), dst.len().min(self.max_buf));
                    self.start("poll_read", None, move |buf| {
                        Op::Read(buf.read_from(&std, len))
                    });
                }
                State::Busy(_) => match ready!(finish(&mut self.state, cx))? {
                    Op::Read(Ok(())) => return Poll::Ready(Ok(self.buf().copy_to(dst))),
                    Op::Read(Err(err)) => return Poll::Ready(Err(err)),
                    other => self.absorb(other),
                },
            }
        }
    }

    pub(super) fn poll_write(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        src: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_vectored(std, cx, &[io::IoSlice::new(src)])
    }

    /// Takes as much of `srcs`, in order, as one write may move
    /// (`max_buf`), as tokio's file does.
    pub(super) fn poll_write_vectored(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        srcs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        loop {
            if let Some(err) = self.last_write_err.take() {
                return Poll::Ready(Err(err));
            }
            match self.state {
                State::Idle(_) => {
                    let total: usize = srcs.iter().map(|src| src.len()).sum();
                    if total == 0 {
                        return Poll::Ready(Ok(0));
                    }
                    let max = self.max_buf;
                    let buf = self.buf();
                    let back = buf.discard_unread();
                    let mut n = 0;
                    for src in srcs {
                        let take = src.len().min(max - n);
                        buf.data.extend_from_slice(&src[..take]);
                        n += take;
                        if n == max {
                            break;
                        }
                    }
                    let std = std.clone();
                    self.start("poll_write", None, move |buf| {
                        Op::Write(buf.write_to(&std, back))
                    });
                    return Poll::Ready(Ok(n));
                }
                State::Busy(_) => match ready!(finish(&mut self.state, cx))? {
                    Op::Write(Err(err)) => return Poll::Ready(Err(err)),
                    other => self.absorb(other),
                },
            }
        }
    }

    pub(super) fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_idle(cx))?;
        match self.last_write_err.take() {
            Some(err) => Poll::Ready(Err(err)),
            None => Poll::Ready(Ok(())),
        }
    }

    /// Starts a seek to `pos` (the state must be idle).
    pub(super) fn start_seek(&mut self, std: &Arc<std::fs::File>, mut pos: SeekFrom) {
        if let Some(back) = self.buf().discard_unread() {
            if let SeekFrom::Current(offset) = &mut pos {
                *offset += back;
            }
        }
        let std = std.clone();
        self.start("seek", None, move |_| Op::Seek((&*std).seek(pos)));
    }

    /// `futures-io`'s seek: waits for the operation in flight, starts the
    /// seek, waits for it. Polled again (with the same `pos`) after
    /// `Pending`, it goes on with the seek it started.
    pub(super) fn poll_seek(
        &mut self,
        std: &Arc<std::fs::File>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        loop {
            match self.state {
                State::Idle(_) => {
                    if let Some(err) = self.last_write_err.take() {
                        return Poll::Ready(Err(err));
                    }
                    self.start_seek(std, pos);
                    self.seeking = Some(pos);
                }
                State::Busy(_) => {
                    let op = ready!(finish(&mut self.state, cx));
                    let ours = self.seeking.take() == Some(pos);
                    match op? {
                        Op::Seek(result) if ours => {
                            if let Ok(at) = result {
                                self.pos = at;
                            }
                            return Poll::Ready(result);
                        }
                        other => self.absorb(other),
                    }
                }
            }
        }
    }
}
