//! Reads into the part of tokio's `ReadBuf` that is not yet initialized,
//! without zeroing it first: a socket's `recv`.
//!
//! A `ReadBuf` made over spare capacity (hyper's read buffer, tokio-util's
//! codecs) starts with nothing initialized, on every read. Zeroing it
//! before each read (`initialize_unfilled`) writes the whole buffer: CPU on
//! every read, and memory made resident that an idle connection never
//! uses. `recv(2)` writes only the bytes it returns, so it may be handed
//! the uninitialized part directly; that takes the two `unsafe` calls
//! below, and this module is the only place the I/O path has them
//! (measured in docs/decisions/io-path-under-real-clients.md).
//!
//! Ground rules: nothing here writes to the buffer but the kernel's
//! `recv`; `assume_init` is told exactly the bytes `recv` returned.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::AsFd;

use tokio::io::ReadBuf;

/// Receives once from the socket `fd` into `buf`'s unfilled part and
/// advances `buf` by the bytes received; gives that count (0: end of
/// stream, or no room). `recv(2)`, not `read(2)`: on a socket it skips the
/// file layer's bookkeeping `read` goes through, as tokio's reads do.
pub(crate) fn recv_into(fd: impl AsFd, buf: &mut ReadBuf<'_>) -> io::Result<usize> {
    // SAFETY: `unfilled_mut` is unsafe because a caller could write
    // uninitialized bytes over bytes `buf` counts as initialized; the only
    // writer here is `recv(2)`, which writes the bytes it received.
    let unfilled = unsafe { buf.unfilled_mut() };
    let ((read, _), _) = rustix::net::recv(fd, unfilled, rustix::net::RecvFlags::empty())?;
    let n = read.len();
    // SAFETY: `recv` initialized the first `n` bytes of the unfilled part
    // (the slice it returned is exactly those bytes).
    unsafe { buf.assume_init(n) };
    buf.advance(n);
    Ok(n)
}
